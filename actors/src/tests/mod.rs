//! Engine tests with in-memory fakes: a `ThreadStore` in a mutex and a
//! scripted `ModelProvider` (echo; a panic on request).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use futures_util::StreamExt;

use crate::*;

#[derive(Default)]
struct MemoryStore {
    agents: Mutex<BTreeMap<AgentId, Agent>>,
    threads: Mutex<BTreeMap<ThreadId, Thread>>,
    messages: Mutex<BTreeMap<ThreadId, Vec<Message>>>,
    context: Mutex<BTreeMap<ThreadId, Vec<ContextMessage>>>,
    usage: Mutex<Vec<UsageRecord>>,
    turns: Mutex<BTreeMap<ThreadId, u64>>,
    keyed: Mutex<BTreeMap<(ThreadId, [u8; 32]), IdempotencyRecord>>,
    plans: Mutex<PlanConfig>,
    /// What the writes told the `turns` table (`fencing.rs`).
    marks: Mutex<Vec<TurnMark>>,
    /// The node `last_turn` names (another node's turns, `fencing.rs`).
    last_node: Mutex<Option<uuid::Uuid>>,
}

impl MemoryStore {
    fn agent(&self, _: OrgId, agent: AgentId) -> Result<Option<Agent>, StoreError> {
        Ok(self.agents.lock().unwrap().get(&agent).cloned())
    }
    fn thread(&self, _: OrgId, thread: ThreadId) -> Result<Option<Thread>, StoreError> {
        Ok(self.threads.lock().unwrap().get(&thread).cloned())
    }
    fn append(&self, thread: ThreadId, write: ThreadAppend) -> Result<Option<Message>, StoreError> {
        self.marks.lock().unwrap().extend(write.mark.clone());
        if let Some(turn) = write.turn {
            let mut turns = self.turns.lock().unwrap();
            let last = turns.entry(thread).or_default();
            *last = (*last).max(turn);
        }
        self.context
            .lock()
            .unwrap()
            .entry(thread)
            .or_default()
            .extend(write.context);
        let stored = write.listed.map(|mut message| {
            let mut all = self.messages.lock().unwrap();
            let list = all.entry(thread).or_default();
            message.seq = list.len() as u64 + 1;
            list.push(message.clone());
            message
        });
        if let Some((key, mut record)) = write.keyed {
            if let (Some(outcome), Some(answer)) = (record.outcome.as_mut(), &stored) {
                outcome.answer_seq = Some(answer.seq);
                outcome.message_id = Some(answer.id);
            }
            self.keyed.lock().unwrap().insert((thread, key), record);
        }
        let answer = stored.as_ref().map(|m| m.id);
        let mut usage = self.usage.lock().unwrap();
        for billed in write.billed {
            if let Some(record) = usage.iter_mut().find(|r| r.id == billed.id) {
                record.message_id = answer;
            }
        }
        for record in write.earlier_calls.into_iter().chain(write.usage) {
            usage.push(UsageRecord {
                message_id: answer,
                ..record
            });
        }
        Ok(stored)
    }
    fn idempotency(
        &self,
        thread: ThreadId,
        key: &[u8; 32],
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.keyed.lock().unwrap().get(&(thread, *key)).cloned())
    }
    fn last_turn(&self, thread: ThreadId) -> Result<u64, StoreError> {
        Ok(self
            .turns
            .lock()
            .unwrap()
            .get(&thread)
            .copied()
            .unwrap_or(0))
    }
    fn context(&self, thread: ThreadId) -> Result<Vec<ContextMessage>, StoreError> {
        Ok(self
            .context
            .lock()
            .unwrap()
            .get(&thread)
            .cloned()
            .unwrap_or_default())
    }
    fn credentials(&self, _: OrgId, _: AgentId) -> Result<CredentialConfig, StoreError> {
        Ok(CredentialConfig::default())
    }
    fn compaction(&self, _: OrgId, _: AgentId) -> Result<CompactionConfig, StoreError> {
        Ok(CompactionConfig::default())
    }
    fn plan_config(&self, _: OrgId, _: AgentId) -> Result<crate::PlanConfig, StoreError> {
        Ok(*self.plans.lock().unwrap())
    }
    fn record_usage(&self, record: UsageRecord) -> Result<UsageRecord, StoreError> {
        self.usage.lock().unwrap().push(record.clone());
        Ok(record)
    }
}

