//! The public chats' shared state: the visitor keys, the limits and the
//! settings every visitor request reads (`publishing.md` "Visitors").

use super::client_ip::TrustedProxies;
use super::limits::{DEFAULT_CAP, PublicLimits};
use super::visitors::VisitorKeys;
use crate::settings::Settings;

/// Visitor token lifetimes the settings may choose, in seconds.
const TOKEN_TTL_SECS: std::ops::RangeInclusive<u64> = 60..=3600;

/// What every public chat request shares.
pub struct PublicChats {
    pub keys: VisitorKeys,
    /// Lifetime of a visitor token.
    pub token_ttl_secs: u64,
    pub limits: PublicLimits,
    pub proxies: TrustedProxies,
    /// Threads one publication may hold.
    pub max_threads: u64,
    /// The running public turns' budget reservations.
    pub reservations: super::budget::Reservations,
}

impl PublicChats {
    /// The state for `settings`, with keys from `instance_key`; a setting
    /// out of its range is an error naming it.
    pub fn new(settings: &Settings, instance_key: &[u8; 32]) -> Result<Self, String> {
        if !TOKEN_TTL_SECS.contains(&settings.visitor_token_ttl_secs) {
            return Err(format!(
                "visitor_token_ttl_secs: must be 60-3600 (got {})",
                settings.visitor_token_ttl_secs
            ));
        }
        Ok(Self {
            keys: VisitorKeys::derive(instance_key),
            token_ttl_secs: settings.visitor_token_ttl_secs,
            limits: PublicLimits::new(
                settings.public_visitor_rps,
                settings.public_mints_per_ip_per_min,
                DEFAULT_CAP,
            ),
            proxies: TrustedProxies::parse(&settings.trusted_proxies)?,
            max_threads: settings.public_max_threads,
            reservations: super::budget::Reservations::default(),
        })
    }
}
