//! A run's output (`runners.md` Runs §5). Text: the turns' answers joined
//! by a blank line. JSON: the last answer, trimmed and out of one ```
//! fence, must parse and match `output_schema`; otherwise a repair turn
//! names at most 3 errors, twice at most, and then the run fails
//! `OUTPUT_INVALID`. One rule for every vendor: no vendor's structured
//! output mode is used.

use serde_json::Value;

use super::schema::{self, FieldError};

/// Repair turns a JSON run may take.
pub const MAX_REPAIRS: u32 = 2;
/// Errors a repair turn names.
const ERRORS_NAMED: usize = 3;

/// What a JSON answer amounted to.
#[derive(Debug, PartialEq)]
pub enum JsonOutcome {
    Valid(Value),
    /// Why not, for the repair turn (and the run's error once repairs are
    /// spent).
    Invalid(Vec<FieldError>),
}

/// The answer without surrounding space and one enclosing ``` fence.
fn unfenced(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(inner) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let Some(inner) = inner.strip_suffix("```") else {
        return trimmed;
    };
    // The fence's language tag (`json`) runs to the first line break.
    match inner.split_once('\n') {
        Some((tag, body)) if !tag.contains(['{', '[']) => body.trim(),
        _ => inner.trim(),
    }
}

/// Parses and validates a JSON mode answer.
pub fn judge_json(validator: &jsonschema::Validator, answer: &str) -> JsonOutcome {
    let value: Value = match serde_json::from_str(unfenced(answer)) {
        Ok(value) => value,
        Err(e) => {
            return JsonOutcome::Invalid(vec![FieldError {
                path: String::new(),
                message: format!("not JSON: {e}"),
            }]);
        }
    };
    let errors = schema::errors(validator, &value);
    if errors.is_empty() {
        JsonOutcome::Valid(value)
    } else {
        JsonOutcome::Invalid(errors)
    }
}

/// The system prompt's instruction in JSON mode.
pub fn json_instruction(output_schema: &Value) -> String {
    format!(
        "Answer with one JSON value and nothing else (no prose, no code fence). \
         It must match this JSON Schema:\n{output_schema}"
    )
}

/// The repair turn's message.
pub fn repair_message(errors: &[FieldError]) -> String {
    let mut message =
        String::from("Your answer does not match the required JSON Schema. Problems:\n");
    for error in errors.iter().take(ERRORS_NAMED) {
        let path = if error.path.is_empty() {
            "(root)"
        } else {
            &error.path
        };
        message.push_str(&format!("- {path}: {}\n", error.message));
    }
    message.push_str("Answer again with only the corrected JSON.");
    message
}

/// The run's error detail once the repairs are spent.
pub fn invalid_detail(errors: &[FieldError]) -> String {
    errors
        .iter()
        .take(ERRORS_NAMED)
        .map(|e| {
            let path = if e.path.is_empty() { "(root)" } else { &e.path };
            format!("{path}: {}", e.message)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Text mode's output: the answers joined by a blank line.
pub fn joined_text(answers: &[String]) -> Value {
    Value::String(
        answers
            .iter()
            .filter(|a| !a.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> jsonschema::Validator {
        schema::compile(&json!({
            "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]
        }))
        .unwrap()
    }

    #[test]
    fn a_fenced_answer_is_read_inside_its_fence() {
        let v = validator();
        assert_eq!(
            judge_json(&v, "```json\n{\"n\": 2}\n```"),
            JsonOutcome::Valid(json!({"n": 2}))
        );
        assert_eq!(
            judge_json(&v, "  {\"n\": 3} "),
            JsonOutcome::Valid(json!({"n": 3}))
        );
        assert_eq!(
            judge_json(&v, "```{\"n\": 4}```"),
            JsonOutcome::Valid(json!({"n": 4}))
        );
    }

    #[test]
    fn prose_and_schema_misses_are_invalid_with_reasons() {
        let v = validator();
        let JsonOutcome::Invalid(errors) = judge_json(&v, "Here it is: {\"n\": 1}") else {
            panic!("prose passed");
        };
        assert!(errors[0].message.starts_with("not JSON"));
        let JsonOutcome::Invalid(errors) = judge_json(&v, "{\"n\": \"one\"}") else {
            panic!("a string passed as an integer");
        };
        assert_eq!(errors[0].path, "/n");
        assert!(repair_message(&errors).contains("/n"));
    }

    #[test]
    fn text_joins_the_answers_with_a_blank_line() {
        let out = joined_text(&["a".into(), String::new(), "b".into()]);
        assert_eq!(out, json!("a\n\nb"));
    }
}
