//! What the code session tests share: waiting for a status, one turn's
//! frames, the tool results the model was given, a keyed creation.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Api, eventually};
use crate::mock::Mock;

/// The session's status once it is no longer `status`.
pub(crate) async fn settled(api: &Api, session: &str, status: &str) -> Value {
    eventually(
        Duration::from_secs(60),
        "the session's status",
        async || {
            let read = api
                .get(&format!("/api/code-sessions/{session}"))
                .await
                .expect(200);
            (read["status"] != status).then_some(read)
        },
    )
    .await
}

/// Sends `content` to the session and waits for the turn's `done` on its
/// events; the frames of that turn.
pub(crate) async fn turn(api: &Api, session: &str, content: &str) -> Vec<crate::common::Frame> {
    let mut events = api
        .open_get(&format!("/api/code-sessions/{session}/events"))
        .await;
    assert_eq!(events.status, 200);
    assert_eq!(events.next().await.unwrap().event, "watching");
    let sent = api
        .post(
            &format!("/api/code-sessions/{session}/messages"),
            json!({"content": content}),
        )
        .await
        .expect(202);
    assert_eq!(sent["status"], "running");
    // Only this turn's frames: the preparation's end may still be read.
    let prefix = format!("{}.", sent["turn"]);
    let mut frames = Vec::new();
    while let Some(frame) = events.next().await {
        if !frame
            .id
            .as_deref()
            .is_some_and(|id| id.starts_with(&prefix))
        {
            continue;
        }
        let done = frame.event == "done";
        frames.push(frame);
        if done {
            break;
        }
    }
    frames
}

/// The tool results the model was given in its last request.
pub(crate) fn tool_results(vendor: &Mock) -> Vec<Value> {
    let last = vendor.requests().pop().unwrap();
    last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let content = m["content"].as_str().unwrap();
            serde_json::from_str(content).unwrap_or_else(|_| json!(content))
        })
        .collect()
}

/// `POST /api/code-sessions` with `Idempotency-Key: key`: the status,
/// whether it was replayed, and the body.
pub(crate) fn keyed_create(
    base: &str,
    code_agent: &str,
    key: &'static str,
    title: &'static str,
) -> impl std::future::Future<Output = (u16, bool, Value)> + Send + 'static {
    let (base, code_agent) = (base.to_owned(), code_agent.to_owned());
    async move {
        let response = reqwest::Client::new()
            .post(format!("{base}/api/code-sessions"))
            .bearer_auth(crate::common::BOOTSTRAP_KEY)
            .header("idempotency-key", key)
            .json(&json!({"codeAgentId": code_agent, "title": title}))
            .send()
            .await
            .unwrap();
        let replayed = response.headers().contains_key("idempotent-replayed");
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        (status, replayed, body)
    }
}
