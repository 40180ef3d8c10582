//! An agent's suggestions (`agent-extras.md` §2): up to 10 conversation
//! starters a chat shows before the first message. Set by PUT, or written
//! by the model: asked for a JSON array of strings from the agent's name,
//! description and instructions, read as that array (fenced or not) or,
//! failing it, as the answer's non-empty lines without list markers. So
//! `builtin/echo`, which echoes the request, yields the request's lines.

use chrono::{DateTime, Utc};
use confer_actors::{Agent, AgentId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{MAX_SUGGESTIONS, SuggestCall, SuggestError, SuggestionWriter};

const MAX_CHARS: usize = 200;
/// The instructions sent, at most.
const MAX_INSTRUCTIONS_CHARS: usize = 8_000;

/// Where the suggestions came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Manual,
    Generated,
}

/// An agent's suggestions as stored and answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AgentSuggestions {
    #[schema(value_type = uuid::Uuid)]
    pub agent_id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: confer_actors::OrgId,
    pub suggestions: Vec<String>,
    /// `null` until set.
    pub source: Option<Source>,
    /// The model that wrote them (`null` for manual ones).
    pub model: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl AgentSuggestions {
    /// An agent's suggestions before any were set.
    pub fn none(agent: &Agent) -> Self {
        Self {
            agent_id: agent.id,
            org_id: agent.org_id,
            suggestions: Vec::new(),
            source: None,
            model: None,
            updated_at: None,
        }
    }
}

/// The suggestions `items` make, trimmed, or the refusal naming the field
/// (`suggestions`, `suggestions[i]`).
pub fn check(items: Vec<String>) -> Result<Vec<String>, (String, String)> {
    if items.len() > MAX_SUGGESTIONS {
        return Err(("suggestions".into(), format!("at most {MAX_SUGGESTIONS}")));
    }
    let mut kept: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let item = item.trim().to_owned();
        let chars = item.chars().count();
        if chars == 0 || chars > MAX_CHARS {
            return Err((
                format!("suggestions[{i}]"),
                format!("1 to {MAX_CHARS} characters"),
            ));
        }
        if repeats(&kept, &item) {
            return Err((format!("suggestions[{i}]"), "repeats an earlier one".into()));
        }
        kept.push(item);
    }
    Ok(kept)
}

fn repeats(kept: &[String], item: &str) -> bool {
    kept.iter().any(|k| k.to_lowercase() == item.to_lowercase())
}

/// The user message of the call: name, description and instructions
/// (capped), empty ones left out; `None` with neither description nor
/// instructions (nothing to suggest from).
pub fn prompt(agent: &Agent) -> Option<String> {
    let description = agent.description.trim();
    let instructions: String = agent
        .stable_preamble
        .trim()
        .chars()
        .take(MAX_INSTRUCTIONS_CHARS)
        .collect();
    if description.is_empty() && instructions.is_empty() {
        return None;
    }
    let mut lines = vec![format!("Name: {}", agent.name)];
    if !description.is_empty() {
        lines.push(format!("Description: {description}"));
    }
    if !instructions.is_empty() {
        lines.push(format!("Instructions: {instructions}"));
    }
    Some(lines.join("\n"))
}

fn instruction(count: usize) -> String {
    format!(
        "You write conversation starters for a chat assistant: short messages a user \
         could send it first. Answer with only a JSON array of {count} strings, each at \
         most {MAX_CHARS} characters. No prose before or after it."
    )
}

/// The starters in an answer: a JSON array of strings (fenced or not),
/// else its non-empty lines without `-`, `*` or `1.`; bad and repeated
/// items dropped; at most `count`.
pub fn parse(answer: &str, count: usize) -> Vec<String> {
    let from_array = answer
        .find('[')
        .zip(answer.rfind(']'))
        .and_then(|(start, end)| answer.get(start..=end))
        .and_then(|text| serde_json::from_str::<Vec<Value>>(text).ok());
    let candidates: Vec<String> = match from_array {
        Some(items) => items
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        None => answer
            .lines()
            .map(|line| strip_marker(line.trim()).to_owned())
            .collect(),
    };
    let mut kept: Vec<String> = Vec::new();
    for item in candidates {
        let item = item.trim().to_owned();
        let chars = item.chars().count();
        if chars == 0 || chars > MAX_CHARS || item.starts_with("```") || repeats(&kept, &item) {
            continue;
        }
        kept.push(item);
        if kept.len() == count {
            break;
        }
    }
    kept
}

