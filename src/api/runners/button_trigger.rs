//! The button among a runner's triggers (`runners.md` Objects): made,
//! changed and deleted through `…/triggers` like the other kinds, one per
//! runner. Field rules: `crate::runners::button`; its public page and
//! routes: `super::button`.

use actix_web::HttpResponse;
use chrono::Utc;
use confer_actors::{OrgId, TriggerId};
use serde::Deserialize;

use crate::api::extract::Patch;
use crate::error::ApiError;
use crate::runners::Runner;
use crate::runners::button::{Button, ButtonDraft, ButtonSettings, ButtonTrigger};
use crate::runners::schedule_trigger::ScheduleDraft;
use crate::runners::triggers::{MAX_TRIGGERS_PER_RUNNER, WebhookDraft};
use crate::state::AppState;
use crate::store::update::Updated;

/// A button's fields in a trigger body (`rateLimitPerMin` is shared with
/// the webhook's fields).
#[derive(Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ButtonFields {
    /// The page's heading (default: the runner's name).
    title: Option<String>,
    /// Who may frame the page; `null`: the org's `allowedEmbedDomains`.
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    allowed_origins: Patch<Vec<String>>,
    /// The only server-side tools its runs are offered.
    public_tools: Option<Vec<String>>,
    /// Runs a UTC day (1–100,000; 200).
    daily_runs: Option<u32>,
}

impl ButtonFields {
    /// Whether any button-only field is given.
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.allowed_origins == Patch::Absent
            && self.public_tools.is_none()
            && self.daily_runs.is_none()
    }

    fn draft(self, webhook: WebhookDraft) -> Result<ButtonDraft, ApiError> {
        let WebhookDraft {
            rate_limit_per_min,
            require_signature,
            max_body_bytes,
            idempotency_header,
            rotation_grace_secs,
        } = webhook;
        let others = require_signature.is_some()
            || max_body_bytes.is_some()
            || idempotency_header.is_some()
            || rotation_grace_secs.is_some();
        if others {
            return Err(ApiError::invalid(
                "kind",
                "webhook fields (`requireSignature`…) need `kind: \"webhook\"`",
            ));
        }
        Ok(ButtonDraft {
            title: self.title,
            allowed_origins: self.allowed_origins.into_change(),
            public_tools: self.public_tools,
            rate_limit_per_min,
            daily_runs: self.daily_runs,
        })
    }
}

/// The org's embed list, parsed.
async fn org_origins(
    state: &AppState,
    org: OrgId,
) -> Result<Vec<crate::publishing::domains::EmbedOrigin>, ApiError> {
    Ok(state
        .store
        .run(move |s| s.org_settings(org))
        .await?
        .origins())
}

/// The trigger as answered.
pub fn answer(state: &AppState, button: &Button) -> ButtonTrigger {
    button.answer(&state.settings.public_url())
}

/// `POST …/triggers {kind: "button", …}`: the runner's one button.
pub async fn create(
    state: &AppState,
    runner: Runner,
    enabled: Option<bool>,
    fields: ButtonFields,
    webhook: WebhookDraft,
    schedule: &ScheduleDraft,
) -> Result<HttpResponse, ApiError> {
    if !schedule.is_empty() {
        return Err(ApiError::invalid(
            "kind",
            "schedule fields (`cron`, `input`…) need `kind: \"schedule\"`",
        ));
    }
    let org = runner.org_id;
    let settings = fields.draft(webhook)?.apply(
        ButtonSettings::new(&runner.name),
        &org_origins(state, org).await?,
    )?;
    let now = Utc::now();
    let button = Button {
        id: TriggerId::new(),
        runner_id: runner.id,
        org_id: org,
        enabled: enabled.unwrap_or(true),
        settings,
        created_at: now,
        updated_at: now,
    };
    let stored = button.clone();
    if !state.store.write(move |s| s.put_button(&stored)).await? {
        return Err(ApiError::Conflict(format!(
            "the runner has a button already, or {MAX_TRIGGERS_PER_RUNNER} triggers"
        )));
    }
    Ok(HttpResponse::Created().json(answer(state, &button)))
}

/// `PATCH …/triggers/{tid}` of the runner's button.
pub async fn update(
    state: &AppState,
    runner: &Runner,
    id: TriggerId,
    enabled: Option<bool>,
    fields: ButtonFields,
    webhook: WebhookDraft,
) -> Result<HttpResponse, ApiError> {
    let org = runner.org_id;
    let draft = fields.draft(webhook)?;
    let origins = org_origins(state, org).await?;
    let runner_id = runner.id;
    let updated = state
        .store
        .write(move |s| {
            s.update_button(org, runner_id, id, |mut button| {
                button.settings = draft.clone().apply(button.settings.clone(), &origins)?;
                if let Some(enabled) = enabled {
                    button.enabled = enabled;
                }
                button.updated_at = Utc::now();
                Ok::<_, ApiError>(button)
            })
        })
        .await?;
    match updated {
        Updated::Stored(button) => Ok(HttpResponse::Ok().json(answer(state, &button))),
        Updated::Gone => Err(ApiError::not_found("trigger")),
        Updated::Refused(error) => Err(error),
    }
}
