//! The start of a turn: load the thread, its agent, credentials and
//! context, then store what the user sent, flushed, before any model call.

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;

use super::{
    Ended, NOT_EXECUTED_NEW_MESSAGE, NOT_EXECUTED_NO_RESULT, Turn, TurnInput, TurnRequest,
};
use crate::codes;
use crate::domain::{Message, Role, ThreadKind};
use crate::events::{MetaEvent, SessionStatusEvent, ThreadEvent, Usage, UserMessageView};
use crate::gating;
use crate::idempotency::{self, IdempotencyRecord};
use crate::ids::MessageId;
use crate::ports::{ThreadAppend, TurnInputs, TurnMark};
use crate::provider::{ContextMessage, ContextRole, pending_tool_calls};
use crate::send_rules::{self, BrokenRule};
use crate::timings::{PhaseClock, TurnTimings};
use crate::tools::ToolScope;
use crate::trace::{SpanAttributes, SpanKind, Stamp, TraceRecorder, TraceStart};

impl Turn {
    /// Loads what the turn needs; a thread or agent that is gone ends it
    /// with an error.
    pub(super) async fn load(input: TurnInput) -> Result<Self, Ended> {
        let TurnInput {
            engine,
            org,
            thread: thread_id,
            turn: number,
            request,
            emitter,
            cancel,
            history,
            fence,
        } = input;
        let stamp = Stamp::now();
        let started_at = stamp.at;
        let mut clock = PhaseClock::since(request.accepted.unwrap_or_else(Instant::now));
        let mut timings = TurnTimings {
            before_turn_us: clock.lap(),
            ..TurnTimings::default()
        };
        let loaded = engine
            .store
            .turn_inputs(org, thread_id, history.is_none())
            .await;
        let inputs = match loaded {
            Ok(Some(inputs)) => inputs,
            Ok(None) => {
                emitter.fail(codes::NOT_FOUND, "thread not found", String::new());
                return Err(None);
            }
            Err(error) => {
                tracing::error!(%error, thread = %thread_id, "loading a turn failed");
                emitter.fail(codes::INTERNAL, "internal error", String::new());
                return Err(None);
            }
        };
        let TurnInputs {
            thread,
            agent,
            credentials,
            compaction,
            plans,
            knowledge,
            history: stored_history,
        } = inputs;
        let history = history.or(stored_history).unwrap_or_default();
        // The rules admission applied, against the thread as the turn
        // found it: a send that waited may find it changed.
        let checked = send_rules::against_thread(&request, agent.as_ref(), Some(&history));
        let agent = match checked.and(agent.ok_or(BrokenRule::AgentDeleted)) {
            Ok(agent) => agent,
            Err(broken) => {
                let code = match broken {
                    BrokenRule::AgentDeleted => codes::CONFLICT,
                    BrokenRule::Invalid { .. } => codes::VALIDATION_ERROR,
                };
                emitter.fail(code, broken.to_string(), String::new());
                return Err(Some(history));
            }
        };
        timings.load_us = clock.lap();
        let model = request
            .model_override
            .clone()
            .unwrap_or_else(|| agent.default_model.clone());
        let route = engine.provider.route(&model);
        // Listed as running from here: before the tools are gathered, which
        // may wait for the store (the first turn of an org).
        let trace = Box::new(TraceRecorder::start(
            TraceStart {
                org,
                agent: agent.id,
                thread: thread_id,
                user_id: request.user_id.clone(),
                model: model.clone(),
                turn: number,
                if_busy: request.if_busy,
                otel_trace_id: request.otel_trace_id.clone(),
                started: stamp,
                payloads: engine.trace_payloads,
                run: request.run.as_ref().map(|run| run.tag),
                link: request.delegation.as_ref().map(|d| d.trace.clone()),
            },
            &engine.traces,
        ));
        // Server-side tools a client-side tool of the same name shadows are
        // left out (the client's comes first, `tools.md` §4).
        let mut scope = ToolScope {
            org,
            agent: agent.id,
            thread: thread_id,
            runner: request.run.as_ref().map(|run| run.tag.runner_id),
            user_id: request.user_id.clone(),
            end_user: request.end_user,
            plans,
            knowledge,
            public: request.public.is_some(),
            multiplayer: thread.kind == ThreadKind::Multiplayer,
            memory: false,
            message: Arc::from(request.content.as_str()),
            sources: Arc::default(),
            notes: std::sync::Arc::default(),
            place: Arc::new(crate::delegation::TurnPlace::new(
                request.delegation.clone(),
                trace.id(),
                trace.header().otel_trace_id.clone(),
                emitter.clone(),
            )),
            stream_tool_output: request.stream_tool_output,
        };
        let mut server_tools = engine.tools.offered(&scope).await;
        let skills_prompt = server_tools.skills_prompt.take();
        // Before gating: a publication that keeps the memory tools private
        // still recalls its visitor's own memories.
        scope.memory = server_tools
            .builtin
            .iter()
            .any(|t| t.name == crate::tools::REMEMBER);
        // Each server-side tool's kind, by name (the first kind wins, as
        // in the offer).
        let mut kinds: std::collections::HashMap<String, &'static str> = Default::default();
        for (tools, kind) in [
            (&server_tools.builtin, "builtin"),
            (&server_tools.org, "webhook"),
            (&server_tools.integration, "integration"),
            (&server_tools.mcp, "mcp"),
        ] {
            for tool in tools {
                let kind = match kind {
                    "builtin" if tool.name.starts_with(crate::delegation::TOOL_PREFIX) => {
                        "delegate"
                    }
                    "builtin" if tool.name.starts_with(crate::tools::COMPUTER_PREFIX) => "computer",
                    kind => kind,
                };
                kinds.entry(tool.name.clone()).or_insert(kind);
            }
        }
        let public = request.public.clone();
        // A public turn runs under the agent's default profile with no
        // client tools, and keeps only the publication's public tools.
        let profile = match &public {
            Some(_) => agent.default_profile.as_deref(),
            None => gating::effective_profile(
                request.tool_profile.as_deref(),
                thread.active_profile.as_deref(),
                &agent,
            ),
        };
        let client_tools = match &public {
            Some(_) => Vec::new(),
            None if request.tools.is_empty() => crate::context::last_offered(&history).to_vec(),
            None => request.tools.clone(),
        };
        let mut offered = gating::offer(&agent, profile, &client_tools, server_tools);
        if let Some(public) = &public {
            offered.tools.retain(|tool| public.offers(&tool.name));
        }
        // `propose_profile_switch` is added by the offer: built-in.
        let tool_kinds = offered
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    kinds.get(&t.name).copied().unwrap_or("builtin"),
                )
            })
            .collect();
        // The skills are listed only while their tool survives gating.
        let skills_prompt = skills_prompt.filter(|_| {
            offered
                .tools
                .iter()
                .any(|t| t.name == crate::tools::LOAD_SKILL)
        });
        // Knowledge briefs the model when it injects, or when its tool is
        // offered (`Cite knowledge sources as [n].`).
        let knowledge_briefs = knowledge.enabled
            && match knowledge.mode {
                crate::domain::KnowledgeMode::Inject => public.is_none(),
                crate::domain::KnowledgeMode::Tool => offered
                    .tools
                    .iter()
                    .any(|t| t.name == crate::tools::SEARCH_KNOWLEDGE),
            };
        // From here the scope says whether knowledge takes part in the turn.
        scope.knowledge.enabled = knowledge_briefs;
        let fallbacks_tried = super::fallback_step::fallback_cursor(&route.provider);
        Ok(Self {
            engine,
            org,
            thread_id,
            number,
            fence,
            request,
            emitter,
            cancel,
            thread,
            agent,
            credentials,
            compaction,
            history,
            started_at,
            model,
            route,
            user_message_id: None,
            keyed: None,
            clock,
            timings,
            client_tools,
            server_tools: offered.tools,
            shadowed: offered.shadowed,
            profile: offered.profile,
            scope,
            briefing: None,
            skills_prompt,
            step: 1,
            answer: String::new(),
            produced: Vec::new(),
            billed: Vec::new(),
            earlier_calls: Vec::new(),
            spent: Usage::default(),
            fallbacks_tried,
            trace,
            tool_kinds,
        })
    }

    /// `meta`: the turn has begun, its user message is stored.
    pub(super) fn announce(&mut self) {
        let user_message = (self.thread.kind == ThreadKind::Multiplayer).then(|| {
            self.user_message_id.map(|id| UserMessageView {
                id,
                content: self.request.content.clone(),
                sender_name: self.request.sender_name.clone(),
            })
        });
        self.emitter.emit(ThreadEvent::Meta(Box::new(MetaEvent {
            started_at: self.started_at,
            thread_id: self.thread_id,
            user_message_id: self.user_message_id,
            model: self.model.clone(),
            shadowed_tools: self.shadowed.clone(),
            user_message,
            turn_kind: None,
        })));
        if let Some(session) = &self.request.code_session {
            self.emitter
                .emit(SessionStatusEvent::bare(session, "running"));
            self.emitter
                .before_done(SessionStatusEvent::bare(session, "idle"));
        }
        self.timings.meta_us = self.clock.lap();
    }

    /// Stores what the user sent (tool results and the message, and the
    /// keyed send's record) and waits until it is durable.
    pub(super) async fn store_user_message(&mut self) -> Result<(), Ended> {
        let entries = user_entries(&self.history, &self.request);
        let request = &self.request;
        let listed = (!request.content.is_empty()).then(|| Message {
            id: MessageId::new(),
            thread_id: self.thread_id,
            seq: 0,
            role: Role::User,
            content: request.content.clone(),
            sender_name: request.sender_name.clone(),
            sender_id: request.sender_id.clone(),
            created_at: self.started_at,
            citations: Vec::new(),
        });
        self.user_message_id = listed.as_ref().map(|m| m.id);
        self.keyed = request.idempotency.map(|key| {
            let record = IdempotencyRecord {
                request: idempotency::hex(&key.request),
                turn: self.number,
                created_at: Utc::now(),
                started_at: self.started_at,
                model: self.model.clone(),
                user_message_id: self.user_message_id,
                outcome: None,
            };
            Box::new((key.key, record))
        });
        let mut entries = entries;
        for entry in &mut entries {
            entry.turn = Some(self.number);
        }
        let write = ThreadAppend {
            turn: Some(self.number),
            listed,
            context: entries.clone(),
            keyed: self.keyed.as_deref().cloned(),
            fence: self.fence.as_deref().copied(),
            mark: self.fence.as_ref().map(|_| TurnMark::Started {
                turn: self.number,
                trace_id: Some(self.trace.id()),
            }),
            ..ThreadAppend::default()
        };
        match super::writes::append_durably(&self.engine.store, self.thread_id, write).await {
            Ok(durable) => {
                self.timings.user_append_us = durable.append_us;
                self.timings.user_flush_us = durable.flush_us;
                self.clock.lap(); // already counted in the two above
            }
            Err(error) => {
                tracing::error!(%error, thread = %self.thread_id, "storing a user message failed");
                super::writes::fail_write(&self.emitter, &error, String::new());
                return Err(None);
            }
        }
        self.history.extend(entries);
        let (root, from) = (self.trace.root(), self.trace.started());
        self.trace.payload(root, Some(&self.request.content), None);
        self.trace.span(
            root,
            SpanKind::Admission,
            "admission",
            from,
            SpanAttributes::default(),
            None,
        );
        Ok(())
    }
}

/// Context entries for what the user sent: results for every pending tool
/// call (a "not executed" output for those without one), then the message.
/// The send's rules were checked: every result answers a pending call.
fn user_entries(history: &[ContextMessage], request: &TurnRequest) -> Vec<ContextMessage> {
    let pending = pending_tool_calls(history);
    let mut entries: Vec<ContextMessage> = pending
        .into_iter()
        .map(|id| {
            let output = match request.tool_results.iter().find(|r| r.tool_call_id == id) {
                Some(result) => result.output.clone(),
                None if request.tool_results.is_empty() => NOT_EXECUTED_NEW_MESSAGE.to_owned(),
                None => NOT_EXECUTED_NO_RESULT.to_owned(),
            };
            ContextMessage::tool_result(id, output)
        })
        .collect();
    if !request.content.is_empty() {
        entries.push(ContextMessage::text(
            ContextRole::User,
            request.content.clone(),
        ));
    }
    entries
}
