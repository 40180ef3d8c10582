//! What the hosted runtimes ([`super::e2b`], [`super::daytona`]) share:
//! a control call's answer read within a bound, paths under the
//! workspace, shell quoting, a file upload's multipart body, and a
//! directory's listing made with `find` in the sandbox, shaped as the local
//! helper's.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use super::instances::InstanceId;
use super::protocol::Reply;
use super::runtime::{ExecSpec, RuntimeKind};
use crate::outbound::{Outbound, read_capped};

/// The largest control answer read.
pub const ANSWER_CAP: usize = 1 << 20;
/// A directory listing's entries at most.
const MAX_ENTRIES: usize = 1000;

/// A control call's answer.
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// Sends `request` within `within`; a transport failure or a refusal by the
/// outbound policy is the error's text (no URL, no key).
pub async fn call(
    outbound: &Outbound,
    request: reqwest::RequestBuilder,
    within: Duration,
) -> Result<Answer, String> {
    let response = outbound
        .send(request.timeout(within))
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let bytes = read_capped(response, ANSWER_CAP)
        .await
        .map_err(|e| e.to_string())?;
    Ok(Answer {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    })
}

/// `path` in a sandbox whose workspace is `workspace`: relative ones are
/// under it.
pub fn resolve(path: &str, workspace: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{workspace}/{path}")
    }
}

