//! Memories in the store (`knowledge.md` §5).
//!
//! | tree                | key                                           | value           |
//! |---------------------|-----------------------------------------------|-----------------|
//! | `memories`          | org ++ agent ++ memory (UUIDv7)               | `Memory`        |
//! | `memories_by_owner` | org ++ agent ++ owner (16 B) ++ memory        | empty           |
//! | `memory_hashes`     | org ++ agent ++ owner ++ content (16 B)       | memory          |
//! | `memory_counts`     | org                                           | u64 BE          |
//! | `memory_forgets`    | org ++ agent (or ALL) ++ owner (or ALL)       | `Forget`        |
//!
//! A write is one transaction: the memory, its indexes, the org's count,
//! and the owner's least recently recalled memory when the owner is at its
//! bound. Deleting an owner's memories writes a `Forget` marker that hides
//! every memory older than it at once; the purge removes them after.

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::{AgentId, MemoryId, OrgId, StoreError};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::changes::IndexChange;
use super::count;
use crate::knowledge::memory::{Memory, MemoryScope, Owner, content_key};
use crate::store::codec::{decode, encode};
use crate::store::{SledStore, abort, engine, tx_error};

/// The agent part of a marker for every agent; the owner part for every
/// owner.
const ALL: [u8; 16] = [0xff; 16];
/// How often a memory's `last_recalled_at` is written at most.
pub(crate) const RECALL_STAMP_EVERY: TimeDelta = TimeDelta::minutes(1);

/// The memory trees.
pub struct MemoryTrees {
    memories: sled::Tree,
    by_owner: sled::Tree,
    hashes: sled::Tree,
    counts: sled::Tree,
    forgets: sled::Tree,
    /// Held while a write counts and evicts, so two writes of one owner
    /// cannot both pass its bound.
    write_lock: std::sync::Mutex<()>,
}

impl MemoryTrees {
    /// The memories and the forgotten owners' markers (`confer migrate`).
    pub(crate) fn copied(&self) -> (&sled::Tree, &sled::Tree) {
        (&self.memories, &self.forgets)
    }

    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            memories: tree("memories")?,
            by_owner: tree("memories_by_owner")?,
            hashes: tree("memory_hashes")?,
            counts: tree("memory_counts")?,
            forgets: tree("memory_forgets")?,
            write_lock: std::sync::Mutex::new(()),
        })
    }
}

/// A marker hiding an owner's memories older than `before`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Forget {
    pub(crate) before: MemoryId,
}

/// The outcome of a memory write.
#[derive(Debug)]
pub enum MemoryWritten {
    /// Stored; `seq` is its index change (searchable once committed).
    Stored { memory: Box<Memory>, seq: u64 },
    /// The owner already has this content.
    Duplicate(Box<Memory>),
    /// The org holds `max_memories_per_org`.
    OrgFull,
}

fn memory_key(org: OrgId, agent: AgentId, id: MemoryId) -> Vec<u8> {
    [org.as_bytes().as_slice(), agent.as_bytes(), id.as_bytes()].concat()
}

fn owner_prefix(org: OrgId, agent: AgentId, owner: &Owner) -> Vec<u8> {
    [org.as_bytes().as_slice(), agent.as_bytes(), &owner.key()].concat()
}

fn id_at_end(key: &[u8]) -> Result<MemoryId, StoreError> {
    let bytes: [u8; 16] = key[key.len() - 16..]
        .try_into()
        .map_err(|_| StoreError::Codec("memory key".into()))?;
    Ok(MemoryId::from_bytes(bytes))
}

