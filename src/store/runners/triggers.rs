//! A runner's triggers and the inbound webhooks' state (see the parent's
//! layout for the run trees).
//!
//! | tree               | key                         | value                          |
//! |--------------------|-----------------------------|--------------------------------|
//! | `runner_triggers`  | org ++ runner ++ trigger    | `TriggerRecord` (secret sealed) |
//! | `webhook_tokens`   | SHA-256 of the token        | `TokenEntry`                   |
//! | `webhook_nonces`   | trigger ++ nonce            | expiry µs BE                   |
//! | `webhook_keys`     | scope ++ SHA-256 of key     | `WebhookKey`                   |
//!
//! Tokens are kept as their hashes only; a webhook's run, its nonce and
//! its idempotency key are written in one transaction. The keys tree also
//! holds run creates' and resumes' `Idempotency-Key`s (scope: the runner
//! or the run; the key's hash covers the caller).

use chrono::{DateTime, Duration, Utc};
use confer_actors::{OrgId, RunId, RunnerId, StoreError, TriggerId};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::{NewRunTx, RunCreated};
use crate::runners::RunRecord;
use crate::runners::triggers::{
    KEY_KEEP_HOURS, MAX_TRIGGERS_PER_RUNNER, NONCE_KEEP_SECS, TokenEntry, Trigger, TriggerRecord,
};
use crate::secrets::aad;
use crate::store::codec::{decode, encode};
use crate::store::keys;
use crate::store::update::{Updated, swap};
use crate::store::{SledStore, abort, engine, tx_error};

/// The trigger trees.
pub struct TriggerTrees {
    triggers: sled::Tree,
    tokens: sled::Tree,
    nonces: sled::Tree,
    keys: sled::Tree,
}

impl TriggerTrees {
    /// Opens (or creates) the trees in `db`.
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            triggers: tree("runner_triggers")?,
            tokens: tree("webhook_tokens")?,
            nonces: tree("webhook_nonces")?,
            keys: tree("webhook_keys")?,
        })
    }
}

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

fn trigger_key(org: OrgId, runner: RunnerId, id: TriggerId) -> Vec<u8> {
    [org.as_bytes().as_slice(), runner.as_bytes(), id.as_bytes()].concat()
}

fn nonce_key(scope: &[u8; 16], nonce: &str) -> Vec<u8> {
    [scope.as_slice(), nonce.as_bytes()].concat()
}

fn scoped_key(scope: &[u8; 16], key: &[u8; 32]) -> Vec<u8> {
    [scope.as_slice(), key].concat()
}

fn secret_aad(trigger: &Trigger) -> String {
    aad(
        &trigger.org_id.to_string(),
        "trigger",
        &trigger.id.to_string(),
        "signing_secret",
    )
}

fn hash_bytes(hex_hash: &str) -> Vec<u8> {
    hex::decode(hex_hash).unwrap_or_default()
}

impl SledStore {
    fn seal_trigger_secret(&self, trigger: &Trigger, plain: &str) -> Result<String, StoreError> {
        self.secrets
            .seal(plain, &secret_aad(trigger))
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    /// Stores a new trigger and its token (`record.signing_secret` in
    /// plain text, sealed here) unless the runner has
    /// [`MAX_TRIGGERS_PER_RUNNER`].
    pub fn put_trigger(&self, mut record: TriggerRecord) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners.triggers;
        let trigger = &record.trigger;
        let prefix = keys::pair(trigger.org_id.as_bytes(), trigger.runner_id.as_bytes());
        if t.triggers.scan_prefix(prefix).count() >= MAX_TRIGGERS_PER_RUNNER {
            return Ok(false);
        }
        if let Some(plain) = record.signing_secret.take() {
            record.signing_secret = Some(self.seal_trigger_secret(&record.trigger, &plain)?);
        }
        let trigger = &record.trigger;
        let entry = TokenEntry {
            org_id: trigger.org_id,
            runner_id: trigger.runner_id,
            trigger_id: trigger.id,
            retires_at: None,
        };
        (&t.triggers, &t.tokens)
            .transaction(|(triggers, tokens)| {
                tokens.insert(
                    hash_bytes(&record.token_hash),
                    encode(&entry).map_err(abort)?,
                )?;
                triggers.insert(
                    trigger_key(trigger.org_id, trigger.runner_id, trigger.id),
                    encode(&record).map_err(abort)?,
                )?;
                Ok(())
            })
            .map_err(tx_error)?;
        Ok(true)
    }

