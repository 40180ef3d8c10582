//! `AgentRegistry`: starts, finds and evicts thread actors.
//!
//! Live actors are kept in a concurrent map shared with [`Runtime`] handles,
//! so finding a running thread's actor never queues behind the registry's
//! mailbox; only starting one goes through the registry, which makes the
//! start single (no two actors for one thread). Actors are spread over one
//! arbiter per core. A periodic sweep stops actors idle longer than the
//! configured time, and starting beyond the cap first evicts the least
//! recently active idle ones. An actor that died is replaced on its next use,
//! from the store.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::domain::Agent;
use crate::frames::FrameLog;
use crate::ids::{OrgId, ThreadId};
use crate::org_slots::OrgSlots;
use crate::thread_actor::{
    Activity, Admission, Frames, IfBusy, LeaseLost, PostUserMessage, RuntimeShared, Shutdown, Stop,
    StopIfIdle, ThreadActor, ThreadLimits,
};
use crate::turn::{Engine, TurnRequest};
use actix::prelude::*;
use chrono::Utc;
use dashmap::DashMap;

mod runtime;

pub use self::runtime::Runtime;

/// Tuning of the registry.
///
/// Two bounds keep the live actors' memory in check: their count
/// (`max_live_threads`) and the bytes they hold (`cache_bytes`).
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// An actor idle this long is stopped.
    pub idle_timeout: Duration,
    /// At most this many live actors.
    pub max_live_threads: usize,
    /// Arbiters (threads) the actors are spread over.
    pub arbiters: usize,
    /// Bytes the live actors may hold in context caches and queued sends;
    /// past it the least recently active idle actors are evicted.
    pub cache_bytes: usize,
    /// Each thread's queue cap and frame retention.
    pub thread: ThreadLimits,
    /// Turns that may run at once per org (0: unlimited), and how many may
    /// wait for one (`security.md`).
    pub max_active_turns_per_org: usize,
    pub max_queued_per_org: usize,
    /// Gives memory the process freed back to the system; called (on a
    /// blocking thread) a moment after the actors freed an eighth of the
    /// budget. The allocator is the binary's choice, so the binary supplies it.
    pub release_memory: fn(),
}

/// How long after the actors freed memory it is given back: memory is freed
/// in bursts (turns ending, evictions), and one release does the work of all.
const RELEASE_AFTER: Duration = Duration::from_secs(1);

/// How often the byte budget is checked (also at each actor start).
const BUDGET_CHECK_EVERY: Duration = Duration::from_millis(250);

/// The runtime could not reach a thread's actor.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("the thread runtime is not running")]
    Unavailable,
}

#[derive(Clone)]
struct ThreadEntry {
    addr: Addr<ThreadActor>,
    activity: Arc<Activity>,
    /// Its frame log: an actor with readers is not idle.
    log: Arc<FrameLog>,
}

impl ThreadEntry {
    fn idle(&self) -> bool {
        !self.activity.is_busy() && self.log.readers() == 0
    }
}

type ThreadMap = Arc<DashMap<ThreadId, ThreadEntry>>;

/// The address of a thread's actor if it is alive.
fn live_actor(threads: &ThreadMap, thread: ThreadId) -> Option<Addr<ThreadActor>> {
    threads
        .get(&thread)
        .map(|entry| entry.addr.clone())
        .filter(Addr::connected)
}

/// Start (or find) the actor of a thread.
#[derive(Message)]
#[rtype(result = "Addr<ThreadActor>")]
struct StartThread {
    org: OrgId,
    thread: ThreadId,
}

/// The supervisor of thread actors.
pub struct AgentRegistry {
    engine: Arc<Engine>,
    threads: ThreadMap,
    arbiters: Vec<ArbiterHandle>,
    next_arbiter: usize,
    config: RuntimeConfig,
    /// Bytes held by every live actor (each `Activity` keeps it in step).
    held: Arc<AtomicUsize>,
    /// What every actor shares (shutdown flag, org turn cap).
    shared: RuntimeShared,
    /// A release of freed memory is due (see `RELEASE_AFTER`).
    release_scheduled: bool,
    /// The most the actors held since the last release.
    held_peak: usize,
}

impl AgentRegistry {
    fn sweep(&mut self, ctx: &mut Context<Self>) {
        let now = Utc::now().timestamp_millis();
        let idle_ms = i64::try_from(self.config.idle_timeout.as_millis()).unwrap_or(i64::MAX);
        let expired: Vec<_> = self
            .threads
            .iter()
            .filter(|e| e.idle() && now - e.activity.last_active_ms() >= idle_ms)
            .map(|e| (*e.key(), e.addr.clone()))
            .collect();
        self.evict(ctx, expired);
    }