impl SledStore {
    /// Stores `memory` unless its owner has the same content; past the
    /// owner's `max_per_owner` the least recently recalled goes in the same
    /// transaction.
    pub fn put_memory(
        &self,
        memory: Memory,
        max_per_owner: usize,
        max_per_org: u64,
    ) -> Result<MemoryWritten, StoreError> {
        let _writing = self.gate.writing();
        let m = &self.knowledge.memories;
        let _serial = m
            .write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (org, agent, owner) = (memory.org_id, memory.agent_id, memory.owner());
        let prefix = owner_prefix(org, agent, &owner);
        let hash = [prefix.as_slice(), &content_key(&memory.content)].concat();
        if let Some(existing) = m.hashes.get(&hash).map_err(engine)?
            && let Some(found) = self.memory(org, agent, id_at_end(&existing)?)?
        {
            return Ok(MemoryWritten::Duplicate(Box::new(found)));
        }
        if count(m.counts.get(org.as_bytes()).map_err(engine)?.as_deref()) >= max_per_org {
            return Ok(MemoryWritten::OrgFull);
        }
        // Only an owner at its bound has its memories read and ordered.
        let mut evicted = Vec::new();
        if m.by_owner.scan_prefix(&prefix).count() + 1 > max_per_owner.max(1) {
            let mut owned = Vec::new();
            for key in m.by_owner.scan_prefix(&prefix).keys() {
                let id = id_at_end(&key.map_err(engine)?)?;
                if let Some(found) = self.memory(org, agent, id)? {
                    owned.push(found);
                }
            }
            owned.sort_by_key(Memory::eviction_key);
            let over = (owned.len() + 1).saturating_sub(max_per_owner.max(1));
            evicted = owned.into_iter().take(over).collect();
        }
        let key = memory_key(org, agent, memory.id);
        let by_owner = [prefix.as_slice(), memory.id.as_bytes()].concat();
        (&m.memories, &m.by_owner, &m.hashes, &m.counts)
            .transaction(|(memories, owners, hashes, counts)| {
                let mut total = count(counts.get(org.as_bytes())?.as_deref()) + 1;
                for old in &evicted {
                    memories.remove(memory_key(org, agent, old.id))?;
                    owners.remove([prefix.as_slice(), old.id.as_bytes()].concat())?;
                    let old_hash = [prefix.as_slice(), &content_key(&old.content)].concat();
                    if hashes.get(&old_hash)?.as_deref() == Some(old.id.as_bytes().as_slice()) {
                        hashes.remove(old_hash)?;
                    }
                    total = total.saturating_sub(1);
                }
                memories.insert(key.as_slice(), encode(&memory).map_err(abort)?)?;
                owners.insert(by_owner.as_slice(), &[])?;
                hashes.insert(hash.as_slice(), memory.id.as_bytes())?;
                counts.insert(org.as_bytes(), &total.to_be_bytes())?;
                Ok(())
            })
            .map_err(tx_error)?;
        for old in &evicted {
            self.log_index_change(&IndexChange::RemoveMemory { memory_id: old.id })?;
        }
        let seq = self.log_index_change(&IndexChange::AddMemory {
            org_id: org,
            agent_id: agent,
            memory_id: memory.id,
        })?;
        Ok(MemoryWritten::Stored {
            memory: Box::new(memory),
            seq,
        })
    }

    /// The memory `id` of `agent`, unless deleted or hidden by a marker.
    pub fn memory(
        &self,
        org: OrgId,
        agent: AgentId,
        id: MemoryId,
    ) -> Result<Option<Memory>, StoreError> {
        let m = &self.knowledge.memories;
        let Some(found) = Self::get::<Memory>(&m.memories, &memory_key(org, agent, id))? else {
            return Ok(None);
        };
        Ok((!self.forgotten(&found)?).then_some(found))
    }

