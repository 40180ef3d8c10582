//! The marketplace (`marketplace-channels.md` §2–§5): an agent's profile and
//! its rules, proposals written by a model, avatars, the catalogue's listings, the official templates,
//! and making an agent from a template or a listing (`use`). The store's
//! side is `crate::store::marketplace`; the routes are
//! `crate::api::marketplace`.

pub mod adopt;
pub mod avatar;
pub mod listing;
pub mod profile;
pub mod proposals;
pub mod templates;
