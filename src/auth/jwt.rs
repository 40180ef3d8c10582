//! JWT authentication. Exactly one algorithm is accepted, fixed by
//! configuration: HS256 with `CONFER_JWT_SECRET`, or RS256 / ES256 (from the
//! key's type) with `CONFER_JWT_PUBLIC_KEY`. The verifier is built from the
//! configured key, never from a token's header, so `alg: none` or an
//! algorithm swap is refused.
//!
//! Claims: `sub` and `exp` required, `org_id` or `org_ids`, optional `name`,
//! `role: "admin"` for an org admin; `nbf` honoured; at most 60 s of leeway.
//! `iss` / `aud` must match `CONFER_JWT_ISSUER` / `CONFER_JWT_AUDIENCE` when
//! those are set; with no audience configured a token may carry none, or one
//! that names `confer`. A `sub` starting with `apikey:` is refused: that
//! identity belongs to threads made with API keys.

use std::fmt;

use anyhow::Context;
use confer_actors::OrgId;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

/// The audience accepted when none is configured.
pub const DEFAULT_AUDIENCE: &str = "confer";
/// The `sub` prefix reserved for API-key-owned threads.
pub const API_KEY_SUBJECT_PREFIX: &str = "apikey:";
/// Every `sub` prefix Confer gives identities of its own (API keys,
/// visitors, host-identified visitors, channel contacts, runs): a JWT that
/// claims one is refused, so no token can speak as one of them
/// (`publishing.md` "Callers").
pub const RESERVED_SUBJECT_PREFIXES: [&str; 7] = [
    API_KEY_SUBJECT_PREFIX,
    "visitor:",
    "ext:",
    "channel:",
    "schedule:",
    "webhook:",
    "button:",
];

/// A user authenticated by a JWT.
#[derive(Clone, Debug, PartialEq)]
pub struct JwtUser {
    pub sub: String,
    pub name: Option<String>,
    /// In the token's order; the first is the default org.
    pub org_ids: Vec<OrgId>,
    /// The token carries `role: "admin"`.
    pub admin: bool,
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    org_id: Option<String>,
    #[serde(default)]
    org_ids: Option<Vec<String>>,
    #[serde(default)]
    role: Option<String>,
}

/// How tokens are verified: the one key and algorithm of the configuration.
pub enum JwtKey<'a> {
    /// HS256 with a shared secret.
    Secret(&'a SecretString),
    /// RS256 or ES256 with a PEM public key (the algorithm follows the key).
    PublicKeyPem(&'a [u8]),
}

/// Optional `iss` / `aud` requirements.
#[derive(Clone, Debug, Default)]
pub struct JwtRules {
    pub issuer: Option<String>,
    pub audience: Option<String>,
}

/// Verifies tokens against the configured key.
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("algorithms", &self.validation.algorithms)
            .finish_non_exhaustive()
    }
}

/// Whether a bearer credential has the three dot-separated parts of a JWT.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

impl JwtVerifier {
    /// A verifier for `key` with `rules`; an unusable public key is an error.
    pub fn new(key: &JwtKey<'_>, rules: &JwtRules) -> Result<Self, String> {
        let (key, algorithm) = match key {
            JwtKey::Secret(secret) => (
                DecodingKey::from_secret(secret.expose_secret().as_bytes()),
                Algorithm::HS256,
            ),
            JwtKey::PublicKeyPem(pem) => {
                if let Ok(key) = DecodingKey::from_rsa_pem(pem) {
                    (key, Algorithm::RS256)
                } else if let Ok(key) = DecodingKey::from_ec_pem(pem) {
                    (key, Algorithm::ES256)
                } else {
                    return Err("jwt_public_key: not an RSA or EC public key in PEM form".into());
                }
            }
        };
        let mut validation = Validation::new(algorithm);
        validation.leeway = 60;
        validation.validate_nbf = true;
        let mut required = vec!["exp", "sub"];
        if let Some(issuer) = &rules.issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        match &rules.audience {
            Some(audience) => {
                validation.set_audience(&[audience]);
                required.push("aud");
            }
            // Without a configured audience a token may carry none; one that
            // does must name Confer (a token minted for another service is not ours).
            None => validation.set_audience(&[DEFAULT_AUDIENCE]),
        }
        validation.set_required_spec_claims(&required);
        Ok(Self { key, validation })
    }

