//! The run worker (`runners.md` Runs): starts queued runs oldest first,
//! at most `max_concurrent_runs` of a runner at once (and
//! [`MAX_RUNNING`] in all), and drives each through turns on its hidden
//! thread as a client would: it posts the rendered instruction to the
//! thread's actor and reads the turn's frames from the log (the turn never
//! waits for it). After each turn it writes the run's new state (flushed)
//! and tells the events streams. At start, a run left `running` by a
//! crash or a shutdown is queued again; after [`MAX_RESTARTS`] it fails
//! `INTERRUPTED`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::{OrgId, PriceTable, RunId, RunnerId, Runtime, StoreError};
use tokio::sync::{Notify, broadcast};

use super::{MAX_RESTARTS, RunError, RunRecord, RunStatus, Runner};
use crate::store::Store;
use crate::store::update::Updated;

/// Runs running at once on this server, whatever their runners allow.
pub const MAX_RUNNING: usize = 256;
/// Queued runs looked at per pass.
const QUEUE_PAGE: usize = 512;
/// Status changes kept for events streams that fall behind.
const CHANGES_KEPT: usize = 1_024;

/// Starts and drives runs; tells the events streams of every change.
pub struct RunWorker {
    pub(super) store: Store,
    pub(super) runtime: Runtime,
    pub(super) prices: Arc<PriceTable>,
    /// The provider of model names no provider claims (for prices).
    pub(super) fallback_provider: String,
    wake: Notify,
    /// Running runs per runner (bounded by [`MAX_RUNNING`] in all).
    running: Mutex<HashMap<RunnerId, usize>>,
    changes: broadcast::Sender<Arc<RunRecord>>,
}

/// Finishes the runner deletions a crash interrupted: before any run is
/// dispatched (`store::runners::deletion`).
pub async fn finish_deletions(store: &Store) -> Result<(), StoreError> {
    let finished = store
        .write_or_default(|s| s.finish_runner_deletions())
        .await?;
    if finished > 0 {
        tracing::warn!(finished, "finished runner deletions a stop interrupted");
    }
    Ok(())
}

impl RunWorker {
    /// Starts the worker: requeues interrupted runs, then dispatches.
    pub fn start(
        store: Store,
        runtime: Runtime,
        prices: Arc<PriceTable>,
        fallback_provider: String,
    ) -> Arc<Self> {
        let (changes, _) = broadcast::channel(CHANGES_KEPT);
        let worker = Arc::new(Self {
            store,
            runtime,
            prices,
            fallback_provider,
            wake: Notify::new(),
            running: Mutex::new(HashMap::new()),
            changes,
        });
        let looping = Arc::clone(&worker);
        if worker.store.is_postgres() {
            return worker; // runs are not kept in PostgreSQL yet
        }
        tokio::spawn(async move {
            if let Err(error) = looping.recover().await {
                tracing::error!(%error, "requeueing interrupted runs failed");
            }
            looping.dispatch_loop().await;
        });
        worker
    }

