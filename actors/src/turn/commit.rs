//! The end of a turn: the answer (listed message and context entry), the
//! usage record of the model call that just ended (if the vendor accepted
//! it), and the keyed send's outcome, written in one transaction and flushed
//! before the frames that report them; then the stream's ending (`done`,
//! after `error` or the tool calls). A turn of several model calls keeps
//! each earlier call's usage record until here (`ThreadAppend::earlier_calls`)
//! and stores them linked to the answer, in the same transaction; a
//! compaction's record, stored with its summary, is linked here
//! (`ThreadAppend::billed`).

use chrono::Utc;

use super::writes::{append_durably, fail_write};
use super::{CancelReason, ModelOutcome, Turn};
use crate::codes;
use crate::domain::{Message, Role, UsageRecord};
use crate::events::{DoneEvent, ThreadEvent, Usage};
use crate::idempotency::{IdempotencyRecord, OutcomeKind, TurnOutcome};
use crate::ids::{MessageId, UsageId};
use crate::ports::{ThreadAppend, TurnEnd, TurnMark};
use crate::provider::{ContextMessage, ContextRole, estimate_tokens};
use crate::tools::AnsweredTurn;
use crate::trace::{SpanAttributes, SpanKind, Stamp, TraceRecord, TraceStatus};
use crate::turn_metrics;

impl Turn {
    /// Stores what the model call produced and ends the stream; returns the
    /// context to cache, or `None` when it must be reloaded from the store.
    pub(super) async fn commit(mut self, mut outcome: ModelOutcome) -> Option<Vec<ContextMessage>> {
        let call = self.call_usage(&outcome);
        let record = self.usage_record(&outcome, &call);
        if let Some(record) = &record {
            self.note_usage(record);
        }
        let mut usage = std::mem::take(&mut self.spent);
        usage += call;
        usage.steps = Some(self.step);
        usage.model = Some(self.model.clone());
        usage.delegated = self.scope.notes.delegated().map(Box::new);
        let answered = outcome.stopped_by.is_none() && outcome.failure.is_none();
        // The text of every step; `done.content` and the listed message.
        let mut content = std::mem::take(&mut self.answer);
        content.push_str(outcome.lead);
        content.push_str(&outcome.content);
        // An answer that only calls tools, or a pause after compaction, adds
        // nothing to the listed history.
        let listed = (answered
            && !outcome.paused
            && outcome.budget_hit.is_none()
            && (outcome.tool_calls.is_empty() || !content.is_empty()))
        .then(|| Message {
            id: MessageId::new(),
            thread_id: self.thread_id,
            seq: 0,
            role: Role::Assistant,
            content: content.clone(),
            sender_name: None,
            sender_id: None,
            created_at: Utc::now(),
            citations: self.scope.sources.citations(),
        });
        // The earlier steps' entries are kept whatever happened (their tools
        // ran; they are in the cached history already); the last call's only
        // when it answered.
        let mut context = std::mem::take(&mut self.produced);
        let cached = context.len();
        if answered && !outcome.recorded {
            context.push(self.answer_entry(&mut outcome));
        }
        let requires_action = answered && !outcome.tool_calls.is_empty();
        let keyed = self.keyed.take().map(|keyed| {
            let (key, record) = *keyed;
            (key, with_outcome(record, &outcome, &usage, requires_action))
        });
        let root = self.trace.root();
        self.trace.payload(root, None, Some(&content));
        let trace = self.finish_trace(&outcome);
        let write = ThreadAppend {
            listed,
            context: context.clone(),
            usage: record,
            keyed,
            billed: std::mem::take(&mut self.billed),
            earlier_calls: std::mem::take(&mut self.earlier_calls),
            trace: Some(Box::new(trace)),
            fence: self.fence.as_deref().copied(),
            // Stored: `done` whatever the outcome (`failed` is for a turn
            // whose node died before this write), with the index its `done`
            // frame will have: a reader reattaching on another node past it
            // missed nothing.
            mark: self.fence.as_ref().map(|_| {
                TurnMark::Ended(TurnEnd {
                    turn: self.number,
                    ok: true,
                    code: None,
                    last_frame: self
                        .emitter
                        .done_index(outcome.ending_frames(requires_action)),
                })
            }),
            ..ThreadAppend::default()
        };
        let message_id = match append_durably(&self.engine.store, self.thread_id, write).await {
            Ok(durable) => {
                self.timings.answer_append_us = durable.append_us;
                self.timings.answer_flush_us = durable.flush_us;
                durable.listed.map(|m| m.id)
            }
            Err(error) => {
                tracing::error!(%error, thread = %self.thread_id, "storing an answer failed");
                // A fenced write's row is the new owner's to fail.
                if !matches!(error, crate::StoreError::Fenced) {
                    let end = super::failed_end(&self.emitter, &codes::INTERNAL);
                    let fence = self.fence.as_deref().copied();
                    super::writes::mark_failed(
                        self.engine.store.clone(),
                        self.thread_id,
                        fence,
                        end,
                    )
                    .await;
                }
                fail_write(&self.emitter, &error, content);
                return None;
            }
        };
        self.history.extend(context.into_iter().skip(cached));
        let status = trace_status(&outcome);
        turn_metrics::turn_ended(status, self.trace.started().instant.elapsed());
        outcome.content = content;
        // Only the memories listen (auto-collect): a turn of an agent
        // without them copies nothing and spawns nothing.
        let answered_turn = (self.scope.memory
            && status == TraceStatus::Ok
            && message_id.is_some()
            && !requires_action)
            .then(|| AnsweredTurn {
                turn: self.number,
                model: self.model.clone(),
                answer: outcome.content.clone(),
            });
        self.end_stream(outcome, message_id, usage, requires_action);
        if let Some(answered) = answered_turn {
            tokio::spawn(self.engine.tools.turn_answered(&self.scope, answered));
        }
        Some(self.history)
    }

