//! The caps on instances (`computer.md` §2 rule 4): an org's instances
//! (past the cap, its oldest stopped one goes) and its running ones (a
//! start past the cap stops its least recently active idle one, or waits).

use std::sync::Arc;
use std::time::{Duration, Instant};

use confer_actors::OrgId;

use super::super::instances::{Instance, InstanceId, InstanceState, StopReason};
use super::{ComputerService, PLACE_WAIT, Slot};

impl ComputerService {
    /// Keeps the org within its instance cap: past it, its oldest stopped
    /// instance goes.
    pub(super) async fn make_room_for_one(&self, org: OrgId) -> Result<(), String> {
        let instances = self.org_instances(org).await?;
        if instances.len() < self.settings.max_instances_per_org {
            return Ok(());
        }
        let oldest = instances
            .iter()
            .filter(|i| i.state == InstanceState::Stopped)
            .min_by_key(|i| i.stopped_at);
        match oldest {
            Some(oldest) => {
                self.destroy(org, oldest.id).await;
                Ok(())
            }
            None => Err(format!(
                "computer unavailable: {} instances busy",
                instances.len()
            )),
        }
    }

    /// The org's instances, as the store holds them.
    async fn org_instances(&self, org: OrgId) -> Result<Vec<Instance>, String> {
        self.store
            .run(move |s| s.org_instances(org))
            .await
            .map_err(|_| "computer unavailable: the store failed".to_string())
    }

    /// Whether the org could take one more instance: it is under its cap,
    /// or holds a stopped instance that [`Self::make_room_for_one`] would
    /// destroy. What a new code session is refused on (409), before it is
    /// stored.
    pub async fn has_room_for_one(&self, org: OrgId) -> Result<bool, String> {
        let instances = self.org_instances(org).await?;
        Ok(instances.len() < self.settings.max_instances_per_org
            || instances.iter().any(|i| i.state == InstanceState::Stopped))
    }

    /// The org's running instances other than `except`, least recently
    /// active first.
    fn org_running(&self, org: OrgId, except: InstanceId) -> Vec<(InstanceId, Arc<Slot>)> {
        let mut running: Vec<_> = self
            .live()
            .iter()
            .filter(|(id, slot)| **id != except && slot.org == org)
            .map(|(id, slot)| (*id, Arc::clone(slot)))
            .collect();
        running.sort_by_key(|(_, slot)| std::cmp::Reverse(slot.idle_for()));
        running
    }

    /// Waits for a running place in the org, stopping its least recently
    /// active idle instance when the org is at its cap.
    pub(super) async fn take_place(&self, org: OrgId, me: InstanceId) -> Result<(), String> {
        let deadline = Instant::now() + PLACE_WAIT;
        loop {
            let running = self.org_running(org, me);
            if running.len() < self.settings.max_running_per_org {
                return Ok(());
            }
            for (id, slot) in &running {
                if self.stop_slot(*id, slot, StopReason::Limit, false).await {
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "computer unavailable: {} instances busy",
                    running.len()
                ));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}
