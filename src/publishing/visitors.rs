//! Visitors' credentials (`publishing.md` "Visitors"): the keys derived from
//! the instance key, visitor tokens (`cfv_…`), visitor secrets (`cvs_…`),
//! host-signed identities (`userToken`), invite codes and participant ids.
//!
//! Nothing here is stored: a token and a secret are checked against keys
//! alone, so minting a session writes nothing. The one stored value is the
//! instance key (`store::publications`), sealed like every other secret.

use aws_lc_rs::hkdf::{HKDF_SHA256, KeyType, Salt};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use confer_actors::{OrgId, PublicationId, ThreadId};
use hmac::{Hmac, KeyInit, Mac};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Prefix of a visitor token.
pub const TOKEN_PREFIX: &str = "cfv_";
/// Prefix of a visitor secret.
pub const SECRET_PREFIX: &str = "cvs_";
/// The `aud` of every visitor token.
pub const TOKEN_AUDIENCE: &str = "confer-visitor";
/// The user id prefix of an anonymous visitor.
pub const VISITOR_PREFIX: &str = "visitor:";
/// The user id prefix of a host-identified visitor.
pub const HOST_IDENTITY_PREFIX: &str = "ext:";
/// Longest a host identity's `sub` and `name` may be.
const MAX_SUB_CHARS: usize = 128;
const MAX_NAME_CHARS: usize = 80;
/// Furthest ahead a host identity's `exp` may be (24 h).
const MAX_USER_TOKEN_SECS: i64 = 24 * 3600;

/// A visitor: 16 random bytes (anonymous), or derived from the publication
/// and the host's `sub` (the same person on any device).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VisitorId(pub [u8; 16]);

impl VisitorId {
    /// A new anonymous visitor.
    pub fn random() -> Self {
        // A v4 UUID is 122 bits from the OS generator.
        Self(*uuid::Uuid::new_v4().as_bytes())
    }
}

impl std::fmt::Display for VisitorId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// The three keys of `publishing.md`, HKDF-SHA256 of the instance key.
#[derive(Clone)]
pub struct VisitorKeys {
    token: [u8; 32],
    visitor: [u8; 32],
    invite: [u8; 32],
}

impl std::fmt::Debug for VisitorKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VisitorKeys(<redacted>)")
    }
}

struct Len32;

impl KeyType for Len32 {
    fn len(&self) -> usize {
        32
    }
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts a key of any length.
    let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(key) else {
        return [0; 32];
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// Claims of a visitor token.
#[derive(Serialize, Deserialize)]
struct TokenClaims {
    aud: String,
    sub: String,
    #[serde(rename = "pub")]
    publication: PublicationId,
    #[serde(rename = "gen")]
    generation: u64,
    org: OrgId,
    iat: i64,
    exp: i64,
    /// A host identity's display name (not in the contract's list; the
    /// token is opaque to the page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// The embedding site the session was minted for, if it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    origin: Option<String>,
}

/// Who a valid visitor token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisitorClaims {
    /// `visitor:{visitor_id}` or `ext:{publication_id}:{sub}`.
    pub user_id: String,
    pub publication: PublicationId,
    pub generation: u64,
    pub org: OrgId,
    pub name: Option<String>,
    /// The embedding site's origin, as claimed and checked at the mint.
    pub origin: Option<String>,
    pub expires_at: i64,
}

/// A host-signed identity, verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostIdentity {
    pub sub: String,
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct UserTokenClaims {
    // Optional here so that a missing one is named, not a parse error.
    #[serde(default)]
    sub: Option<String>,
    exp: i64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    aud: Option<serde_json::Value>,
}

impl VisitorKeys {
    /// The keys of `instance_key`.
    pub fn derive(instance_key: &[u8; 32]) -> Self {
        let prk = Salt::new(HKDF_SHA256, b"confer/publishing/v1").extract(instance_key);
        let expand = |label: &[u8]| {
            let mut out = [0u8; 32];
            // 32 bytes is far below HKDF-SHA256's 8,160-byte limit: cannot fail.
            let _ = prk
                .expand(&[label], Len32)
                .and_then(|okm| okm.fill(&mut out));
            out
        };
        Self {
            token: expand(b"token"),
            visitor: expand(b"visitor"),
            invite: expand(b"invite"),
        }
    }

    /// A `cfv_` token for `user_id` on `publication` at `generation`.
    pub fn mint_token(
        &self,
        claims: &VisitorClaims,
        issued_at: i64,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let body = TokenClaims {
            aud: TOKEN_AUDIENCE.into(),
            sub: claims.user_id.clone(),
            publication: claims.publication,
            generation: claims.generation,
            org: claims.org,
            iat: issued_at,
            exp: claims.expires_at,
            name: claims.name.clone(),
            origin: claims.origin.clone(),
        };
        let jwt = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &body,
            &EncodingKey::from_secret(&self.token),
        )?;
        Ok(format!("{TOKEN_PREFIX}{jwt}"))
    }

