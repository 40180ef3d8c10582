//! The operator's commands on a stopped store (`operations.md` "Command
//! line"): API keys and organizations. The store allows one process at a
//! time, so these refuse a data directory a running server holds.

use anyhow::Context;
use chrono::Utc;
use confer_actors::{ApiKeyId, OrgId};
use secrecy::ExposeSecret;

use crate::auth::api_keys::{DEFAULT_ORG, generate_secret, new_key_record};
use crate::settings::Settings;
use crate::store::records::{KeyRole, Org};
use crate::store::{SledStore, Store};

/// Why a command did not run, and the exit code to give.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The store is held by a running server (exit 2).
    #[error("the store in {0} is in use by a running server; stop it first")]
    InUse(String),
    /// The command's arguments name nothing (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Anything else (exit 1).
    #[error("{0:#}")]
    Failed(#[from] anyhow::Error),
}

/// Opens the store of `settings` for a command.
fn open(settings: &Settings) -> Result<Store, CliError> {
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
fn org(store: &SledStore, name: Option<&str>, create: bool) -> Result<Org, CliError> {
    let mut orgs = store.orgs().context("reading orgs")?;
    if orgs.is_empty() && create && name.is_none_or(|n| n == DEFAULT_ORG) {
        return Ok(store.default_org().context("storing the org")?);
    }
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

/// Runs `f` on the store, then makes its writes durable.
fn with_store<T>(
    settings: &Settings,
    f: impl FnOnce(&SledStore) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let store = open(settings)?;
    let result = store.with_inner(f)?;
    store.flush_now().context("flushing the store")?;
    Ok(result)
}

/// `confer keys create`: prints the new key's secret once.
pub fn keys_create(
    settings: &Settings,
    name: &str,
    role: KeyRole,
    org_name: Option<&str>,
) -> Result<String, CliError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(CliError::Usage("--name must be 1 to 200 characters".into()));
    }
    with_store(settings, |s| {
        let org = org(s, org_name, true)?;
        let secret = generate_secret().context("making a secret")?;
        let (key, hash) = new_key_record(org.id, name.to_owned(), role, false, &secret);
        s.insert_api_key(&key, &hash).context("storing the key")?;
        Ok(format!(
            "Created {} key `{}` ({}) in org `{}`; shown once, keep it:\n{}",
            match role {
                KeyRole::Admin => "an admin",
                KeyRole::Member => "a member",
            },
            key.name,
            key.id,
            org.name,
            secret.expose_secret()
        ))
    })
}

/// `confer keys list`: one line per key (never a secret).
pub fn keys_list(settings: &Settings, org_name: Option<&str>) -> Result<String, CliError> {
    with_store(settings, |s| {
        let org = org(s, org_name, false)?;
        let keys = s.api_keys(org.id).context("reading keys")?;
        Ok(keys
            .iter()
            .map(|k| {
                format!(
                    "{}\t{}\t{:?}\t{}…\t{}",
                    k.id,
                    k.name,
                    k.role,
                    k.prefix,
                    k.created_at.to_rfc3339()
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

/// `confer keys revoke ID`.
pub fn keys_revoke(settings: &Settings, id: &str) -> Result<String, CliError> {
    let id: ApiKeyId = id
        .parse()
        .map_err(|_| CliError::Usage(format!("`{id}` is not a key id")))?;
    with_store(settings, |s| {
        for org in s.orgs().context("reading orgs")? {
            if s.delete_api_key(org.id, id).context("revoking")? {
                return Ok(format!("Revoked key {id}"));
            }
        }
        Err(CliError::Usage(format!("no key {id}")))
    })
}

/// `confer orgs list`.
pub fn orgs_list(settings: &Settings) -> Result<String, CliError> {
    with_store(settings, |s| {
        let mut orgs = s.orgs().context("reading orgs")?;
        orgs.sort_by_key(|o| o.created_at);
        Ok(orgs
            .iter()
            .map(|o| format!("{}\t{}\t{}", o.id, o.name, o.created_at.to_rfc3339()))
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

/// `confer orgs create NAME`.
pub fn orgs_create(settings: &Settings, name: &str) -> Result<String, CliError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(CliError::Usage(
            "the name must be 1 to 200 characters".into(),
        ));
    }
    with_store(settings, |s| {
        if s.orgs()
            .context("reading orgs")?
            .iter()
            .any(|o| o.name == name)
        {
            return Err(CliError::Usage(format!("an org named `{name}` exists")));
        }
        let org = Org {
            id: OrgId::new(),
            name: name.to_owned(),
            created_at: Utc::now(),
        };
        s.put_org(&org).context("storing the org")?;
        Ok(format!("Created org `{}` ({})", org.name, org.id))
    })
}
