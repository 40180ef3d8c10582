//! A visitor's IP for the public limits (`publishing.md` rule 6): the TCP
//! peer, or, when the peer is a trusted proxy (`CONFER_TRUSTED_PROXIES`),
//! the rightmost `X-Forwarded-For` address outside the trusted ranges. A
//! header from anyone else is ignored, so a visitor cannot pick its own IP.
//! IPv6 addresses count per /64 (one subscriber's usual allocation).

use std::net::{IpAddr, Ipv6Addr};

use ipnet::IpNet;

/// What one IP limit counts: an IPv4 address or an IPv6 /64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IpKey(IpAddr);

impl IpKey {
    /// The key of `ip` (IPv4-mapped IPv6 counts as its IPv4 address).
    pub fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let s = v6.segments();
                Self(IpAddr::V6(Ipv6Addr::new(
                    s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                )))
            }
            v4 => Self(v4),
        }
    }

    /// The address it counts (an IPv6 /64's first address).
    pub fn addr(self) -> IpAddr {
        self.0
    }
}

/// The trusted proxies' ranges.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses comma-separated CIDRs (a bare address is a /32 or /128); the
    /// error names the entry.
    pub fn parse(text: &str) -> Result<Self, String> {
        text.split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("trusted_proxies: `{entry}` is not a CIDR or an address"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client of a request from `peer` carrying `forwarded_for` (every
    /// `X-Forwarded-For` value, in order).
    pub fn client(&self, peer: IpAddr, forwarded_for: &[&str]) -> IpKey {
        if !self.trusts(peer) {
            return IpKey::of(peer);
        }
        let hops: Vec<IpAddr> = forwarded_for
            .iter()
            .flat_map(|value| value.split(','))
            .filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
            .collect();
        // The rightmost hop outside the trusted ranges; all trusted: the
        // leftmost (the furthest the chain tells of).
        let client = hops
            .iter()
            .rev()
            .find(|hop| !self.trusts(**hop))
            .or(hops.first())
            .copied()
            .unwrap_or(peer);
        IpKey::of(client)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_peer() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.168.1.1").unwrap();
        let forwarded = ["203.0.113.9, 10.1.1.1"];
        assert_eq!(
            proxies.client(ip("10.2.3.4"), &forwarded),
            IpKey::of(ip("203.0.113.9"))
        );
        assert_eq!(
            proxies.client(ip("198.51.100.7"), &forwarded),
            IpKey::of(ip("198.51.100.7"))
        );
        // A spoofed leftmost entry does not win over the real rightmost one.
        let spoofed = ["1.1.1.1", "203.0.113.9"];
        assert_eq!(
            proxies.client(ip("192.168.1.1"), &spoofed),
            IpKey::of(ip("203.0.113.9"))
        );
        assert_eq!(
            proxies.client(ip("10.2.3.4"), &[]),
            IpKey::of(ip("10.2.3.4"))
        );
        assert_eq!(
            TrustedProxies::default().client(ip("10.2.3.4"), &forwarded),
            IpKey::of(ip("10.2.3.4"))
        );
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(
            TrustedProxies::parse("nonsense")
                .unwrap_err()
                .contains("nonsense")
        );
    }

    #[test]
    fn ipv6_counts_per_64() {
        assert_eq!(
            IpKey::of(ip("2001:db8:1:2::1")),
            IpKey::of(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            IpKey::of(ip("2001:db8:1:2::1")),
            IpKey::of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(IpKey::of(ip("::ffff:1.2.3.4")), IpKey::of(ip("1.2.3.4")));
    }
}
