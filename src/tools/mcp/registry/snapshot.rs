//! The MCP registry's bundled snapshot (`marketplace-channels.md` §6):
//! `assets/mcp-registry/snapshot.json.zst`, `{source, fetched_at, servers}`
//! with the registry's own list items (latest, not deleted), refreshed
//! before a release by `scripts/mcp-registry-snapshot`. Searched by
//! substring over name, title and description; it answers when the
//! registry cannot (air-gapped, down, or `offline`).

use std::io::Read;

use serde::Deserialize;
use serde_json::Value;

use super::{RegistryServer, parse_item};

const BUNDLED: &[u8] = include_bytes!("../../../../assets/mcp-registry/snapshot.json.zst");
/// The most a snapshot may inflate to.
const MAX_INFLATED: u64 = 64 * 1024 * 1024;

#[derive(Deserialize)]
struct Stored {
    source: String,
    fetched_at: Option<String>,
    servers: Vec<Value>,
}

/// The snapshot's servers, read once.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub source: String,
    pub fetched_at: Option<String>,
    pub servers: Vec<RegistryServer>,
}

impl Snapshot {
    /// The bundled snapshot; an unreadable one is empty (and logged).
    pub fn bundled() -> Self {
        Self::read(BUNDLED).unwrap_or_else(|error| {
            tracing::error!(%error, "the bundled MCP registry snapshot is unreadable");
            Self::default()
        })
    }

    /// A snapshot from its zstd-compressed JSON.
    pub fn read(compressed: &[u8]) -> Result<Self, String> {
        let mut json = Vec::new();
        zstd::stream::read::Decoder::new(compressed)
            .map_err(|e| e.to_string())?
            .take(MAX_INFLATED)
            .read_to_end(&mut json)
            .map_err(|e| e.to_string())?;
        let stored: Stored = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
        Ok(Self {
            source: stored.source,
            fetched_at: stored.fetched_at,
            servers: stored.servers.iter().filter_map(parse_item).collect(),
        })
    }

    /// The servers matching `q` (all without one), from `offset`, at most
    /// `limit`; and whether more follow.
    pub fn search(&self, q: &str, offset: usize, limit: usize) -> (Vec<RegistryServer>, bool) {
        let q = q.trim().to_lowercase();
        let matching = self.servers.iter().filter(|s| {
            q.is_empty()
                || [Some(&s.name), s.title.as_ref(), Some(&s.description)]
                    .into_iter()
                    .flatten()
                    .any(|text| text.to_lowercase().contains(&q))
        });
        let mut page: Vec<RegistryServer> =
            matching.skip(offset).take(limit + 1).cloned().collect();
        let more = page.len() > limit;
        page.truncate(limit);
        (page, more)
    }

    /// The server that lists `url` among its remotes.
    pub fn with_url(&self, url: &str) -> Option<&RegistryServer> {
        self.servers
            .iter()
            .find(|s| s.remotes.iter().any(|r| r.url == url))
    }

    /// The first remote of the server named `name`.
    pub fn first_remote(&self, name: &str) -> Option<&super::Remote> {
        self.servers
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.remotes.first())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_snapshot_reads_and_searches() {
        let snapshot = Snapshot::read(BUNDLED).expect("the bundled snapshot reads");
        assert!(!snapshot.source.is_empty());
        let (all, _) = snapshot.search("", 0, 1_000);
        assert_eq!(all.len(), snapshot.servers.len());
        let made = serde_json::json!({"source": "test", "fetched_at": "2026-11-01T00:00:00Z",
            "servers": [{"server": {"name": "io.example/weather", "description": "Forecasts",
                "version": "1.0.0", "remotes": [{"type": "streamable-http",
                "url": "https://weather.example/mcp"}]},
              "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active",
                "updatedAt": "2026-10-01T00:00:00Z", "isLatest": true}}}]});
        let compressed = zstd::encode_all(made.to_string().as_bytes(), 3).unwrap();
        let snapshot = Snapshot::read(&compressed).unwrap();
        assert_eq!(snapshot.search("FORECAST", 0, 10).0.len(), 1);
        assert_eq!(snapshot.search("nothing", 0, 10).0.len(), 0);
        assert!(snapshot.with_url("https://weather.example/mcp").is_some());
        assert!(snapshot.servers[0].installable);
    }
}
