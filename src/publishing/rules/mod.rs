//! The rules of a publication's fields (`publishing.md` "Publications"):
//! bounds, defaults, the identity/visibility alias, the generation bumps and
//! the slug. A change is applied whole or refused (422 naming the field);
//! nothing here touches the store.

use chrono::Utc;
use confer_actors::gating::is_model_facing_name;
use serde_json::{Map, Value};

use super::domains::{self, EmbedOrigin};
use super::{
    Identity, Persistence, Publication, PublicationLimits, PublicationMode, PublicationStatus,
};
use crate::error::ApiError;

/// A field's change: `None` leaves it, `Some(None)` is JSON `null`.
pub type Change<T> = Option<Option<T>>;

/// The changes of a POST or PATCH, as parsed from its body.
#[derive(Clone, Debug, Default)]
pub struct PublicationChanges {
    pub title: Change<String>,
    pub description: Change<String>,
    pub greeting: Change<String>,
    pub suggested_prompts: Change<Vec<String>>,
    pub theme_color: Change<String>,
    pub avatar_url: Change<String>,
    pub persistence: Change<String>,
    pub retention_days: Change<i64>,
    pub status: Change<String>,
    pub mode: Change<String>,
    pub allowed_domains: Change<Vec<String>>,
    pub identity: Change<String>,
    pub visibility: Change<String>,
    pub public_tools: Change<Vec<String>>,
    pub limits: Change<Map<String, Value>>,
    pub rotate_identity_secret: bool,
    pub revoke_sessions: bool,
}

/// What applying changes did besides the record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// A new identity secret (plain), to show once.
    pub new_identity_secret: Option<String>,
    /// The generation went up: older visitor tokens are dead.
    pub generation_bumped: bool,
}

pub(super) fn invalid(field: &str, rule: impl std::fmt::Display) -> ApiError {
    ApiError::invalid(field, rule)
}

/// A nullable field's new value, or the old one when absent.
fn nullable<T>(change: Change<T>, old: Option<T>) -> Option<T> {
    match change {
        None => old,
        Some(new) => new,
    }
}

/// A non-nullable field's new value (`null` refused), or `None` when absent.
fn required<T>(field: &str, change: Change<T>) -> Result<Option<T>, ApiError> {
    match change {
        None => Ok(None),
        Some(None) => Err(invalid(field, "must not be null")),
        Some(Some(value)) => Ok(Some(value)),
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

pub(super) fn enum_value<T>(field: &str, value: &str, choices: &[(&str, T)]) -> Result<T, ApiError>
where
    T: Copy,
{
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            invalid(field, format!("must be one of {}", names.join(", ")))
        })
}

