//! Projects and their members on PostgreSQL. A creation holds its org's
//! advisory lock, so the 10,000 projects of an org are counted exactly on
//! every node; member writes hold the project's row, so the 500 members
//! and the last owner hold under races and a concurrent delete wins. A
//! delete detaches the project's threads and agents in its own
//! transaction (sled does it afterwards, in batches).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, ProjectId, StoreError, StoreFuture, Thread};
use tokio_postgres::types::Json;
use tokio_postgres::{Row, Transaction};

use super::records::{
    PgStore, V, body, db, hold_lock, micro, next_micro, page_fetch, page_of, record,
    unique_violation,
};
use crate::error::ApiError;
use crate::projects::{MAX_MEMBERS, MAX_PROJECTS_PER_ORG, Member, Project};
use crate::store::Page;
use crate::store::port::{MemberRule, ProjectRecords, ProjectSwap, ProjectWithRole};
use crate::store::projects::ProjectWrite;

/// The first key of the advisory lock an org's project creations hold
/// (the second is the org's hash).
const PROJECT_COUNT_LOCK: i32 = 7;

/// Selects a project (`p`) with the member row (`m`) of the user `$2`.
const WITH_ROLE: &str = "SELECT p.v, p.body, m.body AS member FROM projects p
     LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $2";

/// A project and its reader's role, from a [`WITH_ROLE`] row.
fn with_role(row: &Row) -> Result<ProjectWithRole, StoreError> {
    let member: Option<Json<Member>> = row
        .try_get("member")
        .map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok((record(row)?, member.map(|Json(m)| m.role)))
}

/// The project, its row held until `tx` ends.
async fn locked(
    tx: &Transaction<'_>,
    org: OrgId,
    id: ProjectId,
) -> Result<Option<Project>, StoreError> {
    tx.query_opt(
        "SELECT v, body FROM projects WHERE org_id = $1 AND id = $2 FOR UPDATE",
        &[&org.0, &id.0],
    )
    .await
    .map_err(db)?
    .map(|row| record(&row))
    .transpose()
}

/// A project's members by user id (bytewise, as sled orders them).
async fn members_of(
    client: &impl tokio_postgres::GenericClient,
    project: ProjectId,
) -> Result<Vec<Member>, StoreError> {
    client
        .query(
            "SELECT v, body FROM project_members WHERE project_id = $1
             ORDER BY user_id COLLATE \"C\"",
            &[&project.0],
        )
        .await
        .map_err(db)?
        .iter()
        .map(record)
        .collect()
}

async fn put_member(
    tx: &Transaction<'_>,
    org: OrgId,
    project: ProjectId,
    member: &Member,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO project_members (org_id, project_id, user_id, v, body)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (project_id, user_id) DO UPDATE SET v = EXCLUDED.v, body = EXCLUDED.body",
        &[&org.0, &project.0, &member.user_id, &V, &body(member)],
    )
    .await
    .map_err(db)?;
    Ok(())
}

/// The members of a project of `org`, its row held until `tx` ends (so
/// member writes to one project are serialized); `None` when it is gone.
async fn held_members(
    tx: &Transaction<'_>,
    org: OrgId,
    project: ProjectId,
) -> Result<Option<Vec<Member>>, StoreError> {
    if locked(tx, org, project).await?.is_none() {
        return Ok(None);
    }
    members_of(tx, project).await.map(Some)
}

