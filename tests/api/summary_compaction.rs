//! Confer's summary compaction for models that do not compact natively
//! (`compaction.md` "Other models"), against the mock OpenAI-compatible
//! vendor: past `vendorBCompactThreshold` one summary call, then answer
//! calls that send system + summary + the kept tail; a tool call and its
//! result are never split; a failed summary leaves the turn answered; a
//! request over the vendor's window is `CONTEXT_TOO_LONG`.

use serde_json::{Value, json};

use crate::common::{Api, Server, done_of};
use crate::mock::{Mock, Reply, fixture, openai_answer, server_on_mock};

async fn rig() -> (Mock, Server) {
    server_on_mock("OPENAI", "/openai").await
}

async fn thread_with(api: &Api, compaction: Value) -> String {
    let agent = api
        .agent_with(json!({"name": "Long", "defaultModel": "gpt-4.1"}))
        .await;
    api.put(&format!("/api/agents/{agent}/compaction"), compaction)
        .await
        .expect(200);
    api.thread(&agent, json!({})).await
}

/// Turns 1 and 2 of the long thread: a long question, then a tool pair
/// whose first result is long (the cut lands on it), answered; the last
/// answer reports `prompt_tokens` past the threshold.
async fn long_thread(vendor: &Mock, api: &Api, thread: &str) {
    vendor.push(Reply::stream(openai_answer("First answer.", 520)));
    let first = api
        .say(
            thread,
            json!({"content": format!("Remember the codeword FALCON. {}", "lorem ".repeat(330))}),
        )
        .await;
    assert_eq!(done_of(&first)["ok"], true);
    let weather = json!([
        {"name": "get_weather", "parameters": {"type": "object"}},
        {"name": "get_time", "parameters": {"type": "object"}},
    ]);
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    let asked = api
        .say(
            thread,
            json!({"content": "Weather and time?", "tools": weather}),
        )
        .await;
    assert_eq!(done_of(&asked)["requiresAction"], true);
    vendor.push(Reply::stream(openai_answer("Sunny, and noon.", 1200)));
    let answered = api
        .say(
            thread,
            json!({"content": "", "tools": weather, "toolResults": [
                {"toolCallId": "call_A", "output": format!("sunny {}", "details ".repeat(300))},
                {"toolCallId": "call_B", "output": "12:00"}]}),
        )
        .await;
    assert_eq!(done_of(&answered)["ok"], true);
}

