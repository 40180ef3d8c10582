//! The multi-step turn (`tools.md` §5) with a scripted model and in-memory
//! server-side tools: the order of events, the usage of every call, the
//! step limit, calls of tools not offered, and a stop during a tool call.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::json;

use super::*;
use crate::tools::{LIMIT_REACHED, MAX_TOOL_STEPS, NOT_AVAILABLE, OfferedFuture, ToolExecutor};
use crate::tools::{ServerTools, ToolFuture, ToolOutput, ToolScope};

/// Answers each call with the next script (the last one again when they
/// run out) and records what every request offered and held.
#[derive(Default)]
pub(super) struct StepModel {
    scripts: Mutex<VecDeque<Vec<ModelEvent>>>,
    pub(super) requests: Mutex<Vec<ModelRequest>>,
}

impl StepModel {
    pub(super) fn new(scripts: Vec<Vec<ModelEvent>>) -> Arc<Self> {
        Arc::new(Self {
            scripts: Mutex::new(scripts.into()),
            requests: Mutex::new(Vec::new()),
        })
    }
}

impl ModelProvider for StepModel {
    fn route(&self, model: &str) -> ModelRoute {
        ModelRoute {
            provider: "test".into(),
            model: model.into(),
            external: false,
        }
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        self.requests.lock().unwrap().push(request);
        let mut scripts = self.scripts.lock().unwrap();
        let script = if scripts.len() > 1 {
            scripts.pop_front().unwrap()
        } else {
            scripts.front().cloned().unwrap_or_default()
        };
        Box::pin(futures_util::stream::iter(script))
    }
}

/// A model answer that calls `name` with `{"q": n}`, reporting `tokens`.
fn calls(text: &str, id: &str, name: &str, tokens: u64) -> Vec<ModelEvent> {
    let mut events = Vec::new();
    if !text.is_empty() {
        events.push(ModelEvent::Text(text.into()));
    }
    events.extend([
        ModelEvent::ToolCallStart {
            index: 0,
            id: id.into(),
            name: name.into(),
        },
        ModelEvent::ToolCallArguments {
            index: 0,
            fragment: "{\"q\": 1}".into(),
        },
        ModelEvent::Usage {
            input_tokens: Some(tokens),
            output_tokens: Some(1),
            cache_read_tokens: None,
            cache_write_tokens: None,
        },
        ModelEvent::Finish(FinishReason::ToolCalls),
    ]);
    events
}

pub(super) fn answers(text: &str, tokens: u64) -> Vec<ModelEvent> {
    vec![
        ModelEvent::Text(text.into()),
        ModelEvent::Usage {
            input_tokens: Some(tokens),
            output_tokens: Some(2),
            cache_read_tokens: None,
            cache_write_tokens: None,
        },
        ModelEvent::Finish(FinishReason::Stop),
    ]
}

/// One server-side tool, `lookup`, answering `{"echo": arguments}` after
/// `delay`; counts its calls and notices a call dropped before its end.
pub(super) struct Lookup {
    delay: Duration,
    pub(super) calls: AtomicUsize,
    dropped: Arc<AtomicBool>,
}

impl Lookup {
    pub(super) fn new(delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            delay,
            calls: AtomicUsize::new(0),
            dropped: Arc::new(AtomicBool::new(false)),
        })
    }
}

/// Sets its flag when dropped before `finish`.
struct DropWatch(Arc<AtomicBool>, bool);

impl DropWatch {
    fn finish(mut self) {
        self.1 = true;
    }
}

impl Drop for DropWatch {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

impl ToolExecutor for Lookup {
    fn offered(&self, _: &ToolScope) -> OfferedFuture {
        Box::pin(async {
            let org = ["wipe", "lookup"]
                .into_iter()
                .map(|name| ToolDefinition {
                    name: name.into(),
                    description: None,
                    parameters: json!({"type": "object"}),
                })
                .collect();
            ServerTools {
                org,
                ..ServerTools::default()
            }
        })
    }
    fn execute(&self, _: &ToolScope, call: &ToolCall) -> ToolFuture {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let (delay, arguments) = (self.delay, call.arguments.clone());
        let watch = DropWatch(Arc::clone(&self.dropped), false);
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            watch.finish();
            ToolOutput {
                result: json!({ "echo": arguments }),
                is_error: false,
            }
        })
    }
}

