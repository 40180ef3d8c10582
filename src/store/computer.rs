//! Computer instances in the store (`computer.md` §2; see
//! `crate::computer`), and each agent's computer configuration
//! (`agent_configs`, kind [`ConfigKind::Computer`]).
//!
//! | tree                 | key                | value        |
//! |----------------------|--------------------|--------------|
//! | `computer_instances` | org ++ instance    | `Instance`   |
//! | `computer_by_thread` | org ++ thread      | instance id  |
//!
//! A thread has at most one instance: its creation checks the thread's
//! entry in the same transaction. State changes are compare-and-swap, so
//! a sweep and a call never both act on one instance.

use confer_actors::{AgentId, InstanceId, OrgId, StoreError, ThreadId};
use sled::Transactional;

use super::codec::{decode, encode};
use super::keys::{self, ConfigKind};
use super::update::{Updated, existing, or_default, swap};
use super::{SledStore, abort, engine, tx_error};
use crate::computer::config::ComputerConfig;
use crate::computer::instances::Instance;

/// The instance trees.
pub struct ComputerTrees {
    instances: sled::Tree,
    by_thread: sled::Tree,
}

impl ComputerTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            instances: tree("computer_instances")?,
            by_thread: tree("computer_by_thread")?,
        })
    }
}

/// What creating a thread's instance found.
#[derive(Debug)]
pub enum InstanceCreated {
    Created(Instance),
    /// The thread has one already.
    Exists(Instance),
}

impl SledStore {
    /// An agent's computer configuration (the defaults when unset).
    pub fn computer_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<ComputerConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Computer);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// Changes an agent's computer configuration (from the defaults).
    pub fn update_computer_config<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(ComputerConfig) -> Result<ComputerConfig, E>,
    ) -> Result<Updated<ComputerConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Computer);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// An instance.
    pub fn instance(&self, org: OrgId, id: InstanceId) -> Result<Option<Instance>, StoreError> {
        Self::get(
            &self.computer.instances,
            &keys::pair(org.as_bytes(), id.as_bytes()),
        )
    }

    /// A thread's instance, if it has one.
    pub fn thread_instance(
        &self,
        org: OrgId,
        thread: ThreadId,
    ) -> Result<Option<Instance>, StoreError> {
        let key = keys::pair(org.as_bytes(), thread.as_bytes());
        let Some(id) = self.computer.by_thread.get(key).map_err(engine)? else {
            return Ok(None);
        };
        let id: [u8; 16] = id
            .as_ref()
            .try_into()
            .map_err(|_| StoreError::Codec("computer_by_thread value".into()))?;
        self.instance(org, InstanceId::from_bytes(id))
    }

    /// Stores a thread's new instance, unless the thread has one.
    pub fn create_instance(&self, instance: &Instance) -> Result<InstanceCreated, StoreError> {
        let _writing = self.gate.writing();
        let org = instance.org_id;
        let Some(thread) = instance.thread_id else {
            return Err(StoreError::Codec("an instance without a thread".into()));
        };
        let thread_key = keys::pair(org.as_bytes(), thread.as_bytes());
        let record_key = keys::pair(org.as_bytes(), instance.id.as_bytes());
        let record = encode(instance)?;
        let outcome = (&self.computer.instances, &self.computer.by_thread).transaction(
            |(instances, by_thread)| {
                if let Some(id) = by_thread.get(thread_key)? {
                    let key = [org.as_bytes().as_slice(), &id].concat();
                    let Some(bytes) = instances.get(key)? else {
                        return Err(abort(StoreError::Codec(
                            "a dangling computer_by_thread entry".into(),
                        )));
                    };
                    return Ok(Err(bytes));
                }
                instances.insert(&record_key[..], record.as_slice())?;
                by_thread.insert(&thread_key[..], instance.id.as_bytes().as_slice())?;
                Ok(Ok(()))
            },
        );
        match outcome.map_err(tx_error)? {
            Ok(()) => Ok(InstanceCreated::Created(instance.clone())),
            Err(bytes) => Ok(InstanceCreated::Exists(decode(&bytes)?)),
        }
    }

    /// Changes an instance (compare-and-swap); `Gone` once it was deleted.
    pub fn update_instance<E>(
        &self,
        org: OrgId,
        id: InstanceId,
        change: impl FnMut(Instance) -> Result<Instance, E>,
    ) -> Result<Updated<Instance, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        swap(&self.computer.instances, &key, existing, change)
    }

    /// The org's instances, oldest first.
    pub fn org_instances(&self, org: OrgId) -> Result<Vec<Instance>, StoreError> {
        self.computer
            .instances
            .scan_prefix(org.as_bytes())
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// Every instance of every org (the restart and the sweeps).
    pub fn all_instances(&self) -> Result<Vec<Instance>, StoreError> {
        self.computer
            .instances
            .iter()
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// Deletes an instance's record and its thread's entry; whether there
    /// was one.
    pub fn delete_instance(&self, org: OrgId, id: InstanceId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let record_key = keys::pair(org.as_bytes(), id.as_bytes());
        let outcome = (&self.computer.instances, &self.computer.by_thread).transaction(
            |(instances, by_thread)| {
                let Some(bytes) = instances.remove(&record_key[..])? else {
                    return Ok(false);
                };
                let instance: Instance = match decode(&bytes) {
                    Ok(instance) => instance,
                    Err(error) => return Err(abort(error)),
                };
                if let Some(thread) = instance.thread_id {
                    let thread_key = keys::pair(org.as_bytes(), thread.as_bytes());
                    if by_thread.get(thread_key)?.as_deref() == Some(id.as_bytes().as_slice()) {
                        by_thread.remove(&thread_key[..])?;
                    }
                }
                Ok(true)
            },
        );
        outcome.map_err(tx_error)
    }
}
