//! Shard leases (`scale.md` §3.3–§3.4): who owns each shard, how a node
//! claims the shards it is preferred for (or that nobody has held for
//! 3 s), how it hands back the ones a newer node is preferred for, and the
//! fencing check a turn's writes begin with.
//!
//! Every change of owner moves the shard's epoch. A claim names the epoch
//! it saw, so of two nodes claiming one shard exactly one wins; a write
//! names the epoch its actor was started under, so a node that lost a
//! shard cannot write to it again.

use std::collections::HashMap;
use std::time::Duration;

use tokio_postgres::{Client, GenericClient};

use super::nodes::LiveNode;
use super::{NodeId, SHARDS, Shard, preference};
use crate::store::pg::PgError;

/// A shard free (or held by a dead node) this long may be claimed by any
/// node, preferred or not.
pub const ORPHANED_AFTER: Duration = Duration::from_secs(3);
/// A node preferred for a shard is given it only once it has been live
/// this long (a node that flaps does not move shards back and forth).
pub const SETTLED_AFTER: Duration = Duration::from_secs(10);
/// Shards released per round at most.
pub const RELEASES_PER_ROUND: usize = 64;

/// One shard's lease as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeaseState {
    pub shard: Shard,
    pub owner: Option<NodeId>,
    pub epoch: i64,
    /// The owner's row is live.
    pub owner_live: bool,
    /// How long it has had no live owner (zero while it has one).
    pub orphaned_for: Duration,
}

/// Every shard's owner and epoch, as a node last read them: where the
/// entry node sends a thread's work.
#[derive(Clone, Debug)]
pub struct ShardMap {
    owners: Vec<Option<(NodeId, i64)>>,
}

impl Default for ShardMap {
    fn default() -> Self {
        Self {
            owners: vec![None; usize::from(SHARDS)],
        }
    }
}

impl ShardMap {
    /// From leases read now (only live owners count).
    pub fn from_leases(leases: &[LeaseState]) -> Self {
        let mut map = Self::default();
        for lease in leases {
            if let (Some(owner), true) = (lease.owner, lease.owner_live) {
                map.owners[usize::from(lease.shard.number())] = Some((owner, lease.epoch));
            }
        }
        map
    }

    /// The live owner of `shard` and its epoch.
    pub fn owner(&self, shard: Shard) -> Option<(NodeId, i64)> {
        self.owners[usize::from(shard.number())]
    }

    /// How many shards each node owns.
    pub fn counts(&self) -> HashMap<NodeId, usize> {
        let mut counts = HashMap::new();
        for (owner, _) in self.owners.iter().flatten() {
            *counts.entry(*owner).or_insert(0) += 1;
        }
        counts
    }

    /// Shards with no live owner.
    pub fn orphaned(&self) -> usize {
        self.owners.iter().filter(|o| o.is_none()).count()
    }
}

/// Every shard's lease, in order.
pub async fn read(client: &impl GenericClient) -> Result<Vec<LeaseState>, PgError> {
    let rows = client
        .query(
            "SELECT l.shard, l.node_id, l.epoch,
                    coalesce(n.expires_at > now(), false) AS owner_live,
                    EXTRACT(EPOCH FROM (now() - CASE
                        WHEN n.expires_at > now() THEN now()
                        ELSE greatest(l.since, coalesce(n.expires_at, l.since)) END))::float8
             FROM shard_leases l LEFT JOIN nodes n ON n.id = l.node_id
             ORDER BY l.shard",
            &[],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let shard = Shard::from_sql(row.get(0))
                .ok_or_else(|| PgError::Refused("a shard_leases row is out of range".into()))?;
            Ok(LeaseState {
                shard,
                owner: row.get::<_, Option<uuid::Uuid>>(1).map(NodeId),
                epoch: row.get(2),
                owner_live: row.get(3),
                orphaned_for: Duration::from_secs_f64(row.get::<_, f64>(4).max(0.0)),
            })
        })
        .collect()
}

