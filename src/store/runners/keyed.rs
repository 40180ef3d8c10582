//! Keyed run creation: a run made with its webhook nonce and its
//! `Idempotency-Key` in one transaction (webhooks and run creates), and
//! the keys of resumes. The trees are the parent's `webhook_nonces` and
//! `webhook_keys` (see `triggers`).

use chrono::{DateTime, Duration, Utc};
use confer_actors::{RunId, StoreError, Thread, TriggerId};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::{NewRunTx, RunCreated};
use crate::runners::RunRecord;
use crate::runners::triggers::{KEY_KEEP_HOURS, NONCE_KEEP_SECS};
use crate::store::codec::{decode, encode};
use crate::store::keys;
use crate::store::{SledStore, abort, engine, tx_error};

/// An idempotency key's run: the request's hash and when it was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebhookKey {
    pub run_id: RunId,
    pub request: String,
    pub created_at: DateTime<Utc>,
}

/// A keyed run creation's request in the run's transaction.
pub struct KeyedRunRequest<'a> {
    /// The trigger (a webhook), or the runner (a run create).
    pub scope: [u8; 16],
    /// The signed request's nonce.
    pub nonce: Option<&'a str>,
    /// SHA-256 of the idempotency key, and the request's hash.
    pub key: Option<([u8; 32], String)>,
}

/// What a webhook's run creation did.
#[derive(Debug)]
pub enum KeyedRun {
    Created(Box<RunRecord>),
    /// The key's run (the same request).
    Replayed(RunId),
    /// The key was used for another request.
    KeyReused,
    /// The nonce was used within the last ten minutes.
    NonceUsed,
    QueueFull,
    RunnerGone,
}

fn nonce_key(scope: &[u8; 16], nonce: &str) -> Vec<u8> {
    [scope.as_slice(), nonce.as_bytes()].concat()
}

fn scoped_key(scope: &[u8; 16], key: &[u8; 32]) -> Vec<u8> {
    [scope.as_slice(), key].concat()
}

impl SledStore {
    /// Whether `nonce` was used for the trigger in the last ten minutes.
    pub fn nonce_used(&self, trigger: TriggerId, nonce: &str) -> Result<bool, StoreError> {
        let now = keys::micros(Utc::now());
        Ok(self
            .runners
            .triggers
            .nonces
            .get(nonce_key(trigger.as_bytes(), nonce))
            .map_err(engine)?
            .is_some_and(|expiry| keys::read_u64(&expiry) > now))
    }

    /// The run an idempotency key (its SHA-256) of `scope` (a trigger,
    /// a runner or a run) named in the last 24 hours.
    pub fn run_key(
        &self,
        scope: &[u8; 16],
        key: &[u8; 32],
    ) -> Result<Option<WebhookKey>, StoreError> {
        let found: Option<WebhookKey> =
            Self::get(&self.runners.triggers.keys, &scoped_key(scope, key))?;
        Ok(found.filter(|k| Utc::now() - k.created_at < Duration::hours(KEY_KEEP_HOURS)))
    }

    /// Records an idempotency key of `scope` for `run` (a resume's).
    pub fn remember_run_key(
        &self,
        scope: &[u8; 16],
        key: &[u8; 32],
        run: RunId,
        request: String,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let entry = WebhookKey {
            run_id: run,
            request,
            created_at: Utc::now(),
        };
        self.runners
            .triggers
            .keys
            .insert(scoped_key(scope, key), encode(&entry)?)
            .map_err(engine)?;
        Ok(())
    }

    /// Creates a run with its nonce and idempotency key (a webhook's, or
    /// a keyed run create's), in one transaction; then its hidden
    /// `thread` (the worker makes one that a crash left out).
    pub fn create_keyed_run(
        &self,
        run: &RunRecord,
        thread: &Thread,
        max_queued: u32,
        request: &KeyedRunRequest<'_>,
    ) -> Result<KeyedRun, StoreError> {
        let _writing = self.gate.writing();
        let (r, t) = (&self.runners, &self.runners.triggers);
        let now = Utc::now();
        (
            &r.runners,
            &r.runs,
            &r.by_runner,
            &r.queue,
            &r.open,
            &r.backlog,
            &self.org_clocks,
            &t.nonces,
            &t.keys,
        )
            .transaction(
                |(runners, runs, by_runner, queue, open, backlog, clocks, nonces, keys_tree)| {
                    if let Some((key, hash)) = &request.key
                        && let Some(bytes) = keys_tree.get(scoped_key(&request.scope, key))?
                    {
                        let seen: WebhookKey = decode(&bytes).map_err(abort)?;
                        if now - seen.created_at < Duration::hours(KEY_KEEP_HOURS) {
                            return Ok(if &seen.request == hash {
                                KeyedRun::Replayed(seen.run_id)
                            } else {
                                KeyedRun::KeyReused
                            });
                        }
                    }
                    let nonce = request.nonce.map(|n| nonce_key(&request.scope, n));
                    if let Some(key) = &nonce {
                        let live = nonces
                            .get(key)?
                            .is_some_and(|e| keys::read_u64(&e) > keys::micros(now));
                        if live {
                            return Ok(KeyedRun::NonceUsed);
                        }
                    }
                    // A refused creation writes nothing, so neither is the
                    // nonce nor the key kept.
                    let created = NewRunTx {
                        runners,
                        runs,
                        by_runner,
                        queue,
                        open,
                        backlog,
                        clocks,
                    }
                    .create(run, max_queued)?;
                    let run = match created {
                        RunCreated::Stored(run) => run,
                        RunCreated::QueueFull => return Ok(KeyedRun::QueueFull),
                        RunCreated::RunnerGone => return Ok(KeyedRun::RunnerGone),
                    };
                    if let Some(key) = &nonce {
                        let expiry = keys::micros(now + Duration::seconds(NONCE_KEEP_SECS));
                        nonces.insert(key.as_slice(), &expiry.to_be_bytes())?;
                    }
                    if let Some((key, hash)) = &request.key {
                        let entry = WebhookKey {
                            run_id: run.id,
                            request: hash.clone(),
                            created_at: now,
                        };
                        keys_tree.insert(
                            scoped_key(&request.scope, key),
                            encode(&entry).map_err(abort)?,
                        )?;
                    }
                    Ok(KeyedRun::Created(run))
                },
            )
            .map_err(tx_error)
            .and_then(|created| {
                if matches!(created, KeyedRun::Created(_)) {
                    self.create_thread(thread, None)?;
                }
                Ok(created)
            })
    }
}
