//! Generating a runner's suggestions (`runners.md` "Suggestions"): the
//! one call of `crate::suggestions` asks for a JSON array of `{label,
//! input}` objects from the runner's name, description and input schema;
//! items whose `input` the schema refuses are dropped. The call's cost
//! counts in the runner's UTC day.

use serde_json::Value;

use super::Runner;
use super::schema;
use super::suggestions::Suggestion;
use crate::suggestions::{MAX_SUGGESTIONS, SuggestCall, SuggestError, SuggestionWriter};

const MAX_LABEL_CHARS: usize = 100;

/// Whom a generation is for: the caller (the analytics' user) and the
/// model the runner answers with.
pub struct Asked<'a> {
    pub user_id: &'a str,
    pub model: &'a str,
    pub count: usize,
}

/// Up to `asked.count` suggestions for `runner`, and the model that wrote
/// them.
pub async fn generate(
    writer: &SuggestionWriter,
    runner: &Runner,
    asked: Asked<'_>,
) -> Result<(Vec<Suggestion>, String), SuggestError> {
    let call = SuggestCall {
        org: runner.org_id,
        agent: runner.agent_id,
        runner: Some(runner.id),
        user_id: asked.user_id.to_owned(),
        model: asked.model.to_owned(),
        system: instruction(asked.count),
        prompt: prompt(runner),
        purpose: confer_actors::UsagePurpose::Suggestions,
        max_output_tokens: None,
    };
    let (answer, model) = writer.call(call).await?;
    let kept = parse(&answer, &runner.input_schema, asked.count);
    if kept.is_empty() {
        return Err(SuggestError::NoneLeft);
    }
    Ok((kept, model))
}

/// The system instruction: what to answer, in which shape.
fn instruction(count: usize) -> String {
    format!(
        "You write example inputs for an automated task, to show its users what they can \
         ask of it. Answer with only a JSON array of {count} objects, each \
         {{\"label\": \"a short title, at most {MAX_LABEL_CHARS} characters\", \"input\": \
         <a JSON value valid for the input schema>}}. No prose before or after it."
    )
}

/// The user message: the runner's name, description and input schema
/// (an empty part left out).
fn prompt(runner: &Runner) -> String {
    let mut lines = vec![format!("Name: {}", runner.name)];
    if let Some(description) = runner
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        lines.push(format!("Description: {description}"));
    }
    lines.push(format!("Input schema: {}", runner.input_schema));
    lines.join("\n")
}

/// The suggestions in a model's answer: a JSON array of `{label, input}`
/// objects, fenced or not; items with a bad label, a repeated one, or an
/// input the schema refuses are dropped; at most `count`.
pub fn parse(answer: &str, input_schema: &Value, count: usize) -> Vec<Suggestion> {
    let count = count.clamp(1, MAX_SUGGESTIONS);
    let (Some(start), Some(end)) = (answer.find('['), answer.rfind(']')) else {
        return Vec::new();
    };
    let Some(Value::Array(items)) = answer
        .get(start..=end)
        .and_then(|text| serde_json::from_str(text).ok())
    else {
        return Vec::new();
    };
    let Ok(validator) = schema::compile(input_schema) else {
        return Vec::new();
    };
    let mut kept: Vec<Suggestion> = Vec::new();
    for item in items {
        let Some(label) = item.get("label").and_then(Value::as_str).map(str::trim) else {
            continue;
        };
        let chars = label.chars().count();
        let repeated = kept
            .iter()
            .any(|s| s.label.to_lowercase() == label.to_lowercase());
        if chars == 0 || chars > MAX_LABEL_CHARS || repeated {
            continue;
        }
        let input = item
            .get("input")
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default()));
        if !schema::errors(&validator, &input).is_empty() {
            continue;
        }
        kept.push(Suggestion {
            label: label.to_owned(),
            input,
        });
        if kept.len() == count {
            break;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "required": ["topic"],
               "properties": {"topic": {"type": "string"}}})
    }

    #[test]
    fn a_fenced_array_gives_its_valid_items_up_to_the_count() {
        let answer = "Here you are:\n```json\n[\
            {\"label\": \"Owls\", \"input\": {\"topic\": \"owls\"}},\
            {\"label\": \"owls\", \"input\": {\"topic\": \"again\"}},\
            {\"label\": \"Numbers\", \"input\": {\"topic\": 7}},\
            {\"label\": \"\", \"input\": {\"topic\": \"x\"}},\
            {\"label\": \"Bees\", \"input\": {\"topic\": \"bees\"}},\
            {\"label\": \"Ants\", \"input\": {\"topic\": \"ants\"}}\
        ]\n```";
        let kept = parse(answer, &schema(), 2);
        let labels: Vec<&str> = kept.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["Owls", "Bees"]);
        assert_eq!(kept[1].input, json!({"topic": "bees"}));
    }

    #[test]
    fn prose_or_no_valid_item_gives_none() {
        assert!(parse("one two three", &schema(), 4).is_empty());
        assert!(parse("[{\"label\": \"a\", \"input\": {}}]", &schema(), 4).is_empty());
        assert!(parse("[1, 2", &schema(), 4).is_empty());
    }
}
