//! Marketplace profiles, the catalogue's index and avatars
//! (`marketplace-channels.md` §2–§5; rules in `crate::marketplace`).
//!
//! | tree                   | key                           | value     |
//! |------------------------|-------------------------------|-----------|
//! | `marketplace_profiles` | agent                         | `Profile` |
//! | `marketplace_listed`   | newest-first millis ++ agent  | org       |
//! | `marketplace_avatars`  | agent                         | PNG bytes |
//!
//! Keyed by agent alone (agent ids are unique on the instance): an avatar
//! is fetched by agent id without a bearer. Every read that a caller makes
//! names its org, and a profile of another org is absent to it. A change
//! is one transaction over the profile (compare-and-swap on the bytes
//! read), its index entry, its avatar and the agent's record, so a change
//! racing the agent's delete never brings the profile back.

use chrono::{DateTime, Utc};
use confer_actors::{Agent, AgentId, OrgId, StoreError};
use sled::Transactional;

mod adopt;

pub use adopt::{Adopted, KeyedAdoption};

use super::codec::{decode, encode};
use super::keys;
use super::update::Updated;
use super::{SledStore, abort, engine, tx_error};
use crate::marketplace::profile::Profile;

/// The marketplace trees.
pub struct MarketplaceTrees {
    pub(in crate::store) profiles: sled::Tree,
    listed: sled::Tree,
    pub(in crate::store) avatars: sled::Tree,
}

impl MarketplaceTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            profiles: tree("marketplace_profiles")?,
            listed: tree("marketplace_listed")?,
            avatars: tree("marketplace_avatars")?,
        })
    }
}

/// What a profile change does to the avatar.
pub enum AvatarChange {
    Keep,
    Set(Vec<u8>),
    Remove,
}

/// The catalogue index key of a listed profile: newest first.
pub fn listed_key(updated_at: DateTime<Utc>, agent: AgentId) -> [u8; 24] {
    let mut key = [0u8; 24];
    let millis = updated_at.timestamp_millis().max(0) as u64;
    key[..8].copy_from_slice(&(u64::MAX - millis).to_be_bytes());
    key[8..].copy_from_slice(agent.as_bytes());
    key
}

/// A profile's catalogue index key, while it is listed.
pub(crate) fn index_entry(profile: &Profile) -> Option<[u8; 24]> {
    match (profile.listed, profile.updated_at) {
        (true, Some(at)) => Some(listed_key(at, profile.agent_id)),
        _ => None,
    }
}

/// One page of the catalogue's scan.
pub struct ListedPage {
    /// Each listing with its agent.
    pub listings: Vec<(Profile, Agent)>,
    /// The index key to continue after, when the scan stopped early.
    pub next: Option<[u8; 24]>,
}

impl SledStore {
    /// An agent's stored profile, if its org has one.
    pub fn marketplace_profile(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Option<Profile>, StoreError> {
        let profile: Option<Profile> = Self::get(&self.marketplace.profiles, agent.as_bytes())?;
        Ok(profile.filter(|p| p.org_id == org))
    }

    /// A profile and its agent by agent id alone (the catalogue's `use`;
    /// the caller decides who may see it).
    pub fn marketplace_listing(
        &self,
        agent: AgentId,
    ) -> Result<Option<(Profile, Agent)>, StoreError> {
        let Some(profile) = Self::get::<Profile>(&self.marketplace.profiles, agent.as_bytes())?
        else {
            return Ok(None);
        };
        let key = keys::pair(profile.org_id.as_bytes(), agent.as_bytes());
        Ok(Self::get::<Agent>(&self.agents, &key)?.map(|a| (profile, a)))
    }

    /// Changes an agent's profile (from [`Profile::unsaved`]) and its
    /// avatar; `Gone` when the agent is absent or deleted.
    pub fn update_marketplace_profile<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        avatar: AvatarChange,
        mut change: impl FnMut(Profile) -> Result<Profile, E>,
    ) -> Result<Updated<Profile, E>, StoreError> {
        let _writing = self.gate.writing();
        let agent_key = keys::pair(org.as_bytes(), agent.as_bytes());
        let trees = &self.marketplace;
        loop {
            let old = trees.profiles.get(agent.as_bytes()).map_err(engine)?;
            let before = match &old {
                Some(bytes) => decode::<Profile>(bytes)?,
                None => Profile::unsaved(org, agent),
            };
            if before.org_id != org {
                return Ok(Updated::Gone);
            }
            let after = match change(before.clone()) {
                Ok(after) => after,
                Err(refusal) => return Ok(Updated::Refused(refusal)),
            };
            let bytes = encode(&after)?;
            let outcome = (&self.agents, &trees.profiles, &trees.listed, &trees.avatars)
                .transaction(|(agents, profiles, listed, avatars)| {
                    let live = match agents.get(agent_key)? {
                        Some(record) => !decode::<Agent>(&record).map_err(abort)?.is_deleted(),
                        None => false,
                    };
                    if !live {
                        return Ok(Some(false));
                    }
                    if profiles.get(agent.as_bytes())? != old {
                        return Ok(None); // changed meanwhile: read again
                    }
                    if let Some(entry) = index_entry(&before) {
                        listed.remove(&entry[..])?;
                    }
                    if let Some(entry) = index_entry(&after) {
                        listed.insert(&entry[..], org.as_bytes().as_slice())?;
                    }
                    match &avatar {
                        AvatarChange::Keep => {}
                        AvatarChange::Set(png) => {
                            avatars.insert(agent.as_bytes().as_slice(), png.as_slice())?;
                        }
                        AvatarChange::Remove => {
                            avatars.remove(agent.as_bytes().as_slice())?;
                        }
                    }
                    profiles.insert(agent.as_bytes().as_slice(), bytes.as_slice())?;
                    Ok(Some(true))
                })
                .map_err(tx_error)?;
            match outcome {
                Some(true) => return Ok(Updated::Stored(after)),
                Some(false) => return Ok(Updated::Gone),
                None => continue,
            }
        }
    }

