//! Fetching a skill archive from a URL (`agent-extras.md` §1 "Install"):
//! every hop a new call checked by the outbound policy, at most 3
//! redirects followed, the token sent as `Authorization: Bearer` to the
//! first URL's host only, 10 MiB and 60 s in all. A sync asks with the
//! last answer's validators, so an unchanged archive is a 304 and nothing
//! is read. A failure is one of tools.md §2's reasons, never the URL's
//! query or the token.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{self, HeaderValue};

use crate::outbound::{Outbound, OutboundError, read_capped};

/// The largest archive fetched.
pub const MAX_ARCHIVE_BYTES: usize = 10 * 1024 * 1024;
/// The whole fetch's time, every hop included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(60);
/// The most redirects followed.
const MAX_REDIRECTS: usize = 3;

/// What the last fetch's answer said of its content.
#[derive(Clone, Debug, Default)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// A fetch's outcome.
#[derive(Debug)]
pub enum Fetched {
    /// 304: the archive did not change since `Validators`.
    NotModified,
    /// The archive and its validators.
    Archive {
        bytes: Bytes,
        validators: Validators,
    },
}

fn reason(error: &OutboundError) -> String {
    match error {
        OutboundError::TimedOut => format!("timeout after {} ms", FETCH_TIMEOUT.as_millis()),
        OutboundError::Refused(_) => "address refused by outbound policy".into(),
        OutboundError::TooLarge(_) => format!("response over {} MiB", MAX_ARCHIVE_BYTES >> 20),
        OutboundError::Transport(_) => "unreachable".into(),
    }
}

/// The host and port of `url`, as a token's destination.
fn origin(url: &reqwest::Url) -> (Option<String>, Option<u16>) {
    (
        url.host_str().map(str::to_owned),
        url.port_or_known_default(),
    )
}

fn header_text(response: &reqwest::Response, name: header::HeaderName) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Fetches the archive at `url`; `Err` holds the reason.
pub async fn fetch_archive(
    outbound: &Outbound,
    url: &str,
    token: Option<&str>,
    known: Option<&Validators>,
) -> Result<Fetched, String> {
    match tokio::time::timeout(FETCH_TIMEOUT, follow(outbound, url, token, known)).await {
        Ok(fetched) => fetched,
        Err(_) => Err(reason(&OutboundError::TimedOut)),
    }
}

async fn follow(
    outbound: &Outbound,
    url: &str,
    token: Option<&str>,
    known: Option<&Validators>,
) -> Result<Fetched, String> {
    let first = reqwest::Url::parse(url).map_err(|_| "not a URL".to_owned())?;
    let mut at = first.clone();
    for _ in 0..=MAX_REDIRECTS {
        let mut request = outbound
            .request(reqwest::Method::GET, at.as_str())
            .map_err(|e| reason(&e))?;
        if let Some(token) = token.filter(|_| origin(&at) == origin(&first)) {
            request = request.bearer_auth(token);
        }
        if let Some(known) = known {
            if let Some(etag) = &known.etag {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            if let Some(since) = &known.last_modified {
                request = request.header(header::IF_MODIFIED_SINCE, since);
            }
        }
        let response = outbound.send(request).await.map_err(|e| reason(&e))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_MODIFIED {
            return Ok(Fetched::NotModified);
        }
        if status.is_redirection() {
            let next = response
                .headers()
                .get(header::LOCATION)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .and_then(|location| at.join(location).ok())
                .ok_or_else(|| "redirect not followed".to_owned())?;
            at = next;
            continue;
        }
        if !status.is_success() {
            return Err(format!("http {}", status.as_u16()));
        }
        let validators = Validators {
            etag: header_text(&response, header::ETAG),
            last_modified: header_text(&response, header::LAST_MODIFIED),
        };
        let bytes = read_capped(response, MAX_ARCHIVE_BYTES)
            .await
            .map_err(|e| reason(&e))?;
        return Ok(Fetched::Archive { bytes, validators });
    }
    Err("redirect not followed".into())
}
