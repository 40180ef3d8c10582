//! Confer's conversation engine.
//!
//! This crate owns the domain model (IDs, agents, threads, messages, usage) and
//! the **ports** the engine talks through (`ThreadStore` today; `ModelProvider`,
//! `ToolExecutor`, `CredentialResolver` and `Clock` join as the runtime grows).
//! It never depends on actix-web, reqwest or sled, so everything here can be
//! tested with in-memory fakes; the adapters live in the `confer` crate.

pub mod domain;
pub mod ids;
pub mod ports;

pub use domain::*;
pub use ids::*;
pub use ports::{StoreError, StoreFuture, ThreadStore};
