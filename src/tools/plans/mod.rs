//! The built-in plan tools (`plans.md` "Built-in tools"): `plan_create`,
//! `plan_update`, `todo_add` and `todo_update`, offered while the agent's
//! plan configuration is enabled, and the briefing that tells the model
//! about the thread's current plan before each call. They act on the turn's
//! thread only; every refusal is an error result the model reads, never a
//! failed stream. Changes go through the same edits and compare-and-swap as
//! the client routes, so neither side's change is lost.

mod briefing;
pub mod schema;

use chrono::Utc;
use confer_actors::tools::{ToolOutput, ToolScope};
use confer_actors::{PlanId, TodoId, ToolCall};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use self::briefing::{AUTO_CREATE_HINT, describe};
use self::schema::{AddArgs, CreateArgs, UpdatePlanArgs, UpdateTodoArgs};
pub use self::schema::{
    PLAN_CREATE, PLAN_UPDATE, TODO_ADD, TODO_UPDATE, definitions, is_plan_tool,
};
use super::webhook::bad_arguments;
use crate::plans::edit::{self, InlineTodo, NewPlan, NewTodo, PlanChange, TodoChange};
use crate::plans::{
    AGENT_CREATOR, MAX_PLANS_PER_THREAD, Plan, PlanError, PlanStatus, current_plan,
};
use crate::store::Store;
use crate::store::plans::PlanCreate;
use crate::store::update::Updated;

/// The error of a plan of another thread, or of none.
const PLAN_NOT_FOUND: &str = "plan not found";
/// The error of a tool's todo change on a plan awaiting approval.
const NOT_APPROVED: &str = "plan not approved";
/// The error of `plan_update` moving a draft, or approving.
const ONLY_A_CLIENT_APPROVES: &str = "plan not approved: only a client can approve";

/// Runs the plan tools for turns.
#[derive(Clone)]
pub struct PlanTools {
    store: Store,
}

/// A tool's answer: a JSON result, or an error result.
type Answer = Result<Value, String>;

fn answer(result: Answer) -> ToolOutput {
    match result {
        Ok(result) => ToolOutput {
            result,
            is_error: false,
        },
        Err(reason) => ToolOutput::error(reason),
    }
}

fn parse<T: DeserializeOwned>(arguments: &Value) -> Result<T, String> {
    serde_json::from_value(arguments.clone()).map_err(|e| format!("invalid arguments: {e}"))
}

fn internal(error: impl std::fmt::Display) -> String {
    tracing::error!(%error, "a plan tool's store call failed");
    "internal error".to_owned()
}

fn refusal(error: PlanError) -> String {
    match error {
        PlanError::Invalid(detail) => detail,
        PlanError::TodoNotFound => "todo not found".to_owned(),
        PlanError::NotApproved(reason) => reason.to_owned(),
        // Tools name no version.
        PlanError::Stale(_) => "the plan changed meanwhile; try again".to_owned(),
    }
}

impl PlanTools {
    /// Plan tools over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Runs one call of a plan tool.
    pub async fn execute(&self, scope: ToolScope, call: ToolCall) -> ToolOutput {
        if let Some(refused) = bad_arguments(&call.arguments) {
            return refused;
        }
        answer(self.dispatch(&scope, &call).await)
    }

    async fn dispatch(&self, scope: &ToolScope, call: &ToolCall) -> Answer {
        let args = &call.arguments;
        match call.name.as_str() {
            PLAN_CREATE => self.create(scope, parse(args)?).await,
            PLAN_UPDATE => self.update_plan(scope, parse(args)?).await,
            TODO_ADD => self.add(scope, parse(args)?).await,
            TODO_UPDATE => self.update_todo(scope, parse(args)?).await,
            _ => Err(confer_actors::tools::NOT_AVAILABLE.to_owned()),
        }
    }

    async fn create(&self, scope: &ToolScope, args: CreateArgs) -> Answer {
        let new = NewPlan {
            title: args.title,
            description: args.description,
            status: if scope.plans.require_approval {
                PlanStatus::Draft
            } else {
                PlanStatus::InProgress
            },
            todos: args
                .todos
                .into_iter()
                .map(|t| InlineTodo {
                    content: t.content,
                    status: None,
                    depends_on: t.depends_on,
                })
                .collect(),
            created_by: AGENT_CREATOR.to_owned(),
        };
        let plan = edit::create(scope.org, scope.thread, new, Utc::now()).map_err(refusal)?;
        let stored = plan.clone();
        let created = self
            .store
            .plans()
            .create_plan(stored)
            .await
            .map_err(internal)?;
        match created {
            Ok(()) => Ok(json!(plan)),
            Err(PlanCreate::ThreadFull) => Err(format!(
                "this thread holds {MAX_PLANS_PER_THREAD} plans, the most it may"
            )),
            Err(PlanCreate::ThreadGone) => Err("thread not found".to_owned()),
        }
    }

