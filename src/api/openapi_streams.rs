//! The event-stream half of the API description (sdks.md "What the document
//! must provide"): every SSE event's data is a named component
//! `{Pascal}Event` whose `title` is the event's name, `ThreadEvent` is the
//! `oneOf` of exactly those references, and every operation that answers
//! `text/event-stream` says so with `ThreadEvent` and `x-confer-stream`
//! (how a dropped stream is resumed). SDK generators read these: the names
//! become types, the titles the table from event name to type.
//!
//! It works on the serialized document because the shapes it rewrites
//! (`$ref`s with siblings, vendor extensions) are plain JSON there.

use serde_json::{Map, Value, json};

/// Events written outside [`confer_actors::ThreadEvent`]: a run's events
/// route adds the run itself and its status changes (runners.md "Runs" 6).
fn extra_events() -> [(&'static str, Value); 2] {
    [
        (
            "run",
            json!({
                "description": "The run, once, after `watching` (no id).",
                "$ref": "#/components/schemas/Run",
            }),
        ),
        (
            "run_status",
            json!({
                "type": "object",
                "description": "The run's status changed (no id).",
                "required": ["status", "statusReason"],
                "properties": {
                    "status": {"$ref": "#/components/schemas/RunStatus"},
                    "statusReason": {"type": ["string", "null"]},
                    "limit": {"type": "string", "description": "The budget limit hit (`max_steps`…), when paused by one."},
                    "output": {"description": "The run's output, once it has one."},
                    "error": {"$ref": "#/components/schemas/RunError"},
                },
            }),
        ),
    ]
}

/// Which operation resumes each streaming operation's stream.
const REATTACH: &[(&str, &str)] = &[
    ("messages_send", "streams_stream"),
    ("streams_stream", "streams_stream"),
    ("public_messages_send", "public_stream"),
    ("public_stream", "public_stream"),
    ("runs_events", "runs_events"),
    ("runner_button_events", "runner_button_events"),
    ("code_sessions_events", "code_sessions_events"),
];

/// `meta` → `MetaEvent`, `tool_call` → `ToolCallEvent`.
fn component_name(event: &str) -> String {
    let mut name: String = event
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    name.push_str("Event");
    name
}

const PREFIX: &str = "#/components/schemas/";

/// Names the events and marks the streaming operations. An event without a
/// title, or two events of one name, is a bug in the code's schemas: the
/// description test fails on the error this returns.
pub fn describe_streams(doc: &mut Value) -> Result<(), String> {
    let schemas = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .ok_or("the document has no schemas")?;
    let entries = schemas
        .get_mut("ThreadEvent")
        .and_then(|event| event.get_mut("oneOf"))
        .and_then(Value::as_array_mut)
        .map(std::mem::take)
        .ok_or("the document has no ThreadEvent oneOf")?;
    let mut events: Vec<(String, Value)> = Vec::new();
    for entry in entries {
        let title = entry["title"]
            .as_str()
            .ok_or_else(|| format!("an event has no title: {entry}"))?
            .to_owned();
        events.push((title, entry));
    }
    events.extend(extra_events().map(|(title, schema)| (title.to_owned(), schema)));
    let mut refs = Vec::with_capacity(events.len());
    for (title, mut schema) in events {
        let name = component_name(&title);
        if refs
            .iter()
            .any(|r: &Value| r["$ref"] == format!("{PREFIX}{name}"))
        {
            return Err(format!("two events are named `{title}`"));
        }
        let target = schema["$ref"].as_str().map(str::to_owned);
        let component = match target {
            // Already its own component under the right name: title it.
            Some(target) if target == format!("{PREFIX}{name}") => {
                let mut named = schemas
                    .remove(&name)
                    .ok_or_else(|| format!("`{target}` is not in the document"))?;
                named["title"] = json!(title);
                named
            }
            // Another type's schema (`Citation`): the event names it. A
            // `$ref` with siblings (3.1) rather than `allOf`, which makes
            // generators copy the target's inner types under a second name.
            Some(target) => json!({
                "title": title,
                "description": schema["description"],
                "$ref": target,
            }),
            None => {
                schema["title"] = json!(title);
                schema
            }
        };
        schemas.insert(name.clone(), component);
        refs.push(json!({"$ref": format!("{PREFIX}{name}")}));
    }
    schemas.insert(
        "ThreadEvent".into(),
        json!({
            "description": "The data of one Server-Sent Event; the event's name is its schema's `title`.",
            "oneOf": refs,
        }),
    );
    mark_streaming_operations(doc)
}

/// Gives every `text/event-stream` answer the `ThreadEvent` schema and its
/// operation the `x-confer-stream` extension.
fn mark_streaming_operations(doc: &mut Value) -> Result<(), String> {
    let paths = doc
        .get_mut("paths")
        .and_then(Value::as_object_mut)
        .ok_or("the document has no paths")?;
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut().filter_map(Value::as_object_mut) {
            if !streams(operation) {
                continue;
            }
            let id = operation["operationId"].as_str().unwrap_or_default();
            let reattach = REATTACH
                .iter()
                .find(|(op, _)| *op == id)
                .map(|(_, reattach)| *reattach)
                .ok_or_else(|| format!("`{id}` streams but names no reattach operation"))?;
            operation.insert(
                "x-confer-stream".into(),
                json!({"resume": "Last-Event-ID", "reattach": reattach}),
            );
            let answers = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
                .into_iter()
                .flat_map(|responses| responses.values_mut());
            for answer in answers {
                if let Some(content) = answer.pointer_mut("/content/text~1event-stream") {
                    content["schema"] = json!({"$ref": format!("{PREFIX}ThreadEvent")});
                }
            }
        }
    }
    Ok(())
}

/// Whether an operation answers `text/event-stream`.
fn streams(operation: &Map<String, Value>) -> bool {
    operation
        .get("responses")
        .and_then(Value::as_object)
        .is_some_and(|responses| {
            responses
                .values()
                .any(|answer| answer.pointer("/content/text~1event-stream").is_some())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_become_pascal_case_components() {
        assert_eq!(component_name("meta"), "MetaEvent");
        assert_eq!(component_name("tool_call"), "ToolCallEvent");
        assert_eq!(
            component_name("profile_switch_proposal"),
            "ProfileSwitchProposalEvent"
        );
    }

    #[test]
    fn a_second_event_of_one_name_is_refused() {
        let mut doc = json!({
            "paths": {},
            "components": {"schemas": {
                "Run": {}, "RunStatus": {}, "RunError": {},
                "ThreadEvent": {"oneOf": [
                    {"type": "object", "title": "token"},
                    {"type": "object", "title": "token"},
                ]},
            }},
        });
        let error = describe_streams(&mut doc).unwrap_err();
        assert!(error.contains("token"), "{error}");
    }

    #[test]
    fn an_untitled_event_is_refused() {
        let mut doc = json!({"paths": {}, "components": {"schemas": {
            "ThreadEvent": {"oneOf": [{"type": "object"}]},
        }}});
        assert!(describe_streams(&mut doc).is_err());
    }
}
