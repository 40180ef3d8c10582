//! Prompt caching for vendor A (`vendor-options.md`, "Prompt caching"): the
//! system prompt as blocks, its stable part first, and at most four
//! `cache_control` breakpoints: the stable preamble, the last tool
//! definition, the last block of the request (so the next turn reads this
//! whole prefix from the cache), and the last block of the previous user
//! message when that is more than the vendor's look-back from the end.
//! A send's `anthropicOverrides.cache` turns them off, makes them last an
//! hour, or leaves the tools out.

use confer_actors::AnthropicCache;
use serde_json::{Value, json};

/// How many blocks the vendor looks back from a breakpoint for a cached
/// prefix.
const LOOKBACK_BLOCKS: usize = 20;
/// The vendor's limit on breakpoints in one request.
const MAX_BREAKPOINTS: usize = 4;

fn breakpoint(cache: &AnthropicCache) -> Value {
    if cache.one_hour {
        json!({"type": "ephemeral", "ttl": "1h"})
    } else {
        json!({"type": "ephemeral"})
    }
}

/// `system` as text blocks: the first `stable_len` bytes (the preamble,
/// marked as a breakpoint unless caching is off), then the rest (the
/// overlays, starting with the blank line that joins them). Empty parts are
/// left out.
pub fn system_blocks(system: &str, stable_len: usize, cache: &AnthropicCache) -> Vec<Value> {
    // A length that does not fall on the text (it always does) caches nothing.
    let (stable, rest) = match system.split_at_checked(stable_len) {
        Some(parts) => parts,
        None => ("", system),
    };
    let mut blocks = Vec::new();
    if !stable.is_empty() {
        let mut block = json!({"type": "text", "text": stable});
        if !cache.disabled {
            block["cache_control"] = breakpoint(cache);
        }
        blocks.push(block);
    }
    if !rest.is_empty() {
        blocks.push(json!({"type": "text", "text": rest}));
    }
    blocks
}

