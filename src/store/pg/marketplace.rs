//! [`MarketplaceRecords`] on PostgreSQL: `marketplace_profiles` (a listed
//! profile carries its catalogue key, sled's newest-first order) and
//! `marketplace_avatars`. A change is decided under the agent's advisory
//! lock while the agent's row is held, so a change racing the agent's
//! delete never brings the profile back; `use` is in [`super::adopt`].

use confer_actors::{Agent, AgentId, OrgId, StoreError, StoreFuture};

use super::records::{PgStore, V, body, db, hold_lock, joined, record};
use crate::error::ApiError;
use crate::marketplace::adopt::Adoption;
use crate::marketplace::profile::Profile;
use crate::store::marketplace::{Adopted, AvatarChange, ListedPage, index_entry};
use crate::store::port::marketplace::ListedKey;
use crate::store::port::{ListingFilter, MarketplaceRecords, ProfileSwap};
use crate::store::update::Updated;

/// The advisory lock under which an agent's profile is changed.
const PROFILE_LOCK: i32 = 21;

impl PgStore {
    async fn profile_on_pg(self, agent: AgentId) -> Result<Option<Profile>, StoreError> {
        self.one(
            "SELECT v, body FROM marketplace_profiles WHERE agent_id = $1",
            &[&agent.0],
        )
        .await
    }

    async fn listing_on_pg(self, agent: AgentId) -> Result<Option<(Profile, Agent)>, StoreError> {
        let session = self.session().await?;
        let row = session
            .db()
            .query_opt(
                "SELECT p.v, p.body, a.v AS a_v, a.body AS a_body
                 FROM marketplace_profiles p
                 JOIN agents a ON a.org_id = p.org_id AND a.id = p.agent_id
                 WHERE p.agent_id = $1",
                &[&agent.0],
            )
            .await
            .map_err(db)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let agent = joined(&row, "a_")?.ok_or(StoreError::Codec("an agent".into()))?;
        Ok(Some((record(&row)?, agent)))
    }

