//! What the hosted runtimes ([`super::e2b`], [`super::daytona`]) share:
//! a control call's answer read within a bound, paths under the
//! workspace, shell quoting, a file upload's multipart body, and a
//! directory's listing made with `find` in the sandbox, shaped as the local
//! helper's.

use std::time::Duration;

use serde_json::Value;

use super::protocol::Reply;
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
