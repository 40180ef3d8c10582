//! What an egress proxy admits: the exact destinations it was started
//! for (the host git's repository) or a computer's allow-list entries.

use std::net::IpAddr;

use crate::outbound::canonical;

/// Where the proxy may connect, and how much it may bring back.
#[derive(Clone, Debug, Default)]
pub struct EgressRules {
    /// `(host, port)` pairs, hosts lowercase.
    pub destinations: Vec<(String, u16)>,
    /// A computer's allow-list entries (`computer.md` §2): `host`,
    /// `host:port`, `*.host` (its subdomains) or a CIDR block (literal
    /// addresses in it); without a port, 80 and 443.
    pub entries: Vec<String>,
    /// The most bytes relayed from upstream over all connections.
    pub download_cap: Option<u64>,
}

impl EgressRules {
    /// Whether `host:port` (host lowercase) may be asked for.
    pub(super) fn admits(&self, host: &str, port: u16) -> bool {
        self.destinations
            .iter()
            .any(|(h, p)| h == host && *p == port)
            || self
                .entries
                .iter()
                .any(|entry| entry_admits(entry, host, port))
    }
}

/// Whether one allow-list entry admits `host:port`.
fn entry_admits(entry: &str, host: &str, port: u16) -> bool {
    let entry = entry.to_ascii_lowercase();
    if let Ok(net) = entry.parse::<ipnet::IpNet>() {
        return matches!(port, 80 | 443)
            && host
                .parse::<IpAddr>()
                .is_ok_and(|ip| net.contains(&canonical(ip)));
    }
    let (pattern, ports) = match entry.rsplit_once(':') {
        Some((pattern, p)) if !pattern.contains(':') => match p.parse::<u16>() {
            Ok(p) => (pattern.to_owned(), vec![p]),
            Err(_) => return false,
        },
        _ => (entry.clone(), vec![80, 443]),
    };
    if !ports.contains(&port) {
        return false;
    }
    match pattern.strip_prefix("*.") {
        Some(domain) => host.len() > domain.len() + 1 && host.ends_with(&format!(".{domain}")),
        None => pattern == host,
    }
}
