//! Allowed embed domains (`publishing.md` "Org settings"): the grammar of
//! an entry, its stored form (lowercase, punycode, no trailing `/`), and
//! whether one entry covers another. The stored form goes into the
//! `frame-ancestors` directive of the chat page's CSP, so nothing outside
//! the grammar (`;`, `,`, quotes, spaces) can reach that header.

use std::fmt;

use crate::error::ApiError;

/// At most this many entries in one list.
pub const MAX_ENTRIES: usize = 100;

/// One allowed origin: `https://host[:port]`, `https://*.host[:port]`, or
/// `http://` on a loopback name or address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EmbedOrigin {
    secure: bool,
    /// `*.` before `host`: every subdomain of it, not the host itself.
    wildcard: bool,
    /// Lowercase punycode, or an IP address (IPv6 without brackets).
    host: String,
    port: Option<u16>,
}

impl EmbedOrigin {
    /// Parses one entry; the error says which rule it breaks.
    pub fn parse(raw: &str) -> Result<Self, &'static str> {
        let lower = raw.to_ascii_lowercase();
        let (secure, rest) = if let Some(rest) = lower.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = lower.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err("must start with https:// (http:// only for localhost)");
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#', '@', '\\']) {
            return Err("an origin only: no path, query, fragment or userinfo");
        }
        if rest
            .chars()
            .any(|c| c.is_ascii() && !(c.is_ascii_alphanumeric() || ".-:*[]".contains(c)))
        {
            return Err("has a character an origin cannot have");
        }
        let (wildcard, rest) = match rest.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        if rest.contains('*') {
            return Err("a wildcard is a whole first label only (`*.example.com`)");
        }
        let (host, port) = split_port(rest)?;
        let parsed = url::Host::parse(host).map_err(|_| "has no valid host")?;
        let host = match &parsed {
            url::Host::Domain(domain) => domain.clone(),
            url::Host::Ipv4(ip) => ip.to_string(),
            url::Host::Ipv6(ip) => ip.to_string(),
        };
        let is_ip = !matches!(parsed, url::Host::Domain(_));
        if host.is_empty() || host.split('.').any(str::is_empty) {
            return Err("has no valid host");
        }
        if wildcard && is_ip {
            return Err("a wildcard needs a domain name, not an address");
        }
        if secure {
            if wildcard && host.split('.').count() < 2 {
                return Err("a wildcard needs at least two labels after it (`*.example.com`)");
            }
        } else {
            let loopback = host == "localhost"
                || host.ends_with(".localhost")
                || (!wildcard && (host == "127.0.0.1" || host == "::1"));
            if !loopback {
                return Err("http:// is only for localhost, *.localhost, 127.0.0.1 and [::1]");
            }
        }
        Ok(Self {
            secure,
            wildcard,
            host,
            port,
        })
    }

    /// Whether a frame on `other` is one this entry allows: same scheme and
    /// port, and the same host, or (`*.h`) a host under `h`.
    pub fn covers(&self, other: &Self) -> bool {
        if self.secure != other.secure || self.port != other.port {
            return false;
        }
        if !self.wildcard {
            return !other.wildcard && self.host == other.host;
        }
        let under = other
            .host
            .strip_suffix(self.host.as_str())
            .is_some_and(|head| head.ends_with('.'));
        under || (other.wildcard && other.host == self.host)
    }
}

impl fmt::Display for EmbedOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.secure { "https://" } else { "http://" })?;
        if self.wildcard {
            f.write_str("*.")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]", self.host)?;
        } else {
            f.write_str(&self.host)?;
        }
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

/// Splits `host[:port]` (`[v6][:port]` for IPv6).
fn split_port(rest: &str) -> Result<(&str, Option<u16>), &'static str> {
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or("has an unclosed `[`")?;
        let port = match after {
            "" => None,
            after => Some(after.strip_prefix(':').ok_or("has text after its host")?),
        };
        // `url::Host::parse` wants IPv6 in brackets.
        return Ok((&rest[..host.len() + 2], parse_port(port)?));
    } else {
        match rest.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        }
    };
    Ok((host, parse_port(port)?))
}

fn parse_port(port: Option<&str>) -> Result<Option<u16>, &'static str> {
    match port {
        None => Ok(None),
        Some(port) => match port.parse::<u16>() {
            Ok(n) if n > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(n)),
            _ => Err("has a port that is not 1 to 65535"),
        },
    }
}