/// `#rrggbb`.
fn is_hex_color(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// An https URL of at most 2,048 characters without userinfo.
fn check_avatar(url: &str) -> Result<(), ApiError> {
    let field = "avatarUrl";
    if url.len() > 2048 {
        return Err(invalid(field, "at most 2048 characters"));
    }
    let parsed = url::Url::parse(url).map_err(|_| invalid(field, "must be an https URL"))?;
    if parsed.scheme() != "https" || parsed.host_str().is_none() {
        return Err(invalid(field, "must be an https URL"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(field, "must not carry userinfo"));
    }
    Ok(())
}

/// The limits merged by key (`limits.x` named on a bad value).
fn merge_limits(
    mut limits: PublicationLimits,
    changes: &Map<String, Value>,
) -> Result<PublicationLimits, ApiError> {
    for (key, value) in changes {
        let field = format!("limits.{key}");
        let number = |min: u64, max: u64| -> Result<u64, ApiError> {
            value
                .as_u64()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| invalid(&field, format!("must be an integer from {min} to {max}")))
        };
        // Ranges fit in u32 where the field is u32.
        let small = |min: u64, max: u64| number(min, max).map(|n| n as u32);
        match key.as_str() {
            "visitorMessagesPerMinute" => limits.visitor_messages_per_minute = small(1, 600)?,
            "ipMessagesPerMinute" => limits.ip_messages_per_minute = small(1, 6000)?,
            "maxConcurrentTurns" => limits.max_concurrent_turns = small(1, 256)?,
            "maxMessageChars" => limits.max_message_chars = small(1, 32768)?,
            "maxOutputTokens" => limits.max_output_tokens = small(64, 32768)?,
            "dailyTokenBudget" => {
                limits.daily_token_budget = match value {
                    Value::Null => None,
                    _ => Some(number(1000, 1_000_000_000_000)?),
                }
            }
            _ => return Err(invalid(&field, "is not a limit")),
        }
    }
    Ok(limits)
}

/// A new publication of an agent named `agent_name`, `changes` applied.
pub fn create(
    base: Publication,
    agent_name: &str,
    changes: PublicationChanges,
    org_domains: &[EmbedOrigin],
    new_secret: impl FnOnce() -> String,
) -> Result<(Publication, Applied), ApiError> {
    if changes.rotate_identity_secret || changes.revoke_sessions {
        let field = if changes.revoke_sessions {
            "revokeSessions"
        } else {
            "rotateIdentitySecret"
        };
        return Err(invalid(field, "only on PATCH"));
    }
    let mut base = base;
    base.title = agent_name.chars().take(100).collect();
    if base.title.trim().is_empty() {
        base.title = "Chat".into();
    }
    apply(base, changes, org_domains, new_secret)
}

/// `publication` with `changes` applied, or the first rule they break.
pub fn apply(
    mut publication: Publication,
    changes: PublicationChanges,
    org_domains: &[EmbedOrigin],
    new_secret: impl FnOnce() -> String,
) -> Result<(Publication, Applied), ApiError> {
    let mut applied = Applied::default();
    if let Some(title) = required("title", changes.title)? {
        if !(1..=100).contains(&chars(&title)) || title.trim().is_empty() {
            return Err(invalid("title", "1 to 100 characters"));
        }
        publication.title = title;
    }
    if let Some(description) = required("description", changes.description)? {
        if chars(&description) > 500 {
            return Err(invalid("description", "at most 500 characters"));
        }
        publication.description = description;
    }
    publication.greeting = nullable(changes.greeting, publication.greeting.take());
    if publication
        .greeting
        .as_deref()
        .is_some_and(|g| chars(g) > 2000)
    {
        return Err(invalid("greeting", "at most 2000 characters"));
    }
    if let Some(prompts) = required("suggestedPrompts", changes.suggested_prompts)? {
        if prompts.len() > 6 {
            return Err(invalid("suggestedPrompts", "at most 6"));
        }
        if let Some(i) = prompts.iter().position(|p| !(1..=200).contains(&chars(p))) {
            return Err(invalid(
                &format!("suggestedPrompts[{i}]"),
                "1 to 200 characters",
            ));
        }
        publication.suggested_prompts = prompts;
    }
    if let Some(color) = required("themeColor", changes.theme_color)? {
        if !is_hex_color(&color) {
            return Err(invalid("themeColor", "must be #rrggbb"));
        }
        publication.theme_color = color.to_ascii_lowercase();
    }
    publication.avatar_url = nullable(changes.avatar_url, publication.avatar_url.take());
    if let Some(url) = &publication.avatar_url {
        check_avatar(url)?;
    }
    if let Some(persistence) = required("persistence", changes.persistence)? {
        publication.persistence = enum_value(
            "persistence",
            &persistence,
            &[
                ("local", Persistence::Local),
                ("session", Persistence::Session),
                ("none", Persistence::None),
            ],
        )?;
    }
    match changes.retention_days {
        None => {}
        Some(None) => publication.retention_days = None,
        Some(Some(days)) if (1..=3650).contains(&days) => {
            publication.retention_days = Some(days as u32); // within 1..=3650
        }
        Some(Some(_)) => return Err(invalid("retentionDays", "1 to 3650, or null")),
    }
    if let Some(status) = required("status", changes.status)? {
        let status = enum_value(
            "status",
            &status,
            &[
                ("active", PublicationStatus::Active),
                ("paused", PublicationStatus::Paused),
            ],
        )?;
        if publication.status == PublicationStatus::Active && status == PublicationStatus::Paused {
            applied.generation_bumped = true;
        }
        publication.status = status;
    }
    if let Some(mode) = required("mode", changes.mode)? {
        publication.mode = enum_value(
            "mode",
            &mode,
            &[
                ("single", PublicationMode::Single),
                ("multiplayer", PublicationMode::Multiplayer),
            ],
        )?;
    }
    match changes.allowed_domains {
        None => {}
        Some(None) => publication.allowed_domains = None,
        Some(Some(list)) => {
            publication.allowed_domains = Some(domains::parse_covered(
                "allowedDomains",
                &list,
                org_domains,
            )?);
        }
    }
    let identity = required("identity", changes.identity)?
        .map(|value| {
            enum_value(
                "identity",
                &value,
                &[
                    ("anonymous", Identity::Anonymous),
                    ("optional", Identity::Optional),
                    ("required", Identity::Required),
                ],
            )
        })
        .transpose()?;
    let aliased = required("visibility", changes.visibility)?
        .map(|value| {
            enum_value(
                "visibility",
                &value,
                &[
                    ("public", Identity::Anonymous),
                    ("private", Identity::Required),
                ],
            )
        })
        .transpose()?;
    publication.identity = match (identity, aliased) {
        (Some(identity), Some(aliased)) if identity.visibility() != aliased.visibility() => {
            return Err(invalid("visibility", "contradicts identity"));
        }
        (Some(identity), _) => identity,
        (None, Some(aliased)) => aliased,
        (None, None) => publication.identity,
    };
    if let Some(tools) = required("publicTools", changes.public_tools)? {
        if tools.len() > 64 {
            return Err(invalid("publicTools", "at most 64 names"));
        }
        for (i, name) in tools.iter().enumerate() {
            let field = format!("publicTools[{i}]");
            if !is_model_facing_name(name) {
                return Err(invalid(&field, "must be an exact model-facing tool name"));
            }
            if name.starts_with("computer_") || name.starts_with("delegate__") {
                return Err(invalid(
                    &field,
                    "computer and delegate tools are never public",
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        let mut unique = tools;
        unique.retain(|name| seen.insert(name.clone()));
        publication.public_tools = unique;
    }
    match changes.limits {
        None => {}
        Some(None) => return Err(invalid("limits", "must not be null")),
        Some(Some(limits)) => publication.limits = merge_limits(publication.limits, &limits)?,
    }
    let needs_secret =
        publication.identity != Identity::Anonymous && publication.identity_secret.is_none();
    if needs_secret || changes.rotate_identity_secret {
        applied.new_identity_secret = Some(new_secret());
    }
    if changes.revoke_sessions {
        applied.generation_bumped = true;
    }
    if applied.generation_bumped {
        publication.generation += 1;
    }
    publication.updated_at = Utc::now();
    Ok((publication, applied))
}

mod multiplayer;
mod slug;

pub use self::multiplayer::apply_multiplayer;
pub use self::slug::{generated_slug, is_valid_slug};

#[cfg(test)]
mod tests;
