//! What a create or a credentials change does before anything is stored:
//! the vendor asked who the credentials are, the bot checked free on the
//! instance, Telegram's webhook pointed here, the secrets sealed.

use confer_actors::ChannelId;

use super::webhook_url;
use crate::channels::vendors::{SetupError, Verified};
use crate::channels::{Channel, ChannelKind, ChannelSettings, Credentials, Opened};
use crate::error::ApiError;
use crate::state::AppState;

/// The vendor's refusal as 422 naming the field, its silence as 502.
fn setup_error(error: SetupError) -> ApiError {
    match error {
        SetupError::Refused { field, detail } => {
            ApiError::invalid(field, format!("refused by the vendor: {detail}"))
        }
        SetupError::Unreachable(detail) => ApiError::Refused {
            code: confer_actors::codes::UPSTREAM_UNAVAILABLE,
            detail: format!("the channel's vendor did not answer: {detail}"),
            retry_after: None,
        },
    }
}

pub(super) fn opened_of(credentials: &Credentials, secret_token: String) -> Opened {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    Opened {
        bot_token: text(&credentials.bot_token),
        signing_secret: text(&credentials.signing_secret),
        access_token: text(&credentials.access_token),
        app_secret: text(&credentials.app_secret),
        secret_token,
    }
}

/// Asks the vendor who `credentials` are, checks no other channel has that
/// bot, and points the vendor's webhook here (Telegram).
pub(super) async fn verify(
    state: &AppState,
    id: ChannelId,
    kind: ChannelKind,
    opened: &Opened,
    settings: &ChannelSettings,
) -> Result<Verified, ApiError> {
    let apis = state.channels.apis();
    let verified = apis
        .setup(kind, opened, settings)
        .await
        .map_err(setup_error)?;
    let identity = verified.identity.clone();
    let owner = state
        .store
        .run(move |s| s.channel_with_identity(kind, &identity))
        .await?;
    if owner.is_some_and(|owner| owner != id) {
        return Err(taken(kind));
    }
    apis.register(kind, opened, &webhook_url(state, id))
        .await
        .map_err(setup_error)?;
    Ok(verified)
}

pub(super) fn taken(kind: ChannelKind) -> ApiError {
    ApiError::Conflict(format!(
        "another channel has this {}",
        match kind {
            ChannelKind::Telegram => "Telegram bot",
            ChannelKind::Slack => "Slack team and bot user",
            ChannelKind::Whatsapp => "WhatsApp number",
        }
    ))
}

/// Seals `credentials` (and Telegram's webhook secret) into `channel`.
pub(super) async fn sealed(
    state: &AppState,
    mut channel: Channel,
    credentials: Credentials,
    secret_token: Option<String>,
) -> Result<Channel, ApiError> {
    Ok(state
        .store
        .run(move |s| {
            channel.sealed.clear();
            for (field, value) in credentials.fields() {
                s.seal_channel_secret(&mut channel, field, value)?;
            }
            if let Some(secret) = &secret_token {
                s.seal_channel_secret(&mut channel, "secret_token", secret)?;
            }
            Ok::<_, confer_actors::StoreError>(channel)
        })
        .await?)
}
