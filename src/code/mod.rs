//! Code agents and code sessions (`computer.md` §5–6): an agent plus a
//! repository, and the tasks that work on it in a sandbox. The records'
//! rules live here; the store keeps them (`crate::store::code`), the
//! routes shape them (`crate::api::code_agents`), and the sandbox they
//! run in is `crate::computer`.

pub mod agents;
pub mod archive;
pub mod changes;
pub mod commands;
pub mod files;
pub mod ops;
pub mod prepare;
pub mod prompt;
pub mod seed;
pub mod service;
pub mod sessions;
pub mod workspace;
