//! The server-side tools Confer runs itself, behind the turn's
//! [`ToolExecutor`] port: one module per kind ([`plans`]: the built-in plan
//! tools; [`webhook`]: the org's webhook tools). [`ServerToolbox`] offers
//! them by kind and sends each call to its kind.

pub mod plans;
pub mod webhook;

use confer_actors::ToolCall;
use confer_actors::tools::{
    BriefingFuture, NOT_AVAILABLE, OfferedFuture, ToolExecutor, ToolFuture, ToolOutput, ToolScope,
};

use self::plans::PlanTools;
use self::webhook::WebhookTools;

/// Every kind of server-side tool.
pub struct ServerToolbox {
    plans: PlanTools,
    webhooks: WebhookTools,
}

impl ServerToolbox {
    /// The built-in plan tools and the org's webhooks.
    pub fn new(plans: PlanTools, webhooks: WebhookTools) -> Self {
        Self { plans, webhooks }
    }
}

impl ToolExecutor for ServerToolbox {
    fn offered(&self, scope: &ToolScope) -> OfferedFuture {
        let org = self.webhooks.offered(scope);
        let enabled = scope.plans.enabled;
        Box::pin(async move {
            let mut tools = org.await;
            if enabled {
                tools.builtin.extend(plans::definitions());
            }
            tools
        })
    }

    fn execute(&self, scope: &ToolScope, call: &ToolCall) -> ToolFuture {
        if !plans::is_plan_tool(&call.name) {
            return self.webhooks.execute(scope, call);
        }
        if !scope.plans.enabled {
            return Box::pin(async { ToolOutput::error(NOT_AVAILABLE) });
        }
        let (tools, scope, call) = (self.plans.clone(), scope.clone(), call.clone());
        Box::pin(async move { tools.execute(scope, call).await })
    }

    fn briefing(&self, scope: &ToolScope) -> BriefingFuture {
        let (tools, scope) = (self.plans.clone(), scope.clone());
        Box::pin(async move { tools.briefing(scope).await })
    }
}
