//! How instances stop and go: the idle, limit and disabled stops, the
//! destruction of an instance (its sandbox, workspace and record), the
//! restart's marking, and the sweeps that find what is due.

use std::sync::Arc;

use chrono::Utc;
use confer_actors::{AgentId, OrgId, ThreadId};

use super::super::instances::{Instance, InstanceId, InstanceState, StopReason};
use super::{ComputerService, IDLE_SWEEP, STORE_SWEEP, Slot, VENDOR_SWEEP};

impl ComputerService {
    /// Stops a live instance for `reason`: at once when `wait`, else only
    /// when no operation holds it. Whether it stopped.
    pub(super) async fn stop_slot(
        &self,
        id: InstanceId,
        slot: &Arc<Slot>,
        reason: StopReason,
        wait: bool,
    ) -> bool {
        let guard = match wait {
            true => Some(Arc::clone(&slot.sandbox).lock_owned().await),
            false => Arc::clone(&slot.sandbox).try_lock_owned().ok(),
        };
        let Some(mut guard) = guard else {
            return false;
        };
        let sandbox = guard.take();
        {
            let mut live = self.live();
            if live.get(&id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
                live.remove(&id);
            }
        }
        drop(guard);
        if let Some(sandbox) = sandbox
            && let Some(runtime) = self.runtime(slot.kind)
        {
            runtime.stop(sandbox).await;
        }
        let retention = self.settings.retention;
        self.set_state(slot.org, id, move |i| {
            if i.is_live() {
                *i = i.clone().stopped(reason, retention);
            }
        })
        .await;
        true
    }

    /// Stops every live instance of `agent` (its computer was disabled, or
    /// it was deleted), waiting for their operations.
    pub async fn stop_agent(&self, org: OrgId, agent: AgentId, reason: StopReason) {
        let instances = self
            .store
            .run(move |s| s.org_instances(org))
            .await
            .unwrap_or_default();
        for instance in instances.into_iter().filter(|i| i.agent_id == agent) {
            let slot = self.live().get(&instance.id).cloned();
            if let Some(slot) = slot {
                self.stop_slot(instance.id, &slot, reason, true).await;
            }
        }
    }

    /// Stops the thread's live instance for `reason` (a code session
    /// marked `completed`), waiting for its operation; the workspace stays.
    pub async fn stop_thread(&self, org: OrgId, thread: ThreadId, reason: StopReason) {
        let stored = self
            .store
            .run(move |s| s.thread_instance(org, thread))
            .await;
        if let Ok(Some(instance)) = stored {
            let slot = self.live().get(&instance.id).cloned();
            if let Some(slot) = slot {
                self.stop_slot(instance.id, &slot, reason, true).await;
            }
        }
    }

    /// Stops and removes an instance: its sandbox, workspace and record.
    /// Whether there was one.
    pub async fn destroy(&self, org: OrgId, id: InstanceId) -> bool {
        let slot = self.live().get(&id).cloned();
        if let Some(slot) = slot {
            self.stop_slot(id, &slot, StopReason::Api, true).await;
        }
        let stored = self.store.run(move |s| s.instance(org, id)).await;
        if let Ok(Some(instance)) = &stored
            && let Some(runtime) = self.runtime(instance.runtime)
            && let Err(error) = runtime.destroy(id).await
        {
            tracing::warn!(%error, instance = %id, "removing a sandbox's workspace failed");
        }
        self.store
            .write(move |s| s.delete_instance(org, id))
            .await
            .unwrap_or(false)
    }

    /// The thread's instance removed (`DELETE /api/threads/{id}/computer`).
    pub async fn destroy_thread(&self, org: OrgId, thread: ThreadId) -> bool {
        let stored = self
            .store
            .run(move |s| s.thread_instance(org, thread))
            .await;
        match stored {
            Ok(Some(instance)) => self.destroy(org, instance.id).await,
            _ => false,
        }
    }

    /// At start: no sandbox survived the last process, so every instance
    /// that was live is `stopped` (`restart`).
    pub async fn after_restart(&self) {
        let instances = self
            .store
            .run(|s| s.all_instances())
            .await
            .unwrap_or_default();
        for instance in instances.into_iter().filter(Instance::is_live) {
            if let Some(runtime) = self.runtime(instance.runtime) {
                runtime.stop_left(instance.id).await;
            }
            let retention = self.settings.retention;
            self.set_state(instance.org_id, instance.id, move |i| {
                if i.is_live() {
                    *i = i.clone().stopped(StopReason::Restart, retention);
                }
            })
            .await;
        }
    }

    /// Stops live instances idle past their timeout (or whose sandbox
    /// ended by itself).
    async fn sweep_idle(&self) {
        let slots: Vec<_> = self
            .live()
            .iter()
            .map(|(id, slot)| (*id, Arc::clone(slot)))
            .collect();
        for (id, slot) in slots {
            let timeout = *slot.idle_timeout.lock().unwrap_or_else(|p| p.into_inner());
            let dead = slot
                .sandbox
                .try_lock()
                .is_ok_and(|s| s.as_ref().is_some_and(|s| !s.is_alive()));
            if dead {
                self.stop_slot(id, &slot, StopReason::Error, false).await;
            } else if slot.idle_for() >= timeout {
                self.stop_slot(id, &slot, StopReason::Idle, false).await;
            }
        }
    }

    /// Destroys stopped instances past their retention, and those whose
    /// thread is gone.
    async fn sweep_store(&self) {
        let Ok(instances) = self.store.run(|s| s.all_instances()).await else {
            return;
        };
        let now = Utc::now();
        for instance in instances {
            let due = instance.delete_due_at.is_some_and(|due| due <= now)
                && instance.state == InstanceState::Stopped;
            let (org, thread) = (instance.org_id, instance.thread_id);
            let orphaned = match thread {
                Some(thread) => self
                    .store
                    .run(move |s| crate::store::SledStore::thread(s, org, thread))
                    .await
                    .is_ok_and(|t| t.is_none()),
                None => false,
            };
            if due || orphaned {
                self.destroy(org, instance.id).await;
            }
        }
    }

    /// Has each hosted runtime destroy the sandboxes tagged with this
    /// installation that no stored instance names (a crash between the
    /// vendor's create and the record, or a record purged by hand).
    async fn sweep_vendors(&self) {
        let Ok(instances) = self.store.run(|s| s.all_instances()).await else {
            return;
        };
        let named: std::collections::HashSet<InstanceId> = instances.iter().map(|i| i.id).collect();
        for runtime in [&self.e2b, &self.daytona].into_iter().flatten() {
            match runtime.sweep_orphans(&named).await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(
                    swept,
                    runtime = runtime.kind().name(),
                    "orphaned sandboxes destroyed"
                ),
                Err(reason) => tracing::warn!(%reason, "sweeping orphaned sandboxes failed"),
            }
        }
    }

    /// Runs the sweeps until the process ends.
    pub fn start_sweeps(self: &Arc<Self>) {
        let service = Arc::clone(self);
        tokio::spawn(async move {
            let mut idle = tokio::time::interval(IDLE_SWEEP);
            let mut stored = tokio::time::interval(STORE_SWEEP);
            let mut vendors = tokio::time::interval(VENDOR_SWEEP);
            idle.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            stored.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            vendors.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = idle.tick() => service.sweep_idle().await,
                    _ = stored.tick() => service.sweep_store().await,
                    _ = vendors.tick() => service.sweep_vendors().await,
                }
            }
        });
    }
}
