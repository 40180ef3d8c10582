//! The instances' lifecycle (`computer.md` §2): one instance per thread,
//! made by its first call; one operation at a time on it (FIFO, at most 8
//! waiting); the per-org and per-host running caps; the idle stop, the
//! resume, the retention and the restart. The runtime is behind
//! [`SandboxRuntime`]; what is stored is [`Instance`].

mod availability;
mod caps;
mod stopping;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::{AgentId, OrgId, RuntimeProvider, ThreadId};
use tokio::sync::OwnedMutexGuard;

pub use self::availability::{Availability, Fallback, LocalMode};
use super::config::ComputerConfig;
use super::instances::{Instance, InstanceId, InstanceState};
use super::runtime::{RunningSandbox, RuntimeKind, SandboxRuntime, StartSpec};
use crate::store::Store;
use crate::store::computer::InstanceCreated;
use crate::store::update::Updated;

/// How many operations may wait for an instance (`computer.md` §2 rule 5).
const MAX_WAITING: usize = 8;
/// How long a start waits for a running place in its org.
const PLACE_WAIT: Duration = Duration::from_secs(60);
/// How often live instances are checked for idleness.
const IDLE_SWEEP: Duration = Duration::from_secs(1);
/// How often stored instances are checked for retention and their thread.
const STORE_SWEEP: Duration = Duration::from_secs(10);
/// How often hosted vendors are asked for sandboxes no instance names
/// (the first at start).
const VENDOR_SWEEP: Duration = Duration::from_secs(3600);

/// The lifecycle's settings.
#[derive(Clone, Debug)]
pub struct ComputerSettings {
    pub fallback: Fallback,
    pub e2b_key: bool,
    pub daytona_key: bool,
    pub max_running_per_org: usize,
    pub max_instances_per_org: usize,
    pub max_running: usize,
    pub retention: chrono::Duration,
}

/// An instance's place in memory while it runs or is asked for.
struct Slot {
    org: OrgId,
    /// The runtime its sandbox runs on.
    kind: RuntimeKind,
    sandbox: Arc<tokio::sync::Mutex<Option<Box<dyn RunningSandbox>>>>,
    waiting: AtomicUsize,
    last_active: Mutex<Instant>,
    idle_timeout: Mutex<Duration>,
}

impl Slot {
    fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.last_active
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }
}

/// One operation waiting for its instance, counted while it waits.
struct Waiting<'a>(&'a Slot);

