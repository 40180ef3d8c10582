//! Opening the store a server or a command names: the data directory
//! made private, the secret key loaded, sled opened; a set `CONFER_STORE`
//! refused while the PostgreSQL store keeps no records.

use std::sync::Arc;

use anyhow::Context;

use super::Store;
use crate::secrets::SecretBox;
use crate::settings::Settings;

/// Opens the store of `settings` (creating its directory) with the secret
/// key the settings name: the server's way, and the command line's.
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

/// A set `CONFER_STORE` is refused (after its string is checked, so a
/// typo is named): the PostgreSQL store does not keep records yet, and
/// running on sled instead would put a cluster's nodes on separate stores
/// without a word.
fn refuse_postgres(settings: &Settings) -> anyhow::Result<()> {
    if super::pg::PgSettings::from_settings(settings)?.is_some() {
        anyhow::bail!(
            "CONFER_STORE is set, but this build cannot keep its records in PostgreSQL yet \
             (it has the connection, the migrations and the shard leases, not the records; \
             docs/operations.md \"Running a cluster\"); unset CONFER_STORE to run on sled"
        );
    }
    Ok(())
}
