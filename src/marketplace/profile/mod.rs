//! An agent's marketplace profile (`marketplace-channels.md` §2): what it
//! holds, the rules a change must keep, and its readiness score. Stored by
//! `crate::store::marketplace`; shown by `crate::api::marketplace`.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId};
use serde::{Deserialize, Serialize};

use crate::api::extract::Patch;

/// The categories a listing may have.
pub const CATEGORIES: [&str; 13] = [
    "assistant",
    "support",
    "sales",
    "marketing",
    "engineering",
    "data",
    "research",
    "writing",
    "education",
    "operations",
    "hr",
    "finance",
    "other",
];
const MAX_TITLE: usize = 100;
const MAX_DESCRIPTION: usize = 2_000;
const MAX_TAGS: usize = 10;
const MAX_TAG: usize = 32;
const MAX_CAPABILITIES: usize = 20;
const MAX_LABEL: usize = 100;
const MAX_CAPABILITY_DESCRIPTION: usize = 500;
const MAX_CAPABILITY_TOOLS: usize = 50;
/// A description this long earns its readiness points.
const READY_DESCRIPTION: usize = 50;

/// Who sees a listing: its own org, or every org of the instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    #[default]
    Org,
    Instance,
}

/// Something the agent can do, with the tools it does it with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Capability {
    /// `^[a-z0-9][a-z0-9_.:-]{0,63}$`, unique in the profile.
    pub name: String,
    /// 1–100 characters.
    pub label: String,
    /// At most 500 characters.
    #[serde(default)]
    pub description: String,
    /// At most 50 tool names (not checked: tools come and go).
    #[serde(default)]
    pub tools: Vec<String>,
}

/// The stored profile. A profile never saved is [`Profile::unsaved`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub agent_id: AgentId,
    pub org_id: OrgId,
    pub listed: bool,
    /// `None`: the agent's name.
    pub title: Option<String>,
    /// `None`: the agent's description.
    pub description: Option<String>,
    pub category: Option<String>,
    pub tags: Vec<String>,
    pub capabilities: Vec<Capability>,
    pub visibility: Visibility,
    /// The first 12 hex digits of the avatar's SHA-256, when it has one.
    pub avatar: Option<String>,
    pub version: u64,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// `readiness`: 20 points for each of five things a good listing has.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Readiness {
    pub score: u32,
    /// What is missing: `description`, `category`, `tags`,
    /// `capabilities`, `avatar`.
    pub missing: Vec<&'static str>,
}

impl Profile {
    /// The profile of an agent that never saved one.
    pub fn unsaved(org: OrgId, agent: AgentId) -> Self {
        Self {
            agent_id: agent,
            org_id: org,
            listed: false,
            title: None,
            description: None,
            category: None,
            tags: Vec::new(),
            capabilities: Vec::new(),
            visibility: Visibility::Org,
            avatar: None,
            version: 0,
            created_at: None,
            updated_at: None,
        }
    }

    /// Whether it was ever stored.
    pub fn is_saved(&self) -> bool {
        self.version > 0
    }

    /// The readiness score, given the description shown.
    pub fn readiness(&self, description: &str) -> Readiness {
        let checks = [
            (
                "description",
                description.trim().chars().count() >= READY_DESCRIPTION,
            ),
            ("category", self.category.is_some()),
            ("tags", !self.tags.is_empty()),
            ("capabilities", !self.capabilities.is_empty()),
            ("avatar", self.avatar.is_some()),
        ];
        let missing: Vec<_> = checks
            .iter()
            .filter(|(_, held)| !held)
            .map(|(name, _)| *name)
            .collect();
        Readiness {
            score: 20 * (checks.len() - missing.len()) as u32,
            missing,
        }
    }

    /// Marks a stored change: the version grows, the times move, and a
    /// profile stored for the first time is a draft unless `listed` says
    /// otherwise.
    pub fn touch(&mut self, now: DateTime<Utc>) {
        self.version += 1;
        self.created_at.get_or_insert(now);
        self.updated_at = Some(now);
    }
}

/// A field that broke a rule, and the rule (422 `field: rule`).
pub type Broken = (String, String);

fn broken(field: &str, rule: impl Into<String>) -> Broken {
    (field.to_owned(), rule.into())
}

/// `PUT …/marketplace`: any of its fields; the others stay.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutProfile {
    /// The first PUT lists the agent unless this is `false`.
    pub listed: Option<bool>,
    /// 1–100 characters after trimming.
    pub title: Option<String>,
    /// At most 2,000 characters.
    pub description: Option<String>,
    /// One of the categories, or null.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub category: Patch<String>,
    /// At most 10, each 1–32 of `[a-z0-9-]` after lowercasing; repeats dropped.
    pub tags: Option<Vec<String>>,
    /// At most 20, unique names (replaces the list).
    pub capabilities: Option<Vec<Capability>>,
    /// `org` or `instance`.
    pub visibility: Option<String>,
}

