//! An agent's web configuration (`agent-extras.md` §4): whether the web
//! tools are offered, `web_fetch`'s caps, the search backend (its API key
//! sealed in the store, never answered), and the domain lists. A PUT is
//! partial, nested fields too; its checks live here.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::outbound::OutboundPolicy;

/// The most entries of a domain list.
const MAX_DOMAINS: usize = 100;

/// `web_fetch`'s settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FetchSettings {
    pub enabled: bool,
    pub max_bytes: u64,
    pub max_chars: usize,
    pub timeout_ms: u64,
    pub respect_robots: bool,
}

impl Default for FetchSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_bytes: 2 * 1024 * 1024,
            max_chars: 20_000,
            timeout_ms: 15_000,
            respect_robots: false,
        }
    }
}

/// A search backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Searxng,
    Brave,
    Tavily,
}

impl Backend {
    /// The vendor's API, when no `url` is given.
    pub fn default_url(self) -> Option<&'static str> {
        match self {
            Self::Searxng => None,
            Self::Brave => Some("https://api.search.brave.com/res/v1/web/search"),
            Self::Tavily => Some("https://api.tavily.com/search"),
        }
    }
}

/// `web_search`'s settings, as stored (`api_key` sealed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    pub enabled: bool,
    pub backend: Option<Backend>,
    pub url: Option<String>,
    pub api_key: Option<String>,
    pub max_results: u32,
    pub timeout_ms: u64,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            backend: None,
            url: None,
            api_key: None,
            max_results: 5,
            timeout_ms: 10_000,
        }
    }
}

/// An agent's web configuration, as stored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WebConfig {
    pub enabled: bool,
    pub fetch: FetchSettings,
    pub search: SearchSettings,
    pub allowed_domains: Vec<String>,
    pub blocked_domains: Vec<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// `web_search`'s settings as answered.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SearchView {
    enabled: bool,
    backend: Option<Backend>,
    url: Option<String>,
    has_api_key: bool,
    max_results: u32,
    timeout_ms: u64,
}

/// The configuration as answered (`agent_id` and `org_id` before it).
#[derive(Serialize, utoipa::ToSchema)]
pub struct WebConfigView {
    enabled: bool,
    fetch: FetchSettings,
    search: SearchView,
    allowed_domains: Vec<String>,
    blocked_domains: Vec<String>,
    updated_at: Option<DateTime<Utc>>,
}

impl From<WebConfig> for WebConfigView {
    fn from(config: WebConfig) -> Self {
        let search = config.search;
        Self {
            enabled: config.enabled,
            fetch: config.fetch,
            search: SearchView {
                enabled: search.enabled,
                backend: search.backend,
                url: search.url,
                has_api_key: search.api_key.is_some(),
                max_results: search.max_results,
                timeout_ms: search.timeout_ms,
            },
            allowed_domains: config.allowed_domains,
            blocked_domains: config.blocked_domains,
            updated_at: config.updated_at,
        }
    }
}

/// `PUT …/web`'s `fetch`.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutFetch {
    enabled: Option<bool>,
    /// 64 KiB–10 MiB.
    max_bytes: Option<u64>,
    /// 1,000–200,000.
    max_chars: Option<usize>,
    /// 1,000–60,000.
    timeout_ms: Option<u64>,
    respect_robots: Option<bool>,
}

/// `PUT …/web`'s `search`.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutSearch {
    enabled: Option<bool>,
    backend: Option<Backend>,
    /// Required for searxng; else the vendor's API.
    url: Option<String>,
    /// Write-only; `null` deletes it.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    api_key: crate::api::extract::Patch<String>,
    /// 1–10.
    max_results: Option<u32>,
    /// 1,000–60,000.
    timeout_ms: Option<u64>,
}

/// `PUT /api/agents/{id}/web`: every field optional.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutWebConfig {
    enabled: Option<bool>,
    fetch: Option<PutFetch>,
    search: Option<PutSearch>,
    /// ≤ 100 host names or IP literals; an entry covers its subdomains.
    allowed_domains: Option<Vec<String>>,
    /// ≤ 100; blocked wins.
    blocked_domains: Option<Vec<String>>,
}

fn in_range<T: PartialOrd + std::fmt::Display>(
    field: &str,
    value: Option<T>,
    low: T,
    high: T,
) -> Result<(), ApiError> {
    match value {
        Some(v) if v < low || v > high => Err(ApiError::invalid(field, format!("{low} to {high}"))),
        _ => Ok(()),
    }
}

/// A domain list entry as kept: IDNA, lowercased, no trailing dot.
fn domain(field: &str, raw: &str) -> Result<String, ApiError> {
    let raw = raw.trim().trim_end_matches('.');
    if raw.is_empty() || raw.contains(['/', '*', ':']) && raw.parse::<std::net::Ipv6Addr>().is_err()
    {
        return Err(ApiError::invalid(
            field,
            "a host name or IP literal (no scheme, port, path or `*`)",
        ));
    }
    if raw.parse::<std::net::IpAddr>().is_ok() {
        return Ok(raw.to_ascii_lowercase());
    }
    let host = url::Host::parse(raw).map_err(|_| ApiError::invalid(field, "not a host name"))?;
    Ok(host.to_string())
}

