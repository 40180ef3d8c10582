//! Limits that hold across nodes (`scale.md` §5): a per-minute send limit
//! is one GCRA row per (org, subject), taken with one conditional upsert
//! per send, so every node counts against the same allowance.

use std::time::Duration;

use confer_actors::{OrgId, StoreError};

use super::records::{PgStore, db};

impl PgStore {
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
            .client
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
            .client
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
}
