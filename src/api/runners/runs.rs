//! `/api/runners/{id}/runs`: starting, listing, reading, cancelling and
//! resuming a runner's runs (`runners.md` Runs). A run's turns run on a
//! hidden thread (`origin: "run"`) that this module creates with the run;
//! the worker (`crate::runners::worker`) drives it.

use actix_web::{HttpRequest, HttpResponse, web};
use confer_actors::{Metadata, RunId, RunnerId};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::live_runner;
use super::replay::{caller_key, replay, replayed_answer};
use crate::api::extract::JsonBody;
use crate::api::idempotency;
use crate::api::messages::ToolResultBody;
use crate::api::{page_limit, parse_cursor, timestamp};
use crate::auth::Member;
use crate::error::ApiError;
use crate::runners::schema::{self, FieldError};
use crate::runners::worker::CancelRefusal;
use crate::runners::{Run, RunRecord, RunStatus, RunTrigger, Runner, TriggerKind};
use crate::state::AppState;
use crate::store::runners::keyed::{KeyedRun, KeyedRunRequest};
use crate::store::update::Updated;
use confer_actors::codes;

/// The largest run input, serialized (bytes).
const MAX_INPUT_BYTES: usize = 256 * 1024;

/// `POST …/runs` body.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct StartRun {
    /// Matches the runner's `inputSchema` (default `{}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    input: Option<Value>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    metadata: Option<Metadata>,
}

/// `GET …/runs` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListRuns {
    /// Only runs in this status.
    #[param(value_type = Option<String>)]
    status: Option<RunStatus>,
    /// Only runs started by this kind of trigger.
    #[param(value_type = Option<String>)]
    trigger: Option<TriggerKind>,
    /// 50 by default, at most 200.
    limit: Option<u32>,
    /// `X-Next-Cursor` of the previous page.
    cursor: Option<String>,
}

/// `POST …/resume` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeRun {
    tool_results: Option<Vec<ToolResultBody>>,
}

/// The path of one run.
#[derive(Deserialize)]
pub struct RunPath {
    runner_id: RunnerId,
    run_id: RunId,
}

/// A run of the caller's org and runner, or 404.
pub(super) async fn find_run(
    state: &AppState,
    org: confer_actors::OrgId,
    path: &RunPath,
) -> Result<RunRecord, ApiError> {
    let (runner, id) = (path.runner_id, path.run_id);
    state
        .store
        .run(move |s| s.run(org, id))
        .await?
        .filter(|run| run.runner_id == runner)
        .ok_or_else(|| ApiError::not_found("run"))
}

/// Checks `input` against the runner's schema: the errors, paths under
/// `input`.
pub(super) fn input_errors(runner: &Runner, input: &Value) -> Result<Vec<FieldError>, ApiError> {
    let validator = schema::compile(&runner.input_schema)
        .map_err(|e| ApiError::Internal(format!("a stored input schema: {e}")))?;
    Ok(schema::errors(&validator, input)
        .into_iter()
        .map(|e| FieldError {
            path: format!("input{}", e.path),
            message: e.message,
        })
        .collect())
}

/// `POST /api/runners/{id}/runs`: a queued run on a new hidden thread.
/// An `Idempotency-Key` (scope: the runner and the caller) makes a retry
/// answer the first run, with `Idempotent-Replayed: true`.
#[utoipa::path(post, path = "/api/runners/{runner_id}/runs", tag = "runners", operation_id = "runs_start", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry answer the first run")), request_body = StartRun, responses((status = 201, description = "The run, queued", body = Run), (status = 422, description = "`VALIDATION_ERROR`: the input breaks the schema (`errors: [{path, message}]`); `IDEMPOTENCY_KEY_REUSED`", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RUNNER_QUEUE_FULL`", body = crate::error::ErrorBody<'static>)))]
pub async fn start(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
    body: JsonBody<StartRun>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let key = idempotency::from_header(&http)?;
    let runner = live_runner(&state, org, path.into_inner()).await?;
    let body = body.into_inner();
    let input = body
        .input
        .unwrap_or_else(|| Value::Object(Default::default()));
    let metadata = body.metadata.unwrap_or_default();
    let keyed = key.map(|key| {
        let request = json!({"input": input, "metadata": metadata}).to_string();
        (
            caller_key(b"run-create", &caller.user_id(), &key),
            hex::encode(Sha256::digest(request.as_bytes())),
        )
    });
    // A repeat is answered whatever the other rules now say.
    if let Some(replayed) = replay(&state, runner.id.as_bytes(), keyed.as_ref()).await? {
        return replayed_answer(&state, org, replayed, HttpResponse::Created()).await;
    }
    if serde_json::to_vec(&input).map_or(usize::MAX, |b| b.len()) > MAX_INPUT_BYTES {
        return Err(ApiError::invalid("input", "over 256 KiB"));
    }
    let errors = input_errors(&runner, &input)?;
    if !errors.is_empty() {
        return Err(ApiError::InvalidFields(errors));
    }
    let run = RunRecord::queued(
        &runner,
        input,
        metadata,
        RunTrigger {
            kind: TriggerKind::Manual,
            id: None,
            scheduled_for: None,
        },
        caller.user_id(),
    );
    let max_queued = runner.max_queued_runs;
    let scope = *runner.id.as_bytes();
    match create(&state, run, &runner, scope, None, keyed).await? {
        KeyedRun::Created(run) => Ok(HttpResponse::Created().json(run.run)),
        KeyedRun::Replayed(id) => {
            replayed_answer(&state, org, Ok(id), HttpResponse::Created()).await
        }
        KeyedRun::KeyReused => Err(super::webhooks::key_reused()),
        KeyedRun::QueueFull => Err(queue_full(max_queued)),
        KeyedRun::RunnerGone | KeyedRun::NonceUsed => Err(ApiError::not_found("runner")),
    }
}

