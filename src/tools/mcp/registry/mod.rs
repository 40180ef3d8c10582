//! The MCP registry (`marketplace-channels.md` §6): search through the
//! configured registry's API (`CONFER_MCP_REGISTRY_URL`: the official one,
//! a private one with the same API, or `offline`) via the outbound policy,
//! each answer cached 5 minutes (256 at most, least recently used first).
//! When the registry fails, the first page comes from the bundled snapshot
//! and the registry is skipped for 10 minutes, so an air-gapped instance
//! waits once per 10 minutes. Also: whether a URL is a registry server's
//! remote (a listing's `public` servers).

pub mod managed;
pub mod snapshot;

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::outbound::{Outbound, read_capped};
use managed::ManagedClients;
use snapshot::Snapshot;

const CALL_WITHIN: Duration = Duration::from_secs(10);
const ANSWER_CAP: usize = 4 * 1024 * 1024;
const CACHED_FOR: Duration = Duration::from_secs(300);
const CACHE_ENTRIES: usize = 256;
const SKIPPED_FOR: Duration = Duration::from_secs(600);
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A remote of a registry server.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Remote {
    /// `streamable_http` or `sse`.
    pub transport: String,
    pub url: String,
    pub headers: Vec<RemoteHeader>,
}

/// A header a remote needs.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RemoteHeader {
    pub name: String,
    pub is_secret: bool,
}

/// A registry server as answered.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RegistryServer {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    pub status: String,
    pub website_url: Option<String>,
    pub repository_url: Option<String>,
    pub remotes: Vec<Remote>,
    #[schema(value_type = Vec<Object>)]
    pub packages: Vec<Value>,
    /// A remote URL without `{variables}`: `POST /api/mcps` can use it.
    pub installable: bool,
    /// A remote is a managed-OAuth server of this instance.
    pub managed_oauth: bool,
    pub updated_at: Option<String>,
}

/// One list item of the registry (`{server, _meta}`, or a bare server).
pub fn parse_item(item: &Value) -> Option<RegistryServer> {
    let server = item.get("server").unwrap_or(item);
    let meta = item
        .get("_meta")
        .or_else(|| server.get("_meta"))
        .and_then(|m| m.get(OFFICIAL_META));
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let remotes: Vec<Remote> = server
        .get("remotes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .filter_map(|r| {
            let transport = match r.get("type").and_then(Value::as_str)? {
                "streamable-http" | "streamable_http" => "streamable_http",
                "sse" => "sse",
                _ => return None,
            };
            let headers = r
                .get("headers")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .filter_map(|h| {
                    Some(RemoteHeader {
                        name: text(h, "name")?,
                        is_secret: h.get("isSecret").and_then(Value::as_bool).unwrap_or(false),
                    })
                })
                .collect();
            Some(Remote {
                transport: transport.into(),
                url: text(r, "url")?,
                headers,
            })
        })
        .collect();
    Some(RegistryServer {
        name: text(server, "name")?,
        title: text(server, "title"),
        description: text(server, "description").unwrap_or_default(),
        version: text(server, "version").unwrap_or_default(),
        status: meta
            .and_then(|m| text(m, "status"))
            .unwrap_or_else(|| "active".into()),
        website_url: text(server, "websiteUrl"),
        repository_url: server.get("repository").and_then(|r| text(r, "url")),
        installable: remotes.iter().any(|r| !r.url.contains('{')),
        remotes,
        packages: server
            .get("packages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        managed_oauth: false,
        updated_at: meta.and_then(|m| text(m, "updatedAt")),
    })
}

/// A search's answer (`GET /api/mcp-registry/search`).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SearchAnswer {
    pub servers: Vec<RegistryServer>,
    /// `r:{registry's}` or `s:{offset}`; null at the end.
    #[serde(rename = "nextCursor")]
    pub next_cursor: Option<String>,
    /// `registry` or `snapshot`.
    pub source: &'static str,
    pub snapshot_fetched_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_error: Option<String>,
}

/// Why a search has no answer (an `r:` cursor while the registry fails:
/// 502 `UPSTREAM_UNAVAILABLE`).
#[derive(Debug, thiserror::Error)]
#[error("the MCP registry did not answer: {0}")]
pub struct Unavailable(pub String);

/// One registry page.
#[derive(Clone)]
struct Page {
    servers: Vec<RegistryServer>,
    next: Option<String>,
}

/// The registry client, its cache and the snapshot.
pub struct Registry {
    /// `None`: offline.
    base: Option<String>,
    outbound: Outbound,
    /// The registry answered 404 on `/v0.1`: it is a `/v0` one.
    legacy: AtomicBool,
    cache: Mutex<lru::LruCache<String, (Instant, Page)>>,
    skipped_until: Mutex<Option<Instant>>,
    pub snapshot: Snapshot,
    /// The instance's managed-OAuth servers (`managed_oauth` of a result).
    pub managed: std::sync::Arc<ManagedClients>,
}

impl Registry {
    /// The registry at `url` (`offline`: none).
    pub fn new(url: &str, outbound: Outbound, managed: std::sync::Arc<ManagedClients>) -> Self {
        let base = (url.trim() != "offline").then(|| url.trim().trim_end_matches('/').to_owned());
        Self {
            base,
            outbound,
            legacy: AtomicBool::new(false),
            cache: Mutex::new(lru::LruCache::new(
                NonZeroUsize::new(CACHE_ENTRIES).unwrap_or(NonZeroUsize::MIN),
            )),
            skipped_until: Mutex::new(None),
            snapshot: Snapshot::bundled(),
            managed,
        }
    }

