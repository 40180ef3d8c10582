//! Messaging channels (`marketplace-channels.md` §7–§10): an agent reached
//! from Telegram, Slack or WhatsApp. This module owns the channel record
//! and its rules; `vendors` speaks each vendor's API (checking credentials,
//! verifying and reading inbound deliveries, sending replies), `chunks`
//! cuts a reply to a vendor's limit, `worker` runs the durable jobs (one
//! turn and its reply per inbound message), `qr` draws WhatsApp's link.
//! Stored by `crate::store::channels`; routes in `crate::api::channels`.

pub mod chunks;
pub mod qr;
pub mod vendors;
pub mod worker;

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, ChannelId, ContactId, OrgId, ThreadId};
use serde::{Deserialize, Serialize};

use crate::api::extract::Patch;

/// Channels an agent may have.
pub const MAX_PER_AGENT: usize = 10;
/// Channels an org may have.
pub const MAX_PER_ORG: usize = 100;
/// Contacts a channel keeps.
pub const MAX_CONTACTS: u64 = 100_000;
/// Jobs a channel may have waiting; past it deliveries are answered 429.
pub const MAX_PENDING: usize = 1_000;
/// Jobs one contact may have waiting; past it a message is dropped.
pub const MAX_PENDING_PER_CONTACT: usize = 20;
/// Days a delivery's key is kept (WhatsApp redelivers for 7).
pub const KEY_DAYS: i64 = 8;
const MAX_NAME: usize = 100;
const MAX_ERROR_REPLY: usize = 500;
/// The reply after a failed turn, unless the channel says otherwise.
pub const DEFAULT_ERROR_REPLY: &str = "Sorry, I could not answer just now.";
/// A channel's daily token budget unless it says otherwise.
pub const DEFAULT_DAILY_TOKENS: u64 = 1_000_000;
/// Each vendor call's output cap in a channel's turn, and the output part
/// of its budget reservation (publishing.md rule 7; a channel has no
/// `maxOutputTokens` setting). 4,096 tokens fit well inside 20 chunks.
pub const MAX_OUTPUT_TOKENS: u32 = 4_096;

/// Which vendor a channel is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    Telegram,
    Slack,
    Whatsapp,
}

impl ChannelKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Telegram => "telegram",
            Self::Slack => "slack",
            Self::Whatsapp => "whatsapp",
        }
    }

    /// The byte of its identity keys.
    pub fn tag(self) -> u8 {
        self as u8 + 1
    }
}

/// Whether the channel's vendor accepts its credentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChannelStatus {
    Active,
    Error,
}

/// A channel's settings, as stored and answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ChannelSettings {
    /// Sent after a failed turn; `""`: nothing.
    pub error_reply: String,
    /// The only server-side tools a contact's turn may run.
    pub public_tools: Vec<String>,
    /// Tokens the channel's turns may use per UTC day; `None`: no cap.
    pub daily_token_budget: Option<u64>,
    /// WhatsApp: the business phone number's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_number_id: Option<String>,
    /// WhatsApp: its number, digits only (the `wa.me` link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub business_number: Option<String>,
}

impl Default for ChannelSettings {
    fn default() -> Self {
        Self {
            error_reply: DEFAULT_ERROR_REPLY.into(),
            public_tools: Vec::new(),
            daily_token_budget: Some(DEFAULT_DAILY_TOKENS),
            phone_number_id: None,
            business_number: None,
        }
    }
}

/// `settings` of a create or a PATCH: the fields present change.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsChange {
    /// At most 500 characters; `""` sends nothing.
    pub error_reply: Option<String>,
    pub public_tools: Option<Vec<String>>,
    /// Null: no cap.
    #[serde(default)]
    #[schema(value_type = Option<u64>)]
    pub daily_token_budget: Patch<u64>,
    /// WhatsApp (required there).
    pub phone_number_id: Option<String>,
    /// WhatsApp: 8–15 digits; read from the vendor when not given.
    pub business_number: Option<String>,
}

/// A field that broke a rule, and the rule (422 `field: rule`).
pub type Broken = (String, String);

impl SettingsChange {
    /// `settings` with this change, checked.
    pub fn apply(&self, mut settings: ChannelSettings) -> Result<ChannelSettings, Broken> {
        if let Some(reply) = &self.error_reply {
            if reply.chars().count() > MAX_ERROR_REPLY {
                return Err((
                    "settings.errorReply".into(),
                    format!("at most {MAX_ERROR_REPLY} characters"),
                ));
            }
            settings.error_reply = reply.clone();
        }
        if let Some(tools) = &self.public_tools {
            if tools.len() > 100 || tools.iter().any(|t| t.trim().is_empty()) {
                return Err((
                    "settings.publicTools".into(),
                    "at most 100 non-empty tool names".into(),
                ));
            }
            settings.public_tools = tools.clone();
        }
        if let Some(budget) = self.daily_token_budget.clone().into_change() {
            if budget.is_some_and(|b| !(1_000..=1_000_000_000_000).contains(&b)) {
                return Err((
                    "settings.dailyTokenBudget".into(),
                    "1000 to 10^12 tokens a day, or null for none".into(),
                ));
            }
            settings.daily_token_budget = budget;
        }
        if let Some(id) = &self.phone_number_id {
            if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_digit()) {
                return Err((
                    "settings.phoneNumberId".into(),
                    "the phone number's id: digits".into(),
                ));
            }
            settings.phone_number_id = Some(id.clone());
        }
        if let Some(number) = &self.business_number {
            settings.business_number = Some(phone_digits(number).ok_or_else(|| {
                (
                    "settings.businessNumber".into(),
                    "8 to 15 digits".to_owned(),
                )
            })?);
        }
        Ok(settings)
    }
}