    /// The runner's triggers, oldest first.
    pub fn triggers(&self, org: OrgId, runner: RunnerId) -> Result<Vec<Trigger>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        self.runners
            .triggers
            .triggers
            .scan_prefix(prefix)
            .values()
            .map(|v| Ok(decode::<TriggerRecord>(&v.map_err(engine)?)?.trigger))
            .collect()
    }

    /// One trigger as stored (its secret sealed).
    pub fn trigger_record(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: TriggerId,
    ) -> Result<Option<TriggerRecord>, StoreError> {
        Self::get(
            &self.runners.triggers.triggers,
            &trigger_key(org, runner, id),
        )
    }

    /// The trigger's signing secret in plain text.
    pub fn trigger_secret(
        &self,
        record: &TriggerRecord,
    ) -> Result<Option<SecretString>, StoreError> {
        record
            .signing_secret
            .as_ref()
            .map(|sealed| {
                self.secrets
                    .open(sealed, &secret_aad(&record.trigger))
                    .map_err(|e| StoreError::Engine(e.to_string()))
            })
            .transpose()
    }

    /// Changes a trigger by compare-and-swap; `new_secret` (plain) is
    /// sealed. A new `token_hash` retires the old token after the
    /// trigger's `rotation_grace_secs` (at once when 0).
    pub fn update_trigger<E>(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: TriggerId,
        new_secret: Option<&str>,
        mut change: impl FnMut(TriggerRecord) -> Result<TriggerRecord, E>,
    ) -> Result<Updated<TriggerRecord, E>, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners.triggers;
        let key = trigger_key(org, runner, id);
        let old = self.trigger_record(org, runner, id)?;
        let sealed = match (new_secret, &old) {
            (Some(plain), Some(old)) => Some(self.seal_trigger_secret(&old.trigger, plain)?),
            _ => None,
        };
        let updated = swap(
            &t.triggers,
            &key,
            |bytes| bytes.map(decode::<TriggerRecord>).transpose(),
            |record| {
                let mut new = change(record)?;
                if let Some(sealed) = &sealed {
                    new.signing_secret = Some(sealed.clone());
                }
                Ok(new)
            },
        )?;
        // The token index follows the stored record.
        if let (Updated::Stored(new), Some(old)) = (&updated, &old)
            && new.token_hash != old.token_hash
        {
            if let Some((retired, _)) = &old.retired_token {
                t.tokens.remove(hash_bytes(retired)).map_err(engine)?;
            }
            let entry = |retires_at| TokenEntry {
                org_id: org,
                runner_id: runner,
                trigger_id: id,
                retires_at,
            };
            match &new.retired_token {
                Some((hash, at)) => {
                    t.tokens
                        .insert(hash_bytes(hash), encode(&entry(Some(*at)))?)
                        .map_err(engine)?;
                }
                None => {
                    t.tokens
                        .remove(hash_bytes(&old.token_hash))
                        .map_err(engine)?;
                }
            }
            t.tokens
                .insert(hash_bytes(&new.token_hash), encode(&entry(None))?)
                .map_err(engine)?;
        }
        Ok(updated)
    }

    /// Deletes a trigger and its tokens; whether it was there.
    pub fn delete_trigger(
        &self,
        org: OrgId,
        runner: RunnerId,
        id: TriggerId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners.triggers;
        let Some(record) = self.trigger_record(org, runner, id)? else {
            return Ok(false);
        };
        (&t.triggers, &t.tokens)
            .transaction(|(triggers, tokens)| {
                tokens.remove(hash_bytes(&record.token_hash))?;
                if let Some((retired, _)) = &record.retired_token {
                    tokens.remove(hash_bytes(retired))?;
                }
                triggers.remove(trigger_key(org, runner, id))?;
                Ok(())
            })
            .map_err(tx_error)?;
        Ok(true)
    }

    /// Deletes every trigger of a runner and their tokens (the runner
    /// was deleted).
    pub fn drop_triggers(&self, org: OrgId, runner: RunnerId) -> Result<(), StoreError> {
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        let ids: Vec<TriggerId> = self
            .runners
            .triggers
            .triggers
            .scan_prefix(prefix)
            .keys()
            .filter_map(Result::ok)
            .filter_map(|k| k.get(32..48).and_then(|b| <[u8; 16]>::try_from(b).ok()))
            .map(TriggerId::from_bytes)
            .collect();
        for id in ids {
            self.delete_trigger(org, runner, id)?;
        }
        Ok(())
    }

    /// What the token (its SHA-256) opens, if anything.
    pub fn webhook_token(&self, hash: &[u8; 32]) -> Result<Option<TokenEntry>, StoreError> {
        Self::get(&self.runners.triggers.tokens, hash)
    }

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
        thread: &confer_actors::Thread,
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
