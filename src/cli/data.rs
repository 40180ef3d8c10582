//! `confer backup`, `restore`, `export` and `check`: on a stopped store's
//! data directory, or (`--url`) through a running server's admin API.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{DateTime, Utc};

use super::remote::{self, Remote};
use super::{CliError, open, org, refuse_on_postgres};
use crate::export::{ExportCounts, ExportFilter};
use crate::settings::Settings;
use crate::store::backup::{self, BackupError, Manifest};
use crate::store::check::CheckReport;
use crate::store::pg::import::manifest::Manifest as PgManifest;

fn failed(error: BackupError) -> CliError {
    match error {
        BackupError::NotEmpty(_) => CliError::Usage(error.to_string()),
        other => CliError::Failed(anyhow::anyhow!(other.to_string())),
    }
}

/// One line that says what a backup holds.
fn summary(manifest: &Manifest, file: &Path) -> String {
    let records: u64 = manifest.counts.values().sum();
    let messages = manifest.counts.get("messages").copied().unwrap_or(0);
    format!(
        "Backed up {records} records ({messages} messages) and {} value files to {}{}; checksum {}",
        manifest.value_files,
        file.display(),
        if manifest.secret_key {
            ", with the secret key"
        } else {
            ""
        },
        manifest.checksum
    )
}

/// `confer backup --out FILE [--include-secret-key] [--url URL]`.
pub fn backup(
    settings: &Settings,
    out: &Path,
    with_key: bool,
    remote: Option<&Remote>,
) -> Result<String, CliError> {
    if with_key {
        eprintln!(
            "confer: warning: the backup holds the secret key; keep it as safe as the data directory"
        );
    }
    let made = match remote {
        Some(remote) => remote::backup_to(settings, remote, with_key, out)
            .and_then(|_| backup::verify(out).map_err(failed)),
        None => refuse_on_postgres(settings).and_then(|()| {
            let store = open(settings)?;
            std::fs::File::create(out)
                .with_context(|| format!("creating {}", out.display()))
                .map_err(CliError::from)
                .and_then(|file| {
                    store
                        .with_inner(|s| s.write_backup(std::io::BufWriter::new(file), with_key))
                        .map_err(failed)
                })
        }),
    };
    match made {
        Ok(manifest) => Ok(summary(&manifest, out)),
        Err(error) => {
            // Never leave a file that looks like a backup but is not one.
            let _ = std::fs::remove_file(out);
            Err(error)
        }
    }
}

/// `confer restore --from FILE` into the (empty) data directory; refuses a
/// store whose secrets do not open with the key it then finds.
pub fn restore(settings: &Settings, from: &Path) -> Result<String, CliError> {
    refuse_on_postgres(settings)?;
    let dir = &settings.data_dir;
    let manifest = backup::restore(from, dir).map_err(failed)?;
    let unopenable = crate::open_store(settings)
        .and_then(|store| {
            let problems = store.with_inner(|s| s.unopenable_secrets())?;
            store.flush_now()?;
            Ok(problems)
        })
        .map_err(|e| {
            backup::empty_dir(dir);
            CliError::Failed(e)
        })?;
    if !unopenable.is_empty() {
        backup::empty_dir(dir);
        let key = if manifest.secret_key {
            "the backup's own key"
        } else if settings.secret_key.is_some() {
            "CONFER_SECRET_KEY"
        } else if let Some(file) = &settings.secret_key_file {
            &format!("the key file {}", file.display())
        } else {
            "a new key (the backup holds none and no CONFER_SECRET_KEY or CONFER_SECRET_KEY_FILE is set)"
        };
        return Err(CliError::Failed(anyhow::anyhow!(
            "nothing restored: {} stored secrets do not open with {key}; set CONFER_SECRET_KEY or \
             CONFER_SECRET_KEY_FILE to the key of the store the backup came from, or back up with \
             --include-secret-key",
            unopenable.len()
        )));
    }
    let records: u64 = manifest.counts.values().sum();
    Ok(format!(
        "Restored {records} records and {} value files into {} (backup of {})",
        manifest.value_files,
        dir.display(),
        manifest.created_at.to_rfc3339()
    ))
}

/// The peak resident memory of this process, in KiB (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `confer export --out FILE|- [--org ORG] [--since TIME] [--url URL]`;
/// the summary line names the peak memory it took.
pub fn export(
    settings: &Settings,
    out: &Path,
    org_name: Option<&str>,
    since: Option<DateTime<Utc>>,
    remote: Option<&Remote>,
) -> Result<String, CliError> {
    let mut sink: Box<dyn Write> = if out == Path::new("-") {
        Box::new(std::io::BufWriter::new(std::io::stdout().lock()))
    } else {
        Box::new(std::io::BufWriter::new(
            std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?,
        ))
    };
    let wrote = match remote {
        Some(remote) => {
            let mut path = String::from("/api/admin/export?");
            if let Some(org) = org_name {
                path.push_str(&format!(
                    "org={}&",
                    url::form_urlencoded::byte_serialize(org.as_bytes()).collect::<String>()
                ));
            }
            if let Some(since) = since {
                path.push_str(&format!(
                    "since={}",
                    url::form_urlencoded::byte_serialize(since.to_rfc3339().as_bytes())
                        .collect::<String>()
                ));
            }
            let bytes = remote::download(settings, remote, &path, &mut sink)?;
            format!("{bytes} bytes")
        }
        None => {
            let counts = local_export(settings, &mut sink, org_name, since)?;
            format!(
                "{} records ({} agents, {} threads, {} messages, {} usage)",
                counts.total(),
                counts.agents,
                counts.threads,
                counts.messages,
                counts.usage
            )
        }
    };
    sink.flush().context("writing the export")?;
    drop(sink);
    let peak = peak_rss_kib().map_or_else(String::new, |kib| {
        format!("; peak memory {} MiB", kib / 1024)
    });
    // The summary goes to stderr: stdout may be the export itself.
    eprintln!("confer: exported {wrote} to {}{peak}", out.display());
    Ok(String::new())
}