impl<'a> Waiting<'a> {
    /// `None` when [`MAX_WAITING`] already wait.
    fn enter(slot: &'a Slot) -> Option<Self> {
        if slot.waiting.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING {
            slot.waiting.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Self(slot))
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The running sandbox of a thread, held for one operation.
pub struct Lease {
    pub instance: Instance,
    guard: OwnedMutexGuard<Option<Box<dyn RunningSandbox>>>,
    slot: Arc<Slot>,
}

impl Lease {
    /// The sandbox (present for as long as the lease is held).
    pub fn sandbox(&self) -> Option<&dyn RunningSandbox> {
        self.guard.as_deref()
    }
}

/// The runtimes this node has: the bubblewrap one unless host execution
/// is off, and a hosted vendor's when its key is set.
#[derive(Default)]
pub struct Runtimes {
    pub local: Option<Arc<dyn SandboxRuntime>>,
    pub e2b: Option<Arc<dyn SandboxRuntime>>,
    pub daytona: Option<Arc<dyn SandboxRuntime>>,
}

/// The computer instances of this node.
pub struct ComputerService {
    store: Store,
    local: Option<Arc<dyn SandboxRuntime>>,
    e2b: Option<Arc<dyn SandboxRuntime>>,
    daytona: Option<Arc<dyn SandboxRuntime>>,
    settings: ComputerSettings,
    live: Mutex<HashMap<InstanceId, Arc<Slot>>>,
}

impl ComputerService {
    /// The lifecycle over `runtimes`.
    pub fn new(store: Store, runtimes: Runtimes, settings: ComputerSettings) -> Arc<Self> {
        Arc::new(Self {
            store,
            local: runtimes.local,
            e2b: runtimes.e2b,
            daytona: runtimes.daytona,
            settings,
            live: Mutex::default(),
        })
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<InstanceId, Arc<Slot>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The runtime of `kind`, when this node has it.
    fn runtime(&self, kind: RuntimeKind) -> Option<&Arc<dyn SandboxRuntime>> {
        match kind {
            RuntimeKind::Local => self.local.as_ref(),
            RuntimeKind::E2b => self.e2b.as_ref(),
            RuntimeKind::Daytona => self.daytona.as_ref(),
        }
    }

    /// The thread's instance ready for one operation: made and started,
    /// or resumed, as needed. The error is the tool's error result.
    pub async fn acquire(
        &self,
        org: OrgId,
        agent: AgentId,
        thread: ThreadId,
        provider: RuntimeProvider,
        config: &ComputerConfig,
    ) -> Result<Lease, String> {
        let instance = self
            .instance_of(org, agent, thread, provider, config)
            .await?;
        let slot = self.slot(&instance, config)?;
        let guard = {
            // Counted out again however the wait ends (a stopped turn
            // drops it).
            let waiting = Waiting::enter(&slot).ok_or("computer busy")?;
            let guard = Arc::clone(&slot.sandbox).lock_owned().await;
            drop(waiting);
            guard
        };
        let mut lease = Lease {
            instance,
            guard,
            slot,
        };
        if lease.guard.as_ref().is_some_and(|s| s.is_alive()) {
            return Ok(lease);
        }
        self.start(&mut lease, config).await?;
        Ok(lease)
    }

    /// The thread's stored instance, or a new one (flushed before it
    /// starts).
    async fn instance_of(
        &self,
        org: OrgId,
        agent: AgentId,
        thread: ThreadId,
        provider: RuntimeProvider,
        config: &ComputerConfig,
    ) -> Result<Instance, String> {
        let stored = self
            .store
            .run(move |s| s.thread_instance(org, thread))
            .await
            .map_err(|_| "computer unavailable: the store failed".to_string())?;
        if let Some(instance) = stored {
            return Ok(instance);
        }
        let availability = self.availability(provider).await;
        let (Some(runtime), None) = (availability.runtime, availability.reason.clone()) else {
            return Err(format!(
                "computer unavailable: {}",
                availability.reason.unwrap_or_default()
            ));
        };
        self.make_room_for_one(org).await?;
        let instance = Instance::new(
            org,
            agent,
            thread,
            runtime,
            config.size_class,
            config.network.mode,
        );
        let created = self
            .store
            .write(move |s| s.create_instance(&instance))
            .await
            .map_err(|_| "computer unavailable: the store failed".to_string())?;
        Ok(match created {
            InstanceCreated::Created(instance) | InstanceCreated::Exists(instance) => instance,
        })
    }

    /// The instance's slot, made when it has none (the host's cap bounds
    /// how many exist).
    fn slot(&self, instance: &Instance, config: &ComputerConfig) -> Result<Arc<Slot>, String> {
        let mut live = self.live();
        if let Some(slot) = live.get(&instance.id) {
            *slot.idle_timeout.lock().unwrap_or_else(|p| p.into_inner()) =
                Duration::from_secs(config.idle_timeout_secs);
            return Ok(Arc::clone(slot));
        }
        if live.len() >= self.settings.max_running {
            return Err(format!(
                "computer unavailable: {} instances busy",
                live.len()
            ));
        }
        let slot = Arc::new(Slot {
            org: instance.org_id,
            kind: instance.runtime,
            sandbox: Arc::default(),
            waiting: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
            idle_timeout: Mutex::new(Duration::from_secs(config.idle_timeout_secs)),
        });
        live.insert(instance.id, Arc::clone(&slot));
        Ok(slot)
    }

    /// Starts (or resumes) the lease's sandbox.
    async fn start(&self, lease: &mut Lease, config: &ComputerConfig) -> Result<(), String> {
        let (org, id) = (lease.instance.org_id, lease.instance.id);
        let Some(runtime) = self.runtime(lease.instance.runtime).cloned() else {
            return Err("computer unavailable: its runtime is not available here".into());
        };
        if let Err(reason) = self.take_place(org, id).await {
            self.forget_if_idle(id, &lease.slot);
            return Err(reason);
        }
        let fresh = lease.instance.started_at.is_none();
        let spec = StartSpec {
            instance: id,
            size: lease.instance.size_class,
            ttl_secs: config.idle_timeout_secs + config.max_command_secs + 60,
            network: config.network.clone(),
        };
        self.set_state(org, id, |i| {
            i.state = InstanceState::Starting;
            i.error = None;
        })
        .await;
        let began = Instant::now();
        let started = match fresh {
            true => runtime.start(spec).await,
            false => match runtime.resume(spec.clone()).await {
                Ok(sandbox) => Ok(sandbox),
                // The workspace went (removed by hand, say): start afresh.
                Err(_) => runtime.start(spec).await,
            },
        };
        match started {
            Ok(sandbox) => {
                crate::computer::metrics::started(lease.instance.runtime, !fresh, began.elapsed());
                *lease.guard = Some(sandbox);
                lease.slot.touch();
                if let Some(instance) = self
                    .set_state(org, id, |i| {
                        let now = Utc::now();
                        i.state = InstanceState::Running;
                        i.started_at.get_or_insert(now);
                        i.last_active_at = now;
                        i.stopped_at = None;
                        i.stop_reason = None;
                        i.delete_due_at = None;
                    })
                    .await
                {
                    lease.instance = instance;
                }
                Ok(())
            }
            Err(reason) => {
                let error = format!("computer failed to start: {reason}");
                let message = error.clone();
                self.set_state(org, id, move |i| {
                    i.state = InstanceState::Failed;
                    i.error = Some(message.clone());
                })
                .await;
                self.forget_if_idle(id, &lease.slot);
                Err(error)
            }
        }
    }

    /// Drops an instance's slot when nothing runs in it or waits for it.
    fn forget_if_idle(&self, id: InstanceId, slot: &Arc<Slot>) {
        if slot.waiting.load(Ordering::Acquire) == 0 {
            let mut live = self.live();
            if live.get(&id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
                live.remove(&id);
            }
        }
    }

    /// Changes a stored instance; the record as stored.
    async fn set_state(
        &self,
        org: OrgId,
        id: InstanceId,
        change: impl Fn(&mut Instance) + Send + 'static,
    ) -> Option<Instance> {
        let updated = self
            .store
            .run(move |s| {
                s.update_instance(org, id, |mut i| {
                    change(&mut i);
                    Ok::<_, ()>(i)
                })
            })
            .await;
        match updated {
            Ok(Updated::Stored(instance)) => Some(instance),
            Ok(_) => None,
            Err(error) => {
                tracing::error!(%error, "storing a computer instance's state failed");
                None
            }
        }
    }

    /// Records one operation done on the lease's instance.
    pub async fn finish(&self, lease: Lease, command: bool) {
        lease.slot.touch();
        let (org, id) = (lease.instance.org_id, lease.instance.id);
        drop(lease);
        self.set_state(org, id, move |i| {
            i.last_active_at = Utc::now();
            if command {
                i.command_count += 1;
            }
        })
        .await;
    }
}