/// Stores `run` of `runner` and its hidden thread in one flushed
/// transaction with the request's nonce and key (`scope`: the trigger's or
/// the runner's id); a created run is announced to the worker.
pub(super) async fn create(
    state: &AppState,
    run: RunRecord,
    runner: &Runner,
    scope: [u8; 16],
    nonce: Option<String>,
    key: Option<([u8; 32], String)>,
) -> Result<KeyedRun, ApiError> {
    let max_queued = runner.max_queued_runs;
    let thread = run.thread(runner);
    let created = state
        .store
        .write(move |s| {
            let request = KeyedRunRequest {
                scope,
                nonce: nonce.as_deref(),
                key: key.clone(),
            };
            s.create_keyed_run(&run, &thread, max_queued, &request)
        })
        .await?;
    if let KeyedRun::Created(run) = &created {
        state.runs.changed(run);
    }
    Ok(created)
}

pub(super) fn queue_full(max_queued: u32) -> ApiError {
    ApiError::Refused {
        code: codes::RUNNER_QUEUE_FULL,
        detail: format!("the runner has {max_queued} runs queued or waiting (maxQueuedRuns)"),
        retry_after: Some(5),
    }
}

/// `GET /api/runners/{id}/runs`: newest first; `X-Next-Cursor` when more
/// follow.
#[utoipa::path(get, path = "/api/runners/{runner_id}/runs", tag = "runners", operation_id = "runs_list", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ListRuns), responses((status = 200, description = "The runs, newest first", body = [Run])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
    query: web::Query<ListRuns>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let runner = path.into_inner();
    // A deleted runner's runs stay readable.
    super::any_runner(&state, org, runner).await?;
    let limit = page_limit(query.limit, 50, 200);
    let before = parse_cursor(query.cursor.as_deref())?;
    let (status, trigger) = (query.status, query.trigger);
    let page = state
        .store
        .run(move |s| {
            s.list_runs(org, runner, before, limit, |run| {
                status.is_none_or(|s| run.status == s)
                    && trigger.is_none_or(|t| run.trigger.kind == t)
            })
        })
        .await?;
    let mut response = HttpResponse::Ok();
    if let Some(next) = page.next_cursor {
        response.insert_header(("X-Next-Cursor", timestamp(next)));
    }
    Ok(response.json(page.items))
}

/// `GET /api/runners/{id}/runs/{runId}`.
#[utoipa::path(get, path = "/api/runners/{runner_id}/runs/{run_id}", tag = "runners", operation_id = "runs_get", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("run_id" = uuid::Uuid, Path, description = "The run's id")), responses((status = 200, description = "The run", body = Run), (status = 404, description = "No such run", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunPath>,
) -> Result<HttpResponse, ApiError> {
    let run = find_run(&state, caller.org_id, &path).await?;
    Ok(HttpResponse::Ok().json(run.run))
}

/// `POST …/runs/{runId}/cancel`: a waiting or queued run ends `cancelled`
/// at once; a running one's turn is stopped first.
#[utoipa::path(post, path = "/api/runners/{runner_id}/runs/{run_id}/cancel", tag = "runners", operation_id = "runs_cancel", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("run_id" = uuid::Uuid, Path, description = "The run's id")), responses((status = 200, description = "The run (cancelled, or stopping)", body = Run), (status = 409, description = "The run ended otherwise", body = crate::error::ErrorBody<'static>)))]
pub async fn cancel(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunPath>,
) -> Result<HttpResponse, ApiError> {
    let run = find_run(&state, caller.org_id, &path).await?;
    match state.runs.cancel(run.org_id, run.id).await {
        Ok(Some(run)) => Ok(HttpResponse::Ok().json(run.run)),
        Ok(None) => Err(ApiError::not_found("run")),
        Err(CancelRefusal::Ended(status)) => Err(ApiError::Conflict(format!(
            "the run is {}",
            status.as_str()
        ))),
        Err(CancelRefusal::Store(error)) => Err(error.into()),
        Err(CancelRefusal::Already) => Err(ApiError::Internal("a cancel refused twice".into())),
    }
}

