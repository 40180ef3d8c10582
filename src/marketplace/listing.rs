//! The catalogue (`GET /api/marketplace`, `marketplace-channels.md` §5):
//! who sees a listing, what a query matches, and the page cursor
//! `{updated_at}|{id}`.

use chrono::{DateTime, SecondsFormat, Utc};
use confer_actors::{Agent, AgentId, OrgId};

use super::profile::{Profile, Visibility};
use crate::store::marketplace::listed_key;

/// `limit`'s default and its largest value.
pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 100;
/// Listings looked at for one page at most (as logs do): a rare filter
/// answers a short page and a cursor rather than scanning everything.
pub const SCAN_PER_PAGE: usize = 5_000;

/// What a catalogue query asks for.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Lowercased; matched in title, description and tags.
    pub q: Option<String>,
    pub category: Option<String>,
    pub tag: Option<String>,
}

/// The title shown: the profile's, else the agent's name.
pub fn title<'a>(profile: &'a Profile, agent: &'a Agent) -> &'a str {
    profile.title.as_deref().unwrap_or(&agent.name)
}

/// The description shown: the profile's, else the agent's.
pub fn description<'a>(profile: &'a Profile, agent: &'a Agent) -> &'a str {
    profile.description.as_deref().unwrap_or(&agent.description)
}

impl Filter {
    /// Whether `viewer` sees the listing and it matches the query.
    pub fn admits(&self, viewer: OrgId, profile: &Profile, agent: &Agent) -> bool {
        let seen = profile.listed
            && !agent.is_deleted()
            && (profile.visibility == Visibility::Instance || profile.org_id == viewer);
        if !seen {
            return false;
        }
        if self
            .category
            .as_ref()
            .is_some_and(|c| profile.category.as_ref() != Some(c))
        {
            return false;
        }
        if self.tag.as_ref().is_some_and(|t| !profile.tags.contains(t)) {
            return false;
        }
        match &self.q {
            None => true,
            Some(q) => {
                title(profile, agent).to_lowercase().contains(q)
                    || description(profile, agent).to_lowercase().contains(q)
                    || profile.tags.iter().any(|t| t.contains(q.as_str()))
            }
        }
    }
}

/// The cursor after `profile`.
pub fn cursor_of(profile: &Profile) -> Option<String> {
    profile.updated_at.map(|at| {
        format!(
            "{}|{}",
            at.to_rfc3339_opts(SecondsFormat::Millis, true),
            profile.agent_id
        )
    })
}

/// The index key a cursor names (`None`: not a cursor of this list).
pub fn parse_cursor(cursor: &str) -> Option<[u8; 24]> {
    let (at, id) = cursor.split_once('|')?;
    let at: DateTime<Utc> = DateTime::parse_from_rfc3339(at).ok()?.into();
    let id: AgentId = id.parse().ok()?;
    Some(listed_key(at, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(org: OrgId, visibility: Visibility) -> (Profile, Agent) {
        let agent_id = AgentId::new();
        let mut profile = Profile::unsaved(org, agent_id);
        profile.listed = true;
        profile.visibility = visibility;
        profile.tags = vec!["billing".into()];
        profile.category = Some("support".into());
        profile.updated_at = Some(Utc::now());
        let agent = Agent {
            id: agent_id,
            org_id: org,
            name: "Helpdesk".into(),
            description: "Answers questions about invoices".into(),
            stable_preamble: String::new(),
            default_model: "builtin/echo".into(),
            tool_profiles: None,
            default_profile: None,
            runtime_provider: Default::default(),
            project_id: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            deleted_at: None,
        };
        (profile, agent)
    }

    #[test]
    fn org_listings_stay_in_their_org() {
        let (mine, other) = (OrgId::new(), OrgId::new());
        let everyone = Filter::default();
        let (profile, agent) = listed(mine, Visibility::Org);
        assert!(everyone.admits(mine, &profile, &agent));
        assert!(!everyone.admits(other, &profile, &agent));
        let (profile, agent) = listed(mine, Visibility::Instance);
        assert!(everyone.admits(other, &profile, &agent));
        let mut draft = profile.clone();
        draft.listed = false;
        assert!(!everyone.admits(mine, &draft, &agent));
    }

    #[test]
    fn a_query_matches_title_description_and_tags() {
        let org = OrgId::new();
        let (profile, agent) = listed(org, Visibility::Org);
        let query = |q: &str| Filter {
            q: Some(q.into()),
            ..Filter::default()
        };
        for q in ["helpdesk", "invoices", "bill"] {
            assert!(query(q).admits(org, &profile, &agent), "{q}");
        }
        assert!(!query("weather").admits(org, &profile, &agent));
        let wrong_category = Filter {
            category: Some("sales".into()),
            ..Filter::default()
        };
        assert!(!wrong_category.admits(org, &profile, &agent));
    }

    #[test]
    fn a_cursor_names_its_index_key() {
        let (profile, _) = listed(OrgId::new(), Visibility::Org);
        let cursor = cursor_of(&profile).expect("a listed profile has a time");
        let key = parse_cursor(&cursor).expect("parses");
        assert_eq!(
            key,
            listed_key(profile.updated_at.expect("set"), profile.agent_id)
        );
        assert_eq!(parse_cursor("nonsense"), None);
    }
}
