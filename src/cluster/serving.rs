//! A serving node's part in the cluster (`scale.md` §3, §5): it joins
//! when `serve` starts on PostgreSQL, runs the stored jobs due in the
//! shards it owns, tells who did the work (`X-Confer-Node`), answers
//! `GET /api/admin/cluster`, and leaves at shutdown.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use confer_actors::{Fence, Runtime};
use serde::Serialize;
use tokio::task::JoinHandle;

use super::node::{ClusterNode, ROUND};
use super::nodes::NodeSettings;
use super::signing::ClusterKey;
use super::{NodeId, Shard};
use crate::settings::Settings;
use crate::store::Store;
use crate::store::pg::PgStore;

/// How long the busy shards read from the runtime are reused: the lease
/// plan asks once per shard it might hand over.
const BUSY_FOR: Duration = Duration::from_millis(500);

/// This node in the cluster, while it serves.
pub struct Membership {
    node: Arc<ClusterNode>,
    jobs: JoinHandle<()>,
    caches: JoinHandle<()>,
    losses: JoinHandle<()>,
    /// Signs and checks forwarded requests.
    key: ClusterKey,
    /// Calls the other nodes (`forward::peer_client`).
    client: reqwest::Client,
    /// Wakes the node's services on the cluster's notifications.
    doorbell: Arc<super::doorbell::Doorbell>,
}

impl Drop for Membership {
    fn drop(&mut self) {
        self.jobs.abort();
        self.caches.abort();
        self.losses.abort();
    }
}

/// The node's leases as the engine takes them ([`confer_actors::Leases`]):
/// set once the node has joined, since the engine is made before the
/// runtime that joining needs. Unset, every write fails (`Fenced`).
#[derive(Default)]
pub struct NodeLeases(OnceLock<(Arc<ClusterNode>, PgStore)>);

impl confer_actors::Leases for NodeLeases {
    fn fence(&self, thread: confer_actors::ThreadId) -> Fence {
        let shard = Shard::of(thread);
        let unheld = Fence {
            node: uuid::Uuid::nil(),
            shard: shard.number(),
            epoch: -1,
        };
        let Some((node, _)) = self.0.get() else {
            return unheld;
        };
        let me = node.id();
        match node.owner(shard) {
            Some((owner, epoch)) if owner == me => Fence {
                node: me.0,
                shard: shard.number(),
                epoch,
            },
            _ => Fence {
                node: me.0,
                ..unheld
            },
        }
    }

    fn admits_turns(&self) -> bool {
        self.0.get().is_some_and(|(node, _)| node.admits_turns())
    }

    fn take_org_slot(
        &self,
        org: confer_actors::OrgId,
        waiting: Vec<(confer_actors::ThreadId, u64)>,
        limit: usize,
    ) -> confer_actors::StoreFuture<confer_actors::OrgTurns> {
        let joined = self.0.get().map(|(node, pg)| (node.id().0, pg.clone()));
        Box::pin(async move {
            let Some((me, pg)) = joined else {
                // Not joined yet: nothing is taken, every turn waits.
                let positions = (1..=waiting.len()).collect();
                return Ok(confer_actors::OrgTurns {
                    taken: false,
                    positions,
                });
            };
            pg.take_org_slot(org, me, &waiting, limit).await
        })
    }

    fn leave_org_queue(
        &self,
        _: confer_actors::OrgId,
        thread: confer_actors::ThreadId,
        turn: u64,
    ) -> confer_actors::StoreFuture<()> {
        let pg = self.0.get().map(|(_, pg)| pg.clone());
        Box::pin(async move {
            match pg {
                Some(pg) => pg.leave_org_queue(thread, turn).await,
                None => Ok(()),
            }
        })
    }

    fn give_org_slot(
        &self,
        _: confer_actors::OrgId,
        thread: confer_actors::ThreadId,
    ) -> confer_actors::StoreFuture<()> {
        let joined = self.0.get().map(|(node, pg)| (node.id().0, pg.clone()));
        Box::pin(async move {
            match joined {
                Some((me, pg)) => pg.give_org_slot(thread, me).await,
                None => Ok(()),
            }
        })
    }
}

