//! Layered configuration: the compiled-in `config/default.toml`, then an
//! optional file (`--config` / `CONFER_CONFIG`), then environment variables.
//! Secrets are `SecretString`, so neither `Debug` nor a log line can print them.

use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

/// The compiled-in defaults.
pub const DEFAULT_TOML: &str = include_str!("../../config/default.toml");

/// Model used when no vendor key and no `CONFER_DEFAULT_MODEL` are set.
pub const BUILTIN_ECHO_MODEL: &str = "builtin/echo";
/// Platform default when only an Anthropic key is configured.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-6";
/// Platform default when only an OpenAI key is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";

/// How log lines are written.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// Every setting of the service. See `config/default.toml` for each one's meaning.
#[derive(Clone, Debug, Deserialize)]
pub struct Settings {
    pub bind: String,
    pub data_dir: PathBuf,
    /// The PostgreSQL store's connection string (`scale.md` §1); `None`:
    /// sled. A secret: it may carry a password.
    #[serde(default)]
    pub store: Option<SecretString>,
    #[serde(default)]
    pub store_password_file: Option<PathBuf>,
    pub store_pool_size: usize,
    #[serde(default)]
    pub node_name: Option<String>,
    #[serde(default)]
    pub node_url: Option<String>,
    pub lease_ttl_secs: u64,
    pub forward_wait_secs: u64,
    pub log: String,
    pub log_format: LogFormat,
    pub max_body_bytes: usize,
    pub shutdown_timeout_secs: u64,
    pub workers: usize,
    pub builtin_delay_ms: u64,
    pub thread_idle_timeout_ms: u64,
    pub max_live_threads: usize,
    pub context_cache_bytes: usize,
    pub max_queued_per_thread: usize,
    pub max_active_turns_per_org: usize,
    pub max_queued_per_org: usize,
    pub stream_replay_bytes: usize,
    pub max_watchers_per_thread: usize,
    pub sse_keep_alive_ms: u64,
    pub runtime_arbiters: usize,
    pub store_concurrency: usize,
    pub trace_retention_days: u32,
    pub trace_payloads: bool,
    /// Whether `/console` is served (`publishing.md` "Console").
    pub console: bool,
    /// The largest multipart upload of a skill (`agent-extras.md` §1).
    pub skill_upload_max_bytes: u64,
    /// The host's `git` (`CONFER_GIT_PATH`): a name on `PATH` or a path.
    pub git_path: String,
    /// Delegate tools are offered while a turn's depth is under it
    /// (`agent-extras.md` §3).
    pub max_delegation_depth: u32,
    /// A delegated turn running longer is stopped.
    pub delegation_timeout_secs: u64,
    /// Knowledge documents (`knowledge.md` §7).
    pub knowledge_max_upload_bytes: u64,
    pub knowledge_max_text_bytes: usize,
    pub knowledge_max_chunks_per_doc: usize,
    pub knowledge_max_docs_per_org: usize,
    pub knowledge_max_docs_per_thread: usize,
    pub knowledge_workers: usize,
    pub knowledge_parse_timeout_secs: u64,
    pub knowledge_attempt_timeout_secs: u64,
    pub knowledge_writer_memory_mb: usize,
    pub knowledge_commit_docs: usize,
    pub knowledge_commit_ms: u64,
    pub knowledge_search_threads: usize,
    pub knowledge_max_memories_per_org: u64,
    pub knowledge_vector_cache_mb: usize,
    pub knowledge_exact_scan_max: usize,
    pub max_runners_per_org: usize,
    pub max_schedules_per_org: usize,
    pub schedule_min_interval_secs: u64,
    /// Days terminal runs and settled deliveries are kept (`runners.md`).
    pub run_retention_days: u32,
    #[serde(default)]
    pub prices_file: Option<PathBuf>,
    #[serde(default)]
    pub metrics_token: Option<SecretString>,
    pub anthropic_base_url: String,
    pub openai_base_url: String,
    pub anthropic_max_tokens: u32,
    pub fallback_provider: String,
    pub vendor_connect_timeout_ms: u64,
    pub vendor_read_timeout_ms: u64,
    pub vendor_max_retries: u32,
    pub vendor_retry_base_ms: u64,
    pub vendor_retry_max_ms: u64,
    pub vendor_first_byte_timeout_ms: u64,
    #[serde(default)]
    pub bootstrap_api_key: Option<SecretString>,
    #[serde(default)]
    pub jwt_secret: Option<SecretString>,
    #[serde(default)]
    pub default_model: Option<String>,
    #[serde(default)]
    pub extra_ca_cert: Option<PathBuf>,
    #[serde(default)]
    pub jwt_public_key: Option<String>,
    #[serde(default)]
    pub jwt_issuer: Option<String>,
    #[serde(default)]
    pub jwt_audience: Option<String>,
    /// Comma-separated `host[:port]` entries (`*.` allowed as the first label).
    pub outbound_allow: String,
    #[serde(default)]
    pub outbound_proxy: Option<String>,
    /// Where users' browsers reach Confer (the managed OAuth redirect URI's
    /// base); `None`: `http://{bind}`.
    #[serde(default)]
    pub public_url: Option<String>,
    /// The stdio MCP servers a platform admin may create: argv arrays
    /// (`tools.md` §6); empty allows none.
    #[serde(default)]
    pub mcp_stdio_allow: Vec<Vec<String>>,
    /// Comma-separated variable names a stdio server's `env` may set
    /// (besides Confer's own `PATH` and `HOME`); empty allows none.
    pub mcp_stdio_env_allow: String,
    /// Under which stdio children get their homes; `None`: beside the data
    /// directory (`{data_dir}-mcp-homes`), never inside it.
    #[serde(default)]
    pub mcp_stdio_homes: Option<PathBuf>,
    /// The uid and gid stdio children run as when Confer runs as root.
    pub mcp_stdio_uid: u32,
    pub client_timeout_secs: u64,
    /// Comma-separated origins browser clients may call from ("": no CORS).
    pub cors_origins: String,
    pub stalled_client_secs: u64,
    pub max_connections: usize,
    pub max_content_bytes: usize,
    pub max_json_depth: usize,
    pub user_rate_limit_rps: f64,
    pub user_send_limit_per_min: u32,
    pub key_rate_limit_rps: f64,
    /// Public chats (`publishing.md`): visitor token lifetime (60–3600 s).
    pub visitor_token_ttl_secs: u64,
    pub public_visitor_rps: f64,
    pub public_mints_per_ip_per_min: u32,
    pub public_max_threads: u64,
    /// Comma-separated CIDRs whose `X-Forwarded-For` is believed.
    pub trusted_proxies: String,
    #[serde(default)]
    pub secret_key: Option<SecretString>,
    #[serde(default)]
    pub secret_key_file: Option<PathBuf>,
    #[serde(default)]
    pub secret_key_old: Option<SecretString>,
    #[serde(default)]
    pub anthropic_api_key: Option<SecretString>,
    #[serde(default)]
    pub openai_api_key: Option<SecretString>,
    /// Computer use (`computer.md`): where agents run without a vendor
    /// key (`local`, `none`, `always`).
    pub sandbox_fallback: crate::computer::service::Fallback,
    /// Whether the local bubblewrap runtime is used (`auto`, `on`, `off`).
    pub sandbox_local: crate::computer::service::LocalMode,
    pub bwrap_path: PathBuf,
    /// Where local workspaces are; `None`: beside the data directory.
    #[serde(default)]
    pub sandbox_dir: Option<PathBuf>,
    /// The uid bwrap runs as when Confer runs as root.
    pub sandbox_uid: u32,
    pub sandbox_max_running_per_org: usize,
    pub sandbox_max_instances_per_org: usize,
    pub sandbox_max_running: usize,
    pub sandbox_retention_hours: u64,
    /// The largest archive a code agent may be given (413 past it).
    pub code_archive_max_bytes: u64,
    /// The most bytes a code session's repository fetch brings over.
    pub code_repo_max_bytes: u64,
    /// Days an archived code session (and its thread) is kept.
    pub code_session_retention_days: u32,
    #[serde(default)]
    pub e2b_api_key: Option<SecretString>,
    #[serde(default)]
    pub daytona_api_key: Option<SecretString>,
    /// e2b's control API and its sandboxes' router (`computer.md` §1).
    pub e2b_api_url: String,
    pub e2b_sandbox_url: String,
    /// The e2b templates of the small, medium and large classes.
    pub e2b_template_small: String,
    pub e2b_template_medium: String,
    pub e2b_template_large: String,
    /// daytona's API (`computer.md` §1).
    pub daytona_api_url: String,
    /// Whether a marketplace listing may be seen by every org of the
    /// instance (`visibility: instance`).
    pub marketplace_instance: bool,
    /// The largest avatar upload (`POST …/marketplace/avatar`), else 413.
    pub avatar_max_bytes: u64,
    /// Messaging channels (`marketplace-channels.md` §7): the vendors' API
    /// bases (operator settings; tests point them at mocks).
    pub telegram_api_url: String,
    pub slack_api_url: String,
    pub whatsapp_api_url: String,
    pub whatsapp_api_version: String,
    /// Channel jobs run at once.
    pub channel_workers: usize,
    /// The MCP registry searched (`marketplace-channels.md` §6): the
    /// official one, a private one with its API, or `offline`.
    pub mcp_registry_url: String,
    /// The managed-OAuth MCP servers: OAuth clients registered with their
    /// providers beforehand (§6; TOML array, JSON in the variable).
    #[serde(deserialize_with = "crate::tools::mcp::registry::managed::list_or_json")]
    pub mcp_managed_oauth: Vec<crate::tools::mcp::registry::managed::ManagedClientSetting>,
}