    /// Bytes held by every live actor.
    fn held_bytes(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Evicts the least recently active idle actors while the live actors
    /// hold more than three quarters of the byte budget: the quarter left
    /// over is room for what the allocator and the store keep besides the
    /// actors, so that the process grows by at most the budget once a burst
    /// is over (measured in `tests/api/limits.rs`). Running turns are never
    /// evicted, so a burst may go past it while it lasts.
    fn enforce_budget(&mut self, ctx: &mut Context<Self>) {
        let held = self.held_bytes();
        self.release_when_freed(ctx, held);
        let target = self.config.cache_bytes / 4 * 3;
        if held <= target {
            return;
        }
        let mut idle: Vec<_> = self
            .threads
            .iter()
            .filter(|e| e.idle())
            .map(|e| {
                (
                    e.activity.last_active_ms(),
                    e.activity.bytes(),
                    *e.key(),
                    e.addr.clone(),
                )
            })
            .collect();
        idle.sort_by_key(|(at, ..)| *at);
        let mut excess = held - target;
        let mut chosen = Vec::new();
        for (_, bytes, id, addr) in idle {
            if excess == 0 {
                break;
            }
            excess = excess.saturating_sub(bytes);
            chosen.push((id, addr));
        }
        tracing::debug!(
            held,
            budget = self.config.cache_bytes,
            "over three quarters of the context byte budget"
        );
        self.evict(ctx, chosen);
    }

    /// Evicts up to `count` of the least recently active idle actors.
    fn evict_oldest(&mut self, ctx: &mut Context<Self>, count: usize) {
        let mut idle: Vec<_> = self
            .threads
            .iter()
            .filter(|e| e.idle())
            .map(|e| (e.activity.last_active_ms(), *e.key(), e.addr.clone()))
            .collect();
        idle.sort_by_key(|(at, _, _)| *at);
        let chosen = idle
            .into_iter()
            .take(count)
            .map(|(_, id, addr)| (id, addr))
            .collect();
        self.evict(ctx, chosen);
    }

    fn evict(&mut self, ctx: &mut Context<Self>, candidates: Vec<(ThreadId, Addr<ThreadActor>)>) {
        if candidates.is_empty() {
            return;
        }
        let asked = candidates.len();
        for (thread, addr) in candidates {
            let threads = Arc::clone(&self.threads);
            ctx.spawn(
                async move {
                    if let Ok(true) | Err(_) = addr.send(StopIfIdle).await {
                        threads.remove_if(&thread, |_, entry| entry.addr == addr);
                    }
                }
                .into_actor(self),
            );
        }
        tracing::info!(
            count = asked,
            live = self.threads.len(),
            "evicting idle thread actors"
        );
    }

    /// Once the actors hold an eighth of the budget less than at their peak
    /// since the last release (turns ended, actors were evicted), gives the
    /// freed memory back to the system a moment later.
    fn release_when_freed(&mut self, ctx: &mut Context<Self>, held: usize) {
        self.held_peak = self.held_peak.max(held);
        if self.release_scheduled || self.held_peak - held < self.config.cache_bytes / 8 {
            return;
        }
        self.release_scheduled = true;
        let release = self.config.release_memory;
        ctx.run_later(RELEASE_AFTER, move |registry, _| {
            registry.release_scheduled = false;
            registry.held_peak = registry.held_bytes();
            tokio::task::spawn_blocking(move || {
                let started = std::time::Instant::now();
                release();
                tracing::debug!(took = ?started.elapsed(), "gave freed memory back");
            });
        });
    }
}

impl Actor for AgentRegistry {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let every = (self.config.idle_timeout / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(30));
        ctx.run_interval(every, |registry, ctx| registry.sweep(ctx));
        ctx.run_interval(BUDGET_CHECK_EVERY, |registry, ctx| {
            registry.enforce_budget(ctx);
        });
    }
}

impl Handler<StartThread> for AgentRegistry {
    type Result = MessageResult<StartThread>;

    fn handle(&mut self, msg: StartThread, ctx: &mut Context<Self>) -> Self::Result {
        if let Some(addr) = live_actor(&self.threads, msg.thread) {
            return MessageResult(addr);
        }
        if self.threads.len() >= self.config.max_live_threads {
            let excess = self.threads.len() + 1 - self.config.max_live_threads;
            self.evict_oldest(ctx, excess);
        }
        self.enforce_budget(ctx);
        let activity = Arc::new(Activity::new(Arc::clone(&self.held)));
        let log = Arc::new(FrameLog::new(msg.thread, self.config.thread.retention));
        let actor = ThreadActor::new(
            msg.org,
            msg.thread,
            Arc::clone(&self.engine),
            Arc::clone(&activity),
            Arc::clone(&log),
            self.config.thread,
            self.shared.clone(),
        );
        let addr = match self
            .arbiters
            .get(self.next_arbiter % self.arbiters.len().max(1))
        {
            Some(arbiter) => ThreadActor::start_in_arbiter(arbiter, move |_| actor),
            None => actor.start(),
        };
        self.next_arbiter = self.next_arbiter.wrapping_add(1);
        self.threads.insert(
            msg.thread,
            ThreadEntry {
                addr: addr.clone(),
                activity,
                log,
            },
        );
        MessageResult(addr)
    }
}
