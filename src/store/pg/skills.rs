//! Skills on PostgreSQL: a skill's row, its name (a unique constraint)
//! and its files change in one transaction; a content change holds the
//! skill's row and checks the version read; the org's skills and an
//! owner's attachments are counted under an advisory lock of the org, or
//! of the owner, so two writes cannot both take the last place.

use chrono::Utc;
use confer_actors::{OrgId, SkillId, StoreError, StoreFuture};
use tokio_postgres::{GenericClient, Transaction};

use super::records::{PgStore, V, body, db, hold_lock, record, unique_violation};
use crate::skills::{ArchiveFile, MAX_ATTACHMENTS, MAX_SKILLS_PER_ORG, Skill};
use crate::store::port::{SkillRecords, SkillTouch};
use crate::store::skills::{SkillAttach, SkillAttachment, SkillWrite};

/// The advisory lock (`pg_advisory_xact_lock(SKILL_COUNT_LOCK, hash)`)
/// under which an org's skills, or an owner's attachments, are counted.
const SKILL_COUNT_LOCK: i32 = 12;

async fn lock(tx: &Transaction<'_>, id: uuid::Uuid) -> Result<(), StoreError> {
    hold_lock(tx, SKILL_COUNT_LOCK, id).await?;
    Ok(())
}

/// Replaces the files of skill `id` with `files`.
async fn put_files(
    tx: &Transaction<'_>,
    id: SkillId,
    files: &[ArchiveFile],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM skill_files WHERE skill_id = $1", &[&id.0])
        .await
        .map_err(db)?;
    for (path, bytes) in files {
        tx.execute(
            "INSERT INTO skill_files (skill_id, path, bytes) VALUES ($1, $2, $3)",
            &[&id.0, path, bytes],
        )
        .await
        .map_err(db)?;
    }
    Ok(())
}

