//! The official templates (`marketplace-channels.md` §5): agents shipped in
//! the binary as `assets/marketplace/templates/{id}.toml`, shown by `GET
//! /api/marketplace/official` as stored and made into an org's agent by
//! `use`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use confer_actors::{PlanConfig, ToolProfile};
use figment::Figment;
use figment::providers::{Format, Toml};
use serde::{Deserialize, Serialize};

use super::profile::Capability;

/// The tools Confer itself offers, the only ones a template may name.
pub const BUILTIN_TOOLS: [&str; 12] = [
    crate::tools::plans::schema::PLAN_CREATE,
    crate::tools::plans::schema::PLAN_UPDATE,
    crate::tools::plans::schema::TODO_ADD,
    crate::tools::plans::schema::TODO_UPDATE,
    crate::tools::web::WEB_SEARCH,
    crate::tools::web::WEB_FETCH,
    crate::tools::computer::COMPUTER_RUN,
    crate::tools::computer::COMPUTER_EDIT,
    confer_actors::tools::SEARCH_KNOWLEDGE,
    confer_actors::tools::REMEMBER,
    confer_actors::tools::RECALL,
    confer_actors::tools::LOAD_SKILL,
];

/// The template files, in the order they are listed.
const FILES: [&str; 4] = [
    include_str!("../../assets/marketplace/templates/general-assistant.toml"),
    include_str!("../../assets/marketplace/templates/customer-support.toml"),
    include_str!("../../assets/marketplace/templates/project-planner.toml"),
    include_str!("../../assets/marketplace/templates/meeting-notes.toml"),
];

/// One official template, as its file holds it.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: String,
    /// Semantic version of the template.
    pub version: String,
    pub title: String,
    pub description: String,
    pub category: String,
    pub tags: Vec<String>,
    pub capabilities: Vec<Capability>,
    pub stable_preamble: String,
    /// `""`: the platform's default model.
    pub default_model: String,
    pub tool_profiles: BTreeMap<String, ToolProfile>,
    pub default_profile: Option<String>,
    pub plan: PlanConfig,
    /// The built-in tools it uses.
    pub tools: Vec<String>,
    /// MCP registry names whose first remote a `use` attaches.
    pub mcp: Vec<String>,
}

static TEMPLATES: LazyLock<Vec<Template>> = LazyLock::new(|| {
    FILES
        .iter()
        .filter_map(|text| {
            // Files built into the binary; the unit test below reads every
            // one, so a broken file never ships. Should one slip through,
            // the others are still served.
            Figment::from(Toml::string(text))
                .extract()
                .inspect_err(|error| tracing::error!(%error, "an official template does not parse"))
                .ok()
        })
        .collect()
});

/// The official templates.
pub fn all() -> &'static [Template] {
    &TEMPLATES
}

/// The template of `id`.
pub fn by_id(id: &str) -> Option<&'static Template> {
    all().iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketplace::profile::{capabilities_rule, category_rule, tags_rule};

    #[test]
    fn every_template_keeps_the_rules() {
        let templates = all();
        assert_eq!(
            templates.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            [
                "general-assistant",
                "customer-support",
                "project-planner",
                "meeting-notes"
            ]
        );
        for template in templates {
            let id = &template.id;
            assert_eq!(
                templates.iter().filter(|t| &t.id == id).count(),
                1,
                "{id}: ids are unique"
            );
            semver::Version::parse(&template.version).expect("a semantic version");
            category_rule(&template.category).expect("a known category");
            assert_eq!(tags_rule(&template.tags).expect("tags"), template.tags);
            capabilities_rule(&template.capabilities).expect("capabilities");
            for tool in &template.tools {
                assert!(BUILTIN_TOOLS.contains(&tool.as_str()), "{id}: {tool}");
            }
            for (name, profile) in &template.tool_profiles {
                let patterns = profile.allow.iter().chain(profile.deny.iter().flatten());
                for pattern in patterns {
                    assert!(
                        BUILTIN_TOOLS
                            .iter()
                            .any(|tool| confer_actors::gating::pattern_matches(pattern, tool)),
                        "{id}: profile {name}'s {pattern} matches no built-in"
                    );
                }
            }
            if let Some(default) = &template.default_profile {
                assert!(template.tool_profiles.contains_key(default), "{id}");
            }
            for capability in &template.capabilities {
                for tool in &capability.tools {
                    assert!(template.tools.contains(tool), "{id}: {tool} ∉ tools");
                }
            }
            // The registry snapshot is not built yet (§6): a template may
            // name no MCP server until it is.
            assert!(template.mcp.is_empty(), "{id}: mcp needs the snapshot");
            assert!(!template.stable_preamble.trim().is_empty());
        }
    }
}
