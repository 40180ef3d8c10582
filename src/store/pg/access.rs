//! The facts of a thread's access check on PostgreSQL (see
//! `store::thread_access`): the thread, its reader's participation and
//! project role, and its agent, in one statement.

use confer_actors::{OrgId, StoreError, Thread, ThreadId, ThreadOrigin};
use tokio_postgres::GenericClient;

use super::records::{PgStore, db, joined, record};
use super::statements::Db;
use crate::projects::Member;
use crate::store::thread_access::ThreadAccess;

/// The facts' statement: `$1` org, `$2` thread, `$3` the reader when
/// there is one. Each shape is its own text, with no guard on a
/// parameter: the server then keeps one plan for each, where a guard made
/// it plan the statement anew at every call (longer than running it).
macro_rules! facts {
    (reader: $reader:expr, agent: $agent:literal) => {
        concat!(
            "SELECT t.v, t.body, ",
            $reader,
            ", ",
            $agent,
            " WHERE t.org_id = $1 AND t.id = $2"
        )
    };
}

/// The columns and joins of a reader's participation and project role.
macro_rules! reader {
    () => {
        "EXISTS (SELECT 1 FROM participants p WHERE p.thread_id = t.id AND p.user_id = $3)
           AS participant,
         m.v AS member_v, m.body AS member_body"
    };
}

/// The same columns without a reader.
macro_rules! no_reader {
    () => {
        "false AS participant, NULL::smallint AS member_v, NULL::jsonb AS member_body"
    };
}

/// By reader, then by agent: `[without, with]` each.
const FACTS: [[&str; 2]; 2] = [
    [
        facts!(reader: no_reader!(), agent: "NULL::smallint AS agent_v, NULL::jsonb AS agent_body FROM threads t"),
        facts!(reader: no_reader!(), agent: "a.v AS agent_v, a.body AS agent_body FROM threads t
             LEFT JOIN agents a ON a.org_id = t.org_id AND a.id = t.agent_id"),
    ],
    [
        facts!(reader: reader!(), agent: "NULL::smallint AS agent_v, NULL::jsonb AS agent_body FROM threads t
             LEFT JOIN project_members m ON m.project_id = t.project_id AND m.user_id = $3"),
        facts!(reader: reader!(), agent: "a.v AS agent_v, a.body AS agent_body FROM threads t
             LEFT JOIN project_members m ON m.project_id = t.project_id AND m.user_id = $3
             LEFT JOIN agents a ON a.org_id = t.org_id AND a.id = t.agent_id"),
    ],
];

/// The facts of one thread of `org`, without its root's.
async fn facts(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    id: ThreadId,
    user: Option<&str>,
    with_agent: bool,
) -> Result<Option<ThreadAccess>, StoreError> {
    let sql = FACTS[usize::from(user.is_some())][usize::from(with_agent)];
    let found = match &user {
        Some(user) => client.query_opt(sql, &[&org.0, &id.0, user]).await,
        None => client.query_opt(sql, &[&org.0, &id.0]).await,
    };
    let Some(row) = found.map_err(db)? else {
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
