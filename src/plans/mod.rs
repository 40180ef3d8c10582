//! Plans and todos (`plans.md`): the records as stored and answered, their
//! limits, and every change a client route or a built-in tool makes to
//! them. A change is a pure function over one plan ([`edit`]); the store
//! swaps its result in (compare-and-swap), so an agent's tool call and a
//! client's PATCH at the same moment never lose either change. [`rules`]
//! holds what every change checks and the automatic statuses, [`graph`]
//! the dependency rules (cycles, readiness) and the plan's order,
//! [`positions`] the order among siblings.

pub mod edit;
pub mod graph;
pub mod positions;
pub mod rules;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, PlanId, ThreadId, TodoId};
use serde::{Deserialize, Serialize};

/// Todos a plan may hold.
pub const MAX_TODOS: usize = 200;
/// Plans a thread may hold.
pub const MAX_PLANS_PER_THREAD: usize = 20;
/// Characters of a plan's title.
pub const MAX_TITLE: usize = 200;
/// Characters of a plan's description.
pub const MAX_DESCRIPTION: usize = 4_000;
/// Characters of a todo's content.
pub const MAX_CONTENT: usize = 2_000;

/// `created_by` of a plan a built-in tool made.
pub const AGENT_CREATOR: &str = "agent";

/// Where a plan stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Draft,
    Approved,
    InProgress,
    Done,
    Cancelled,
}

impl PlanStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Approved => "approved",
            Self::InProgress => "in_progress",
            Self::Done => "done",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the plan is still open (`done` and `cancelled` are not).
    pub fn is_open(self) -> bool {
        !matches!(self, Self::Done | Self::Cancelled)
    }
}

/// Where a todo stands; `in-progress` is accepted on input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    #[serde(alias = "in-progress")]
    InProgress,
    Done,
    Skipped,
}

impl TodoStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Done => "done",
            Self::Skipped => "skipped",
        }
    }

    /// Whether the todo no longer holds up its dependents.
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Done | Self::Skipped)
    }
}

/// A plan of one thread, with its todos in plan order (depth-first: each
/// parent, then its children, siblings by position). Stored as one record,
/// so that any change to a plan or its todos is one compare-and-swap; this
/// is also the shape every route answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Plan {
    pub id: PlanId,
    pub org_id: OrgId,
    pub thread_id: ThreadId,
    pub title: String,
    pub description: String,
    pub status: PlanStatus,
    pub todos: Vec<Todo>,
    /// `"agent"` for a tool-made plan, else the caller (JWT `sub` or
    /// `apikey:{key id}`).
    pub created_by: String,
    #[serde(with = "wire_time")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: DateTime<Utc>,
    #[serde(with = "wire_time")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: DateTime<Utc>,
    /// Grows with every change of the plan or one of its todos.
    pub version: u64,
}

/// A todo of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Todo {
    pub id: TodoId,
    pub plan_id: PlanId,
    pub content: String,
    pub status: TodoStatus,
    /// Nesting only; no effect on readiness.
    pub parent_id: Option<TodoId>,
    /// Order among its siblings, from 0.
    pub position: u32,
    /// Todos of the same plan this one waits for.
    pub depends_on: Vec<TodoId>,
    #[serde(with = "wire_time")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: DateTime<Utc>,
    #[serde(with = "wire_time")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: DateTime<Utc>,
    pub version: u64,
}

/// The thread's current plan: the newest of `plans` (newest first) that
/// is not done or cancelled.
pub fn current_plan(plans: Vec<Plan>) -> Option<Plan> {
    plans.into_iter().find(|p| p.status.is_open())
}

impl Plan {
    /// The todo with `id`.
    pub fn todo(&self, id: TodoId) -> Option<&Todo> {
        self.todos.iter().find(|t| t.id == id)
    }
}

/// Why a change to a plan was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    /// A value breaks a rule (422 for a route, an error result for a tool);
    /// the detail names the field.
    Invalid(String),
    /// The todo a route names is not in the plan (404).
    TodoNotFound,
    /// `If-Match` named another version; the current object (412).
    Stale(serde_json::Value),
    /// A tool may not do this to a plan awaiting approval.
    NotApproved(&'static str),
}

impl PlanError {
    /// A refusal naming `field`.
    pub fn invalid(field: &str, rule: impl std::fmt::Display) -> Self {
        Self::Invalid(format!("{field}: {rule}"))
    }
}

/// Timestamps as every other resource answers them: RFC 3339, UTC,
/// microseconds (the stored record uses the same text).
mod wire_time {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&at.to_rfc3339_opts(SecondsFormat::Micros, true))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|at| at.with_timezone(&Utc))
            .map_err(serde::de::Error::custom)
    }
}
