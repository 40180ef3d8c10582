//! The instance's managed-OAuth MCP servers (`marketplace-channels.md` §6,
//! setting `mcp_managed_oauth`): OAuth clients the operator registered with
//! a provider beforehand. A server made with one of these URLs, `oauth` not
//! `none` and no `oauthClient` of its own, signs its users in with this
//! client instead of registering one dynamically (tools.md §8), since many
//! providers offer no dynamic registration. Checked at start: a bad entry
//! stops the server with the entry named.

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

use secrecy::SecretString;
use serde::{Deserialize, Deserializer, Serialize};

/// One entry of the setting, as written.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManagedClientSetting {
    /// What the list shows (`GET /api/mcp-registry/managed`).
    pub name: String,
    /// The MCP server's URL; a server made with it uses this client.
    pub url: String,
    /// `streamable_http` (default) or `sse`.
    #[serde(default = "streamable_http")]
    pub transport: String,
    pub client_id: String,
    /// A file holding the client secret (a public client has none).
    #[serde(default)]
    pub client_secret_file: Option<PathBuf>,
    #[serde(default)]
    pub scopes: Vec<String>,
}

fn streamable_http() -> String {
    "streamable_http".into()
}

/// The setting's value: a TOML array of tables, or JSON text of the same
/// list (how `CONFER_MCP_MANAGED_OAUTH` carries it).
pub fn list_or_json<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ManagedClientSetting>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        List(Vec<ManagedClientSetting>),
        Json(String),
    }
    match Written::deserialize(deserializer)? {
        Written::List(list) => Ok(list),
        Written::Json(text) if text.trim().is_empty() => Ok(Vec::new()),
        Written::Json(text) => serde_json::from_str(&text).map_err(|e| {
            serde::de::Error::custom(format!("mcp_managed_oauth is not a list of clients: {e}"))
        }),
    }
}

/// A managed client, its secret read from its file.
pub struct ManagedClient {
    pub name: String,
    /// The URL as configured (without a trailing slash).
    pub url: String,
    pub transport: String,
    pub client_id: String,
    pub client_secret: Option<SecretString>,
    pub scopes: Vec<String>,
}

impl fmt::Debug for ManagedClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagedClient")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// An item of `GET /api/mcp-registry/managed`.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ManagedItem {
    pub name: String,
    /// The registry's title of the server with this URL, when it lists one.
    pub title: Option<String>,
    /// The registry's description, when it lists the URL; else empty.
    pub description: String,
    pub url: String,
    pub transport: String,
    pub scopes: Vec<String>,
    /// The caller's org's servers made with this URL.
    #[schema(value_type = Vec<String>)]
    pub installed_mcp_server_ids: Vec<confer_actors::McpServerId>,
}

/// The instance's managed clients.
#[derive(Debug, Default)]
pub struct ManagedClients {
    clients: Vec<ManagedClient>,
}

/// A URL as compared: no trailing slash, scheme and host in lower case.
fn key(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(parsed) => parsed.as_str().trim_end_matches('/').to_owned(),
        Err(_) => url.trim().trim_end_matches('/').to_owned(),
    }
}

impl ManagedClients {
    /// Checks the setting's entries and reads their secrets.
    pub fn load(settings: &[ManagedClientSetting]) -> anyhow::Result<Self> {
        let mut seen = HashSet::new();
        let mut clients = Vec::with_capacity(settings.len());
        for (i, entry) in settings.iter().enumerate() {
            let at = format!("mcp_managed_oauth[{i}]");
            anyhow::ensure!(!entry.name.trim().is_empty(), "{at}.name is empty");
            anyhow::ensure!(
                !entry.client_id.trim().is_empty(),
                "{at}.client_id is empty"
            );
            anyhow::ensure!(
                matches!(entry.transport.as_str(), "streamable_http" | "sse"),
                "{at}.transport: `streamable_http` or `sse`"
            );
            let url = url::Url::parse(entry.url.trim())
                .ok()
                .filter(|u| matches!(u.scheme(), "https" | "http") && u.host().is_some())
                .ok_or_else(|| anyhow::anyhow!("{at}.url: an absolute http(s) URL"))?;
            let url = key(url.as_str());
            anyhow::ensure!(seen.insert(url.clone()), "{at}.url: listed twice");
            let client_secret = match &entry.client_secret_file {
                Some(path) => {
                    let text = std::fs::read_to_string(path).map_err(|e| {
                        anyhow::anyhow!("{at}.client_secret_file {}: {e}", path.display())
                    })?;
                    let text = text.trim();
                    anyhow::ensure!(!text.is_empty(), "{at}.client_secret_file is empty");
                    Some(SecretString::from(text.to_owned()))
                }
                None => None,
            };
            clients.push(ManagedClient {
                name: entry.name.trim().to_owned(),
                url,
                transport: entry.transport.clone(),
                client_id: entry.client_id.trim().to_owned(),
                client_secret,
                scopes: entry.scopes.clone(),
            });
        }
        Ok(Self { clients })
    }