/// A call answered at once (the memory store never waits).
fn ready<T: Send + 'static>(value: Result<T, StoreError>) -> StoreFuture<T> {
    Box::pin(std::future::ready(value))
}

impl ThreadStore for MemoryStore {
    fn turn_inputs(
        &self,
        org: OrgId,
        thread: ThreadId,
        with_history: bool,
    ) -> StoreFuture<Option<TurnInputs>> {
        let inputs = (|| {
            let Some(thread) = self.thread(org, thread)? else {
                return Ok(None);
            };
            Ok(Some(TurnInputs {
                agent: self.agent(org, thread.agent_id)?,
                credentials: self.credentials(org, thread.agent_id)?,
                compaction: self.compaction(org, thread.agent_id)?,
                plans: self.plan_config(org, thread.agent_id)?,
                knowledge: crate::domain::KnowledgeConfig {
                    enabled: false,
                    ..Default::default()
                },
                history: if with_history {
                    Some(self.context(thread.id)?)
                } else {
                    None
                },
                thread,
            }))
        })();
        ready(inputs)
    }
    fn admission_reads(
        &self,
        thread: ThreadId,
        key: Option<[u8; 32]>,
        tail: bool,
    ) -> StoreFuture<AdmissionReads> {
        let reads = (|| {
            let keyed = match key {
                Some(key) => self.idempotency(thread, &key)?,
                None => None,
            };
            let tail = if tail {
                let mut context = self.context(thread)?;
                let from = context
                    .iter()
                    .rposition(|m| m.role == ContextRole::Assistant)
                    .unwrap_or(0);
                Some(context.split_off(from))
            } else {
                None
            };
            Ok(AdmissionReads { keyed, tail })
        })();
        ready(reads)
    }
    fn last_turn(&self, thread: ThreadId) -> StoreFuture<crate::LastTurn> {
        let node = *self.last_node.lock().unwrap();
        ready(MemoryStore::last_turn(self, thread).map(|turn| crate::LastTurn { turn, node }))
    }
    fn record_usage(&self, record: UsageRecord) -> StoreFuture<UsageRecord> {
        ready(MemoryStore::record_usage(self, record))
    }
    fn flush(&self) -> StoreFuture<()> {
        ready(Ok(()))
    }
    fn end_turn(&self, _: ThreadId, _: Option<Fence>, end: TurnEnd) -> StoreFuture<()> {
        self.marks.lock().unwrap().push(TurnMark::Ended(end));
        ready(Ok(()))
    }
    fn append_durably(&self, thread: ThreadId, write: ThreadAppend) -> StoreFuture<AppendDone> {
        let listed = self.append(thread, write);
        ready(listed.map(|listed| AppendDone {
            listed,
            applied_at: std::time::Instant::now(),
        }))
    }
}

/// Echoes the last user message word by word, `delay` apart; panics when the
/// message is "panic". Records the size of every context it was given and
/// the OS thread each call ran on.
struct ScriptedProvider {
    delay: Duration,
    contexts: Mutex<Vec<usize>>,
    threads: Mutex<Vec<std::thread::ThreadId>>,
}

impl ModelProvider for ScriptedProvider {
    fn route(&self, model: &str) -> ModelRoute {
        ModelRoute {
            provider: "test".into(),
            model: model.into(),
            external: false,
        }
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        self.contexts.lock().unwrap().push(request.messages.len());
        self.threads
            .lock()
            .unwrap()
            .push(std::thread::current().id());
        let last = request
            .messages
            .last()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        if last == "panic" {
            return Box::pin(futures_util::stream::once(async { panic!("provider bug") }));
        }
        let delay = self.delay;
        let words: Vec<String> = last.split(' ').map(|w| format!("{w} ")).collect();
        let text = futures_util::stream::iter(words).then(move |w| async move {
            tokio::time::sleep(delay).await;
            ModelEvent::Text(w)
        });
        Box::pin(text.chain(futures_util::stream::iter([ModelEvent::Finish(
            FinishReason::Stop,
        )])))
    }
}

/// A resolver that never has a key (routes here are not external anyway).
struct NoResolver;

