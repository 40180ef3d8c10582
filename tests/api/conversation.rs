//! Streamed answers: frames, context, stop, ordering, disconnects, durability,
//! eviction, failures, multiplayer senders.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Options, Server, done_of, error_of, eventually, exp_in, jwt};

fn slow(delay_ms: u64) -> Options {
    Options::default().env("CONFER_BUILTIN_DELAY_MS", &delay_ms.to_string())
}

#[tokio::test]
async fn a_send_streams_meta_tokens_and_done() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Echo").await;
    let thread = api
        .thread(&agent, json!({"metadata": {"team": "a", "env": "prod"}}))
        .await;

    let stream = api
        .open_stream(
            &thread,
            json!({"content": "hello big wide world", "metadata": {"env": "test", "run": "7"}}),
        )
        .await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.headers["content-type"], "text/event-stream");
    assert_eq!(stream.headers["cache-control"], "no-cache");
    assert_eq!(stream.headers["x-accel-buffering"], "no");
    let frames = stream.collect().await;

    let ids: Vec<String> = frames.iter().map(|f| f.id.clone().unwrap()).collect();
    assert_eq!(
        ids,
        (1..=frames.len())
            .map(|n| format!("1.{n}"))
            .collect::<Vec<_>>(),
        "ids 1.1, 1.2, 1.3… (the thread's first turn)"
    );
    assert_eq!(frames[0].event, "meta");
    let meta = &frames[0].data;
    assert_eq!(meta["threadId"], thread);
    assert_eq!(meta["model"], "builtin/echo");
    assert!(meta["startedAt"].is_string() && meta["userMessageId"].is_string());
    let tokens: Vec<&str> = frames
        .iter()
        .filter(|f| f.event == "token")
        .map(|f| f.data["delta"].as_str().unwrap())
        .collect();
    assert!(tokens.len() >= 2, "{frames:?}");
    let done = done_of(&frames);
    assert_eq!(done["ok"], true);
    assert_eq!(tokens.concat(), done["content"].as_str().unwrap());
    assert_eq!(done["content"], "hello big wide world");
    assert!(done["usage"]["inputTokens"].as_u64().unwrap() > 0);
    assert_eq!(done["usage"]["outputTokens"], 4);
    assert!(done.get("stopped").is_none());

    let history = api.history(&thread).await;
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["id"], meta["userMessageId"]);
    assert_eq!(history[0]["role"], "user");
    assert_eq!(history[1]["id"], done["messageId"]);
    assert_eq!(history[1]["role"], "assistant");
    assert_eq!(history[1]["content"], "hello big wide world");

    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let record = &usage["records"][0];
    assert_eq!(record["message_id"], done["messageId"]);
    assert_eq!(record["provider"], "builtin");
    assert_eq!(record["model"], "echo");
    assert_eq!(record["key_source"], "platform");
    assert_eq!(record["stopped"], false);
    assert_eq!(record["output_tokens"], 4);
    assert_eq!(
        record["metadata"],
        json!({"team": "a", "env": "test", "run": "7"})
    );
    let by_agent = api
        .get(&format!("/api/usage?agentId={agent}"))
        .await
        .expect(200);
    assert_eq!(by_agent["records"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn every_turn_sees_the_whole_history_and_the_composed_prompt() {
    let server = Server::start();
    let api = server.admin();
    let agent = api
        .post(
            "/api/agents",
            json!({"name": "Inspector", "stablePreamble": "Be terse."}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let thread = api
        .thread(&agent, json!({"systemPromptOverlay": ["Thread rule."]}))
        .await;

    api.say(
        &thread,
        json!({"content": "first", "systemPromptOverlay": "Only now."}),
    )
    .await;
    api.say(&thread, json!({"content": "second"})).await;
    let frames = api
        .say(
            &thread,
            json!({"content": "third", "modelOverride": "builtin/inspect",
                              "systemPromptOverlay": ["Part A.", "Part B."]}),
        )
        .await;
    assert_eq!(frames[0].data["model"], "builtin/inspect");
    let seen: Value = serde_json::from_str(done_of(&frames)["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        seen["system"],
        "Be terse.\n\nThread rule.\n\nPart A.\n\nPart B."
    );
    let contents: Vec<(&str, &str)> = seen["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        contents,
        [
            ("user", "first"),
            ("assistant", "first"),
            ("user", "second"),
            ("assistant", "second"),
            ("user", "third")
        ]
    );
    // The message overlay was never stored: the next turn does not see it.
    let frames = api
        .say(
            &thread,
            json!({"content": "fourth", "modelOverride": "builtin/inspect"}),
        )
        .await;
    let seen: Value = serde_json::from_str(done_of(&frames)["content"].as_str().unwrap()).unwrap();
    assert_eq!(seen["system"], "Be terse.\n\nThread rule.");
    assert_eq!(seen["messages"].as_array().unwrap().len(), 7);
    assert_eq!(api.history(&thread).await.len(), 8);
}

#[tokio::test]
async fn stop_ends_a_slow_answer_promptly_and_stores_no_partial() {
    let server = Server::start_with(slow(200));
    let api = server.admin();
    let agent = api.agent("Slow").await;
    let thread = api.thread(&agent, json!({})).await;

    let idle = api
        .post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    assert_eq!(idle, json!({"ok": true, "stopped": false}));

    let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let mut stream = api
        .open_stream(&thread, json!({"content": words.join(" ")}))
        .await;
    assert_eq!(stream.next().await.unwrap().event, "meta");
    assert_eq!(stream.next().await.unwrap().event, "token");
    let asked = Instant::now();
    let stop = api
        .post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    assert_eq!(stop, json!({"ok": true, "stopped": true}));
    let rest = stream.collect().await;
    let elapsed = asked.elapsed();
    assert!(
        elapsed < Duration::from_secs(1),
        "stream ended {elapsed:?} after stop"
    );
    let done = done_of(&rest);
    assert_eq!(done["ok"], true);
    assert_eq!(done["stopped"], true);
    assert!(done.get("messageId").is_none(), "{done}");
    let partial = done["content"].as_str().unwrap();
    assert!(
        partial.starts_with("w0 ") && partial.len() < words.join(" ").len(),
        "{partial}"
    );

    let history = api.history(&thread).await;
    assert_eq!(
        history.len(),
        1,
        "the partial answer is not stored: {history:?}"
    );
    assert_eq!(history[0]["role"], "user");
    let usage = api
        .get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200);
    let record = &usage["records"][0];
    assert_eq!(record["stopped"], true);
    assert_eq!(record["message_id"], Value::Null);
    assert_eq!(record["estimated"], true);

    // The thread goes on normally afterwards.
    let frames = api.say(&thread, json!({"content": "again"})).await;
    assert_eq!(done_of(&frames)["content"], "again");
}

#[tokio::test]
async fn sends_to_a_busy_thread_run_in_order() {
    let server = Server::start_with(slow(30));
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;

    let mut first = api
        .open_stream(&thread, json!({"content": "one two three four five"}))
        .await;
    assert_eq!(first.next().await.unwrap().event, "meta");
    let second = {
        let api = api.clone();
        let thread = thread.clone();
        tokio::spawn(async move { api.say(&thread, json!({"content": "six seven"})).await })
    };
    let first = first.collect().await;
    let second = second.await.unwrap();
    assert_eq!(done_of(&first)["content"], "one two three four five");
    assert_eq!(done_of(&second)["content"], "six seven");
    let history: Vec<(String, String)> = api
        .history(&thread)
        .await
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            ("user".into(), "one two three four five".into()),
            ("assistant".into(), "one two three four five".into()),
            ("user".into(), "six seven".into()),
            ("assistant".into(), "six seven".into()),
        ]
    );
}

#[tokio::test]
async fn two_hundred_threads_answer_at_once() {
    let server = Server::start_with(slow(5));
    let api = server.admin();
    let agent = api.agent("Many").await;
    let mut threads = Vec::new();
    for _ in 0..200 {
        threads.push(api.thread(&agent, json!({})).await);
    }
    let tasks: Vec<_> = threads
        .iter()
        .enumerate()
        .map(|(i, thread)| {
            let api = api.clone();
            let thread = thread.clone();
            tokio::spawn(async move {
                let frames = api
                    .say(&thread, json!({"content": format!("hello thread {i}")}))
                    .await;
                done_of(&frames)
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let done = task.await.unwrap();
        assert_eq!(done["ok"], true);
        assert_eq!(done["content"], format!("hello thread {i}"));
    }
}

#[tokio::test]
async fn a_disconnected_client_does_not_stop_the_answer() {
    let server = Server::start_with(slow(40));
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let text = "the answer keeps going after the client leaves";
    let mut stream = api.open_stream(&thread, json!({"content": text})).await;
    assert_eq!(stream.next().await.unwrap().event, "meta");
    drop(stream);

    let history = eventually(
        Duration::from_secs(10),
        "the answer is stored",
        async || Some(api.history(&thread).await).filter(|h| h.len() == 2),
    )
    .await;
    assert_eq!(history[1]["role"], "assistant");
    assert_eq!(history[1]["content"], text);
}

#[tokio::test]
async fn an_acknowledged_answer_survives_kill_9() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let done = done_of(&api.say(&thread, json!({"content": "remember me"})).await);
    let server = server.kill_and_restart();
    let history = server.admin().history(&thread).await;
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["id"], done["messageId"]);
    assert_eq!(history[1]["content"], "remember me");
    // The restarted server continues the same thread with its whole context.
    let frames = server
        .admin()
        .say(
            &thread,
            json!({"content": "and now?", "modelOverride": "builtin/inspect"}),
        )
        .await;
    let seen: Value = serde_json::from_str(done_of(&frames)["content"].as_str().unwrap()).unwrap();
    assert_eq!(seen["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn idle_thread_actors_are_evicted_and_come_back() {
    let server = Server::start_with(Options::default().env("CONFER_THREAD_IDLE_TIMEOUT_MS", "200"));
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    api.say(&thread, json!({"content": "before"})).await;

    eventually(
        Duration::from_secs(10),
        "an eviction is logged",
        async || {
            server
                .logs()
                .contains("evicting idle thread actors")
                .then_some(())
        },
    )
    .await;
    let frames = api
        .say(
            &thread,
            json!({"content": "after", "modelOverride": "builtin/inspect"}),
        )
        .await;
    let seen: Value = serde_json::from_str(done_of(&frames)["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        seen["messages"].as_array().unwrap().len(),
        3,
        "context reloaded from the store"
    );
}

#[tokio::test]
async fn a_failed_model_call_ends_with_error_then_done() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let thread = api.thread(&agent, json!({})).await;
    let frames = api
        .say(
            &thread,
            json!({"content": "hi", "modelOverride": "builtin/nope"}),
        )
        .await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "MODEL_ERROR");
    assert!(error["detail"].as_str().unwrap().contains("builtin/nope"));
    let done = done_of(&frames);
    assert_eq!(done["ok"], false);
    assert!(done.get("messageId").is_none());
    // The thread still works.
    assert_eq!(
        done_of(&api.say(&thread, json!({"content": "ok now"})).await)["ok"],
        true
    );
}

#[tokio::test]
async fn multiplayer_senders_are_recorded() {
    let server = Server::start();
    let api = server.admin();
    let org = api.get("/api/orgs").await.expect(200)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let agent = api.agent("Room").await;
    let thread = api.thread(&agent, json!({"kind": "multiplayer"})).await;

    api.say(
        &thread,
        json!({"content": "from the key", "senderName": "Bot", "senderId": "svc"}),
    )
    .await;
    let carol = server.api(&jwt(
        json!({"sub": "carol", "name": "Carol", "exp": exp_in(600), "org_id": org}),
    ));
    let stream = carol
        .open_stream(&thread, json!({"content": "let me in"}))
        .await;
    assert_eq!(stream.status, 403, "a non-participant JWT user cannot send");
    api.post(
        &format!("/api/threads/{thread}/participants"),
        json!({"userId": "carol"}),
    )
    .await
    .expect(201);
    carol
        .say(
            &thread,
            json!({"content": "hello all", "senderId": "mallory"}),
        )
        .await;

    let history = api.history(&thread).await;
    assert_eq!(history[0]["sender_name"], "Bot");
    assert_eq!(history[1]["sender_name"], Value::Null);
    assert_eq!(history[2]["sender_name"], "Carol");
}
