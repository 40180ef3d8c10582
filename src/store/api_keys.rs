//! Organizations and API keys: the key records, their secret-hash index,
//! and the time of each key's last use (kept in its own tree, see
//! [`SledStore::touch_api_key`]).

use chrono::{DateTime, Utc};
use confer_actors::{ApiKeyId, OrgId, StoreError};
use sled::Transactional;

use super::codec::{decode, encode};
use super::records::{ApiKey, DEFAULT_ORG, Org};
use super::{SledStore, abort, engine, keys, tx_error};

impl SledStore {
    /// Stores an organization.
    pub fn put_org(&self, org: &Org) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        Self::put(&self.orgs, org.id.as_bytes(), org)
    }

    /// One organization.
    pub fn org(&self, id: OrgId) -> Result<Option<Org>, StoreError> {
        Self::get(&self.orgs, id.as_bytes())
    }

    /// Every organization (there are few; used at start and by platform admins).
    /// The org `default`, made (and stored) when the store has none: what
    /// a first start and the command line on an empty store both need.
    pub fn default_org(&self) -> Result<Org, StoreError> {
        if let Some(org) = self.orgs()?.into_iter().find(|o| o.name == DEFAULT_ORG) {
            return Ok(org);
        }
        let org = Org {
            id: OrgId::new(),
            name: DEFAULT_ORG.into(),
            created_at: Utc::now(),
        };
        self.put_org(&org)?;
        Ok(org)
    }

    pub fn orgs(&self) -> Result<Vec<Org>, StoreError> {
        self.orgs
            .iter()
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    /// Stores a key and its hash index entry together.
    pub fn insert_api_key(&self, key: &ApiKey, secret_sha256: &[u8; 32]) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let record = encode(key)?;
        (&self.api_keys, &self.api_key_hashes)
            .transaction(|(keys_tx, hashes)| {
                keys_tx.insert(key.id.as_bytes(), record.clone())?;
                hashes.insert(&secret_sha256[..], key.id.as_bytes())?;
                Ok(())
            })
            .map_err(tx_error)
    }

    /// The key whose secret hashes to `secret_sha256`.
    pub fn api_key_by_hash(&self, secret_sha256: &[u8; 32]) -> Result<Option<ApiKey>, StoreError> {
        let generation = self.key_cache.generation();
        let Some(id) = self.api_key_hashes.get(secret_sha256).map_err(engine)? else {
            return Ok(None);
        };
        let key = Self::get::<ApiKey>(&self.api_keys, &id)?
            .map(|key| self.with_last_use(key))
            .transpose()?;
        if let Some(key) = &key {
            self.key_cache
                .insert(*secret_sha256, key.clone(), generation);
        }
        Ok(key)
    }

    /// The key of `secret_sha256` when [`SledStore::api_key_by_hash`]
    /// found it lately and it was not deleted since: memory only.
    pub fn cached_api_key(&self, secret_sha256: &[u8; 32]) -> Option<ApiKey> {
        self.key_cache.get(secret_sha256)
    }

    /// `key` with its `last_used_at` from the `api_key_used` tree.
    fn with_last_use(&self, mut key: ApiKey) -> Result<ApiKey, StoreError> {
        if let Some(micros) = self.api_key_used.get(key.id.as_bytes()).map_err(engine)? {
            key.last_used_at = Some(keys::from_micros(keys::read_u64(&micros)));
        }
        Ok(key)
    }

    /// Keys of one org, oldest first.
    pub fn api_keys(&self, org: OrgId) -> Result<Vec<ApiKey>, StoreError> {
        let mut keys = Vec::new();
        for value in self.api_keys.iter().values() {
            let key: ApiKey = decode(&value.map_err(engine)?)?;
            if key.org_id == org {
                keys.push(self.with_last_use(key)?);
            }
        }
        keys.sort_by_key(|k| k.created_at);
        Ok(keys)
    }

    /// Deletes a key of `org` and its hash entry; false when there is none.
    pub fn delete_api_key(&self, org: OrgId, id: ApiKeyId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let deleted = (&self.api_keys, &self.api_key_hashes, &self.api_key_used)
            .transaction(|(keys_tx, hashes, used)| {
                let Some(bytes) = keys_tx.get(id.as_bytes())? else {
                    return Ok(false);
                };
                let key: ApiKey = decode(&bytes).map_err(abort)?;
                if key.org_id != org {
                    return Ok(false);
                }
                let hash = hex::decode(&key.secret_sha256)
                    .map_err(|e| abort(StoreError::Codec(e.to_string())))?;
                keys_tx.remove(id.as_bytes())?;
                hashes.remove(hash)?;
                used.remove(id.as_bytes())?;
                Ok(true)
            })
            .map_err(tx_error);
        // Forgotten whatever the outcome: a cached copy is never newer.
        self.key_cache.forget(id);
        deleted
    }

    /// Records a key's use in its own tree, never by rewriting the key record
    /// (which a concurrent delete would see undone), and only while the key
    /// exists. Written unflushed: the next flush, at the latest the one at a
    /// clean shutdown, makes it durable; a crash may lose the last minute.
    pub fn touch_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        (&self.api_keys, &self.api_key_used)
            .transaction(|(keys_tx, used)| {
                if keys_tx.get(id.as_bytes())?.is_some() {
                    used.insert(id.as_bytes(), &keys::micros(at).to_be_bytes())?;
                }
                Ok(())
            })
            .map_err(tx_error)?;
        self.key_cache.touched(id, at);
        Ok(())
    }
}
