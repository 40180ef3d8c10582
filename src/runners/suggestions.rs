//! A runner's suggestions (`runners.md` "Suggestions"): up to 10 example
//! inputs, each with a label, that the button page shows as chips. Set
//! by `PUT /api/runners/{id}/suggestions`; every item's `input` must pass
//! the runner's input schema. The record and its rules live here; the
//! store keeps one per runner (`store::runners::suggestions`).

use chrono::{DateTime, Utc};
use confer_actors::RunnerId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::{self, FieldError};

pub use crate::suggestions::MAX_SUGGESTIONS;
const MAX_LABEL_CHARS: usize = 100;

/// One suggestion: a label and the input it fills in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Suggestion {
    pub label: String,
    #[schema(value_type = Value)]
    pub input: Value,
}

/// Where the suggestions came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SuggestionSource {
    Manual,
    Generated,
}

/// A runner's suggestions as stored and answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunnerSuggestions {
    #[schema(value_type = uuid::Uuid)]
    pub runner_id: RunnerId,
    pub suggestions: Vec<Suggestion>,
    /// `null` until set.
    pub source: Option<SuggestionSource>,
    /// The model that generated them (`null` for manual ones).
    pub model: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl RunnerSuggestions {
    /// A runner's suggestions before any were set.
    pub fn none(runner_id: RunnerId) -> Self {
        Self {
            runner_id,
            suggestions: Vec::new(),
            source: None,
            model: None,
            updated_at: None,
        }
    }
}

/// One item of a PUT body.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
pub struct SuggestionBody {
    /// 1–100 characters, trimmed; no two alike ignoring case.
    pub label: String,
    /// Valid for the runner's input schema (`{}` when absent).
    #[schema(value_type = Option<Object>)]
    pub input: Option<Value>,
}

/// The suggestions `items` make against the runner's `input_schema`, or
/// the first refusal (`suggestions[i].label`, `suggestions[i].input/x`).
pub fn check(
    items: Vec<SuggestionBody>,
    input_schema: &Value,
) -> Result<Vec<Suggestion>, FieldError> {
    let refuse = |path: String, message: String| FieldError {
        message: format!("{path}: {message}"),
        path,
    };
    if items.len() > MAX_SUGGESTIONS {
        return Err(refuse(
            "suggestions".into(),
            format!("at most {MAX_SUGGESTIONS}"),
        ));
    }
    let validator = schema::compile(input_schema).map_err(|e| refuse("suggestions".into(), e))?;
    let mut out: Vec<Suggestion> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let label = item.label.trim().to_owned();
        let chars = label.chars().count();
        if chars == 0 || chars > MAX_LABEL_CHARS {
            return Err(refuse(
                format!("suggestions[{i}].label"),
                format!("1 to {MAX_LABEL_CHARS} characters"),
            ));
        }
        if out
            .iter()
            .any(|s| s.label.to_lowercase() == label.to_lowercase())
        {
            return Err(refuse(
                format!("suggestions[{i}].label"),
                "repeats an earlier label".into(),
            ));
        }
        let input = item
            .input
            .unwrap_or_else(|| Value::Object(Default::default()));
        if let Some(error) = schema::errors(&validator, &input).into_iter().next() {
            return Err(refuse(
                format!("suggestions[{i}].input{}", error.path),
                error.message,
            ));
        }
        out.push(Suggestion { label, input });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items(value: Value) -> Vec<SuggestionBody> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn suggestions_are_checked_item_by_item_against_the_schema() {
        let schema = json!({"type": "object", "required": ["topic"],
                            "properties": {"topic": {"type": "string"}}});
        let good = check(
            items(json!([{"label": " Owls ", "input": {"topic": "owls"}}])),
            &schema,
        )
        .unwrap();
        assert_eq!(good[0].label, "Owls");
        for (value, path) in [
            (
                json!([{"label": "", "input": {"topic": "x"}}]),
                "suggestions[0].label",
            ),
            (
                json!([{"label": "a", "input": {"topic": "x"}}, {"label": "A", "input": {"topic": "y"}}]),
                "suggestions[1].label",
            ),
            (
                json!([{"label": "a", "input": {"topic": "x"}}, {"label": "b"}, {"label": "c", "input": {"topic": 1}}]),
                "suggestions[1].input",
            ),
            (
                json!([{"label": "a", "input": {"topic": "x"}}, {"label": "b", "input": {"topic": 1}}]),
                "suggestions[1].input/topic",
            ),
        ] {
            assert_eq!(
                check(items(value.clone()), &schema).unwrap_err().path,
                path,
                "{value}"
            );
        }
        let eleven: Vec<Value> = (0..11)
            .map(|i| json!({"label": format!("s{i}"), "input": {"topic": "t"}}))
            .collect();
        assert_eq!(
            check(items(Value::Array(eleven)), &schema)
                .unwrap_err()
                .path,
            "suggestions"
        );
    }
}