    /// Bills a model call that ended before the turn did (a tool step's, or
    /// one a fallback replaced), if the vendor accepted it: its tokens join
    /// the send's, and its usage record is kept for the answer's write
    /// (`ThreadAppend::earlier_calls`: no store call, no flush of its own).
    /// A call never accepted costs nothing and counts nothing.
    pub(super) fn bill(&mut self, outcome: &ModelOutcome) {
        let call = self.call_usage(outcome);
        if let Some(record) = self.usage_record(outcome, &call) {
            self.spent += call;
            self.note_usage(&record);
            self.earlier_calls.push(record);
        }
    }

    /// Counts a usage record of the turn in its trace and the token metrics.
    pub(super) fn note_usage(&mut self, record: &UsageRecord) {
        self.trace.usage(record, &self.engine.prices);
        turn_metrics::tokens(record);
    }

    /// The turn's finished trace, with the span of the answer's write (the
    /// store ends it when it writes the trace, `TraceRecord::seal`).
    fn finish_trace(&mut self, outcome: &ModelOutcome) -> TraceRecord {
        let root = self.trace.root();
        self.trace.span(
            root,
            SpanKind::Store,
            "store_commit",
            Stamp::now(),
            SpanAttributes::default(),
            None,
        );
        let error_code = match (&outcome.failure, outcome.stopped_by) {
            (Some(failure), _) => Some(failure.code.code.to_owned()),
            (None, Some(reason)) => reason.error().map(|(code, _)| code.code.to_owned()),
            (None, None) => None,
        };
        let metadata = self.usage_metadata();
        self.trace.finish(
            trace_status(outcome),
            error_code,
            self.model.clone(),
            metadata,
        )
    }

    /// The token counts of a model call (estimated where the vendor gave none).
    pub(super) fn call_usage(&self, outcome: &ModelOutcome) -> Usage {
        if outcome.recorded {
            return Usage::default();
        }
        Usage {
            input_tokens: outcome.input_tokens.unwrap_or(outcome.estimated_input),
            output_tokens: outcome
                .output_tokens
                .unwrap_or_else(|| estimate_tokens(&outcome.content)),
            cache_read_tokens: outcome.cache_read_tokens.unwrap_or(0),
            cache_write_tokens: outcome.cache_write_tokens.unwrap_or(0),
            steps: None,
            model: None,
            delegated: None,
        }
    }

    /// The usage record of a model call, if the vendor accepted it (a call
    /// the vendor never accepted is not billed, so not recorded).
    pub(super) fn usage_record(&self, outcome: &ModelOutcome, call: &Usage) -> Option<UsageRecord> {
        outcome.accepted.then(|| UsageRecord {
            stopped: outcome.stopped_by.is_some(),
            estimated: outcome.input_tokens.is_none() || outcome.output_tokens.is_none(),
            step: Some(self.step),
            compacted: outcome.compaction.is_some() || outcome.iterations.is_some(),
            iterations: outcome.iterations.clone(),
            ..self.call_record(&outcome.key_source, call)
        })
    }