    /// The user of a valid token; the error is a client-safe reason.
    pub fn verify(&self, token: &str) -> Result<JwtUser, String> {
        let claims = decode::<Claims>(token, &self.key, &self.validation)
            .map_err(|e| {
                match e.kind() {
                    ErrorKind::ExpiredSignature => "token expired",
                    ErrorKind::ImmatureSignature => "token not yet valid (nbf)",
                    ErrorKind::InvalidSignature => "token signature invalid",
                    ErrorKind::InvalidAlgorithm => "token algorithm not accepted",
                    ErrorKind::InvalidIssuer => "token issuer not accepted",
                    ErrorKind::InvalidAudience => "token audience not accepted",
                    ErrorKind::MissingRequiredClaim(_) => {
                        "token invalid: a required claim is missing"
                    }
                    _ => "token invalid",
                }
                .to_owned()
            })?
            .claims;
        if claims.sub.trim().is_empty() {
            return Err("token invalid: empty sub".into());
        }
        if let Some(prefix) = RESERVED_SUBJECT_PREFIXES
            .iter()
            .find(|p| claims.sub.starts_with(*p))
        {
            return Err(format!(
                "token invalid: sub may not start with `{prefix}` (an identity Confer gives)"
            ));
        }
        let names = claims
            .org_ids
            .unwrap_or_default()
            .into_iter()
            .chain(claims.org_id);
        let org_ids = names
            .map(|id| id.parse::<OrgId>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| "token invalid: org ids must be UUIDs".to_owned())?;
        Ok(JwtUser {
            sub: claims.sub,
            name: claims.name,
            org_ids,
            admin: claims.role.as_deref() == Some("admin"),
        })
    }
}