/// The export of the store `settings` name: PostgreSQL beside live nodes
/// when `CONFER_STORE` is set (its pages read on a runtime of one worker
/// while this thread writes), else the stopped sled store.
fn local_export(
    settings: &Settings,
    mut sink: &mut dyn Write,
    org_name: Option<&str>,
    since: Option<DateTime<Utc>>,
) -> Result<ExportCounts, CliError> {
    let on_postgres = crate::store::pg::PgSettings::from_settings(settings)
        .map_err(|e| CliError::Usage(e.to_string()))?
        .is_some();
    if !on_postgres {
        let store = open(settings)?;
        return store.with_inner(|s| {
            let org = org_name.map(|name| org(s, Some(name), false)).transpose()?;
            let filter = ExportFilter {
                org: org.map(|o| o.id),
                since,
            };
            crate::export::export(s, &mut sink, filter)
                .context("exporting")
                .map_err(CliError::from)
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the command's runtime")?;
    let store = runtime.block_on(crate::store::opening::open_serving_store(settings))?;
    let pg = store
        .postgres()
        .cloned()
        .ok_or_else(|| CliError::Usage("CONFER_STORE did not open PostgreSQL".into()))?;
    let org = org_name
        .map(|name| runtime.block_on(super::org_in(store.orgs(), Some(name), false)))
        .transpose()?;
    let filter = ExportFilter {
        org: org.map(|o| o.id),
        since,
    };
    let scan = crate::store::pg::export::PgScan::new(pg, runtime.handle().clone());
    Ok(crate::export::export(&scan, &mut sink, filter).context("exporting")?)
}

/// The lines of a check: `lines` (counts, the manifest), then the
/// problems; exit 1 when there is one.
pub(crate) fn report_lines(
    mut lines: Vec<String>,
    problems: &[String],
) -> Result<String, CliError> {
    if problems.is_empty() {
        lines.push("ok: no problem found".into());
        return Ok(lines.join("\n"));
    }
    lines.push(format!("{} problems:", problems.len()));
    lines.extend(problems.iter().map(|p| format!("  {p}")));
    Err(CliError::Failed(anyhow::anyhow!(lines.join("\n"))))
}

/// `confer check [--url URL | --store URL]`: exit 1 when a problem is
/// found. With `--url` it checks a fresh backup of the running server,
/// restored into a temporary directory; with `--store` (or `CONFER_STORE`
/// set) a PostgreSQL store, beside its live nodes. Either store prints
/// the same manifest lines for the same records.
pub fn check(
    settings: &Settings,
    remote: Option<&Remote>,
    store: Option<&str>,
) -> Result<String, CliError> {
    let configured = settings
        .store
        .as_ref()
        .map(|s| secrecy::ExposeSecret::expose_secret(s).to_owned())
        .filter(|s| !s.trim().is_empty());
    if let Some(url) = store.map(str::to_owned).or(configured) {
        return super::cluster::check(settings, &url);
    }
    let (report, manifest) = match remote {
        None => open(settings)?.with_inner(checked)?,
        Some(remote) => check_remote(settings, remote)?,
    };
    let mut lines: Vec<String> = report
        .counts
        .iter()
        .map(|(kind, count)| format!("{kind}: {count}"))
        .collect();
    lines.extend(manifest.lines());
    report_lines(lines, &report.problems)
}

/// The sled store's check and manifest.
fn checked(store: &crate::store::SledStore) -> Result<(CheckReport, PgManifest), CliError> {
    let report = store.check().context("checking")?;
    let manifest = crate::store::pg::import::manifest::of_sled(store).context("digesting")?;
    Ok((report, manifest))
}

fn check_remote(
    settings: &Settings,
    remote: &Remote,
) -> Result<(CheckReport, PgManifest), CliError> {
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("confer-check-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir(&scratch).context("creating a scratch directory")?;
    let result = (|| {
        let file = scratch.join("backup.tar.zst");
        // With the key, so that the sealed secrets are checked too; it
        // stays in the scratch directory, removed below.
        remote::backup_to(settings, remote, true, &file)?;
        let dir = scratch.join("store");
        backup::restore(&file, &dir).map_err(failed)?;
        let mut scratch_settings = settings.clone();
        scratch_settings.data_dir = dir;
        scratch_settings.secret_key = None;
        scratch_settings.secret_key_file = None;
        let store = crate::open_store(&scratch_settings)?;
        store.with_inner(checked)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}
