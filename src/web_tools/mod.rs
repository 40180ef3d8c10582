//! The web tools (`agent-extras.md` §4): an agent's configuration
//! ([`config`]), `web_fetch` ([`fetch`], with [`robots`]) and
//! `web_search` ([`search`]). What a turn is offered is
//! `crate::tools::web`'s.

pub mod config;
pub mod fetch;
pub mod robots;
pub mod search;
pub mod stored;
