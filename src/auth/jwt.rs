//! JWT authentication (HS256 with `CONFER_JWT_SECRET`): claims `sub` and `exp`
//! required, `org_id` or `org_ids`, optional `name`; at most 60 s of leeway.

use confer_actors::OrgId;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

/// A user authenticated by a JWT.
#[derive(Clone, Debug, PartialEq)]
pub struct JwtUser {
    pub sub: String,
    pub name: Option<String>,
    /// In the token's order; the first is the default org.
    pub org_ids: Vec<OrgId>,
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
}

/// Verifies tokens against the configured secret.
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
}

/// Whether a bearer credential has the three dot-separated parts of a JWT.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

impl JwtVerifier {
    /// A verifier for `secret`.
    pub fn new(secret: &SecretString) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 60;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            key: DecodingKey::from_secret(secret.expose_secret().as_bytes()),
            validation,
        }
    }

    /// The user of a valid token; the error is a client-safe reason.
    pub fn verify(&self, token: &str) -> Result<JwtUser, String> {
        let claims = decode::<Claims>(token, &self.key, &self.validation)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => "token expired".to_owned(),
                jsonwebtoken::errors::ErrorKind::InvalidSignature => {
                    "token signature invalid".to_owned()
                }
                _ => "token invalid".to_owned(),
            })?
            .claims;
        if claims.sub.trim().is_empty() {
            return Err("token invalid: empty sub".into());
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
        })
    }
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

    #[test]
    fn accepts_valid_and_refuses_bad_tokens() {
        let verifier = JwtVerifier::new(&SecretString::from("s3cret"));
        let org = OrgId::new();
        let good = token(
            "s3cret",
            json!({"sub":"u1","exp":exp(300),"org_id":org.to_string()}),
        );
        let user = verifier.verify(&good).unwrap();
        assert_eq!(user.sub, "u1");
        assert_eq!(user.org_ids, vec![org]);

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
}
