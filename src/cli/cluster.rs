//! `confer migrate` and `confer check` on PostgreSQL (`scale.md` §6): the
//! commands that move a sled store into a cluster's database and check
//! that database beside live nodes.

use std::path::Path;

use anyhow::Context;

use super::{CliError, open};
use crate::secrets::SecretBox;
use crate::settings::Settings;
use crate::store::pg::import::{self, ImportError, check::PgCheck};
use crate::store::pg::{Database, PgSettings};

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the command's runtime")?)
}

/// The database `url` names, reached as a node reaches it (its TLS
/// settings, the configured extra CAs).
async fn database(settings: &Settings, url: &str) -> Result<Database, CliError> {
    let mut settings = settings.clone();
    settings.store = Some(secrecy::SecretString::from(url.to_owned()));
    let pg = PgSettings::from_settings(&settings)
        .map_err(|e| CliError::Usage(e.to_string()))?
        .ok_or_else(|| CliError::Usage("the store's URL is empty".into()))?;
    let tls = crate::tools::integrations::connection::TlsSettings::new(
        settings.extra_ca_pem()?.as_deref(),
    )
    .context("building the store's TLS settings")?;
    Ok(Database::open(&pg, tls)
        .await
        .context("connecting to PostgreSQL")?)
}

/// `confer migrate --from DIR --to URL [--replace]`: the manifest, and the
/// key setting every node needs (never the key).
pub fn migrate(
    settings: &Settings,
    from: &Path,
    to: &str,
    replace: bool,
) -> Result<String, CliError> {
    if !from.is_dir() {
        return Err(CliError::Usage(format!(
            "--from {}: not a directory",
            from.display()
        )));
    }
    let mut sled_settings = settings.clone();
    sled_settings.data_dir = from.to_owned();
    sled_settings.store = None;
    let secrets = SecretBox::load(
        settings.secret_key.as_ref(),
        settings.secret_key_file.as_deref(),
        None,
        from,
    )
    .context("loading the store's secret key")?;
    let store = open(&sled_settings)?;
    let runtime = runtime()?;
    let manifest = store.with_inner(|sled| {
        runtime.block_on(async {
            let database = database(settings, to).await?;
            import::import(sled, &database, &secrets, replace)
                .await
                .map_err(|e| match e {
                    ImportError::Refused(why) => CliError::Usage(why),
                    other => CliError::Failed(anyhow::Error::new(other).context("migrating")),
                })
        })
    })?;
    let key = if settings.secret_key.is_some() {
        "CONFER_SECRET_KEY, set as for this command".to_owned()
    } else {
        format!(
            "CONFER_SECRET_KEY_FILE={} (or CONFER_SECRET_KEY set to its contents)",
            secrets.source
        )
    };
    let mut lines = manifest.lines();
    lines.push(format!("migrated; every node needs the same key: {key}"));
    Ok(lines.join("\n"))
}

/// `confer check --store URL` (or with `CONFER_STORE` set): the manifest
/// and the problems found, exit 1 on any.
pub fn check(settings: &Settings, url: &str) -> Result<String, CliError> {
    if settings.secret_key.is_none() && settings.secret_key_file.is_none() {
        return Err(CliError::Usage(
            "checking PostgreSQL needs CONFER_SECRET_KEY (or CONFER_SECRET_KEY_FILE), \
             the key every node has"
                .into(),
        ));
    }
    let secrets = SecretBox::load(
        settings.secret_key.as_ref(),
        settings.secret_key_file.as_deref(),
        settings.secret_key_old.as_ref(),
        &settings.data_dir,
    )
    .context("loading the secret key")?;
    let PgCheck { manifest, problems } = runtime()?.block_on(async {
        let database = database(settings, url).await?;
        Ok::<_, CliError>(
            import::check::check(&database, &secrets)
                .await
                .context("checking")?,
        )
    })?;
    super::data::report_lines(manifest.lines(), &problems)
}
