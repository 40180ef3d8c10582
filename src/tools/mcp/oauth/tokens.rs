//! Tokens: the code and refresh exchanges at the token endpoint, the
//! stored token of an owner (refreshed when it is due, one refresh at a
//! time per server and owner), and a disconnect (revoked, then deleted).

use chrono::Utc;
use confer_actors::McpServerId;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::{MAX_TOKEN_LIFETIME, ManagedOAuth, OAuthError, REFRESH_BEFORE, fail};
use crate::store::mcps::McpServer;
use crate::store::oauth::{OAuthRegistration, OpenToken, TokenOwner};

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    /// Seconds; any JSON number (`3600`, `3.6e3`, `1e18`), clamped.
    expires_in: Option<f64>,
    refresh_token: Option<String>,
    scope: Option<String>,
}

impl ManagedOAuth {
    /// POSTs a token request (the client authenticating with HTTP Basic
    /// when it has a secret, else by its id in the form).
    pub(super) async fn token_request(
        &self,
        registration: &OAuthRegistration,
        form: &mut Vec<(&'static str, String)>,
    ) -> Result<OpenToken, OAuthError> {
        let secret = registration.client_secret.clone();
        if secret.is_none() {
            form.push(("client_id", registration.client_id.clone()));
        }
        let client_id = registration.client_id.clone();
        let body: Vec<(&str, String)> = form.clone();
        let answer = self
            .post(&registration.token_endpoint, move |request| {
                let request = form_body(request, &body);
                match &secret {
                    Some(secret) => request.basic_auth(client_id, Some(secret)),
                    None => request,
                }
            })
            .await?;
        let answer: TokenAnswer = serde_json::from_value(answer)
            .map_err(|_| fail("the token answer lacks access_token"))?;
        Ok(OpenToken {
            access_token: SecretString::from(answer.access_token),
            refresh_token: answer.refresh_token.map(SecretString::from),
            expires_at: answer.expires_in.map(|s| Utc::now() + lifetime(s)),
            scope: answer.scope,
        })
    }

    /// `owner`'s access token for `server`, refreshed first when it is
    /// within [`REFRESH_BEFORE`] of its expiry; `None` when there is none
    /// usable (a failed refresh deletes it).
    pub async fn token(
        &self,
        server: &McpServer,
        owner: &TokenOwner,
    ) -> Result<Option<SecretString>, OAuthError> {
        let _one_at_a_time = self.stripe(server.id, owner).lock().await;
        let (org, id) = (server.org_id, server.id);
        let read = async || {
            let stored = self.store.mcps().oauth_token(org, id, owner.clone());
            stored.await.map_err(|_| fail("the store"))
        };
        let due = |token: &OpenToken| {
            token
                .expires_at
                .is_some_and(|at| at - REFRESH_BEFORE <= Utc::now())
        };
        let Some(mut token) = read().await? else {
            return Ok(None);
        };
        if !due(&token) {
            return Ok(Some(token.access_token));
        }
        // On a cluster another node may be refreshing it: wait for that
        // one, then read what it stored.
        let _across_nodes = match self.store.postgres() {
            Some(pg) => {
                let held = pg.hold_token_refresh(org, id, owner).await;
                let held = held.map_err(|_| fail("the store"))?;
                token = match read().await? {
                    Some(token) if due(&token) => token,
                    Some(fresh) => return Ok(Some(fresh.access_token)),
                    None => return Ok(None),
                };
                Some(held)
            }
            None => None,
        };
        let refreshed = match &token.refresh_token {
            Some(refresh) => self.refresh(server, refresh).await,
            None => Err(fail("expired, and no refresh token")),
        };
        let who = owner.clone();
        match refreshed {
            Ok(mut fresh) => {
                if fresh.refresh_token.is_none() {
                    fresh.refresh_token = token.refresh_token.clone();
                }
                let (access, epoch) = (fresh.access_token.clone(), server.oauth_epoch);
                let stored = self
                    .store
                    .mcps()
                    .put_oauth_token(org, id, epoch, who, fresh)
                    .await
                    .map_err(|_| fail("the store"))?;
                // Refreshed for a server changed meanwhile: not used.
                Ok(stored.then_some(access))
            }
            Err(error) => {
                tracing::warn!(server = %id, %error, "an OAuth token could not be refreshed; it is deleted");
                self.store
                    .mcps()
                    .delete_oauth_token(org, id, who)
                    .await
                    .map_err(|_| fail("the store"))?;
                Ok(None)
            }
        }
    }

    /// The lock of (server, owner)'s token.
    fn stripe(&self, server: McpServerId, owner: &TokenOwner) -> &tokio::sync::Mutex<()> {
        let digest = Sha256::digest(format!("{server}:{owner:?}").as_bytes());
        let at = usize::from(digest[0]) % self.refreshing.len();
        &self.refreshing[at]
    }

    async fn refresh(
        &self,
        server: &McpServer,
        refresh: &SecretString,
    ) -> Result<OpenToken, OAuthError> {
        let registration = self.registration(server).await?;
        let mut form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh.expose_secret().to_owned()),
            ("resource", server.url.clone().unwrap_or_default()),
        ];
        self.token_request(&registration, &mut form).await
    }

    /// Deletes `owner`'s token (revoking it first when the authorization
    /// server supports it); whether there was one.
    pub async fn disconnect(
        &self,
        server: &McpServer,
        owner: &TokenOwner,
    ) -> Result<bool, OAuthError> {
        let (org, id, who) = (server.org_id, server.id, owner.clone());
        let records = self.store.mcps();
        let stored = (
            records
                .oauth_token(org, id, who)
                .await
                .map_err(|_| fail("the store"))?,
            records
                .oauth_registration(org, id)
                .await
                .map_err(|_| fail("the store"))?,
        );
        if let (Some(token), Some(registration)) = &stored
            && let Some(endpoint) = &registration.revocation_endpoint
        {
            let revoked = token
                .refresh_token
                .as_ref()
                .unwrap_or(&token.access_token)
                .expose_secret()
                .to_owned();
            let client_id = registration.client_id.clone();
            let outcome = self
                .post(endpoint, move |r| {
                    form_body(r, &[("token", revoked), ("client_id", client_id)])
                })
                .await;
            if let Err(error) = outcome {
                tracing::warn!(server = %id, %error, "revoking an OAuth token failed; deleted anyway");
            }
        }
        let who = owner.clone();
        self.store
            .mcps()
            .delete_oauth_token(org, id, who)
            .await
            .map_err(|_| fail("the store"))
    }
}