/// What a node means to change in one round.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Shards to claim, with the epoch seen.
    pub claim: Vec<(Shard, i64)>,
    /// Own shards to hand back.
    pub release: Vec<Shard>,
}

/// The round of node `me` (the rules of `scale.md` §3.3, decided here
/// only): claim free or dead-owned shards it is preferred for and any
/// orphaned ≥ 3 s; release up to 64 idle shards whose preferred node has
/// been live ≥ 10 s. A draining node claims nothing and releases every
/// idle shard it holds.
pub fn plan(
    me: NodeId,
    nodes: &[LiveNode],
    leases: &[LeaseState],
    idle: &dyn Fn(Shard) -> bool,
) -> Plan {
    let Some(mine) = nodes.iter().find(|n| n.id == me) else {
        // Not live: nothing may be claimed, and what it held is lost.
        return Plan::default();
    };
    let candidates: Vec<&LiveNode> = nodes.iter().filter(|n| !n.draining).collect();
    let preferred = |shard: Shard| {
        candidates
            .iter()
            .max_by_key(|n| (preference(&n.name, shard), n.id))
            .copied()
    };
    let mut plan = Plan::default();
    for lease in leases {
        let shard = lease.shard;
        let held = lease.owner.is_some() && lease.owner_live;
        if mine.draining {
            if lease.owner == Some(me) && idle(shard) {
                plan.release.push(shard);
            }
            continue;
        }
        if !held {
            let wanted = preferred(shard).is_some_and(|n| n.id == me);
            if wanted || lease.orphaned_for >= ORPHANED_AFTER {
                plan.claim.push((shard, lease.epoch));
            }
        } else if lease.owner == Some(me)
            && plan.release.len() < RELEASES_PER_ROUND
            && let Some(other) = preferred(shard)
            && other.id != me
            && other.live_for >= SETTLED_AFTER
            && idle(shard)
        {
            plan.release.push(shard);
        }
    }
    plan
}

/// What a round changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Shards won, with their new epochs.
    pub claimed: Vec<(Shard, i64)>,
    pub released: Vec<Shard>,
}

/// Carries out `plan` for `me`, in one transaction. A claim wins only if
/// the epoch is still the one seen, the shard still has no live owner,
/// and `me` is itself live; any change rings `confer_shards`.
pub async fn apply(client: &mut Client, me: NodeId, plan: &Plan) -> Result<Applied, PgError> {
    if plan.claim.is_empty() && plan.release.is_empty() {
        return Ok(Applied::default());
    }
    let transaction = client.transaction().await?;
    let shards: Vec<i16> = plan.claim.iter().map(|(s, _)| s.sql()).collect();
    let epochs: Vec<i64> = plan.claim.iter().map(|(_, e)| *e).collect();
    let claimed = transaction
        .query(
            "UPDATE shard_leases l SET node_id = $1, epoch = l.epoch + 1, since = now()
             FROM unnest($2::smallint[], $3::bigint[]) AS c(shard, epoch)
             WHERE l.shard = c.shard AND l.epoch = c.epoch
               AND (l.node_id IS NULL OR NOT EXISTS
                    (SELECT 1 FROM nodes n WHERE n.id = l.node_id AND n.expires_at > now()))
               AND EXISTS (SELECT 1 FROM nodes me WHERE me.id = $1 AND me.expires_at > now())
             RETURNING l.shard, l.epoch",
            &[&me.0, &shards, &epochs],
        )
        .await?;
    let won: Vec<i16> = claimed.iter().map(|row| row.get(0)).collect();
    if !won.is_empty() {
        fail_orphaned_turns(&transaction, me, &won).await?;
    }
    let released: Vec<i16> = plan.release.iter().map(|s| s.sql()).collect();
    let released = transaction
        .query(
            "UPDATE shard_leases SET node_id = NULL, epoch = epoch + 1, since = now()
             WHERE node_id = $1 AND shard = ANY($2::smallint[])
             RETURNING shard",
            &[&me.0, &released],
        )
        .await?;
    if !claimed.is_empty() || !released.is_empty() {
        transaction.execute("NOTIFY confer_shards", &[]).await?;
    }
    transaction.commit().await?;
    Ok(Applied {
        claimed: claimed
            .iter()
            .filter_map(|row| Some((Shard::from_sql(row.get(0))?, row.get(1))))
            .collect(),
        released: released
            .iter()
            .filter_map(|row| Shard::from_sql(row.get(0)))
            .collect(),
    })
}

