//! Prompt caching (vendor-options.md): where an Anthropic request's
//! `cache_control` breakpoints sit as a thread grows.

use serde_json::{Value, json};

use crate::common::done_of;
use crate::mock::{Reply, fixture};
use crate::vendors::VendorRig;

/// Paths of every block that carries `cache_control` in `body`.
fn breakpoints(body: &Value) -> Vec<String> {
    fn walk(value: &Value, path: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if map.contains_key("cache_control") {
                    out.push(path.clone());
                }
                for (key, value) in map {
                    walk(value, format!("{path}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (at, value) in items.iter().enumerate() {
                    walk(value, format!("{path}/{at}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, String::new(), &mut out);
    out
}

#[tokio::test]
async fn breakpoints_follow_the_thread_on_turns_one_two_and_five() {
    let rig = VendorRig::start().await;
    let thread = rig.thread("claude-sonnet-4-6", "Be terse.").await;
    let tools = json!([
        {"name": "a", "parameters": {"type": "object"}},
        {"name": "b", "parameters": {"type": "object"}}
    ]);
    for turn in 1..=5 {
        rig.anthropic
            .push(Reply::stream(fixture("anthropic_text.sse")));
        let frames = rig
            .api
            .say(
                &thread,
                json!({"content": format!("question {turn}"), "tools": tools,
                       "systemPromptOverlay": "Be kind."}),
            )
            .await;
        assert_eq!(done_of(&frames)["ok"], true);
    }
    let requests = rig.anthropic.requests();
    for turn in [1usize, 2, 5] {
        let body = &requests[turn - 1].body;
        let last = body["messages"].as_array().unwrap().len() - 1;
        assert_eq!(last, 2 * (turn - 1), "turn {turn}: one user message a turn");
        assert_eq!(
            breakpoints(body),
            [
                format!("/messages/{last}/content/0"),
                "/system/0".to_owned(),
                "/tools/1".to_owned(),
            ],
            "turn {turn}"
        );
        assert_eq!(body["system"][0]["text"], "Be terse.");
        assert_eq!(body["system"][1]["text"], "\n\nBe kind.");
        assert_eq!(body["system"][1].get("cache_control"), None);
    }
}
