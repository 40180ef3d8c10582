//! The commands against a running server (`--url` and an admin key): the
//! store is the server's while it runs, so these go through its API
//! (`/api/keys`, `/api/admin/backup`, `/api/admin/export`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use futures_util::StreamExt;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use super::CliError;
use crate::settings::Settings;
use crate::store::records::KeyRole;

/// A running server and the key to call it with.
pub struct Remote {
    /// Its base URL, e.g. `http://127.0.0.1:8080`.
    pub url: String,
    /// An admin key (a platform-admin key for backup and export).
    pub key: SecretString,
}

impl Remote {
    fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.url.trim_end_matches('/'))
    }
}

/// Runs `work` on a small runtime of its own (the commands have none).
fn block_on<T>(
    work: impl std::future::Future<Output = Result<T, CliError>>,
) -> Result<T, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting a runtime")?
        .block_on(work)
}

fn client(settings: &Settings) -> Result<reqwest::Client, CliError> {
    let extra_ca = settings.extra_ca_pem()?;
    Ok(crate::outbound::operator_client(extra_ca.as_deref())?)
}

/// The server's refusal, as one line: `403 FORBIDDEN: detail`.
async fn refusal(response: reqwest::Response) -> CliError {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let code = body["error"].as_str().unwrap_or("");
    let detail = body["detail"].as_str().unwrap_or("");
    CliError::Failed(anyhow::anyhow!(
        "the server answered {} {code}: {detail}",
        status.as_u16()
    ))
}

/// `GET path` streamed into `out`; returns the bytes written.
pub fn download(
    settings: &Settings,
    remote: &Remote,
    path: &str,
    out: &mut impl Write,
) -> Result<u64, CliError> {
    block_on(async {
        let response = client(settings)?
            .get(remote.endpoint(path))
            .bearer_auth(remote.key.expose_secret())
            .send()
            .await
            .with_context(|| format!("calling {}", remote.url))?;
        if !response.status().is_success() {
            return Err(refusal(response).await);
        }
        let mut written = 0u64;
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.context("the server ended the stream early")?;
            out.write_all(&chunk).context("writing")?;
            written += chunk.len() as u64;
        }
        out.flush().context("writing")?;
        Ok(written)
    })
}

/// `confer keys create --url`: `POST /api/keys` in the admin key's org.
pub fn keys_create(
    settings: &Settings,
    remote: &Remote,
    name: &str,
    role: KeyRole,
) -> Result<String, CliError> {
    block_on(async {
        let role = match role {
            KeyRole::Admin => "admin",
            KeyRole::Member => "member",
        };
        let response = client(settings)?
            .post(remote.endpoint("/api/keys"))
            .bearer_auth(remote.key.expose_secret())
            .json(&json!({"name": name, "role": role}))
            .send()
            .await
            .with_context(|| format!("calling {}", remote.url))?;
        if !response.status().is_success() {
            return Err(refusal(response).await);
        }
        let made: Value = response.json().await.context("reading the answer")?;
        Ok(format!(
            "Created {role} key `{}` ({}); shown once, keep it:\n{}",
            made["name"].as_str().unwrap_or_default(),
            made["id"].as_str().unwrap_or_default(),
            made["key"].as_str().unwrap_or_default()
        ))
    })
}

/// Downloads a backup of the running server into `out` (a file path).
pub fn backup_to(
    settings: &Settings,
    remote: &Remote,
    with_key: bool,
    out: &Path,
) -> Result<u64, CliError> {
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?,
    );
    download(
        settings,
        remote,
        &format!("/api/admin/backup?include_secret_key={with_key}"),
        &mut file,
    )
}