#[tokio::test]
async fn past_the_threshold_a_summary_replaces_the_older_context_never_splitting_a_tool_pair() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let thread = thread_with(
        &api,
        json!({"enabled": true, "vendorBCompactThreshold": 1000}),
    )
    .await;
    long_thread(&vendor, &api, &thread).await;
    let before = vendor.requests().len();

    vendor.push(Reply::stream(openai_answer(
        "They talked about FALCON.",
        700,
    )));
    vendor.push(Reply::stream(openai_answer("Third answer.", 300)));
    let frames = api.say(&thread, json!({"content": "And now?"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    let events: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    let compaction = events
        .iter()
        .position(|e| *e == "compaction")
        .expect("a compaction event");
    let first_token = events.iter().position(|e| *e == "token").unwrap();
    assert!(compaction < first_token, "{events:?}");
    let event = &frames[compaction].data;
    assert_eq!(event["method"], "summary");
    assert_eq!(event["summary"], "They talked about FALCON.");
    assert!(
        event["inputTokensBefore"].as_u64().unwrap() >= 1000,
        "{event}"
    );

    let requests = vendor.requests();
    assert_eq!(
        requests.len(),
        before + 2,
        "one summary call, one answer call"
    );
    // The summary call: the instruction, and the conversation up to the cut.
    let summary_call = &requests[before].body;
    assert!(
        summary_call["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("summary")
    );
    let transcript = summary_call["messages"][1]["content"].as_str().unwrap();
    assert!(transcript.contains("FALCON"), "{transcript}");
    assert!(
        !transcript.contains("sunny"),
        "the tool pair is kept, not summarized"
    );
    assert!(summary_call["tools"].is_null());
    // The answer call: the summary as a system message, then the kept tail
    // from the tool call on, its results with it.
    let messages = requests[before + 1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[0]["content"],
        "Summary of the earlier conversation:\nThey talked about FALCON."
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_A");
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_A");
    assert_eq!(messages[3]["tool_call_id"], "call_B");
    assert_eq!(messages.last().unwrap()["content"], "And now?");
    assert!(!requests[before + 1].raw_body.contains("lorem"));

    // Its usage record says what it was for.
    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let purposes: Vec<&str> = usage["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(
        purposes.iter().filter(|p| **p == "compaction").count(),
        1,
        "{purposes:?}"
    );
    // The listed history keeps every message.
    let history = api.history(&thread).await;
    assert_eq!(history.len(), 6, "{history:?}");
    assert!(history[0]["content"].as_str().unwrap().contains("FALCON"));

    // After a restart the summary is still what the next call sees, and no
    // new compaction is due (the vendor reported 300 tokens).
    let server = server.kill_and_restart();
    let api = server.admin();
    let context = api
        .get(&format!("/api/threads/{thread}/context"))
        .await
        .expect(200);
    assert_eq!(context["blocks"][0]["type"], "summary");
    assert!(context["compacted_at"].is_string());
    vendor.push(Reply::stream(openai_answer("Fourth answer.", 320)));
    let frames = api.say(&thread, json!({"content": "Still there?"})).await;
    assert!(!frames.iter().any(|f| f.event == "compaction"));
    let last = vendor.requests().last().unwrap().body.clone();
    assert_eq!(
        last["messages"][0]["content"],
        "Summary of the earlier conversation:\nThey talked about FALCON."
    );
}

#[tokio::test]
async fn a_failed_summary_call_leaves_the_turn_answered_and_uncompacted() {
    let (vendor, server) = rig().await;
    let api = server.admin();
    let thread = thread_with(
        &api,
        json!({"enabled": true, "vendorBCompactThreshold": 1000}),
    )
    .await;
    long_thread(&vendor, &api, &thread).await;
    vendor.push(Reply::json(
        400,
        json!({"error": {"message": "the summarizer refuses", "type": "invalid_request_error"}}),
    ));
    vendor.push(Reply::stream(openai_answer("Answered anyway.", 1300)));
    let frames = api.say(&thread, json!({"content": "And now?"})).await;
    let done = done_of(&frames);
    assert_eq!(done["ok"], true, "{frames:?}");
    assert_eq!(done["content"], "Answered anyway.");
    assert!(!frames.iter().any(|f| f.event == "compaction"));
    let last = vendor.requests().last().unwrap().raw_body.clone();
    assert!(last.contains("lorem"), "uncompacted");
    server.log_line("the summary call failed").await;
}

#[tokio::test]
async fn over_the_vendors_window_is_context_too_long_unless_compaction_keeps_it_under() {
    let (vendor, server) = rig().await;
    vendor.context_window(2000);
    let api = server.admin();
    // Two questions of about 1,500 tokens each: the second request is over
    // the window.
    let long = || "lorem ".repeat(1000);
    let plain = thread_with(&api, json!({"enabled": false})).await;
    vendor.push(Reply::stream(openai_answer("Noted.", 1510)));
    let first = api.say(&plain, json!({"content": long()})).await;
    assert_eq!(done_of(&first)["ok"], true);
    let refused = api.say(&plain, json!({"content": long()})).await;
    let error = refused.iter().find(|f| f.event == "error").unwrap();
    assert_eq!(error.data["code"], "CONTEXT_TOO_LONG");
    assert!(
        error.data["detail"]
            .as_str()
            .unwrap()
            .contains("enable compaction"),
        "{}",
        error.data
    );

    // The same on a thread whose agent compacts: the first question is
    // summarized before the second is sent, and the request fits.
    let compacting = thread_with(
        &api,
        json!({"enabled": true, "vendorBCompactThreshold": 1000}),
    )
    .await;
    vendor.push(Reply::stream(openai_answer("Noted.", 1510)));
    let first = api.say(&compacting, json!({"content": long()})).await;
    assert!(
        !first.iter().any(|f| f.event == "compaction"),
        "nothing to summarize yet"
    );
    vendor.push(Reply::stream(openai_answer(
        "The user sent a long lorem text.",
        1520,
    )));
    vendor.push(Reply::stream(openai_answer("Fits now.", 1600)));
    let frames = api.say(&compacting, json!({"content": long()})).await;
    assert!(frames.iter().any(|f| f.event == "compaction"), "{frames:?}");
    assert_eq!(done_of(&frames)["content"], "Fits now.", "{frames:?}");
}

/// The estimate counts an OpenAI model's tokens with its tokenizer (o200k
/// for GPT-4.1: one token per " details"), any other model's as characters
/// ÷ 4; the context endpoint shows the estimate the turn would make.
#[tokio::test]
async fn the_estimate_counts_openai_models_with_their_tokenizer() {
    let server = Server::start();
    let api = server.admin();
    let preamble = format!("details{}", " details".repeat(99));
    let mut estimates = Vec::new();
    for model in ["openai/gpt-4.1", "openai/llama3"] {
        let agent = api
            .agent_with(
                json!({"name": "Counted", "defaultModel": model, "stablePreamble": preamble}),
            )
            .await;
        let thread = api.thread(&agent, json!({})).await;
        let context = api
            .get(&format!("/api/threads/{thread}/context"))
            .await
            .expect(200);
        estimates.push(context["estimated_tokens"].as_u64().unwrap());
    }
    assert_eq!(estimates, [100, (preamble.len() as u64).div_ceil(4)]);
}