    /// The managed client of the server at `url`, if any.
    pub fn for_url(&self, url: &str) -> Option<&ManagedClient> {
        let url = key(url);
        self.clients.iter().find(|c| c.url == url)
    }

    /// The list of `GET /api/mcp-registry/managed` for an org whose
    /// servers are `installed`: each client with the registry's title and
    /// description of its URL (when it lists it) and the org's servers
    /// made with the URL.
    pub fn items(
        &self,
        registry: &super::Registry,
        installed: &[crate::store::mcps::McpServer],
    ) -> Vec<ManagedItem> {
        self.clients
            .iter()
            .map(|client| {
                let listed = registry.server_with_url(&client.url);
                ManagedItem {
                    name: client.name.clone(),
                    title: listed.as_ref().and_then(|s| s.title.clone()),
                    description: listed.map(|s| s.description).unwrap_or_default(),
                    url: client.url.clone(),
                    transport: client.transport.clone(),
                    scopes: client.scopes.clone(),
                    installed_mcp_server_ids: installed
                        .iter()
                        .filter(|s| s.url.as_deref().is_some_and(|u| key(u) == client.url))
                        .map(|s| s.id)
                        .collect(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(url: &str) -> ManagedClientSetting {
        ManagedClientSetting {
            name: "Linear".into(),
            url: url.into(),
            transport: "streamable_http".into(),
            client_id: "cid".into(),
            client_secret_file: None,
            scopes: vec!["read".into()],
        }
    }

    #[test]
    fn entries_are_checked_and_urls_compared_loosely() {
        let clients = ManagedClients::load(&[entry("https://MCP.linear.app/mcp/")]).unwrap();
        assert_eq!(
            clients
                .for_url("https://mcp.linear.app/mcp")
                .map(|c| c.client_id.as_str()),
            Some("cid")
        );
        assert!(clients.for_url("https://mcp.linear.app/other").is_none());
        let twice = ManagedClients::load(&[
            entry("https://a.example/mcp"),
            entry("https://a.example/mcp/"),
        ]);
        assert!(
            twice
                .unwrap_err()
                .to_string()
                .contains("[1].url: listed twice")
        );
        let relative = ManagedClients::load(&[entry("/mcp")]);
        assert!(relative.unwrap_err().to_string().contains("[0].url"));
        let mut sse = entry("https://a.example/sse");
        sse.transport = "stdio".into();
        assert!(
            ManagedClients::load(&[sse])
                .unwrap_err()
                .to_string()
                .contains("transport")
        );
        let mut missing = entry("https://a.example/mcp");
        missing.client_secret_file = Some("/nonexistent/secret".into());
        let error = ManagedClients::load(&[missing]).unwrap_err().to_string();
        assert!(error.contains("client_secret_file"), "{error}");
    }

    #[test]
    fn the_secret_comes_from_its_file_and_stays_out_of_debug() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        std::fs::write(&path, "s3cret-value\n").unwrap();
        let mut with_secret = entry("https://a.example/mcp");
        with_secret.client_secret_file = Some(path);
        let clients = ManagedClients::load(&[with_secret]).unwrap();
        let client = clients.for_url("https://a.example/mcp").unwrap();
        use secrecy::ExposeSecret;
        assert_eq!(
            client.client_secret.as_ref().unwrap().expose_secret(),
            "s3cret-value"
        );
        assert!(!format!("{clients:?}").contains("s3cret"));
    }

    #[test]
    #[allow(unsafe_code)]
    fn the_setting_reads_a_toml_list_or_json_text() {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "list_or_json")]
            list: Vec<ManagedClientSetting>,
        }
        use figment::providers::{Env, Format, Toml};
        let toml: Holder = figment::Figment::from(Toml::string(
            "list = [{name = \"A\", url = \"https://a.example/mcp\", client_id = \"x\"}]",
        ))
        .extract()
        .unwrap();
        assert_eq!(toml.list[0].transport, "streamable_http");
        // As the environment carries it (the name is this test's own).
        // SAFETY: no other code reads or writes this variable.
        unsafe {
            std::env::set_var(
                "CONFER_MANAGED_TEST_LIST",
                r#"[{"name": "B", "url": "https://b.example/mcp", "client_id": "y", "scopes": ["a", "b"]}]"#,
            )
        };
        let env: Holder = figment::Figment::from(Env::prefixed("CONFER_MANAGED_TEST_"))
            .extract()
            .unwrap();
        assert_eq!(env.list[0].scopes, ["a", "b"]);
        let json: Holder = serde_json::from_value(serde_json::json!({
            "list": "[{\"name\": \"A\", \"url\": \"https://a.example/mcp\", \"client_id\": \"x\", \"scopes\": [\"s\"]}]"
        }))
        .unwrap();
        assert_eq!(json.list[0].scopes, ["s"]);
        let bad = serde_json::from_value::<Holder>(serde_json::json!({"list": "{not json"}));
        assert!(bad.is_err());
    }
}
