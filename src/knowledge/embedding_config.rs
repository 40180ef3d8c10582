//! An org's embedding configuration (`knowledge.md` §3) and the one rule
//! that replaces it: what a `PUT /api/knowledge/embeddings` keeps of the
//! old configuration (its key for the same base URL, its learned
//! dimensions for the same vectors) and when it starts a re-embed. Both
//! stores apply [`EmbeddingConfig::replacing`] inside their
//! compare-and-swap, so a late write never undoes a newer one.

use chrono::{DateTime, Utc};
use confer_actors::OrgId;
use secrecy::SecretString;
use serde::{Deserialize, Serialize};

use crate::secrets::{SecretBox, SecretError};

/// An org's embedding server (`PUT /api/knowledge/embeddings`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingConfig {
    pub base_url: String,
    pub model: String,
    /// Asked of the server (`dimensions`) when set.
    pub dims: Option<u32>,
    /// Sealed.
    pub api_key: Option<String>,
    pub batch_size: u32,
    pub timeout_ms: u32,
    /// Learned from the first answer when `dims` is unset.
    pub learned_dims: Option<u32>,
    pub last_error: Option<String>,
    /// When the embedder tries again after a failure.
    pub retry_at: Option<DateTime<Utc>>,
    /// The delay of the next retry, in seconds (30 s doubling to 1 h).
    pub backoff_secs: u64,
    /// The model being replaced by a re-embed, if one runs.
    pub reembed_from: Option<String>,
}

/// What a `PUT` asks for, checked; its key already sealed.
#[derive(Clone, Debug)]
pub struct EmbeddingSettings {
    pub base_url: String,
    pub model: String,
    pub dims: Option<u32>,
    /// `None`: keep the key (for the same base URL); `Some(None)`: remove
    /// it; `Some(Some(sealed))`: this one.
    pub api_key: Option<Option<String>>,
    pub batch_size: u32,
    pub timeout_ms: u32,
}

/// The additional data the embedding key is sealed with.
fn key_aad(org: OrgId) -> String {
    crate::secrets::aad(&org.to_string(), "embeddings", "config", "api_key")
}

/// Seals an embedding server's API key for `org`.
pub fn seal_key(secrets: &SecretBox, org: OrgId, plain: &str) -> Result<String, SecretError> {
    secrets.seal(plain, &key_aad(org))
}

impl EmbeddingConfig {
    /// The dimensions vectors have, once known.
    pub fn dimensions(&self) -> Option<usize> {
        self.dims.or(self.learned_dims).map(|d| d as usize)
    }

    /// The API key, opened.
    pub fn open_key(
        &self,
        secrets: &SecretBox,
        org: OrgId,
    ) -> Result<Option<SecretString>, SecretError> {
        self.api_key
            .as_deref()
            .map(|sealed| secrets.open(sealed, &key_aad(org)))
            .transpose()
    }

    /// The configuration `settings` make of `old`: a new base URL forgets
    /// the old key (where a key is sent decides who may read it); a new
    /// model or dimensions starts a re-embed from the old model; errors
    /// and backoff start afresh.
    pub fn replacing(old: Option<&EmbeddingConfig>, settings: EmbeddingSettings) -> Self {
        let EmbeddingSettings {
            base_url,
            model,
            dims,
            api_key,
            batch_size,
            timeout_ms,
        } = settings;
        let api_key = match (api_key, old) {
            (Some(change), _) => change,
            (None, Some(old)) if old.base_url == base_url => old.api_key.clone(),
            (None, _) => None,
        };
        let same_vectors = old.is_some_and(|old| old.model == model && old.dims == dims);
        Self {
            base_url,
            model,
            dims,
            api_key,
            batch_size,
            timeout_ms,
            learned_dims: old
                .filter(|_| same_vectors)
                .and_then(|old| old.learned_dims),
            last_error: None,
            retry_at: None,
            backoff_secs: 0,
            reembed_from: match old {
                Some(old) if !same_vectors => Some(old.model.clone()),
                Some(old) => old.reembed_from.clone(),
                None => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(base_url: &str, model: &str, api_key: Option<Option<&str>>) -> EmbeddingSettings {
        EmbeddingSettings {
            base_url: base_url.into(),
            model: model.into(),
            dims: None,
            api_key: api_key.map(|k| k.map(str::to_owned)),
            batch_size: 64,
            timeout_ms: 30_000,
        }
    }

    #[test]
    fn a_new_base_url_forgets_the_key_and_a_new_model_starts_a_reembed() {
        let first = EmbeddingConfig::replacing(None, settings("http://a", "m1", Some(Some("k"))));
        assert_eq!(first.api_key.as_deref(), Some("k"));
        assert_eq!(first.reembed_from, None);
        let learned = EmbeddingConfig {
            learned_dims: Some(8),
            ..first
        };
        let same = EmbeddingConfig::replacing(Some(&learned), settings("http://a", "m1", None));
        assert_eq!(same.api_key.as_deref(), Some("k"), "the same URL keeps it");
        assert_eq!(
            same.learned_dims,
            Some(8),
            "the same vectors keep their size"
        );
        let moved = EmbeddingConfig::replacing(Some(&same), settings("http://b", "m1", None));
        assert_eq!(moved.api_key, None, "a new URL forgets the key");
        let other = EmbeddingConfig::replacing(Some(&same), settings("http://a", "m2", None));
        assert_eq!(other.reembed_from.as_deref(), Some("m1"));
        assert_eq!(other.learned_dims, None);
        let removed =
            EmbeddingConfig::replacing(Some(&same), settings("http://a", "m1", Some(None)));
        assert_eq!(removed.api_key, None);
    }

    #[test]
    fn a_key_sealed_under_another_secret_key_is_named_by_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let org = OrgId::new();
        let sealed_with = |key: u8| {
            use base64::Engine as _;
            let text = base64::engine::general_purpose::STANDARD.encode([key; 32]);
            let secret = secrecy::SecretString::from(text);
            let keys = tempfile::tempdir().unwrap();
            std::sync::Arc::new(SecretBox::load(Some(&secret), None, None, keys.path()).unwrap())
        };
        {
            let secrets = sealed_with(1);
            let store = crate::store::Store::open_with(dir.path(), secrets.clone()).unwrap();
            let sealed = seal_key(&secrets, org, "sk-embed").unwrap();
            let mut config = settings("http://a", "m", None);
            config.api_key = Some(Some(sealed));
            store
                .with_inner(|s| s.configure_embeddings(org, config))
                .unwrap();
            let problems = store.with_inner(|s| s.unopenable_secrets()).unwrap();
            assert!(problems.is_empty(), "{problems:?}");
            store.flush_now().unwrap();
        }
        let store = crate::store::Store::open_with(dir.path(), sealed_with(2)).unwrap();
        let problems = store.with_inner(|s| s.unopenable_secrets()).unwrap();
        assert_eq!(problems, [crate::store::check::embedding_key_problem(org)]);
    }
}
