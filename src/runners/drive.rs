//! Driving one run (`runners.md` Runs §4–5): turns on the run's hidden
//! thread until it succeeds, fails, waits for a resume or is cancelled;
//! after each turn the run's new state is written and told. The output
//! rules are in `output`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::{Admission, IfBusy, ThreadEvent, ToolResult, TurnRequest};
use serde_json::{Value, json};

use super::budget::{self, RunBudget};
use super::output::{self, JsonOutcome};
use super::worker::{RunWorker, end};
use super::{
    MAX_RENDERED_BYTES, OutputMode, RunError, RunRecord, RunStatus, Runner, schema, template,
};

/// How one turn of a run ended, as its frames told.
#[derive(Default)]
struct TurnEnd {
    turn: u64,
    ok: bool,
    content: String,
    stopped: bool,
    /// `compaction`, or `budget_exceeded` with the limit in `limit`.
    paused: Option<&'static str>,
    limit: Option<String>,
    tool_calls: Vec<confer_actors::ToolCall>,
    error: Option<RunError>,
}

/// Why a run's turn did not start.
enum TurnRefused {
    /// For now (a full queue, an unreadable store): the run waits its turn.
    Retry(String),
    /// For good (a rule of the send): the run fails.
    Fail(String),
}

impl RunWorker {
    /// Drives `run` through turns until it ends or waits.
    pub(super) async fn drive(&self, mut run: RunRecord, runner: Runner) {
        let validator = match runner.output_schema.as_ref().map(schema::compile) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                self.settle_failed(&run, "VALIDATION_ERROR", &format!("outputSchema: {e}"))
                    .await;
                return;
            }
            None => None,
        };
        if let Some(refusal) = self.unpriced_now(&run, &runner).await {
            self.settle_failed(&run, "VALIDATION_ERROR", &refusal).await;
            return;
        }
        let started = Instant::now();
        loop {
            let content = match self.next_content(&run, &runner) {
                Ok(content) => content,
                Err(detail) => {
                    self.settle_failed(&run, "VALIDATION_ERROR", &detail).await;
                    return;
                }
            };
            let end = match self.turn(&run, &runner, content, started).await {
                Ok(end) => end,
                Err(TurnRefused::Retry(error)) => {
                    // The org's queue is full, say: queued again.
                    tracing::warn!(run = %run.id, %error, "a run's turn was not admitted");
                    self.save(&run, |r| r.status = RunStatus::Queued).await;
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    return;
                }
                Err(TurnRefused::Fail(detail)) => {
                    self.settle_failed(&run, "VALIDATION_ERROR", &detail).await;
                    return;
                }
            };
            if self.runtime.is_closing() && !end.ok {
                // Stopped by the shutdown: the next start queues it again.
                return;
            }
            let elapsed = started.elapsed().as_millis() as u64;
            let (org, thread, prices) = (run.org_id, run.thread_id, Arc::clone(&self.prices));
            let usage = self
                .store
                .run(move |s| budget::thread_usage(s, &prices, org, thread))
                .await
                .unwrap_or_else(|_| run.usage.clone());
            let decided = decide(&run, &runner, validator.as_ref(), &end);
            let (turn, answer) = (
                end.turn,
                (end.ok && !end.content.is_empty()).then_some(end.content),
            );
            let next = self
                .save(&run, move |r| {
                    r.progress.settled_turn = turn;
                    r.progress.answers.extend(answer.clone());
                    r.usage = usage.clone();
                    r.usage.duration_ms = r.progress.ran_ms + elapsed;
                    decided.apply(r);
                    if r.status != RunStatus::Running {
                        r.progress.ran_ms += elapsed;
                    }
                })
                .await;
            match next {
                Some(saved) if saved.status == RunStatus::Running => run = saved,
                _ => return,
            }
        }
    }

    /// The next turn's message: the rendered instruction first, then empty
    /// (a continuation), or a repair.
    fn next_content(&self, run: &RunRecord, runner: &Runner) -> Result<String, String> {
        if let Some(repair) = &run.progress.repair {
            return Ok(repair.clone());
        }
        if run.progress.instructed {
            return Ok(String::new());
        }
        let context = json!({"id": run.id, "runner_id": run.runner_id, "attempt": run.attempt});
        let rendered = template::render(
            &runner.instructions,
            &run.input,
            &context,
            &Utc::now().to_rfc3339(),
        )
        .map_err(|e| format!("instructions: {e}"))?;
        if rendered.len() > MAX_RENDERED_BYTES {
            return Err("instructions: the rendered text is over 256 KiB".into());
        }
        Ok(rendered)
    }

    /// One turn on the run's thread, read to its `done`.
    async fn turn(
        &self,
        run: &RunRecord,
        runner: &Runner,
        content: String,
        started: Instant,
    ) -> Result<TurnEnd, TurnRefused> {
        let (org, agent_id) = (run.org_id, run.agent_id);
        let agent = self
            .store
            .run(move |s| s.agent(org, agent_id))
            .await
            .map_err(|e| TurnRefused::Retry(e.to_string()))?;
        let mut overlay = runner.system_prompt_overlay.clone().unwrap_or_default();
        if let (OutputMode::Json, Some(schema)) = (runner.output_mode, &runner.output_schema) {
            if !overlay.is_empty() {
                overlay.push_str("\n\n");
            }
            overlay.push_str(&output::json_instruction(schema));
        }
        let mut metadata = run.metadata.clone();
        metadata.insert("runner_id".into(), run.runner_id.to_string());
        metadata.insert("run_id".into(), run.id.to_string());
        let instructed = !content.is_empty() && !run.progress.instructed;
        let budget = Arc::new(RunBudget::new(
            self.store.clone(),
            Arc::clone(&self.prices),
            run.clone(),
            started,
        ));
        let content_is_empty = content.is_empty();
        let public = super::button::public_turn(&self.store, run)
            .await
            .map_err(|e| TurnRefused::Retry(e.to_string()))?;
        let request = TurnRequest {
            content,
            sender_name: None,
            sender_id: None,
            model_override: runner.model.clone(),
            system_prompt_overlay: (!overlay.is_empty()).then_some(overlay),
            metadata,
            tools: runner.client_tools.clone(),
            tool_profile: runner.tool_profile.clone(),
            tool_results: run
                .progress
                .tool_results
                .iter()
                .map(|(id, output)| ToolResult {
                    tool_call_id: id.clone(),
                    output: output.clone(),
                })
                .collect(),
            user_id: run.created_by.clone(),
            end_user: false,
            accepted: Some(Instant::now()),
            idempotency: None,
            options: Arc::default(),
            if_busy: Some(IfBusy::Queue.as_str()),
            otel_trace_id: None,
            public,
            continuation: content_is_empty,
            stream_tool_output: false,
            host: None,
            max_tool_steps: None,
            code_session: None,
            delegation: None,
            run: Some(Arc::new(confer_actors::RunTurn {
                tag: confer_actors::RunTag {
                    runner_id: run.runner_id,
                    run_id: run.id,
                },
                budget: Arc::clone(&budget) as Arc<dyn confer_actors::TurnBudget>,
            })),
        };
        let admission = self
            .runtime
            .post(org, run.thread_id, request, IfBusy::Queue, agent)
            .await
            .map_err(|e| TurnRefused::Retry(e.to_string()))?;
        let (turn, mut reader) = match admission {
            Admission::Accepted { turn, reader } => (turn, reader),
            Admission::Duplicate { .. } => {
                return Err(TurnRefused::Fail("a duplicate send".into()));
            }
            Admission::Refused(confer_actors::Refusal::Rule(rule)) => {
                return Err(TurnRefused::Fail(rule.to_string()));
            }
            Admission::Refused(refusal) => return Err(TurnRefused::Retry(refusal.to_string())),
        };
        // What this turn sent is recorded once its message is on disk, which
        // `meta` follows: recorded at admission, a kill before the message's
        // flush left a run that a restart continued with nothing sent.
        let mut sent_to_record =
            instructed || run.progress.repair.is_some() || !run.progress.tool_results.is_empty();
        let mut end = TurnEnd {
            turn,
            ..TurnEnd::default()
        };
        while let Some(frame) = reader.next().await {
            if sent_to_record && matches!(frame.event, ThreadEvent::Meta(_)) {
                sent_to_record = false;
                // Sent: a restart continues the thread instead of sending again.
                let _ = self
                    .save(run, move |r| {
                        r.progress.instructed |= instructed;
                        r.progress.repair = None;
                        r.progress.tool_results.clear();
                    })
                    .await;
            }
            match &frame.event {
                ThreadEvent::RequiresAction { tool_calls } => end.tool_calls = tool_calls.clone(),
                ThreadEvent::Error { code, detail } => {
                    end.error = Some(RunError {
                        code: code.clone(),
                        detail: detail.clone().unwrap_or_default(),
                    });
                }
                ThreadEvent::Done(done) => {
                    end.ok = done.ok;
                    end.content = done.content.clone();
                    end.stopped = done.stopped == Some(true);
                    end.paused = done.paused;
                    end.limit = budget.hit();
                    break;
                }
                _ => {}
            }
        }
        Ok(end)
    }

    /// A cost limit the run's model has no price for, read now.
    async fn unpriced_now(&self, run: &RunRecord, runner: &Runner) -> Option<String> {
        let (org, id, agent) = (run.org_id, run.runner_id, run.agent_id);
        let (budget, agent) = self
            .store
            .run(move |s| {
                Ok::<_, confer_actors::StoreError>((
                    s.runner_budget(org, id)?,
                    s.agent(org, agent)?,
                ))
            })
            .await
            .ok()?;
        let model = runner.model.clone().or(agent.map(|a| a.default_model))?;
        self.unpriced(&budget, &model)
    }

    async fn settle_failed(&self, run: &RunRecord, code: &'static str, detail: &str) {
        let detail = detail.to_owned();
        self.save(run, move |r| {
            end(r, RunStatus::Failed);
            r.error = Some(RunError {
                code: code.into(),
                detail: detail.clone(),
            });
        })
        .await;
    }
}