/// The vendors' own variable names, read without the `CONFER_` prefix.
pub(crate) const VENDOR_ENV: [&str; 12] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "E2B_API_KEY",
    "E2B_API_URL",
    "E2B_SANDBOX_URL",
    "E2B_TEMPLATE_SMALL",
    "E2B_TEMPLATE_MEDIUM",
    "E2B_TEMPLATE_LARGE",
    "DAYTONA_API_KEY",
    "DAYTONA_API_URL",
];

/// The configuration's layers: defaults < `file` < environment.
pub(crate) fn layers(file: Option<&Path>) -> Figment {
    let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
    if let Some(file) = file {
        figment = figment.merge(Toml::file_exact(file));
    }
    figment
        .merge(Env::prefixed("CONFER_").ignore(&["CONFIG"]))
        .merge(Env::raw().only(&VENDOR_ENV))
}

mod describe;
#[cfg(test)]
use describe::SECRET_KEYS;
pub use describe::describe;

impl Settings {
    /// How long a stream may go without a frame before a keep-alive.
    pub fn keep_alive(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.sse_keep_alive_ms.max(10))
    }

    /// Loads defaults < `file` < environment.
    pub fn load(file: Option<&Path>) -> Result<Self, Box<figment::Error>> {
        let settings: Settings = layers(file).extract().map_err(Box::new)?;
        Ok(settings.normalized())
    }

    /// Treats empty strings (an exported but empty variable) as unset.
    fn normalized(mut self) -> Self {
        fn non_empty(secret: Option<SecretString>) -> Option<SecretString> {
            secret.filter(|s| !s.expose_secret().trim().is_empty())
        }
        self.bootstrap_api_key = non_empty(self.bootstrap_api_key);
        self.jwt_secret = non_empty(self.jwt_secret);
        self.metrics_token = non_empty(self.metrics_token);
        self.secret_key = non_empty(self.secret_key);
        self.secret_key_old = non_empty(self.secret_key_old);
        self.secret_key_file = self.secret_key_file.filter(|p| !p.as_os_str().is_empty());
        self.store = non_empty(self.store);
        self.store_password_file = self
            .store_password_file
            .filter(|p| !p.as_os_str().is_empty());
        let text = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
        self.jwt_public_key = text(self.jwt_public_key);
        self.jwt_issuer = text(self.jwt_issuer);
        self.jwt_audience = text(self.jwt_audience);
        self.outbound_proxy = text(self.outbound_proxy);
        self.public_url = text(self.public_url);
        self.node_name = text(self.node_name);
        self.node_url = text(self.node_url);
        self.anthropic_api_key = non_empty(self.anthropic_api_key);
        self.openai_api_key = non_empty(self.openai_api_key);
        self.e2b_api_key = non_empty(self.e2b_api_key);
        self.daytona_api_key = non_empty(self.daytona_api_key);
        self.sandbox_dir = self.sandbox_dir.filter(|p| !p.as_os_str().is_empty());
        self.default_model = self.default_model.filter(|m| !m.trim().is_empty());
        self.extra_ca_cert = self.extra_ca_cert.filter(|p| !p.as_os_str().is_empty());
        self.mcp_stdio_homes = self.mcp_stdio_homes.filter(|p| !p.as_os_str().is_empty());
        self
    }

    /// `{data_dir}{suffix}`, beside the data directory (`{temp}/confer{suffix}`
    /// when the data directory has no name to put it beside).
    fn beside_data_dir(&self, suffix: &str) -> PathBuf {
        match self.data_dir.file_name() {
            Some(name) => {
                let mut beside = name.to_os_string();
                beside.push(suffix);
                self.data_dir.with_file_name(beside)
            }
            // `/` or `..`: nowhere beside it to name.
            None => std::env::temp_dir().join(format!("confer{suffix}")),
        }
    }

    /// Where stdio MCP children get their homes: `mcp_stdio_homes`, else
    /// `{data_dir}-mcp-homes` beside the data directory.
    pub fn mcp_stdio_homes(&self) -> PathBuf {
        self.mcp_stdio_homes
            .clone()
            .unwrap_or_else(|| self.beside_data_dir("-mcp-homes"))
    }

    /// Where local sandboxes' workspaces are: `sandbox_dir`, else
    /// `{data_dir}-sandboxes` beside the data directory (bubblewrap
    /// resolves a workspace's path, so the sandbox's user must be able to
    /// traverse it, which it cannot inside the 0700 data directory).
    pub fn sandbox_dir(&self) -> PathBuf {
        self.sandbox_dir
            .clone()
            .unwrap_or_else(|| self.beside_data_dir("-sandboxes"))
    }

    /// The PEM text of `extra_ca_cert`, if one is configured.
    pub fn extra_ca_pem(&self) -> anyhow::Result<Option<Vec<u8>>> {
        use anyhow::Context;
        self.extra_ca_cert
            .as_ref()
            .map(|path| {
                std::fs::read(path)
                    .with_context(|| format!("reading the extra CA file {}", path.display()))
            })
            .transpose()
    }

    /// Where users' browsers reach Confer: `public_url`, else
    /// `http://{bind}`.
    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.bind))
    }

    /// The platform default model, by the rule of the contract.
    pub fn platform_default_model(&self) -> String {
        if let Some(model) = &self.default_model {
            model.clone()
        } else if self.anthropic_api_key.is_some() {
            DEFAULT_ANTHROPIC_MODEL.to_owned()
        } else if self.openai_api_key.is_some() {
            DEFAULT_OPENAI_MODEL.to_owned()
        } else {
            BUILTIN_ECHO_MODEL.to_owned()
        }
    }
}

#[cfg(test)]
mod tests;
