//! `/api/runners/{id}/triggers`: a runner's webhook, schedule and button
//! triggers (`runners.md` Routes; the schedule half is `schedule_triggers`,
//! the button's `button_trigger`). A
//! webhook's path token (`whk_…`) and signing secret (`cfs_…`) are shown
//! once, by the call that made them; the store keeps the token's hash and
//! the secret sealed. Field rules: `crate::runners::triggers`.

use actix_web::{HttpResponse, web};
use chrono::{Duration, Utc};
use confer_actors::{RunnerId, TriggerId};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::button_trigger::{self, ButtonFields};
use super::{live_runner, schedule_triggers};
use crate::api::extract::JsonBody;
use crate::auth::api_keys::{hash_secret, random_token};
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::TriggerKind;
use crate::runners::button::ButtonTrigger;
use crate::runners::schedule_trigger::{ScheduleDraft, ScheduleTrigger};
use crate::runners::triggers::{
    MAX_TRIGGERS_PER_RUNNER, SECRET_PREFIX, TOKEN_PREFIX, Trigger, TriggerRecord, WebhookDraft,
    WebhookSettings, token_prefix,
};
use crate::state::AppState;
use crate::store::update::Updated;

/// `POST …/triggers` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTrigger {
    /// `webhook`, `schedule` or `button` (one per runner).
    kind: TriggerKind,
    enabled: Option<bool>,
    #[serde(flatten)]
    webhook: WebhookDraft,
    /// A schedule trigger's fields.
    #[serde(flatten)]
    schedule: ScheduleDraft,
    /// A button's fields (its `rateLimitPerMin` is the webhook's field).
    #[serde(flatten)]
    button: ButtonFields,
}

/// `PATCH …/triggers/{tid}` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PatchTrigger {
    enabled: Option<bool>,
    /// A new token; the old one works `rotationGraceSecs` more.
    rotate_token: Option<bool>,
    /// A new signing secret; the old one dies at once.
    rotate_secret: Option<bool>,
    #[serde(flatten)]
    webhook: WebhookDraft,
    /// A schedule trigger's fields.
    #[serde(flatten)]
    schedule: ScheduleDraft,
    /// A button's fields.
    #[serde(flatten)]
    button: ButtonFields,
}

/// What a create or PATCH answers: a webhook with its secrets, or a
/// schedule trigger.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // Only the API description names it.
pub enum TriggerAnswer {
    Webhook(TriggerWithSecrets),
    Schedule(ScheduleTrigger),
    Button(ButtonTrigger),
}

/// A trigger of either kind, as listed.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum AnyTrigger {
    Webhook(Trigger),
    Schedule(ScheduleTrigger),
    Button(ButtonTrigger),
}

impl AnyTrigger {
    fn created_at(&self) -> chrono::DateTime<Utc> {
        match self {
            Self::Webhook(t) => t.created_at,
            Self::Schedule(t) => t.created_at,
            Self::Button(t) => t.created_at,
        }
    }
}

/// A trigger with the secrets its call made.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TriggerWithSecrets {
    #[serde(flatten)]
    trigger: Trigger,
    /// The path token (shown once).
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    /// Where to POST: `{public_url}/api/runners/webhooks/{token}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    /// The HMAC key of signed requests (shown once).
    #[serde(skip_serializing_if = "Option::is_none")]
    signing_secret: Option<String>,
}

/// The path of one trigger.
#[derive(Deserialize)]
pub struct TriggerPath {
    runner_id: RunnerId,
    trigger_id: TriggerId,
}

fn shown(
    state: &AppState,
    trigger: Trigger,
    token: Option<&SecretString>,
    secret: Option<&SecretString>,
) -> TriggerWithSecrets {
    let token = token.map(|t| t.expose_secret().to_owned());
    TriggerWithSecrets {
        url: token.as_ref().map(|t| {
            format!(
                "{}/api/runners/webhooks/{t}",
                state.settings.public_url().trim_end_matches('/')
            )
        }),
        token,
        signing_secret: secret.map(|s| s.expose_secret().to_owned()),
        trigger,
    }
}