/// A phone number's 8–15 digits (spaces, `+`, `-`, parentheses dropped).
pub fn phone_digits(number: &str) -> Option<String> {
    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    let clean = number
        .chars()
        .all(|c| c.is_ascii_digit() || " +-().".contains(c));
    (clean && (8..=15).contains(&digits.len())).then_some(digits)
}

/// A channel's name: 1–100 characters after trimming.
pub fn name_rule(name: &str) -> Result<String, Broken> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(("name".into(), format!("1 to {MAX_NAME} characters")));
    }
    Ok(name.to_owned())
}

/// The credentials a channel's vendor takes, write-only (sealed when
/// stored, never answered or logged).
#[derive(Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Credentials {
    /// Telegram, Slack.
    pub bot_token: Option<String>,
    /// Slack.
    pub signing_secret: Option<String>,
    /// WhatsApp.
    pub access_token: Option<String>,
    /// WhatsApp.
    pub app_secret: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::secrets::redacted;
        f.debug_struct("Credentials")
            .field("bot_token", &redacted(&self.bot_token))
            .field("signing_secret", &redacted(&self.signing_secret))
            .field("access_token", &redacted(&self.access_token))
            .field("app_secret", &redacted(&self.app_secret))
            .finish()
    }
}

impl Credentials {
    /// The fields `kind` needs, each non-empty (422 naming the missing one).
    pub fn check(&self, kind: ChannelKind) -> Result<(), Broken> {
        let needed: &[(&str, &Option<String>)] = match kind {
            ChannelKind::Telegram => &[("botToken", &self.bot_token)],
            ChannelKind::Slack => &[
                ("botToken", &self.bot_token),
                ("signingSecret", &self.signing_secret),
            ],
            ChannelKind::Whatsapp => &[
                ("accessToken", &self.access_token),
                ("appSecret", &self.app_secret),
            ],
        };
        for (field, value) in needed {
            let ok = value
                .as_deref()
                .is_some_and(|v| !v.trim().is_empty() && v.len() <= 4096);
            if !ok {
                return Err((format!("credentials.{field}"), "required".into()));
            }
        }
        Ok(())
    }

    /// Each set field by its stored name, for sealing.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("bot_token", &self.bot_token),
            ("signing_secret", &self.signing_secret),
            ("access_token", &self.access_token),
            ("app_secret", &self.app_secret),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_deref().map(|v| (name, v)))
    }
}

/// A channel as stored; secrets sealed in `sealed` (field name → sealed
/// text), the WhatsApp verify token as its SHA-256 only.
#[derive(Clone, Serialize, Deserialize)]
pub struct Channel {
    pub id: ChannelId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub kind: ChannelKind,
    pub name: String,
    pub enabled: bool,
    pub status: ChannelStatus,
    pub last_error: Option<String>,
    pub settings: ChannelSettings,
    /// The vendor's own id of the bot, unique on the instance: Telegram's
    /// bot id, Slack's `{team_id}:{bot_user_id}`, WhatsApp's number.
    pub identity: String,
    /// Telegram: the bot's username; Slack: the bot's user id.
    pub bot_user: Option<String>,
    /// Sealed secrets: the credentials' fields and Telegram's webhook
    /// secret (`secret_token`).
    pub sealed: std::collections::BTreeMap<String, String>,
    /// WhatsApp: hex SHA-256 of the verify token.
    pub verify_token_sha256: Option<String>,
    pub contact_count: u64,
    pub last_message_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channel")
            .field("id", &self.id)
            .field("org_id", &self.org_id)
            .field("agent_id", &self.agent_id)
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("enabled", &self.enabled)
            .field("status", &self.status)
            .field("identity", &self.identity)
            .field("sealed", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// A channel's secrets, opened for a call (never stored or logged so).
#[derive(Clone, Default)]
pub struct Opened {
    pub bot_token: String,
    pub signing_secret: String,
    pub access_token: String,
    pub app_secret: String,
    /// Telegram's webhook secret.
    pub secret_token: String,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opened(<redacted>)")
    }
}

/// Someone who wrote to a channel, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    pub id: ContactId,
    pub channel_id: ChannelId,
    /// Telegram `from.id`, Slack `user`, WhatsApp `from`.
    pub external_id: String,
    pub display_name: Option<String>,
    pub username: Option<String>,
    /// The contact's thread, once its first message was answered.
    pub thread_id: Option<ThreadId>,
    pub message_count: u64,
    /// Jobs of the contact waiting (at most 20).
    #[serde(default)]
    pub pending: u32,
    pub first_seen_at: DateTime<Utc>,
    pub last_message_at: DateTime<Utc>,
}

/// 64 random characters of `[A-Za-z0-9_-]` (Telegram's webhook secret).
pub fn webhook_secret() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    let mut bytes = [0u8; 64];
    fill_random(&mut bytes);
    bytes
        .iter()
        .map(|b| ALPHABET[(*b & 63) as usize] as char)
        .collect()
}

/// A WhatsApp verify token: `cwv_` and 32 hex digits.
pub fn verify_token() -> String {
    let mut bytes = [0u8; 16];
    fill_random(&mut bytes);
    format!("cwv_{}", hex::encode(bytes))
}

fn fill_random(bytes: &mut [u8]) {
    // The OS's generator; should it fail, a UUIDv4's randomness (also the
    // OS's) is the fallback rather than a panic.
    if getrandom::fill(bytes).is_err() {
        for chunk in bytes.chunks_mut(16) {
            let id = uuid::Uuid::new_v4();
            chunk.copy_from_slice(&id.as_bytes()[..chunk.len()]);
        }
    }
}

/// Hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests;
