//! `web_fetch` (`agent-extras.md` §4): the model's URL, so every hop is
//! checked anew: http(s), the agent's domain lists, and the address rule
//! (a non-global address only for a host both `CONFER_OUTBOUND_ALLOW` and
//! the agent's `allowed_domains` name); at most 5 redirects, the whole
//! fetch within `timeout_ms`, the body read to `max_bytes` (the rest
//! dropped, `truncated`), decoded by its charset, HTML made Markdown.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::header;
use serde_json::{Value, json};

use super::config::WebConfig;
use super::robots::RobotsCache;
use crate::outbound::{Outbound, OutboundError, is_global};

/// The most redirects followed.
const MAX_REDIRECTS: usize = 5;
/// What `web_fetch` says it is.
pub const USER_AGENT: &str = concat!("Confer/", env!("CARGO_PKG_VERSION"), " (web_fetch)");
/// The refusal of an address the rules keep closed.
const REFUSED: &str = "address refused by outbound policy";

/// A checked hop: the URL and which client may reach it.
pub(super) struct Hop {
    pub url: url::Url,
    pub trusted: bool,
}

/// Checks one hop's URL against the rules.
pub(super) fn check_hop(
    outbound: &Outbound,
    config: &WebConfig,
    url: url::Url,
) -> Result<Hop, String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err("only http and https URLs".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the URL must not carry a user name or password".into());
    }
    let host = url
        .host_str()
        .ok_or("the URL has no host")?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    if !config.admits(&host) {
        return Err("domain not allowed for this agent".into());
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let trusted = outbound.policy().allows(&host, port) && config.names(&host);
    if let Ok(ip) = host.parse::<IpAddr>()
        && !is_global(ip)
        && !trusted
    {
        return Err(REFUSED.into());
    }
    Ok(Hop { url, trusted })
}

fn reason(error: &OutboundError, timeout_ms: u64) -> String {
    match error {
        OutboundError::TimedOut => format!("timeout after {timeout_ms} ms"),
        OutboundError::Refused(_) => REFUSED.into(),
        OutboundError::TooLarge(_) | OutboundError::Transport(_) => "unreachable".into(),
    }
}

/// The media type and charset of a `Content-Type`.
fn media_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (name, value) = p.split_once('=')?;
        (name.trim().eq_ignore_ascii_case("charset"))
            .then(|| value.trim().trim_matches('"').to_owned())
    });
    (media, charset)
}

fn is_text(media: &str) -> bool {
    media.starts_with("text/")
        || media == "application/json"
        || media.ends_with("+json")
        || media == "application/xml"
        || media.ends_with("+xml")
}

/// The page's `<title>`, if it has one.
fn title_of(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html[open_end..close]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(feature = "parse-html")]
fn markdown(html: &str) -> Result<String, String> {
    htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "svg", "iframe", "template", "head",
        ])
        .build()
        .convert(html)
        .map_err(|_| "unreadable HTML".to_owned())
}

#[cfg(not(feature = "parse-html"))]
fn markdown(_: &str) -> Result<String, String> {
    Err("unsupported content type text/html (this build has no HTML converter)".into())
}

