//! Confer: a self-hosted agent conversation service.
//!
//! This crate holds the adapters (sled store, auth, settings) and the HTTP
//! layer around the engine in `confer-actors`. [`serve`] starts exactly what
//! production runs; `main.rs` only parses the command line.

pub mod allocator;
pub mod api;
pub mod auth;
pub mod channels;
pub mod cli;
pub mod cluster;
pub mod code;
pub mod computer;
pub mod connections;
pub mod error;
pub mod export;
pub mod knowledge;
pub mod limits;
pub mod marketplace;
pub mod observability;
pub mod outbound;
pub mod plans;
pub mod projects;
pub mod providers;
pub mod publishing;
pub mod resolver;
pub mod runners;
pub mod scheduler;
pub mod secrets;
pub mod settings;
pub mod shutdown;
pub mod skills;
pub mod state;
pub mod store;
pub mod suggestions;
pub mod telemetry;
pub mod thread_priority;
pub mod tools;
pub mod web_tools;
pub mod webhooks;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use anyhow::Context;
use confer_actors::{
    CredentialResolver, Engine, ModelProvider, Retention, Runtime, RuntimeConfig, ThreadLimits,
};
use secrecy::ExposeSecret;

use crate::api::extract::{BodyLimit, path_config, query_config};
use crate::limits::RateLimits;
use crate::outbound::{Outbound, OutboundPolicy};
use crate::providers::ProviderRouter;
use crate::settings::Settings;
use crate::state::AppState;

pub use crate::connections::{bind, with_port};
pub use crate::store::opening::open_store;