/// The skill `id` of `org`, its row held until the transaction ends.
async fn held(
    client: &impl GenericClient,
    org: OrgId,
    id: SkillId,
) -> Result<Option<Skill>, StoreError> {
    client
        .query_opt(
            "SELECT v, body FROM skills WHERE org_id = $1 AND id = $2 FOR UPDATE",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()
}

/// A write that a unique constraint refused: the name is taken.
fn named(result: Result<u64, tokio_postgres::Error>) -> Result<bool, StoreError> {
    match result {
        Ok(_) => Ok(true),
        Err(error) if unique_violation(&error) => Ok(false),
        Err(error) => Err(db(error)),
    }
}

impl SkillRecords for PgStore {
    fn create_skill(&self, skill: Skill, files: Vec<ArchiveFile>) -> StoreFuture<SkillWrite> {
        let store = self.clone();
        Box::pin(async move {
            let skill = crate::skills::token::sealed(&store.secrets, skill)?;
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let org = skill.org_id;
            lock(&tx, org.0).await?;
            let held: i64 = tx
                .query_one("SELECT count(*) FROM skills WHERE org_id = $1", &[&org.0])
                .await
                .map_err(db)?
                .get(0);
            if usize::try_from(held).unwrap_or(usize::MAX) >= MAX_SKILLS_PER_ORG {
                return Ok(SkillWrite::Full);
            }
            let inserted = tx
                .execute(
                    "INSERT INTO skills (org_id, id, name, v, body) VALUES ($1, $2, $3, $4, $5)",
                    &[&org.0, &skill.id.0, &skill.name, &V, &body(&skill)],
                )
                .await;
            if !named(inserted)? {
                return Ok(SkillWrite::NameTaken);
            }
            put_files(&tx, skill.id, &files).await?;
            tx.commit().await.map_err(db)?;
            Ok(SkillWrite::Stored(Box::new(skill)))
        })
    }

    fn replace_skill_content(
        &self,
        old: Skill,
        new: Skill,
        files: Vec<ArchiveFile>,
    ) -> StoreFuture<SkillWrite> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let (org, id) = (old.org_id, old.id);
            let Some(current) = held(&tx, org, id).await? else {
                return Ok(SkillWrite::Stale);
            };
            if current.version != old.version || current.content_hash != old.content_hash {
                return Ok(SkillWrite::Stale);
            }
            let updated = tx
                .execute(
                    "UPDATE skills SET name = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0, &new.name, &V, &body(&new)],
                )
                .await;
            if !named(updated)? {
                return Ok(SkillWrite::NameTaken);
            }
            put_files(&tx, id, &files).await?;
            tx.commit().await.map_err(db)?;
            Ok(SkillWrite::Stored(Box::new(new)))
        })
    }

    fn touch_skill(
        &self,
        org: OrgId,
        id: SkillId,
        change: SkillTouch,
    ) -> StoreFuture<Option<Skill>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(mut skill) = held(&tx, org, id).await? else {
                return Ok(None);
            };
            change(&mut skill);
            tx.execute(
                "UPDATE skills SET v = $3, body = $4 WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0, &V, &body(&skill)],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Some(skill))
        })
    }

    fn skills(&self, org: OrgId) -> StoreFuture<Vec<Skill>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM skills WHERE org_id = $1 ORDER BY name COLLATE \"C\"";
            store.all(sql, &[&org.0]).await
        })
    }

    fn skill(&self, org: OrgId, id: SkillId) -> StoreFuture<Option<Skill>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM skills WHERE org_id = $1 AND id = $2";
            store.one(sql, &[&org.0, &id.0]).await
        })
    }

    fn skill_file(&self, id: SkillId, path: String) -> StoreFuture<Option<Vec<u8>>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let row = session
                .db()
                .query_opt(
                    "SELECT bytes FROM skill_files WHERE skill_id = $1 AND path = $2",
                    &[&id.0, &path],
                )
                .await
                .map_err(db)?;
            Ok(row.map(|row| row.get(0)))
        })
    }

    fn delete_skill(&self, org: OrgId, id: SkillId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let deleted = tx
                .execute(
                    "DELETE FROM skills WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            if deleted == 0 {
                return Ok(false);
            }
            for table in ["skill_files", "skill_attachments"] {
                let sql = format!("DELETE FROM {table} WHERE skill_id = $1");
                tx.execute(sql.as_str(), &[&id.0]).await.map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn attach_skill(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
        skill: SkillId,
        enabled: Option<bool>,
    ) -> StoreFuture<SkillAttach> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            lock(&tx, owner).await?;
            let existing: Option<SkillAttachment> = tx
                .query_opt(
                    "SELECT v, body FROM skill_attachments WHERE owner_id = $1 AND skill_id = $2",
                    &[&owner, &skill.0],
                )
                .await
                .map_err(db)?
                .map(|row| record(&row))
                .transpose()?;
            let attachment = match &existing {
                Some(old) => SkillAttachment {
                    enabled: enabled.unwrap_or(old.enabled),
                    ..old.clone()
                },
                None => {
                    let count: i64 = tx
                        .query_one(
                            "SELECT count(*) FROM skill_attachments WHERE owner_id = $1",
                            &[&owner],
                        )
                        .await
                        .map_err(db)?
                        .get(0);
                    if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_ATTACHMENTS {
                        return Ok(SkillAttach::Full);
                    }
                    SkillAttachment {
                        skill_id: skill,
                        enabled: enabled.unwrap_or(true),
                        attached_at: Utc::now(),
                    }
                }
            };
            // Held, so a concurrent delete of the skill waits for this.
            if held(&tx, org, skill).await?.is_none() {
                return Ok(SkillAttach::Missing);
            }
            tx.execute(
                "INSERT INTO skill_attachments (owner_id, skill_id, v, body)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (owner_id, skill_id) DO UPDATE SET v = EXCLUDED.v, body = EXCLUDED.body",
                &[&owner, &skill.0, &V, &body(&attachment)],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(match existing {
                None => SkillAttach::Attached,
                Some(_) => SkillAttach::Updated,
            })
        })
    }

    fn detach_skill(&self, owner: uuid::Uuid, skill: SkillId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let removed = store
                .execute(
                    "DELETE FROM skill_attachments WHERE owner_id = $1 AND skill_id = $2",
                    &[&owner, &skill.0],
                )
                .await?;
            Ok(removed > 0)
        })
    }

    fn skill_attachments(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
    ) -> StoreFuture<Vec<(SkillAttachment, Skill)>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let rows = session
                .db()
                .query(
                    "SELECT a.v, a.body, s.v AS s_v, s.body AS s_body
                     FROM skill_attachments a JOIN skills s ON s.id = a.skill_id
                     WHERE a.owner_id = $1 AND s.org_id = $2",
                    &[&owner, &org.0],
                )
                .await
                .map_err(db)?;
            let mut found = Vec::with_capacity(rows.len());
            for row in &rows {
                let attachment: SkillAttachment = record(row)?;
                let skill: Skill = super::records::joined(row, "s_")?
                    .ok_or_else(|| StoreError::Codec("an attachment's skill".into()))?;
                found.push((attachment, skill));
            }
            found.sort_by_key(|(a, _)| a.attached_at);
            Ok(found)
        })
    }
}