fn domains(field: &str, list: Vec<String>) -> Result<Vec<String>, ApiError> {
    if list.len() > MAX_DOMAINS {
        return Err(ApiError::invalid(
            field,
            format!("at most {MAX_DOMAINS} entries"),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, d)| domain(&format!("{field}[{i}]"), d))
        .collect()
}

impl PutWebConfig {
    /// The changed configuration, checked; `api_key` still in plain text
    /// (the store seals it).
    pub fn apply(
        &self,
        mut config: WebConfig,
        policy: &OutboundPolicy,
    ) -> Result<WebConfig, ApiError> {
        if let Some(enabled) = self.enabled {
            config.enabled = enabled;
        }
        if let Some(fetch) = &self.fetch {
            in_range(
                "fetch.maxBytes",
                fetch.max_bytes,
                64 * 1024,
                10 * 1024 * 1024,
            )?;
            in_range("fetch.maxChars", fetch.max_chars, 1_000, 200_000)?;
            in_range("fetch.timeoutMs", fetch.timeout_ms, 1_000, 60_000)?;
            let f = &mut config.fetch;
            f.enabled = fetch.enabled.unwrap_or(f.enabled);
            f.max_bytes = fetch.max_bytes.unwrap_or(f.max_bytes);
            f.max_chars = fetch.max_chars.unwrap_or(f.max_chars);
            f.timeout_ms = fetch.timeout_ms.unwrap_or(f.timeout_ms);
            f.respect_robots = fetch.respect_robots.unwrap_or(f.respect_robots);
        }
        if let Some(search) = &self.search {
            in_range("search.maxResults", search.max_results, 1, 10)?;
            in_range("search.timeoutMs", search.timeout_ms, 1_000, 60_000)?;
            let s = &mut config.search;
            s.enabled = search.enabled.unwrap_or(s.enabled);
            if let Some(backend) = search.backend {
                if s.backend != Some(backend) {
                    // Another backend: its URL is its own.
                    s.url = None;
                }
                s.backend = Some(backend);
            }
            if let Some(url) = &search.url {
                policy
                    .check_url(url)
                    .map_err(|reason| ApiError::invalid("search.url", reason))?;
                s.url = Some(url.trim().to_owned());
            }
            if let Some(change) = search.api_key.clone().into_change() {
                s.api_key = change.filter(|k| !k.is_empty());
            }
            s.max_results = search.max_results.unwrap_or(s.max_results);
            s.timeout_ms = search.timeout_ms.unwrap_or(s.timeout_ms);
        }
        let s = &mut config.search;
        if s.url.is_none() {
            s.url = s.backend.and_then(Backend::default_url).map(str::to_owned);
        }
        if s.enabled {
            match s.backend {
                None => {
                    return Err(ApiError::invalid(
                        "search.backend",
                        "required while search is enabled",
                    ));
                }
                Some(Backend::Searxng) if s.url.is_none() => {
                    return Err(ApiError::invalid("search.url", "required for searxng"));
                }
                Some(Backend::Brave | Backend::Tavily) if s.api_key.is_none() => {
                    return Err(ApiError::invalid(
                        "search.apiKey",
                        "required for brave and tavily",
                    ));
                }
                _ => {}
            }
        }
        if let Some(list) = &self.allowed_domains {
            config.allowed_domains = domains("allowedDomains", list.clone())?;
        }
        if let Some(list) = &self.blocked_domains {
            config.blocked_domains = domains("blockedDomains", list.clone())?;
        }
        config.updated_at = Some(Utc::now());
        Ok(config)
    }
}

/// Whether `entry` covers `host` (itself or a subdomain).
fn covers(entry: &str, host: &str) -> bool {
    host == entry
        || host
            .strip_suffix(entry)
            .is_some_and(|head| head.ends_with('.'))
}

impl WebConfig {
    /// Whether the lists admit `host`: blocked wins; a non-empty allowed
    /// list admits only its hosts.
    pub fn admits(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        !self.blocked_domains.iter().any(|d| covers(d, &host))
            && (self.allowed_domains.is_empty()
                || self.allowed_domains.iter().any(|d| covers(d, &host)))
    }

    /// Whether `host` is named by the allowed list (what opens a
    /// non-global address to `web_fetch`, with the outbound allow-list).
    pub fn names(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.allowed_domains.iter().any(|d| covers(d, &host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_cover_subdomains_and_blocked_wins() {
        let config = WebConfig {
            allowed_domains: vec!["example.com".into()],
            blocked_domains: vec!["ads.example.com".into()],
            ..WebConfig::default()
        };
        assert!(config.admits("example.com"));
        assert!(config.admits("docs.Example.com."));
        assert!(!config.admits("ads.example.com"));
        assert!(!config.admits("x.ads.example.com"));
        assert!(!config.admits("badexample.com"));
        assert!(WebConfig::default().admits("anything.org"));
    }

    #[test]
    fn a_put_checks_ranges_backends_and_domains() {
        let policy = OutboundPolicy::default();
        let put = |json: serde_json::Value| -> Result<WebConfig, ApiError> {
            let put: PutWebConfig = serde_json::from_value(json).unwrap();
            put.apply(WebConfig::default(), &policy)
        };
        assert!(put(serde_json::json!({"fetch": {"maxBytes": 1000}})).is_err());
        assert!(put(serde_json::json!({"search": {"enabled": true}})).is_err());
        assert!(put(serde_json::json!({"search": {"enabled": true, "backend": "brave"}})).is_err());
        let brave = put(
            serde_json::json!({"search": {"enabled": true, "backend": "brave", "apiKey": "k"}}),
        )
        .unwrap();
        assert_eq!(brave.search.url.as_deref(), Backend::Brave.default_url());
        assert!(
            put(serde_json::json!({"search": {"enabled": true, "backend": "searxng"}})).is_err()
        );
        assert!(put(serde_json::json!({"allowedDomains": ["https://x.com"]})).is_err());
        assert!(put(serde_json::json!({"allowedDomains": ["*.x.com"]})).is_err());
        let ok =
            put(serde_json::json!({"allowedDomains": ["Bücher.example", "127.0.0.1"]})).unwrap();
        assert_eq!(ok.allowed_domains, ["xn--bcher-kva.example", "127.0.0.1"]);
    }
}