/// A token's lifetime from its `expires_in`: never negative, never past
/// [`MAX_TOKEN_LIFETIME`] (a provider's huge or odd value must not
/// overflow a date).
fn lifetime(expires_in: f64) -> chrono::TimeDelta {
    let max = MAX_TOKEN_LIFETIME.num_seconds();
    if expires_in.is_nan() || expires_in <= 0.0 {
        return chrono::TimeDelta::zero();
    }
    if expires_in >= max as f64 {
        return MAX_TOKEN_LIFETIME;
    }
    // In range: 0 < expires_in < one year of seconds.
    chrono::TimeDelta::seconds(expires_in as i64)
}

/// `request` with `pairs` as its `application/x-www-form-urlencoded` body.
fn form_body(
    request: reqwest::RequestBuilder,
    pairs: &[(&str, String)],
) -> reqwest::RequestBuilder {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    request
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_clamped() {
        assert_eq!(lifetime(60.0), chrono::TimeDelta::seconds(60));
        assert_eq!(lifetime(3.6e3), chrono::TimeDelta::seconds(3600));
        for huge in [1e18, f64::INFINITY, 9.3e18] {
            assert_eq!(lifetime(huge), MAX_TOKEN_LIFETIME);
        }
        for odd in [-5.0, f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(lifetime(odd), chrono::TimeDelta::zero());
        }
        let answer: TokenAnswer =
            serde_json::from_str(r#"{"access_token": "a", "expires_in": 1e18}"#).unwrap();
        let at = Utc::now() + lifetime(answer.expires_in.unwrap());
        assert!(at > Utc::now());
    }
}
