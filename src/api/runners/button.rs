//! A runner's public button (`runners.md` "Button page and embed.js"): the
//! page `GET R/button`, its `POST` that starts a run, the run's public
//! events `GET R/button/runs/{runId}/events?viewToken=`, and the launcher
//! `GET R/embed.js`. No bearer: the enabled button is the permission, and
//! its checks run in the contract's order: JSON only (415), the `Origin`
//! (403), the per-address rate (429), the day's runs (429
//! `BUDGET_EXHAUSTED`), then as a run's creation. A button run is a
//! public turn (only the button's `public_tools`, see
//! `crate::runners::drive`); its events carry no tool event.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use confer_actors::{Metadata, RunId, RunnerId, codes};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::events::{self, Audience};
use crate::api::extract::parse_json;
use crate::api::pages;
use crate::api::streams::{StreamQuery, resume_point};
use crate::auth::api_keys::hash_secret;
use crate::auth::visitor::client_ip;
use crate::error::ApiError;
use crate::publishing::domains::EmbedOrigin;
use crate::runners::button::{self, Button};
use crate::runners::suggestions::Suggestion;
use crate::runners::{OutputMode, Run, RunRecord, RunTrigger, Runner, TriggerKind};
use crate::state::AppState;
use crate::store::runners::keyed::KeyedRun;

/// The largest run input, serialized (bytes).
const MAX_INPUT_BYTES: usize = 256 * 1024;

/// `GET R/button` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// `1`: the framed layout (chosen by the page).
    #[allow(dead_code)] // Read by the page's script.
    embed: Option<String>,
}

/// `POST R/button` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ButtonRun {
    /// Matches the runner's `inputSchema`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    input: Option<Value>,
}

/// `POST R/button` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ButtonRunStarted {
    #[schema(value_type = uuid::Uuid)]
    run_id: RunId,
    /// `rvt_…`: opens the run's public events until an hour after it ends.
    view_token: String,
}

/// `GET R/button/runs/{runId}/events` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ViewQuery {
    /// The `view_token` the run's `POST` answered.
    #[serde(rename = "viewToken")]
    view_token: Option<String>,
    /// The last event id seen (`T.N`), for clients that cannot set
    /// `Last-Event-ID`.
    after: Option<String>,
}

/// The path of one button run.
#[derive(Deserialize)]
pub struct ButtonRunPath {
    runner_id: RunnerId,
    run_id: RunId,
}

/// What the page reads before it draws the form (in the page itself).
#[derive(Serialize)]
struct PageConfig<'a> {
    runner_id: RunnerId,
    title: &'a str,
    description: Option<&'a str>,
    input_schema: &'a Value,
    output_mode: OutputMode,
    suggestions: Vec<Suggestion>,
}

/// An enabled button, its live runner, and who may frame it.
struct Open {
    button: Button,
    runner: Runner,
    framers: Vec<EmbedOrigin>,
}

/// The runner's enabled button on a live runner, if any.
async fn open_button(state: &AppState, runner: RunnerId) -> Result<Option<Open>, ApiError> {
    Ok(state
        .store
        .run(move |s| {
            let Some(button) = s.button(runner)?.filter(|b| b.enabled) else {
                return Ok(None);
            };
            let Some(runner) = s
                .runner(button.org_id, runner)?
                .filter(|r| r.deleted_at.is_none())
            else {
                return Ok(None);
            };
            let org = s.org_settings(button.org_id)?.origins();
            let framers = button.framers(&org);
            Ok(Some(Open {
                button,
                runner,
                framers,
            }))
        })
        .await?)
}

