//! Publications, their slugs and the org's publishing settings
//! (`publishing.md`). A publication is keyed by its agent (one per agent);
//! its slug is unique in the instance and written in the record's own
//! transaction, so of two racing creations with one slug one wins and the
//! other is told the slug is taken. Updates are compare-and-swap; the
//! identity secret is sealed.

use confer_actors::{AgentId, OrgId, StoreError};
use secrecy::ExposeSecret;
use sled::Transactional;

use super::codec::{decode, encode};
use super::keys::{self, ConfigKind};
use super::update::{Updated, existing, or_default, swap};
use super::{SledStore, abort, engine, tx_error};
use crate::publishing::{MultiplayerConfig, OrgSettings, Publication};
use crate::secrets::aad;

/// The outcome of creating a publication.
#[derive(Debug)]
pub enum PublicationCreated {
    /// Boxed: the record is large and the other answers carry nothing.
    Stored(Box<Publication>),
    /// The agent already has one.
    AlreadyPublished,
    /// Another publication holds the slug.
    SlugTaken,
}

impl SledStore {
    /// The org's settings (the defaults when never set).
    pub fn org_settings(&self, org: OrgId) -> Result<OrgSettings, StoreError> {
        Ok(Self::get(&self.org_settings, org.as_bytes())?.unwrap_or_default())
    }

    /// Changes the org's settings (compare-and-swap).
    pub fn update_org_settings<E>(
        &self,
        org: OrgId,
        change: impl FnMut(OrgSettings) -> Result<OrgSettings, E>,
    ) -> Result<Updated<OrgSettings, E>, StoreError> {
        let _writing = self.gate.writing();
        swap(&self.org_settings, org.as_bytes(), or_default, change)
    }

    /// An agent's multiplayer configuration (the defaults when never set).
    pub fn multiplayer_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<MultiplayerConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Multiplayer);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// Changes an agent's multiplayer configuration (compare-and-swap).
    pub fn update_multiplayer_config<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(MultiplayerConfig) -> Result<MultiplayerConfig, E>,
    ) -> Result<Updated<MultiplayerConfig, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Multiplayer);
        swap(&self.agent_configs, &key, or_default, change)
    }

    /// The agent's publication (its identity secret sealed).
    pub fn publication(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Option<Publication>, StoreError> {
        Self::get(
            &self.publications,
            &keys::pair(org.as_bytes(), agent.as_bytes()),
        )
    }

    /// The publication holding `slug`, in any org.
    pub fn publication_by_slug(&self, slug: &str) -> Result<Option<Publication>, StoreError> {
        let Some(key) = self
            .publication_slugs
            .get(slug.as_bytes())
            .map_err(engine)?
        else {
            return Ok(None);
        };
        Self::get(&self.publications, &key)
    }

    /// The publication holding `slug`, if its agent is not deleted (a
    /// deleted agent's publication goes with it; this also covers the
    /// moment between the two writes).
    pub fn live_publication_by_slug(&self, slug: &str) -> Result<Option<Publication>, StoreError> {
        let Some(publication) = self.publication_by_slug(slug)? else {
            return Ok(None);
        };
        let live = self
            .agent(publication.org_id, publication.agent_id)?
            .is_some_and(|a| !a.is_deleted());
        Ok(live.then_some(publication))
    }

    /// Stores a new publication and its slug in one transaction.
    pub fn create_publication(
        &self,
        publication: &Publication,
    ) -> Result<PublicationCreated, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(
            publication.org_id.as_bytes(),
            publication.agent_id.as_bytes(),
        );
        let record = encode(publication)?;
        (&self.publications, &self.publication_slugs)
            .transaction(|(publications, slugs)| {
                if publications.get(key.as_slice())?.is_some() {
                    return Ok(PublicationCreated::AlreadyPublished);
                }
                if slugs.get(publication.slug.as_bytes())?.is_some() {
                    return Ok(PublicationCreated::SlugTaken);
                }
                publications.insert(key.as_slice(), record.as_slice())?;
                slugs.insert(publication.slug.as_bytes(), key.as_slice())?;
                Ok(PublicationCreated::Stored(Box::new(publication.clone())))
            })
            .map_err(tx_error)
    }

    /// Changes the agent's publication (compare-and-swap; `Gone` when it
    /// was deleted meanwhile). The slug never changes.
    pub fn update_publication<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        change: impl FnMut(Publication) -> Result<Publication, E>,
    ) -> Result<Updated<Publication, E>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), agent.as_bytes());
        swap(&self.publications, &key, existing::<Publication>, change)
    }

    /// Deletes the agent's publication and frees its slug, in one
    /// transaction; the deleted record, if there was one.
    pub fn delete_publication(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Option<Publication>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), agent.as_bytes());
        (&self.publications, &self.publication_slugs)
            .transaction(|(publications, slugs)| {
                let Some(bytes) = publications.get(key.as_slice())? else {
                    return Ok(None);
                };
                let before: Publication = decode(&bytes).map_err(abort)?;
                slugs.remove(before.slug.as_bytes())?;
                publications.remove(key.as_slice())?;
                Ok(Some(before))
            })
            .map_err(tx_error)
    }
}

/// The `meta` key of the sealed instance key visitors' keys derive from.
const INSTANCE_KEY: &[u8] = b"visitor_instance_key";

fn instance_key_aad() -> String {
    aad("instance", "meta", "visitor_instance_key", "key")
}

