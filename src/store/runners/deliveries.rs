//! Completion webhooks' deliveries and secrets (see `crate::webhooks`).
//!
//! | tree                 | key                                   | value            |
//! |----------------------|---------------------------------------|------------------|
//! | `deliveries`         | org ++ runner ++ created µs BE ++ id  | `DeliveryRecord` |
//! | `delivery_queue`     | next attempt µs BE ++ id              | its `deliveries` key |
//! | `delivery_pending`   | org                                   | u64 BE           |
//! | `runner_secrets`     | org ++ runner                         | sealed `whsec_…` |
//!
//! A delivery is written by [`EventTx::report`] inside the transaction
//! that changes its run's status, so a reported change always has its
//! delivery and an unreported one never has.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunnerId, StoreError};
use secrecy::SecretString;
use sled::Transactional;
use sled::transaction::TransactionalTree;
use uuid::Uuid;

use super::{Tx, read_u64};
use crate::runners::{RunRecord, Runner};
use crate::secrets::aad;
use crate::store::codec::{decode, encode};
use crate::store::keys;
use crate::store::{Page, SledStore, abort, engine, tx_error};
use crate::webhooks::{
    Delivery, DeliveryRecord, DeliveryStatus, MAX_PENDING_PER_ORG, delivery_id, event_of,
};

/// The delivery trees.
pub struct DeliveryTrees {
    pub(super) deliveries: sled::Tree,
    pub(super) queue: sled::Tree,
    pub(super) pending: sled::Tree,
    secrets: sled::Tree,
}

impl DeliveryTrees {
    /// Opens (or creates) the trees in `db`.
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            deliveries: tree("deliveries")?,
            queue: tree("delivery_queue")?,
            pending: tree("delivery_pending")?,
            secrets: tree("runner_secrets")?,
        })
    }
}

fn delivery_key(record: &DeliveryRecord) -> Vec<u8> {
    [
        record.org_id.as_bytes().as_slice(),
        record.runner_id.as_bytes(),
        &keys::micros(record.delivery.created_at).to_be_bytes(),
        record.delivery.id.as_bytes(),
    ]
    .concat()
}

fn queue_key(at: DateTime<Utc>, id: Uuid) -> Vec<u8> {
    [&keys::micros(at).to_be_bytes()[..], id.as_bytes()].concat()
}

fn secret_aad(org: OrgId, runner: RunnerId) -> String {
    aad(
        &org.to_string(),
        "runner",
        &runner.to_string(),
        "completion_secret",
    )
}

/// The trees a status change writes its delivery to.
pub(in crate::store) struct EventTx<'a> {
    pub runners: &'a TransactionalTree,
    pub deliveries: &'a TransactionalTree,
    pub queue: &'a TransactionalTree,
    pub pending: &'a TransactionalTree,
}

impl EventTx<'_> {
    /// Writes the delivery of `new`'s status if its runner's completion
    /// webhook lists the event; counts it in `new.progress`.
    pub fn report(&self, new: &mut RunRecord) -> Result<(), Tx> {
        let Some(event) = event_of(new.status) else {
            return Ok(());
        };
        let runner_key = keys::pair(new.org_id.as_bytes(), new.runner_id.as_bytes());
        let runner: Option<Runner> = self
            .runners
            .get(runner_key)?
            .map(|b| decode(&b).map_err(abort))
            .transpose()?;
        let Some(hook) = runner
            .filter(|r| r.deleted_at.is_none())
            .and_then(|r| r.completion_webhook)
        else {
            return Ok(());
        };
        if !hook.events.is_empty() && !hook.events.iter().any(|e| e == event) {
            return Ok(());
        }
        new.progress.deliveries += 1;
        let now = Utc::now();
        let body = serde_json::json!({
            "type": event,
            "timestamp": now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "data": new.run,
        })
        .to_string();
        let pending = read_u64(self.pending.get(new.org_id.as_bytes())?);
        let full = pending >= MAX_PENDING_PER_ORG;
        let record = DeliveryRecord {
            delivery: Delivery {
                id: delivery_id(new.id, event, new.progress.deliveries),
                run_id: new.id,
                event: event.to_owned(),
                status: if full {
                    DeliveryStatus::Failed
                } else {
                    DeliveryStatus::Pending
                },
                attempts: 0,
                last_status_code: None,
                last_error: full.then(|| "queue full".to_owned()),
                next_attempt_at: (!full).then_some(now),
                created_at: now,
            },
            org_id: new.org_id,
            runner_id: new.runner_id,
            body,
        };
        let key = delivery_key(&record);
        if !full {
            self.queue
                .insert(queue_key(now, record.delivery.id), key.as_slice())?;
            self.pending
                .insert(new.org_id.as_bytes(), &(pending + 1).to_be_bytes())?;
        }
        self.deliveries
            .insert(key, encode(&record).map_err(abort)?)?;
        Ok(())
    }
}

