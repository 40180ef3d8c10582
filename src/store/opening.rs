//! Opening the store a server or a command names: the data directory
//! made private, the secret key loaded, sled opened; or, for a server
//! with `CONFER_STORE`, PostgreSQL connected, migrated and its key check
//! passed. `keys`, `orgs` and `export` run on either; the other commands
//! refuse `CONFER_STORE` until they run on PostgreSQL.

use std::sync::Arc;

use anyhow::Context;

use super::Store;
use crate::secrets::SecretBox;
use crate::settings::Settings;

/// The store a server runs on: PostgreSQL when `CONFER_STORE` is set
/// (`scale.md` §1), else sled in the data directory.
pub async fn open_serving_store(settings: &Settings) -> anyhow::Result<Store> {
    match super::pg::PgSettings::from_settings(settings)? {
        Some(pg) => open_postgres(settings, &pg).await,
        None => open_store(settings),
    }
}

/// Connects, migrates (once, however many nodes start together) and
/// checks the secret key against the database's. The key must be given:
/// a key file made in one node's data directory would differ on the next.
async fn open_postgres(settings: &Settings, pg: &super::pg::PgSettings) -> anyhow::Result<Store> {
    use super::pg::{Database, PgStore, meta};
    if settings.secret_key.is_none() && settings.secret_key_file.is_none() {
        anyhow::bail!(
            "CONFER_STORE needs CONFER_SECRET_KEY (or CONFER_SECRET_KEY_FILE), the same on every node"
        );
    }
    let secrets = Arc::new(SecretBox::load(
        settings.secret_key.as_ref(),
        settings.secret_key_file.as_deref(),
        settings.secret_key_old.as_ref(),
        &settings.data_dir,
    )?);
    let tls = crate::tools::integrations::connection::TlsSettings::new(
        settings.extra_ca_pem()?.as_deref(),
    )
    .context("building the store's TLS settings")?;
    let database = Database::open(pg, tls).await?;
    let prepared = meta::prepare(&database, &secrets).await?;
    tracing::info!(
        migrated = ?prepared.migrated,
        first_start = prepared.first_start,
        rotated = prepared.rotated,
        "records kept in PostgreSQL"
    );
    tracing::warn!(
        "on PostgreSQL, only agents, threads, turns, keys, tools, plans, projects, agent \
         configurations, scheduled tasks, publications, skills, MCP servers, integrations, \
         memories, knowledge (documents, embeddings) and the marketplace are kept yet; routes of other kinds answer 501 NOT_ON_THIS_STORE"
    );
    Ok(Store::on_postgres(
        PgStore::new(database, Arc::clone(&secrets)),
        secrets,
    ))
}

/// Opens the sled store of `settings` (creating its directory) with the
/// secret key the settings name: the server's way without `CONFER_STORE`,
/// and the command line's.
pub fn open_store(settings: &Settings) -> anyhow::Result<Store> {
    refuse_postgres(settings)?;
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating data dir {}", settings.data_dir.display()))?;
    // The store, the secret key and the traces are Confer's alone: no
    // other user (a stdio MCP child among them) may list or read them.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&settings.data_dir, std::fs::Permissions::from_mode(0o700))
            .with_context(|| {
                format!(
                    "making data dir {} private (mode 0700)",
                    settings.data_dir.display()
                )
            })?;
    }
    let secrets = SecretBox::load(
        settings.secret_key.as_ref(),
        settings.secret_key_file.as_deref(),
        settings.secret_key_old.as_ref(),
        &settings.data_dir,
    )?;
    tracing::info!(source = %secrets.source, "secret key loaded");
    let store =
        Store::open_with(&settings.data_dir, Arc::new(secrets)).context("opening the store")?;
    // Only once the store is ours (sled locks it): no server is sending them.
    let removed = super::backup::remove_partial_archives(&settings.data_dir);
    if removed > 0 {
        tracing::info!(
            removed,
            "removed backup archives a stopped server left unsent"
        );
    }
    Ok(store)
}

/// A set `CONFER_STORE` is refused by the sled-only commands (after its string
/// is checked, so a typo is named): its commands read and write sled, and
/// running them on a sled directory instead would act on another store
/// without a word.
fn refuse_postgres(settings: &Settings) -> anyhow::Result<()> {
    if super::pg::PgSettings::from_settings(settings)?.is_some() {
        anyhow::bail!(
            "CONFER_STORE is set, but this command does not run on PostgreSQL yet \
             (`serve`, `keys`, `orgs` and `export` do; docs/operations.md \"Running a cluster\"); \
             unset CONFER_STORE to run it on sled"
        );
    }
    Ok(())
}