/// JSON text safe inside a `<script type="application/json">` element.
fn script_json(value: &impl Serialize) -> Result<String, ApiError> {
    let text =
        serde_json::to_string(value).map_err(|e| ApiError::Internal(format!("page: {e}")))?;
    Ok(text
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026"))
}

/// `GET /api/runners/{id}/button`: the form page (404 HTML without an
/// enabled button).
#[utoipa::path(get, path = "/api/runners/{runner_id}/button", tag = "runners", operation_id = "runner_button_page", params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), PageQuery), responses((status = 200, description = "The button page, framed only by its allowed origins", content_type = "text/html"), (status = 404, description = "No enabled button (an HTML page)", content_type = "text/html")))]
pub async fn page(
    state: web::Data<AppState>,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let runner_id = path.into_inner();
    let Some(open) = open_button(&state, runner_id).await? else {
        return Ok(pages::not_found_page("There is no button here."));
    };
    let (org, id) = (open.button.org_id, runner_id);
    let suggestions = state
        .store
        .run(move |s| s.runner_suggestions(org, id))
        .await?
        .suggestions;
    let config = script_json(&PageConfig {
        runner_id,
        title: &open.button.settings.title,
        description: open.runner.description.as_deref(),
        input_schema: &open.runner.input_schema,
        output_mode: open.runner.output_mode,
        suggestions,
    })?;
    let template = pages::file("button.html")?;
    let html = String::from_utf8_lossy(&template).replace("{{config}}", &config);
    pages::page_with(button::page_policy(&open.framers), html.into())
}

/// The origin this server answers on, as the request reached it.
fn own_origins(state: &AppState, request: &HttpRequest) -> [String; 2] {
    let public = url::Url::parse(&state.settings.public_url())
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let info = request.connection_info();
    [public, format!("{}://{}", info.scheme(), info.host())]
}

/// `POST /api/runners/{id}/button`: starts a run from the page.
#[utoipa::path(post, path = "/api/runners/{runner_id}/button", tag = "runners", operation_id = "runner_button_run", params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = ButtonRun, responses((status = 202, description = "The run, queued, and its view token", body = ButtonRunStarted), (status = 403, description = "An `Origin` that may not frame the button", body = crate::error::ErrorBody<'static>), (status = 404, description = "No enabled button", body = crate::error::ErrorBody<'static>), (status = 415, description = "Not JSON", body = crate::error::ErrorBody<'static>), (status = 422, description = "The input breaks the schema (`errors: [{path, message}]`)", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED` (this address), `BUDGET_EXHAUSTED` (the day's runs; `Retry-After` to midnight UTC) or `RUNNER_QUEUE_FULL`", body = crate::error::ErrorBody<'static>)))]
pub async fn start(
    state: web::Data<AppState>,
    path: web::Path<RunnerId>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    if !super::webhooks::is_json(&request) {
        return Err(ApiError::Refused {
            code: codes::UNSUPPORTED_MEDIA_TYPE,
            detail: "Content-Type: application/json only".into(),
            retry_after: None,
        });
    }
    let Some(Open {
        button,
        runner,
        framers,
    }) = open_button(&state, path.into_inner()).await?
    else {
        return Err(ApiError::not_found("button"));
    };
    let origin = request
        .headers()
        .get(actix_web::http::header::ORIGIN)
        .and_then(|v| v.to_str().ok());
    let allowed = own_origins(&state, &request)
        .iter()
        .any(|own| button::origin_allowed(origin, own, &framers));
    if !allowed {
        return Err(ApiError::Forbidden(
            "Origin: not allowed to use this button".into(),
        ));
    }
    let settings = &button.settings;
    let ip = client_ip(&request, &state.public.proxies);
    state
        .public
        .limits
        .button(runner.id, ip, settings.rate_limit_per_min)?;
    let now = Utc::now();
    let (runner_id, today, daily) = (runner.id, now.date_naive(), settings.daily_runs);
    let exhausted = || ApiError::Refused {
        code: codes::BUDGET_EXHAUSTED,
        detail: format!("dailyRuns: this button starts {daily} runs a day (UTC)"),
        retry_after: Some(button::secs_to_midnight(now)),
    };
    let used = state
        .store
        .run(move |s| s.button_runs_on(runner_id, today))
        .await?;
    if used >= u64::from(daily) {
        return Err(exhausted());
    }
    let input = parse_json::<ButtonRun>(&body)?
        .input
        .unwrap_or_else(|| Value::Object(Default::default()));
    if serde_json::to_vec(&input).map_or(usize::MAX, |b| b.len()) > MAX_INPUT_BYTES {
        return Err(ApiError::invalid("input", "over 256 KiB"));
    }
    let errors = super::runs::input_errors(&runner, &input)?;
    if !errors.is_empty() {
        return Err(ApiError::InvalidFields(errors));
    }
    if !state
        .store
        .write(move |s| s.count_button_run(runner_id, today, daily))
        .await?
    {
        return Err(exhausted());
    }
    let token = button::new_view_token()?;
    let trigger_id = button.id.to_string();
    let mut run = RunRecord::queued(
        &runner,
        input,
        Metadata::new(),
        RunTrigger {
            kind: TriggerKind::Button,
            id: Some(trigger_id.clone()),
            scheduled_for: None,
        },
        Run::trigger_user(TriggerKind::Button, &trigger_id),
    );
    run.view_token = Some(hex::encode(hash_secret(&token)));
    let max_queued = runner.max_queued_runs;
    let scope = *runner.id.as_bytes();
    match super::runs::create(&state, run, &runner, scope, None, None).await? {
        KeyedRun::Created(run) => Ok(HttpResponse::Accepted().json(ButtonRunStarted {
            run_id: run.id,
            view_token: token,
        })),
        KeyedRun::QueueFull => Err(super::runs::queue_full(max_queued)),
        KeyedRun::Replayed(_) | KeyedRun::KeyReused | KeyedRun::NonceUsed => Err(
            ApiError::Internal("a button run has no key or nonce".into()),
        ),
        KeyedRun::RunnerGone => Err(ApiError::not_found("button")),
    }
}

/// `GET /api/runners/{id}/button/runs/{runId}/events?viewToken=`: the
/// run's `token`, `run_status`, `error` and `done` events, opened by its
/// current `run_status`. A wrong token, or one an hour past its run's end,
/// is 404.
#[utoipa::path(get, path = "/api/runners/{runner_id}/button/runs/{run_id}/events", tag = "runners", operation_id = "runner_button_events", params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("run_id" = uuid::Uuid, Path, description = "The run's id"), ViewQuery, ("Last-Event-ID" = Option<String>, Header, description = "The last event id seen (`T.N`)")), responses((status = 200, description = "`run_status`, then the run's `token`, `error`, `run_status` and `done` events, as Server-Sent Events", content_type = "text/event-stream"), (status = 404, description = "No such run, or a wrong or expired view token", body = crate::error::ErrorBody<'static>)))]
pub async fn stream(
    state: web::Data<AppState>,
    path: web::Path<ButtonRunPath>,
    query: web::Query<ViewQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let after = resume_point(
        &request,
        &StreamQuery {
            after: query.after,
            follow: false,
        },
    )?;
    let presented = query
        .view_token
        .filter(|t| t.starts_with(button::VIEW_TOKEN_PREFIX))
        .map(|t| hex::encode(hash_secret(&t)));
    let changes = state.runs.subscribe();
    let (runner, id) = (path.runner_id, path.run_id);
    let run = state
        .store
        .run(move |s| {
            let Some(button) = s.button(runner)? else {
                return Ok(None);
            };
            Ok(s.run(button.org_id, id)?
                .filter(|run| run.runner_id == runner))
        })
        .await?
        .filter(|run| presented.is_some() && run.view_token == presented)
        .filter(|run| button::view_open(run.ended_at, Utc::now()))
        .ok_or_else(|| ApiError::not_found("run"))?;
    events::open(&state, run, changes, after, Audience::Public).await
}

/// `GET /api/runners/{id}/embed.js`: the launcher (the chats' bytes; it
/// reads the runner from its own `src`); 404 without an enabled button.
#[utoipa::path(get, path = "/api/runners/{runner_id}/embed.js", tag = "runners", operation_id = "runner_embed", params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The embed launcher", content_type = "text/javascript"), (status = 404, description = "No enabled button", body = crate::error::ErrorBody<'static>)))]
pub async fn embed(
    state: web::Data<AppState>,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    if open_button(&state, path.into_inner()).await?.is_none() {
        return Err(ApiError::not_found("button"));
    }
    pages::embed_script()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn page_json_cannot_close_its_script_element() {
        let text = script_json(&json!({"t": "</script><script>alert(1)</script>&"})).unwrap();
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["t"], "</script><script>alert(1)</script>&");
    }
}
