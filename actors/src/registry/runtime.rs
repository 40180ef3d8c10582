//! `Runtime`: the handle the HTTP layer holds to the thread runtime. It
//! finds a live actor in the shared map without the registry's mailbox,
//! and asks the registry only to start one.

use super::*;
use crate::events::ThreadEvent;
use crate::turn::CancelReason;

/// A handle to the thread runtime for the HTTP layer (cheap to clone).
#[derive(Clone)]
pub struct Runtime {
    threads: ThreadMap,
    registry: Addr<AgentRegistry>,
    closing: Arc<AtomicBool>,
    org_slots: Arc<OrgSlots>,
}

impl Runtime {
    /// Starts the registry and its arbiters; call inside an actix `System`.
    pub fn start(engine: Arc<Engine>, config: RuntimeConfig) -> Self {
        let threads: ThreadMap = Arc::new(DashMap::new());
        let closing = Arc::new(AtomicBool::new(false));
        let shared = RuntimeShared {
            closing: Arc::clone(&closing),
            org_slots: Arc::new(OrgSlots::new(
                config.max_active_turns_per_org,
                config.max_queued_per_org,
                engine.leases.clone(),
            )),
        };
        let org_slots = Arc::clone(&shared.org_slots);
        let arbiters = (0..config.arbiters.max(1))
            .map(|_| Arbiter::new().handle())
            .collect();
        let registry = AgentRegistry {
            engine,
            threads: Arc::clone(&threads),
            arbiters,
            next_arbiter: 0,
            config,
            held: Arc::new(AtomicUsize::new(0)),
            shared,
            release_scheduled: false,
            held_peak: 0,
        }
        .start();
        Self {
            threads,
            registry,
            closing,
            org_slots,
        }
    }

    /// Every org's turn slots (a node's doorbell wakes their waiting
    /// turns when another node frees one).
    pub fn org_slots(&self) -> &Arc<OrgSlots> {
        &self.org_slots
    }

    async fn actor(&self, org: OrgId, thread: ThreadId) -> Result<Addr<ThreadActor>, RuntimeError> {
        if let Some(addr) = live_actor(&self.threads, thread) {
            return Ok(addr);
        }
        self.registry
            .send(StartThread { org, thread })
            .await
            .map_err(|_| RuntimeError::Unavailable)
    }

    /// Asks the thread's actor to admit a send; `agent` is the thread's
    /// agent as the caller read it with the thread (the send's rules need
    /// it). The turn runs on the caller's arbiter (the HTTP worker that
    /// relays its stream), so its tokens reach the client without crossing
    /// threads.
    pub async fn post(
        &self,
        org: OrgId,
        thread: ThreadId,
        request: TurnRequest,
        if_busy: IfBusy,
        agent: Option<Agent>,
    ) -> Result<Admission, RuntimeError> {
        let runs_on = Arbiter::try_current();
        // An actor evicted between lookup and send is replaced and tried again.
        for _ in 0..3 {
            let addr = self.actor(org, thread).await?;
            let message = PostUserMessage {
                request: request.clone(),
                if_busy,
                runs_on: runs_on.clone(),
                agent: agent.clone(),
            };
            if let Ok(admission) = addr.send(message).await {
                return Ok(admission);
            }
        }
        Err(RuntimeError::Unavailable)
    }

    /// The thread's frame log (starting its actor if needed), for a
    /// reattach or a watcher.
    pub async fn frames(
        &self,
        org: OrgId,
        thread: ThreadId,
    ) -> Result<Arc<FrameLog>, RuntimeError> {
        for _ in 0..3 {
            let addr = self.actor(org, thread).await?;
            if let Ok(log) = addr.send(Frames).await {
                return Ok(log);
            }
        }
        Err(RuntimeError::Unavailable)
    }

    /// Stops the thread's running answer (and, with `queued`, drops the
    /// queued sends); false when no turn was running.
    pub async fn stop(&self, thread: ThreadId, queued: bool) -> Result<bool, RuntimeError> {
        self.stop_for(thread, queued, CancelReason::Stop).await
    }

    /// Stops the thread's running answer because it ran past its time
    /// limit: it ends with `error {code: "TURN_TIMEOUT"}`.
    pub async fn time_out(&self, thread: ThreadId) -> Result<bool, RuntimeError> {
        self.stop_for(thread, false, CancelReason::TimedOut).await
    }

    async fn stop_for(
        &self,
        thread: ThreadId,
        queued: bool,
        reason: CancelReason,
    ) -> Result<bool, RuntimeError> {
        let Some(addr) = self.threads.get(&thread).map(|e| e.addr.clone()) else {
            return Ok(false);
        };
        Ok(addr.send(Stop { queued, reason }).await.unwrap_or(false))
    }

    /// Posts an out-of-turn event to the thread's followers
    /// ([`FrameLog::notice`]; with `last`, their streams end after it).
    /// Nothing when the thread's actor is not live: an actor with readers
    /// is never stopped, so then no one follows the thread.
    pub fn notice(&self, thread: ThreadId, event: ThreadEvent, last: bool) {
        if let Some(entry) = self.threads.get(&thread) {
            entry.log.notice(event, last);
        }
    }

    /// Whether a shutdown has begun (no send is admitted any more).
    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    /// The graceful shutdown of every thread (`streams.md`): no send is
    /// admitted any more, queued sends end at once with `SHUTTING_DOWN`,
    /// watchers end once the running turns are done, and running turns get
    /// `grace` to finish before they are stopped (`error SHUTTING_DOWN`,
    /// `done {ok:false, stopped:true}`). Returns once no turn runs, or 5 s
    /// after the stop at the latest.
    pub async fn shutdown(&self, grace: Duration) {
        self.closing.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + grace;
        while self.tell_shutdown(false).await > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.tell_shutdown(true).await > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Tells every live actor; answers how many still run a turn.
    async fn tell_shutdown(&self, stop_running: bool) -> usize {
        let actors: Vec<_> = self.threads.iter().map(|e| e.addr.clone()).collect();
        let mut running = 0;
        for addr in actors {
            if let Ok(true) = addr.send(Shutdown { stop_running }).await {
                running += 1;
            }
        }
        running
    }

    /// The node lost its leases (`scale.md` §3.2): every actor is
    /// forgotten, so each thread's next request starts a fresh one under
    /// the node's new lease (reading the thread's turns again), and told
    /// ([`LeaseLost`]) to end its sends and streams with `NODE_LOST_LEASE`.
    /// Returns how many there were.
    pub async fn lose_leases(&self) -> usize {
        let actors: Vec<_> = self
            .threads
            .iter()
            .map(|e| (*e.key(), e.addr.clone()))
            .collect();
        for (thread, addr) in &actors {
            self.threads
                .remove_if(thread, |_, entry| entry.addr == *addr);
            let _ = addr.send(LeaseLost).await;
        }
        actors.len()
    }

    /// Number of live thread actors.
    pub fn live_threads(&self) -> usize {
        self.threads.len()
    }

    /// The threads with a turn running or queued.
    pub fn busy_thread_ids(&self) -> Vec<ThreadId> {
        self.threads
            .iter()
            .filter(|e| e.activity.is_busy())
            .map(|e| *e.key())
            .collect()
    }

    /// The threads whose actors are live (running, queued, followed, or
    /// idle until their timeout): a superset of those with work.
    pub fn live_thread_ids(&self) -> Vec<ThreadId> {
        self.threads.iter().map(|e| *e.key()).collect()
    }
}