    /// Every run change from now on (a stream that lags reads the store).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<RunRecord>> {
        self.changes.subscribe()
    }

    /// Tells the worker a run was queued, and the streams of `run`.
    pub fn changed(&self, run: &RunRecord) {
        let _ = self.changes.send(Arc::new(run.clone()));
        if run.status == RunStatus::Queued {
            self.wake.notify_one();
        }
    }

    fn running_now(&self) -> std::sync::MutexGuard<'_, HashMap<RunnerId, usize>> {
        // A poisoned lock only means a panic elsewhere; the counts stay valid.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs found `running` at start: queued again, or failed past the
    /// restarts allowed. Waiting runs past their expiry: `expired`.
    async fn recover(&self) -> Result<(), confer_actors::StoreError> {
        let open = self.store.run(|s| s.open_runs()).await?;
        for (org, id) in open {
            let changed = self
                .store
                .write(move |s| {
                    s.change_run(org, id, |run| {
                        if run.status != RunStatus::Running {
                            return Err(());
                        }
                        if run.attempt > MAX_RESTARTS {
                            end(run, RunStatus::Failed);
                            run.error = Some(RunError {
                                code: "INTERRUPTED".into(),
                                detail: format!(
                                    "the run was interrupted {MAX_RESTARTS} times by restarts"
                                ),
                            });
                        } else {
                            run.attempt += 1;
                            run.status = RunStatus::Queued;
                        }
                        Ok(())
                    })
                })
                .await?;
            if let Updated::Stored(run) = changed {
                self.changed(&run);
            }
        }
        Ok(())
    }

    async fn dispatch_loop(self: Arc<Self>) {
        let mut last_expiry = Instant::now();
        loop {
            if self.runtime.is_closing() {
                return;
            }
            if let Err(error) = self.dispatch().await {
                tracing::error!(%error, "starting queued runs failed");
            }
            if last_expiry.elapsed() >= Duration::from_secs(5) {
                last_expiry = Instant::now();
                if let Err(error) = self.expire().await {
                    tracing::error!(%error, "expiring waiting runs failed");
                }
            }
            let _ = tokio::time::timeout(Duration::from_secs(1), self.wake.notified()).await;
        }
    }

    /// Starts the queued runs their runners have room for, oldest first.
    async fn dispatch(self: &Arc<Self>) -> Result<(), confer_actors::StoreError> {
        let queued = self.store.run(|s| s.queue_entries(QUEUE_PAGE)).await?;
        let mut runners: HashMap<RunnerId, Option<Runner>> = HashMap::new();
        for (org, id, runner_id) in queued {
            if self.running_now().values().sum::<usize>() >= MAX_RUNNING {
                return Ok(());
            }
            // A full (or gone) runner's run is skipped unread: with a deep
            // queue, every run ending wakes this loop.
            if let Some(Some(runner)) = runner_id.map(|r| runners.get(&r)) {
                let full = runner.as_ref().is_none_or(|r| {
                    self.running_now().get(&r.id).copied().unwrap_or(0)
                        >= r.max_concurrent_runs as usize
                });
                if full {
                    continue;
                }
            }
            let read = self
                .store
                .run(move |s| {
                    let Some(run) = s.run(org, id)? else {
                        return Ok(None);
                    };
                    let waits = crate::scheduler::due::waits_for(s, &run)?;
                    Ok(Some((run, waits)))
                })
                .await?;
            let Some((run, None)) = read else {
                // Gone, or waiting for an earlier run of its schedule.
                continue;
            };
            let runner = match runners.get(&run.runner_id) {
                Some(runner) => runner.clone(),
                None => {
                    let runner_id = run.runner_id;
                    let runner = self.store.run(move |s| s.runner(org, runner_id)).await?;
                    runners.insert(runner_id, runner.clone());
                    runner
                }
            };
            let Some(runner) = runner.filter(|r| r.deleted_at.is_none()) else {
                continue;
            };
            let room = {
                let mut running = self.running_now();
                let count = running.entry(runner.id).or_insert(0);
                if *count >= runner.max_concurrent_runs as usize {
                    false
                } else {
                    *count += 1;
                    true
                }
            };
            if !room {
                continue;
            }
            let thread = run.thread(&runner);
            let started = self
                .store
                .write(move |s| {
                    // A schedule's run is made without its thread (the
                    // firing's transaction holds the runs only).
                    if s.thread(org, thread.id)?.is_none() {
                        s.create_thread(&thread, None)?;
                    }
                    s.change_run(org, id, |run| {
                        if run.status != RunStatus::Queued {
                            return Err(());
                        }
                        run.status = RunStatus::Running;
                        run.started_at.get_or_insert_with(Utc::now);
                        Ok(())
                    })
                })
                .await;
            match started {
                Ok(Updated::Stored(run)) => {
                    self.changed(&run);
                    let worker = Arc::clone(self);
                    tokio::spawn(async move {
                        let runner_id = runner.id;
                        worker.drive(run, runner).await;
                        worker.release(runner_id);
                        worker.wake.notify_one();
                    });
                }
                other => {
                    self.release(runner.id);
                    other?;
                }
            }
        }
        Ok(())
    }

    fn release(&self, runner: RunnerId) {
        let mut running = self.running_now();
        if let Some(count) = running.get_mut(&runner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                running.remove(&runner);
            }
        }
    }

    /// Waiting runs past `expires_at` become `expired`.
    async fn expire(&self) -> Result<(), confer_actors::StoreError> {
        let open = self.store.run(|s| s.open_runs()).await?;
        let now = Utc::now();
        for (org, id) in open {
            let changed = self
                .store
                .write(move |s| {
                    s.change_run(org, id, |run| {
                        if !run.status.is_waiting() || run.expires_at.is_none_or(|at| at > now) {
                            return Err(());
                        }
                        end(run, RunStatus::Expired);
                        Ok(())
                    })
                })
                .await?;
            if let Updated::Stored(run) = changed {
                self.changed(&run);
            }
        }
        Ok(())
    }

    /// Changes the stored run (it may have been cancelled meanwhile: a
    /// cancelled run is never written back); the run as stored.
    pub(super) async fn save(
        &self,
        run: &RunRecord,
        change: impl Fn(&mut RunRecord) + Send + 'static,
    ) -> Option<RunRecord> {
        let (org, id) = (run.org_id, run.id);
        let saved = self
            .store
            .write(move |s| {
                s.change_run(org, id, |r| {
                    if r.status.is_terminal() {
                        return Err(());
                    }
                    change(r);
                    Ok(())
                })
            })
            .await;
        match saved {
            Ok(Updated::Stored(run)) => {
                self.changed(&run);
                Some(run)
            }
            Ok(_) => None,
            Err(error) => {
                tracing::error!(%error, run = %id, "storing a run's change failed");
                None
            }
        }
    }

    /// The refusal of `budget` for `model`, if it sets a cost limit the
    /// model has no price for.
    pub fn unpriced(&self, budget: &super::Budget, model: &str) -> Option<String> {
        super::budget::unpriced_cost_limit(budget, model, &self.prices, &self.fallback_provider)
    }

    /// The budget limit `run` would break with its next call, read now
    /// (a paused run resumes only without one).
    pub async fn limit_now(
        &self,
        run: &RunRecord,
    ) -> Result<Option<&'static str>, confer_actors::StoreError> {
        let (prices, run) = (Arc::clone(&self.prices), run.clone());
        let ran_ms = run.progress.ran_ms;
        self.store
            .run(move |s| super::budget::limit_now(s, &prices, &run, ran_ms, &[]))
            .await
    }

    /// Cancels a run: a waiting or queued one at once, a running one by
    /// stopping its turn (the worker then ends it `cancelled`). Whether
    /// the run is (or will be) cancelled; `None` if there is no such run.
    pub async fn cancel(&self, org: OrgId, id: RunId) -> Result<Option<RunRecord>, CancelRefusal> {
        let changed = self
            .store
            .write(move |s| {
                s.change_run(org, id, |run| match run.status {
                    RunStatus::Cancelled => Err(CancelRefusal::Already),
                    s if s.is_terminal() => Err(CancelRefusal::Ended(s)),
                    RunStatus::Running => {
                        run.progress.cancel_requested = true;
                        Ok(())
                    }
                    _ => {
                        end(run, RunStatus::Cancelled);
                        run.status_reason = Some("cancelled".into());
                        Ok(())
                    }
                })
            })
            .await
            .map_err(CancelRefusal::Store)?;
        match changed {
            Updated::Stored(run) => {
                if run.status == RunStatus::Running {
                    let _ = self.runtime.stop(run.thread_id, true).await;
                }
                self.changed(&run);
                Ok(Some(run))
            }
            Updated::Refused(CancelRefusal::Already) => {
                Ok(self.store.run(move |s| s.run(org, id)).await.ok().flatten())
            }
            Updated::Refused(refusal) => Err(refusal),
            Updated::Gone => Ok(None),
        }
    }
}

/// Why a cancel was refused.
#[derive(Debug)]
pub enum CancelRefusal {
    /// Cancelled already (answered 200).
    Already,
    /// Another terminal status (409).
    Ended(RunStatus),
    Store(confer_actors::StoreError),
}

/// Ends `run` in `status` now.
pub(super) fn end(run: &mut RunRecord, status: RunStatus) {
    run.status = status;
    run.ended_at = Some(Utc::now());
    run.expires_at = None;
    run.pending_tool_calls.clear();
}