/// Runs the server on `listener` until SIGINT/SIGTERM, then finishes
/// in-flight requests and flushes the store.
pub async fn serve(mut settings: Settings, listener: std::net::TcpListener) -> anyhow::Result<()> {
    // Unset, the public URL is the address actually bound (the bind
    // setting's port may be 0): one rule for every link Confer hands out.
    if settings.public_url.is_none() {
        settings.public_url = Some(format!("http://{}", listener.local_addr()?));
    }
    let settings = Arc::new(settings);
    // Before any store call (the bound is set once per process).
    confer_actors::set_store_concurrency(settings.store_concurrency);
    let jwt = auth::jwt::from_settings(&settings)?;
    let prices = Arc::new(observability::prices::load(
        settings.prices_file.as_deref(),
    )?);
    let metrics = observability::metrics::install();
    let store = store::opening::open_serving_store(&settings).await?;
    store.set_trace_retention_days(settings.trace_retention_days);
    let traces = Arc::new(confer_actors::RunningTraces::default());

    let extra_ca = settings.extra_ca_pem()?;
    let client = providers::client::VendorClient::new(
        Duration::from_millis(settings.vendor_connect_timeout_ms),
        Duration::from_millis(settings.vendor_read_timeout_ms),
        extra_ca.as_deref(),
    )
    .context("building the outbound HTTP client")?;
    if let Some(target) = observability::otlp::OtlpTarget::from_env(|name| std::env::var(name).ok())
    {
        tracing::info!(url = %target.url, "exporting traces over OTLP");
        let exporter = observability::otlp::OtlpExporter::start(target, client.clone());
        store.on_trace_stored(Box::new(move |record| exporter.offer(record)));
    }
    let policy = OutboundPolicy::new(&settings.outbound_allow, settings.outbound_proxy.as_deref())
        .map_err(anyhow::Error::msg)?;
    let outbound =
        Outbound::new(policy, extra_ca.as_deref()).context("building the outbound HTTP client")?;
    let tool_cache = Arc::new(tools::webhook::OfferedCache::default());
    let integrations = tools::integrations::IntegrationHub::new(
        store.clone(),
        outbound.clone(),
        tools::integrations::connection::TlsSettings::new(extra_ca.as_deref())
            .context("building the databases' TLS settings")?,
    );
    let managed_oauth = Arc::new(
        tools::mcp::registry::managed::ManagedClients::load(&settings.mcp_managed_oauth)
            .context("mcp_managed_oauth")?,
    );
    let mcps = tools::mcp::McpHub::new(
        store.clone(),
        outbound.clone(),
        tools::mcp::McpConfig {
            stdio: tools::mcp::stdio::StdioConfig::new(
                tools::mcp::stdio::StdioAllowList::new(settings.mcp_stdio_allow.clone())
                    .map_err(anyhow::Error::msg)?,
                &settings.mcp_stdio_env_allow,
                settings.mcp_stdio_homes(),
                &settings.data_dir,
                settings.mcp_stdio_uid,
            )
            .map_err(anyhow::Error::msg)?,
            public_url: settings.public_url(),
            managed_oauth: Arc::clone(&managed_oauth),
        },
    );
    let knowledge = knowledge::KnowledgeServices::start(&store, &settings, &outbound)?;
    let provider: Arc<dyn ModelProvider> = Arc::new(ProviderRouter::new(&settings, client));
    let resolver: Arc<dyn CredentialResolver> =
        Arc::new(resolver::HttpResolver::new(outbound.clone()));
    let collector = knowledge.start_collector(&store, (&provider, &resolver), &prices);
    let suggestions = Arc::new(suggestions::SuggestionWriter::new(
        store.clone(),
        Arc::clone(&provider),
        Arc::clone(&prices),
    ));
    let delegate = tools::delegate::DelegateTools::from_settings(store.clone(), &settings);
    let computer = computer::start(&settings, &store, &outbound).await?;
    let delegate_runtime = delegate.runtime();
    let leases = Arc::new(cluster::serving::NodeLeases::default());
    let engine = Arc::new(Engine {
        leases: store
            .is_postgres()
            .then(|| Arc::clone(&leases) as Arc<dyn confer_actors::Leases>),
        store: store.as_port(),
        provider,
        resolver,
        tools: Arc::new(tools::ServerToolbox::new(
            tools::plans::PlanTools::new(store.clone()),
            tools::knowledge::KnowledgeTools::new(store.clone(), Arc::clone(&knowledge.search)),
            tools::memory::MemoryTools::new(store.clone(), Arc::clone(&knowledge.memories)),
            tools::skills::SkillTools::new(store.clone()),
            tools::web::WebTools::new(store.clone(), outbound.clone()),
            delegate,
            tools::webhook::WebhookTools::new(
                store.clone(),
                outbound.clone(),
                Arc::clone(&tool_cache),
            ),
            tools::integrations::IntegrationTools::new(Arc::clone(&integrations)),
            tools::mcp::McpTools::new(Arc::clone(&mcps)),
            tools::computer::ComputerTools::new(store.clone(), Arc::clone(&computer)),
        )),
        traces: Arc::clone(&traces),
        prices: Arc::clone(&prices),
        trace_payloads: settings.trace_payloads,
    });
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let runtime = Runtime::start(
        engine,
        RuntimeConfig {
            idle_timeout: Duration::from_millis(settings.thread_idle_timeout_ms),
            max_live_threads: settings.max_live_threads.max(1),
            cache_bytes: settings.context_cache_bytes,
            arbiters: match settings.runtime_arbiters {
                0 => cores,
                n => n,
            },
            max_active_turns_per_org: settings.max_active_turns_per_org,
            max_queued_per_org: settings.max_queued_per_org,
            release_memory: allocator::release_free_memory,
            thread: ThreadLimits {
                max_queued: settings.max_queued_per_thread,
                retention: Retention {
                    replay_bytes: settings.stream_replay_bytes.max(1024),
                    max_watchers: settings.max_watchers_per_thread,
                    ..Retention::default()
                },
                max_content_bytes: settings.max_content_bytes,
            },
        },
    );
    let _ = delegate_runtime.set(runtime.clone()); // delegate calls run child turns on it
    let fallback = settings.fallback_provider.clone();
    runners::worker::finish_deletions(&store).await?;
    let runs = runners::worker::RunWorker::start(store.clone(), runtime.clone(), prices, fallback);
    let scheduler =
        scheduler::firing::Scheduler::start(store.clone(), runtime.clone(), Arc::clone(&runs));
    webhooks::deliveries::DeliveryWorker::start(store.clone(), outbound.clone());
    runners::retention::start(&store, settings.run_retention_days);
    code::retention::start(&store, settings.code_session_retention_days);
    let public = Arc::new(publishing::chats::PublicChats::start(&settings, &store).await?);
    let channels = channels::worker::ChannelWorker::start(
        store.clone(),
        runtime.clone(),
        channels::vendors::VendorApis::new(&settings, outbound.clone()),
        settings.channel_workers,
    );
    let mcp_hub = Arc::clone(&mcps);
    let (code_archives, code_sessions) =
        code::start(&settings, &store, &runtime, &computer, &outbound).await?;
    let cluster = cluster::serving::Membership::join(
        &settings,
        listener.local_addr()?,
        &store,
        &runtime,
        &leases,
        cluster::caches::Cached::of(
            &tool_cache,
            &public,
            &mcps,
            &integrations,
            knowledge.search.vectors(),
        ),
    )
    .await
    .context("joining the cluster")?
    .map(Arc::new);
    scheduler.follow(cluster.as_ref());
    knowledge.follow(&collector, cluster.as_ref());
    let state = web::Data::new(AppState {
        cluster: cluster.clone(),
        public,
        knowledge: knowledge.ingestion,
        knowledge_search: knowledge.search,
        memories: knowledge.memories,
        runtime,
        runs,
        scheduler,
        store: store.clone(),
        jwt,
        outbound: outbound.clone(),
        limits: RateLimits::new(
            settings.user_rate_limit_rps,
            settings.user_send_limit_per_min,
        ),
        default_model: settings.platform_default_model(),
        settings: Arc::clone(&settings),
        tool_cache,
        mcps,
        integrations,
        traces,
        suggestions,
        skills: Arc::new(skills::install::SkillInstaller::new(
            store.clone(),
            outbound.clone(),
            outbound::git::GitFetcher::new(&settings.git_path, &settings.data_dir, &outbound),
        )),
        metrics,
        computer,
        proposal_slots: Default::default(),
        channels,
        mcp_registry: Arc::new(tools::mcp::registry::Registry::new(
            &settings.mcp_registry_url,
            outbound.clone(),
            managed_oauth,
        )),
        code_sessions,
        code_archives,
    });
    let runtime = state.runtime.clone();
    let address = listener.local_addr()?;
    let open_files = connections::raise_open_file_limit();
    tracing::info!(open_files, "open-file limit");
    let body_limit = BodyLimit {
        bytes: settings.max_body_bytes,
        timeout: Duration::from_secs(settings.client_timeout_secs),
        max_depth: settings.max_json_depth,
    };

    let cors_origins = settings.cors_origins.clone();
    let clustered = state.cluster.is_some();
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(body_limit)
            .app_data(query_config())
            .app_data(path_config())
            .wrap(from_fn(api::json_errors))
            .wrap(from_fn(api::header_limit))
            .wrap(from_fn(telemetry::request_log))
            .wrap(from_fn(observability::metrics::request_metrics))
            // A preflight is answered first; its framing headers still come.
            .wrap(api::cors::cors(&cors_origins))
            .wrap(from_fn(api::frame_policy::headers))
            .wrap(actix_web::middleware::Condition::new(
                clustered,
                from_fn(api::node_header),
            ))
            .wrap(actix_web::middleware::Condition::new(
                clustered,
                from_fn(cluster::forward::route),
            ))
            .configure(api::routes)
    })
    .shutdown_timeout(settings.shutdown_timeout_secs)
    // A client that does not send its request headers in time is answered
    // 408 and closed (the body has the same bound, in `JsonBody`).
    .client_request_timeout(Duration::from_secs(settings.client_timeout_secs))
    .client_disconnect_timeout(Duration::from_secs(1))
    .max_connections(connections::per_worker(&settings, open_files))
    // SIGINT and SIGTERM are handled below, both gracefully.
    .disable_signals()
    // Tokens are small writes that must leave at once: without this, Nagle's
    // algorithm holds the end of each stream for the client's delayed ACK
    // (about 40 ms per turn, measured with benches/turns.rs).
    .tcp_nodelay(true)
    .on_connect(connections::stall_limit(Duration::from_secs(
        settings.stalled_client_secs,
    )))
    .listen(listener)?;
    if settings.workers > 0 {
        server = server.workers(settings.workers);
    }
    let mut signals = shutdown::ShutdownSignals::install();
    let server = server.run();
    let handle = server.handle();

    // Created and printed only now that the listener serves: a start that
    // failed before this point created no key, so the next one makes and
    // shows it again.
    let first_key = auth::api_keys::bootstrap(&store, settings.bootstrap_api_key.clone())
        .await
        .context("bootstrapping the default org")?;
    if let Some(secret) = first_key {
        // Standard output, not the log: the log never carries a secret.
        println!(
            "Created org `{}` with an admin API key (shown once, keep it): {}",
            auth::api_keys::DEFAULT_ORG,
            secret.expose_secret()
        );
    }
    println!("confer listening on http://{address}");
    std::io::stdout().flush()?;
    tracing::info!(%address, data_dir = %settings.data_dir.display(), "listening");

    let poisoned = store.poisoned();
    let grace = Duration::from_secs(settings.shutdown_timeout_secs);
    let stopping = actix_web::rt::spawn(async move {
        let reason = tokio::select! {
            signal = signals.next() => Ok(signal),
            error = poisoned => Err(error),
        };
        match &reason {
            Ok(signal) => {
                tracing::info!(signal, "shutting down gracefully");
                // No new connections; sends on open ones are refused (503
                // SHUTTING_DOWN) while the running turns finish or stop.
                handle.pause().await;
                actix_web::rt::spawn(async move {
                    let second = signals.next().await;
                    tracing::warn!(signal = second, "second signal: exiting at once");
                    // Every acknowledged write is already durable.
                    std::process::exit(1);
                });
                // A cluster's node hands its shards over as their turns
                // end, while they end: the stop after the grace takes 5 s
                // at most, and a second more leaves time to release.
                let leaving = async {
                    if let Some(cluster) = &cluster {
                        cluster.leave(grace + Duration::from_secs(6)).await;
                    }
                };
                tokio::join!(runtime.shutdown(grace), leaving);
            }
            Err(error) => {
                tracing::error!(%error, "a store flush failed; stopping so the supervisor restarts Confer")
            }
        }
        handle.stop(true).await;
        reason
    });
    server.await?;
    // stdio MCP servers' children end with their process groups.
    mcp_hub.close_all();
    if let Ok(Err(error)) = stopping.await {
        anyhow::bail!(
            "the store failed to flush ({error}); stopped without acknowledging further writes"
        );
    }
    store
        .flush_now()
        .context("flushing the store at shutdown")?;
    tracing::info!("stopped; store flushed");
    Ok(())
}
