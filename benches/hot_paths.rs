//! Criterion microbenchmarks of the per-token and per-turn hot paths: SSE frame
//! encoding, vendor SSE decoding (both vendors), and building a 100-message
//! context into each vendor's request. Store writes are in `benches/store.rs`.

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::hint::black_box;

use bytes::Bytes;
use confer::providers::anthropic::{self, MessagesParser};
use confer::providers::openai::{self, ChatParser};
use confer::providers::vendor::{TransportError, wire_events};
use confer_actors::{ContextMessage, ContextRole, ModelRequest, ModelRoute, ThreadEvent};
use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::StreamExt;

fn decode<P: confer::providers::vendor::WireParser>(
    runtime: &tokio::runtime::Runtime,
    body: &'static str,
    parser: P,
) -> usize {
    let chunks: Vec<Result<Bytes, TransportError>> = body
        .as_bytes()
        .chunks(64)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    runtime.block_on(wire_events(futures_util::stream::iter(chunks), parser).count())
}

fn hot_paths(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let token = ThreadEvent::Token {
        delta: "hello ".into(),
    };
    c.bench_function("SSE frame: serialize a token event", |b| {
        b.iter(|| {
            let data = serde_json::to_string(black_box(&token)).unwrap();
            black_box(format!(
                "id: {}\nevent: {}\ndata: {data}\n\n",
                42,
                token.name()
            ))
        })
    });

    let openai_body: &'static str = include_str!("../tests/fixtures/openai_text.sse");
    let anthropic_body: &'static str = include_str!("../tests/fixtures/anthropic_text.sse");
    c.bench_function("decode OpenAI text stream (fixture, 64-byte reads)", |b| {
        b.iter(|| decode(&runtime, openai_body, ChatParser::default()))
    });
    c.bench_function(
        "decode Anthropic text stream (fixture, 64-byte reads)",
        |b| b.iter(|| decode(&runtime, anthropic_body, MessagesParser::default())),
    );

    let messages: Vec<ContextMessage> = (0..100)
        .map(|i| {
            let role = if i % 2 == 0 {
                ContextRole::User
            } else {
                ContextRole::Assistant
            };
            ContextMessage::text(
                role,
                format!("message {i}: a sentence of ordinary length for context"),
            )
        })
        .collect();
    let request = ModelRequest {
        system_stable_len: 0,
        origin: None,
        options: Default::default(),
        route: ModelRoute {
            provider: "openai".into(),
            model: "gpt-4.1".into(),
            external: true,
        },
        system: "Be terse.".into(),
        messages: std::sync::Arc::new(messages),
        tools: Vec::new(),
        api_key: None,
        tool_choice_none: false,
        compaction: None,
    };
    c.bench_function("build OpenAI request body, 100 messages", |b| {
        b.iter(|| black_box(openai::request_body(black_box(&request)).to_string()))
    });
    c.bench_function("build Anthropic request body, 100 messages", |b| {
        b.iter(|| black_box(anthropic::request_body(black_box(&request), 4096).to_string()))
    });
}

criterion_group!(benches, hot_paths);
criterion_main!(benches);