/// What a turn's end makes of a run.
enum Decision {
    Continue,
    Repair(String),
    RequiresAction(Vec<confer_actors::ToolCall>, u64),
    Succeeded(Value),
    Failed(RunError),
    Cancelled,
    /// The budget's `limit` paused it; it waits `timeout` seconds.
    Paused(String, u64),
}

impl Decision {
    fn apply(&self, run: &mut RunRecord) {
        match self {
            Self::Continue => {}
            Self::Repair(message) => {
                run.progress.repairs += 1;
                run.progress.repair = Some(message.clone());
            }
            Self::RequiresAction(calls, timeout) => {
                run.status = RunStatus::RequiresAction;
                run.pending_tool_calls = calls.clone();
                run.expires_at = Some(Utc::now() + chrono::Duration::seconds(*timeout as i64));
            }
            Self::Succeeded(output) => {
                end(run, RunStatus::Succeeded);
                run.output = Some(output.clone());
            }
            Self::Failed(error) => {
                end(run, RunStatus::Failed);
                run.error = Some(error.clone());
            }
            Self::Paused(limit, timeout) => {
                run.status = RunStatus::Paused;
                run.status_reason = Some("budget_exceeded".into());
                run.limit = Some(limit.clone());
                run.expires_at = Some(Utc::now() + chrono::Duration::seconds(*timeout as i64));
            }
            Self::Cancelled => {
                end(run, RunStatus::Cancelled);
                run.status_reason = Some("cancelled".into());
            }
        }
    }
}

