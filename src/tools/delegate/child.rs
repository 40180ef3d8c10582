//! One delegate call: the child thread is made under the caller's, one
//! turn of the delegate runs there inside the root's org slot, and its
//! frames reach the parent's stream as `tool_progress` until its `done`.
//! A call dropped before then (the parent stopped) stops the child, and
//! so on down the tree.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::delegation::{DelegateCall, DelegationLink, ToolProgress, TraceLink, forwards};
use confer_actors::tools::{NOT_AVAILABLE, ToolOutput, ToolScope};
use confer_actors::{
    Admission, DoneEvent, IfBusy, Refusal, Runtime, SpanId, Thread, ThreadDelegation, ThreadEvent,
    ThreadId, ThreadKind, ThreadOrigin, ToolCall, TraceId, TurnRequest,
};
use serde::Deserialize;
use serde_json::json;

use super::MAX_TASK_CHARS;
use crate::store::Store;

/// How long a stopped child is given to end its stream (its usage is
/// counted from its `done`).
pub(super) const STOP_GRACE: Duration = Duration::from_secs(5);

#[derive(Deserialize)]
struct Arguments {
    task: String,
    context: Option<String>,
}

/// A delegate call being run.
pub(super) struct ChildCall<'a> {
    pub store: &'a Store,
    pub runtime: Runtime,
    pub timeout: Duration,
    pub scope: &'a ToolScope,
    pub call: &'a ToolCall,
}

/// Stops the child's turn when dropped armed: the parent's call was
/// dropped (a stop, an interrupt, a shutdown) before the child ended.
struct StopChild {
    runtime: Runtime,
    thread: ThreadId,
    armed: bool,
}

impl Drop for StopChild {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (runtime, thread) = (self.runtime.clone(), self.thread);
        // No runtime: the process is ending, and the child with it.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = runtime.stop(thread, true).await;
            });
        }
    }
}