    async fn update_profile_on_pg(
        self,
        (org, agent): (OrgId, AgentId),
        avatar: AvatarChange,
        mut change: ProfileSwap,
    ) -> Result<Updated<Profile, ApiError>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        hold_lock(&tx, PROFILE_LOCK, agent.0).await?;
        let live = tx
            .query_opt(
                "SELECT 1 FROM agents WHERE org_id = $1 AND id = $2
                    AND body->>'deleted_at' IS NULL FOR SHARE",
                &[&org.0, &agent.0],
            )
            .await
            .map_err(db)?;
        if live.is_none() {
            return Ok(Updated::Gone);
        }
        let before = tx
            .query_opt(
                "SELECT v, body FROM marketplace_profiles WHERE agent_id = $1",
                &[&agent.0],
            )
            .await
            .map_err(db)?
            .map(|row| record::<Profile>(&row))
            .transpose()?
            .unwrap_or_else(|| Profile::unsaved(org, agent));
        if before.org_id != org {
            return Ok(Updated::Gone);
        }
        let after = match change(before) {
            Ok(after) => after,
            Err(refused) => return Ok(Updated::Refused(refused)),
        };
        let listed = index_entry(&after).map(|key| key.to_vec());
        tx.execute(
            "INSERT INTO marketplace_profiles (agent_id, org_id, listed_key, v, body)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (agent_id) DO UPDATE
             SET listed_key = excluded.listed_key, v = excluded.v, body = excluded.body",
            &[&agent.0, &org.0, &listed, &V, &body(&after)],
        )
        .await
        .map_err(db)?;
        match avatar {
            AvatarChange::Keep => 0,
            AvatarChange::Set(png) => tx
                .execute(
                    "INSERT INTO marketplace_avatars (agent_id, png) VALUES ($1, $2)
                     ON CONFLICT (agent_id) DO UPDATE SET png = excluded.png",
                    &[&agent.0, &png],
                )
                .await
                .map_err(db)?,
            AvatarChange::Remove => tx
                .execute(
                    "DELETE FROM marketplace_avatars WHERE agent_id = $1",
                    &[&agent.0],
                )
                .await
                .map_err(db)?,
        };
        tx.commit().await.map_err(db)?;
        Ok(Updated::Stored(after))
    }

    async fn delete_profile_on_pg(self, org: OrgId, agent: AgentId) -> Result<bool, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        hold_lock(&tx, PROFILE_LOCK, agent.0).await?;
        let gone = tx
            .execute(
                "DELETE FROM marketplace_profiles WHERE agent_id = $1 AND org_id = $2",
                &[&agent.0, &org.0],
            )
            .await
            .map_err(db)?;
        if gone == 0 {
            return Ok(false);
        }
        tx.execute(
            "DELETE FROM marketplace_avatars WHERE agent_id = $1",
            &[&agent.0],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn listed_on_pg(
        self,
        after: Option<ListedKey>,
        (limit, scan): (usize, usize),
        keep: ListingFilter,
    ) -> Result<ListedPage, StoreError> {
        let after = after.map(|key| key.to_vec());
        let fetch = i64::try_from(scan.saturating_add(1)).unwrap_or(i64::MAX);
        let session = self.session().await?;
        let rows = session
            .db()
            .query(
                "SELECT p.listed_key, p.v, p.body, a.v AS a_v, a.body AS a_body
                 FROM marketplace_profiles p
                 LEFT JOIN agents a ON a.org_id = p.org_id AND a.id = p.agent_id
                 WHERE p.listed_key IS NOT NULL AND ($1::bytea IS NULL OR p.listed_key > $1)
                 ORDER BY p.listed_key LIMIT $2",
                &[&after, &fetch],
            )
            .await
            .map_err(db)?;
        let mut page = ListedPage {
            listings: Vec::new(),
            next: None,
        };
        // As sled's scan: a page ends after the last entry it looked at.
        let mut last = None;
        for (scanned, row) in rows.iter().enumerate() {
            if scanned == scan || page.listings.len() == limit {
                page.next = last;
                break;
            }
            let key: Vec<u8> = row.get("listed_key");
            last = Some(
                <ListedKey>::try_from(key.as_slice())
                    .map_err(|_| StoreError::Codec("a catalogue key".into()))?,
            );
            let Some(agent) = joined::<Agent>(row, "a_")? else {
                continue;
            };
            let profile: Profile = record(row)?;
            if keep(&profile, &agent) {
                page.listings.push((profile, agent));
            }
        }
        Ok(page)
    }
}

impl MarketplaceRecords for PgStore {
    fn marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Profile>> {
        let store = self.clone();
        Box::pin(async move {
            let profile = store.profile_on_pg(agent).await?;
            Ok(profile.filter(|p| p.org_id == org))
        })
    }

    fn marketplace_listing(&self, agent: AgentId) -> StoreFuture<Option<(Profile, Agent)>> {
        Box::pin(self.clone().listing_on_pg(agent))
    }

    fn update_marketplace_profile(
        &self,
        org: OrgId,
        agent: AgentId,
        avatar: AvatarChange,
        change: ProfileSwap,
    ) -> StoreFuture<Updated<Profile, ApiError>> {
        Box::pin(
            self.clone()
                .update_profile_on_pg((org, agent), avatar, change),
        )
    }

    fn delete_marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<bool> {
        Box::pin(self.clone().delete_profile_on_pg(org, agent))
    }

    fn marketplace_avatar(&self, agent: AgentId) -> StoreFuture<Option<Vec<u8>>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let row = session
                .db()
                .query_opt(
                    "SELECT png FROM marketplace_avatars WHERE agent_id = $1",
                    &[&agent.0],
                )
                .await
                .map_err(db)?;
            Ok(row.map(|row| row.get(0)))
        })
    }

    fn marketplace_listed(
        &self,
        after: Option<ListedKey>,
        limit: usize,
        scan: usize,
        keep: ListingFilter,
    ) -> StoreFuture<ListedPage> {
        Box::pin(self.clone().listed_on_pg(after, (limit, scan), keep))
    }

    fn adopt_agent(
        &self,
        adoption: Adoption,
        keyed: Option<([u8; 32], String)>,
        answer: String,
    ) -> StoreFuture<Adopted> {
        Box::pin(self.clone().adopt_on_pg(adoption, keyed, answer))
    }
}
