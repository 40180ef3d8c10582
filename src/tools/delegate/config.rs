//! An agent's delegates (`agent-extras.md` §3): the stored record, the
//! rules of a PUT (at most 8 live agents of the org, not itself, no
//! repeats, no cycle in the org's graph) and the tool names they get.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use confer_actors::delegation::TOOL_PREFIX;
use confer_actors::{Agent, AgentId, OrgId};
use serde::{Deserialize, Serialize};

/// Delegates one agent may have.
pub const MAX_DELEGATES: usize = 8;
/// The longest description a delegate may be given, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1_024;

/// An agent's delegates as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DelegationConfig {
    pub agent_id: AgentId,
    pub org_id: OrgId,
    pub delegates: Vec<Delegate>,
    pub updated_at: DateTime<Utc>,
}

/// One delegate: the agent, the description its tool is offered with
/// (`None`: the agent's own), and its tool's name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delegate {
    pub agent_id: AgentId,
    pub description: Option<String>,
    pub tool_name: String,
}

/// One delegate as a PUT names it.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelegateInput {
    #[schema(value_type = uuid::Uuid)]
    pub agent_id: AgentId,
    pub description: Option<String>,
}

/// Why a PUT was refused: the field, and what is wrong with it.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    pub field: String,
    pub reason: String,
}

fn refused(field: impl Into<String>, reason: impl Into<String>) -> Refused {
    Refused {
        field: field.into(),
        reason: reason.into(),
    }
}

/// The delegates of `agent` that a PUT of `wanted` makes, checked against
/// the org's `agents` (live ones) and the org's other delegations
/// (`graph`: each agent's delegate ids). The caller holds the org's lock
/// of delegation writes, so the graph does not change meanwhile.
pub fn validate(
    agent: &Agent,
    wanted: &[DelegateInput],
    agents: &HashMap<AgentId, Agent>,
    graph: &HashMap<AgentId, Vec<AgentId>>,
) -> Result<Vec<Delegate>, Refused> {
    if wanted.len() > MAX_DELEGATES {
        return Err(refused(
            "delegates",
            format!("at most {MAX_DELEGATES} delegates"),
        ));
    }
    let mut names = HashSet::new();
    let mut seen = HashSet::new();
    let mut delegates = Vec::with_capacity(wanted.len());
    for (i, input) in wanted.iter().enumerate() {
        let field = format!("delegates[{i}].agentId");
        if input.agent_id == agent.id {
            return Err(refused(field, "an agent does not delegate to itself"));
        }
        if !seen.insert(input.agent_id) {
            return Err(refused(field, "named twice"));
        }
        let Some(target) = agents.get(&input.agent_id).filter(|a| !a.is_deleted()) else {
            return Err(refused(field, "no such agent"));
        };
        if let Some(description) = &input.description
            && description.chars().count() > MAX_DESCRIPTION_CHARS
        {
            return Err(refused(
                format!("delegates[{i}].description"),
                format!("at most {MAX_DESCRIPTION_CHARS} characters"),
            ));
        }
        let base = format!(
            "{TOOL_PREFIX}{}",
            crate::store::attached::slug_of(&target.name, "agent")
        );
        let mut name = base.clone();
        let mut n = 1;
        while !names.insert(name.clone()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        delegates.push(Delegate {
            agent_id: input.agent_id,
            description: input.description.clone(),
            tool_name: name,
        });
    }
    let mut graph = graph.clone();
    graph.insert(agent.id, delegates.iter().map(|d| d.agent_id).collect());
    if let Some(cycle) = cycle_through(agent.id, &graph) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|id| agents.get(id).map_or("?", |a| a.name.as_str()))
            .collect();
        return Err(refused("delegates", format!("cycle {}", names.join(" → "))));
    }
    Ok(delegates)
}

/// A path from `start` back to itself in `graph`, `start` at both ends.
fn cycle_through(start: AgentId, graph: &HashMap<AgentId, Vec<AgentId>>) -> Option<Vec<AgentId>> {
    let mut path = vec![start];
    let mut visited = HashSet::new();
    fn walk(
        at: AgentId,
        start: AgentId,
        graph: &HashMap<AgentId, Vec<AgentId>>,
        path: &mut Vec<AgentId>,
        visited: &mut HashSet<AgentId>,
    ) -> bool {
        for &next in graph.get(&at).into_iter().flatten() {
            if next == start {
                path.push(next);
                return true;
            }
            if visited.insert(next) {
                path.push(next);
                if walk(next, start, graph, path, visited) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    walk(start, start, graph, &mut path, &mut visited).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(name: &str) -> Agent {
        let now = Utc::now();
        Agent {
            id: AgentId::new(),
            org_id: OrgId::new(),
            name: name.into(),
            description: String::new(),
            stable_preamble: String::new(),
            default_model: "builtin/echo".into(),
            tool_profiles: None,
            default_profile: None,
            runtime_provider: Default::default(),
            project_id: None,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        }
    }

    fn input(agent: &Agent) -> DelegateInput {
        DelegateInput {
            agent_id: agent.id,
            description: None,
        }
    }

    #[test]
    fn names_are_slugs_made_unique_and_cycles_are_named() {
        let (a, b, c, c2) = (
            agent("A"),
            agent("B"),
            agent("Research Bot"),
            agent("research-bot"),
        );
        let agents: HashMap<_, _> = [&a, &b, &c, &c2]
            .into_iter()
            .map(|x| (x.id, x.clone()))
            .collect();
        let made = validate(&a, &[input(&c), input(&c2)], &agents, &HashMap::new()).unwrap();
        let names: Vec<_> = made.iter().map(|d| d.tool_name.as_str()).collect();
        assert_eq!(
            names,
            ["delegate__research_bot", "delegate__research_bot_2"]
        );

        // A → B → C exists: C → A closes a cycle.
        let graph = HashMap::from([(a.id, vec![b.id]), (b.id, vec![c.id])]);
        let refusal = validate(&c, &[input(&a)], &agents, &graph).unwrap_err();
        assert_eq!(refusal.field, "delegates");
        assert_eq!(refusal.reason, "cycle Research Bot → A → B → Research Bot");

        let refusal = validate(&a, &[input(&b), input(&b)], &agents, &graph).unwrap_err();
        assert_eq!(refusal.field, "delegates[1].agentId");
        let refusal = validate(&a, &[input(&a)], &agents, &graph).unwrap_err();
        assert_eq!(refusal.field, "delegates[0].agentId");
        let nine: Vec<_> = (0..9).map(|_| input(&b)).collect();
        assert_eq!(
            validate(&a, &nine, &agents, &graph).unwrap_err().field,
            "delegates"
        );
    }
}
