//! The signature of a forwarded request (`scale.md` §4): the entry node
//! adds `X-Confer-Forwarded: {node id}.{unix s}.{epoch}` (then a space and
//! a public chat visitor's IP, when the request is a visitor's) and
//! `X-Confer-Cluster-Auth`, the hex HMAC-SHA256 of
//! `"{X-Confer-Forwarded}.{METHOD} {path?query}"` under the cluster key
//! (HKDF-SHA256 of the secret key, info `confer-cluster`). The owner
//! accepts it for 60 s either side of its own clock.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::NodeId;
use crate::secrets::SecretBox;

/// The header naming the entry node, when and under which epoch.
pub const FORWARDED: &str = "x-confer-forwarded";
/// The header carrying the signature.
pub const CLUSTER_AUTH: &str = "x-confer-cluster-auth";
/// How far a forwarded request's time may be from the owner's.
pub const WINDOW_SECS: i64 = 60;

/// The key nodes sign with; never leaves the process.
#[derive(Clone)]
pub struct ClusterKey([u8; 32]);

impl std::fmt::Debug for ClusterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterKey(<redacted>)")
    }
}

impl ClusterKey {
    /// Derived from the node's secret key, the same on every node.
    pub fn of(secrets: &SecretBox) -> Self {
        Self(secrets.derive(b"confer-cluster"))
    }

    /// The same key, from the store's secret key.
    pub fn of_store(store: &crate::store::Store) -> Self {
        Self(store.derive_key(b"confer-cluster"))
    }

    fn mac(&self, forwarded: &str, method: &str, path_and_query: &str) -> Hmac<Sha256> {
        let mut mac = crate::secrets::keyed_mac(&self.0);
        mac.update(forwarded.as_bytes());
        mac.update(b".");
        mac.update(method.as_bytes());
        mac.update(b" ");
        mac.update(path_and_query.as_bytes());
        mac
    }

    /// `X-Confer-Cluster-Auth` for a request.
    pub fn sign(&self, forwarded: &Forwarded, method: &str, path_and_query: &str) -> String {
        hex::encode(
            self.mac(&forwarded.header(), method, path_and_query)
                .finalize()
                .into_bytes(),
        )
    }

    /// The forwarded request's origin, if its signature holds and its time
    /// is within [`WINDOW_SECS`] of `now_unix`.
    pub fn verify(
        &self,
        forwarded: &str,
        signature: &str,
        method: &str,
        path_and_query: &str,
        now_unix: i64,
    ) -> Result<Forwarded, ForwardRefused> {
        let parsed = Forwarded::parse(forwarded).ok_or(ForwardRefused::Malformed)?;
        let tag = hex::decode(signature).map_err(|_| ForwardRefused::Malformed)?;
        self.mac(forwarded, method, path_and_query)
            .verify_slice(&tag)
            .map_err(|_| ForwardRefused::BadSignature)?;
        if (now_unix - parsed.at).abs() > WINDOW_SECS {
            return Err(ForwardRefused::Expired);
        }
        Ok(parsed)
    }
}

/// Why a forwarded request is refused (401).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ForwardRefused {
    #[error("the forwarding headers are malformed")]
    Malformed,
    #[error("the cluster signature does not verify")]
    BadSignature,
    #[error("the forwarded request is older than 60 s (or from the future)")]
    Expired,
}

/// `X-Confer-Forwarded`'s parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forwarded {
    pub node: NodeId,
    /// Unix seconds when it was sent.
    pub at: i64,
    /// The epoch of the thread's shard the entry node saw.
    pub epoch: i64,
    /// A public chat visitor's IP as the entry node saw it (its limits
    /// count it, not the entry node's address), after a space.
    pub client: Option<std::net::IpAddr>,
}

impl Forwarded {
    /// The header's value.
    pub fn header(&self) -> String {
        let head = format!("{}.{}.{}", self.node, self.at, self.epoch);
        match self.client {
            Some(ip) => format!("{head} {ip}"),
            None => head,
        }
    }

