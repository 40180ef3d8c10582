//! A node's life in the cluster (`scale.md` §3): register, then each
//! second heartbeat, claim and release shards, and re-read who owns what.
//! A heartbeat that finds the lease already gone bumps the lost-lease
//! generation (every actor of the node must end its turns with
//! `NODE_LOST_LEASE`) and registers again under a fresh id. A node that
//! has not heartbeaten for TTL − 1 s, on its own monotonic clock, admits
//! no turns, so it stops before PostgreSQL can declare it dead.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::leases::{self, ShardMap};
use super::nodes::{self, LiveNode, NodeSettings};
use super::{NodeId, Shard};
use crate::store::pg::{Database, PgError};
use crate::tools::integrations::connection::PgConnection;

/// How often a node heartbeats and rebalances.
pub const ROUND: Duration = Duration::from_secs(1);

/// Whether a shard has nothing running or queued (only such a shard is
/// handed to another node).
pub type IdleShards = dyn Fn(Shard) -> bool + Send + Sync;

/// What a node last read of the cluster.
#[derive(Clone, Debug, Default)]
pub struct View {
    pub map: ShardMap,
    pub nodes: Vec<LiveNode>,
}

struct Inner {
    database: Database,
    settings: NodeSettings,
    id: RwLock<NodeId>,
    view: RwLock<View>,
    /// When the last heartbeat that held was sent.
    last_beat: Mutex<Instant>,
    lost: watch::Sender<u64>,
    idle: Box<IdleShards>,
}

/// This node's membership: its id, its view of the shards, and the task
/// that keeps both current. Dropping it stops the task without leaving
/// (as a killed process would); [`ClusterNode::leave`] leaves.
pub struct ClusterNode {
    inner: Arc<Inner>,
    task: JoinHandle<()>,
}

impl Drop for ClusterNode {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A lock's value even if a holder panicked (the values here are
/// replaced whole, never left half-written).
fn read<T: Clone>(lock: &RwLock<T>) -> T {
    lock.read().unwrap_or_else(|p| p.into_inner()).clone()
}

fn write<T>(lock: &RwLock<T>, value: T) {
    *lock.write().unwrap_or_else(|p| p.into_inner()) = value;
}

impl ClusterNode {
    /// Registers this node and runs its first round before returning, so
    /// a node that is alone owns every shard once it is up.
    pub async fn join(
        database: Database,
        settings: NodeSettings,
        idle: Box<IdleShards>,
    ) -> Result<Self, PgError> {
        let mut connection = database.dedicated().await?;
        let sent = Instant::now();
        let id = nodes::register(&connection.client, &settings).await?;
        let inner = Arc::new(Inner {
            database,
            settings,
            id: RwLock::new(id),
            view: RwLock::new(View::default()),
            last_beat: Mutex::new(sent),
            lost: watch::channel(0).0,
            idle,
        });
        rebalance(&inner, &mut connection).await?;
        let task = tokio::spawn(run(inner.clone(), connection));
        tracing::info!(node = %id, name = %inner.settings.name, "joined the cluster");
        Ok(Self { inner, task })
    }

    /// The node's id now (a new one after a lost lease).
    pub fn id(&self) -> NodeId {
        read(&self.inner.id)
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.inner.settings.name
    }

    /// What the node last read.
    pub fn view(&self) -> View {
        read(&self.inner.view)
    }

    /// How many nodes are live, as last read (at least this one).
    pub fn live_nodes(&self) -> usize {
        let view = self.inner.view.read().unwrap_or_else(|p| p.into_inner());
        view.nodes.len().max(1)
    }

    /// Where the live owner of `shard` is reached, and the epoch it
    /// holds, as last read.
    pub fn owner_url(&self, shard: Shard) -> Option<(String, i64)> {
        let view = self.inner.view.read().unwrap_or_else(|p| p.into_inner());
        let (owner, epoch) = view.map.owner(shard)?;
        let node = view.nodes.iter().find(|n| n.id == owner)?;
        Some((node.url.clone(), epoch))
    }

    /// The live owner of `shard` and its epoch, as last read.
    pub fn owner(&self, shard: Shard) -> Option<(NodeId, i64)> {
        self.inner
            .view
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .map
            .owner(shard)
    }

    /// Whether the node may start a turn: its last heartbeat is recent
    /// enough that its lease cannot lapse within the next second.
    pub fn admits_turns(&self) -> bool {
        let last = *self
            .inner
            .last_beat
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        last.elapsed() + Duration::from_secs(1) < self.inner.settings.ttl
    }

    /// Bumped each time the node finds it lost its lease.
    pub fn lost_leases(&self) -> watch::Receiver<u64> {
        self.inner.lost.subscribe()
    }

    /// Leaves the cluster: marks the node draining, hands back each shard
    /// once it is idle (waiting up to `timeout` for the busy ones), then
    /// deletes its row, releasing whatever is left. The node's rounds stop
    /// with it.
    pub async fn leave(&self, timeout: Duration) -> Result<(), PgError> {
        let mut connection = self.inner.database.dedicated().await?;
        nodes::set_draining(&connection.client, self.id()).await?;
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            rebalance(&self.inner, &mut connection).await?;
            let mine = self.view().map.counts().get(&self.id()).copied();
            if mine.unwrap_or(0) == 0 {
                break;
            }
            tokio::time::sleep(ROUND).await;
        }
        self.task.abort();
        nodes::deregister(&mut connection.client, self.id()).await
    }
}

/// The node's rounds, until it is dropped. A failed round is logged and
/// the next one tried on a fresh connection.
async fn run(inner: Arc<Inner>, mut connection: PgConnection) {
    let mut ticks = tokio::time::interval(ROUND);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        if connection.client.is_closed() {
            match inner.database.dedicated().await {
                Ok(fresh) => connection = fresh,
                Err(error) => {
                    tracing::warn!(%error, "the cluster connection could not be reopened");
                    continue;
                }
            }
        }
        if let Err(error) = round(&inner, &mut connection).await {
            tracing::warn!(%error, "a cluster round failed");
        }
    }
}

/// One round: heartbeat (re-registering after a lost lease), then
/// rebalance.
async fn round(inner: &Inner, connection: &mut PgConnection) -> Result<(), PgError> {
    let sent = Instant::now();
    let id = read(&inner.id);
    if nodes::heartbeat(&connection.client, id, inner.settings.ttl).await? {
        *inner.last_beat.lock().unwrap_or_else(|p| p.into_inner()) = sent;
    } else {
        inner.lost.send_modify(|generation| *generation += 1);
        tracing::warn!(node = %id, "this node's lease ran out; its shards are lost, registering again");
        let fresh = nodes::register(&connection.client, &inner.settings).await?;
        write(&inner.id, fresh);
        *inner.last_beat.lock().unwrap_or_else(|p| p.into_inner()) = sent;
    }
    rebalance(inner, connection).await
}

/// Claims and releases by the rules of `leases::plan`, then re-reads the
/// view.
async fn rebalance(inner: &Inner, connection: &mut PgConnection) -> Result<(), PgError> {
    let id = read(&inner.id);
    let live = nodes::live(&connection.client).await?;
    let mut state = leases::read(&connection.client).await?;
    let plan = leases::plan(id, &live, &state, &*inner.idle);
    let applied = leases::apply(&mut connection.client, id, &plan).await?;
    if applied != leases::Applied::default() {
        state = leases::read(&connection.client).await?;
    }
    write(
        &inner.view,
        View {
            map: ShardMap::from_leases(&state),
            nodes: live,
        },
    );
    Ok(())
}
