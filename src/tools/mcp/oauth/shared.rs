//! Flows kept in PostgreSQL, so a user's browser may begin on one node and
//! come back to another (`scale.md` §5). A flow is sealed whole (its PKCE
//! verifier and the client's secret with it), bound to the digest of its
//! state; rows are found by the digests of the state and the ticket, never
//! by the values themselves.

use confer_actors::StoreError;
use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};

use super::flows::{Flow, same};
use super::{
    BeginRefusal, CallbackRefusal, FLOW_TTL, MAX_FLOWS, MAX_FLOWS_PER_OWNER, ManagedOAuth,
    OAuthError, fail,
};
use crate::auth::jwt::JwtUser;
use crate::secrets::{SecretBox, aad};
use crate::store::pg::PgStore;
use crate::store::pg::mcps::flows::{FlowBounds, FlowStep, NewFlow};

fn digest(value: &str) -> [u8; 32] {
    Sha256::digest(value.as_bytes()).into()
}

fn flow_aad(state_hash: &[u8]) -> String {
    aad("", "mcp_oauth_flow", &hex::encode(state_hash), "flow")
}

fn seal(key: &SecretBox, state_hash: &[u8], flow: &Flow) -> Result<String, StoreError> {
    let json = serde_json::to_string(flow).map_err(|e| StoreError::Codec(e.to_string()))?;
    key.seal(&json, &flow_aad(state_hash))
        .map_err(|e| StoreError::Engine(e.to_string()))
}

fn open(key: &SecretBox, state_hash: &[u8], sealed: &str) -> Option<Flow> {
    let json = key.open(sealed, &flow_aad(state_hash)).ok()?;
    serde_json::from_str(json.expose_secret()).ok()
}

impl ManagedOAuth {
    /// Keeps `flow`, found by `state` and its ticket, in PostgreSQL.
    pub(super) async fn keep_shared(
        &self,
        pg: &PgStore,
        state: &str,
        flow: &Flow,
    ) -> Result<(), OAuthError> {
        let state_hash = digest(state);
        let ticket = flow.ticket.as_deref().unwrap_or_default();
        let new = NewFlow {
            state_hash,
            ticket_hash: digest(ticket),
            org: flow.org,
            owner: flow.owner.key_part(),
            sealed: seal(&self.store.secrets(), &state_hash, flow).map_err(|_| fail("sealing"))?,
        };
        let bounds = FlowBounds {
            ttl: FLOW_TTL,
            per_owner: MAX_FLOWS_PER_OWNER,
            all: MAX_FLOWS,
        };
        pg.put_oauth_flow(new, bounds)
            .await
            .map_err(|_| fail("the store"))
    }

    /// [`ManagedOAuth::begin`] on a shared flow.
    pub(super) async fn begin_shared(
        &self,
        pg: &PgStore,
        ticket: &str,
        user: &JwtUser,
    ) -> Result<(String, String), BeginRefusal> {
        let key = self.store.secrets();
        let cookie = super::flows::random().map_err(|_| BeginRefusal::Unknown)?;
        let step = pg
            .begin_oauth_flow(digest(ticket), FLOW_TTL, |state_hash, sealed| {
                let mut flow = open(&key, state_hash, sealed).ok_or(BeginRefusal::Unknown)?;
                if flow.user != user.sub || !user.org_ids.contains(&flow.org) {
                    return Err(BeginRefusal::OtherUser);
                }
                flow.ticket = None;
                flow.cookie = Some(cookie.clone());
                let sealed = seal(&key, state_hash, &flow).map_err(|_| BeginRefusal::Unknown)?;
                Ok((sealed, flow.provider_url))
            })
            .await;
        match step {
            Ok(FlowStep::Done(provider)) => Ok((cookie, provider)),
            Ok(FlowStep::Refused(refusal)) => Err(refusal),
            Ok(FlowStep::Missing | FlowStep::Expired) => Err(BeginRefusal::Unknown),
            Err(error) => {
                tracing::warn!(%error, "reading an OAuth flow failed");
                Err(BeginRefusal::Unknown)
            }
        }
    }

    /// The shared flow of `state`, taken (once) when `cookie` is the one
    /// its `begin` set.
    pub(super) async fn take_shared(
        &self,
        pg: &PgStore,
        state: &str,
        cookie: Option<&str>,
    ) -> Result<Flow, CallbackRefusal> {
        let key = self.store.secrets();
        let state_hash = digest(state);
        let step = pg
            .finish_oauth_flow(state_hash, FLOW_TTL, |sealed| {
                let flow = open(&key, &state_hash, sealed).ok_or(CallbackRefusal::UnknownState)?;
                let bound = flow.cookie.as_deref().zip(cookie);
                if !bound.is_some_and(|(expected, given)| same(expected, given)) {
                    return Err(CallbackRefusal::OtherBrowser);
                }
                Ok(flow)
            })
            .await;
        match step {
            Ok(FlowStep::Done(flow)) => Ok(flow),
            Ok(FlowStep::Refused(refusal)) => Err(refusal),
            Ok(FlowStep::Expired) => Err(CallbackRefusal::Expired),
            Ok(FlowStep::Missing) => Err(CallbackRefusal::UnknownState),
            Err(error) => {
                tracing::warn!(%error, "reading an OAuth flow failed");
                Err(CallbackRefusal::UnknownState)
            }
        }
    }
}
