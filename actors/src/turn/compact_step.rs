//! Confer's summary compaction before the turn's first model call
//! (`compaction.md` "Other models"): when the agent's compaction is on, the
//! model's vendor does not compact natively and the request's estimate
//! reaches `vendor_b_compact_threshold`, one call to the same model
//! summarizes the older entries. Its marker (the summary and where the kept
//! entries start) is stored durably before `compaction {method: "summary"}`
//! is sent; its usage is billed with `purpose: compaction`. A failed or
//! empty summary leaves the turn uncompacted (logged, the stream goes on).
//!
//! Only before the first call: later steps' entries are stored with the
//! answer, so the store's positions are the history's only then.

use std::sync::Arc;

use chrono::Utc;

use super::model_step::CallKey;
use super::writes::append_durably;
use super::{CancelReason, Turn, until_cancelled};
use crate::compaction::{SUMMARY_INSTRUCTION, plan};
use crate::domain::{UsagePurpose, UsageRecord};
use crate::events::{ThreadEvent, Usage};
use crate::ports::ThreadAppend;
use crate::provider::{
    CompactionBlock, ContextMessage, ContextRole, ModelRequest, estimate_tokens, view_for,
};
use crate::side_call::{SideCall, read_side_call};
use crate::trace::{SpanAttributes, SpanKind, Stamp};

/// The provider that compacts natively (its own block, `model_step`).
const NATIVE_PROVIDER: &str = "anthropic";

impl Turn {
    /// Whether this model call may need Confer's compaction at all (the
    /// estimate decides); cheap, checked before the step is started.
    pub(super) fn may_compact(&self) -> bool {
        self.compaction.enabled && self.step == 1 && self.route.provider != NATIVE_PROVIDER
    }

    /// Compacts the context first if it is due; `Err` when stopped.
    pub(super) async fn compact_if_due(&mut self, key: &CallKey) -> Result<(), CancelReason> {
        if !self.may_compact() {
            return Ok(());
        }
        let system = self.system_prompt();
        let threshold = u64::from(self.compaction.vendor_b_compact_threshold);
        let tokens = self.engine.provider.token_counter(&self.route).await;
        let Some(planned) = plan(
            tokens.as_ref(),
            &system,
            &view_for(&self.history, &self.route.provider),
            threshold,
        ) else {
            return Ok(());
        };
        let request = ModelRequest {
            system_stable_len: 0,
            origin: None,
            options: Arc::default(),
            route: self.route.clone(),
            system: SUMMARY_INSTRUCTION.to_owned(),
            messages: Arc::new(vec![ContextMessage::text(
                ContextRole::User,
                planned.transcript.clone(),
            )]),
            tools: Vec::new(),
            tool_choice_none: false,
            compaction: None,
            api_key: key.api_key.clone(),
        };
        let from = Stamp::now();
        let stream = self.engine.provider.stream(request);
        let call = until_cancelled(&mut self.cancel, read_side_call(stream)).await?;
        let attributes = SpanAttributes {
            method: Some("summary".to_owned()),
            ..SpanAttributes::default()
        };
        let error = call
            .failure
            .as_ref()
            .map(|f| format!("{}: {}", f.code.code, f.detail));
        let root = self.trace.root();
        self.trace.span(
            root,
            SpanKind::Compaction,
            "compaction",
            from,
            attributes,
            error,
        );
        if call.accepted {
            // Counted only when the vendor reported no input tokens.
            let estimated_input = || tokens.count(&planned.transcript);
            self.bill_summary(&call, key, estimated_input).await;
        }
        let summary = call.text.trim();
        if let Some(failure) = &call.failure {
            tracing::warn!(thread = %self.thread_id, code = failure.code.code, detail = %failure.detail,
                "the summary call failed; the turn goes on uncompacted");
            return Ok(());
        }
        if summary.is_empty() {
            tracing::warn!(thread = %self.thread_id, "the summary call answered nothing; the turn goes on uncompacted");
            return Ok(());
        }
        let marker = ContextMessage {
            compaction: Some(Box::new(CompactionBlock {
                summary: summary.to_owned(),
                encrypted_content: None,
                native_to: None,
                at: Some(Utc::now()),
                kept_from: Some(planned.kept_from),
            })),
            turn: Some(self.number),
            ..ContextMessage::text(ContextRole::Assistant, "")
        };
        let write = ThreadAppend {
            context: vec![marker.clone()],
            fence: self.fence.as_deref().copied(),
            ..ThreadAppend::default()
        };
        if let Err(error) = append_durably(&self.engine.store, self.thread_id, write).await {
            tracing::error!(%error, thread = %self.thread_id, "storing a summary failed; the turn goes on uncompacted");
            return Ok(());
        }
        self.history.push(marker);
        self.emitter.emit(ThreadEvent::Compaction {
            method: "summary",
            summary: Some(summary.to_owned()),
            input_tokens_before: Some(planned.estimated_before),
        });
        Ok(())
    }

    /// Writes the summary call's usage record (linked to the answer later).
    async fn bill_summary(
        &mut self,
        call: &SideCall,
        key: &CallKey,
        estimated_input: impl FnOnce() -> u64,
    ) {
        let call_usage = Usage {
            input_tokens: call.input_tokens.unwrap_or_else(estimated_input),
            output_tokens: call
                .output_tokens
                .unwrap_or_else(|| estimate_tokens(&call.text)),
            ..Usage::default()
        };
        let record = UsageRecord {
            estimated: call.input_tokens.is_none() || call.output_tokens.is_none(),
            purpose: UsagePurpose::Compaction,
            ..self.call_record(&key.source, &call_usage)
        };
        match self.engine.store.record_usage(record).await {
            Ok(stored) => {
                self.note_usage(&stored);
                self.billed.push(stored);
            }
            Err(error) => {
                tracing::error!(%error, thread = %self.thread_id, "billing a summary call failed")
            }
        }
    }
}