/// `POST …/runs/{runId}/resume`: a `requires_action` run takes the results
/// of exactly its pending calls and is queued again.
#[utoipa::path(post, path = "/api/runners/{runner_id}/runs/{run_id}/resume", tag = "runners", operation_id = "runs_resume", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ("run_id" = uuid::Uuid, Path, description = "The run's id"), ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry answer the run as the first resume left it")), request_body = ResumeRun, responses((status = 200, description = "The run, queued again", body = Run), (status = 409, description = "`BUDGET_EXCEEDED` (a paused run's limit holds) or `CONFLICT` (not waiting)", body = crate::error::ErrorBody<'static>), (status = 422, description = "The results do not answer exactly the pending calls", body = crate::error::ErrorBody<'static>)))]
pub async fn resume(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunPath>,
    body: JsonBody<ResumeRun>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key = idempotency::from_header(&http)?;
    let run = find_run(&state, caller.org_id, &path).await?;
    let results: Vec<(String, String)> = body
        .into_inner()
        .tool_results
        .unwrap_or_default()
        .into_iter()
        .map(|body| {
            let result = confer_actors::ToolResult::from(body);
            (result.tool_call_id, result.output)
        })
        .collect();
    let keyed = key.map(|key| {
        let request = serde_json::to_string(&results).unwrap_or_default();
        (
            caller_key(b"run-resume", &caller.user_id(), &key),
            hex::encode(Sha256::digest(request.as_bytes())),
        )
    });
    // A repeat is answered whatever the other rules now say.
    if let Some(replayed) = replay(&state, run.id.as_bytes(), keyed.as_ref()).await? {
        return replayed_answer(&state, run.org_id, replayed, HttpResponse::Ok()).await;
    }
    // A paused run resumes once its limit no longer holds (raised, or a
    // new day for the daily cost).
    let holding = match run.status {
        RunStatus::Paused => state.runs.limit_now(&run).await?,
        _ => None,
    };
    let (org, id) = (run.org_id, run.id);
    let changed = state
        .store
        .write(move |s| {
            let changed = s.change_run(org, id, |run| resume_rules(run, &results, holding))?;
            if let (Updated::Stored(run), Some((key, request))) = (&changed, keyed) {
                s.remember_run_key(run.id.as_bytes(), &key, run.id, request)?;
            }
            Ok(changed)
        })
        .await?;
    match changed {
        Updated::Stored(run) => {
            state.runs.changed(&run);
            Ok(HttpResponse::Ok().json(run.run))
        }
        Updated::Gone => Err(ApiError::not_found("run")),
        Updated::Refused(error) => Err(error),
    }
}

/// A resume's rules, inside the run's transaction.
fn resume_rules(
    run: &mut RunRecord,
    results: &[(String, String)],
    holding: Option<&str>,
) -> Result<(), ApiError> {
    match run.status {
        RunStatus::RequiresAction => {
            let pending: Vec<&str> = run
                .pending_tool_calls
                .iter()
                .map(|c| c.id.as_str())
                .collect();
            let missing: Vec<&str> = pending
                .iter()
                .copied()
                .filter(|id| !results.iter().any(|(r, _)| r == id))
                .collect();
            if !missing.is_empty() {
                return Err(ApiError::invalid(
                    "toolResults",
                    format!("no result for {}", missing.join(", ")),
                ));
            }
            if let Some((extra, _)) = results.iter().find(|(r, _)| !pending.contains(&r.as_str())) {
                return Err(ApiError::invalid(
                    "toolResults",
                    format!("{extra} is not a pending tool call"),
                ));
            }
            run.progress.tool_results = results.to_vec();
            run.pending_tool_calls.clear();
            run.expires_at = None;
            run.status = RunStatus::Queued;
            Ok(())
        }
        RunStatus::Paused => match holding {
            Some(limit) => Err(ApiError::Refused {
                code: codes::BUDGET_EXCEEDED,
                detail: format!("the run's budget limit {limit} still holds; raise it first"),
                retry_after: None,
            }),
            None => {
                run.status = RunStatus::Queued;
                run.status_reason = None;
                run.limit = None;
                run.expires_at = None;
                Ok(())
            }
        },
        status => Err(ApiError::Conflict(format!(
            "the run is {}; only a waiting run resumes",
            status.as_str()
        ))),
    }
}
