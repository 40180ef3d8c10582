//! Reading a model call made beside an answer (a compaction's summary, a
//! memory collection): nothing of it is relayed to a client.

use futures_util::StreamExt;

use crate::domain::{UsagePurpose, UsageRecord};
use crate::ids::{AgentId, OrgId, ThreadId, UsageId};
use crate::provider::{ModelError, ModelEvent, ModelRoute, ModelStream};

/// What a call made beside an answer gave (a compaction's summary, a
/// memory collection): its text, its usage, or its failure.
pub struct SideCall {
    /// The vendor accepted it: it is billed.
    pub accepted: bool,
    pub text: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub failure: Option<ModelError>,
}

/// Reads a side call to its end (nothing is relayed to a client).
pub async fn read_side_call(mut stream: ModelStream) -> SideCall {
    let mut call = SideCall {
        accepted: false,
        text: String::new(),
        input_tokens: None,
        output_tokens: None,
        failure: None,
    };
    while let Some(event) = stream.next().await {
        match event {
            ModelEvent::Accepted => call.accepted = true,
            ModelEvent::Text(piece) => call.text.push_str(&piece),
            ModelEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                call.input_tokens = input_tokens.or(call.input_tokens);
                call.output_tokens = output_tokens.or(call.output_tokens);
            }
            ModelEvent::Finish(_) => break,
            ModelEvent::Error(error) => {
                call.failure = Some(error);
                break;
            }
            _ => {}
        }
    }
    call
}

/// Whom a side call billed, and for what.
pub struct SideBill<'a> {
    pub org: OrgId,
    pub agent: AgentId,
    /// `None` for a call outside any thread (suggestions).
    pub thread: Option<ThreadId>,
    pub route: &'a ModelRoute,
    /// `platform`, or the resolver's `source` label.
    pub key_source: String,
    /// What was sent, to estimate the input when the vendor gave no count.
    pub sent: &'a str,
    pub purpose: UsagePurpose,
}

impl SideCall {
    /// The call's usage record (counts the vendor left out estimated).
    pub fn usage_record(&self, bill: SideBill<'_>) -> UsageRecord {
        UsageRecord {
            id: UsageId::new(),
            org_id: bill.org,
            agent_id: bill.agent,
            thread_id: bill.thread,
            message_id: None,
            model: bill.route.model.clone(),
            provider: bill.route.provider.clone(),
            key_source: bill.key_source,
            input_tokens: self
                .input_tokens
                .unwrap_or_else(|| crate::estimate_tokens(bill.sent)),
            output_tokens: self
                .output_tokens
                .unwrap_or_else(|| crate::estimate_tokens(&self.text)),
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            metadata: Default::default(),
            publication_id: None,
            delegation: None,
            stopped: false,
            estimated: self.input_tokens.is_none() || self.output_tokens.is_none(),
            step: None,
            purpose: bill.purpose,
            compacted: false,
            iterations: None,
            created_at: chrono::Utc::now(),
        }
    }
}
