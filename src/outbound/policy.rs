//! The operator's outbound rules: the `CONFER_OUTBOUND_ALLOW` list, the
//! one proxy, and the configuration-time check of a URL's shape (names are
//! not resolved then; the call checks the resolved addresses).

use std::net::IpAddr;

use url::{Host, Url};

use super::addresses::is_global;

/// One `CONFER_OUTBOUND_ALLOW` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AllowEntry {
    /// Lower-case host, without the `*.` of a wildcard.
    host: String,
    /// `*.host`: any subdomain of `host` (not `host` itself).
    wildcard: bool,
    /// `None`: every port.
    port: Option<u16>,
}

impl AllowEntry {
    fn parse(raw: &str) -> Result<Self, String> {
        let raw = raw.trim().to_ascii_lowercase();
        let (wildcard, rest) = match raw.strip_prefix("*.") {
            Some(rest) => (true, rest.to_owned()),
            None => (false, raw.clone()),
        };
        // `[v6]:port`, `[v6]`, `host:port`, `host`.
        let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
            let (host, tail) = inner
                .split_once(']')
                .ok_or_else(|| format!("outbound_allow: `{raw}`: unclosed `[`"))?;
            (host.to_owned(), tail.strip_prefix(':'))
        } else {
            match rest.rsplit_once(':') {
                Some((host, port)) if !host.contains(':') => (host.to_owned(), Some(port)),
                _ => (rest.clone(), None),
            }
        };
        let port = port
            .map(|p| {
                p.parse::<u16>()
                    .map_err(|_| format!("outbound_allow: `{raw}`: bad port"))
            })
            .transpose()?;
        if host.is_empty() || host.contains('*') || host.contains('/') {
            return Err(format!("outbound_allow: `{raw}`: expected host[:port]"));
        }
        Ok(Self {
            host,
            wildcard,
            port,
        })
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        let host_ok = if self.wildcard {
            host.strip_suffix(&self.host)
                .is_some_and(|head| head.ends_with('.') && head.len() > 1)
        } else {
            host == self.host
        };
        host_ok && self.port.is_none_or(|p| p == port)
    }
}

/// The operator's outbound rules.
#[derive(Clone, Debug, Default)]
pub struct OutboundPolicy {
    allow: Vec<AllowEntry>,
    proxy: Option<Url>,
}

/// A URL the policy accepted, with whether its host is allow-listed.
#[derive(Clone, Debug)]
pub struct CheckedUrl {
    pub url: Url,
    pub allow_listed: bool,
}

impl OutboundPolicy {
    /// Parses `CONFER_OUTBOUND_ALLOW` and `CONFER_OUTBOUND_PROXY`.
    pub fn new(allow: &str, proxy: Option<&str>) -> Result<Self, String> {
        let allow = allow
            .split(',')
            .filter(|entry| !entry.trim().is_empty())
            .map(AllowEntry::parse)
            .collect::<Result<Vec<_>, _>>()?;
        let mut policy = Self { allow, proxy: None };
        if let Some(proxy) = proxy {
            let url = Url::parse(proxy).map_err(|_| "outbound_proxy: not a URL".to_owned())?;
            let host = host_text(&url).ok_or("outbound_proxy: no host")?;
            let port = url.port_or_known_default().unwrap_or(0);
            if !policy.allows(&host, port) {
                return Err("outbound_proxy: its host must be in outbound_allow".into());
            }
            policy.proxy = Some(url);
        }
        Ok(policy)
    }

    /// The one proxy of outbound calls, if configured.
    pub fn proxy(&self) -> Option<&Url> {
        self.proxy.as_ref()
    }

    /// Whether `host:port` is allow-listed.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.allow.iter().any(|entry| entry.matches(&host, port))
    }

    /// The configuration-time check (no name resolution): absolute, https
    /// unless allow-listed, no userinfo, and no literal address in a refused
    /// range unless allow-listed. The error says why.
    pub fn check_url(&self, raw: &str) -> Result<CheckedUrl, String> {
        let url = Url::parse(raw.trim()).map_err(|_| "must be an absolute URL".to_owned())?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err("must be an https URL".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("must not carry a user name or password".into());
        }
        let host = host_text(&url).ok_or("must name a host")?;
        let port = url.port_or_known_default().unwrap_or(0);
        let allow_listed = self.allows(&host, port);
        if allow_listed {
            return Ok(CheckedUrl { url, allow_listed });
        }
        if url.scheme() != "https" {
            return Err(format!(
                "must be https (plain http only for hosts in CONFER_OUTBOUND_ALLOW; `{host}` is not)"
            ));
        }
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(ip) = literal
            && !is_global(ip)
        {
            return Err(format!(
                "`{ip}` is not a public address (allow it with CONFER_OUTBOUND_ALLOW)"
            ));
        }
        Ok(CheckedUrl { url, allow_listed })
    }
}

/// The host of `url` as the allow-list spells it (IPv6 without brackets).
fn host_text(url: &Url) -> Option<String> {
    match url.host()? {
        Host::Domain(name) => Some(name.trim_end_matches('.').to_ascii_lowercase()),
        Host::Ipv4(ip) => Some(ip.to_string()),
        Host::Ipv6(ip) => Some(ip.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_entries_match_host_and_port() {
        let policy = OutboundPolicy::new(
            "resolver.internal:8443, *.corp.example ,127.0.0.1,[::1]:9",
            None,
        )
        .unwrap();
        assert!(policy.allows("resolver.internal", 8443));
        assert!(!policy.allows("resolver.internal", 443));
        assert!(policy.allows("a.corp.example", 1));
        assert!(policy.allows("A.B.Corp.Example.", 1));
        assert!(!policy.allows("corp.example", 443));
        assert!(!policy.allows("evilcorp.example", 443));
        assert!(policy.allows("127.0.0.1", 5000));
        assert!(policy.allows("::1", 9));
        assert!(!policy.allows("::1", 10));
        assert!(OutboundPolicy::new("bad host/", None).is_err());
        assert!(OutboundPolicy::new("h:99999", None).is_err());
        assert!(OutboundPolicy::new("", Some("http://proxy:3128")).is_err());
        assert!(OutboundPolicy::new("proxy:3128", Some("http://proxy:3128")).is_ok());
    }

    #[test]
    fn configuration_time_checks_the_shape_only() {
        let policy = OutboundPolicy::new("127.0.0.1", None).unwrap();
        assert!(policy.check_url("https://resolver.example/k").is_ok());
        // A name is not resolved at configuration time (the call checks it).
        assert!(policy.check_url("https://internal.corp/k").is_ok());
        assert!(policy.check_url("https://localhost:8443/k").is_ok());
        for (url, why) in [
            ("http://resolver.example/k", "https"),
            ("https://user:pw@resolver.example/k", "user name"),
            ("https://10.0.0.1/k", "not a public address"),
            ("https://[::ffff:a9fe:a9fe]/k", "not a public address"),
            ("/relative", "absolute"),
            ("ftp://resolver.example/", "https"),
        ] {
            let error = policy.check_url(url).unwrap_err();
            assert!(error.contains(why), "{url}: {error}");
        }
        let allowed = policy.check_url("http://127.0.0.1:9000/k").unwrap();
        assert!(allowed.allow_listed);
    }
}