/// The run's next step after a turn ended as `end`.
fn decide(
    run: &RunRecord,
    runner: &Runner,
    validator: Option<&jsonschema::Validator>,
    end: &TurnEnd,
) -> Decision {
    if end.stopped || run.progress.cancel_requested {
        return Decision::Cancelled;
    }
    if !end.ok {
        return Decision::Failed(end.error.clone().unwrap_or(RunError {
            code: "INTERNAL".into(),
            detail: "the turn failed".into(),
        }));
    }
    let mut answers = run.progress.answers.clone();
    answers.push(end.content.clone());
    if let Some(limit) = &end.limit {
        return Decision::Paused(limit.clone(), runner.resume_timeout_secs);
    }
    if end.paused.is_some() {
        // A compaction pause continues at once (an empty send).
        return Decision::Continue;
    }
    if !end.tool_calls.is_empty() {
        return Decision::RequiresAction(end.tool_calls.clone(), runner.resume_timeout_secs);
    }
    match (runner.output_mode, validator) {
        (OutputMode::Json, Some(validator)) => match output::judge_json(validator, &end.content) {
            JsonOutcome::Valid(value) => Decision::Succeeded(value),
            JsonOutcome::Invalid(errors) if run.progress.repairs < output::MAX_REPAIRS => {
                Decision::Repair(output::repair_message(&errors))
            }
            JsonOutcome::Invalid(errors) => Decision::Failed(RunError {
                code: "OUTPUT_INVALID".into(),
                detail: output::invalid_detail(&errors),
            }),
        },
        _ => Decision::Succeeded(output::joined_text(&answers)),
    }
}
