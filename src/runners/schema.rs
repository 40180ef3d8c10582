//! Runners' JSON Schemas (`runners.md` Objects): compiled by `jsonschema`
//! (draft 2020-12 unless `$schema` says otherwise, formats asserted, no
//! reference outside the schema itself), and the first errors of a value
//! as `{path, message}`.

use serde::Serialize;
use serde_json::Value;

/// The largest schema, serialized (bytes).
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Errors reported for one value.
pub const MAX_ERRORS: usize = 10;

/// One reason a value does not match its schema.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// A JSON Pointer into the value (`""`: the value itself).
    pub path: String,
    pub message: String,
}

/// The detail of a 422 with field errors: the first, as `path: message`.
pub fn first_error(errors: &[FieldError]) -> String {
    errors.first().map_or_else(
        || "invalid".to_owned(),
        |e| format!("{}: {}", e.path, e.message),
    )
}

/// Compiles `schema`; the refusal says why.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    let size = serde_json::to_vec(schema).map_or(usize::MAX, |b| b.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(format!("over {} KiB", MAX_SCHEMA_BYTES / 1024));
    }
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// Checks that an input schema compiles and has an object root.
pub fn check_input_schema(schema: &Value) -> Result<(), String> {
    compile(schema)?;
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => Ok(()),
        _ => Err("the root must be {\"type\": \"object\"}".into()),
    }
}

/// The first [`MAX_ERRORS`] reasons `value` breaks `validator`.
pub fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<FieldError> {
    validator
        .iter_errors(value)
        .take(MAX_ERRORS)
        .map(|e| FieldError {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_path_of_each_error() {
        let schema = json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}, "when": {"type": "string", "format": "date"}},
            "required": ["n"]
        });
        let validator = compile(&schema).unwrap();
        let found = errors(&validator, &json!({"n": "x", "when": "tuesday"}));
        let paths: Vec<&str> = found.iter().map(|e| e.path.as_str()).collect();
        assert!(
            paths.contains(&"/n") && paths.contains(&"/when"),
            "{found:?}"
        );
        assert!(errors(&validator, &json!({"n": 3})).is_empty());
    }

    #[test]
    fn refuses_outside_references_and_non_object_roots() {
        assert!(compile(&json!({"$ref": "https://example.com/s.json"})).is_err());
        assert!(check_input_schema(&json!({"type": "array"})).is_err());
        assert!(check_input_schema(&json!({"type": "object"})).is_ok());
    }
}
