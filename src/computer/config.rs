//! An agent's computer configuration (`computer.md` §2): the record, its
//! size classes, and the rules a `PUT` is checked against (one place, so
//! the route and any later writer agree).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::protocol::Limits;

/// A sandbox's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SizeClass {
    #[default]
    Small,
    Medium,
    Large,
}

/// What a size class gives (`computer.md` §2's table).
#[derive(Clone, Copy, Debug)]
pub struct ClassLimits {
    pub cpus: u32,
    pub memory_bytes: u64,
    pub processes: u64,
    pub disk_bytes: u64,
    pub tmpfs_bytes: u64,
}

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

impl SizeClass {
    pub fn limits(self) -> ClassLimits {
        match self {
            Self::Small => ClassLimits {
                cpus: 1,
                memory_bytes: GIB,
                processes: 256,
                disk_bytes: 2 * GIB,
                tmpfs_bytes: 256 * MIB,
            },
            Self::Medium => ClassLimits {
                cpus: 2,
                memory_bytes: 4 * GIB,
                processes: 512,
                disk_bytes: 10 * GIB,
                tmpfs_bytes: 512 * MIB,
            },
            Self::Large => ClassLimits {
                cpus: 4,
                memory_bytes: 8 * GIB,
                processes: 1024,
                disk_bytes: 20 * GIB,
                tmpfs_bytes: GIB,
            },
        }
    }

    /// The per-command limits of rlimit mode.
    pub fn rlimits(self) -> Limits {
        let limits = self.limits();
        Limits {
            memory_bytes: limits.memory_bytes,
            processes: limits.processes,
            file_bytes: limits.disk_bytes,
        }
    }
}

/// Whether a sandbox reaches the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    #[default]
    None,
    Allowlist,
}

/// A sandbox's network.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Network {
    pub mode: NetworkMode,
    /// Hosts, `host:port`, `*.host` or CIDR blocks (≤ 64).
    pub allow: Vec<String>,
}

/// The stored configuration (its defaults when never set).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComputerConfig {
    pub enabled: bool,
    pub size_class: SizeClass,
    pub idle_timeout_secs: u64,
    pub max_command_secs: u64,
    pub output_limit_bytes: usize,
    pub network: Network,
    /// Variables every command gets (shown, so never secrets).
    pub env: std::collections::BTreeMap<String, String>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Default for ComputerConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            size_class: SizeClass::Small,
            idle_timeout_secs: 600,
            max_command_secs: 300,
            output_limit_bytes: 16_384,
            network: Network::default(),
            env: Default::default(),
            updated_at: None,
        }
    }
}

/// `PUT /api/agents/{id}/computer`: every field optional.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutComputerConfig {
    pub enabled: Option<bool>,
    pub size_class: Option<SizeClass>,
    /// 10–86400.
    pub idle_timeout_secs: Option<u64>,
    /// 1–3600.
    pub max_command_secs: Option<u64>,
    /// 1024–262144.
    pub output_limit_bytes: Option<usize>,
    pub network: Option<Network>,
    /// ≤ 32 names, not PATH, HOME or *_PROXY; values ≤ 4 KiB.
    pub env: Option<std::collections::BTreeMap<String, String>>,
}

/// A field's refusal: the field and why.
pub type Refusal = (String, String);

fn within(field: &str, value: u64, low: u64, high: u64) -> Result<(), Refusal> {
    if (low..=high).contains(&value) {
        return Ok(());
    }
    Err((field.into(), format!("must be {low} to {high}")))
}

/// Whether an allow-list entry has one of the accepted shapes: a host
/// name, `host:port`, `*.host`, or an IP address or CIDR block.
fn valid_allow_entry(entry: &str) -> bool {
    if entry.parse::<ipnet::IpNet>().is_ok() || entry.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let (host, port) = match entry.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (entry, None),
    };
    if port.is_some_and(|p| p.parse::<u16>().map_or(true, |p| p == 0)) {
        return false;
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
        })
}

/// Whether `name` may be set by a configuration's `env`: a variable name
/// (the stdio servers' rule) of at most 64 bytes, not one Confer sets.
fn valid_env_name(name: &str) -> bool {
    crate::tools::mcp::stdio::valid_env_name(name)
        && name.len() <= 64
        && !matches!(name, "PATH" | "HOME")
        && !name.to_ascii_uppercase().ends_with("_PROXY")
}

