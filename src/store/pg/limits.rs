//! Limits that hold across nodes (`scale.md` §5): a per-minute send limit
//! is one GCRA row per (org, subject), taken with one conditional upsert
//! per send, so every node counts against the same allowance; the org
//! turn cap is one row per slot held and one per turn waiting (the org's
//! FIFO across nodes), taken under the org's advisory lock;
//! a publication's running turns and their budget reservations are one
//! row per turn, taken under the publication's.

use std::time::Duration;

use confer_actors::{OrgId, PublicationId, StoreError, ThreadId};

use super::records::{PgStore, db, hold_lock};

/// The advisory lock (`pg_advisory_xact_lock(ORG_SLOTS_LOCK, org)`) under
/// which an org's turn slots are counted and taken.
const ORG_SLOTS_LOCK: i32 = 9;

/// The advisory lock (`pg_advisory_xact_lock(PUBLIC_TURNS_LOCK, hash)`)
/// under which a publication's running turns are counted and taken.
const PUBLIC_TURNS_LOCK: i32 = 16;

/// Whether a publication's turn was admitted across the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicAdmission {
    Admitted,
    /// `max` turns of the publication run on live nodes.
    Busy,
    /// The day's spent tokens, the running turns' reservations and this
    /// one's cost would pass the budget.
    Exhausted,
}

/// A public turn to admit: its row id, its publication, the node running
/// it, and what it may cost against the day's budget.
pub struct PublicTurnAsk {
    pub id: uuid::Uuid,
    pub publication: PublicationId,
    pub node: uuid::Uuid,
    pub max_running: u32,
    pub cost: u64,
    /// The day's tokens spent (committed usage).
    pub spent: u64,
    pub budget: Option<u64>,
}

impl PgStore {
    /// Queues `waiting` (`node`'s waiting turns of `org`, in arrival
    /// order) in the org's queue, forgetting `node`'s turns no longer in
    /// it, then takes one of `limit` slots for the first of `waiting` when
    /// it is the org's first and fewer than `limit` are held by live
    /// nodes. The slots and queued turns of nodes whose registration ran
    /// out are cleared first.
    pub async fn take_org_slot(
        &self,
        org: OrgId,
        node: uuid::Uuid,
        waiting: &[(ThreadId, u64)],
        limit: usize,
    ) -> Result<confer_actors::OrgTurns, StoreError> {
        let threads: Vec<uuid::Uuid> = waiting.iter().map(|(t, _)| t.0).collect();
        let turns: Vec<i64> = waiting
            .iter()
            .map(|(_, n)| i64::try_from(*n).unwrap_or(i64::MAX))
            .collect();
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        hold_lock(&tx, ORG_SLOTS_LOCK, org.0).await?;
        for table in ["org_turn_slots", "org_turn_waiters"] {
            let sql = format!(
                "DELETE FROM {table} WHERE org_id = $1
                 AND node_id NOT IN (SELECT id FROM nodes WHERE expires_at > now())"
            );
            tx.execute(sql.as_str(), &[&org.0]).await.map_err(db)?;
        }
        tx.execute(
            "DELETE FROM org_turn_waiters w WHERE org_id = $1 AND node_id = $2
             AND NOT EXISTS (SELECT 1 FROM unnest($3::uuid[], $4::bigint[]) AS k(thread, turn)
                             WHERE k.thread = w.thread_id AND k.turn = w.turn)",
            &[&org.0, &node, &threads, &turns],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "INSERT INTO org_turn_waiters (org_id, thread_id, turn, node_id)
             SELECT $1, k.thread, k.turn, $2
             FROM unnest($3::uuid[], $4::bigint[]) WITH ORDINALITY AS k(thread, turn, n)
             ORDER BY k.n
             ON CONFLICT (thread_id, turn) DO NOTHING",
            &[&org.0, &node, &threads, &turns],
        )
        .await
        .map_err(db)?;
        // Each of `waiting`'s places in the org's queue, in its order.
        let ranked = tx
            .query(
                "SELECT r.place FROM unnest($2::uuid[], $3::bigint[]) WITH ORDINALITY AS k(thread, turn, n)
                 JOIN (SELECT thread_id, turn, row_number() OVER (ORDER BY id) AS place
                       FROM org_turn_waiters WHERE org_id = $1) r
                   ON r.thread_id = k.thread AND r.turn = k.turn
                 ORDER BY k.n",
                &[&org.0, &threads, &turns],
            )
            .await
            .map_err(db)?;
        let mut positions: Vec<usize> = ranked
            .iter()
            .map(|row| usize::try_from(row.get::<_, i64>(0)).unwrap_or(usize::MAX))
            .collect();
        let Some(&(front, front_turn)) = waiting.first() else {
            tx.commit().await.map_err(db)?;
            return Ok(confer_actors::OrgTurns {
                taken: false,
                positions,
            });
        };
        let held: i64 = tx
            .query_one(
                "SELECT count(*) FROM org_turn_slots WHERE org_id = $1 AND thread_id <> $2",
                &[&org.0, &front.0],
            )
            .await
            .map_err(db)?
            .get(0);
        let first = positions.first() == Some(&1);
        if !first || usize::try_from(held).unwrap_or(usize::MAX) >= limit {
            tx.commit().await.map_err(db)?;
            return Ok(confer_actors::OrgTurns {
                taken: false,
                positions,
            });
        }
        tx.execute(
            "INSERT INTO org_turn_slots (thread_id, org_id, node_id) VALUES ($1, $2, $3)
             ON CONFLICT (thread_id) DO UPDATE SET node_id = $3, taken_at = now()",
            &[&front.0, &org.0, &node],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "DELETE FROM org_turn_waiters WHERE thread_id = $1 AND turn = $2",
            &[&front.0, &i64::try_from(front_turn).unwrap_or(i64::MAX)],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        // The others move up by the one that left.
        positions.remove(0);
        Ok(confer_actors::OrgTurns {
            taken: true,
            positions: positions.into_iter().map(|p| p - 1).collect(),
        })
    }

    /// Takes `thread`'s `turn` out of its org's queue.
    pub async fn leave_org_queue(&self, thread: ThreadId, turn: u64) -> Result<(), StoreError> {
        let turn = i64::try_from(turn).unwrap_or(i64::MAX);
        self.execute(
            "DELETE FROM org_turn_waiters WHERE thread_id = $1 AND turn = $2",
            &[&thread.0, &turn],
        )
        .await?;
        Ok(())
    }

    /// Gives `thread`'s turn slot back, if `node` holds it.
    pub async fn give_org_slot(
        &self,
        thread: ThreadId,
        node: uuid::Uuid,
    ) -> Result<(), StoreError> {
        // A slot freed wakes the org's waiting turns on every node.
        self.session()
            .await?
            .client
            .execute(
                "WITH freed AS (DELETE FROM org_turn_slots
                    WHERE thread_id = $1 AND node_id = $2 RETURNING 1)
                 SELECT pg_notify('confer_org_slots', '') FROM freed",
                &[&thread.0, &node],
            )
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Takes one of `subject`'s `per_minute` sends in `org` (a burst of
    /// `per_minute`, refilled evenly over the minute): `None` when taken,
    /// else how long until one is free.
    pub async fn take_send(
        &self,
        org: OrgId,
        subject: &str,
        per_minute: u32,
    ) -> Result<Option<Duration>, StoreError> {
        let interval_us = 60_000_000.0 / f64::from(per_minute.max(1));
        let session = self.session().await?;
        let taken = session
            .db()
            .query_opt(
                "INSERT INTO send_limits AS l (org_id, subject, tat)
                 VALUES ($1, $2, now() + $3 * interval '1 microsecond')
                 ON CONFLICT (org_id, subject) DO UPDATE
                 SET tat = GREATEST(l.tat, now()) + $3 * interval '1 microsecond'
                 WHERE GREATEST(l.tat, now()) + $3 * interval '1 microsecond'
                       <= now() + interval '1 minute'
                 RETURNING 1",
                &[&org.0, &subject, &interval_us],
            )
            .await
            .map_err(db)?;
        if taken.is_some() {
            return Ok(None);
        }
        let wait: f64 = session
            .db()
            .query_opt(
                "SELECT EXTRACT(EPOCH FROM GREATEST(tat, now())
                         + $3 * interval '1 microsecond' - now() - interval '1 minute')::float8
                 FROM send_limits WHERE org_id = $1 AND subject = $2",
                &[&org.0, &subject, &interval_us],
            )
            .await
            .map_err(db)?
            .map_or(0.0, |row| row.get(0));
        Ok(Some(Duration::from_secs_f64(wait.max(0.0))))
    }