    /// A usage record of one of this turn's model calls (an answer's, until
    /// the caller says otherwise), not linked to a message yet.
    pub(super) fn call_record(&self, key_source: &str, call: &Usage) -> UsageRecord {
        UsageRecord {
            id: UsageId::new(),
            org_id: self.org,
            agent_id: self.agent.id,
            thread_id: Some(self.thread_id),
            message_id: None,
            model: self.route.model.clone(),
            provider: self.route.provider.clone(),
            key_source: key_source.to_owned(),
            input_tokens: call.input_tokens,
            output_tokens: call.output_tokens,
            cache_read_tokens: call.cache_read_tokens,
            cache_write_tokens: call.cache_write_tokens,
            publication_id: self.request.public.as_ref().and_then(|p| p.publication),
            delegation: self
                .request
                .delegation
                .as_deref()
                .map(|link| Box::new(link.into())),
            metadata: self.usage_metadata(),
            stopped: false,
            estimated: false,
            step: None,
            purpose: crate::domain::UsagePurpose::Answer,
            compacted: false,
            iterations: None,
            created_at: Utc::now(),
        }
    }

    /// The context entry of a model call's answer: its text (this step's),
    /// calls, reasoning and compaction block.
    pub(super) fn answer_entry(&self, outcome: &mut ModelOutcome) -> ContextMessage {
        ContextMessage {
            role: ContextRole::Assistant,
            content: outcome.content.clone(),
            tool_calls: outcome.tool_calls.clone(),
            tool_call_id: None,
            reasoning_from: (!outcome.reasoning.is_empty()).then(|| self.route.provider.clone()),
            reasoning: std::mem::take(&mut outcome.reasoning),
            compaction: outcome.compaction.take().map(Box::new),
            turn: Some(self.number),
            offered: if outcome.tool_calls.is_empty() {
                Vec::new()
            } else {
                self.client_tools.clone()
            },
            // A count past u32 is no figure to anchor an estimate on.
            input_tokens: outcome.input_tokens.and_then(|t| u32::try_from(t).ok()),
        }
    }

    /// The stream's last frames, once everything they report is durable.
    fn end_stream(
        &self,
        outcome: ModelOutcome,
        message_id: Option<MessageId>,
        usage: Usage,
        requires_action: bool,
    ) {
        let emitter = &self.emitter;
        if let Some(failure) = outcome.failure {
            emitter.fail(failure.code, failure.detail, outcome.content);
            return;
        }
        let ended_by = outcome.stopped_by.and_then(CancelReason::error);
        if let Some((code, detail)) = ended_by {
            emitter.emit(ThreadEvent::Error {
                code: code.code.into(),
                detail: Some(detail.into()),
            });
            emitter.emit(ThreadEvent::Done(Box::new(DoneEvent {
                message_id,
                usage: Some(usage),
                stopped: Some(true),
                ..DoneEvent::failed(outcome.content)
            })));
            return;
        }
        for call in &outcome.tool_calls {
            emitter.emit(ThreadEvent::ToolCall {
                tool: Box::new(call.clone()),
            });
        }
        if requires_action {
            emitter.emit(ThreadEvent::RequiresAction {
                tool_calls: outcome.tool_calls.clone(),
            });
        }
        self.timings.log(self.thread_id);
        emitter.emit(ThreadEvent::Done(Box::new(DoneEvent {
            ok: true,
            message_id,
            content: outcome.content,
            usage: Some(usage),
            stopped: outcome.stopped_by.is_some().then_some(true),
            requires_action: requires_action.then_some(true),
            gap: None,
            paused: if outcome.budget_hit.is_some() {
                Some("budget_exceeded")
            } else {
                outcome.paused.then_some("compaction")
            },
        })));
    }
}

/// How a turn that ended with `outcome` is listed in the logs.
fn trace_status(outcome: &ModelOutcome) -> TraceStatus {
    match (&outcome.failure, outcome.stopped_by) {
        (Some(_), _) => TraceStatus::Error,
        (None, Some(_)) => TraceStatus::Stopped,
        (None, None) => TraceStatus::Ok,
    }
}

/// The keyed send's record with the turn's outcome (the store fills in
/// where the answer went).
fn with_outcome(
    record: IdempotencyRecord,
    outcome: &ModelOutcome,
    usage: &Usage,
    requires_action: bool,
) -> IdempotencyRecord {
    let (kind, error_code) = match (&outcome.failure, outcome.stopped_by) {
        (Some(failure), _) => (OutcomeKind::Error, Some(failure.code.code.to_owned())),
        (None, Some(reason)) => (
            OutcomeKind::Stopped,
            reason.error().map(|(code, _)| code.code.to_owned()),
        ),
        (None, None) if requires_action => (OutcomeKind::RequiresAction, None),
        (None, None) if outcome.paused || outcome.budget_hit.is_some() => {
            (OutcomeKind::Paused, None)
        }
        (None, None) => (OutcomeKind::Ok, None),
    };
    IdempotencyRecord {
        outcome: Some(TurnOutcome {
            kind,
            message_id: None,
            answer_seq: None,
            usage: Some(usage.clone()),
            error_code,
        }),
        ..record
    }
}