impl ChildCall<'_> {
    pub(super) async fn run(self) -> ToolOutput {
        let arguments = match serde_json::from_value::<Arguments>(self.call.arguments.clone()) {
            Ok(a) if (1..=MAX_TASK_CHARS).contains(&a.task.chars().count()) => a,
            _ => {
                return ToolOutput::error(format!(
                    "arguments: task (1–{MAX_TASK_CHARS} characters) is required"
                ));
            }
        };
        let (org, agent, thread, name) = (
            self.scope.org,
            self.scope.agent,
            self.scope.thread,
            self.call.name.clone(),
        );
        let found = async {
            let delegate = super::live_delegates(self.store, org, agent)
                .await?
                .into_iter()
                .find(|(d, _)| d.tool_name == name);
            Ok::<_, confer_actors::StoreError>((
                delegate,
                self.store.threads().thread(org, thread).await?,
            ))
        }
        .await;
        let ((_, target), parent) = match found {
            Ok((Some(delegate), Some(parent))) => (delegate, parent),
            Ok(_) => return ToolOutput::error(NOT_AVAILABLE),
            Err(error) => {
                tracing::error!(%error, "reading a delegate failed");
                return ToolOutput::error("delegate failed: INTERNAL");
            }
        };
        let place = &self.scope.place;
        let mut chain = place
            .link
            .as_ref()
            .map_or_else(|| vec![agent], |l| l.chain.clone());
        if chain.contains(&target.id) {
            return ToolOutput::error("delegation cycle");
        }
        if !place.claim_call() {
            return ToolOutput::error("delegation limit reached");
        }
        chain.push(target.id);
        let root_thread = place.link.as_ref().map_or(thread, |l| l.root_thread);
        let depth = place.depth() + 1;
        let now = Utc::now();
        // On a cluster the child lives in its root's shard (see
        // `cluster::thread_in`): its root's node runs it.
        let id = match self.store.is_postgres() {
            true => crate::cluster::thread_in(crate::cluster::Shard::of(root_thread)),
            false => ThreadId::new(),
        };
        let child = Thread {
            id,
            org_id: org,
            agent_id: target.id,
            title: None,
            kind: ThreadKind::Single,
            active_profile: None,
            metadata: parent.metadata.clone(),
            system_prompt_overlay: None,
            resource_bindings: Vec::new(),
            created_by: parent.created_by.clone(),
            publication_id: None,
            invite_generation: 0,
            origin: Some(ThreadOrigin::Delegate),
            delegation: Some(Box::new(ThreadDelegation {
                parent_thread_id: thread,
                parent_tool_call_id: self.call.id.clone(),
                root_thread_id: root_thread,
                depth,
            })),
            project_id: None,
            created_at: now,
            updated_at: now,
        };
        let child = match self.store.threads().create_thread(child).await {
            Ok(child) => child,
            Err(error) => {
                tracing::error!(%error, "creating a delegate's thread failed");
                return ToolOutput::error("delegate failed: INTERNAL");
            }
        };
        let trace = TraceLink {
            trace_id: TraceId::new(),
            parent_trace_id: place.trace_id,
            parent_span_id: SpanId::new(),
            otel_trace_id: place.otel_trace_id.clone(),
        };
        self.scope.notes.delegate_call(
            &self.call.id,
            DelegateCall {
                span_id: trace.parent_span_id,
                child_trace_id: trace.trace_id,
            },
        );
        let link = DelegationLink {
            parent_thread: thread,
            parent_tool_call_id: self.call.id.clone(),
            root_thread,
            depth,
            chain,
            root: place
                .link
                .as_ref()
                .map_or_else(|| Arc::clone(place), |l| Arc::clone(&l.root)),
            trace,
        };
        let mut content = arguments.task;
        if let Some(context) = arguments.context.filter(|c| !c.trim().is_empty()) {
            content.push_str("\n\nContext:\n");
            content.push_str(&context);
        }
        let request = TurnRequest {
            content,
            user_id: self.scope.user_id.clone(),
            end_user: self.scope.end_user,
            accepted: Some(Instant::now()),
            if_busy: Some(IfBusy::Queue.as_str()),
            delegation: Some(Arc::new(link)),
            ..TurnRequest::default()
        };
        let admission = self
            .runtime
            .post(org, child.id, request, IfBusy::Queue, Some(target.clone()))
            .await;
        let mut reader = match admission {
            Ok(Admission::Accepted { reader, .. }) => reader,
            Ok(Admission::Refused(refusal)) => {
                let code = match refusal {
                    Refusal::Rule(_) => "VALIDATION_ERROR",
                    Refusal::ShuttingDown => "SHUTTING_DOWN",
                    _ => "UNAVAILABLE",
                };
                return ToolOutput::error(format!("delegate failed: {code}"));
            }
            Ok(Admission::Duplicate { .. }) | Err(_) => {
                return ToolOutput::error("delegate failed: UNAVAILABLE");
            }
        };
        let mut guard = StopChild {
            runtime: self.runtime.clone(),
            thread: child.id,
            armed: true,
        };
        let mut error_code = None;
        let mut read = async |reader: &mut confer_actors::FrameReader| {
            while let Some(frame) = reader.next().await {
                match &frame.event {
                    ThreadEvent::Done(done) => return Some(done.clone()),
                    ThreadEvent::Error { code, .. } => error_code = Some(code.clone()),
                    _ => {}
                }
                if forwards(&frame.event) {
                    self.progress(child.id, depth, &frame.event);
                }
            }
            None
        };
        let (done, timed_out) = match tokio::time::timeout(self.timeout, read(&mut reader)).await {
            Ok(done) => (done, false),
            Err(_) => {
                let _ = self.runtime.stop(child.id, true).await;
                let done = tokio::time::timeout(STOP_GRACE, read(&mut reader)).await;
                (done.ok().flatten(), true)
            }
        };
        guard.armed = done.is_none();
        drop(guard);
        self.scope
            .notes
            .delegated_turn(done.as_ref().and_then(|d| d.usage.as_ref()));
        self.result(&target.name, child.id, done, error_code, timed_out)
    }

    /// A child's frame, as the parent streams it.
    fn progress(&self, child: ThreadId, depth: u32, event: &ThreadEvent) {
        let data = serde_json::to_value(event).unwrap_or_default();
        self.scope
            .place
            .emitter
            .emit(ThreadEvent::ToolProgress(Box::new(ToolProgress {
                tool_name: self.call.name.clone(),
                tool_call_id: self.call.id.clone(),
                child_thread_id: child,
                depth,
                event: event.name(),
                data,
            })));
    }

    /// What the call answers for a child that ended with `done`.
    fn result(
        &self,
        agent: &str,
        child: ThreadId,
        done: Option<Box<DoneEvent>>,
        error_code: Option<String>,
        timed_out: bool,
    ) -> ToolOutput {
        if timed_out {
            return ToolOutput::error(format!("timeout after {} ms", self.timeout.as_millis()));
        }
        match done {
            Some(done) if done.stopped == Some(true) => ToolOutput {
                result: json!({"error": "delegate stopped", "content": done.content}),
                is_error: true,
            },
            Some(done) if done.ok => ToolOutput {
                result: json!({"agent": agent, "thread_id": child, "content": done.content}),
                is_error: false,
            },
            _ => ToolOutput::error(format!(
                "delegate failed: {}",
                error_code.as_deref().unwrap_or("INTERNAL")
            )),
        }
    }
}
