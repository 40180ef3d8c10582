//! Records that belong to the service rather than the conversation engine:
//! organizations and API keys.

use chrono::{DateTime, Utc};
use confer_actors::{ApiKeyId, OrgId};
use serde::{Deserialize, Serialize};

/// The org a first start makes, and the one commands use by default.
pub const DEFAULT_ORG: &str = "default";

/// An organization.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Org {
    pub id: OrgId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// What an API key may do inside its org.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyRole {
    Admin,
    Member,
}

/// An API key record. The secret itself is never stored, only its SHA-256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub org_id: OrgId,
    pub name: String,
    /// The first characters of the secret, to recognise it in a list.
    pub prefix: String,
    pub role: KeyRole,
    /// May create organizations.
    pub platform_admin: bool,
    /// Hex SHA-256 of the secret (the key of the `api_key_hashes` index).
    pub secret_sha256: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// Requests per second (burst twice that); `None`: unlimited.
    #[serde(default)]
    pub rate_limit_rps: Option<f64>,
    /// May act for end users (use their OAuth tokens, tools.md).
    #[serde(default)]
    pub act_as_users: bool,
}