/// Each time the node finds its lease lost, drops every thread actor
/// (`scale.md` §3.2): their fences name the lost registration.
async fn loss_loop(mut lost: tokio::sync::watch::Receiver<u64>, runtime: Runtime) {
    while lost.changed().await.is_ok() {
        let dropped = runtime.lose_leases().await;
        tracing::warn!(
            dropped,
            "the node lost its lease: its thread actors are dropped"
        );
    }
}

/// The shards with a live thread actor, read at most every [`BUSY_FOR`]:
/// such a shard is not handed to another node (an actor with nothing
/// running or queued is evicted after its idle timeout). Once the node is
/// shutting down, only a running or queued turn holds a shard: the node
/// hands the rest over at once, and each busy one as its turns end
/// (`scale.md` §3.8).
fn idle_shards(runtime: Runtime) -> impl Fn(Shard) -> bool + Send + Sync {
    // The set, when it was read, and whether the node was closing then: a
    // set read before the close counts idle actors, so it is read again.
    type Held = (Instant, bool, HashSet<Shard>);
    let busy: Mutex<Option<Held>> = Mutex::new(None);
    move |shard| {
        let mut busy = busy.lock().unwrap_or_else(|p| p.into_inner());
        let closing = runtime.is_closing();
        let fresh = busy.as_ref().is_some_and(|(at, when_closing, _)| {
            at.elapsed() < BUSY_FOR && *when_closing == closing
        });
        if !fresh {
            let threads = if closing {
                runtime.busy_thread_ids()
            } else {
                runtime.live_thread_ids()
            };
            let shards = threads.into_iter().map(Shard::of).collect();
            *busy = Some((Instant::now(), closing, shards));
        }
        busy.as_ref()
            .is_none_or(|(_, _, shards)| !shards.contains(&shard))
    }
}

/// The shards `node` owns, as it last read them.
fn owned(node: &ClusterNode) -> Vec<Shard> {
    let (me, view) = (node.id(), node.view());
    Shard::all()
        .filter(|shard| view.map.owner(*shard).is_some_and(|(owner, _)| owner == me))
        .collect()
}

/// Each round, runs the stored jobs due in the node's shards (purges of
/// deleted threads so far), and every `SWEEP_INTERVAL` the store's upkeep
/// (`PgStore::sweep`, one node at a time), until the node is gone.
async fn job_loop(pg: PgStore, node: Weak<ClusterNode>, trace_retention: chrono::TimeDelta) {
    let mut ticks = tokio::time::interval(ROUND);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut swept: Option<Instant> = None;
    loop {
        ticks.tick().await;
        if swept.is_none_or(|at| at.elapsed() >= crate::store::purge::SWEEP_INTERVAL) {
            swept = Some(Instant::now());
            match pg.sweep(trace_retention, chrono::Utc::now()).await {
                Ok(Some(removed)) if removed != Default::default() => {
                    tracing::info!(?removed, "swept the store");
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "sweeping the store failed"),
            }
        }
        let Some(node) = node.upgrade() else { return };
        let (me, mine) = (node.id(), owned(&node));
        drop(node);
        if mine.is_empty() {
            continue;
        }
        match pg.run_due_purges(me, &mine).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "purged deleted threads"),
            Err(error) => tracing::warn!(%error, "running the due jobs failed"),
        }
    }
}

/// `GET /api/admin/cluster`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ClusterReport {
    /// `postgres` or `sled`.
    pub store: &'static str,
    /// This node's id (`null` on sled).
    pub node: Option<uuid::Uuid>,
    pub nodes: Vec<NodeReport>,
    /// Shards with no live owner.
    pub orphaned_shards: usize,
}

/// One live node as `GET /api/admin/cluster` lists it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NodeReport {
    pub id: uuid::Uuid,
    pub name: String,
    pub url: String,
    pub heartbeat_at: chrono::DateTime<chrono::Utc>,
    pub draining: bool,
    /// How many shards it owns.
    pub shards: usize,
}

impl ClusterReport {
    /// A sled store's: one node, no cluster.
    pub fn sled() -> Self {
        Self {
            store: "sled",
            node: None,
            nodes: Vec::new(),
            orphaned_shards: 0,
        }
    }
}