pub(super) fn fixture(model: Arc<StepModel>, tools: Arc<Lookup>) -> Fixture {
    let scripted = Arc::new(ScriptedProvider {
        delay: Duration::ZERO,
        contexts: Mutex::new(Vec::new()),
        threads: Mutex::new(Vec::new()),
    });
    Fixture::with_parts(256 * 1024 * 1024, scripted, model, tools)
}

pub(super) fn names(events: &[ThreadEvent]) -> Vec<&'static str> {
    events.iter().map(ThreadEvent::name).collect()
}

#[actix_rt::test]
async fn a_two_step_answer_streams_every_step_and_bills_every_call() {
    let model = StepModel::new(vec![
        calls("Let me look.", "c1", "lookup", 10),
        answers("Found it.", 20),
    ]);
    let fixture = fixture(model.clone(), Lookup::new(Duration::ZERO));
    let thread = fixture.thread();
    let events = drain(fixture.send(thread, "find it").await).await;
    assert_eq!(
        names(&events),
        [
            "meta",
            "token",
            "tool_call",
            "tool_executing",
            "tool_result",
            "token",
            "token",
            "done"
        ]
    );
    assert_eq!(
        events[4],
        ThreadEvent::ToolResult {
            tool_name: "lookup".into(),
            tool_call_id: "c1".into(),
            result: Box::new(json!({"echo": {"q": 1}})),
            is_error: None,
        }
    );
    // The deltas add up to `done.content`: the second step's text follows a
    // blank line sent as its own token.
    assert_eq!(
        events[5],
        ThreadEvent::Token {
            delta: "\n\n".into()
        }
    );
    let ThreadEvent::Done(done) = events.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(done.content, "Let me look.\n\nFound it.");
    assert_eq!(
        done.usage,
        Some(Usage {
            input_tokens: 30,
            output_tokens: 3,
            steps: Some(2),
            model: Some("test".into()),
            ..Usage::default()
        })
    );
    // The second call read the first one's call and result.
    let requests = model.requests.lock().unwrap();
    let second = &requests[1].messages;
    assert_eq!(second.len(), 3, "{second:?}");
    assert_eq!(second[1].tool_calls[0].id, "c1");
    assert_eq!(second[2].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(second[2].content, r#"{"echo":{"q":1}}"#);
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered, ["lookup", "wipe"], "the org's tools, by name");
    // One usage record per call, both linked to the answer; the context
    // keeps both steps.
    let answer = fixture.store.messages.lock().unwrap()[&thread][1].clone();
    assert_eq!(answer.content, "Let me look.\n\nFound it.");
    let usage = fixture.store.usage.lock().unwrap();
    let tokens: Vec<(u64, Option<u32>)> = usage.iter().map(|r| (r.input_tokens, r.step)).collect();
    assert_eq!(tokens, [(10, Some(1)), (20, Some(2))]);
    assert!(usage.iter().all(|r| r.message_id == Some(answer.id)));
    let context = fixture.store.context.lock().unwrap()[&thread].clone();
    assert_eq!(context.len(), 4);
    assert_eq!(
        context[3].content, "Found it.",
        "the blank line is not context"
    );
}

#[actix_rt::test]
async fn at_the_step_limit_no_call_runs_and_a_last_call_cannot_call_tools() {
    // Ten answers that call a tool (ids c1…c10), then one that does not.
    let mut scripts: Vec<Vec<ModelEvent>> = (1..=MAX_TOOL_STEPS)
        .map(|n| calls("", &format!("c{n}"), "lookup", 1))
        .collect();
    scripts.push(answers("Giving up.", 1));
    let model = StepModel::new(scripts);
    let tools = Lookup::new(Duration::ZERO);
    let fixture = fixture(model.clone(), tools.clone());
    let thread = fixture.thread();
    let events = drain(fixture.send(thread, "loop").await).await;
    assert_eq!(
        tools.calls.load(Ordering::SeqCst),
        usize::try_from(MAX_TOOL_STEPS).unwrap() - 1
    );
    let results: Vec<&ThreadEvent> = events
        .iter()
        .filter(|e| e.name() == "tool_result")
        .collect();
    assert_eq!(results.len(), 10);
    assert_eq!(
        *results[9],
        ThreadEvent::ToolResult {
            tool_name: "lookup".into(),
            tool_call_id: "c10".into(),
            result: Box::new(json!({"error": LIMIT_REACHED})),
            is_error: Some(true),
        }
    );
    let requests = model.requests.lock().unwrap();
    assert_eq!(requests.len(), 11);
    assert!(requests[..10].iter().all(|r| !r.tool_choice_none));
    assert!(
        requests[10].tool_choice_none,
        "the last call may call no tool"
    );
    assert_eq!(requests[10].tools.len(), 2, "but still has the definitions");
    let (ok, content, _) = done(&events);
    assert!(ok);
    assert_eq!(content, "Giving up.");
    let ThreadEvent::Done(done) = events.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(done.usage.as_ref().unwrap().steps, Some(11));
    assert_eq!(fixture.store.usage.lock().unwrap().len(), 11);
}

#[actix_rt::test]
async fn a_call_of_a_tool_not_offered_is_answered_and_the_turn_goes_on() {
    let model = StepModel::new(vec![
        calls("", "c1", "delete_everything", 5),
        answers("I cannot.", 5),
    ]);
    let tools = Lookup::new(Duration::ZERO);
    let fixture = fixture(model.clone(), tools.clone());
    let thread = fixture.thread();
    let events = drain(fixture.send(thread, "please").await).await;
    assert_eq!(
        names(&events),
        ["meta", "tool_call", "tool_result", "token", "done"]
    );
    assert_eq!(
        events[2],
        ThreadEvent::ToolResult {
            tool_name: "delete_everything".into(),
            tool_call_id: "c1".into(),
            result: Box::new(json!({"error": NOT_AVAILABLE})),
            is_error: Some(true),
        }
    );
    assert_eq!(tools.calls.load(Ordering::SeqCst), 0);
    assert_eq!(done(&events).1, "I cannot.");
}

#[actix_rt::test]
async fn a_stop_during_a_tool_call_cancels_it_at_once() {
    let model = StepModel::new(vec![
        calls("Working.", "c1", "lookup", 5),
        answers("never", 5),
    ]);
    let tools = Lookup::new(Duration::from_secs(30));
    let fixture = fixture(model.clone(), tools.clone());
    let thread = fixture.thread();
    let mut reader = fixture.send(thread, "slow").await;
    let mut events = Vec::new();
    while let Some(frame) = reader.next().await {
        let executing = frame.event.name() == "tool_executing";
        events.push(frame.event.clone());
        if executing {
            break;
        }
    }
    let asked = std::time::Instant::now();
    assert!(fixture.runtime.stop(thread, false).await.unwrap());
    events.extend(drain(reader).await);
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    let ThreadEvent::Done(done) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(done.stopped, Some(true));
    assert_eq!(done.content, "Working.");
    assert!(
        tools.dropped.load(Ordering::SeqCst),
        "the call was cancelled"
    );
    assert_eq!(model.requests.lock().unwrap().len(), 1);
    // The billed first call is kept, unlinked (no answer was stored).
    let usage = fixture.store.usage.lock().unwrap();
    assert_eq!(usage.len(), 1);
    assert_eq!(usage[0].message_id, None);
}

#[actix_rt::test]
async fn a_sends_own_step_cap_replaces_the_default() {
    // A code session's `maxSteps` (3 here): three calls may call tools.
    let mut scripts: Vec<Vec<ModelEvent>> = (1..=3)
        .map(|n| calls("", &format!("c{n}"), "lookup", 1))
        .collect();
    scripts.push(answers("Done.", 1));
    let model = StepModel::new(scripts);
    let fixture = fixture(model.clone(), Lookup::new(Duration::ZERO));
    let thread = fixture.thread();
    let request = TurnRequest {
        content: "work".into(),
        max_tool_steps: Some(3),
        ..TurnRequest::default()
    };
    let admission = fixture.post_request(thread, request, IfBusy::Queue).await;
    let Admission::Accepted { reader, .. } = admission else {
        panic!("not admitted")
    };
    let events = drain(reader).await;
    let requests = model.requests.lock().unwrap();
    assert_eq!(requests.len(), 4);
    assert!(requests[..3].iter().all(|r| !r.tool_choice_none));
    assert!(
        requests[3].tool_choice_none,
        "the fourth call may call no tool"
    );
    assert_eq!(done(&events).1, "Done.");
}
