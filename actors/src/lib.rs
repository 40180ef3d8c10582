//! Confer's conversation engine.
//!
//! This crate owns the domain model (IDs, agents, threads, messages, usage),
//! the runtime (an [`AgentRegistry`] supervising one [`ThreadActor`] per active
//! thread, each running [`turn`]s one at a time) and the **ports** it talks
//! through: [`ThreadStore`], [`ModelProvider`] and [`CredentialResolver`]. It never depends on
//! actix-web, reqwest or sled, so everything here can be tested with in-memory
//! fakes; the adapters live in the `confer` crate.

pub mod call_notes;
pub mod citations;
pub mod codes;
pub mod compaction;
pub mod context;
pub mod delegation;
pub mod domain;
pub mod events;
pub mod frames;
pub mod gating;
pub mod idempotency;
pub mod ids;
pub mod org_slots;
pub mod ports;
pub mod prices;
pub mod provider;
pub mod registry;
pub mod send_rules;
pub mod side_call;
pub mod thread_actor;
pub mod timings;
pub mod tools;
pub mod trace;
pub mod turn;
pub mod turn_metrics;
pub mod vendor_options;

#[cfg(test)]
mod tests;

pub use codes::ErrorCode;
pub use delegation::{DelegatedUsage, DelegationLink, ThreadDelegation, TraceLink, TurnPlace};
pub use domain::*;
pub use events::{
    AuthChallenge, DoneEvent, MetaEvent, SessionStatusEvent, ThreadEvent, ToolOutputEvent, Usage,
};
pub use frames::{
    Frame, FrameId, FrameLog, FrameReader, Position, Ready, Retention, TooManyReaders, TurnsNow,
};
pub use idempotency::{IdempotencyKey, IdempotencyRecord, OutcomeKind, TurnOutcome};
pub use ids::*;
pub use ports::{
    AdmissionReads, AppendDone, Fence, LastTurn, StoreError, StoreFuture, ThreadAppend,
    ThreadStore, TurnEnd, TurnInputs, TurnMark, run_blocking, set_store_concurrency,
};
pub use prices::{ModelPrice, PriceTable};
pub use provider::{
    CallOrigin, CompactionBlock, ContextMessage, ContextRole, ContextView, CredentialResolver,
    FinishReason, KeyRequest, ModelError, ModelEvent, ModelProvider, ModelRequest, ModelRoute,
    ModelStream, ReasoningBlock, ReasoningPiece, ResolvedKey, ToolCall, ToolDefinition, VendorKey,
    estimate_tokens,
};
pub use registry::{AgentRegistry, Runtime, RuntimeConfig, RuntimeError};
pub use send_rules::BrokenRule;
pub use side_call::{SideBill, SideCall, read_side_call};
pub use thread_actor::{Admission, IfBusy, Refusal, ThreadActor, ThreadLimits};
pub use timings::TurnTimings;
pub use trace::{
    RunningTraces, Span, SpanAttributes, SpanKind, SpanStatus, Trace, TraceRecord, TraceStatus,
};
pub use turn::{
    BudgetFuture, Emitter, Engine, HostTurn, HostWork, Leases, OrgTurns, PublicTurn, RunTag,
    RunTurn, ToolResult, TurnBudget, TurnRequest,
};
pub use vendor_options::{AnthropicCache, AnthropicOptions, OpenAiOptions, VendorOptions};
