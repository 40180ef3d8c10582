//! `/api/admin/*` (`operations.md`): a backup and an export of a running
//! server, for platform admins (`confer backup|export|check --url`), and
//! the cluster's nodes and shards (`scale.md` §6). Both
//! are produced on a thread of their own and streamed as they are made.
//! A backup is written to a file in the data directory first, so the write
//! gate it holds is never held for as long as a slow client takes to read.

use std::io::Write;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::auth::PlatformAdmin;
use crate::cluster::serving::ClusterReport;
use crate::error::ApiError;
use crate::export::{ExportFilter, export as write_export};
use crate::state::AppState;
use crate::store::backup::{PARTIAL_PREFIX, PARTIAL_SUFFIX};
use crate::store::pg::export::PgScan;

/// The store, this node, the live nodes and how many shards each owns
/// (`scale.md` §6); on sled, no nodes.
#[utoipa::path(get, path = "/api/admin/cluster", tag = "operations", operation_id = "admin_cluster",
    security(("bearer" = ["platform_admin"])),
    responses((status = 200, description = "The cluster as this node last read it (each second)", body = ClusterReport)))]
pub async fn cluster(state: web::Data<AppState>, _caller: PlatformAdmin) -> HttpResponse {
    let report = match &state.cluster {
        Some(cluster) => cluster.report(),
        None => ClusterReport::sled(),
    };
    HttpResponse::Ok().json(report)
}

/// Bytes sent to the client per chunk.
const CHUNK: usize = 64 * 1024;
/// Chunks made ahead of the client.
const CHUNKS_AHEAD: usize = 16;

type Chunk = Result<Bytes, std::io::Error>;

/// A `Write` whose bytes become the chunks of a streamed response; a
/// client that left makes the next write fail, which ends the producer.
struct ChannelWriter {
    buffer: Vec<u8>,
    sender: mpsc::Sender<Chunk>,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK),
        ));
        self.sender
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client left"))
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(data);
        if self.buffer.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// A response streaming what `produce` writes on a thread of its own; an
/// error after the first byte aborts the stream (the client sees it cut).
fn streamed(
    content_type: &str,
    file_name: &str,
    produce: impl FnOnce(&mut ChannelWriter) -> Result<(), String> + Send + 'static,
) -> Result<HttpResponse, ApiError> {
    let (sender, receiver) = mpsc::channel::<Chunk>(CHUNKS_AHEAD);
    let errors = sender.clone();
    std::thread::Builder::new()
        .name("confer-admin-stream".into())
        .spawn(move || {
            let mut writer = ChannelWriter {
                buffer: Vec::with_capacity(CHUNK),
                sender,
            };
            let outcome = produce(&mut writer)
                .and_then(|()| writer.flush().map_err(|e| format!("sending: {e}")));
            if let Err(error) = outcome {
                tracing::error!(%error, "an admin stream failed");
                let _ = errors.blocking_send(Err(std::io::Error::other(error)));
            }
        })
        .map_err(|e| ApiError::Internal(format!("starting the stream: {e}")))?;
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    });
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}\""),
        ))
        .streaming(body))
}

/// `GET /api/admin/backup` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BackupQuery {
    /// Put the secret key in the archive (`security.md`: only when asked).
    #[serde(default)]
    include_secret_key: bool,
}

/// `GET /api/admin/backup`: the store as a `confer backup` archive (tar +
/// zstd, manifest last), consistent at one instant between two writes.
#[utoipa::path(get, path = "/api/admin/backup", tag = "operations", operation_id = "admin_backup",
    security(("bearer" = ["platform_admin"])), params(BackupQuery),
    responses((status = 200, description = "The archive", content_type = "application/zstd")))]
pub async fn backup(
    state: web::Data<AppState>,
    _caller: PlatformAdmin,
    query: web::Query<BackupQuery>,
) -> Result<HttpResponse, ApiError> {
    if state.store.is_postgres() {
        return Err(ApiError::Conflict(
            "back up PostgreSQL with its own tools (pg_dump, base backups with WAL archiving)"
                .into(),
        ));
    }
    let store = state.store.clone();
    let partial = state.settings.data_dir.join(format!(
        "{PARTIAL_PREFIX}{}{PARTIAL_SUFFIX}",
        uuid::Uuid::new_v4().simple()
    ));
    let with_key = query.include_secret_key;
    if with_key {
        tracing::warn!("a backup with the secret key was requested");
    }
    let name = format!(
        "confer-backup-{}.tar.zst",
        Utc::now().format("%Y%m%dT%H%M%SZ")
    );
    streamed("application/zstd", &name, move |out| {
        let made = std::fs::File::create(&partial)
            .map_err(|e| format!("creating {}: {e}", partial.display()))
            .and_then(|file| {
                store
                    .with_inner(|s| s.write_backup(std::io::BufWriter::new(file), with_key))
                    .map_err(|e| e.to_string())
            });
        // Open, then unlink: the file lives while it is read, and never
        // outlasts the request.
        let opened = made.and_then(|_| {
            std::fs::File::open(&partial).map_err(|e| format!("reading the backup: {e}"))
        });
        let _ = std::fs::remove_file(&partial);
        let mut file = opened?;
        std::io::copy(&mut file, out).map_err(|e| format!("sending the backup: {e}"))?;
        Ok(())
    })
}

/// `GET /api/admin/export` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// One org, by id or name (else every org).
    org: Option<String>,
    /// Records created or changed at or after this instant (RFC 3339).
    since: Option<DateTime<Utc>>,
}

/// `GET /api/admin/export`: JSON Lines, one record per line in the API's
/// shapes (`type`: `agent`, `thread`, `message`, `usage`); no secrets.
#[utoipa::path(get, path = "/api/admin/export", tag = "operations", operation_id = "admin_export",
    security(("bearer" = ["platform_admin"])), params(ExportQuery),
    responses((status = 200, description = "The records, one JSON object per line", content_type = "application/jsonl")))]
pub async fn export(
    state: web::Data<AppState>,
    _caller: PlatformAdmin,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let org = match query.org {
        None => None,
        Some(wanted) => {
            let orgs = state.store.orgs().orgs().await?;
            let found = orgs
                .into_iter()
                .find(|o| o.name == wanted || o.id.to_string() == wanted)
                .ok_or_else(|| ApiError::not_found("org"))?;
            Some(found.id)
        }
    };
    let filter = ExportFilter {
        org,
        since: query.since,
    };
    let store = state.store.clone();
    // On PostgreSQL the pages are read on this worker's runtime, which
    // drives the store's connections while the stream's thread waits.
    let runtime = tokio::runtime::Handle::current();
    streamed("application/jsonl", "confer-export.jsonl", move |out| {
        match store.postgres() {
            Some(pg) => write_export(&PgScan::new(pg.clone(), runtime), out, filter),
            None => store.with_inner(|s| write_export(s, out, filter)),
        }
        .map(drop)
        .map_err(|e| e.to_string())
    })
}