impl PutProfile {
    /// Applies the change, checking each field; `instance_allowed` is
    /// `CONFER_MARKETPLACE_INSTANCE`.
    pub fn apply(
        &self,
        mut profile: Profile,
        instance_allowed: bool,
        now: DateTime<Utc>,
    ) -> Result<Profile, Broken> {
        let first = !profile.is_saved();
        if let Some(title) = &self.title {
            profile.title = Some(title_rule(title)?);
        }
        if let Some(description) = &self.description {
            if description.chars().count() > MAX_DESCRIPTION {
                return Err(broken(
                    "description",
                    format!("at most {MAX_DESCRIPTION} characters"),
                ));
            }
            profile.description = Some(description.clone());
        }
        match &self.category {
            Patch::Absent => {}
            Patch::Null => profile.category = None,
            Patch::Value(category) => profile.category = Some(category_rule(category)?),
        }
        if let Some(tags) = &self.tags {
            profile.tags = tags_rule(tags)?;
        }
        if let Some(capabilities) = &self.capabilities {
            profile.capabilities = capabilities_rule(capabilities)?;
        }
        if let Some(visibility) = &self.visibility {
            profile.visibility = match visibility.as_str() {
                "org" => Visibility::Org,
                "instance" if instance_allowed => Visibility::Instance,
                "instance" => {
                    return Err(broken(
                        "visibility",
                        "instance listings are off on this instance (CONFER_MARKETPLACE_INSTANCE)",
                    ));
                }
                _ => return Err(broken("visibility", "must be org or instance")),
            };
        }
        match self.listed {
            Some(listed) => profile.listed = listed,
            None if first => profile.listed = true,
            None => {}
        }
        profile.touch(now);
        Ok(profile)
    }
}

fn title_rule(title: &str) -> Result<String, Broken> {
    let title = title.trim();
    let length = title.chars().count();
    if length == 0 || length > MAX_TITLE {
        return Err(broken(
            "title",
            format!("1 to {MAX_TITLE} characters after trimming"),
        ));
    }
    Ok(title.to_owned())
}

/// A category by name (422 when unknown).
pub fn category_rule(category: &str) -> Result<String, Broken> {
    if CATEGORIES.contains(&category) {
        Ok(category.to_owned())
    } else {
        Err(broken(
            "category",
            format!("must be one of {} or null", CATEGORIES.join(", ")),
        ))
    }
}

/// Tags lowercased and deduplicated, in their order.
pub fn tags_rule(tags: &[String]) -> Result<Vec<String>, Broken> {
    let mut kept: Vec<String> = Vec::new();
    for (i, tag) in tags.iter().enumerate() {
        let tag = tag.trim().to_lowercase();
        let shaped = (1..=MAX_TAG).contains(&tag.len())
            && tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !shaped {
            return Err(broken(
                &format!("tags[{i}]"),
                format!("1 to {MAX_TAG} of a-z, 0-9 and -"),
            ));
        }
        if !kept.contains(&tag) {
            kept.push(tag);
        }
    }
    if kept.len() > MAX_TAGS {
        return Err(broken("tags", format!("at most {MAX_TAGS}")));
    }
    Ok(kept)
}

/// Whether `name` is a capability name.
pub fn capability_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let body = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.len() <= 64
        && body(&bytes[0])
        && bytes[1..]
            .iter()
            .all(|b| body(b) || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// The capabilities as given, checked.
pub fn capabilities_rule(capabilities: &[Capability]) -> Result<Vec<Capability>, Broken> {
    if capabilities.len() > MAX_CAPABILITIES {
        return Err(broken(
            "capabilities",
            format!("at most {MAX_CAPABILITIES}"),
        ));
    }
    for (i, capability) in capabilities.iter().enumerate() {
        let field = |name: &str| format!("capabilities[{i}].{name}");
        if !capability_name(&capability.name) {
            return Err(broken(
                &field("name"),
                "must match ^[a-z0-9][a-z0-9_.:-]{0,63}$",
            ));
        }
        if capabilities[..i].iter().any(|c| c.name == capability.name) {
            return Err(broken(&field("name"), "names must be unique"));
        }
        let label = capability.label.trim().chars().count();
        if label == 0 || label > MAX_LABEL {
            return Err(broken(
                &field("label"),
                format!("1 to {MAX_LABEL} characters"),
            ));
        }
        if capability.description.chars().count() > MAX_CAPABILITY_DESCRIPTION {
            return Err(broken(
                &field("description"),
                format!("at most {MAX_CAPABILITY_DESCRIPTION} characters"),
            ));
        }
        if capability.tools.len() > MAX_CAPABILITY_TOOLS {
            return Err(broken(
                &field("tools"),
                format!("at most {MAX_CAPABILITY_TOOLS} names"),
            ));
        }
    }
    Ok(capabilities.to_vec())
}

#[cfg(test)]
mod tests;
