//! Projects (`agent-extras.md` §5): a named group of an org's threads,
//! agents and runners, with members who are owners, editors or viewers.
//!
//! This module owns the records and the rules a project write must keep
//! (field bounds, the member roles, the last owner). The store keeps them
//! (`crate::store::projects`), the HTTP layer shapes them
//! (`crate::api::projects`), and what a member may do on a project's
//! threads is decided with every other thread right in `crate::auth::access`.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, ProjectId};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// Members a project may have.
pub const MAX_MEMBERS: usize = 500;
/// Projects an org may have.
pub const MAX_PROJECTS_PER_ORG: usize = 10_000;
/// Longest name, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest slug, in characters.
pub const MAX_SLUG_CHARS: usize = 64;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// Longest member user id, in characters.
pub const MAX_USER_ID_CHARS: usize = 255;

/// A project as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Project {
    pub id: ProjectId,
    pub org_id: OrgId,
    pub name: String,
    /// Unique within the org when set.
    pub slug: Option<String>,
    pub description: Option<String>,
    /// `sub` of the JWT user, or `apikey:{key id}`.
    pub created_by: String,
    /// Unique within the org (microseconds, bumped on a collision): the
    /// listing's order and cursor.
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What a member may do, weakest first (the order is the comparison).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProjectRole {
    /// Reads the project's threads.
    Viewer,
    /// Also creates, sends to, stops and edits them.
    Editor,
    /// Also deletes them and manages the project and its members.
    Owner,
}

/// A member of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Member {
    pub user_id: String,
    pub role: ProjectRole,
    /// Who added it (or last changed its role).
    pub added_by: String,
    #[schema(value_type = String)]
    pub added_at: DateTime<Utc>,
}

/// The name's rule (422 naming the field).
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let chars = name.trim().chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        return Err(ApiError::invalid(
            "name",
            format!("1 to {MAX_NAME_CHARS} characters"),
        ));
    }
    Ok(())
}

/// The slug's rule: lowercase letters and digits in dash-separated words.
pub fn check_slug(slug: &str) -> Result<(), ApiError> {
    let words_ok = slug.split('-').all(|word| {
        !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    if !words_ok || slug.len() > MAX_SLUG_CHARS {
        return Err(ApiError::invalid(
            "slug",
            format!(
                "lowercase letters and digits in words joined by `-`, at most {MAX_SLUG_CHARS} characters"
            ),
        ));
    }
    Ok(())
}

/// The description's rule.
pub fn check_description(description: &str) -> Result<(), ApiError> {
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(ApiError::invalid(
            "description",
            format!("at most {MAX_DESCRIPTION_CHARS} characters"),
        ));
    }
    Ok(())
}

/// A member's user id: an end user's `sub`, never an API key's
/// `apikey:…` (keys see every project already).
pub fn check_user_id(field: &str, user_id: &str) -> Result<(), ApiError> {
    let chars = user_id.chars().count();
    if chars == 0 || chars > MAX_USER_ID_CHARS {
        return Err(ApiError::invalid(
            field,
            format!("1 to {MAX_USER_ID_CHARS} characters"),
        ));
    }
    if user_id.starts_with(crate::auth::jwt::API_KEY_SUBJECT_PREFIX) {
        return Err(ApiError::invalid(
            field,
            "an API key is not a member: admin and member keys act as owners of every project",
        ));
    }
    Ok(())
}

/// Whether changing `user`'s membership to `to` (`None`: removing it)
/// leaves `members` without an owner: refused to an end user (422), allowed
/// to admins and members, who act as owners of every project anyway.
pub fn strips_last_owner(members: &[Member], user: &str, to: Option<ProjectRole>) -> bool {
    let owner_now = members
        .iter()
        .any(|m| m.user_id == user && m.role == ProjectRole::Owner);
    let owners = members
        .iter()
        .filter(|m| m.role == ProjectRole::Owner)
        .count();
    owner_now && owners == 1 && to != Some(ProjectRole::Owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(user: &str, role: ProjectRole) -> Member {
        Member {
            user_id: user.into(),
            role,
            added_by: "x".into(),
            added_at: Utc::now(),
        }
    }

    #[test]
    fn slugs_are_dash_separated_lowercase_words() {
        assert!(check_slug("research-2026").is_ok());
        assert!(check_slug("a").is_ok());
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é", &"a".repeat(65)] {
            assert!(check_slug(bad).is_err(), "{bad:?} passed");
        }
    }

    #[test]
    fn the_last_owner_is_found() {
        let one = [
            member("u1", ProjectRole::Owner),
            member("u2", ProjectRole::Viewer),
        ];
        assert!(strips_last_owner(&one, "u1", None));
        assert!(strips_last_owner(&one, "u1", Some(ProjectRole::Editor)));
        assert!(!strips_last_owner(&one, "u1", Some(ProjectRole::Owner)));
        assert!(!strips_last_owner(&one, "u2", None));
        let two = [
            member("u1", ProjectRole::Owner),
            member("u2", ProjectRole::Owner),
        ];
        assert!(!strips_last_owner(&two, "u1", None));
    }

    #[test]
    fn keys_and_empty_ids_are_not_members() {
        assert!(check_user_id("userId", "apikey:123").is_err());
        assert!(check_user_id("userId", "").is_err());
        assert!(check_user_id("userId", &"u".repeat(256)).is_err());
        assert!(check_user_id("userId", "user-7").is_ok());
    }

    #[test]
    fn roles_order_from_viewer_to_owner() {
        assert!(ProjectRole::Viewer < ProjectRole::Editor);
        assert!(ProjectRole::Editor < ProjectRole::Owner);
    }
}
