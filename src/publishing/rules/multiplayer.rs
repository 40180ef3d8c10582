//! The rules of an agent's multiplayer configuration.

use chrono::Utc;
use serde_json::Value;

use super::{enum_value, invalid};
use crate::error::ApiError;
use crate::publishing::{DisplayNames, MultiplayerConfig, WhoCanInvite};

/// The changes of a multiplayer PUT, checked (422 naming the field).
pub fn apply_multiplayer(
    mut config: MultiplayerConfig,
    max_participants: Option<Value>,
    who_can_invite: Option<String>,
    display_names: Option<String>,
) -> Result<MultiplayerConfig, ApiError> {
    if let Some(max) = max_participants {
        config.max_participants = max
            .as_u64()
            .filter(|n| (2..=100).contains(n))
            .ok_or_else(|| invalid("maxParticipants", "must be an integer from 2 to 100"))?
            as u32; // within 2..=100
    }
    if let Some(who) = who_can_invite {
        config.who_can_invite = enum_value(
            "whoCanInvite",
            &who,
            &[
                ("owner", WhoCanInvite::Owner),
                ("participants", WhoCanInvite::Participants),
            ],
        )?;
    }
    if let Some(names) = display_names {
        config.display_names = enum_value(
            "displayNames",
            &names,
            &[
                ("chosen", DisplayNames::Chosen),
                ("generated", DisplayNames::Generated),
            ],
        )?;
    }
    config.updated_at = Some(Utc::now());
    Ok(config)
}