/// The error code of a turn whose node died while it ran.
pub const NODE_FAILED: &str = "NODE_FAILED";

/// In the claim's transaction (`scale.md` §3.6): the turns of `shards`
/// still `running` under another node end `failed` with `NODE_FAILED`
/// (their node is dead, or the claim would not have won), and so do the
/// outcomes of their keyed sends, so a retry of the key and a reader
/// reattaching here learn how the turn ended. Returns how many turns.
async fn fail_orphaned_turns(
    transaction: &impl GenericClient,
    me: NodeId,
    shards: &[i16],
) -> Result<u64, PgError> {
    let failed = transaction
        .query(
            "WITH failed AS (
                 UPDATE turns SET status = 'failed', code = $3, ended_at = now()
                 WHERE shard = ANY($2::smallint[]) AND status = 'running' AND node_id <> $1
                 RETURNING thread_id, turn
             ), keyed AS (
                 UPDATE keyed_sends k
                 SET body = jsonb_set(k.body, '{outcome}',
                                      jsonb_build_object('kind', 'error', 'error_code', $3::text))
                 FROM failed f
                 WHERE k.thread_id = f.thread_id AND (k.body->>'turn')::bigint = f.turn
                   AND jsonb_typeof(k.body->'outcome') IS DISTINCT FROM 'object'
             )
             SELECT count(*) FROM failed",
            &[&me.0, &shards, &NODE_FAILED],
        )
        .await?;
    let count: i64 = failed.first().map_or(0, |row| row.get(0));
    if count > 0 {
        tracing::warn!(
            turns = count,
            "a dead node's running turns ended NODE_FAILED"
        );
    }
    Ok(u64::try_from(count).unwrap_or(0))
}

/// The fencing check as the common table expression `fence`, for a
/// statement that begins with it: one row while the node named by the
/// parameter `$node` still owns shard `$shard` at epoch `$epoch` and is
/// live. The share lock makes a competing claim wait, so the write
/// commits before the epoch moves, or finds it moved. The one text of the
/// check: [`fence`] and the turn's appends (`store::pg::append`) use it.
macro_rules! fence_cte {
    ($shard:literal, $epoch:literal, $node:literal) => {
        concat!(
            "fence AS (SELECT 1 FROM shard_leases l JOIN nodes n ON n.id = l.node_id
             WHERE l.shard = ",
            $shard,
            "::smallint AND l.epoch = ",
            $epoch,
            "::bigint AND l.node_id = ",
            $node,
            "::uuid AND n.expires_at > now()
             FOR SHARE OF l)"
        )
    };
}
pub(crate) use fence_cte;

/// The fencing check a turn's thread write begins with, inside its
/// transaction: `me` still owns `shard` at `epoch` and is live
/// ([`fence_cte`]). `false`: the write must roll back and the turn end
/// with `NODE_LOST_LEASE`.
pub async fn fence(
    transaction: crate::store::pg::Db<'_, impl GenericClient>,
    me: NodeId,
    shard: Shard,
    epoch: i64,
) -> Result<bool, PgError> {
    Ok(transaction
        .query_opt(
            concat!(
                "WITH ",
                fence_cte!("$1", "$2", "$3"),
                " SELECT 1 FROM fence"
            ),
            &[&shard.sql(), &epoch, &me.0],
        )
        .await?
        .is_some())
}
