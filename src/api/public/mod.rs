//! `/api/public/chat/{slug}`: the public chat's API (`publishing.md`
//! "Visitors"). The configuration and the session mint take no credential;
//! everything else takes a visitor token of the slug's publication
//! ([`crate::auth::visitor::Visitor`]). No CORS headers on any of it: the
//! page is served by Confer itself.

pub mod config;
pub mod events;
pub mod messages;
pub mod people;
pub mod session;
pub mod threads;