    /// `answer` with each server's `managed_oauth` set.
    fn marked(&self, mut answer: SearchAnswer) -> SearchAnswer {
        for server in &mut answer.servers {
            server.managed_oauth = server
                .remotes
                .iter()
                .any(|r| self.managed.for_url(&r.url).is_some());
        }
        answer
    }

    fn snapshot_page(
        &self,
        q: &str,
        offset: usize,
        limit: usize,
        error: Option<String>,
    ) -> SearchAnswer {
        let (servers, more) = self.snapshot.search(q, offset, limit);
        SearchAnswer {
            next_cursor: more.then(|| format!("s:{}", offset + servers.len())),
            servers,
            source: "snapshot",
            snapshot_fetched_at: self.snapshot.fetched_at.clone(),
            upstream_error: error,
        }
    }

    fn skipping(&self) -> bool {
        let until = self.skipped_until.lock().unwrap_or_else(|p| p.into_inner());
        until.is_some_and(|at| Instant::now() < at)
    }

    /// Searches: `cursor` is `r:…` (the registry's), `s:{offset}` (the
    /// snapshot's) or none (the registry, else the snapshot).
    pub async fn search(
        &self,
        q: &str,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<SearchAnswer, Unavailable> {
        self.search_unmarked(q, limit, cursor)
            .await
            .map(|answer| self.marked(answer))
    }

    async fn search_unmarked(
        &self,
        q: &str,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<SearchAnswer, Unavailable> {
        if let Some(offset) = cursor.and_then(|c| c.strip_prefix("s:")) {
            let offset = offset.parse().unwrap_or(0);
            return Ok(self.snapshot_page(q, offset, limit, None));
        }
        let theirs = cursor.and_then(|c| c.strip_prefix("r:"));
        let Some(base) = &self.base else {
            if theirs.is_some() {
                return Err(Unavailable("the registry is offline".into()));
            }
            return Ok(self.snapshot_page(q, 0, limit, None));
        };
        if self.skipping() {
            let error = "the registry failed within the last 10 minutes".to_owned();
            return match theirs {
                Some(_) => Err(Unavailable(error)),
                None => Ok(self.snapshot_page(q, 0, limit, Some(error))),
            };
        }
        match self.fetch(base, q, limit, theirs).await {
            Ok(page) => Ok(SearchAnswer {
                servers: page.servers,
                next_cursor: page.next.map(|n| format!("r:{n}")),
                source: "registry",
                snapshot_fetched_at: self.snapshot.fetched_at.clone(),
                upstream_error: None,
            }),
            Err(error) => {
                *self.skipped_until.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(Instant::now() + SKIPPED_FOR);
                tracing::warn!(%error, "the MCP registry failed; the snapshot answers");
                match theirs {
                    Some(_) => Err(Unavailable(error)),
                    None => Ok(self.snapshot_page(q, 0, limit, Some(error))),
                }
            }
        }
    }

    async fn fetch(
        &self,
        base: &str,
        q: &str,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page, String> {
        let key = format!("{q}\u{0}{limit}\u{0}{}", cursor.unwrap_or(""));
        {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((at, page)) = cache.get(&key)
                && at.elapsed() < CACHED_FOR
            {
                return Ok(page.clone());
            }
        }
        let mut answer = self.call(base, q, limit, cursor).await?;
        if answer.0 == 404 && !self.legacy.swap(true, Ordering::Relaxed) {
            answer = self.call(base, q, limit, cursor).await?;
        }
        let (status, body) = answer;
        if status != 200 {
            return Err(format!("status {status}"));
        }
        let servers = body
            .get("servers")
            .and_then(Value::as_array)
            .ok_or("the answer has no `servers`")?
            .iter()
            .filter_map(parse_item)
            .filter(|s| s.status != "deleted")
            .collect();
        let next = body
            .get("metadata")
            .and_then(|m| m.get("nextCursor").or_else(|| m.get("next_cursor")))
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        let page = Page { servers, next };
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(key, (Instant::now(), page.clone()));
        Ok(page)
    }

    async fn call(
        &self,
        base: &str,
        q: &str,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(u16, Value), String> {
        let path = if self.legacy.load(Ordering::Relaxed) {
            "v0"
        } else {
            "v0.1"
        };
        let mut url =
            url::Url::parse(&format!("{base}/{path}/servers")).map_err(|e| e.to_string())?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("search", q)
                .append_pair("limit", &limit.to_string())
                .append_pair("version", "latest");
            if let Some(cursor) = cursor {
                query.append_pair("cursor", cursor);
            }
        }
        let request = self
            .outbound
            .request(reqwest::Method::GET, url.as_str())
            .map_err(|e| e.to_string())?
            .timeout(CALL_WITHIN)
            .header(reqwest::header::ACCEPT, "application/json");
        let response = self
            .outbound
            .send(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let bytes = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| e.to_string())?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    /// Whether `url` is a remote of a registry server.
    pub fn lists(&self, url: &str) -> bool {
        self.find_with_url(url, |_| ()).is_some()
    }

    /// The registry server with remote `url`: in the registry's cached
    /// answers, else in the snapshot.
    pub fn server_with_url(&self, url: &str) -> Option<RegistryServer> {
        self.find_with_url(url, RegistryServer::clone)
    }

    /// `read` of the server with remote `url`, looked up without copying
    /// it: in the cached answers (under their lock), else in the snapshot.
    fn find_with_url<T>(&self, url: &str, read: impl Fn(&RegistryServer) -> T) -> Option<T> {
        let has_url = |s: &&RegistryServer| s.remotes.iter().any(|r| r.url == url);
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let cached = cache
            .iter()
            .find_map(|(_, (_, page))| page.servers.iter().find(has_url).map(&read));
        cached.or_else(|| self.snapshot.with_url(url).map(&read))
    }
}

#[cfg(test)]
mod tests;