    /// Applies `change` by compare-and-swap to the plan a call names (of
    /// the turn's thread only) or, unnamed, to the current one. A plan
    /// deleted between the two is not found.
    async fn change(
        &self,
        scope: &ToolScope,
        named: Option<PlanId>,
        change: impl FnMut(Plan) -> Result<Plan, PlanError> + Send + 'static,
    ) -> Result<Plan, String> {
        let (org, thread) = (scope.org, scope.thread);
        let plans = self.store.plans();
        let found = match named {
            Some(id) => plans
                .plan(org, id)
                .await
                .map_err(internal)?
                .filter(|p| p.thread_id == thread),
            None => current_plan(plans.thread_plans(org, thread).await.map_err(internal)?),
        };
        let outcome = match found {
            Some(plan) => plans
                .update_plan(org, plan.id, Box::new(change))
                .await
                .map_err(internal)?,
            None => Updated::Gone,
        };
        match outcome {
            Updated::Stored(plan) => Ok(plan),
            Updated::Gone => Err(PLAN_NOT_FOUND.to_owned()),
            Updated::Refused(error) => Err(refusal(error)),
        }
    }

    async fn update_plan(&self, scope: &ToolScope, args: UpdatePlanArgs) -> Answer {
        let named = args.plan_id;
        let change = PlanChange {
            title: args.title,
            description: args.description,
            status: args.status,
        };
        let plan = self
            .change(scope, named, move |mut plan| {
                // No tool result can approve a plan, nor move a draft on.
                let moves_draft = plan.status == PlanStatus::Draft
                    && change.status.is_some_and(|s| s != PlanStatus::Draft);
                if change.status == Some(PlanStatus::Approved) || moves_draft {
                    return Err(PlanError::NotApproved(ONLY_A_CLIENT_APPROVES));
                }
                edit::update_plan(&mut plan, &change, None, Utc::now())?;
                Ok(plan)
            })
            .await?;
        Ok(json!(plan))
    }

    async fn add(&self, scope: &ToolScope, args: AddArgs) -> Answer {
        let named = args.plan_id;
        let approval = scope.plans.require_approval;
        let todos: Vec<NewTodo> = args
            .todos
            .into_iter()
            .map(|t| NewTodo {
                id: TodoId::new(),
                content: t.content,
                status: None,
                parent_id: t.parent_id,
                position: None,
                depends_on: t.depends_on,
            })
            .collect();
        let added: Vec<TodoId> = todos.iter().map(|t| t.id).collect();
        let plan = self
            .change(scope, named, move |mut plan| {
                awaiting_approval(&plan, approval)?;
                edit::add_todos(&mut plan, &todos, true, Utc::now())?;
                Ok(plan)
            })
            .await?;
        let todos: Vec<_> = added.iter().filter_map(|id| plan.todo(*id)).collect();
        Ok(json!({ "todos": todos }))
    }

    async fn update_todo(&self, scope: &ToolScope, args: UpdateTodoArgs) -> Answer {
        let named = args.plan_id;
        let approval = scope.plans.require_approval;
        let todo = args.todo_id;
        let change = TodoChange {
            content: args.content,
            status: args.status,
            ..TodoChange::default()
        };
        let plan = self
            .change(scope, named, move |mut plan| {
                awaiting_approval(&plan, approval)?;
                edit::update_todo(&mut plan, todo, &change, None, Utc::now())?;
                Ok(plan)
            })
            .await?;
        Ok(json!(plan.todo(todo)))
    }

    /// The text the model is given before each call while plans are
    /// enabled: the current plan, or the `autoCreate` hint when none is open.
    pub async fn briefing(&self, scope: ToolScope) -> Option<String> {
        let (org, thread) = (scope.org, scope.thread);
        let plans = match self.store.plans().thread_plans(org, thread).await {
            Ok(plans) => plans,
            Err(error) => {
                tracing::error!(%error, "reading the current plan failed");
                return None;
            }
        };
        match current_plan(plans) {
            Some(plan) => Some(describe(&plan)),
            None => scope.plans.auto_create.then(|| AUTO_CREATE_HINT.to_owned()),
        }
    }
}

/// A tool's todo changes wait while the plan is a draft awaiting approval.
fn awaiting_approval(plan: &Plan, require_approval: bool) -> Result<(), PlanError> {
    if require_approval && plan.status == PlanStatus::Draft {
        return Err(PlanError::NotApproved(NOT_APPROVED));
    }
    Ok(())
}
