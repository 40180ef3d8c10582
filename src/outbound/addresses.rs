//! Which addresses an outbound call may reach: canonicalisation of the
//! IPv6 forms that carry an IPv4 address, the special-purpose ranges that
//! are refused, and the resolver that hands only public addresses to the
//! connector (the check runs after DNS, on the address connected to).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The address a packet to `ip` really reaches: the IPv4 address carried by
/// an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
/// IPv4-compatible, NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) or 6to4
/// (`2002::/16`) address; any other address as is.
pub fn canonical(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else { return ip };
    let s = v6.segments();
    let o = v6.octets();
    let v4 = |a: u8, b: u8, c: u8, d: u8| IpAddr::V4(Ipv4Addr::new(a, b, c, d));
    if let Some(mapped) = v6.to_ipv4_mapped() {
        return IpAddr::V4(mapped);
    }
    // The IPv4 address in the last 32 bits: IPv4-compatible ::a.b.c.d
    // (deprecated; not :: and ::1), NAT64 64:ff9b::/96 and 64:ff9b:1::/48.
    let compatible = s[..6] == [0; 6] && (s[6] != 0 || s[7] > 1);
    let translated = s[..6] == [0, 0, 0, 0, 0xffff, 0];
    let nat64 =
        s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1);
    if compatible || translated || nat64 {
        return v4(o[12], o[13], o[14], o[15]);
    }
    if s[0] == 0x2002 {
        return v4(o[2], o[3], o[4], o[5]);
    }
    ip
}

/// Whether `ip` (canonicalised first) is globally routable: not in any of
/// the IANA special-purpose ranges the policy refuses.
pub fn is_global(ip: IpAddr) -> bool {
    match canonical(ip) {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => is_global_v6(v6),
    }
}

fn is_global_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0                                   // 0.0.0.0/8 "this network"
        || a == 10                                         // RFC 1918
        || a == 127                                        // loopback
        || (a == 100 && (64..128).contains(&b))            // 100.64.0.0/10 shared (CGN)
        || (a == 169 && b == 254)                          // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))             // RFC 1918
        || (a == 192 && b == 0 && c == 0)                  // 192.0.0.0/24 IETF protocol
        || (a == 192 && b == 0 && c == 2)                  // TEST-NET-1
        || (a == 192 && b == 88 && c == 99)                // 6to4 relay anycast
        || (a == 192 && b == 168)                          // RFC 1918
        || (a == 198 && (b == 18 || b == 19))              // 198.18.0.0/15 benchmarking
        || (a == 198 && b == 51 && c == 100)               // TEST-NET-2
        || (a == 203 && b == 0 && c == 113)                // TEST-NET-3
        || a >= 224; // multicast 224/4, reserved 240/4, broadcast
    !refused
}

/// Only global unicast (`2000::/3`) is reached, less its special-purpose
/// parts: everything outside it (loopback, unique local, link-local,
/// multicast, discard, SRv6, the unassigned rest) is refused whole, so a
/// range assigned later is refused until it is known.
fn is_global_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let global_unicast = (s[0] & 0xe000) == 0x2000;
    // 2001:db8::/32 documentation, 2001::/23 IETF protocol (Teredo…).
    let refused =
        (s[0] == 0x2001 && (s[1] == 0x0db8 || s[1] < 0x0200)) || (s[0] == 0x3fff && s[1] < 0x1000); // 3fff::/20 documentation
    global_unicast && !refused
}

/// An address the resolver would not hand to the connector.
#[derive(Debug)]
pub(super) struct AddressRefused(String);

impl fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} resolves only to non-public addresses", self.0)
    }
}

impl std::error::Error for AddressRefused {}

/// The resolver of the strict client: system resolution, then only the
/// globally routable addresses go to the connector.
pub(super) struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let public: Vec<SocketAddr> = found
                .filter(|addr| is_global(addr.ip()))
                .map(|addr| SocketAddr::new(canonical(addr.ip()), addr.port()))
                .collect();
            if public.is_empty() {
                return Err(
                    Box::new(AddressRefused(host)) as Box<dyn std::error::Error + Send + Sync>
                );
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn special_purpose_ranges_are_refused() {
        for refused in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "192.0.0.8",
            "198.18.0.1",
            "198.19.255.255",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            // Carriers of refused IPv4 addresses.
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:c0a8:0101::1",
            // IPv4-translated (SIIT) forms are checked as IPv4.
            "::ffff:0:127.0.0.1",
            "::ffff:0:a9fe:a9fe",
            // Outside 2000::/3: refused whatever its assignment.
            "100::1",
            "5f00::1",
            "4000::1",
            "1234::1",
            "e000::1",
            "2001:db8::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "3fff::1",
        ] {
            assert!(!is_global(ip(refused)), "{refused} must be refused");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:1.1.1.1",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "::ffff:0:8.8.8.8",
            "2a00:1450:4001:81b::200e",
            "3ffe::1",
        ] {
            assert!(is_global(ip(public)), "{public} is public");
        }
    }

    #[tokio::test]
    async fn the_strict_resolver_drops_private_addresses() {
        let refused = PublicOnly.resolve("localhost".parse().unwrap()).await;
        let error = refused.err().expect("localhost is refused").to_string();
        assert!(error.contains("non-public"), "{error}");
    }
}
