//! The facts of a thread's access check on PostgreSQL (see
//! `store::thread_access`): the thread, its reader's participation and
//! project role, and its agent, in one statement.

use confer_actors::{OrgId, StoreError, Thread, ThreadId, ThreadOrigin};
use tokio_postgres::GenericClient;

use super::records::{PgStore, db, joined, record};
use super::statements::Db;
use crate::projects::Member;
use crate::store::thread_access::ThreadAccess;

const FACTS: &str = "SELECT t.v, t.body,
       ($3::text IS NOT NULL AND EXISTS
          (SELECT 1 FROM participants p WHERE p.thread_id = t.id AND p.user_id = $3))
         AS participant,
       m.v AS member_v, m.body AS member_body,
       a.v AS agent_v, a.body AS agent_body
     FROM threads t
     LEFT JOIN project_members m ON m.project_id = t.project_id AND m.user_id = $3
     LEFT JOIN agents a ON $4 AND a.org_id = t.org_id AND a.id = t.agent_id
     WHERE t.org_id = $1 AND t.id = $2";

/// The facts of one thread of `org`, without its root's.
async fn facts(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    id: ThreadId,
    user: Option<&str>,
    with_agent: bool,
) -> Result<Option<ThreadAccess>, StoreError> {
    let Some(row) = client
        .query_opt(FACTS, &[&org.0, &id.0, &user, &with_agent])
        .await
        .map_err(db)?
    else {
        return Ok(None);
    };
    let thread: Thread = record(&row)?;
    let member: Option<Member> = joined(&row, "member_")?;
    Ok(Some(ThreadAccess {
        participant: row.try_get("participant").map_err(db)?,
        project_role: member.map(|m| m.role),
        root: None,
        agent: joined(&row, "agent_")?,
        thread,
    }))
}

impl PgStore {
    /// See `ThreadRecords::thread_access`: a delegate's root is read
    /// second, its own root never (a root is no delegate).
    pub(super) async fn access_of(
        &self,
        org: OrgId,
        id: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> Result<Option<ThreadAccess>, StoreError> {
        let session = self.session().await?;
        let client = session.db();
        let Some(mut found) = facts(client, org, id, user.as_deref(), with_agent).await? else {
            return Ok(None);
        };
        if let (Some(ThreadOrigin::Delegate), Some(place)) =
            (&found.thread.origin, &found.thread.delegation)
        {
            found.root = facts(client, org, place.root_thread_id, user.as_deref(), false)
                .await?
                .map(Box::new);
        }
        Ok(Some(found))
    }
}
