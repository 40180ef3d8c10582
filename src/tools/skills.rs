//! The built-in `load_skill` tool and the `<available_skills>` list
//! (`agent-extras.md` §1 "In a turn"): a turn is offered the enabled
//! skills attached to its agent and, in a run, to its runner (one entry
//! per skill; the runner's `enabled` wins, runners.md), read at the turn's
//! start. The tool serves a skill's instructions or one of its files as
//! UTF-8; it never runs anything.

use std::sync::Arc;

use confer_actors::tools::{LOAD_SKILL, ToolOutput, ToolScope};
use confer_actors::{ToolCall, ToolDefinition};
use serde::Deserialize;
use serde_json::json;

use crate::skills::Skill;
use crate::store::{SledStore, Store};
use confer_actors::{AgentId, OrgId, RunnerId, StoreError};

/// The largest file `load_skill` serves.
const MAX_FILE_BYTES: usize = 256 * 1024;

/// The skill tool.
#[derive(Clone)]
pub struct SkillTools {
    store: Store,
}

#[derive(Deserialize)]
struct LoadArguments {
    name: String,
    path: Option<String>,
}

/// The list the system prompt's cached part ends with.
pub fn available_skills(skills: &[Arc<Skill>]) -> String {
    let mut text = String::from(
        "<available_skills>\nCall load_skill with a skill's name before a task it covers.\n",
    );
    for skill in skills {
        text.push_str(&format!("- {}: {}\n", skill.name, skill.description));
    }
    text.push_str("</available_skills>");
    text
}

/// The tool's definition, its `name` one of `names`.
pub fn definition(names: &[&str]) -> ToolDefinition {
    ToolDefinition {
        name: LOAD_SKILL.into(),
        description: Some(
            "Load a skill's instructions (or, with `path`, one of its files) before a task \
             it covers."
                .into(),
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": names},
                "path": {"type": "string", "description": "A file of the skill, as listed"}
            },
            "required": ["name"]
        }),
    }
}

/// The enabled skills of a turn of `agent` (in a run, of `runner`): its
/// agent's, then its runner's; a skill attached to both counts once, as
/// the runner has it.
pub fn enabled(
    s: &SledStore,
    org: OrgId,
    agent: AgentId,
    runner: Option<RunnerId>,
) -> Result<Vec<Arc<Skill>>, StoreError> {
    let mut all = s.skill_attachments(org, uuid::Uuid::from_bytes(*agent.as_bytes()))?;
    if let Some(runner) = runner {
        let owner = uuid::Uuid::from_bytes(*runner.as_bytes());
        for (attachment, skill) in s.skill_attachments(org, owner)? {
            all.retain(|(_, kept)| kept.id != skill.id);
            all.push((attachment, skill));
        }
    }
    Ok(all
        .into_iter()
        .filter(|(attachment, _)| attachment.enabled)
        .map(|(_, skill)| Arc::new(skill))
        .collect())
}

/// The tool and the list, when the turn has an enabled skill.
pub fn offer(skills: &[Arc<Skill>]) -> Option<(ToolDefinition, String)> {
    if skills.is_empty() {
        return None;
    }
    let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
    Some((definition(&names), available_skills(skills)))
}

impl SkillTools {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The enabled skills of the turn (see [`enabled`]).
    async fn enabled(&self, scope: &ToolScope) -> Vec<Arc<Skill>> {
        let (org, agent, runner) = (scope.org, scope.agent, scope.runner);
        match self
            .store
            .run(move |s| enabled(s, org, agent, runner))
            .await
        {
            Ok(skills) => skills,
            Err(error) => {
                tracing::error!(%error, "reading a turn's skills failed");
                Vec::new()
            }
        }
    }

    /// Runs a `load_skill` call.
    pub async fn execute(&self, scope: ToolScope, call: ToolCall) -> ToolOutput {
        let Ok(arguments) = serde_json::from_value::<LoadArguments>(call.arguments) else {
            return ToolOutput::error("arguments: name (a string) is required");
        };
        let skills = self.enabled(&scope).await;
        let Some(skill) = skills.into_iter().find(|s| s.name == arguments.name) else {
            return ToolOutput::error("skill not available");
        };
        let asked = arguments.path;
        let path = asked.clone().unwrap_or_else(|| "SKILL.md".into());
        if path != "SKILL.md" && !skill.files.iter().any(|f| f.path == path) {
            return ToolOutput::error("no such file");
        }
        let (id, wanted) = (skill.id, path.clone());
        let bytes = match self.store.run(move |s| s.skill_file(id, &wanted)).await {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return ToolOutput::error("no such file"),
            Err(error) => {
                tracing::error!(%error, "reading a skill's file failed");
                return ToolOutput::error("the skill could not be read");
            }
        };
        let result = match asked {
            None => json!({
                "name": skill.name,
                "instructions": crate::skills::instructions(&bytes),
                "files": skill.files,
            }),
            Some(_) if bytes.len() > MAX_FILE_BYTES => {
                return ToolOutput::error("file over 256 KiB");
            }
            Some(_) => match String::from_utf8(bytes) {
                Ok(content) => json!({"name": skill.name, "path": path, "content": content}),
                Err(_) => return ToolOutput::error("binary file"),
            },
        };
        ToolOutput {
            result,
            is_error: false,
        }
    }
}