impl SledStore {
    /// Seals and keeps a runner's completion secret (`None` forgets it).
    pub fn put_runner_secret(
        &self,
        org: OrgId,
        runner: RunnerId,
        plain: Option<&str>,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let tree = &self.runners.deliveries.secrets;
        let key = keys::pair(org.as_bytes(), runner.as_bytes());
        match plain {
            Some(plain) => {
                let sealed = self
                    .secrets
                    .seal(plain, &secret_aad(org, runner))
                    .map_err(|e| StoreError::Engine(e.to_string()))?;
                tree.insert(key, sealed.as_bytes()).map_err(engine)?;
            }
            None => {
                tree.remove(key).map_err(engine)?;
            }
        }
        Ok(())
    }

    /// A runner's completion secret in plain text.
    pub fn runner_secret(
        &self,
        org: OrgId,
        runner: RunnerId,
    ) -> Result<Option<SecretString>, StoreError> {
        let key = keys::pair(org.as_bytes(), runner.as_bytes());
        let Some(sealed) = self.runners.deliveries.secrets.get(key).map_err(engine)? else {
            return Ok(None);
        };
        let sealed = String::from_utf8_lossy(&sealed).into_owned();
        self.secrets
            .open(&sealed, &secret_aad(org, runner))
            .map(Some)
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    /// Pending deliveries due at `now`, earliest first.
    pub fn due_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let t = &self.runners.deliveries;
        let end = (keys::micros(now) + 1).to_be_bytes();
        let mut out = Vec::new();
        for entry in t.queue.range(..end.as_slice()).values().take(limit) {
            let key = entry.map_err(engine)?;
            if let Some(record) = Self::get::<DeliveryRecord>(&t.deliveries, &key)? {
                out.push(record);
            }
        }
        Ok(out)
    }

    /// The earliest pending attempt.
    pub fn next_delivery_at(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(self
            .runners
            .deliveries
            .queue
            .first()
            .map_err(engine)?
            .and_then(|(key, _)| key.get(..8).map(keys::read_u64))
            .map(keys::from_micros))
    }

    /// Stores an attempt's outcome: `record` as it now is (pending with
    /// its next attempt, or ended), moving it in the queue.
    pub fn record_attempt(
        &self,
        was_due: DateTime<Utc>,
        record: &DeliveryRecord,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners.deliveries;
        let key = delivery_key(record);
        (&t.deliveries, &t.queue, &t.pending)
            .transaction(|(deliveries, queue, pending)| {
                queue.remove(queue_key(was_due, record.delivery.id))?;
                match record.delivery.next_attempt_at {
                    Some(at) if record.delivery.status == DeliveryStatus::Pending => {
                        queue.insert(queue_key(at, record.delivery.id), key.as_slice())?;
                    }
                    _ => {
                        let count = read_u64(pending.get(record.org_id.as_bytes())?);
                        pending.insert(
                            record.org_id.as_bytes(),
                            &count.saturating_sub(1).to_be_bytes(),
                        )?;
                    }
                }
                deliveries.insert(key.as_slice(), encode(record).map_err(abort)?)?;
                Ok(())
            })
            .map_err(tx_error)
    }

    /// A runner's deliveries, newest first, older than `before`, those
    /// `keep` accepts.
    pub fn deliveries(
        &self,
        org: OrgId,
        runner: RunnerId,
        before: Option<DateTime<Utc>>,
        limit: usize,
        keep: impl Fn(&Delivery) -> bool,
    ) -> Result<Page<Delivery>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        self.timeline_page(
            &self.runners.deliveries.deliveries,
            &prefix,
            before,
            limit,
            |_, value| {
                let record: DeliveryRecord = decode(value)?;
                Ok(Some(record.delivery).filter(|d| keep(d)))
            },
            |d| d.created_at,
        )
    }
}