/// `GET /api/runners/{id}/triggers`
#[utoipa::path(get, path = "/api/runners/{runner_id}/triggers", tag = "runners", operation_id = "triggers_list", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The runner's triggers, oldest first", body = [AnyTrigger])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    let org = caller.org_id;
    let id = runner.id;
    let (webhooks, button) = state
        .store
        .run(move |s| Ok((s.triggers(org, id)?, s.org_button(org, id, None)?)))
        .await?;
    let mut triggers: Vec<AnyTrigger> = webhooks.into_iter().map(AnyTrigger::Webhook).collect();
    if let Some(button) = button {
        triggers.push(AnyTrigger::Button(button_trigger::answer(&state, &button)));
    }
    let schedules = schedule_triggers::list(&state, org, &runner).await?;
    triggers.extend(schedules.into_iter().map(AnyTrigger::Schedule));
    triggers.sort_by_key(AnyTrigger::created_at);
    Ok(HttpResponse::Ok().json(triggers))
}

/// `POST /api/runners/{id}/triggers`: a webhook trigger, with its token,
/// URL and signing secret (shown this once), or a schedule trigger.
#[utoipa::path(post, path = "/api/runners/{runner_id}/triggers", tag = "runners", operation_id = "triggers_create", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = CreateTrigger, responses((status = 201, description = "A webhook trigger and its secrets, or a schedule trigger", body = TriggerAnswer), (status = 409, description = "The runner has 20 triggers", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field breaks its rule", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
    body: JsonBody<CreateTrigger>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    let body = body.into_inner();
    let button_fields = !body.button.is_empty();
    match body.kind {
        TriggerKind::Button => {
            return button_trigger::create(
                &state,
                runner,
                body.enabled,
                body.button,
                body.webhook,
                &body.schedule,
            )
            .await;
        }
        _ if button_fields => {
            return Err(ApiError::invalid(
                "kind",
                "button fields (`title`, `dailyRuns`…) need `kind: \"button\"`",
            ));
        }
        TriggerKind::Webhook if body.schedule.is_empty() => {}
        TriggerKind::Webhook => {
            return Err(ApiError::invalid(
                "kind",
                "schedule fields (`cron`, `input`…) need `kind: \"schedule\"`",
            ));
        }
        TriggerKind::Schedule if body.webhook.is_empty() => {
            return schedule_triggers::create(&state, runner, body.enabled, body.schedule).await;
        }
        TriggerKind::Schedule => {
            return Err(ApiError::invalid(
                "kind",
                "webhook fields (`rateLimitPerMin`…) need `kind: \"webhook\"`",
            ));
        }
        TriggerKind::Manual => {
            return Err(ApiError::invalid(
                "kind",
                "`webhook`, `schedule` or `button` (a manual run is `POST …/runs`)",
            ));
        }
    }
    let token = random_token(TOKEN_PREFIX)?;
    let secret = random_token(SECRET_PREFIX)?;
    let settings = body
        .webhook
        .apply(WebhookSettings::new(token_prefix(token.expose_secret())))
        .map_err(ApiError::Validation)?;
    let now = Utc::now();
    let trigger = Trigger {
        id: TriggerId::new(),
        runner_id: runner.id,
        org_id: caller.org_id,
        kind: TriggerKind::Webhook,
        enabled: body.enabled.unwrap_or(true),
        webhook: settings,
        created_at: now,
        updated_at: now,
    };
    let record = TriggerRecord {
        trigger: trigger.clone(),
        token_hash: hex::encode(hash_secret(token.expose_secret())),
        retired_token: None,
        signing_secret: Some(secret.expose_secret().to_owned()),
    };
    if !state.store.write(move |s| s.put_trigger(record)).await? {
        return Err(ApiError::Conflict(format!(
            "the runner has {MAX_TRIGGERS_PER_RUNNER} triggers"
        )));
    }
    Ok(HttpResponse::Created().json(shown(&state, trigger, Some(&token), Some(&secret))))
}