/// `text` as one single-quoted shell word.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A multipart body with one part, `file`, holding `bytes`: its content
/// type and bytes.
pub fn multipart(path: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = format!("confer-{}", uuid::Uuid::new_v4().simple());
    let name = path.rsplit('/').next().unwrap_or("file").replace('"', "");
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The command listing `full` two levels deep: relative paths, directories
/// ending in `/`, hidden ones left out, sorted, one past the bound.
pub fn listing_command(full: &str) -> String {
    format!(
        "cd {} && find . -mindepth 1 -maxdepth 2 -not -path '*/.*' \
         \\( -type d -printf '%P/\\n' -o -printf '%P\\n' \\) | sort | head -n {}",
        quote(full),
        MAX_ENTRIES + 1
    )
}

/// The listing of [`listing_command`]'s output.
pub fn listing(stdout: &str) -> Reply {
    let mut entries: Vec<String> = stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let truncated = entries.len() > MAX_ENTRIES;
    entries.truncate(MAX_ENTRIES);
    Reply::Dir { entries, truncated }
}

/// The control calls of a hosted vendor that the shared lifecycle steps
/// below are made of. Sandboxes are found by their tags (e2b's metadata,
/// daytona's labels): `confer_install` and `confer_instance`.
pub trait HostedControl: Sync {
    /// This installation's `confer_install` value.
    fn install(&self) -> &str;
    /// The sandboxes, running or stopped, tagged `tag = value`: their ids
    /// and the instance each names.
    fn tagged(
        &self,
        tag: &str,
        value: &str,
    ) -> impl Future<Output = Result<Vec<(String, Option<String>)>, String>> + Send;
    /// Pauses or stops sandbox `id`; a failure is logged.
    fn halt(&self, id: &str) -> impl Future<Output = ()> + Send;
    /// Deletes sandbox `id` (gone already is fine).
    fn delete(&self, id: &str) -> impl Future<Output = Result<(), String>> + Send;
}

/// The id of the sandbox kept for `instance`.
pub async fn find<C: HostedControl>(
    control: &C,
    instance: InstanceId,
) -> Result<Option<String>, String> {
    let found = control
        .tagged("confer_instance", &instance.to_string())
        .await?;
    Ok(found.into_iter().next().map(|(id, _)| id))
}

/// Halts the sandbox of an instance a restart left live.
pub async fn stop_left<C: HostedControl>(control: &C, instance: InstanceId) {
    match find(control, instance).await {
        Ok(Some(id)) => control.halt(&id).await,
        Ok(None) => {}
        Err(reason) => tracing::warn!(%reason, "a sandbox left running was not found"),
    }
}

/// Deletes the sandbox of `instance`, if the vendor keeps one.
pub async fn destroy<C: HostedControl>(control: &C, instance: InstanceId) -> Result<(), String> {
    match find(control, instance).await? {
        Some(id) => control.delete(&id).await,
        None => Ok(()),
    }
}

/// Deletes this installation's sandboxes that no instance of `named` owns;
/// how many.
pub async fn sweep_orphans<C: HostedControl>(
    control: &C,
    named: &HashSet<InstanceId>,
) -> Result<usize, String> {
    let mut swept = 0;
    for (id, instance) in control.tagged("confer_install", control.install()).await? {
        let owned = instance
            .and_then(|i| i.parse::<InstanceId>().ok())
            .is_some_and(|i| named.contains(&i));
        if !owned {
            control.delete(&id).await?;
            swept += 1;
        }
    }
    Ok(swept)
}

/// The two operations of a hosted sandbox that the shared steps below are
/// made of.
pub trait HostedSandbox: Sync {
    /// Its runtime (whose workspace relative paths are under).
    const KIND: RuntimeKind;
    /// Runs one command.
    fn run(&self, spec: ExecSpec) -> impl Future<Output = Reply> + Send;
    /// Writes `bytes` to `path`, replacing the file.
    fn write(&self, path: &str, bytes: &[u8]) -> impl Future<Output = Reply> + Send;
    /// Asks for file `full`'s bytes; the vendor's answer, or why none came.
    fn download(
        &self,
        full: &str,
    ) -> impl Future<Output = Result<reqwest::Response, String>> + Send;
    /// Takes note of an unexpected status (a lost sandbox starts again).
    fn note(&self, status: u16);
}

/// A file's text, or a directory's listing (two levels, as the local
/// helper gives it): the vendors refuse to download a directory with 400.
pub async fn read<S: HostedSandbox>(sandbox: &S, path: String) -> Reply {
    let full = resolve(&path, S::KIND.workspace());
    let response = match sandbox.download(&full).await {
        Ok(response) => response,
        Err(message) => return Reply::Error { message },
    };
    match response.status().as_u16() {
        200 => match read_capped(response, super::protocol::MAX_MESSAGE).await {
            Ok(bytes) => Reply::File {
                content: String::from_utf8_lossy(&bytes).into_owned(),
            },
            Err(error) => Reply::Error {
                message: format!("{path}: {error}"),
            },
        },
        404 => Reply::Error {
            message: format!("{path}: no such file or directory"),
        },
        400 => list(sandbox, &path, &full).await,
        status => {
            sandbox.note(status);
            Reply::Error {
                message: format!("{path}: {} answered http {status}", S::KIND.name()),
            }
        }
    }
}

/// Makes the workspace of a new sandbox, from the user's `home`.
pub async fn make_workspace<S: HostedSandbox>(sandbox: &S, home: &str) -> Result<(), String> {
    let mut spec = ExecSpec::bare(format!("mkdir -p {}", quote(S::KIND.workspace())));
    spec.cwd = Some(home.into());
    match sandbox.run(spec).await {
        Reply::Exec {
            exit_code: Some(0), ..
        } => Ok(()),
        Reply::Error { message } => Err(message),
        _ => Err("the workspace could not be made".into()),
    }
}

/// The listing of directory `full` (asked for as `path`), two levels
/// deep, made with `find` in the sandbox.
pub async fn list<S: HostedSandbox>(sandbox: &S, path: &str, full: &str) -> Reply {
    let mut spec = ExecSpec::bare(listing_command(full));
    spec.keep = ANSWER_CAP;
    match sandbox.run(spec).await {
        Reply::Exec {
            exit_code: Some(0),
            stdout,
            ..
        } => listing(&stdout.head),
        Reply::Error { message } => Reply::Error { message },
        _ => Reply::Error {
            message: format!("{path}: not a file or directory that can be read"),
        },
    }
}

/// Appends a piece to `path` (emptied first when `truncate`): uploaded
/// beside the file, then added to it with `cat` (the vendors' uploads
/// replace a file).
pub async fn append<S: HostedSandbox>(
    sandbox: &S,
    path: String,
    bytes: Vec<u8>,
    truncate: bool,
) -> Reply {
    if truncate {
        return sandbox.write(&path, &bytes).await;
    }
    let full = resolve(&path, S::KIND.workspace());
    let piece = format!("{full}.confer-piece");
    if let reply @ Reply::Error { .. } = sandbox.write(&piece, &bytes).await {
        return reply;
    }
    let spec = ExecSpec::bare(format!(
        "cat {piece} >> {full} && rm -f {piece}",
        piece = quote(&piece),
        full = quote(&full)
    ));
    match sandbox.run(spec).await {
        Reply::Exec {
            exit_code: Some(0), ..
        } => Reply::Done,
        Reply::Error { message } => Reply::Error { message },
        _ => Reply::Error {
            message: format!("{path}: the piece could not be appended"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_paths_and_listings() {
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(resolve("a/b", "/w"), "/w/a/b");
        assert_eq!(resolve("/etc/x", "/w"), "/etc/x");
        let many: String = (0..1001).map(|i| format!("f{i}\n")).collect();
        let Reply::Dir { entries, truncated } = listing(&many) else {
            panic!("a listing")
        };
        assert_eq!((entries.len(), truncated), (1000, true));
        let (kind, body) = multipart("/w/a.txt", b"hi");
        let boundary = kind.split("boundary=").nth(1).unwrap();
        assert!(body.starts_with(format!("--{boundary}\r\n").as_bytes()));
        assert!(body.ends_with(format!("hi\r\n--{boundary}--\r\n").as_bytes()));
    }
}
