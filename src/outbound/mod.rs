//! The outbound policy: the one HTTP client builder for every call Confer
//! makes on a tenant's behalf (credential resolvers, webhook tools, MCP
//! servers; OAuth later). Model vendors are configured by the operator and
//! use their own client (`providers::vendor`).
//!
//! The rules (security.md "Outbound calls"):
//! - https only, except hosts in `CONFER_OUTBOUND_ALLOW`, which may also be
//!   http and resolve to private addresses;
//! - every address is canonicalised (IPv4-mapped, IPv4-compatible, NAT64,
//!   6to4 carry an IPv4 address) and refused unless globally routable, and
//!   the check runs **after** DNS resolution, in the client's resolver, so the
//!   connection goes to the address that was checked (no rebinding window);
//! - the proxy variables of the environment are ignored (a proxy would
//!   resolve names where the check cannot see them); `CONFER_OUTBOUND_PROXY`
//!   is the one proxy, and must be allow-listed;
//! - redirects are not followed, bodies are read up to a cap, connect takes
//!   at most 5 s and each call has its own overall timeout.
//!
//! At configuration time only the URL's shape is checked ([`OutboundPolicy::check_url`]):
//! names are not resolved then.
//!
//! Parts: `policy` (the allow-list and the URL check), `addresses`
//! (canonicalisation, refused ranges, the public-only resolver), and here
//! the clients and the capped body read.

mod addresses;
pub mod egress;
pub mod git;
mod git_output;
mod policy;
pub mod tls;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};

use self::addresses::{AddressRefused, PublicOnly};
pub use self::addresses::{canonical, is_global};
pub use self::policy::{CheckedUrl, OutboundPolicy};

/// Connect timeout of every outbound call.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Body cap of a credential resolver's answer.
pub const RESOLVER_BODY_CAP: usize = 64 * 1024;

/// Why an outbound call did not happen or failed. Its text never carries the
/// URL's query string or a body.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    /// The policy refuses the destination.
    #[error("refused by the outbound policy: {0}")]
    Refused(String),
    /// The call failed in transport (connect, TLS, reset).
    #[error("{0}")]
    Transport(String),
    /// The call's time ran out.
    #[error("timed out")]
    TimedOut,
    /// The answer's body was larger than its cap.
    #[error("answer larger than {0} bytes")]
    TooLarge(usize),
}

impl OutboundError {
    pub(crate) fn transport(error: &reqwest::Error) -> Self {
        if error.is_timeout() {
            return Self::TimedOut;
        }
        // An address the policy refuses once resolved surfaces as a connect
        // error; it is a refusal.
        if let Some(refused) = std::error::Error::source(error).and_then(find_refusal) {
            return Self::Refused(refused);
        }
        let kind = if error.is_connect() {
            "connection failed"
        } else {
            "transport error"
        };
        Self::Transport(kind.to_owned())
    }
}

fn find_refusal(mut error: &(dyn std::error::Error + 'static)) -> Option<String> {
    loop {
        if let Some(refused) = error.downcast_ref::<AddressRefused>() {
            return Some(refused.to_string());
        }
        error = error.source()?;
    }
}

/// `builder` trusting the CAs of `pem` as well as the system's (verification
/// is never turned off), on the process's one parsed root store
/// ([`tls`]). Shared with the vendors' client.
pub fn with_extra_cas(
    builder: reqwest::ClientBuilder,
    pem: Option<&[u8]>,
) -> anyhow::Result<reqwest::ClientBuilder> {
    Ok(builder.tls_backend_preconfigured(tls::client_config(pem)?))
}

/// The command line's client to the operator's own Confer (`--url`): no
/// tenant policy, since the operator names the server, but certificates are
/// verified (extra CAs from `extra_ca_pem`) and redirects not followed.
pub fn operator_client(extra_ca_pem: Option<&[u8]>) -> anyhow::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(10));
    Ok(with_extra_cas(builder, extra_ca_pem)?.build()?)
}

/// The outbound client pair and its policy. Allow-listed destinations use a
/// client whose resolver does not filter; every other one the strict client.
#[derive(Clone)]
pub struct Outbound {
    policy: Arc<OutboundPolicy>,
    strict: reqwest::Client,
    trusted: reqwest::Client,
}

impl fmt::Debug for Outbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbound")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Outbound {
    /// Builds the clients; `extra_ca_pem` adds trusted roots (verification is
    /// never turned off).
    pub fn new(policy: OutboundPolicy, extra_ca_pem: Option<&[u8]>) -> anyhow::Result<Self> {
        let build = |public_only: bool| -> anyhow::Result<reqwest::Client> {
            let mut builder = reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(CONNECT_TIMEOUT)
                .pool_idle_timeout(Duration::from_secs(30))
                .tcp_nodelay(true);
            if public_only {
                builder = builder.dns_resolver(Arc::new(PublicOnly));
            }
            if let Some(proxy) = policy.proxy() {
                builder = builder.proxy(reqwest::Proxy::all(proxy.as_str())?);
            }
            Ok(with_extra_cas(builder, extra_ca_pem)?.build()?)
        };
        Ok(Self {
            strict: build(true)?,
            trusted: build(false)?,
            policy: Arc::new(policy),
        })
    }

    /// The policy, for configuration-time checks.
    pub fn policy(&self) -> &OutboundPolicy {
        &self.policy
    }

    /// A request to `url` if the policy allows it, on the client that fits.
    pub fn request(
        &self,
        method: reqwest::Method,
        url: &str,
    ) -> Result<reqwest::RequestBuilder, OutboundError> {
        let checked = self.policy.check_url(url).map_err(OutboundError::Refused)?;
        let client = if checked.allow_listed {
            &self.trusted
        } else {
            &self.strict
        };
        Ok(client.request(method, checked.url))
    }

    /// One of the two clients: `trusted` resolves to any address (for a
    /// destination the caller checked against its own stricter rule, as
    /// `web_fetch` does), else only to global ones. The caller checks
    /// literal addresses itself.
    pub fn client(&self, trusted: bool) -> &reqwest::Client {
        if trusted { &self.trusted } else { &self.strict }
    }

    /// The client for `url` if the policy allows it, with the checked URL:
    /// for libraries that make their own requests (the MCP SDK's transport).
    pub fn client_for(&self, url: &str) -> Result<(reqwest::Client, url::Url), OutboundError> {
        let checked = self.policy.check_url(url).map_err(OutboundError::Refused)?;
        let client = if checked.allow_listed {
            &self.trusted
        } else {
            &self.strict
        };
        Ok((client.clone(), checked.url))
    }

    /// Sends `request`; a transport failure is described without the URL.
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, OutboundError> {
        request
            .send()
            .await
            .map_err(|e| OutboundError::transport(&e))
    }
}

/// Reads a response body up to `cap` bytes; more is an error (the rest is
/// not read).
pub async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<Bytes, OutboundError> {
    if response
        .content_length()
        .is_some_and(|len| len > cap as u64)
    {
        return Err(OutboundError::TooLarge(cap));
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| OutboundError::transport(&e))?
    {
        if body.len() + chunk.len() > cap {
            return Err(OutboundError::TooLarge(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}
