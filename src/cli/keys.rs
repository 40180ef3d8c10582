//! `confer keys` and `confer orgs`: on a stopped sled store, or on
//! PostgreSQL beside live nodes (`scale.md` §6), through the records' port.

use anyhow::Context;
use chrono::Utc;
use confer_actors::{ApiKeyId, OrgId};
use secrecy::ExposeSecret;

use super::{CliError, org_in, with_records};
use crate::auth::api_keys::{generate_secret, new_key_record};
use crate::settings::Settings;
use crate::store::records::{KeyRole, Org};

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
    with_records(settings, async |s| {
        let org = org_in(s, org_name, true).await?;
        let secret = generate_secret().context("making a secret")?;
        let (key, hash) = new_key_record(org.id, name.to_owned(), role, false, &secret);
        s.insert_api_key(key.clone(), hash)
            .await
            .context("storing the key")?;
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
    with_records(settings, async |s| {
        let org = org_in(s, org_name, false).await?;
        let keys = s.api_keys(org.id).await.context("reading keys")?;
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
    with_records(settings, async |s| {
        for org in s.orgs().await.context("reading orgs")? {
            if s.delete_api_key(org.id, id).await.context("revoking")? {
                return Ok(format!("Revoked key {id}"));
            }
        }
        Err(CliError::Usage(format!("no key {id}")))
    })
}

/// `confer orgs list`.
pub fn orgs_list(settings: &Settings) -> Result<String, CliError> {
    with_records(settings, async |s| {
        let mut orgs = s.orgs().await.context("reading orgs")?;
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
    with_records(settings, async |s| {
        if s.orgs()
            .await
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
        s.put_org(org.clone()).await.context("storing the org")?;
        Ok(format!("Created org `{}` ({})", org.name, org.id))
    })
}
