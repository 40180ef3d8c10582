//! What a model reads of an MCP tool call (`tools.md` §6): the server's
//! `structuredContent` when present, else its text parts joined by `\n`;
//! media and resource parts become references `{type, mimeType, uri?}`
//! (their bytes are never passed on); the server's `isError` is kept; an
//! answer over 256 KiB is an error result. Also the model-facing names of
//! a server's tools.

use confer_actors::tools::ToolOutput;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::tools::webhook::RESULT_CAP;

/// The model-facing name of a server's tool: `{slug}__{tool}`, fitted to
/// `^[a-zA-Z0-9_-]{1,64}$` (`tools.md` §4): other characters become `_`; a
/// longer name keeps its first 55 characters, then `_` and 8 hex digits of
/// the SHA-256 of the whole name.
pub fn model_name(slug: &str, tool: &str) -> String {
    fit(&format!("{slug}__{tool}"))
}

/// Fits a derived tool name to the model-facing rule.
pub fn fit(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.len() <= 64 {
        return cleaned;
    }
    let digest = Sha256::digest(name.as_bytes());
    format!("{}_{}", &cleaned[..55], &hex::encode(digest)[..8])
}

/// The model's view of a `tools/call` result, given as the wire JSON.
pub fn output(result: &Value) -> ToolOutput {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let value = match result.get("structuredContent") {
        Some(structured) => structured.clone(),
        None => content(result.get("content")),
    };
    if value.to_string().len() > RESULT_CAP {
        return ToolOutput::error("response over 256 KiB");
    }
    ToolOutput {
        result: value,
        is_error,
    }
}

/// Text parts joined by `\n` when all parts are text; otherwise the parts
/// in order, text as `{type: "text", text}` and the rest as references.
fn content(parts: Option<&Value>) -> Value {
    let parts = parts
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let texts: Option<Vec<&str>> = parts
        .iter()
        .map(|part| {
            (part.get("type").and_then(Value::as_str) == Some("text"))
                .then(|| part.get("text").and_then(Value::as_str).unwrap_or_default())
        })
        .collect();
    if let Some(texts) = texts {
        return Value::String(texts.join("\n"));
    }
    Value::Array(parts.iter().map(reference).collect())
}

/// A part as the model reads it: text kept, the rest by reference.
fn reference(part: &Value) -> Value {
    let kind = part
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    if kind == "text" {
        return json!({"type": "text", "text": part.get("text").cloned().unwrap_or_default()});
    }
    // An embedded resource carries its fields one level down.
    let fields = part.get("resource").unwrap_or(part);
    let mut shown = Map::new();
    shown.insert("type".into(), kind.into());
    if let Some(mime) = fields.get("mimeType").or_else(|| part.get("mimeType")) {
        shown.insert("mimeType".into(), mime.clone());
    }
    if let Some(uri) = fields.get("uri") {
        shown.insert("uri".into(), uri.clone());
    }
    Value::Object(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_fitted_to_the_model_facing_rule() {
        assert_eq!(model_name("github", "create_issue"), "github__create_issue");
        assert_eq!(
            model_name("docs", "search.v2 (beta)"),
            "docs__search_v2__beta_"
        );
        let long = model_name("a_very_long_server_slug_of_32_ch", &"t".repeat(50));
        assert_eq!(long.len(), 64);
        assert!(confer_actors::gating::is_model_facing_name(&long));
        assert!(long.starts_with("a_very_long_server_slug_of_32_ch__ttt"));
        // Two long names that share their first 55 characters differ.
        let other = model_name("a_very_long_server_slug_of_32_ch", &"t".repeat(51));
        assert_ne!(long, other);
    }

    #[test]
    fn structured_content_wins_and_is_error_is_kept() {
        let out = output(&json!({
            "content": [{"type": "text", "text": "{\"a\":1}"}],
            "structuredContent": {"a": 1},
            "isError": true,
        }));
        assert_eq!(out.result, json!({"a": 1}));
        assert!(out.is_error);
    }

    #[test]
    fn text_parts_are_joined_and_media_become_references() {
        let out = output(&json!({"content": [
            {"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}));
        assert_eq!(out.result, json!("one\ntwo"));
        assert!(!out.is_error);
        let out = output(&json!({"content": [
            {"type": "text", "text": "see"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "mem://x", "mimeType": "application/json", "text": "{}"}},
        ]}));
        assert_eq!(
            out.result,
            json!([
                {"type": "text", "text": "see"},
                {"type": "image", "mimeType": "image/png"},
                {"type": "resource_link", "mimeType": "text/plain", "uri": "file:///a.txt"},
                {"type": "resource", "mimeType": "application/json", "uri": "mem://x"},
            ])
        );
        assert!(
            !out.result.to_string().contains("iVBOR"),
            "no bytes passed on"
        );
    }

    #[test]
    fn an_answer_over_the_cap_is_an_error() {
        let big = "x".repeat(RESULT_CAP + 1);
        let out = output(&json!({"content": [{"type": "text", "text": big}]}));
        assert!(out.is_error);
        assert_eq!(out.result, json!({"error": "response over 256 KiB"}));
    }
}
