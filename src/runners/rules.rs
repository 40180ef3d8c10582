//! The rules of a runner's fields (`runners.md` Objects), in one place:
//! a create or a PATCH is a [`RunnerDraft`] applied to the defaults or to
//! the stored runner, and either every field holds or nothing is stored.

use chrono::Utc;
use confer_actors::{AgentId, Metadata, OrgId, RunnerId, ToolDefinition};
use serde_json::{Value, json};

use super::{CompletionWebhook, OutputMode, Runner, schema, template};

/// The events a completion webhook may name.
pub const WEBHOOK_EVENTS: [&str; 6] = [
    "run.succeeded",
    "run.failed",
    "run.cancelled",
    "run.expired",
    "run.paused",
    "run.requires_action",
];

const MAX_NAME_CHARS: usize = 100;
const MAX_DESCRIPTION_CHARS: usize = 4_000;
const MAX_TEMPLATE_BYTES: usize = 32 * 1024;
const MAX_CLIENT_TOOLS: usize = 64;

/// A create's or a PATCH's fields; `None`: absent (a PATCH keeps the
/// stored value). For the nullable fields, `Some(None)` clears.
#[derive(Default)]
pub struct RunnerDraft {
    pub agent_id: Option<AgentId>,
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub instructions: Option<String>,
    pub system_prompt_overlay: Option<Option<String>>,
    pub input_schema: Option<Value>,
    pub output_mode: Option<OutputMode>,
    pub output_schema: Option<Option<Value>>,
    pub model: Option<Option<String>>,
    pub tool_profile: Option<Option<String>>,
    pub client_tools: Option<Vec<ToolDefinition>>,
    pub max_concurrent_runs: Option<u32>,
    pub max_queued_runs: Option<u32>,
    pub resume_timeout_secs: Option<u64>,
    pub completion_webhook: Option<Option<CompletionWebhook>>,
    pub project_id: Option<Option<String>>,
    pub metadata: Option<Metadata>,
}

/// A refused field: `field: rule`.
pub type Refusal = String;

fn refuse(field: &str, rule: impl std::fmt::Display) -> Refusal {
    format!("{field}: {rule}")
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &str,
    value: T,
    low: T,
    high: T,
) -> Result<T, Refusal> {
    if value < low || value > high {
        return Err(refuse(field, format!("must be {low}–{high}")));
    }
    Ok(value)
}

impl RunnerDraft {
    /// A new runner of `org` from this create body; `check_url` is the
    /// outbound policy's shape check.
    pub fn create(
        self,
        org: OrgId,
        check_url: impl Fn(&str) -> Result<(), String>,
    ) -> Result<Runner, Refusal> {
        let agent_id = self.agent_id.ok_or_else(|| refuse("agentId", "required"))?;
        let name = self
            .name
            .clone()
            .ok_or_else(|| refuse("name", "required"))?;
        let instructions = self
            .instructions
            .clone()
            .ok_or_else(|| refuse("instructions", "required"))?;
        let now = Utc::now();
        let blank = Runner {
            id: RunnerId::new(),
            org_id: org,
            agent_id,
            name,
            description: None,
            instructions,
            system_prompt_overlay: None,
            input_schema: json!({"type": "object"}),
            output_mode: OutputMode::Text,
            output_schema: None,
            model: None,
            tool_profile: None,
            client_tools: Vec::new(),
            max_concurrent_runs: 4,
            max_queued_runs: 100,
            resume_timeout_secs: 86_400,
            completion_webhook: None,
            project_id: None,
            metadata: Metadata::new(),
            created_at: now,
            updated_at: now,
            version: 1,
            deleted_at: None,
        };
        let mut runner = self.apply_to(blank, &check_url)?;
        runner.version = 1;
        Ok(runner)
    }

    /// `runner` with this PATCH applied (version bumped).
    pub fn update(
        self,
        runner: Runner,
        check_url: impl Fn(&str) -> Result<(), String>,
    ) -> Result<Runner, Refusal> {
        if self.agent_id.is_some_and(|agent| agent != runner.agent_id) {
            return Err(refuse("agentId", "a runner's agent cannot change"));
        }
        let mut runner = self.apply_to(runner, &check_url)?;
        runner.version += 1;
        runner.updated_at = Utc::now();
        Ok(runner)
    }