impl ProjectRecords for PgStore {
    fn create_project(
        &self,
        project: Project,
        members: Vec<Member>,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let org = project.org_id;
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            hold_lock(&tx, PROJECT_COUNT_LOCK, org.0).await?;
            let held: i64 = tx
                .query_one("SELECT count(*) FROM projects WHERE org_id = $1", &[&org.0])
                .await
                .map_err(db)?
                .get(0);
            if usize::try_from(held).unwrap_or(usize::MAX) >= MAX_PROJECTS_PER_ORG {
                return Ok(ProjectWrite::Full);
            }
            let mut stored = project;
            stored.created_at = micro(stored.created_at);
            loop {
                stored.updated_at = stored.created_at;
                let inserted = tx
                    .execute(
                        "INSERT INTO projects (org_id, id, slug, created_at, v, body)
                         VALUES ($1, $2, $3, $4, $5, $6)
                         ON CONFLICT (org_id, created_at) DO NOTHING",
                        &[
                            &org.0,
                            &stored.id.0,
                            &stored.slug,
                            &stored.created_at,
                            &V,
                            &body(&stored),
                        ],
                    )
                    .await;
                match inserted {
                    Ok(1) => break,
                    Ok(_) => stored.created_at = next_micro(stored.created_at),
                    Err(error) if unique_violation(&error) => return Ok(ProjectWrite::SlugTaken),
                    Err(error) => return Err(db(error)),
                }
            }
            for member in &members {
                put_member(&tx, org, stored.id, member).await?;
            }
            tx.commit().await.map_err(db)?;
            Ok(ProjectWrite::Done(stored))
        })
    }

    fn project(
        &self,
        org: OrgId,
        id: ProjectId,
        user: Option<String>,
    ) -> StoreFuture<Option<ProjectWithRole>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let sql = format!("{WITH_ROLE} WHERE p.org_id = $1 AND p.id = $3");
            let row = session
                .db()
                .query_opt(&sql, &[&org.0, &user, &id.0])
                .await
                .map_err(db)?;
            row.map(|row| with_role(&row)).transpose()
        })
    }

    fn update_project(
        &self,
        org: OrgId,
        id: ProjectId,
        mut change: ProjectSwap,
    ) -> StoreFuture<ProjectWrite<Project, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(project) = locked(&tx, org, id).await? else {
                return Ok(ProjectWrite::Gone);
            };
            let changed = match change(project) {
                Ok(changed) => changed,
                Err(refused) => return Ok(ProjectWrite::Refused(refused)),
            };
            let updated = tx
                .execute(
                    "UPDATE projects SET slug = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0, &changed.slug, &V, &body(&changed)],
                )
                .await;
            match updated {
                Ok(_) => {}
                Err(error) if unique_violation(&error) => return Ok(ProjectWrite::SlugTaken),
                Err(error) => return Err(db(error)),
            }
            tx.commit().await.map_err(db)?;
            Ok(ProjectWrite::Done(changed))
        })
    }

    fn delete_project(&self, org: OrgId, id: ProjectId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let deleted = tx
                .execute(
                    "DELETE FROM projects WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            if deleted == 0 {
                return Ok(false);
            }
            for sql in [
                "DELETE FROM project_members WHERE project_id = $2 AND org_id = $1",
                "UPDATE threads SET project_id = NULL, body = body - 'project_id'
                 WHERE org_id = $1 AND project_id = $2",
                "UPDATE agents SET project_id = NULL, body = body - 'project_id'
                 WHERE org_id = $1 AND project_id = $2",
            ] {
                tx.execute(sql, &[&org.0, &id.0]).await.map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn projects_page(
        &self,
        org: OrgId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<ProjectWithRole>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let sql = format!(
                "{WITH_ROLE} WHERE p.org_id = $1 AND ($2::text IS NULL OR m.user_id IS NOT NULL)
                   AND ($3::timestamptz IS NULL OR p.created_at < $3)
                 ORDER BY p.created_at DESC LIMIT $4"
            );
            let rows = session
                .db()
                .query(&sql, &[&org.0, &user, &before, &page_fetch(limit)])
                .await
                .map_err(db)?;
            let items = rows.iter().map(with_role).collect::<Result<Vec<_>, _>>()?;
            Ok(page_of(items, limit, |(p, _)| p.created_at))
        })
    }

    fn project_threads(
        &self,
        org: OrgId,
        project: ProjectId,
        agent: Option<AgentId>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .thread_page(
                    "SELECT v, body FROM threads
                     WHERE org_id = $1 AND project_id = $2
                       AND ($3::uuid IS NULL OR agent_id = $3)
                       AND ($4::timestamptz IS NULL OR created_at < $4)
                     ORDER BY created_at DESC LIMIT $5",
                    &[
                        &org.0,
                        &project.0,
                        &agent.map(|a| a.0),
                        &before,
                        &page_fetch(limit),
                    ],
                    limit,
                )
                .await
        })
    }

    fn project_members(&self, project: ProjectId) -> StoreFuture<Vec<Member>> {
        let store = self.clone();
        Box::pin(async move { members_of(&store.session().await?.client, project).await })
    }

    fn put_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        member: Member,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<(Member, bool), ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(members) = held_members(&tx, org, project).await? else {
                return Ok(ProjectWrite::Gone);
            };
            let new = !members.iter().any(|m| m.user_id == member.user_id);
            if new && members.len() >= MAX_MEMBERS {
                return Ok(ProjectWrite::Full);
            }
            if let Err(refused) = allow(&members) {
                return Ok(ProjectWrite::Refused(refused));
            }
            put_member(&tx, org, project, &member).await?;
            tx.commit().await.map_err(db)?;
            Ok(ProjectWrite::Done((member, new)))
        })
    }

    fn remove_project_member(
        &self,
        org: OrgId,
        project: ProjectId,
        user: String,
        allow: MemberRule,
    ) -> StoreFuture<ProjectWrite<bool, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(members) = held_members(&tx, org, project).await? else {
                return Ok(ProjectWrite::Gone);
            };
            if !members.iter().any(|m| m.user_id == user) {
                return Ok(ProjectWrite::Done(false));
            }
            if let Err(refused) = allow(&members) {
                return Ok(ProjectWrite::Refused(refused));
            }
            tx.execute(
                "DELETE FROM project_members WHERE project_id = $1 AND user_id = $2",
                &[&project.0, &user],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(ProjectWrite::Done(true))
        })
    }
}
