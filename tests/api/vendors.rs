//! Real vendor protocols against in-process mocks replaying recorded streams:
//! text, usage, ping, mid-stream error, retries (429, 529, 5xx), refusal,
//! a cut connection, and a stop that closes the vendor connection.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{done_of, error_of, eventually};
use crate::mock::{Reply, fixture};

pub use crate::vendor_rig::{VendorRig, on_vendors};

fn tokens(frames: &[crate::common::Frame]) -> String {
    frames
        .iter()
        .filter(|f| f.event == "token")
        .map(|f| f.data["delta"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn openai_compatible_stream_end_to_end() {
    let rig = VendorRig::start().await;
    let (openai, api) = (&rig.openai, &rig.api);
    let thread = rig.thread("gpt-4.1", "Be terse.").await;

    openai.push(Reply::stream(fixture("openai_text.sse")));
    let frames = api.say(&thread, json!({"content": "hi"})).await;
    assert_eq!(frames[0].data["model"], "gpt-4.1");
    assert_eq!(tokens(&frames), "Héllo wörld ✓");
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(done["content"], "Héllo wörld ✓");
    assert_eq!(
        done["usage"],
        json!({"inputTokens": 12, "outputTokens": 4, "cacheReadTokens": 0, "cacheWriteTokens": 0,
               "steps": 1, "model": "gpt-4.1"})
    );

    let request = &openai.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-platform-openai")
    );
    assert_eq!(request.body["model"], "gpt-4.1");
    assert_eq!(request.body["stream"], true);
    assert_eq!(
        request.body["stream_options"],
        json!({"include_usage": true})
    );
    assert_eq!(
        request.body["messages"],
        json!([{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}])
    );

    // The next turn carries the whole conversation; an explicit prefix is stripped.
    openai.push(Reply::stream(fixture("openai_text.sse")));
    api.say(
        &thread,
        json!({"content": "again", "modelOverride": "openai/llama3.1:8b"}),
    )
    .await;
    let request = &openai.requests()[1];
    assert_eq!(request.body["model"], "llama3.1:8b");
    assert_eq!(request.body["messages"].as_array().unwrap().len(), 4);
    assert_eq!(
        request.body["messages"][2],
        json!({"role": "assistant", "content": "Héllo wörld ✓"})
    );
    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    assert_eq!(usage["records"][0]["provider"], "openai");
    assert_eq!(usage["records"][0]["model"], "llama3.1:8b");
    assert_eq!(usage["records"][1]["input_tokens"], 12);
    assert_eq!(usage["records"][1]["estimated"], Value::Null);
}

#[tokio::test]
async fn anthropic_stream_end_to_end_under_a_path_prefix() {
    let rig = VendorRig::start().await;
    let (anthropic, api) = (&rig.anthropic, &rig.api);
    let thread = rig.thread("claude-sonnet-4-6", "Be terse.").await;

    anthropic.push(Reply::stream(fixture("anthropic_text.sse")));
    let frames = api
        .say(
            &thread,
            json!({"content": "hi", "systemPromptOverlay": "Be kind."}),
        )
        .await;
    assert_eq!(tokens(&frames), "Hello there, Zoë ☀!");
    let done = done_of(&frames);
    assert_eq!(
        done["usage"],
        json!({"inputTokens": 412, "outputTokens": 9, "cacheReadTokens": 0, "cacheWriteTokens": 0,
               "steps": 1, "model": "claude-sonnet-4-6"})
    );

    let request = &anthropic.requests()[0];
    assert_eq!(request.path, "/anthropic/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-platform-anthropic"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    // The preamble is a block of its own, cached (prompt_caching.rs).
    assert_eq!(
        request.body["system"],
        json!([{"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}},
               {"type": "text", "text": "\n\nBe kind."}])
    );
    assert_eq!(request.body["max_tokens"], 4096);
    assert_eq!(request.body["stream"], true);
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hi",
            "cache_control": {"type": "ephemeral"}}]}])
    );
    let history = api.history(&thread).await;
    assert_eq!(history[1]["content"], "Hello there, Zoë ☀!");
}

