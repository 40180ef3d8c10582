//! Prompt caching (vendor-options.md): where an Anthropic request's
//! `cache_control` breakpoints sit as a thread grows.

use serde_json::{Value, json};

use crate::common::done_of;
use crate::mock::{Reply, fixture, openai_chunk};
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

/// The vendors' cache counts reach `done.usage` and the usage record; input
/// counts every prompt token on both vendors (Anthropic reports the cached
/// ones apart, OpenAI within `prompt_tokens`).
#[tokio::test]
async fn cache_tokens_reach_done_usage_and_the_usage_record() {
    let rig = VendorRig::start().await;
    let claude = rig.thread("claude-sonnet-4-6", "Be terse.").await;
    rig.anthropic.push(Reply::stream(fixture("anthropic_text.sse").replace(
        r#""usage":{"input_tokens":412,"output_tokens":1}"#,
        r#""usage":{"input_tokens":62,"cache_read_input_tokens":300,"cache_creation_input_tokens":50,"output_tokens":1}"#,
    )));
    let done = done_of(&rig.api.say(&claude, json!({"content": "hi"})).await);
    assert_eq!(
        done["usage"],
        json!({"inputTokens": 412, "outputTokens": 9, "cacheReadTokens": 300,
               "cacheWriteTokens": 50, "steps": 1, "model": "claude-sonnet-4-6"})
    );

    let gpt = rig.thread("gpt-4.1", "").await;
    let usage = json!({"prompt_tokens": 1200, "completion_tokens": 5, "total_tokens": 1205,
        "prompt_tokens_details": {"cached_tokens": 1024}});
    let body = [
        openai_chunk(
            json!([{"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}]),
            Value::Null,
        ),
        openai_chunk(json!([]), usage),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    rig.openai.push(Reply::stream(body));
    let done = done_of(&rig.api.say(&gpt, json!({"content": "hi"})).await);
    assert_eq!(done["usage"]["inputTokens"], 1200);
    assert_eq!(done["usage"]["cacheReadTokens"], 1024);
    assert_eq!(done["usage"]["cacheWriteTokens"], 0);

    for (thread, read, write, input) in [(&claude, 300, 50, 412), (&gpt, 1024, 0, 1200)] {
        let records = rig
            .api
            .get(&format!("/api/usage?threadId={thread}"))
            .await
            .expect(200);
        let record = &records["records"][0];
        assert_eq!(record["cache_read_tokens"], read, "{record}");
        assert_eq!(record["cache_write_tokens"], write, "{record}");
        assert_eq!(record["input_tokens"], input, "{record}");
    }
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// OpenAI-compatible requests carry the thread's cache key and the end
/// user's hashed identifier; a server that refuses them gets the request
/// once more without them, and never again with them.
#[tokio::test]
async fn openai_cache_key_and_a_server_that_refuses_it() {
    let rig = VendorRig::start().await;
    let first = rig.thread("gpt-4.1", "").await;
    let second = rig.thread("gpt-4.1", "").await;
    for thread in [&first, &second] {
        rig.openai.push(Reply::stream(fixture("openai_text.sse")));
        rig.api.say(thread, json!({"content": "hi"})).await;
    }
    let requests = rig.openai.requests();
    let (a, b) = (&requests[0].body, &requests[1].body);
    assert_eq!(a["prompt_cache_key"], sha256_hex(&first)[..32]);
    assert_eq!(b["prompt_cache_key"], sha256_hex(&second)[..32]);
    let user = a["safety_identifier"].as_str().unwrap();
    assert_eq!(user.len(), 64);
    assert_eq!(b["safety_identifier"], user, "the same end user");
    assert!(!requests[0].raw_body.contains(first.as_str()));

    rig.openai
        .push(Reply::json(
            400,
            json!({"error": {"message": "Unrecognized request argument supplied: prompt_cache_key",
                             "type": "invalid_request_error"}}),
        ))
        .push(Reply::stream(fixture("openai_text.sse")))
        .push(Reply::stream(fixture("openai_text.sse")));
    let frames = rig.api.say(&first, json!({"content": "again"})).await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let frames = rig.api.say(&second, json!({"content": "and again"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    let requests = rig.openai.requests();
    assert_eq!(requests.len(), 5);
    assert!(requests[2].body.get("prompt_cache_key").is_some());
    for later in &requests[3..] {
        assert_eq!(later.body.get("prompt_cache_key"), None);
        assert_eq!(later.body.get("safety_identifier"), None);
    }
}

/// A vendor A prompt cache as the vendor keeps it, for the worked example:
/// a request's blocks (system blocks, tools, then each message's content
/// blocks, `cache_control` left out) weigh their JSON bytes ÷ 4 in tokens;
/// each breakpoint writes the prefix ending at its block; a later request
/// reads the longest prefix written before.
#[derive(Default)]
struct VendorCache {
    written: std::collections::HashSet<String>,
}

impl VendorCache {
    /// (uncached input, cache read, cache write) of a request body.
    fn bill(&mut self, body: &Value) -> (u64, u64, u64) {
        let mut blocks: Vec<(String, bool)> = Vec::new();
        let mut push = |role: &Value, block: &Value| {
            let marked = block.get("cache_control").is_some();
            let mut plain = block.clone();
            if let Some(object) = plain.as_object_mut() {
                object.remove("cache_control");
            }
            blocks.push((json!({"role": role, "block": plain}).to_string(), marked));
        };
        for block in body["system"].as_array().into_iter().flatten() {
            push(&json!("system"), block);
        }
        for tool in body["tools"].as_array().into_iter().flatten() {
            push(&json!("tools"), tool);
        }
        for message in body["messages"].as_array().unwrap() {
            for block in message["content"].as_array().unwrap() {
                push(&message["role"], block);
            }
        }
        let tokens = |upto: usize| -> u64 {
            blocks[..upto]
                .iter()
                .map(|(text, _)| text.len() as u64 / 4)
                .sum()
        };
        let prefix = |upto: usize| -> String {
            blocks[..upto]
                .iter()
                .map(|(text, _)| text.as_str())
                .collect()
        };
        let read = (1..=blocks.len())
            .rev()
            .find(|&n| self.written.contains(&prefix(n)))
            .map_or(0, tokens);
        let last_mark = blocks.iter().rposition(|(_, marked)| *marked);
        let mut write = 0;
        for (at, (_, marked)) in blocks.iter().enumerate() {
            if *marked {
                self.written.insert(prefix(at + 1));
            }
        }
        if let Some(at) = last_mark {
            write = tokens(at + 1).saturating_sub(read);
        }
        let total = tokens(blocks.len());
        (total - read - write, read, write)
    }
}

fn anthropic_answer(text: &str, (input, read, write): (u64, u64, u64)) -> String {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    [
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_c", "type": "message",
                "role": "assistant", "content": [], "model": "claude-sonnet-4-6",
                "usage": {"input_tokens": input, "cache_read_input_tokens": read,
                          "cache_creation_input_tokens": write, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "text", "text": ""}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": text}}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"output_tokens": text.len() / 4}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ]
    .concat()
}

/// The worked example of docs/api.md ("What caching saves"): a 20-turn
/// thread with a 4,000-byte preamble, two tools, 800-byte questions and
/// 1,600-byte answers, on a mock that keeps a prompt cache as the vendor
/// does. Billed input, in input-price units (cache reads at 0.1, writes at
/// 1.25): with Confer's breakpoints a fraction of the uncached price.
#[tokio::test]
async fn a_twenty_turn_thread_bills_a_fraction_of_its_input_with_caching() {
    let rig = VendorRig::start().await;
    let preamble = "You are the support agent of a bicycle shop. ".repeat(89);
    let thread = rig.thread("claude-sonnet-4-6", &preamble).await;
    let tools = json!([
        {"name": "lookup_order", "description": "Finds an order by its number.",
         "parameters": {"type": "object", "properties": {"order": {"type": "string"}}}},
        {"name": "stock", "description": "Says how many of a part are in stock.",
         "parameters": {"type": "object", "properties": {"part": {"type": "string"}}}}
    ]);
    let cache = std::sync::Arc::new(std::sync::Mutex::new(VendorCache::default()));
    let answer = "The part is in stock and ships tomorrow. ".repeat(40);
    let (mut uncached, mut read, mut write, mut input) = (0u64, 0u64, 0u64, 0u64);
    eprintln!("turn | input | cache read | cache write | uncached");
    for turn in 1..=20 {
        let cache = std::sync::Arc::clone(&cache);
        let answer = answer.clone();
        rig.anthropic.push(Reply::computed(move |request| {
            let billed = cache.lock().unwrap().bill(&request.body);
            Reply::stream(anthropic_answer(&answer, billed))
        }));
        let question = format!("Question {turn:02}: where is my order? ").repeat(20);
        let frames = rig
            .api
            .say(&thread, json!({"content": question, "tools": tools}))
            .await;
        let usage = &done_of(&frames)["usage"];
        let (i, r, w) = (
            usage["inputTokens"].as_u64().unwrap(),
            usage["cacheReadTokens"].as_u64().unwrap(),
            usage["cacheWriteTokens"].as_u64().unwrap(),
        );
        eprintln!("{turn} | {i} | {r} | {w} | {}", i - r - w);
        input += i;
        read += r;
        write += w;
        uncached += i - r - w;
    }
    let without = input as f64;
    let with = uncached as f64 + 0.1 * read as f64 + 1.25 * write as f64;
    eprintln!(
        "total input {input}: read {read}, written {write}, uncached {uncached}; \
         billed {with:.0} of {without:.0} ({:.0}%)",
        100.0 * with / without
    );
    assert!(read > 0 && write > 0);
    assert!(with < 0.35 * without, "{with} of {without}");
}
