//! A tool step (`tools.md` §5): the model call that asked for tools is
//! billed (its usage record kept for the answer's write), its text, calls
//! and their results join the context, and the calls run concurrently; a
//! stop cancels them (closing their connections).

use super::{CancelReason, ModelOutcome, Turn, until_cancelled};
use crate::provider::{ContextMessage, ToolCall};
use crate::tools::{CallPlan, PROPOSE_PROFILE_SWITCH, RanCall, run_calls};
use crate::trace::{SpanAttributes, SpanKind};
use crate::turn_metrics;

impl Turn {
    /// Runs the step's `plans` after `outcome`; `Err` when stopped.
    pub(super) async fn tool_step(
        &mut self,
        mut outcome: ModelOutcome,
        plans: Vec<(crate::provider::ToolCall, CallPlan)>,
    ) -> Result<(), CancelReason> {
        self.bill(&outcome);
        self.answer.push_str(outcome.lead);
        self.answer.push_str(&outcome.content);
        let entry = self.answer_entry(&mut outcome);
        self.history.push(entry.clone());
        self.produced.push(entry);

        let executor = std::sync::Arc::clone(&self.engine.tools);
        let work = run_calls(executor.as_ref(), &self.scope, &plans, &self.emitter);
        let outputs = until_cancelled(&mut self.cancel, work).await?;
        for ((call, _), ran) in plans.iter().zip(outputs) {
            self.trace_tool(call, &ran);
            let mut result = ContextMessage::tool_result(call.id.clone(), ran.output.as_text());
            result.turn = Some(self.number);
            self.history.push(result.clone());
            self.produced.push(result);
        }
        self.step += 1;
        Ok(())
    }

    /// A server-side call's span, and its metric.
    fn trace_tool(&mut self, call: &ToolCall, ran: &RanCall) {
        let kind = if call.name == PROPOSE_PROFILE_SWITCH {
            "builtin"
        } else {
            self.tool_kinds
                .iter()
                .find(|(name, _)| *name == call.name)
                .map_or("client", |(_, kind)| kind)
        };
        let is_error = ran.output.is_error;
        turn_metrics::tool_call(kind, ran.output.outcome());
        let delegated = self.scope.notes.take_delegate_call(&call.id);
        if let Some(delegated) = delegated {
            self.trace.name_next_span(delegated.span_id);
        }
        let attributes = SpanAttributes {
            tool_name: Some(call.name.clone()),
            tool_kind: Some(kind.to_owned()),
            tool_call_id: Some(call.id.clone()),
            is_error: Some(is_error),
            child_trace_id: delegated.map(|d| d.child_trace_id),
            ..SpanAttributes::default()
        };
        let error = is_error.then(|| ran.output.as_text());
        let root = self.trace.root();
        let span = self.trace.span_between(
            root,
            SpanKind::Tool,
            call.name.clone(),
            ran.started,
            ran.ended,
            attributes,
            error,
        );
        for request in self.scope.notes.take_requests(&call.id) {
            let attributes = SpanAttributes {
                status_code: request.status_code,
                rpc_error: request.rpc_error,
                ..SpanAttributes::default()
            };
            self.trace.span_between(
                span,
                request.kind,
                request.name,
                request.started,
                request.ended,
                attributes,
                request.error,
            );
        }
        if self.trace.records_payloads() {
            let arguments = call.arguments.to_string();
            self.trace
                .payload(span, Some(&arguments), Some(&ran.output.as_text()));
        }
    }
}
