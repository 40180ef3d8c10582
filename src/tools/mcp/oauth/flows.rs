//! The flows of managed OAuth waiting for their callback: single use,
//! [`FLOW_TTL`] each, at most [`MAX_FLOWS_PER_OWNER`] per user and
//! [`MAX_FLOWS`] in all; in memory on sled, as sealed rows on PostgreSQL
//! (`shared`); and the randomness and PKCE they use.

use std::collections::HashMap;
use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use confer_actors::{McpServerId, OrgId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{FLOW_TTL, MAX_FLOWS, MAX_FLOWS_PER_OWNER, OAuthError, fail};
use crate::store::oauth::{OAuthRegistration, TokenOwner};

/// A flow waiting for its callback.
#[derive(Serialize, Deserialize)]
pub(super) struct Flow {
    pub(super) org: OrgId,
    pub(super) server: McpServerId,
    /// The server's `oauth_epoch` when the flow began.
    pub(super) epoch: u32,
    pub(super) server_name: String,
    pub(super) resource: String,
    pub(super) owner: TokenOwner,
    /// The JWT `sub` that may begin it: the owner, or for an org's token
    /// the admin who started it.
    pub(super) user: String,
    pub(super) ticket: Option<String>,
    pub(super) verifier: String,
    /// Set by `begin`; the callback must bring it back.
    pub(super) cookie: Option<String>,
    pub(super) provider_url: String,
    pub(super) registration: OAuthRegistration,
    /// When it began, on this node (a row's age is the database's).
    #[serde(skip, default = "Instant::now")]
    pub(super) created: Instant,
}

#[derive(Default)]
pub(super) struct Flows {
    /// By `state`.
    pub(super) by_state: HashMap<String, Flow>,
    /// `ticket` → `state`, until the ticket is used.
    pub(super) tickets: HashMap<String, String>,
}

impl Flows {
    pub(super) fn remove(&mut self, state: &str) -> Option<Flow> {
        let flow = self.by_state.remove(state)?;
        if let Some(ticket) = &flow.ticket {
            self.tickets.remove(ticket);
        }
        Some(flow)
    }

    /// Drops expired flows, then the oldest of `owner`'s (and of all) past
    /// the bounds, to make room for one more.
    pub(super) fn make_room(&mut self, org: OrgId, owner: &TokenOwner) {
        self.make_room_within(org, owner, MAX_FLOWS);
    }

    /// [`Self::make_room`] with `max_flows` flows in all at most.
    fn make_room_within(&mut self, org: OrgId, owner: &TokenOwner, max_flows: usize) {
        let expired: Vec<String> = self
            .by_state
            .iter()
            .filter(|(_, f)| f.created.elapsed() > FLOW_TTL)
            .map(|(s, _)| s.clone())
            .collect();
        for state in expired {
            self.remove(&state);
        }
        loop {
            let mine: Vec<(&String, &Flow)> = self
                .by_state
                .iter()
                .filter(|(_, f)| f.org == org && &f.owner == owner)
                .collect();
            let oldest = if mine.len() >= MAX_FLOWS_PER_OWNER {
                mine.iter()
                    .min_by_key(|(_, f)| f.created)
                    .map(|(s, _)| (*s).clone())
            } else if self.by_state.len() >= max_flows {
                self.by_state
                    .iter()
                    .min_by_key(|(_, f)| f.created)
                    .map(|(s, _)| s.clone())
            } else {
                None
            };
            match oldest {
                Some(state) => {
                    self.remove(&state);
                }
                None => break,
            }
        }
    }
}

/// A random URL-safe token of 32 bytes.
pub(super) fn random() -> Result<String, OAuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| fail("no randomness"))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// PKCE S256's challenge of `verifier`.
pub fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Equal, in time independent of where they differ.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn pkce_s256_is_the_rfc_7636_example() {
        // RFC 7636, appendix B.
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    fn flow(org: OrgId, owner: &TokenOwner, ticket: String) -> Flow {
        Flow {
            org,
            server: McpServerId::new(),
            epoch: 0,
            user: String::new(),
            server_name: String::new(),
            resource: String::new(),
            owner: owner.clone(),
            ticket: Some(ticket),
            verifier: String::new(),
            cookie: None,
            provider_url: String::new(),
            registration: registration(),
            created: Instant::now(),
        }
    }

    fn registration() -> OAuthRegistration {
        OAuthRegistration {
            issuer: String::new(),
            authorization_endpoint: String::new(),
            token_endpoint: String::new(),
            revocation_endpoint: None,
            client_id: String::new(),
            client_secret: None,
            redirect_uri: String::new(),
            scope: None,
        }
    }

    #[test]
    fn a_user_keeps_at_most_five_waiting_flows() {
        let mut flows = Flows::default();
        let org = OrgId::new();
        let owner = TokenOwner::User("alice".into());
        for n in 0..7 {
            flows.make_room(org, &owner);
            flows.tickets.insert(format!("t{n}"), format!("s{n}"));
            flows
                .by_state
                .insert(format!("s{n}"), flow(org, &owner, format!("t{n}")));
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!(flows.by_state.len(), MAX_FLOWS_PER_OWNER);
        assert!(!flows.by_state.contains_key("s0") && !flows.by_state.contains_key("s1"));
        assert!(
            !flows.tickets.contains_key("t0"),
            "a cancelled flow's ticket goes too"
        );
        assert!(flows.by_state.contains_key("s6"));
    }

    #[test]
    fn all_users_keep_at_most_the_global_bound_of_flows() {
        // The same rule as MAX_FLOWS, at a bound a test reaches quickly
        // (each start scans the flows: 10,000 starts would take seconds).
        const BOUND: usize = 200;
        let mut flows = Flows::default();
        let org = OrgId::new();
        for n in 0..=BOUND {
            let owner = TokenOwner::User(format!("user-{n}"));
            flows.make_room_within(org, &owner, BOUND);
            flows.tickets.insert(format!("t{n}"), format!("s{n}"));
            flows
                .by_state
                .insert(format!("s{n}"), flow(org, &owner, format!("t{n}")));
        }
        assert_eq!(flows.by_state.len(), BOUND);
        assert_eq!(flows.tickets.len(), BOUND);
    }
}