impl SledStore {
    /// The 32-byte instance key of `publishing.md` "Visitors", made (and
    /// sealed) at the first call; a racing first call keeps the winner's.
    pub fn visitor_instance_key(&self) -> Result<[u8; 32], StoreError> {
        use base64::Engine as _;
        use base64::engine::general_purpose::STANDARD;
        let unreadable = |e: String| StoreError::Codec(format!("the visitor instance key: {e}"));
        let stored = match self.meta.get(INSTANCE_KEY).map_err(engine)? {
            Some(sealed) => sealed,
            None => {
                let _writing = self.gate.writing();
                let mut fresh = [0u8; 32];
                getrandom::fill(&mut fresh).map_err(|e| unreadable(e.to_string()))?;
                let sealed = self
                    .secrets
                    .seal(&STANDARD.encode(fresh), &instance_key_aad())
                    .map_err(|e| unreadable(e.to_string()))?;
                match self
                    .meta
                    .compare_and_swap(INSTANCE_KEY, None::<&[u8]>, Some(sealed.as_bytes()))
                    .map_err(engine)?
                {
                    Ok(()) => sealed.into_bytes().into(),
                    Err(lost) => lost.current.ok_or_else(|| unreadable("vanished".into()))?,
                }
            }
        };
        let sealed = std::str::from_utf8(&stored).map_err(|e| unreadable(e.to_string()))?;
        let plain = self
            .secrets
            .open(sealed, &instance_key_aad())
            .map_err(|e| unreadable(e.to_string()))?;
        STANDARD
            .decode(plain.expose_secret())
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .ok_or_else(|| unreadable("not 32 bytes".into()))
    }
}

impl SledStore {
    /// The tokens `publication`'s visitors' calls spent on `day` (days
    /// since 1970, UTC), as flushed with their usage records.
    pub fn publication_tokens(
        &self,
        publication: confer_actors::PublicationId,
        day: u32,
    ) -> Result<u64, StoreError> {
        Ok(self
            .publication_days
            .get(keys::publication_day(publication, day))
            .map_err(engine)?
            .map_or(0, |v| keys::read_u64(&v)))
    }

    /// The input tokens of `thread`'s latest model call (0 before the first):
    /// what its next call will send at least.
    pub fn last_input_tokens(
        &self,
        org: OrgId,
        thread: confer_actors::ThreadId,
    ) -> Result<u64, StoreError> {
        let prefix = keys::pair(org.as_bytes(), thread.as_bytes());
        let Some(entry) = self
            .usage_by_thread
            .range(prefix.to_vec()..keys::timeline_end(&prefix, None))
            .next_back()
        else {
            return Ok(0);
        };
        let (key, _) = entry.map_err(engine)?;
        let suffix = &key[prefix.len()..];
        let (Some(micros), Some(id)) = (suffix.get(..8), keys::timeline_id(&key)) else {
            return Ok(0);
        };
        let usage_key = keys::timeline(org.as_bytes(), keys::read_u64(micros), &id);
        let record: Option<confer_actors::UsageRecord> = Self::get(&self.usage, &usage_key)?;
        Ok(record.map_or(0, |r| r.input_tokens))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_secrets;

    #[test]
    fn a_slug_is_taken_once_and_freed_with_its_publication() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let org = OrgId::new();
        let (a, b) = (AgentId::new(), AgentId::new());
        let first = Publication::new(org, a, "shop".into());
        assert!(matches!(
            store.create_publication(&first).unwrap(),
            PublicationCreated::Stored(_)
        ));
        let again = Publication::new(org, a, "other".into());
        assert!(matches!(
            store.create_publication(&again).unwrap(),
            PublicationCreated::AlreadyPublished
        ));
        let taken = Publication::new(OrgId::new(), b, "shop".into());
        assert!(matches!(
            store.create_publication(&taken).unwrap(),
            PublicationCreated::SlugTaken
        ));
        assert_eq!(
            store.publication_by_slug("shop").unwrap(),
            Some(first.clone())
        );
        use crate::publishing::identity_secret;
        let sealed = identity_secret::seal(&store.secrets, &first, "cfi_x").unwrap();
        assert_ne!(sealed, "cfi_x");
        let mut with_secret = first.clone();
        with_secret.identity_secret = Some(sealed);
        let opened = identity_secret::open(&store.secrets, &with_secret)
            .unwrap()
            .unwrap();
        assert_eq!(opened.expose_secret(), "cfi_x");

        assert_eq!(store.delete_publication(org, a).unwrap(), Some(first));
        assert_eq!(store.publication_by_slug("shop").unwrap(), None);
        assert!(matches!(
            store.create_publication(&taken).unwrap(),
            PublicationCreated::Stored(_)
        ));
        // An update after the delete does not bring it back.
        let late = store.update_publication(org, a, Ok::<_, ()>).unwrap();
        assert!(matches!(late, Updated::Gone));
        assert_eq!(store.publication(org, a).unwrap(), None);
    }

    #[test]
    fn the_instance_key_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = {
            let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
            let key = store.visitor_instance_key().unwrap();
            assert_eq!(store.visitor_instance_key().unwrap(), key);
            let stored = store.meta.get(INSTANCE_KEY).unwrap().unwrap();
            assert!(!stored.windows(32).any(|w| w == key), "stored sealed");
            store.flush_now().unwrap();
            key
        };
        let store = crate::store::reopen_for_test(dir.path());
        assert_eq!(store.visitor_instance_key().unwrap(), first);
    }
}