    /// Deletes an agent's profile, its listing and its avatar; whether
    /// there was one.
    pub fn delete_marketplace_profile(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.marketplace;
        (&trees.profiles, &trees.listed, &trees.avatars)
            .transaction(|(profiles, listed, avatars)| {
                let Some(bytes) = profiles.get(agent.as_bytes())? else {
                    return Ok(false);
                };
                let profile: Profile = decode(&bytes).map_err(abort)?;
                if profile.org_id != org {
                    return Ok(false);
                }
                if let Some(entry) = index_entry(&profile) {
                    listed.remove(&entry[..])?;
                }
                avatars.remove(agent.as_bytes().as_slice())?;
                profiles.remove(agent.as_bytes().as_slice())?;
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// An agent's avatar (public data: no org).
    pub fn marketplace_avatar(&self, agent: AgentId) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .marketplace
            .avatars
            .get(agent.as_bytes())
            .map_err(engine)?
            .map(|bytes| bytes.to_vec()))
    }

    /// Listed profiles and their agents newest first, after the index key
    /// `after`, that `keep` admits: at most `limit`, scanning at most `scan` entries.
    pub fn marketplace_listed(
        &self,
        after: Option<[u8; 24]>,
        limit: usize,
        scan: usize,
        keep: impl Fn(&Profile, &Agent) -> bool,
    ) -> Result<ListedPage, StoreError> {
        let trees = &self.marketplace;
        let entries = match after {
            Some(key) => trees.listed.range((
                std::ops::Bound::Excluded(key.to_vec()),
                std::ops::Bound::Unbounded,
            )),
            None => trees.listed.iter(),
        };
        let mut page = ListedPage {
            listings: Vec::new(),
            next: None,
        };
        // A page ends after the last entry it looked at.
        let mut last = None;
        for (scanned, entry) in entries.enumerate() {
            if scanned == scan || page.listings.len() == limit {
                page.next = last;
                break;
            }
            let (key, org) = entry.map_err(engine)?;
            let index_key: [u8; 24] = key
                .as_ref()
                .try_into()
                .map_err(|_| StoreError::Codec("marketplace_listed key".into()))?;
            last = Some(index_key);
            let org: [u8; 16] = org
                .as_ref()
                .try_into()
                .map_err(|_| StoreError::Codec("marketplace_listed value".into()))?;
            let Some(profile) = Self::get::<Profile>(&trees.profiles, &index_key[8..])? else {
                continue;
            };
            let agent_key = keys::pair(&org, profile.agent_id.as_bytes());
            let Some(agent) = Self::get::<Agent>(&self.agents, &agent_key)? else {
                continue;
            };
            if keep(&profile, &agent) {
                page.listings.push((profile, agent));
            }
        }
        Ok(page)
    }
}