/// Parses a list (`field` names it in errors, with the entry's index):
/// at most [`MAX_ENTRIES`], duplicates (after normalizing) dropped.
pub fn parse_list(field: &str, raw: &[String]) -> Result<Vec<EmbedOrigin>, ApiError> {
    if raw.len() > MAX_ENTRIES {
        return Err(ApiError::invalid(
            field,
            format!("at most {MAX_ENTRIES} entries"),
        ));
    }
    let mut list: Vec<EmbedOrigin> = Vec::with_capacity(raw.len());
    for (i, entry) in raw.iter().enumerate() {
        let origin = EmbedOrigin::parse(entry)
            .map_err(|why| ApiError::invalid(&format!("{field}[{i}]"), why))?;
        if !list.contains(&origin) {
            list.push(origin);
        }
    }
    Ok(list)
}

/// [`parse_list`], each entry covered by one of `org` (else 422
/// `field[i]`): the stored forms.
pub fn parse_covered(
    field: &str,
    raw: &[String],
    org: &[EmbedOrigin],
) -> Result<Vec<String>, ApiError> {
    let parsed = parse_list(field, raw)?;
    if let Some(i) = parsed
        .iter()
        .position(|entry| !org.iter().any(|o| o.covers(entry)))
    {
        return Err(ApiError::invalid(
            &format!("{field}[{i}]"),
            "not covered by the org's allowedEmbedDomains",
        ));
    }
    Ok(parsed.iter().map(ToString::to_string).collect())
}

/// The entries of `own` some entry of `org` covers (`own` absent: the org's
/// list): what a publication's page may be framed by.
pub fn effective(own: Option<&[EmbedOrigin]>, org: &[EmbedOrigin]) -> Vec<EmbedOrigin> {
    match own {
        None => org.to_vec(),
        Some(own) => own
            .iter()
            .filter(|entry| org.iter().any(|o| o.covers(entry)))
            .cloned()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(raw: &str) -> String {
        EmbedOrigin::parse(raw).unwrap().to_string()
    }

    #[test]
    fn entries_are_stored_in_one_form() {
        assert_eq!(
            stored("HTTPS://Shop.Example.com/"),
            "https://shop.example.com"
        );
        assert_eq!(
            stored("https://*.example.com:8443"),
            "https://*.example.com:8443"
        );
        assert_eq!(stored("https://bücher.de"), "https://xn--bcher-kva.de");
        assert_eq!(stored("http://localhost:3000"), "http://localhost:3000");
        assert_eq!(
            stored("http://allowed.localhost:9"),
            "http://allowed.localhost:9"
        );
        assert_eq!(stored("http://*.localhost"), "http://*.localhost");
        assert_eq!(stored("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(stored("http://[::1]:8080"), "http://[::1]:8080");
    }

    #[test]
    fn anything_outside_the_grammar_is_refused() {
        for raw in [
            "example.com",
            "https://example.com/path",
            "https://example.com?q=1",
            "https://user@example.com",
            "*",
            "https://*",
            "https://*.com",
            "https://a.*.example.com",
            "https://*.127.0.0.1",
            "http://example.com",
            "http://10.0.0.1",
            "https://example.com; script-src *",
            "https://exa mple.com",
            "https://'self'",
            "https://example.com:0",
            "https://example.com:99999",
            "https://example.com,https://b.com",
            "ftp://example.com",
        ] {
            assert!(EmbedOrigin::parse(raw).is_err(), "{raw}");
        }
        let error = parse_list("allowedEmbedDomains", &["https://a.com".into(), "*".into()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("allowedEmbedDomains[1]"), "{error}");
        let many = vec!["https://a.com".to_owned(); MAX_ENTRIES + 1];
        assert!(parse_list("x", &many).is_err());
        let twice = parse_list("x", &["https://A.com".into(), "https://a.com/".into()]).unwrap();
        assert_eq!(twice.len(), 1);
    }

    #[test]
    fn a_wildcard_covers_subdomains_not_its_host() {
        let org = parse_list(
            "x",
            &["https://*.example.com".into(), "https://shop.test".into()],
        )
        .unwrap();
        let own = parse_list(
            "x",
            &[
                "https://a.example.com".into(),
                "https://*.b.example.com".into(),
                "https://example.com".into(),
                "https://a.example.com:444".into(),
                "http://a.example.com.evil.localhost".into(),
                "https://shop.test".into(),
                "https://www.shop.test".into(),
            ],
        )
        .unwrap();
        let allowed: Vec<String> = effective(Some(&own), &org)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            allowed,
            [
                "https://a.example.com",
                "https://*.b.example.com",
                "https://shop.test"
            ]
        );
        assert_eq!(effective(None, &org), org);
        assert!(effective(Some(&own), &[]).is_empty());
    }
}