/// Reads up to `max` bytes of the body; whether more was dropped.
async fn read_up_to(
    mut response: reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), OutboundError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| OutboundError::transport(&e))?
    {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// Runs `web_fetch {url}`: the result, or the error result's reason.
pub async fn web_fetch(
    outbound: &Outbound,
    robots: &RobotsCache,
    config: &WebConfig,
    url: &str,
) -> Result<Value, String> {
    let timeout_ms = config.fetch.timeout_ms;
    let deadline = Duration::from_millis(timeout_ms);
    match tokio::time::timeout(deadline, fetch(outbound, robots, config, url)).await {
        Ok(result) => result,
        Err(_) => Err(format!("timeout after {timeout_ms} ms")),
    }
}

async fn fetch(
    outbound: &Outbound,
    robots: &RobotsCache,
    config: &WebConfig,
    url: &str,
) -> Result<Value, String> {
    let timeout_ms = config.fetch.timeout_ms;
    let mut at = url::Url::parse(url.trim()).map_err(|_| "not a URL".to_owned())?;
    for _ in 0..=MAX_REDIRECTS {
        let hop = check_hop(outbound, config, at)?;
        if config.fetch.respect_robots && !robots.allows(outbound, &hop).await {
            return Err("disallowed by robots.txt".into());
        }
        let response = outbound
            .client(hop.trusted)
            .get(hop.url.clone())
            .header(header::USER_AGENT, USER_AGENT)
            .send()
            .await
            .map_err(|e| reason(&OutboundError::transport(&e), timeout_ms))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(header::LOCATION)
        {
            let location = location.to_str().map_err(|_| "a bad redirect".to_owned())?;
            at = hop
                .url
                .join(location)
                .map_err(|_| "a bad redirect".to_owned())?;
            continue;
        }
        if status.as_u16() >= 400 {
            return Err(format!("http {}", status.as_u16()));
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_owned();
        let (media, charset) = media_type(&content_type);
        let html = media == "text/html" || media == "application/xhtml+xml";
        if !html && !is_text(&media) {
            return Err(format!("unsupported content type {media}"));
        }
        let max = usize::try_from(config.fetch.max_bytes).unwrap_or(usize::MAX);
        let (bytes, mut truncated) = read_up_to(response, max)
            .await
            .map_err(|e| reason(&e, timeout_ms))?;
        let encoding = charset
            .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
            .unwrap_or(encoding_rs::UTF_8);
        let (text, _, _) = encoding.decode(&bytes);
        let (title, content) = match html {
            true => (title_of(&text), markdown(&text)?),
            false => (None, text.into_owned()),
        };
        let max_chars = config.fetch.max_chars;
        let content = match content.char_indices().nth(max_chars) {
            Some((cut, _)) => {
                truncated = true;
                content[..cut].to_owned()
            }
            None => content,
        };
        return Ok(json!({
            "url": hop.url.as_str(),
            "status": status.as_u16(),
            "content_type": media,
            "title": title,
            "content": content,
            "truncated": truncated,
        }));
    }
    Err("too many redirects".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_titles_and_charsets_are_read() {
        assert_eq!(
            media_type("text/html; charset=\"ISO-8859-1\""),
            ("text/html".into(), Some("ISO-8859-1".into()))
        );
        assert!(is_text("application/ld+json") && !is_text("image/png"));
        assert_eq!(
            title_of("<html><TITLE> A  page\n</title>").as_deref(),
            Some("A page")
        );
        assert_eq!(title_of("<p>none</p>"), None);
    }

    #[test]
    fn hops_follow_the_lists_and_the_address_rule() {
        let policy = crate::outbound::OutboundPolicy::new("127.0.0.1", None).unwrap();
        let outbound = Outbound::new(policy, None).unwrap();
        let url = |s: &str| url::Url::parse(s).unwrap();
        let open = WebConfig::default();
        // Allow-listed, but not named by the agent: refused.
        let refused = check_hop(&outbound, &open, url("http://127.0.0.1:9/")).err();
        assert_eq!(refused.as_deref(), Some(REFUSED));
        let named = WebConfig {
            allowed_domains: vec!["127.0.0.1".into()],
            ..WebConfig::default()
        };
        assert!(
            check_hop(&outbound, &named, url("http://127.0.0.1:9/"))
                .unwrap()
                .trusted
        );
        assert!(check_hop(&outbound, &named, url("http://example.com/")).is_err());
        assert!(check_hop(&outbound, &open, url("ftp://example.com/")).is_err());
        assert!(
            !check_hop(&outbound, &open, url("http://example.com/"))
                .unwrap()
                .trusted
        );
    }
}
