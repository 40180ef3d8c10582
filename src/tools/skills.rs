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
use crate::store::skills::SkillAttachment;
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

/// The enabled skills of a turn of `agent` (in a run, of `runner`), read
/// through the skills' port.
pub async fn enabled(
    store: &Store,
    org: OrgId,
    agent: AgentId,
    runner: Option<RunnerId>,
) -> Result<Vec<Arc<Skill>>, StoreError> {
    let records = store.skills();
    let of_agent = records
        .skill_attachments(org, owner(agent.as_bytes()))
        .await?;
    let of_runner = match runner {
        Some(runner) => {
            records
                .skill_attachments(org, owner(runner.as_bytes()))
                .await?
        }
        None => Vec::new(),
    };
    Ok(merged(of_agent, of_runner))
}

/// [`enabled`] inside a read of sled (a turn's extras, read in one trip).
pub fn enabled_in(
    s: &SledStore,
    org: OrgId,
    agent: AgentId,
    runner: Option<RunnerId>,
) -> Result<Vec<Arc<Skill>>, StoreError> {
    let of_agent = s.skill_attachments(org, owner(agent.as_bytes()))?;
    let of_runner = match runner {
        Some(runner) => s.skill_attachments(org, owner(runner.as_bytes()))?,
        None => Vec::new(),
    };
    Ok(merged(of_agent, of_runner))
}

fn owner(id: &[u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(*id)
}

/// The agent's attachments, then its runner's; a skill attached to both
/// counts once, as the runner has it; the enabled ones.
fn merged(
    mut all: Vec<(SkillAttachment, Skill)>,
    of_runner: Vec<(SkillAttachment, Skill)>,
) -> Vec<Arc<Skill>> {
    for (attachment, skill) in of_runner {
        all.retain(|(_, kept)| kept.id != skill.id);
        all.push((attachment, skill));
    }
    all.into_iter()
        .filter(|(attachment, _)| attachment.enabled)
        .map(|(_, skill)| Arc::new(skill))
        .collect()
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
        match enabled(&self.store, org, agent, runner).await {
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
        let bytes = match self.store.skills().skill_file(id, wanted).await {
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