impl Membership {
    /// Joins the cluster when `store` is PostgreSQL (`None` on sled): the
    /// first round has run when this returns, so a lone node owns every
    /// shard before it serves.
    pub async fn join(
        settings: &Settings,
        bound: std::net::SocketAddr,
        store: &Store,
        runtime: &Runtime,
        leases: &NodeLeases,
        cached: super::caches::Cached,
    ) -> anyhow::Result<Option<Self>> {
        let Some(pg) = store.postgres() else {
            return Ok(None);
        };
        let node_settings =
            NodeSettings::from_settings(settings, bound).map_err(anyhow::Error::msg)?;
        let node = Arc::new(
            ClusterNode::join(
                pg.database().clone(),
                node_settings,
                Box::new(idle_shards(runtime.clone())),
            )
            .await?,
        );
        let _ = leases.0.set((Arc::clone(&node), pg.clone())); // joined once per process
        let retention = chrono::TimeDelta::days(i64::from(settings.trace_retention_days.max(1)));
        let jobs = tokio::spawn(job_loop(pg.clone(), Arc::downgrade(&node), retention));
        let drops = super::caches::dropping(cached, runtime.clone(), store.clone());
        let caches = tokio::spawn(super::caches::cache_loop(pg.clone(), drops));
        let losses = tokio::spawn(loss_loop(node.lost_leases(), runtime.clone()));
        let doorbell = super::doorbell::Doorbell::start(pg.database().clone());
        let slots = Arc::clone(runtime.org_slots());
        doorbell.on(super::doorbell::ORG_SLOTS, Box::new(move || slots.ring()));
        Ok(Some(Self {
            node,
            jobs,
            caches,
            losses,
            key: ClusterKey::of_store(store),
            client: super::forward::peer_client()?,
            doorbell,
        }))
    }

    /// The node's doorbell, where services add what a notification wakes.
    pub fn doorbell(&self) -> &super::doorbell::Doorbell {
        &self.doorbell
    }

    /// This node's id now (`X-Confer-Node`).
    pub fn id(&self) -> NodeId {
        self.node.id()
    }

    /// The live owner of `shard` and its epoch, as last read.
    pub fn owner(&self, shard: Shard) -> Option<(NodeId, i64)> {
        self.node.owner(shard)
    }

    /// Where the owner of `shard` is reached, and the epoch it holds.
    pub fn owner_url(&self, shard: Shard) -> Option<(String, i64)> {
        self.node.owner_url(shard)
    }

    /// The shards it owns, as it last read them.
    pub fn shards(&self) -> Vec<Shard> {
        owned(&self.node)
    }

    /// This node's id and the shards it owns while the node is up (a
    /// job loop's round holds no strong reference between rounds);
    /// `None` once it is gone.
    pub fn claimant(membership: &std::sync::Weak<Self>) -> Option<(NodeId, Vec<Shard>)> {
        let node = membership.upgrade()?;
        Some((node.id(), node.shards()))
    }

    /// How many nodes are live, as last read (at least this one).
    pub fn live_nodes(&self) -> usize {
        self.node.live_nodes()
    }

    /// The key forwarded requests are signed with.
    pub fn key(&self) -> &ClusterKey {
        &self.key
    }

    /// The node-to-node client.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The cluster as this node last read it.
    pub fn report(&self) -> ClusterReport {
        let view = self.node.view();
        let counts = view.map.counts();
        ClusterReport {
            store: "postgres",
            node: Some(self.node.id().0),
            nodes: view
                .nodes
                .iter()
                .map(|n| NodeReport {
                    id: n.id.0,
                    name: n.name.clone(),
                    url: n.url.clone(),
                    heartbeat_at: n.heartbeat_at,
                    draining: n.draining,
                    shards: counts.get(&n.id).copied().unwrap_or(0),
                })
                .collect(),
            orphaned_shards: view.map.orphaned(),
        }
    }

    /// Leaves at shutdown, once the turns have ended: the idle shards go
    /// back at once, the rest with the node's row within `timeout`.
    pub async fn leave(&self, timeout: Duration) {
        self.jobs.abort();
        if let Err(error) = self.node.leave(timeout).await {
            tracing::warn!(%error, "leaving the cluster failed; peers take its shards after its lease");
        }
    }
}