/// Marks the last tool definition and the conversation's breakpoints in a
/// request `body` that may already carry some (the system's), keeping to
/// the vendor's limit.
pub fn mark_breakpoints(body: &mut Value, cache: &AnthropicCache) {
    if cache.disabled {
        return;
    }
    let mut placed = body["system"].as_array().map_or(0, |blocks| {
        blocks
            .iter()
            .filter(|b| b.get("cache_control").is_some())
            .count()
    });
    let mut mark = |block: Option<&mut Value>| {
        if let Some(block) = block.filter(|_| placed < MAX_BREAKPOINTS) {
            block["cache_control"] = breakpoint(cache);
            placed += 1;
        }
    };
    if cache.tools {
        mark(
            body["tools"]
                .as_array_mut()
                .and_then(|tools| tools.last_mut()),
        );
    }
    let Some(messages) = body["messages"].as_array_mut() else {
        return;
    };
    let blocks_of = |message: &Value| message["content"].as_array().map_or(0, Vec::len);
    // The previous user message, and how many blocks follow its last one.
    let last = messages.len().saturating_sub(1);
    let previous = messages[..last].iter().rposition(|m| m["role"] == "user");
    let far_back = previous
        .filter(|at| messages[at + 1..].iter().map(blocks_of).sum::<usize>() > LOOKBACK_BLOCKS);
    mark(
        messages
            .last_mut()
            .and_then(|m| m["content"].as_array_mut())
            .and_then(|blocks| blocks.last_mut()),
    );
    if let Some(at) = far_back {
        mark(
            messages[at]["content"]
                .as_array_mut()
                .and_then(|blocks| blocks.last_mut()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: AnthropicCache = AnthropicCache {
        disabled: false,
        one_hour: false,
        tools: true,
    };

    fn marked(value: &Value) -> bool {
        value.get("cache_control").is_some()
    }

    #[test]
    fn the_preamble_is_its_own_block_and_a_breakpoint() {
        let blocks = system_blocks("Be terse.\n\nBe kind.", "Be terse.".len(), &ON);
        assert_eq!(
            blocks,
            [
                json!({"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}}),
                json!({"type": "text", "text": "\n\nBe kind."}),
            ]
        );
        assert_eq!(system_blocks("Only overlays", 0, &ON).len(), 1);
        assert!(!marked(&system_blocks("Only overlays", 0, &ON)[0]));
        assert!(system_blocks("", 0, &ON).is_empty());
        // Not on a character boundary: nothing is cached, nothing is lost.
        assert_eq!(
            system_blocks("é", 1, &ON),
            [json!({"type": "text", "text": "é"})]
        );
    }

    fn text(n: usize) -> Value {
        json!({"type": "text", "text": n.to_string()})
    }

    #[test]
    fn breakpoints_go_on_the_last_tool_and_the_last_block() {
        let mut body = json!({
            "system": system_blocks("P\n\nO", 1, &ON),
            "tools": [{"name": "a"}, {"name": "b"}],
            "messages": [
                {"role": "user", "content": [text(1)]},
                {"role": "assistant", "content": [text(2)]},
                {"role": "user", "content": [text(3), text(4)]},
            ],
        });
        mark_breakpoints(&mut body, &ON);
        assert!(!marked(&body["tools"][0]) && marked(&body["tools"][1]));
        assert!(!marked(&body["messages"][2]["content"][0]));
        assert!(marked(&body["messages"][2]["content"][1]));
        assert!(
            !marked(&body["messages"][0]["content"][0]),
            "only 3 blocks back"
        );
    }

    #[test]
    fn a_previous_user_message_far_back_gets_one_too_within_four() {
        // A tool loop: 21 blocks after the previous user message.
        let loop_blocks: Vec<Value> = (0..20).map(text).collect();
        let mut body = json!({
            "system": system_blocks("P", 1, &ON),
            "tools": [{"name": "a"}],
            "messages": [
                {"role": "user", "content": [text(100)]},
                {"role": "assistant", "content": loop_blocks},
                {"role": "user", "content": [text(101)]},
            ],
        });
        mark_breakpoints(&mut body, &ON);
        assert!(marked(&body["messages"][0]["content"][0]));
        assert!(marked(&body["messages"][2]["content"][0]));
        let count = body.to_string().matches("cache_control").count();
        assert_eq!(count, 4);
        // With the four used, no fifth.
        let mut full = body.clone();
        full["system"] = json!([
            {"type": "text", "text": "a", "cache_control": breakpoint(&ON)},
            {"type": "text", "text": "b", "cache_control": breakpoint(&ON)},
        ]);
        for message in full["messages"].as_array_mut().unwrap() {
            for block in message["content"].as_array_mut().unwrap() {
                block.as_object_mut().unwrap().remove("cache_control");
            }
        }
        mark_breakpoints(&mut full, &ON);
        assert_eq!(full.to_string().matches("cache_control").count(), 4);
    }

    #[test]
    fn a_send_may_turn_caching_off_lengthen_it_or_leave_the_tools_out() {
        let body = || {
            json!({
                "tools": [{"name": "a"}],
                "messages": [{"role": "user", "content": [text(1)]}],
            })
        };
        let off = AnthropicCache {
            disabled: true,
            ..ON
        };
        let mut plain = body();
        plain["system"] = Value::Array(system_blocks("P\n\nO", 1, &off));
        mark_breakpoints(&mut plain, &off);
        assert!(!plain.to_string().contains("cache_control"), "{plain}");
        let hour = AnthropicCache {
            one_hour: true,
            tools: false,
            ..ON
        };
        let mut long = body();
        long["system"] = Value::Array(system_blocks("P\n\nO", 1, &hour));
        mark_breakpoints(&mut long, &hour);
        assert!(!marked(&long["tools"][0]));
        let hour_mark = json!({"type": "ephemeral", "ttl": "1h"});
        assert_eq!(long["system"][0]["cache_control"], hour_mark);
        assert_eq!(
            long["messages"][0]["content"][0]["cache_control"],
            hour_mark
        );
    }
}
