//! Proposals (`marketplace-channels.md` §4): what the model is told about
//! an agent, how its answer is read and clamped to the profile's rules, the
//! deterministic capability list, and the bound on calls at once per org.
//! Nothing here is saved: a proposal is for an admin to review. The call
//! itself is `crate::suggestions::SuggestionWriter::answer`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use confer_actors::gating::default_offers;
use confer_actors::{Agent, OrgId, PlanConfig};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::profile::{CATEGORIES, Capability, Profile, capability_name, tags_rule};
use crate::store::integrations::OrgIntegrations;
use crate::store::mcps::OrgMcps;
use crate::store::tools::OrgTool;

/// The system prompts, with an admin's `instructions` after them.
pub const DESCRIBE_PROMPT: &str = include_str!("../../assets/marketplace/prompts/describe.md");
pub const CAPABILITIES_PROMPT: &str =
    include_str!("../../assets/marketplace/prompts/capabilities.md");
/// The longest `instructions`.
pub const MAX_INSTRUCTIONS: usize = 1_000;
/// The answer's token cap.
pub const MAX_TOKENS: u32 = 1_024;
/// Proposal calls an org may have under way at once.
pub const PER_ORG: usize = 4;
/// Orgs tracked at once; past it a new org is answered 429 as if busy.
const MAX_TRACKED: usize = 4_096;
const MAX_PREAMBLE: usize = 16 * 1024;
const MAX_TOOLS: usize = 100;
const MAX_KNOWLEDGE: usize = 50;
const MAX_CAPABILITIES: usize = 20;

/// A tool the agent is offered under its default profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OfferedTool {
    pub name: String,
    pub description: String,
}

/// What the agent is offered: its tools and, grouped by where they come
/// from, the deterministic capabilities (`mode: "tools"`).
#[derive(Clone, Debug, Default)]
pub struct Offered {
    pub tools: Vec<OfferedTool>,
    pub groups: Vec<Capability>,
}

impl Offered {
    fn group(&mut self, agent: &Agent, name: String, label: &str, tools: Vec<OfferedTool>) {
        let tools: Vec<OfferedTool> = tools
            .into_iter()
            .filter(|t| default_offers(agent, &t.name))
            .collect();
        if tools.is_empty() {
            return;
        }
        let description = tools
            .first()
            .map(|t| cut(&t.description, 500))
            .unwrap_or_default();
        self.tools.extend(tools.iter().cloned());
        let name = capability_slug(&name);
        if self.groups.len() < MAX_CAPABILITIES && capability_name(&name) {
            self.groups.push(Capability {
                name,
                label: cut(label, 100),
                description,
                tools: tools.into_iter().take(50).map(|t| t.name).collect(),
            });
        }
    }
}

/// `text` cut to at most `max` characters.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// A capability name from a source's name: lowercased, other characters
/// as `-`, at most 64.
fn capability_slug(name: &str) -> String {
    let slug: String = name
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' | '.' | ':' | '-' => c,
            _ => '-',
        })
        .collect();
    cut(&slug, 64)
}

/// The tools `agent` is offered under its default profile, in the order a
/// turn offers them (plan tools, org tools, integrations, MCP servers).
pub fn offered(
    agent: &Agent,
    plan: &PlanConfig,
    org_tools: &[OrgTool],
    integrations: &OrgIntegrations,
    mcps: &OrgMcps,
) -> Offered {
    let mut offered = Offered::default();
    let tool = |name: &str, description: Option<&str>| OfferedTool {
        name: name.to_owned(),
        description: description.unwrap_or_default().to_owned(),
    };
    if plan.enabled {
        let plans = crate::tools::plans::schema::definitions()
            .iter()
            .map(|d| tool(&d.name, d.description.as_deref()))
            .collect();
        offered.group(agent, "planning".into(), "Plans and todos", plans);
    }
    for org_tool in org_tools {
        let tools = vec![tool(&org_tool.name, Some(&org_tool.description))];
        offered.group(
            agent,
            format!("tool:{}", org_tool.name),
            &org_tool.name,
            tools,
        );
    }
    let tables = crate::tools::integrations::agent_tables(integrations, agent.id);
    for (integration, _) in integrations.of_agent(agent.id) {
        let tools = tables
            .iter()
            .filter(|t| t.integration.id == integration.id)
            .map(|t| tool(&t.definition.name, t.definition.description.as_deref()))
            .collect();
        offered.group(
            agent,
            format!("db:{}", integration.slug),
            &integration.name,
            tools,
        );
    }
    let server_tools = crate::tools::mcp::agent_tools(mcps, agent.id);
    for (server, _) in mcps.of_agent(agent.id) {
        let tools = server_tools
            .iter()
            .filter(|t| t.server.id == server.id)
            .map(|t| tool(&t.definition.name, t.definition.description.as_deref()))
            .collect();
        offered.group(agent, format!("mcp:{}", server.slug), &server.name, tools);
    }
    offered
}