    /// Parses a header's value.
    pub fn parse(value: &str) -> Option<Self> {
        let (head, client) = match value.split_once(' ') {
            Some((head, ip)) => (head, Some(ip.parse().ok()?)),
            None => (value, None),
        };
        let mut parts = head.split('.');
        let node = parts.next()?.parse().ok()?;
        let at = parts.next()?.parse().ok()?;
        let epoch = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(Self {
            node: NodeId(node),
            at,
            epoch,
            client,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::SecretString;

    fn key(byte: u8) -> ClusterKey {
        use base64::Engine as _;
        let text = base64::engine::general_purpose::STANDARD.encode([byte; 32]);
        let dir = tempfile::tempdir().unwrap();
        let secrets =
            SecretBox::load(Some(&SecretString::from(text)), None, None, dir.path()).unwrap();
        ClusterKey::of(&secrets)
    }

    fn forwarded(at: i64) -> Forwarded {
        Forwarded {
            node: NodeId::fresh(),
            at,
            epoch: 7,
            client: None,
        }
    }

    #[test]
    fn a_signed_request_verifies_on_another_node_with_the_same_key() {
        let f = forwarded(1_000);
        let tag = key(1).sign(&f, "POST", "/api/threads/t/messages?x=1");
        let verified = key(1)
            .verify(
                &f.header(),
                &tag,
                "POST",
                "/api/threads/t/messages?x=1",
                1_030,
            )
            .unwrap();
        assert_eq!(verified, f);
    }

    #[test]
    fn another_key_method_path_or_origin_does_not_verify() {
        let f = forwarded(1_000);
        let tag = key(1).sign(&f, "POST", "/a?b");
        let header = f.header();
        let refused = Err(ForwardRefused::BadSignature);
        assert_eq!(key(2).verify(&header, &tag, "POST", "/a?b", 1_000), refused);
        assert_eq!(key(1).verify(&header, &tag, "GET", "/a?b", 1_000), refused);
        assert_eq!(key(1).verify(&header, &tag, "POST", "/a?c", 1_000), refused);
        let other = Forwarded { epoch: 8, ..f };
        assert_eq!(
            key(1).verify(&other.header(), &tag, "POST", "/a?b", 1_000),
            refused
        );
    }

    #[test]
    fn a_visitors_ip_is_carried_under_the_signature() {
        let f = Forwarded {
            client: Some("203.0.113.9".parse().unwrap()),
            ..forwarded(1_000)
        };
        let tag = key(1).sign(&f, "POST", "/p");
        let verified = key(1).verify(&f.header(), &tag, "POST", "/p", 1_000);
        assert_eq!(verified, Ok(f));
        let moved = Forwarded {
            client: Some("198.51.100.1".parse().unwrap()),
            ..f
        };
        let refused = key(1).verify(&moved.header(), &tag, "POST", "/p", 1_000);
        assert_eq!(refused, Err(ForwardRefused::BadSignature));
        let v6 = Forwarded {
            client: Some("2001:db8::1".parse().unwrap()),
            ..f
        };
        assert_eq!(Forwarded::parse(&v6.header()), Some(v6));
    }

    #[test]
    fn a_request_outside_sixty_seconds_is_refused() {
        let f = forwarded(1_000);
        let tag = key(1).sign(&f, "GET", "/x");
        assert!(key(1).verify(&f.header(), &tag, "GET", "/x", 1_060).is_ok());
        assert!(key(1).verify(&f.header(), &tag, "GET", "/x", 940).is_ok());
        let expired = Err(ForwardRefused::Expired);
        assert_eq!(
            key(1).verify(&f.header(), &tag, "GET", "/x", 1_061),
            expired
        );
        assert_eq!(key(1).verify(&f.header(), &tag, "GET", "/x", 939), expired);
    }

    #[test]
    fn malformed_headers_are_refused_and_the_key_is_never_printed() {
        let k = key(3);
        assert_eq!(
            k.verify("nope", "00", "GET", "/", 0),
            Err(ForwardRefused::Malformed)
        );
        let f = forwarded(5);
        assert_eq!(
            k.verify(&f.header(), "zz", "GET", "/", 5),
            Err(ForwardRefused::Malformed)
        );
        assert_eq!(format!("{k:?}"), "ClusterKey(<redacted>)");
    }
}