    /// The claims of a token this instance signed, unexpired (no leeway:
    /// the page re-mints before expiry). Publication, generation and status
    /// are the caller's to compare.
    pub fn verify_token(&self, token: &str) -> Result<VisitorClaims, &'static str> {
        let jwt = token
            .strip_prefix(TOKEN_PREFIX)
            .ok_or("not a visitor token (cfv_…)")?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_audience(&[TOKEN_AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "sub", "aud"]);
        let claims = jsonwebtoken::decode::<TokenClaims>(
            jwt,
            &DecodingKey::from_secret(&self.token),
            &validation,
        )
        .map_err(|e| match e.kind() {
            ErrorKind::ExpiredSignature => "visitor token expired",
            _ => "visitor token invalid",
        })?
        .claims;
        Ok(VisitorClaims {
            user_id: claims.sub,
            publication: claims.publication,
            generation: claims.generation,
            org: claims.org,
            name: claims.name,
            origin: claims.origin,
            expires_at: claims.exp,
        })
    }

    fn secret_mac(&self, publication: PublicationId, visitor: VisitorId) -> [u8; 32] {
        hmac(&self.visitor, &[publication.as_bytes(), &visitor.0])
    }

    /// The `cvs_` secret that resumes `visitor` on `publication`.
    pub fn visitor_secret(&self, publication: PublicationId, visitor: VisitorId) -> String {
        let mut bytes = [0u8; 32];
        bytes[..16].copy_from_slice(&visitor.0);
        bytes[16..].copy_from_slice(&self.secret_mac(publication, visitor)[..16]);
        format!("{SECRET_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The visitor a secret names, if it was made for `publication`
    /// (compared in constant time).
    pub fn open_visitor_secret(
        &self,
        publication: PublicationId,
        secret: &str,
    ) -> Option<VisitorId> {
        let bytes = URL_SAFE_NO_PAD
            .decode(secret.strip_prefix(SECRET_PREFIX)?)
            .ok()?;
        let bytes: [u8; 32] = bytes.try_into().ok()?;
        let mut visitor = [0u8; 16];
        visitor.copy_from_slice(&bytes[..16]);
        let visitor = VisitorId(visitor);
        let expected = self.secret_mac(publication, visitor);
        aws_lc_rs::constant_time::verify_slices_are_equal(&expected[..16], &bytes[16..])
            .ok()
            .map(|()| visitor)
    }

    /// The visitor of a host identity: the same on every device.
    pub fn host_visitor(&self, publication: PublicationId, sub: &str) -> VisitorId {
        let mac = hmac(
            &self.visitor,
            &[b"ext", publication.as_bytes(), sub.as_bytes()],
        );
        let mut id = [0u8; 16];
        id.copy_from_slice(&mac[..16]);
        VisitorId(id)
    }

    /// The invite code of `thread` at its invite generation.
    pub fn invite_code(&self, thread: ThreadId, generation: u64) -> String {
        let mac = hmac(
            &self.invite,
            &[thread.as_bytes(), &generation.to_be_bytes()],
        );
        URL_SAFE_NO_PAD.encode(&mac[..16])
    }

    /// Whether `code` is `thread`'s code now (constant time).
    pub fn invite_matches(&self, thread: ThreadId, generation: u64, code: &str) -> bool {
        let expected = self.invite_code(thread, generation);
        aws_lc_rs::constant_time::verify_slices_are_equal(expected.as_bytes(), code.as_bytes())
            .is_ok()
    }
}

/// The user id of a visitor or host identity on `publication`.
pub fn user_id(publication: PublicationId, visitor: VisitorId, host: Option<&str>) -> String {
    match host {
        Some(sub) => format!("{HOST_IDENTITY_PREFIX}{publication}:{sub}"),
        None => format!("{VISITOR_PREFIX}{visitor}"),
    }
}

/// The participant id shown to visitors: hides visitor ids and host `sub`s.
pub fn participant_id(thread: ThreadId, user_id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(thread.as_bytes());
    hasher.update(user_id.as_bytes());
    hex::encode(&hasher.finalize()[..8])
}

/// Verifies a host-signed `userToken` (rule 2): HS256 with the publication's
/// identity secret, `sub` 1–128 chars, `exp` within 24 h, `aud` (if any) the
/// slug, `name` ≤ 80 chars, 60 s of leeway. The error names what is wrong,
/// never the token.
pub fn verify_user_token(
    token: &str,
    identity_secret: &str,
    slug: &str,
    now: i64,
) -> Result<HostIdentity, String> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 60;
    validation.validate_aud = false;
    validation.set_required_spec_claims(&["exp", "sub"]);
    let claims = jsonwebtoken::decode::<UserTokenClaims>(
        token,
        &DecodingKey::from_secret(identity_secret.as_bytes()),
        &validation,
    )
    .map_err(|e| {
        match e.kind() {
            ErrorKind::ExpiredSignature => "userToken: expired",
            ErrorKind::InvalidSignature => "userToken: signature invalid",
            ErrorKind::InvalidAlgorithm => "userToken: only HS256 is accepted",
            ErrorKind::MissingRequiredClaim(_) => "userToken: sub and exp are required",
            _ => "userToken: invalid",
        }
        .to_owned()
    })?
    .claims;
    let sub = claims.sub.ok_or("userToken: sub and exp are required")?;
    let sub_chars = sub.chars().count();
    if sub_chars == 0 || sub_chars > MAX_SUB_CHARS {
        return Err(format!(
            "userToken: sub must be 1–{MAX_SUB_CHARS} characters"
        ));
    }
    if claims.exp > now + MAX_USER_TOKEN_SECS + 60 {
        return Err("userToken: exp may be at most 24 h ahead".into());
    }
    let audience_ok = match &claims.aud {
        None => true,
        Some(serde_json::Value::String(aud)) => aud == slug,
        Some(serde_json::Value::Array(auds)) => auds.iter().all(|a| a.as_str() == Some(slug)),
        Some(_) => false,
    };
    if !audience_ok {
        return Err("userToken: aud must be the publication's slug".into());
    }
    if claims
        .name
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NAME_CHARS)
    {
        return Err(format!(
            "userToken: name is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    Ok(HostIdentity {
        sub,
        name: claims.name.filter(|n| !n.trim().is_empty()),
    })
}

#[cfg(test)]
mod tests;
