//! Confer: a self-hosted agent conversation service.
//!
//! This crate holds the adapters (sled store, auth, settings) and the HTTP
//! layer around the engine in `confer-actors`. [`serve`] starts exactly what
//! production runs; `main.rs` only parses the command line.

pub mod api;
pub mod auth;
pub mod error;
pub mod providers;
pub mod resolver;
pub mod settings;
pub mod state;
pub mod store;
pub mod telemetry;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use anyhow::Context;
use confer_actors::{Engine, Runtime, RuntimeConfig};
use secrecy::ExposeSecret;

use crate::api::extract::{BodyLimit, path_config, query_config};
use crate::auth::jwt::JwtVerifier;
use crate::providers::ProviderRouter;
use crate::settings::Settings;
use crate::state::AppState;
use crate::store::Store;

/// Runs the server until SIGINT/SIGTERM, then finishes in-flight requests and
/// flushes the store.
pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let settings = Arc::new(settings);
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating data dir {}", settings.data_dir.display()))?;
    let store = Store::open(&settings.data_dir).context("opening the store")?;

    if let Some(secret) = auth::api_keys::bootstrap(&store, settings.bootstrap_api_key.clone())
        .await
        .context("bootstrapping the default org")?
    {
        // Standard output, not the log: the log never carries a secret.
        println!(
            "Created org `{}` with an admin API key (shown once, keep it): {}",
            auth::api_keys::DEFAULT_ORG,
            secret.expose_secret()
        );
    }

    let extra_ca = match &settings.extra_ca_cert {
        Some(path) => Some(
            std::fs::read(path)
                .with_context(|| format!("reading the extra CA file {}", path.display()))?,
        ),
        None => None,
    };
    let client = providers::vendor::http_client(
        Duration::from_millis(settings.vendor_connect_timeout_ms),
        Duration::from_millis(settings.vendor_read_timeout_ms),
        extra_ca.as_deref(),
    )
    .context("building the outbound HTTP client")?;
    let engine = Arc::new(Engine {
        store: store.as_port(),
        provider: Arc::new(ProviderRouter::new(&settings, client.clone())),
        resolver: Arc::new(resolver::HttpResolver::new(client)),
    });
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let runtime = Runtime::start(
        engine,
        RuntimeConfig {
            idle_timeout: Duration::from_millis(settings.thread_idle_timeout_ms),
            max_live_threads: settings.max_live_threads.max(1),
            arbiters: match settings.runtime_arbiters {
                0 => cores,
                n => n,
            },
        },
    );

    let state = web::Data::new(AppState {
        runtime,
        store: store.clone(),
        jwt: settings.jwt_secret.as_ref().map(JwtVerifier::new),
        default_model: settings.platform_default_model(),
        settings: Arc::clone(&settings),
    });
    let listener = std::net::TcpListener::bind(&settings.bind)
        .with_context(|| format!("binding {}", settings.bind))?;
    let address = listener.local_addr()?;
    let body_limit = BodyLimit(settings.max_body_bytes);

    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(body_limit)
            .app_data(query_config())
            .app_data(path_config())
            .wrap(from_fn(api::json_errors))
            .wrap(from_fn(telemetry::request_log))
            .configure(api::routes)
    })
    .shutdown_timeout(settings.shutdown_timeout_secs)
    // Tokens are small writes that must leave at once: without this, Nagle's
    // algorithm holds the end of each stream for the client's delayed ACK
    // (about 40 ms per turn, measured with benches/turns.rs).
    .tcp_nodelay(true)
    .listen(listener)?;
    if settings.workers > 0 {
        server = server.workers(settings.workers);
    }
    let server = server.run();

    println!("confer listening on http://{address}");
    std::io::stdout().flush()?;
    tracing::info!(%address, data_dir = %settings.data_dir.display(), "listening");

    server.await?;
    store
        .flush_now()
        .context("flushing the store at shutdown")?;
    tracing::info!("stopped; store flushed");
    Ok(())
}