    /// Whether a marker hides `memory`.
    fn forgotten(&self, memory: &Memory) -> Result<bool, StoreError> {
        let m = &self.knowledge.memories;
        let (org, agent, owner) = (memory.org_id, memory.agent_id, memory.owner().key());
        for (agent_part, owner_part) in [
            (*agent.as_bytes(), owner),
            (ALL, owner),
            (*agent.as_bytes(), ALL),
        ] {
            let key = [org.as_bytes().as_slice(), &agent_part, &owner_part].concat();
            if let Some(bytes) = m.forgets.get(key).map_err(engine)? {
                let forget: Forget = decode(&bytes)?;
                if memory.id < forget.before {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// A page of `agent`'s memories of `owners` (all owners when `None`;
    /// only those of scope `only` when set), newest first, strictly older
    /// than `before`; with the next cursor.
    pub fn memories(
        &self,
        org: OrgId,
        agent: AgentId,
        (owners, only): (Option<&[Owner]>, Option<MemoryScope>),
        before: Option<MemoryId>,
        limit: usize,
    ) -> Result<(Vec<Memory>, Option<MemoryId>), StoreError> {
        let m = &self.knowledge.memories;
        let prefix = [org.as_bytes().as_slice(), agent.as_bytes()].concat();
        let upper = match before {
            Some(id) => [prefix.as_slice(), id.as_bytes()].concat(),
            None => [prefix.as_slice(), &ALL].concat(),
        };
        let mut page = Vec::new();
        for entry in m.memories.range(prefix.clone()..upper).rev() {
            let memory: Memory = decode(&entry.map_err(engine)?.1)?;
            if owners.is_some_and(|owners| !owners.contains(&memory.owner()))
                || only.is_some_and(|scope| scope != memory.scope)
                || self.forgotten(&memory)?
            {
                continue;
            }
            if page.len() == limit {
                return Ok((page.clone(), page.last().map(|m: &Memory| m.id)));
            }
            page.push(memory);
        }
        Ok((page, None))
    }

    /// Deletes one memory; false if there was none.
    pub fn delete_memory(
        &self,
        org: OrgId,
        agent: AgentId,
        id: MemoryId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let Some(memory) = self.memory(org, agent, id)? else {
            return Ok(false);
        };
        self.remove_memories(&[memory])?;
        Ok(true)
    }

    /// Removes `doomed` (one transaction) and drops them from the index.
    fn remove_memories(&self, doomed: &[Memory]) -> Result<(), StoreError> {
        let m = &self.knowledge.memories;
        (&m.memories, &m.by_owner, &m.hashes, &m.counts)
            .transaction(|(memories, owners, hashes, counts)| {
                for memory in doomed {
                    let (org, agent) = (memory.org_id, memory.agent_id);
                    if memories
                        .remove(memory_key(org, agent, memory.id))?
                        .is_none()
                    {
                        continue;
                    }
                    let prefix = owner_prefix(org, agent, &memory.owner());
                    owners.remove([prefix.as_slice(), memory.id.as_bytes()].concat())?;
                    let hash = [prefix.as_slice(), &content_key(&memory.content)].concat();
                    if hashes.get(&hash)?.as_deref() == Some(memory.id.as_bytes().as_slice()) {
                        hashes.remove(hash)?;
                    }
                    let left = count(counts.get(org.as_bytes())?.as_deref()).saturating_sub(1);
                    counts.insert(org.as_bytes(), &left.to_be_bytes())?;
                }
                Ok(())
            })
            .map_err(tx_error)?;
        for memory in doomed {
            self.log_index_change(&IndexChange::RemoveMemory {
                memory_id: memory.id,
            })?;
        }
        Ok(())
    }

    /// Hides at once every memory of `owner` (every owner when `None`) of
    /// `agent` (every agent when `None`); the purge removes them.
    pub fn forget_memories(
        &self,
        org: OrgId,
        agent: Option<AgentId>,
        owner: Option<&Owner>,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = [
            org.as_bytes().as_slice(),
            agent.as_ref().map_or(&ALL, |a| a.as_bytes()),
            &owner.map_or(ALL, Owner::key),
        ]
        .concat();
        let marker = Forget {
            before: MemoryId::new(),
        };
        self.knowledge
            .memories
            .forgets
            .insert(key, encode(&marker)?)
            .map_err(engine)?;
        Ok(())
    }

    /// One step of the memory purge: up to `batch` memories a marker hides;
    /// the marker once none is left. Returns how much it did.
    pub fn memory_purge_step(&self, batch: usize) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let m = &self.knowledge.memories;
        let Some(entry) = m.forgets.iter().next() else {
            return Ok(0);
        };
        let (marker_key, value) = entry.map_err(engine)?;
        let marker: Forget = decode(&value)?;
        let (org, agent_part, owner_part) =
            (&marker_key[..16], &marker_key[16..32], &marker_key[32..48]);
        let prefix = if agent_part == ALL {
            org.to_vec()
        } else {
            [org, agent_part].concat()
        };
        let mut doomed = Vec::new();
        for entry in m.memories.scan_prefix(&prefix) {
            let memory: Memory = decode(&entry.map_err(engine)?.1)?;
            if memory.id < marker.before
                && (owner_part == ALL || owner_part == memory.owner().key())
            {
                doomed.push(memory);
                if doomed.len() == batch {
                    break;
                }
            }
        }
        if doomed.is_empty() {
            // Only if it is still this marker (a newer one replaces it).
            let _ = m
                .forgets
                .compare_and_swap(&marker_key, Some(value), None::<&[u8]>)
                .map_err(engine)?;
            return Ok(1);
        }
        self.remove_memories(&doomed)?;
        Ok(doomed.len())
    }

    /// Stamps `last_recalled_at` on the memories `ids` not stamped in the
    /// last minute.
    pub fn memories_recalled(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: &[MemoryId],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        for id in ids {
            let _ = crate::store::update::swap(
                &self.knowledge.memories.memories,
                &memory_key(org, agent, *id),
                |bytes| bytes.map(decode::<Memory>).transpose(),
                |mut memory| {
                    if memory
                        .last_recalled_at
                        .is_none_or(|at| now - at >= RECALL_STAMP_EVERY)
                    {
                        memory.last_recalled_at = Some(now);
                    }
                    Ok::<_, StoreError>(memory)
                },
            )?;
        }
        Ok(())
    }

    /// Every memory's place (what a rebuilt index holds).
    pub fn memory_ids(&self) -> Result<Vec<(OrgId, AgentId, MemoryId)>, StoreError> {
        self.knowledge
            .memories
            .memories
            .iter()
            .values()
            .map(|value| {
                let memory: Memory = decode(&value.map_err(engine)?)?;
                Ok((memory.org_id, memory.agent_id, memory.id))
            })
            .collect()
    }
}