impl PutComputerConfig {
    /// `config` with this change applied, or the first field refused.
    pub fn apply(self, mut config: ComputerConfig) -> Result<ComputerConfig, Refusal> {
        if let Some(enabled) = self.enabled {
            config.enabled = enabled;
        }
        if let Some(size) = self.size_class {
            config.size_class = size;
        }
        if let Some(secs) = self.idle_timeout_secs {
            within("idleTimeoutSecs", secs, 10, 86_400)?;
            config.idle_timeout_secs = secs;
        }
        if let Some(secs) = self.max_command_secs {
            within("maxCommandSecs", secs, 1, 3_600)?;
            config.max_command_secs = secs;
        }
        if let Some(bytes) = self.output_limit_bytes {
            within("outputLimitBytes", bytes as u64, 1_024, 262_144)?;
            config.output_limit_bytes = bytes;
        }
        if let Some(network) = self.network {
            if network.allow.len() > 64 {
                return Err(("network.allow".into(), "at most 64 entries".into()));
            }
            if let Some((at, _)) = network
                .allow
                .iter()
                .enumerate()
                .find(|(_, entry)| !valid_allow_entry(entry))
            {
                return Err((
                    format!("network.allow[{at}]"),
                    "must be a host, host:port, *.host or a CIDR block".into(),
                ));
            }
            config.network = network;
        }
        if let Some(env) = self.env {
            if env.len() > 32 {
                return Err(("env".into(), "at most 32 variables".into()));
            }
            for (name, value) in &env {
                if !valid_env_name(name) {
                    return Err((
                        format!("env.{name}"),
                        "must match ^[A-Za-z_]\\w{0,63}$ and not be PATH, HOME or *_PROXY".into(),
                    ));
                }
                if value.len() > 4_096 {
                    return Err((format!("env.{name}"), "at most 4 KiB".into()));
                }
            }
            config.env = env;
        }
        config.updated_at = Some(Utc::now());
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(json: &str) -> Result<ComputerConfig, Refusal> {
        serde_json::from_str::<PutComputerConfig>(json)
            .unwrap()
            .apply(ComputerConfig::default())
    }

    #[test]
    fn a_partial_change_keeps_the_other_fields() {
        let config = put(r#"{"enabled": true, "idleTimeoutSecs": 10}"#).unwrap();
        assert!(config.enabled);
        assert_eq!(config.idle_timeout_secs, 10);
        assert_eq!(config.max_command_secs, 300);
        assert_eq!(config.output_limit_bytes, 16_384);
    }

    #[test]
    fn values_out_of_range_name_their_field() {
        assert_eq!(
            put(r#"{"idleTimeoutSecs": 9}"#).unwrap_err().0,
            "idleTimeoutSecs"
        );
        assert_eq!(
            put(r#"{"maxCommandSecs": 3601}"#).unwrap_err().0,
            "maxCommandSecs"
        );
        assert_eq!(
            put(r#"{"outputLimitBytes": 1023}"#).unwrap_err().0,
            "outputLimitBytes"
        );
        assert_eq!(put(r#"{"env": {"HOME": "/x"}}"#).unwrap_err().0, "env.HOME");
        assert_eq!(
            put(r#"{"env": {"https_proxy": "x"}}"#).unwrap_err().0,
            "env.https_proxy"
        );
        assert_eq!(put(r#"{"env": {"1A": "x"}}"#).unwrap_err().0, "env.1A");
        let bad = r#"{"network": {"mode": "allowlist", "allow": ["example.com", "bad host"]}}"#;
        assert_eq!(put(bad).unwrap_err().0, "network.allow[1]");
    }

    #[test]
    fn allow_entries_take_every_documented_shape() {
        for entry in [
            "example.com",
            "example.com:8443",
            "*.example.com",
            "10.0.0.0/8",
            "::1",
        ] {
            assert!(valid_allow_entry(entry), "{entry}");
        }
        for entry in ["", "a..b", "host:0", "host:x", "-a.com"] {
            assert!(!valid_allow_entry(entry), "{entry}");
        }
    }
}
