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

use confer_actors::{OrgId, RunnerId, StoreError, TriggerId};
use secrecy::SecretString;
use sled::Transactional;

use crate::runners::triggers::{MAX_TRIGGERS_PER_RUNNER, TokenEntry, Trigger, TriggerRecord};
use crate::secrets::aad;
use crate::store::codec::{decode, encode};
use crate::store::keys;
use crate::store::update::{Updated, swap};
use crate::store::{SledStore, abort, engine, tx_error};

/// The trigger trees.
pub struct TriggerTrees {
    triggers: sled::Tree,
    tokens: sled::Tree,
    pub(super) nonces: sled::Tree,
    pub(super) keys: sled::Tree,
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

fn trigger_key(org: OrgId, runner: RunnerId, id: TriggerId) -> Vec<u8> {
    [org.as_bytes().as_slice(), runner.as_bytes(), id.as_bytes()].concat()
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
    /// [`MAX_TRIGGERS_PER_RUNNER`] (schedule triggers included).
    pub fn put_trigger(&self, mut record: TriggerRecord) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners.triggers;
        let trigger = &record.trigger;
        let prefix = keys::pair(trigger.org_id.as_bytes(), trigger.runner_id.as_bytes());
        let schedules = self.runner_schedule_count(trigger.org_id, trigger.runner_id)?;
        let held = t.triggers.scan_prefix(prefix).count() + schedules;
        if held + self.buttons_of(trigger.runner_id)? >= MAX_TRIGGERS_PER_RUNNER {
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
}
