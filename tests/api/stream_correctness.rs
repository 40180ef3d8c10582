//! Stream correctness (vendor-options.md): a malformed chunk fails the call
//! instead of leaving a hole in the stored answer, the wait for an answer to
//! start is bounded across retries, and `retry-after-ms` is honoured.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{done_of, error_of};
use crate::mock::{Reply, openai_chunk};
use crate::vendors::VendorRig;

fn text_chunk(text: &str) -> String {
    openai_chunk(
        json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}]),
        Value::Null,
    )
}

#[tokio::test]
async fn a_malformed_chunk_ends_the_call_and_stores_no_partial_answer() {
    let rig = VendorRig::start().await;
    let thread = rig.thread("gpt-4.1", "").await;
    let body = [
        text_chunk("Hello "),
        // Cut JSON: the word in it would be missing from the answer.
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"big \n\n".to_owned(),
        text_chunk("world"),
        openai_chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            Value::Null,
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    rig.openai.push(Reply::stream(body));
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let error = error_of(&frames);
    assert_eq!(error["code"], "MODEL_ERROR");
    assert_eq!(error["detail"], "the vendor sent a malformed stream chunk");
    let done = done_of(&frames);
    assert_eq!(done["ok"], false);
    assert_eq!(done["content"], "Hello ");
    let history = rig.api.history(&thread).await;
    assert_eq!(history.len(), 1, "only the user's message: {history:?}");
    assert_eq!(history[0]["role"], "user");
}

#[tokio::test]
async fn a_vendor_that_never_answers_times_out_across_retries() {
    let rig = VendorRig::start_with(&[
        ("CONFER_VENDOR_FIRST_BYTE_TIMEOUT_MS", "600"),
        // Each attempt alone would wait this long for its headers.
        ("CONFER_VENDOR_READ_TIMEOUT_MS", "3000"),
    ])
    .await;
    let thread = rig.thread("gpt-4.1", "").await;
    for _ in 0..3 {
        rig.openai.push(Reply::After(
            Duration::from_secs(30),
            Box::new(Reply::stream(crate::mock::fixture("openai_text.sse"))),
        ));
    }
    let started = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let took = started.elapsed();
    let error = error_of(&frames);
    assert_eq!(error["code"], "PROVIDER_TIMEOUT");
    assert_eq!(
        error["detail"],
        "the vendor did not start answering in time"
    );
    assert_eq!(done_of(&frames)["ok"], false);
    assert!(took >= Duration::from_millis(600), "{took:?}");
    // Retrying after each 3 s read timeout took over 9 s.
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn retry_after_ms_is_honoured() {
    // Without the vendor's hint the backoff would be 2 s or more.
    let rig = VendorRig::start_with(&[("CONFER_VENDOR_RETRY_BASE_MS", "2000")]).await;
    let thread = rig.thread("gpt-4.1", "").await;
    rig.openai
        .push(Reply::Status {
            status: 429,
            headers: vec![("retry-after-ms".into(), "300".into())],
            body: json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}})
                .to_string(),
        })
        .push(Reply::stream(crate::mock::fixture("openai_text.sse")));
    let started = Instant::now();
    let frames = rig.api.say(&thread, json!({"content": "hi"})).await;
    let took = started.elapsed();
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    assert_eq!(rig.openai.requests().len(), 2);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(1900), "{took:?}");
}