/// The user message of a proposal call: the agent as JSON.
pub fn agent_facts(
    agent: &Agent,
    profile: &Profile,
    offered: &Offered,
    mcp_servers: Vec<String>,
    knowledge: Vec<String>,
) -> String {
    let preamble = agent.stable_preamble.as_str();
    let mut end = preamble.len().min(MAX_PREAMBLE);
    while !preamble.is_char_boundary(end) {
        end -= 1;
    }
    json!({
        "name": agent.name,
        "description": super::listing::description(profile, agent),
        "stable_preamble": &preamble[..end],
        "tools": offered.tools.iter().take(MAX_TOOLS).collect::<Vec<_>>(),
        "mcp_servers": mcp_servers,
        "knowledge": knowledge.into_iter().take(MAX_KNOWLEDGE).collect::<Vec<_>>(),
        "capabilities": profile.capabilities,
    })
    .to_string()
}

/// The first JSON object in a model's answer (models wrap them in prose
/// or code fences).
pub fn first_object(text: &str) -> Option<Map<String, Value>> {
    text.match_indices('{').find_map(|(at, _)| {
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(Value::Object(object))) => Some(object),
            _ => None,
        }
    })
}

/// A proposed title, description, category and tags.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Proposal {
    pub title: String,
    pub description: String,
    pub category: Option<String>,
    pub tags: Vec<String>,
}

/// The proposal an answer makes, clamped to the profile's rules, fields it
/// leaves out (or breaks) kept from `current`; and whether it held a JSON
/// object. Without one, its text is the description.
pub fn read_description(answer: &str, current: Proposal) -> (Proposal, bool) {
    let Some(object) = first_object(answer) else {
        let text = answer.trim();
        let description = match text.is_empty() {
            true => current.description.clone(),
            false => cut(text, 2_000),
        };
        return (
            Proposal {
                description,
                ..current
            },
            false,
        );
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::trim);
    let mut proposal = current;
    if let Some(title) = text("title").filter(|t| !t.is_empty()) {
        proposal.title = cut(title, 100).trim().to_owned();
    }
    if let Some(description) = text("description").filter(|d| !d.is_empty()) {
        proposal.description = cut(description, 2_000);
    }
    if let Some(category) = text("category").map(str::to_lowercase)
        && CATEGORIES.contains(&category.as_str())
    {
        proposal.category = Some(category);
    }
    if let Some(tags) = object.get("tags").and_then(Value::as_array) {
        let shaped: Vec<String> = tags
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|t| tags_rule(&[t.to_owned()]).ok())
            .flatten()
            .fold(Vec::new(), |mut kept, tag| {
                if !kept.contains(&tag) {
                    kept.push(tag);
                }
                kept
            });
        if !shaped.is_empty() {
            proposal.tags = shaped.into_iter().take(10).collect();
        }
    }
    (proposal, true)
}

