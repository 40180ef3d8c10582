//! A tool step (`tools.md` §5): the model call that asked for tools is
//! billed at once (its usage record written, the flush shared with the
//! tools' run), its text, calls and their results join the context, and the
//! calls run concurrently; a stop cancels them (closing their connections).

use super::{CancelReason, ModelOutcome, Turn, until_cancelled};
use crate::provider::ContextMessage;
use crate::tools::{CallPlan, run_calls};

impl Turn {
    /// Runs the step's `plans` after `outcome`; `Err` when stopped.
    pub(super) async fn tool_step(
        &mut self,
        mut outcome: ModelOutcome,
        plans: Vec<(crate::provider::ToolCall, CallPlan)>,
    ) -> Result<(), CancelReason> {
        self.bill(&outcome).await;
        self.answer.push_str(outcome.lead);
        self.answer.push_str(&outcome.content);
        let entry = self.answer_entry(&mut outcome);
        self.history.push(entry.clone());
        self.produced.push(entry);

        let executor = std::sync::Arc::clone(&self.engine.tools);
        let store = std::sync::Arc::clone(&self.engine.store);
        let work = async {
            // The usage record is on disk by the time the tools are done.
            let (outputs, flushed) = tokio::join!(
                run_calls(executor.as_ref(), &self.scope, &plans, &self.emitter),
                store.flush(),
            );
            if let Err(error) = flushed {
                tracing::error!(%error, "flushing a tool step's usage failed");
            }
            outputs
        };
        let outputs = until_cancelled(&mut self.cancel, work).await?;
        for ((call, _), output) in plans.iter().zip(outputs) {
            let mut result = ContextMessage::tool_result(call.id.clone(), output.as_text());
            result.turn = Some(self.number);
            self.history.push(result.clone());
            self.produced.push(result);
        }
        self.step += 1;
        Ok(())
    }
}