/// The JWT verifier the configuration asks for (none when JWT auth is off).
pub fn from_settings(settings: &crate::settings::Settings) -> anyhow::Result<Option<JwtVerifier>> {
    let rules = JwtRules {
        issuer: settings.jwt_issuer.clone(),
        audience: settings.jwt_audience.clone(),
    };
    let pem = match &settings.jwt_public_key {
        Some(value) if value.trim_start().starts_with("-----BEGIN") => {
            Some(value.as_bytes().to_vec())
        }
        Some(path) => Some(
            std::fs::read(path).with_context(|| format!("reading jwt_public_key file {path}"))?,
        ),
        None => None,
    };
    let key = match (&settings.jwt_secret, &pem) {
        (Some(_), Some(_)) => anyhow::bail!(
            "jwt_secret and jwt_public_key are both set: exactly one JWT algorithm is accepted"
        ),
        (Some(secret), None) => JwtKey::Secret(secret),
        (None, Some(pem)) => JwtKey::PublicKeyPem(pem),
        (None, None) => return Ok(None),
    };
    JwtVerifier::new(&key, &rules)
        .map(Some)
        .map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::json;

    fn token(secret: &str, claims: serde_json::Value) -> String {
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    fn exp(offset: i64) -> i64 {
        chrono::Utc::now().timestamp() + offset
    }

    fn hs256(rules: &JwtRules) -> JwtVerifier {
        JwtVerifier::new(&JwtKey::Secret(&SecretString::from("s3cret")), rules).unwrap()
    }

    #[test]
    fn accepts_valid_and_refuses_bad_tokens() {
        let verifier = hs256(&JwtRules::default());
        let org = OrgId::new();
        let good = token(
            "s3cret",
            json!({"sub":"u1","exp":exp(300),"org_id":org.to_string()}),
        );
        let user = verifier.verify(&good).unwrap();
        assert_eq!(user.sub, "u1");
        assert_eq!(user.org_ids, vec![org]);
        assert!(!user.admin);

        let wrong_key = token("other", json!({"sub":"u1","exp":exp(300)}));
        assert!(verifier.verify(&wrong_key).is_err());
        let expired = token("s3cret", json!({"sub":"u1","exp":exp(-120)}));
        assert_eq!(verifier.verify(&expired).unwrap_err(), "token expired");
        let within_leeway = token("s3cret", json!({"sub":"u1","exp":exp(-30)}));
        assert!(verifier.verify(&within_leeway).is_ok());
        let no_sub = token("s3cret", json!({"exp":exp(300)}));
        assert!(verifier.verify(&no_sub).is_err());
        let no_exp = token("s3cret", json!({"sub":"u1"}));
        assert!(verifier.verify(&no_exp).is_err());
    }

    #[test]
    fn role_nbf_and_reserved_subjects() {
        let verifier = hs256(&JwtRules::default());
        let admin = token(
            "s3cret",
            json!({"sub":"boss","exp":exp(300),"role":"admin"}),
        );
        assert!(verifier.verify(&admin).unwrap().admin);
        let other_role = token("s3cret", json!({"sub":"u","exp":exp(300),"role":"member"}));
        assert!(!verifier.verify(&other_role).unwrap().admin);
        let early = token("s3cret", json!({"sub":"u","exp":exp(600),"nbf":exp(300)}));
        assert!(verifier.verify(&early).unwrap_err().contains("nbf"));
        let squatter = token("s3cret", json!({"sub":"apikey:123","exp":exp(300)}));
        assert!(verifier.verify(&squatter).is_err());
    }

    #[test]
    fn audience_and_issuer_rules() {
        let open = hs256(&JwtRules::default());
        let ours = token("s3cret", json!({"sub":"u","exp":exp(300),"aud":"confer"}));
        let theirs = token("s3cret", json!({"sub":"u","exp":exp(300),"aud":"billing"}));
        let both = token(
            "s3cret",
            json!({"sub":"u","exp":exp(300),"aud":["billing","confer"]}),
        );
        assert!(open.verify(&ours).is_ok());
        assert!(open.verify(&both).is_ok());
        assert!(open.verify(&theirs).is_err());

        let strict = hs256(&JwtRules {
            issuer: Some("https://idp.example".into()),
            audience: Some("chat".into()),
        });
        let right = token(
            "s3cret",
            json!({"sub":"u","exp":exp(300),"aud":"chat","iss":"https://idp.example"}),
        );
        assert!(strict.verify(&right).is_ok());
        let no_iss = token("s3cret", json!({"sub":"u","exp":exp(300),"aud":"chat"}));
        assert!(strict.verify(&no_iss).is_err());
        let no_aud = token(
            "s3cret",
            json!({"sub":"u","exp":exp(300),"iss":"https://idp.example"}),
        );
        assert!(strict.verify(&no_aud).is_err());
        let wrong_iss = token(
            "s3cret",
            json!({"sub":"u","exp":exp(300),"aud":"chat","iss":"https://evil.example"}),
        );
        assert!(strict.verify(&wrong_iss).is_err());
    }

    #[test]
    fn only_the_configured_algorithm_is_accepted() {
        let verifier = hs256(&JwtRules::default());
        let hs384 = encode(
            &Header::new(Algorithm::HS384),
            &json!({"sub":"u","exp":exp(300)}),
            &EncodingKey::from_secret(b"s3cret"),
        )
        .unwrap();
        assert!(verifier.verify(&hs384).is_err());
        // An unsigned token: header {"alg":"none"}, empty signature.
        use base64_like::encode_unpadded as b64;
        let unsigned = format!(
            "{}.{}.",
            b64(br#"{"alg":"none","typ":"JWT"}"#),
            b64(format!(r#"{{"sub":"u","exp":{}}}"#, exp(300)).as_bytes())
        );
        assert!(verifier.verify(&unsigned).is_err());
        assert!(
            JwtVerifier::new(&JwtKey::PublicKeyPem(b"not a key"), &JwtRules::default()).is_err()
        );
    }

    /// URL-safe base64 without padding, enough to forge a test token.
    mod base64_like {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

        pub fn encode_unpadded(bytes: &[u8]) -> String {
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let n = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
                for i in 0..=chunk.len() {
                    out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            out
        }
    }
}