/// A line without its list marker (`-`, `*`, `1.`).
fn strip_marker(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return rest;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    match line[digits..].strip_prefix(". ") {
        Some(rest) if digits > 0 => rest,
        _ => line,
    }
}

/// Up to `count` starters for `agent` from its default model, and the
/// model that wrote them; `None` when the agent has nothing to suggest
/// from (no description, no instructions).
pub async fn generate(
    writer: &SuggestionWriter,
    agent: &Agent,
    user_id: &str,
    count: usize,
) -> Option<Result<(Vec<String>, String), SuggestError>> {
    let prompt = prompt(agent)?;
    let call = SuggestCall {
        org: agent.org_id,
        agent: agent.id,
        runner: None,
        user_id: user_id.to_owned(),
        model: agent.default_model.clone(),
        system: instruction(count),
        prompt,
        purpose: confer_actors::UsagePurpose::Suggestions,
        max_output_tokens: None,
    };
    Some(writer.call(call).await.and_then(|(answer, model)| {
        let kept = parse(&answer, count);
        if kept.is_empty() {
            Err(SuggestError::NoneLeft)
        } else {
            Ok((kept, model))
        }
    }))
}

/// The agent's stored suggestions, `None` until set (on either store,
/// through the configs port).
pub async fn stored(
    store: &crate::store::Store,
    org: confer_actors::OrgId,
    agent: AgentId,
) -> Result<Option<AgentSuggestions>, confer_actors::StoreError> {
    use crate::store::port::PlainConfig;
    match store
        .configs()
        .config_json(org, agent, PlainConfig::Suggestions)
        .await?
    {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value)
            .map(Some)
            .map_err(|e| confer_actors::StoreError::Codec(e.to_string())),
    }
}

/// Replaces the agent's suggestions with `record`.
pub async fn put(
    store: &crate::store::Store,
    record: &AgentSuggestions,
) -> Result<(), confer_actors::StoreError> {
    use crate::store::port::PlainConfig;
    let value = serde_json::to_value(record)
        .map_err(|e| confer_actors::StoreError::Codec(e.to_string()))?;
    store
        .configs()
        .update_config_json(
            record.org_id,
            record.agent_id,
            PlainConfig::Suggestions,
            Box::new(move |_| Ok(value.clone())),
        )
        .await
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_trimmed_bounded_and_unrepeated() {
        assert_eq!(check(vec![" Hi ".into()]).unwrap(), ["Hi"]);
        for (items, field) in [
            (vec!["a".to_owned(); 11], "suggestions"),
            (vec!["ok".into(), "x".repeat(201)], "suggestions[1]"),
            (vec!["Hello".into(), "hello".into()], "suggestions[1]"),
            (vec!["  ".into()], "suggestions[0]"),
        ] {
            assert_eq!(check(items).unwrap_err().0, field);
        }
    }

    #[test]
    fn an_array_is_read_else_the_lines_without_markers() {
        assert_eq!(
            parse(
                "```json\n[\"Plan a trip\", \"plan a trip\", 3, \"Pack a bag\"]\n```",
                4
            ),
            ["Plan a trip", "Pack a bag"]
        );
        assert_eq!(
            parse(
                "Name: Guide\n\n- Where to?\n* When?\n12. Why?\nWhere to?",
                10
            ),
            ["Name: Guide", "Where to?", "When?", "Why?"]
        );
        assert_eq!(parse("a\nb\nc", 2), ["a", "b"]);
        assert!(parse("\n \n", 4).is_empty());
    }
}