impl CredentialResolver for NoResolver {
    fn resolve(
        &self,
        _: KeyRequest,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Option<ResolvedKey>> + Send>> {
        Box::pin(async { None })
    }
}

struct Fixture {
    runtime: Runtime,
    store: Arc<MemoryStore>,
    provider: Arc<ScriptedProvider>,
    org: OrgId,
}

/// Times a runtime asked to give freed memory back (only the byte budget
/// test frees enough to ask).
static RELEASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_release() {
    RELEASES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

impl Fixture {
    fn new(delay: Duration) -> Self {
        Self::with_budget(delay, 256 * 1024 * 1024)
    }

    fn with_budget(delay: Duration, cache_bytes: usize) -> Self {
        let provider = Arc::new(ScriptedProvider {
            delay,
            contexts: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
        });
        Self::with_parts(
            cache_bytes,
            provider.clone(),
            provider,
            Arc::new(crate::tools::NoServerTools),
        )
    }

    /// A runtime on `model` and `tools` (`scripted` is what the echo tests
    /// inspect; the tool tests pass their own model).
    fn with_parts(
        cache_bytes: usize,
        scripted: Arc<ScriptedProvider>,
        model: Arc<dyn ModelProvider>,
        tools: Arc<dyn crate::tools::ToolExecutor>,
    ) -> Self {
        let thread = ThreadLimits {
            max_queued: 2,
            ..ThreadLimits::default()
        };
        Self::with_limits(cache_bytes, scripted, model, tools, thread)
    }

    /// [`Fixture::with_parts`] with the threads' limits given.
    fn with_limits(
        cache_bytes: usize,
        scripted: Arc<ScriptedProvider>,
        model: Arc<dyn ModelProvider>,
        tools: Arc<dyn crate::tools::ToolExecutor>,
        thread: ThreadLimits,
    ) -> Self {
        Self::with_leases(scripted, model, tools, thread, cache_bytes, None)
    }

    /// [`Fixture::with_limits`] on a node holding `leases` (`fencing.rs`).
    fn with_leases(
        scripted: Arc<ScriptedProvider>,
        model: Arc<dyn ModelProvider>,
        tools: Arc<dyn crate::tools::ToolExecutor>,
        thread: ThreadLimits,
        cache_bytes: usize,
        leases: Option<Arc<dyn Leases>>,
    ) -> Self {
        let store = Arc::new(MemoryStore::default());
        let provider = scripted;
        let engine = Arc::new(Engine {
            store: store.clone(),
            provider: model,
            resolver: Arc::new(NoResolver),
            tools,
            traces: Arc::default(),
            prices: Arc::default(),
            trace_payloads: false,
            leases,
        });
        let config = RuntimeConfig {
            idle_timeout: Duration::from_secs(60),
            max_live_threads: 100,
            arbiters: 2,
            cache_bytes,
            thread,
            max_active_turns_per_org: 0,
            max_queued_per_org: 1024,
            release_memory: count_release,
        };
        Self {
            runtime: Runtime::start(engine, config),
            store,
            provider,
            org: OrgId::new(),
        }
    }

    fn thread(&self) -> ThreadId {
        let now = Utc::now();
        let agent = Agent {
            id: AgentId::new(),
            org_id: self.org,
            name: "a".into(),
            description: String::new(),
            stable_preamble: String::new(),
            default_model: "test".into(),
            tool_profiles: None,
            default_profile: None,
            runtime_provider: RuntimeProvider::E2b,
            project_id: None,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        };
        let thread = Thread {
            id: ThreadId::new(),
            org_id: self.org,
            agent_id: agent.id,
            title: None,
            kind: ThreadKind::Single,
            active_profile: None,
            metadata: Metadata::new(),
            system_prompt_overlay: None,
            resource_bindings: Vec::new(),
            created_by: "test".into(),
            publication_id: None,
            invite_generation: 0,
            origin: None,
            delegation: None,
            project_id: None,
            created_at: now,
            updated_at: now,
        };
        self.store.agents.lock().unwrap().insert(agent.id, agent);
        self.store
            .threads
            .lock()
            .unwrap()
            .insert(thread.id, thread.clone());
        thread.id
    }

    async fn post(&self, thread: ThreadId, content: &str, if_busy: IfBusy) -> Admission {
        let request = TurnRequest {
            content: content.into(),
            ..TurnRequest::default()
        };
        self.post_request(thread, request, if_busy).await
    }

    /// Posts `request` as it is (the tests that set more than the content).
    async fn post_request(
        &self,
        thread: ThreadId,
        request: TurnRequest,
        if_busy: IfBusy,
    ) -> Admission {
        self.runtime
            .post(self.org, thread, request, if_busy, self.agent_of(thread))
            .await
            .unwrap()
    }

    /// The thread's agent, as the HTTP layer reads it with the thread.
    fn agent_of(&self, thread: ThreadId) -> Option<Agent> {
        self.store
            .thread(self.org, thread)
            .unwrap()
            .and_then(|t| self.store.agent(self.org, t.agent_id).unwrap())
    }

    async fn send(&self, thread: ThreadId, content: &str) -> FrameReader {
        match self.post(thread, content, IfBusy::Queue).await {
            Admission::Accepted { reader, .. } => reader,
            Admission::Duplicate { .. } => panic!("an unkeyed send is never a duplicate"),
            Admission::Refused(refusal) => panic!("refused: {refusal}"),
        }
    }
}

async fn drain(mut frames: FrameReader) -> Vec<ThreadEvent> {
    let mut events = Vec::new();
    while let Some(frame) = frames.next().await {
        events.push(frame.event.clone());
    }
    events
}

fn done(events: &[ThreadEvent]) -> (bool, String, bool) {
    match events.last() {
        Some(ThreadEvent::Done(done)) => {
            (done.ok, done.content.clone(), done.stopped.unwrap_or(false))
        }
        other => panic!("last event is not done: {other:?}"),
    }
}

mod expiry;
mod fencing;
mod profiles;
mod tool_steps;

#[actix_rt::test]
async fn a_panicking_turn_is_reported_and_the_thread_recovers() {
    let fixture = Fixture::new(Duration::ZERO);
    let thread = fixture.thread();
    let other = fixture.thread();

    let first = drain(fixture.send(thread, "hello").await).await;
    assert_eq!(done(&first), (true, "hello ".into(), false));

    let crashed = drain(fixture.send(thread, "panic").await).await;
    assert!(
        matches!(&crashed[crashed.len() - 2], ThreadEvent::Error { code, .. } if code == "INTERNAL")
    );
    assert!(!done(&crashed).0);

    // Another thread is unaffected, and the crashed one works again with its
    // context reloaded from the store (hello, hello, panic, again).
    assert!(done(&drain(fixture.send(other, "fine").await).await).0);
    let again = drain(fixture.send(thread, "again").await).await;
    assert_eq!(done(&again), (true, "again ".into(), false));
    assert_eq!(fixture.provider.contexts.lock().unwrap().last(), Some(&4));
}

#[actix_rt::test]
async fn a_turn_timed_out_ends_with_turn_timeout_and_keeps_its_text() {
    let fixture = Fixture::new(Duration::from_millis(20));
    let thread = fixture.thread();
    let running = fixture.send(thread, "a b c d e f g h i j").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(fixture.runtime.time_out(thread).await.unwrap());
    let frames = drain(running).await;
    assert!(
        matches!(&frames[frames.len() - 2], ThreadEvent::Error { code, .. } if code == "TURN_TIMEOUT"),
        "{frames:?}"
    );
    let (ok, partial, stopped) = done(&frames);
    assert!(!ok && stopped);
    assert!(partial.starts_with("a "), "{partial}");
}

#[actix_rt::test]
async fn queued_sends_run_in_order_and_stop_ends_only_the_running_one() {
    let fixture = Fixture::new(Duration::from_millis(20));
    let thread = fixture.thread();
    let first = fixture.send(thread, "a b c d e f g h i j").await;
    let second = fixture.send(thread, "k l").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(fixture.runtime.stop(thread, false).await.unwrap());

    let (ok, partial, stopped) = done(&drain(first).await);
    assert!(ok && stopped);
    assert!(partial.starts_with("a ") && partial.len() < 20, "{partial}");
    assert_eq!(done(&drain(second).await), (true, "k l ".into(), false));
    assert!(
        !fixture.runtime.stop(thread, false).await.unwrap(),
        "nothing running now"
    );

    let stored: Vec<(Role, String)> = fixture.store.messages.lock().unwrap()[&thread]
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    assert_eq!(
        stored,
        [
            (Role::User, "a b c d e f g h i j".into()),
            (Role::User, "k l".into()),
            (Role::Assistant, "k l ".into())
        ]
    );
    let usage = fixture.store.usage.lock().unwrap();
    assert_eq!(usage.len(), 2);
    assert!(usage[0].stopped && usage[0].message_id.is_none() && usage[0].estimated);
}

/// Posts a send from a task on `arbiter` (as an HTTP worker does); returns
/// the stream and the OS thread the poster ran on.
async fn send_from(
    fixture: &Arc<Fixture>,
    arbiter: &actix_rt::ArbiterHandle,
    thread: ThreadId,
    content: &'static str,
) -> (FrameReader, std::thread::ThreadId) {
    let (posted_tx, posted_rx) = tokio::sync::oneshot::channel();
    let fixture = Arc::clone(fixture);
    assert!(arbiter.spawn(async move {
        let frames = fixture.send(thread, content).await;
        let _ = posted_tx.send((frames, std::thread::current().id()));
    }));
    posted_rx.await.unwrap()
}

#[actix_rt::test]
async fn a_turn_runs_on_the_arbiter_that_posted_it() {
    let fixture = Arc::new(Fixture::new(Duration::ZERO));
    let thread = fixture.thread();
    let worker = actix_rt::Arbiter::new();

    let (frames, poster) = send_from(&fixture, &worker.handle(), thread, "hello").await;
    assert_eq!(done(&drain(frames).await), (true, "hello ".into(), false));
    // The model was called on the poster's thread, not on an actor arbiter.
    assert_eq!(*fixture.provider.threads.lock().unwrap(), vec![poster]);
    worker.stop();
}

#[actix_rt::test]
async fn a_turn_whose_arbiter_stops_is_reported_and_the_thread_recovers() {
    let fixture = Arc::new(Fixture::new(Duration::from_millis(100)));
    let thread = fixture.thread();
    let worker = actix_rt::Arbiter::new();

    let (mut frames, _) = send_from(&fixture, &worker.handle(), thread, "one two three").await;
    while !matches!(
        frames.next().await.unwrap().event,
        ThreadEvent::Token { .. }
    ) {}
    worker.stop();
    let rest = drain(frames).await;
    assert!(
        matches!(&rest[rest.len() - 2], ThreadEvent::Error { code, .. } if code == "INTERNAL"),
        "{rest:?}"
    );
    assert!(!done(&rest).0);

    // The thread goes on, its context reloaded from the store: the lost
    // turn's user message, then this one.
    let again = drain(fixture.send(thread, "again").await).await;
    assert_eq!(done(&again), (true, "again ".into(), false));
    assert_eq!(fixture.provider.contexts.lock().unwrap().last(), Some(&2));
}

/// A client that sends again on reading `done` finds the thread free, so
/// its send is decided against the finished turn, however the turn's task
/// and the actor are scheduled (the turn runs on the poster's arbiter, as
/// for an HTTP worker). The `done` once went out before the actor took the
/// turn's end in: such a send could be refused as busy, or admitted
/// unchecked.
#[actix_rt::test]
async fn a_send_made_on_seeing_done_finds_the_thread_free() {
    let fixture = Arc::new(Fixture::new(Duration::ZERO));
    let thread = fixture.thread();
    let worker = actix_rt::Arbiter::new();
    for round in 0..50 {
        let (frames, _) = send_from(&fixture, &worker.handle(), thread, "hi").await;
        assert!(done(&drain(frames).await).0);
        match fixture.post(thread, "next", IfBusy::Reject).await {
            Admission::Accepted { reader, .. } => assert!(done(&drain(reader).await).0),
            Admission::Refused(refusal) => panic!("round {round}: refused: {refusal}"),
            Admission::Duplicate { .. } => panic!("an unkeyed send is never a duplicate"),
        }
    }
    worker.stop();
}

#[actix_rt::test]
async fn idle_actors_are_evicted_past_the_byte_budget() {
    // Each thread caches about 2 × 100 KB (the message and its echo-like
    // answer) and keeps its answer's frames (100 KB); idle actors are kept
    // up to three quarters of a 1 MB budget: about two of them.
    let fixture = Fixture::with_budget(Duration::ZERO, 1_000_000);
    let content = "w".repeat(100_000);
    for _ in 0..20 {
        let thread = fixture.thread();
        drain(fixture.send(thread, &content).await).await;
    }
    let mut live = fixture.runtime.live_threads();
    for _ in 0..200 {
        if live <= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        live = fixture.runtime.live_threads();
    }
    assert!(live <= 6, "{live} actors still live over the budget");
    assert!(live >= 1, "the budget keeps what fits");
    // What the evicted actors held is given back to the system.
    for _ in 0..200 {
        if RELEASES.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no memory release after the evictions");
}

#[actix_rt::test]
async fn the_busy_policy_and_the_queue_cap_are_decided_by_the_actor() {
    let fixture = Fixture::new(Duration::from_millis(20));
    let thread = fixture.thread();
    let first = fixture.send(thread, "a b c d e f g h").await;
    assert_eq!(first.turn(), 1);
    assert!(matches!(
        fixture.post(thread, "no", IfBusy::Reject).await,
        Admission::Refused(Refusal::Busy)
    ));
    // Two may wait (the fixture's cap); a third is refused.
    let second = fixture.send(thread, "b").await;
    let third = fixture.send(thread, "c").await;
    assert_eq!(
        (second.turn(), third.turn()),
        (2, 3),
        "a refused send takes no number"
    );
    assert!(matches!(
        fixture.post(thread, "full", IfBusy::Queue).await,
        Admission::Refused(Refusal::QueueFull)
    ));
    // The waiting ones are told their place.
    let mut second = second;
    assert_eq!(
        second.next().await.unwrap().event,
        ThreadEvent::Queued {
            position: 1,
            reason: None
        }
    );
    // Interrupt: the running turn stops, the queued ones are cancelled.
    let Admission::Accepted { turn, reader } = fixture.post(thread, "now", IfBusy::Interrupt).await
    else {
        panic!("interrupt was refused");
    };
    assert_eq!(turn, 4);
    let (ok, _, stopped) = done(&drain(first).await);
    assert!(ok && stopped);
    for dropped in [drain(second).await, drain(third).await] {
        assert!(
            dropped
                .iter()
                .any(|e| matches!(e, ThreadEvent::Error { code, .. } if code == "CANCELLED")),
            "{dropped:?}"
        );
        assert!(!done(&dropped).0);
    }
    assert_eq!(done(&drain(reader).await), (true, "now ".into(), false));
    // Turn numbers survive the actor: a restarted one goes on from the store.
    assert_eq!(fixture.store.last_turn(thread).unwrap(), 4);
}

/// What a running turn's task holds for its whole life, whatever it
/// awaits: the largest of its inline steps' futures. Every step but the
/// model call is boxed (issue 11: memory per active stream; the commit's
/// future alone was 7 KB of a 9.7 KB task).
#[test]
fn a_turn_task_stays_small() {
    let store = Arc::new(MemoryStore::default());
    let provider = Arc::new(ScriptedProvider {
        delay: Duration::ZERO,
        contexts: Mutex::new(Vec::new()),
        threads: Mutex::new(Vec::new()),
    });
    let engine = Arc::new(Engine {
        store,
        provider,
        resolver: Arc::new(NoResolver),
        tools: Arc::new(crate::tools::NoServerTools),
        traces: Arc::default(),
        prices: Arc::default(),
        trace_payloads: false,
        leases: None,
    });
    let thread = ThreadId::new();
    let log = Arc::new(crate::frames::FrameLog::new(thread, Default::default()));
    let (_cancel, cancel) = tokio::sync::oneshot::channel();
    let input = crate::turn::TurnInput {
        engine,
        org: OrgId::new(),
        thread,
        turn: 1,
        request: crate::turn::TurnRequest::default(),
        emitter: crate::turn::Emitter::new(log, 1),
        cancel,
        history: None,
        fence: None,
    };
    let size = std::mem::size_of_val(&crate::turn::run_turn(input));
    // Each entry is a slot of every live thread's history.
    let entry = std::mem::size_of::<ContextMessage>();
    assert!(entry <= 192, "a context entry takes {entry} bytes");
    // Each frame of a turn (tokens, mostly) is one event.
    let event = std::mem::size_of::<ThreadEvent>();
    assert!(event <= 64, "an event takes {event} bytes");
    eprintln!("a turn task holds {size} bytes");
    assert!(size <= 4 * 1024, "a turn task holds {size} bytes");
}
