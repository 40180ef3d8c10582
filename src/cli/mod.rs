//! The operator's commands (`operations.md` "Command line"), one module
//! per group: [`keys`] (API keys and orgs), [`data`] (backup, restore,
//! export, check) and [`remote`] (the same against a running server, with
//! `--url` and an admin key). The store allows one process at a time, so a
//! command on the data directory refuses one a running server holds.

pub mod cluster;
pub mod data;
pub mod keys;
pub mod remote;

use anyhow::Context;

use crate::auth::api_keys::DEFAULT_ORG;
use crate::settings::Settings;
use crate::store::port::OrgRecords;
use crate::store::records::Org;
use crate::store::{SledStore, Store};

/// Why a command did not run, and the exit code to give.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The store is held by a running server (exit 2).
    #[error("the store in {0} is in use by a running server; pass --url (with an admin key)")]
    InUse(String),
    /// The command's arguments name nothing (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Anything else (exit 1).
    #[error("{0:#}")]
    Failed(#[from] anyhow::Error),
}

impl From<confer_actors::StoreError> for CliError {
    fn from(error: confer_actors::StoreError) -> Self {
        Self::Failed(error.into())
    }
}

/// Opens the store of `settings` for a command.
pub(crate) fn open(settings: &Settings) -> Result<Store, CliError> {
    crate::open_store(settings).map_err(|error| {
        let text = format!("{error:#}");
        // sled takes an exclusive lock on its directory.
        if text.contains("lock")
            || text.contains("WouldBlock")
            || text.contains("temporarily unavailable")
        {
            CliError::InUse(settings.data_dir.display().to_string())
        } else {
            CliError::Failed(error)
        }
    })
}

/// The org named `name` (or, `None`, `default`, else the oldest). On a
/// store with no org yet, `create` makes `default` as a first start would.
pub(crate) fn org(store: &SledStore, name: Option<&str>, create: bool) -> Result<Org, CliError> {
    let orgs = store.orgs().context("reading orgs")?;
    if orgs.is_empty() && create && name.is_none_or(|n| n == DEFAULT_ORG) {
        return Ok(store.default_org().context("storing the org")?);
    }
    pick(orgs, name)
}

/// [`org`] over the records' port, on either store.
pub(crate) async fn org_in(
    records: &dyn OrgRecords,
    name: Option<&str>,
    create: bool,
) -> Result<Org, CliError> {
    let orgs = records.orgs().await.context("reading orgs")?;
    if orgs.is_empty() && create && name.is_none_or(|n| n == DEFAULT_ORG) {
        let org = Org {
            id: confer_actors::OrgId::new(),
            name: DEFAULT_ORG.into(),
            created_at: chrono::Utc::now(),
        };
        records
            .put_org(org.clone())
            .await
            .context("storing the org")?;
        return Ok(org);
    }
    pick(orgs, name)
}

/// The org `name` names among `orgs` (by name or id), or with no name
/// `default`, else the oldest.
fn pick(mut orgs: Vec<Org>, name: Option<&str>) -> Result<Org, CliError> {
    orgs.sort_by_key(|o| o.created_at);
    let wanted = name.unwrap_or(DEFAULT_ORG);
    if let Some(found) = orgs
        .iter()
        .find(|o| o.name == wanted || o.id.to_string() == wanted)
    {
        return Ok(found.clone());
    }
    match (name, orgs.into_iter().next()) {
        (None, Some(oldest)) => Ok(oldest),
        _ => Err(CliError::Usage(format!("no org named `{wanted}`"))),
    }
}

/// `backup` and `restore` on PostgreSQL (`scale.md` §6): refused, as its
/// own tools back it up (exit 2).
pub(crate) fn refuse_on_postgres(settings: &Settings) -> Result<(), CliError> {
    let pg = crate::store::pg::PgSettings::from_settings(settings)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    match pg {
        Some(_) => Err(CliError::Usage(
            "CONFER_STORE is PostgreSQL: back up PostgreSQL with its own tools \
             (pg_dump, base backups with WAL archiving)"
                .into(),
        )),
        None => Ok(()),
    }
}

/// Runs `command` on the organizations and keys of the store `settings`
/// name: PostgreSQL when `CONFER_STORE` is set (beside live nodes: each
/// write is committed, and every node sees it), else sled in the data
/// directory (a stopped store; the writes are flushed before this returns).
pub(crate) fn with_records<T>(
    settings: &Settings,
    command: impl AsyncFnOnce(&dyn OrgRecords) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the command's runtime")?;
    runtime.block_on(async {
        let store = match crate::store::pg::PgSettings::from_settings(settings)
            .map_err(|e| CliError::Usage(e.to_string()))?
        {
            Some(_) => crate::store::opening::open_serving_store(settings).await?,
            None => open(settings)?,
        };
        let result = command(store.orgs()).await?;
        store.flush_now().context("flushing the store")?;
        Ok(result)
    })
}