    /// Admits one public turn when fewer than `max_running` of its
    /// publication run on live nodes and its cost fits the day's budget
    /// beside the running turns' reservations; the row is the turn's until
    /// [`PgStore::end_public_turn`]. The rows of nodes whose registration
    /// ran out are cleared first.
    pub async fn admit_public_turn(
        &self,
        ask: PublicTurnAsk,
    ) -> Result<PublicAdmission, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let publication = ask.publication.0;
        hold_lock(&tx, PUBLIC_TURNS_LOCK, publication).await?;
        tx.execute(
            "DELETE FROM public_turns WHERE publication_id = $1
             AND node_id NOT IN (SELECT id FROM nodes WHERE expires_at > now())",
            &[&publication],
        )
        .await
        .map_err(db)?;
        let row = tx
            .query_one(
                "SELECT count(*), coalesce(sum(tokens), 0)::bigint FROM public_turns
                 WHERE publication_id = $1",
                &[&publication],
            )
            .await
            .map_err(db)?;
        let (running, reserved): (i64, i64) = (row.get(0), row.get(1));
        if running >= i64::from(ask.max_running) {
            return Ok(PublicAdmission::Busy);
        }
        let reserved = u64::try_from(reserved).unwrap_or_default();
        if ask
            .budget
            .is_some_and(|budget| ask.spent + reserved + ask.cost > budget)
        {
            return Ok(PublicAdmission::Exhausted);
        }
        let tokens = i64::try_from(ask.cost).unwrap_or(i64::MAX);
        tx.execute(
            "INSERT INTO public_turns (id, publication_id, node_id, tokens) VALUES ($1, $2, $3, $4)",
            &[&ask.id, &publication, &ask.node, &tokens],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(PublicAdmission::Admitted)
    }

    /// Ends a public turn admitted by [`PgStore::admit_public_turn`].
    pub async fn end_public_turn(&self, id: uuid::Uuid) -> Result<(), StoreError> {
        self.execute("DELETE FROM public_turns WHERE id = $1", &[&id])
            .await
            .map(drop)
    }
}
