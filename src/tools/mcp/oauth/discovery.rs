//! Finding an MCP server's authorization server (RFC 9728, then RFC 8414,
//! else the server's origin) and Confer's client there: the configured
//! `oauthClient`, the operator's managed client for the server's URL
//! (`mcp_managed_oauth`), or one registered dynamically (RFC 7591), kept
//! per server for the server's current OAuth epoch.

use serde::Deserialize;
use serde_json::{Value, json};

use super::{ANSWER_CAP, CALL_TIMEOUT, ManagedOAuth, OAuthError, fail};
use crate::outbound::read_capped;
use crate::store::mcps::McpServer;
use crate::store::oauth::OAuthRegistration;

/// `{origin}/.well-known/{name}{path}` (RFC 8615's insertion, as RFC 9728
/// and RFC 8414 place metadata for a URL with a path).
fn well_known(url: &url::Url, name: &str) -> String {
    let path = url.path().trim_end_matches('/');
    format!(
        "{}/.well-known/{name}{path}",
        url.origin().ascii_serialization()
    )
}

#[derive(Deserialize)]
struct ServerMetadata {
    issuer: Option<String>,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    revocation_endpoint: Option<String>,
}

impl ManagedOAuth {
    pub(super) async fn get_json(&self, url: &str) -> Result<Value, OAuthError> {
        let request = self
            .outbound
            .request(reqwest::Method::GET, url)
            .map_err(|e| fail(e.to_string()))?
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(CALL_TIMEOUT);
        let response = self
            .outbound
            .send(request)
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !response.status().is_success() {
            return Err(fail(format!("http {}", response.status().as_u16())));
        }
        let body = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| fail(e.to_string()))?;
        serde_json::from_slice(&body).map_err(|_| fail("an answer that is not JSON"))
    }

    pub(super) async fn post(
        &self,
        url: &str,
        build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<Value, OAuthError> {
        let request = self
            .outbound
            .request(reqwest::Method::POST, url)
            .map_err(|e| fail(e.to_string()))?
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(CALL_TIMEOUT);
        let response = self
            .outbound
            .send(build(request))
            .await
            .map_err(|e| fail(e.to_string()))?;
        let status = response.status();
        let body = read_capped(response, ANSWER_CAP)
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !status.is_success() {
            return Err(fail(format!("http {}", status.as_u16())));
        }
        if body.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&body).map_err(|_| fail("an answer that is not JSON"))
    }

    /// The authorization server's metadata for the MCP server at `url`.
    async fn discover(&self, url: &str) -> Result<ServerMetadata, OAuthError> {
        let resource = url::Url::parse(url).map_err(|_| fail("the server's url"))?;
        let mut issuer = None;
        for candidate in [
            well_known(&resource, "oauth-protected-resource"),
            format!(
                "{}/.well-known/oauth-protected-resource",
                resource.origin().ascii_serialization()
            ),
        ] {
            if let Ok(metadata) = self.get_json(&candidate).await
                && let Some(first) = metadata["authorization_servers"]
                    .as_array()
                    .and_then(|all| all.first())
                    .and_then(Value::as_str)
            {
                issuer = Some(first.to_owned());
                break;
            }
        }
        let issuer = issuer.unwrap_or_else(|| resource.origin().ascii_serialization());
        let issuer_url = url::Url::parse(&issuer).map_err(|_| fail("the issuer's url"))?;
        for candidate in [
            well_known(&issuer_url, "oauth-authorization-server"),
            well_known(&issuer_url, "openid-configuration"),
        ] {
            let Ok(metadata) = self.get_json(&candidate).await else {
                continue;
            };
            let metadata: ServerMetadata = serde_json::from_value(metadata)
                .map_err(|_| fail("the authorization server's metadata lacks an endpoint"))?;
            let expected = issuer.trim_end_matches('/');
            if metadata
                .issuer
                .as_deref()
                .is_some_and(|i| i.trim_end_matches('/') != expected)
            {
                return Err(fail(
                    "the authorization server's metadata names another issuer",
                ));
            }
            return Ok(metadata);
        }
        Err(fail("no authorization server metadata found"))
    }

    /// The server's client at its authorization server: the stored one
    /// when it was made for today's redirect URI, else discovered and
    /// configured or registered now (and stored).
    pub(super) async fn registration(
        &self,
        server: &McpServer,
    ) -> Result<OAuthRegistration, OAuthError> {
        let (org, id) = (server.org_id, server.id);
        let stored = self
            .store
            .mcps()
            .oauth_registration(org, id)
            .await
            .map_err(|_| fail("the store"))?;
        let redirect_uri = self.redirect_uri();
        if let Some(stored) = stored
            && stored.redirect_uri == redirect_uri
        {
            return Ok(stored);
        }
        let url = server.url.as_deref().ok_or_else(|| fail("no url"))?;
        let metadata = self.discover(url).await?;
        let managed = self.managed.for_url(url);
        let (client_id, client_secret, scope) = match (&server.oauth_client, managed) {
            (Some(client), _) => {
                let secret =
                    crate::store::mcps::oauth_client_secret_of(&self.store.secrets(), server)
                        .map_err(|_| fail("the client secret could not be opened"))?;
                (client.client_id.clone(), secret, client.scope.clone())
            }
            // The operator registered a client for this server beforehand.
            (None, Some(managed)) => (
                managed.client_id.clone(),
                managed
                    .client_secret
                    .as_ref()
                    .map(|s| secrecy::ExposeSecret::expose_secret(s).to_owned()),
                (!managed.scopes.is_empty()).then(|| managed.scopes.join(" ")),
            ),
            (None, None) => {
                let endpoint = metadata.registration_endpoint.as_deref().ok_or_else(|| {
                    fail("no client id is configured and the server offers no registration")
                })?;
                let body = json!({
                    "client_name": "Confer",
                    "redirect_uris": [redirect_uri],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                });
                let registered = self.post(endpoint, |r| r.json(&body)).await?;
                let client_id = registered["client_id"]
                    .as_str()
                    .ok_or_else(|| fail("the registration answered no client_id"))?
                    .to_owned();
                let secret = registered["client_secret"].as_str().map(str::to_owned);
                (client_id, secret, None)
            }
        };
        let registration = OAuthRegistration {
            issuer: metadata.issuer.unwrap_or_default(),
            authorization_endpoint: metadata.authorization_endpoint,
            token_endpoint: metadata.token_endpoint,
            revocation_endpoint: metadata.revocation_endpoint,
            client_id,
            client_secret,
            redirect_uri,
            scope,
        };
        let (kept, epoch) = (registration.clone(), server.oauth_epoch);
        let stored = self
            .store
            .mcps()
            .put_oauth_registration(org, id, epoch, kept)
            .await
            .map_err(|_| fail("the store"))?;
        if !stored {
            return Err(fail("the server was changed or deleted meanwhile"));
        }
        Ok(registration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_insert_the_well_known_part() {
        let url = url::Url::parse("https://mcp.example/tools/mcp").unwrap();
        assert_eq!(
            well_known(&url, "oauth-protected-resource"),
            "https://mcp.example/.well-known/oauth-protected-resource/tools/mcp"
        );
        let root = url::Url::parse("https://as.example/").unwrap();
        assert_eq!(
            well_known(&root, "oauth-authorization-server"),
            "https://as.example/.well-known/oauth-authorization-server"
        );
    }
}
