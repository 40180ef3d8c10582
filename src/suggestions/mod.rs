//! Suggestions written by a model (`agent-extras.md` §2, and `runners.md`
//! "Suggestions", which generates a runner's the same way): the one model
//! call both make, and its bill. The call runs on the agent's (or runner's)
//! model with the platform key (no end user, so no resolver), no tools, at
//! most 60 s. It is billed like any other call: a usage record with
//! `purpose: "suggestions"` and no thread, counted in the org's day
//! (tokens and cost, not turns) and, for a runner, in the runner's day.
//!
//! What is asked and how the answer is read belong to each kind: agents'
//! in [`agent`], runners' in `crate::runners::generate`, marketplace
//! proposals' in `crate::marketplace::proposals` (billed with `purpose:
//! "marketplace"`, their output capped).

pub mod agent;

use std::sync::Arc;
use std::time::Duration;

use confer_actors::{
    AgentId, ContextMessage, ContextRole, ModelError, ModelProvider, ModelRequest, OrgId,
    PriceTable, RunnerId, SideBill, UsagePurpose, UsageRecord, codes, read_side_call,
};

use crate::observability::aggregate::DayAggregate;
use crate::store::Store;

/// How long the call may take.
const CALL_WITHIN: Duration = Duration::from_secs(60);
/// Suggestions asked for when the body names no count.
pub const DEFAULT_COUNT: usize = 4;
/// The most suggestions an agent or a runner keeps.
pub const MAX_SUGGESTIONS: usize = 10;

/// Why no suggestions came.
#[derive(Debug, thiserror::Error)]
pub enum SuggestError {
    /// The vendor refused or failed (its code decides the status).
    #[error("{}", .0.detail)]
    Vendor(ModelError),
    /// The answer held no usable suggestion.
    #[error("the model's answer held no usable suggestion")]
    NoneLeft,
}

impl From<SuggestError> for crate::error::ApiError {
    fn from(error: SuggestError) -> Self {
        match error {
            SuggestError::Vendor(failure) => Self::Vendor {
                code: failure.code,
                detail: failure.detail,
            },
            SuggestError::NoneLeft => Self::Vendor {
                code: codes::MODEL_ERROR,
                detail: error.to_string(),
            },
        }
    }
}

/// A generation's `count` (absent: 4), or 422 naming it.
pub fn requested_count(count: Option<usize>) -> Result<usize, crate::error::ApiError> {
    let count = count.unwrap_or(DEFAULT_COUNT);
    if (1..=MAX_SUGGESTIONS).contains(&count) {
        Ok(count)
    } else {
        Err(crate::error::ApiError::invalid(
            "count",
            format!("1 to {MAX_SUGGESTIONS}"),
        ))
    }
}

/// One call to make: for whom, on which model, asking what.
pub struct SuggestCall {
    pub org: OrgId,
    pub agent: AgentId,
    /// The runner whose day the cost counts in, for a runner's.
    pub runner: Option<RunnerId>,
    /// The caller (the analytics' user).
    pub user_id: String,
    pub model: String,
    pub system: String,
    pub prompt: String,
    /// What the usage record says the call was for.
    pub purpose: UsagePurpose,
    /// A cap on the answer's tokens (`None`: the provider's own).
    pub max_output_tokens: Option<u32>,
}

/// A side call's answer: its text, the model as routed and the tokens
/// billed (estimated where the vendor gave no count).
#[derive(Clone, Debug)]
pub struct SideAnswer {
    pub text: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Makes the calls; one per server.
pub struct SuggestionWriter {
    store: Store,
    provider: Arc<dyn ModelProvider>,
    prices: Arc<PriceTable>,
}

impl SuggestionWriter {
    pub fn new(store: Store, provider: Arc<dyn ModelProvider>, prices: Arc<PriceTable>) -> Self {
        Self {
            store,
            provider,
            prices,
        }
    }

    /// The model's answer to `ask`, and the model as routed.
    pub async fn call(&self, ask: SuggestCall) -> Result<(String, String), SuggestError> {
        self.answer(ask).await.map(|a| (a.text, a.model))
    }

    /// The model's answer to `ask` with the tokens billed.
    pub async fn answer(&self, ask: SuggestCall) -> Result<SideAnswer, SuggestError> {
        let route = self.provider.route(&ask.model);
        let options = confer_actors::vendor_options::VendorOptions {
            max_output_tokens: ask.max_output_tokens,
            ..Default::default()
        };
        let request = ModelRequest {
            route: route.clone(),
            system: ask.system.clone(),
            system_stable_len: 0,
            messages: Arc::new(vec![ContextMessage::text(
                ContextRole::User,
                ask.prompt.clone(),
            )]),
            tools: Vec::new(),
            tool_choice_none: false,
            compaction: None,
            api_key: None,
            origin: None,
            options: Arc::new(options),
        };
        let stream = read_side_call(self.provider.stream(request));
        let Ok(call) = tokio::time::timeout(CALL_WITHIN, stream).await else {
            return Err(SuggestError::Vendor(ModelError::new(
                codes::PROVIDER_TIMEOUT,
                format!(
                    "the model did not answer within {} s",
                    CALL_WITHIN.as_secs()
                ),
            )));
        };
        let mut tokens = (0, 0);
        if call.accepted {
            let record = call.usage_record(SideBill {
                org: ask.org,
                agent: ask.agent,
                thread: None,
                route: &route,
                key_source: "platform".into(),
                sent: &ask.prompt,
                purpose: ask.purpose,
            });
            tokens = (record.input_tokens, record.output_tokens);
            self.bill(&ask, record).await;
        }
        if let Some(failure) = call.failure {
            return Err(SuggestError::Vendor(failure));
        }
        Ok(SideAnswer {
            text: call.text,
            model: route.model,
            input_tokens: tokens.0,
            output_tokens: tokens.1,
        })
    }

    /// Stores the call's record and counts it in the days it belongs to.
    async fn bill(&self, ask: &SuggestCall, record: UsageRecord) {
        let cost_nanos = self.prices.cost_nanos(&record).unwrap_or(0);
        let day = DayAggregate {
            input_tokens: record.input_tokens,
            output_tokens: record.output_tokens,
            cost_nanos,
            ..DayAggregate::default()
        };
        let (org, agent, runner, at) = (ask.org, ask.agent, ask.runner, record.created_at);
        let (user, model) = (ask.user_id.clone(), ask.model.clone());
        // The record on either store; its days (and a runner's cost) on
        // sled, whose analytics count calls outside a turn.
        let billed = match self.store.as_port().record_usage(record).await {
            Ok(_) => {
                self.store
                    .write_or_default(move |s| {
                        s.add_call_to_days(org, &user, (agent, &model), &day)?;
                        match runner {
                            // Nano-USD to USD, as the runs' usage is kept.
                            Some(runner) => {
                                s.add_runner_day_cost(org, runner, at, cost_nanos as f64 / 1e9)
                            }
                            None => Ok(()),
                        }
                    })
                    .await
            }
            Err(error) => Err(error),
        };
        if let Err(error) = billed {
            tracing::error!(%error, %agent, "billing a suggestions call failed");
        }
    }
}