#[tokio::test]
async fn failures_before_the_first_token_are_retried() {
    let rig = VendorRig::start().await;
    let (openai, anthropic, api) = (&rig.openai, &rig.anthropic, &rig.api);
    let gpt = rig.thread("gpt-4.1", "").await;
    let claude = rig.thread("claude-sonnet-4-6", "").await;

    // 429 with Retry-After, then success.
    openai
        .push(Reply::Status {
            status: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body: json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}})
                .to_string(),
        })
        .push(Reply::stream(fixture("openai_text.sse")));
    let done = done_of(&api.say(&gpt, json!({"content": "hi"})).await);
    assert_eq!(done["ok"], true);
    assert_eq!(openai.requests().len(), 2);

    // 529 overloaded twice, then success.
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    anthropic
        .push(Reply::json(529, overloaded.clone()))
        .push(Reply::json(529, overloaded.clone()))
        .push(Reply::stream(fixture("anthropic_text.sse")));
    let done = done_of(&api.say(&claude, json!({"content": "hi"})).await);
    assert_eq!(done["ok"], true);
    assert_eq!(anthropic.requests().len(), 3);

    // Still failing after the retries: PROVIDER_UNAVAILABLE, then done {ok:false}.
    for _ in 0..3 {
        anthropic.push(Reply::json(529, overloaded.clone()));
    }
    let frames = api.say(&claude, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_UNAVAILABLE");
    assert_eq!(done_of(&frames)["ok"], false);
    assert_eq!(anthropic.requests().len(), 6);

    // A refused key is not retried, and the vendor's words are not relayed.
    openai.push(Reply::json(
        401,
        json!({"error": {"message": "Incorrect API key provided: sk-plat***enai"}}),
    ));
    let billed = |thread: String| {
        let api = api.clone();
        async move {
            api.get(&format!("/api/usage?threadId={thread}"))
                .await
                .expect(200)["records"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    let before = billed(gpt.clone()).await;
    let frames = api.say(&gpt, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_AUTH");
    assert!(!error["detail"].as_str().unwrap().contains("sk-"));
    assert_eq!(openai.requests().len(), 3);
    // The vendor never accepted the call: no usage record.
    assert_eq!(billed(gpt.clone()).await, before);

    // A bad request is MODEL_ERROR with the vendor's message.
    openai.push(Reply::json(
        400,
        json!({"error": {"message": "temperature must be at most 2"}}),
    ));
    let frames = api.say(&gpt, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "MODEL_ERROR");
    assert!(
        error["detail"]
            .as_str()
            .unwrap()
            .contains("temperature must be at most 2")
    );
    // One refused for its length is CONTEXT_TOO_LONG (OpenAI's words).
    openai.push(Reply::json(
        400,
        json!({"error": {"message": "This model's maximum context length is 128000 tokens.",
                         "code": "context_length_exceeded"}}),
    ));
    let frames = api.say(&gpt, json!({"content": "hi"})).await;
    assert_eq!(error_of(&frames)["code"], "CONTEXT_TOO_LONG");
}

#[tokio::test]
async fn failures_after_the_first_token_end_the_turn() {
    let rig = VendorRig::start().await;
    let (openai, anthropic, api) = (&rig.openai, &rig.anthropic, &rig.api);
    let gpt = rig.thread("gpt-4.1", "").await;
    let claude = rig.thread("claude-sonnet-4-6", "").await;

    // An `error` event after HTTP 200 (with thinking and unknown events before it).
    anthropic.push(Reply::stream(fixture("anthropic_midstream_error.sse")));
    let frames = api.say(&claude, json!({"content": "hi"})).await;
    assert_eq!(tokens(&frames), "Partial ");
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_UNAVAILABLE");
    let done = done_of(&frames);
    assert_eq!(
        (done["ok"].clone(), done["content"].clone()),
        (json!(false), json!("Partial "))
    );
    assert_eq!(
        anthropic.requests().len(),
        1,
        "no retry after the first token"
    );

    // The connection cut mid-stream (no finish, no [DONE]).
    openai.push(Reply::stream(fixture("openai_cut.sse")));
    let frames = api.say(&gpt, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_UNAVAILABLE");
    assert_eq!(done_of(&frames)["content"], "Half an ");
    // Neither partial answer is in the history; both usage records are.
    let history = api.history(&gpt).await;
    assert_eq!(history.len(), 1);
    assert_eq!(
        api.get(&format!("/api/usage?threadId={gpt}"))
            .await
            .expect(200)["records"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn stop_closes_the_vendor_connection() {
    let rig = VendorRig::start().await;
    let (openai, anthropic, api) = (&rig.openai, &rig.anthropic, &rig.api);
    for (model, mock, body) in [
        (
            "claude-sonnet-4-6",
            &anthropic,
            fixture("anthropic_text.sse"),
        ),
        ("gpt-4.1", &openai, fixture("openai_text.sse")),
    ] {
        let thread = rig.thread(model, "").await;
        mock.push(Reply::Stream {
            body,
            gap: Duration::from_millis(400),
        });
        let mut stream = api.open_stream(&thread, json!({"content": "hi"})).await;
        assert_eq!(stream.next().await.unwrap().event, "meta");
        assert_eq!(stream.next().await.unwrap().event, "token");
        let asked = Instant::now();
        let stop = api
            .post(&format!("/api/threads/{thread}/stop"), json!({}))
            .await
            .expect(200);
        assert_eq!(stop["stopped"], true);
        let done = done_of(&stream.collect().await);
        assert_eq!(done["stopped"], true);
        let closed = eventually(
            Duration::from_secs(1),
            "the vendor connection closes",
            async || mock.closed().first().copied(),
        )
        .await;
        assert!(
            closed < asked + Duration::from_secs(1),
            "{model}: the vendor saw the close {:?} after stop",
            closed - asked
        );
    }
}

#[tokio::test]
async fn both_vendors_cover_rate_limits_overload_errors_and_cuts() {
    let rig = VendorRig::start().await;
    let (openai, anthropic, api) = (&rig.openai, &rig.anthropic, &rig.api);
    let gpt = rig.thread("gpt-4.1", "").await;
    let claude = rig.thread("claude-sonnet-4-6", "").await;

    // Anthropic: 429 (Retry-After) then success.
    anthropic
        .push(Reply::Status {
            status: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body:
                json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}})
                    .to_string(),
        })
        .push(Reply::stream(fixture("anthropic_text.sse")));
    assert_eq!(
        done_of(&api.say(&claude, json!({"content": "hi"})).await)["ok"],
        true
    );
    assert_eq!(anthropic.requests().len(), 2);

    // Anthropic: the connection cut before message_stop.
    let text = fixture("anthropic_text.sse");
    let cut = text[..text.find("event: message_delta").unwrap()].to_owned();
    anthropic.push(Reply::stream(cut));
    let frames = api.say(&claude, json!({"content": "hi"})).await;
    assert_eq!(error_of(&frames)["code"], "PROVIDER_UNAVAILABLE");
    assert_eq!(done_of(&frames)["content"], "Hello there, Zoë ☀!");
    assert_eq!(done_of(&frames)["ok"], false);

    // OpenAI-compatible: 529 then success.
    openai
        .push(Reply::json(
            529,
            json!({"error": {"message": "overloaded"}}),
        ))
        .push(Reply::stream(fixture("openai_text.sse")));
    assert_eq!(
        done_of(&api.say(&gpt, json!({"content": "hi"})).await)["ok"],
        true
    );
    assert_eq!(openai.requests().len(), 2);

    // OpenAI-compatible: an error chunk after HTTP 200.
    openai.push(Reply::stream(fixture("openai_midstream_error.sse")));
    let frames = api.say(&gpt, json!({"content": "hi"})).await;
    assert_eq!(tokens(&frames), "Partial ");
    let error = error_of(&frames);
    assert_eq!(error["code"], "MODEL_ERROR");
    assert!(
        error["detail"]
            .as_str()
            .unwrap()
            .contains("server had an error")
    );
    assert_eq!(done_of(&frames)["ok"], false);
    assert_eq!(openai.requests().len(), 3, "no retry after the first token");
}