/// The capabilities an answer proposes, clamped to the rules and to the
/// offered tools; `None` when none is usable.
pub fn read_capabilities(answer: &str, offered: &Offered) -> Option<Vec<Capability>> {
    let object = first_object(answer)?;
    let listed = object.get("capabilities")?.as_array()?;
    let mut kept: Vec<Capability> = Vec::new();
    for item in listed {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("").trim();
        let name = text("name").to_lowercase();
        let label = cut(text("label"), 100);
        if !capability_name(&name) || label.is_empty() || kept.iter().any(|c| c.name == name) {
            continue;
        }
        let tools = item
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| offered.tools.iter().any(|o| o.name == *t))
                    .take(50)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        kept.push(Capability {
            name,
            label,
            description: cut(text("description"), 500),
            tools,
        });
        if kept.len() == MAX_CAPABILITIES {
            break;
        }
    }
    (!kept.is_empty()).then_some(kept)
}

/// The proposal calls under way, per org.
#[derive(Default)]
pub struct ProposalSlots {
    held: Arc<Mutex<HashMap<OrgId, usize>>>,
}

/// One call's place, given back on drop.
pub struct ProposalSlot {
    held: Arc<Mutex<HashMap<OrgId, usize>>>,
    org: OrgId,
}

impl ProposalSlots {
    /// A place for one more call of `org`; `None` when it has
    /// [`PER_ORG`] under way (or too many orgs have calls under way).
    pub fn take(&self, org: OrgId) -> Option<ProposalSlot> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let count = held.get(&org).copied().unwrap_or(0);
        if count >= PER_ORG || (count == 0 && held.len() >= MAX_TRACKED) {
            return None;
        }
        *held.entry(org).or_default() += 1;
        Some(ProposalSlot {
            held: Arc::clone(&self.held),
            org,
        })
    }
}

impl Drop for ProposalSlot {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = held.get_mut(&self.org) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.org);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current() -> Proposal {
        Proposal {
            title: "Helper".into(),
            description: "Old".into(),
            category: None,
            tags: vec!["old".into()],
        }
    }

    #[test]
    fn an_answer_is_read_from_its_first_object_and_clamped() {
        let answer = "Here you go:\n```json\n{\"title\": \"  Billing desk \", \"category\": \"Support\", \"tags\": [\"Billing\", \"no spaces!\", \"billing\"]}\n```";
        let (proposal, parsed) = read_description(answer, current());
        assert!(parsed);
        assert_eq!(proposal.title, "Billing desk");
        assert_eq!(proposal.description, "Old", "a missing field is kept");
        assert_eq!(proposal.category.as_deref(), Some("support"));
        assert_eq!(proposal.tags, ["billing"]);
        let (plain, parsed) = read_description("Just prose.", current());
        assert!(!parsed);
        assert_eq!(plain.description, "Just prose.");
        assert_eq!(plain.title, "Helper");
    }

    #[test]
    fn capabilities_keep_only_offered_tools_and_valid_names() {
        let offered = Offered {
            tools: vec![OfferedTool {
                name: "lookup".into(),
                description: String::new(),
            }],
            groups: Vec::new(),
        };
        let answer = r#"{"capabilities": [
            {"name": "Orders", "label": "Order status", "tools": ["lookup", "made_up"]},
            {"name": "bad name", "label": "x"},
            {"name": "orders", "label": "Again"}
        ]}"#;
        let kept = read_capabilities(answer, &offered).expect("one usable");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "orders");
        assert_eq!(kept[0].tools, ["lookup"]);
        assert_eq!(read_capabilities("{\"capabilities\": []}", &offered), None);
        assert_eq!(read_capabilities("no json", &offered), None);
    }

    #[test]
    fn an_org_has_four_calls_at_once() {
        let slots = ProposalSlots::default();
        let org = OrgId::new();
        let held: Vec<_> = (0..PER_ORG)
            .map(|_| slots.take(org).expect("free"))
            .collect();
        assert!(slots.take(org).is_none(), "the fifth waits");
        assert!(slots.take(OrgId::new()).is_some(), "another org is free");
        drop(held);
        assert!(slots.take(org).is_some());
        assert!(slots.held.lock().unwrap().len() <= 1, "orgs leave the map");
    }
}