    fn apply_to(
        self,
        mut r: Runner,
        check_url: &impl Fn(&str) -> Result<(), String>,
    ) -> Result<Runner, Refusal> {
        if let Some(name) = self.name {
            let chars = name.trim().chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS {
                return Err(refuse("name", format!("1–{MAX_NAME_CHARS} characters")));
            }
            r.name = name;
        }
        if let Some(description) = self.description {
            if description
                .as_ref()
                .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS)
            {
                return Err(refuse(
                    "description",
                    format!("at most {MAX_DESCRIPTION_CHARS} characters"),
                ));
            }
            r.description = description;
        }
        if let Some(instructions) = self.instructions {
            if instructions.len() > MAX_TEMPLATE_BYTES {
                return Err(refuse("instructions", "at most 32 KiB"));
            }
            template::check(&instructions).map_err(|e| refuse("instructions", e))?;
            r.instructions = instructions;
        }
        if let Some(overlay) = self.system_prompt_overlay {
            if overlay
                .as_ref()
                .is_some_and(|o| o.len() > MAX_TEMPLATE_BYTES)
            {
                return Err(refuse("systemPromptOverlay", "at most 32 KiB"));
            }
            r.system_prompt_overlay = overlay;
        }
        if let Some(input_schema) = self.input_schema {
            schema::check_input_schema(&input_schema).map_err(|e| refuse("inputSchema", e))?;
            r.input_schema = input_schema;
        }
        if let Some(mode) = self.output_mode {
            r.output_mode = mode;
        }
        if let Some(output_schema) = self.output_schema {
            r.output_schema = output_schema;
        }
        match (r.output_mode, &r.output_schema) {
            (OutputMode::Json, None) => {
                return Err(refuse("outputSchema", "required when outputMode is json"));
            }
            (OutputMode::Text, Some(_)) => {
                return Err(refuse("outputSchema", "only with outputMode json"));
            }
            (OutputMode::Json, Some(s)) => {
                schema::compile(s).map_err(|e| refuse("outputSchema", e))?;
            }
            (OutputMode::Text, None) => {}
        }
        if let Some(model) = self.model {
            if model.as_ref().is_some_and(|m| m.trim().is_empty()) {
                return Err(refuse("model", "must not be empty (null: the agent's)"));
            }
            r.model = model;
        }
        if let Some(profile) = self.tool_profile {
            r.tool_profile = profile;
        }
        if let Some(tools) = self.client_tools {
            if tools.len() > MAX_CLIENT_TOOLS {
                return Err(refuse("clientTools", format!("at most {MAX_CLIENT_TOOLS}")));
            }
            for (i, tool) in tools.iter().enumerate() {
                if tool.name.trim().is_empty() {
                    return Err(refuse(&format!("clientTools[{i}].name"), "required"));
                }
            }
            r.client_tools = tools;
        }
        if let Some(n) = self.max_concurrent_runs {
            r.max_concurrent_runs = in_range("maxConcurrentRuns", n, 1, 64)?;
        }
        if let Some(n) = self.max_queued_runs {
            r.max_queued_runs = in_range("maxQueuedRuns", n, 1, 10_000)?;
        }
        if let Some(n) = self.resume_timeout_secs {
            r.resume_timeout_secs = in_range("resumeTimeoutSecs", n, 60, 2_592_000)?;
        }
        if let Some(webhook) = self.completion_webhook {
            if let Some(hook) = &webhook {
                check_url(&hook.url).map_err(|e| refuse("completionWebhook.url", e))?;
                for (i, event) in hook.events.iter().enumerate() {
                    if !WEBHOOK_EVENTS.contains(&event.as_str()) {
                        return Err(refuse(
                            &format!("completionWebhook.events[{i}]"),
                            format!("one of {}", WEBHOOK_EVENTS.join(", ")),
                        ));
                    }
                }
            }
            r.completion_webhook = webhook;
        }
        if let Some(project) = self.project_id {
            r.project_id = project;
        }
        if let Some(metadata) = self.metadata {
            r.metadata = metadata;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(_: &str) -> Result<(), String> {
        Ok(())
    }

    fn draft() -> RunnerDraft {
        RunnerDraft {
            agent_id: Some(AgentId::new()),
            name: Some("Digest".into()),
            instructions: Some("Summarize {{ input.topic }}".into()),
            ..RunnerDraft::default()
        }
    }

    #[test]
    fn a_create_takes_the_defaults() {
        let runner = draft().create(OrgId::new(), ok).unwrap();
        assert_eq!(runner.max_concurrent_runs, 4);
        assert_eq!(runner.max_queued_runs, 100);
        assert_eq!(runner.resume_timeout_secs, 86_400);
        assert_eq!(runner.input_schema, json!({"type": "object"}));
        assert_eq!(runner.version, 1);
    }

    #[test]
    fn json_mode_needs_its_schema_and_text_mode_refuses_one() {
        let refused = RunnerDraft {
            output_mode: Some(OutputMode::Json),
            ..draft()
        }
        .create(OrgId::new(), ok)
        .unwrap_err();
        assert!(refused.starts_with("outputSchema"), "{refused}");
        let refused = RunnerDraft {
            output_schema: Some(Some(json!({"type": "object"}))),
            ..draft()
        }
        .create(OrgId::new(), ok)
        .unwrap_err();
        assert!(refused.starts_with("outputSchema"), "{refused}");
    }

    #[test]
    fn bounds_and_the_fixed_agent_are_refused_by_field() {
        let refused = RunnerDraft {
            max_concurrent_runs: Some(65),
            ..draft()
        }
        .create(OrgId::new(), ok)
        .unwrap_err();
        assert!(refused.starts_with("maxConcurrentRuns"), "{refused}");
        let runner = draft().create(OrgId::new(), ok).unwrap();
        let refused = draft().update(runner.clone(), ok).unwrap_err();
        assert!(refused.starts_with("agentId"), "{refused}");
        let patched = RunnerDraft {
            name: Some("Daily digest".into()),
            ..RunnerDraft::default()
        }
        .update(runner, ok)
        .unwrap();
        assert_eq!(
            (patched.name.as_str(), patched.version),
            ("Daily digest", 2)
        );
    }
}