/// `PATCH /api/runners/{id}/triggers/{tid}`
#[utoipa::path(patch, path = "/api/runners/{runner_id}/triggers/{trigger_id}", tag = "runners", operation_id = "triggers_update", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("trigger_id" = uuid::Uuid, Path, description = "The trigger's id")), request_body = PatchTrigger, responses((status = 200, description = "The trigger (a webhook with a rotated token or secret, or a schedule trigger)", body = TriggerAnswer), (status = 422, description = "A field breaks its rule", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<TriggerPath>,
    body: JsonBody<PatchTrigger>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.runner_id).await?;
    let (org, id) = (caller.org_id, path.trigger_id);
    let body = body.into_inner();
    let is_webhook = state
        .store
        .run(move |s| s.trigger_record(org, runner.id, id))
        .await?
        .is_some();
    if !is_webhook && body.rotate_token.is_none() && body.rotate_secret.is_none() {
        let runner_id = runner.id;
        let button = state
            .store
            .run(move |s| s.org_button(org, runner_id, Some(id)))
            .await?;
        if button.is_some() {
            if !body.schedule.is_empty() {
                return Err(ApiError::invalid(
                    "cron",
                    "schedule fields are a schedule trigger's",
                ));
            }
            return button_trigger::update(
                &state,
                &runner,
                id,
                body.enabled,
                body.button,
                body.webhook,
            )
            .await;
        }
    }
    if !body.button.is_empty() {
        return Err(ApiError::invalid("title", "button fields are a button's"));
    }
    if !is_webhook {
        if body.rotate_token.is_some() || body.rotate_secret.is_some() {
            return Err(ApiError::invalid(
                "rotateToken",
                "only a webhook trigger has a token or a secret",
            ));
        }
        if !body.webhook.is_empty() {
            return Err(ApiError::invalid(
                "rateLimitPerMin",
                "webhook fields are a webhook trigger's",
            ));
        }
        let schedule = confer_actors::ScheduleId(id.0);
        return schedule_triggers::update(&state, runner, schedule, body.enabled, body.schedule)
            .await?
            .ok_or_else(|| ApiError::not_found("trigger"));
    }
    if !body.schedule.is_empty() {
        return Err(ApiError::invalid(
            "cron",
            "schedule fields are a schedule trigger's",
        ));
    }
    let token = match body.rotate_token {
        Some(true) => Some(random_token(TOKEN_PREFIX)?),
        _ => None,
    };
    let secret = match body.rotate_secret {
        Some(true) => Some(random_token(SECRET_PREFIX)?),
        _ => None,
    };
    let (token_hash, plain_secret) = (
        token
            .as_ref()
            .map(|t| hex::encode(hash_secret(t.expose_secret()))),
        secret.as_ref().map(|s| s.expose_secret().to_owned()),
    );
    let new_prefix = token.as_ref().map(|t| token_prefix(t.expose_secret()));
    let (enabled, draft) = (body.enabled, body.webhook);
    let updated = state
        .store
        .write(move |s| {
            s.update_trigger(org, runner.id, id, plain_secret.as_deref(), |mut record| {
                let settings = draft.clone().apply(record.trigger.webhook.clone());
                record.trigger.webhook = settings.map_err(ApiError::Validation)?;
                if let Some(enabled) = enabled {
                    record.trigger.enabled = enabled;
                }
                if let (Some(hash), Some(prefix)) = (&token_hash, &new_prefix) {
                    let grace = record.trigger.webhook.rotation_grace_secs;
                    record.retired_token = (grace > 0).then(|| {
                        let until = Utc::now() + Duration::seconds(grace as i64);
                        (record.token_hash.clone(), until)
                    });
                    record.token_hash = hash.clone();
                    record.trigger.webhook.token_prefix = prefix.clone();
                }
                record.trigger.updated_at = Utc::now();
                Ok(record)
            })
        })
        .await?;
    let record = match updated {
        Updated::Stored(record) => record,
        Updated::Gone => return Err(ApiError::not_found("trigger")),
        Updated::Refused(error) => return Err(error),
    };
    Ok(HttpResponse::Ok().json(shown(
        &state,
        record.trigger,
        token.as_ref(),
        secret.as_ref(),
    )))
}

/// `DELETE /api/runners/{id}/triggers/{tid}`: its token is 404 at once.
#[utoipa::path(delete, path = "/api/runners/{runner_id}/triggers/{trigger_id}", tag = "runners", operation_id = "triggers_delete", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("trigger_id" = uuid::Uuid, Path, description = "The trigger's id")), responses((status = 200, description = "`{ok: true}`", body = crate::api::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<TriggerPath>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.runner_id).await?;
    let (org, id) = (caller.org_id, path.trigger_id);
    let runner_id = runner.id;
    let webhook = state
        .store
        .write(move |s| s.delete_trigger(org, runner_id, id))
        .await?;
    let button = !webhook
        && state
            .store
            .write(move |s| s.delete_button(org, runner_id, Some(id)))
            .await?;
    let schedule = confer_actors::ScheduleId(id.0);
    if !webhook && !button && !schedule_triggers::delete(&state, &runner, schedule).await? {
        return Err(ApiError::not_found("trigger"));
    }
    Ok(HttpResponse::Ok().json(crate::api::Ok { ok: true }))
}
