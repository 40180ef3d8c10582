//! The embedder (`knowledge.md` §3): each org's OpenAI-compatible
//! embedding server, called through the outbound policy (`POST
//! {baseUrl}/embeddings {model, input, dimensions?}`, answers ≤ 32 MiB), a
//! background loop that embeds pending chunks a batch at a time (a failure
//! leaves them pending and retries after 30 s doubling to 1 h; `ready`
//! never waits for vectors), the end of a re-embed (old vectors dropped),
//! and the query's vector within 3 s. At most two requests are in flight
//! to an org's server at once.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use confer_actors::OrgId;
use lru::LruCache;
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use super::vector_cache::VectorCache;
use super::vectors::{StoredVector, quantize};
use crate::cluster::Shard;
use crate::cluster::serving::Membership;
use crate::outbound::{Outbound, read_capped};
use crate::store::Store;
use crate::store::knowledge::vectors::EmbeddingConfig;
use crate::store::port::EmbeddingNews;

/// The largest answer read from an embedding server.
const MAX_ANSWER_BYTES: usize = 32 << 20;
/// How long a query waits for its vector before searching BM25 alone.
const QUERY_WITHIN: Duration = Duration::from_secs(3);
/// The first retry's delay, and the longest.
const FIRST_BACKOFF_SECS: u64 = 30;
const MAX_BACKOFF_SECS: u64 = 3_600;
/// Requests in flight to one org's server at most.
const IN_FLIGHT_PER_ORG: usize = 2;
/// Orgs whose request slots are tracked (the least recent forgotten).
const TRACKED_ORGS: usize = 4_096;

#[derive(Deserialize)]
struct Answer {
    data: Vec<Datum>,
}

#[derive(Deserialize)]
struct Datum {
    #[serde(default)]
    index: usize,
    embedding: Vec<f32>,
}

/// The embedding service.
pub struct Embedder {
    store: Store,
    outbound: Outbound,
    vectors: Arc<VectorCache>,
    work: Notify,
    /// Each org's request slots.
    in_flight: Mutex<LruCache<OrgId, Arc<Semaphore>>>,
}

impl Embedder {
    /// The service, its loop started on the current runtime.
    pub fn start(store: Store, outbound: Outbound, vectors: Arc<VectorCache>) -> Arc<Self> {
        let embedder = Arc::new(Self {
            store,
            outbound,
            vectors,
            work: Notify::new(),
            in_flight: Mutex::new(LruCache::new(
                NonZeroUsize::new(TRACKED_ORGS).unwrap_or(NonZeroUsize::MIN),
            )),
        });
        if !embedder.store.is_postgres() {
            // One node: every org is this node's.
            tokio::spawn(Arc::clone(&embedder).work_loop(|_| Some(true)));
        }
        embedder
    }

    /// On PostgreSQL (`membership`: the node joined): the loop embeds the
    /// orgs whose shard this node owns, so one node calls an org's server
    /// (two at most for the moment a shard changes hands; their writes
    /// are the same vectors).
    pub fn follow(self: &Arc<Self>, membership: Option<&Arc<Membership>>) {
        let Some(membership) = membership.map(Arc::downgrade) else {
            return;
        };
        let owns = move |org: OrgId| {
            let (_, mine) = Membership::claimant(&membership)?;
            Some(mine.contains(&Shard::of_id(org.0)))
        };
        tokio::spawn(Arc::clone(self).work_loop(owns));
    }

    /// Tells the loop there may be chunks to embed (a document ready, a
    /// configuration changed).
    pub fn changed(&self) {
        self.work.notify_one();
    }

    /// Tells the searches' cache that the org's vectors changed.
    pub fn vectors_changed(&self, org: OrgId) {
        self.vectors.changed(org);
    }

    /// One of the org's request slots, once free.
    async fn slot(&self, org: OrgId) -> Option<OwnedSemaphorePermit> {
        let slots = {
            // A panic while holding it leaves a consistent map behind.
            let mut map = self
                .in_flight
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(map.get_or_insert(org, || Arc::new(Semaphore::new(IN_FLIGHT_PER_ORG))))
        };
        slots.acquire_owned().await.ok()
    }

    /// The vectors of `texts` from the org's server, in order.
    async fn call(
        &self,
        org: OrgId,
        config: &EmbeddingConfig,
        texts: Vec<String>,
    ) -> Result<Vec<Vec<f32>>, String> {
        let _slot = self.slot(org).await;
        let url = format!("{}/embeddings", config.base_url.trim_end_matches('/'));
        let mut body = json!({"model": config.model, "input": texts});
        if let Some(dims) = config.dims {
            body["dimensions"] = json!(dims);
        }
        let mut request = self
            .outbound
            .request(reqwest::Method::POST, &url)
            .map_err(|e| e.to_string())?
            .timeout(Duration::from_millis(u64::from(config.timeout_ms)))
            .json(&body);
        let key = config
            .open_key(&self.store.secrets(), org)
            .map_err(|_| "the API key does not open".to_owned())?;
        if let Some(key) = key {
            request = request.bearer_auth(key.expose_secret());
        }
        let response = self
            .outbound
            .send(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("the embedding server answered {}", status.as_u16()));
        }
        let bytes = read_capped(response, MAX_ANSWER_BYTES)
            .await
            .map_err(|e| e.to_string())?;
        let mut answer: Answer = serde_json::from_slice(&bytes)
            .map_err(|_| "the embedding server's answer is not an embeddings list".to_owned())?;
        if answer.data.len() != texts.len() {
            return Err("the embedding server answered another number of vectors".into());
        }
        answer.data.sort_by_key(|d| d.index);
        Ok(answer.data.into_iter().map(|d| d.embedding).collect())
    }

    /// The query's quantized vector and the configuration it is of, within
    /// 3 s; `None` without a configuration, its dimensions unknown, or on
    /// any failure (the search is then BM25 alone).
    pub async fn embed_query(&self, org: OrgId, text: &str) -> Option<(EmbeddingConfig, Vec<i8>)> {
        let (config, mut vectors) = self.embed_now(org, vec![text.to_owned()]).await?;
        let vector = vectors.pop()??;
        // Comparable with the stored vectors only once their size is known.
        (config.dimensions()? == vector.len()).then_some((config, vector))
    }

    /// The quantized vectors of `texts` (in order; `None` for a zero
    /// vector) within 3 s; `None` without a configuration, on any failure,
    /// or when the answer's vectors differ in size (from each other, or
    /// from the org's dimensions once known). Before the org's first
    /// batch the vectors are still comparable with each other (the
    /// collector's dedupe needs nothing more).
    pub async fn embed_now(
        &self,
        org: OrgId,
        texts: Vec<String>,
    ) -> Option<(EmbeddingConfig, Vec<Option<Vec<i8>>>)> {
        let config = self.store.embeddings().embedding_config(org).await.ok()??;
        let made = tokio::time::timeout(QUERY_WITHIN, self.call(org, &config, texts))
            .await
            .ok()?
            .ok()?;
        let dims = config.dimensions().or_else(|| made.first().map(Vec::len))?;
        if made.iter().any(|v| v.len() != dims) {
            return None;
        }
        Some((config, made.iter().map(|v| quantize(v)).collect()))
    }

    /// Embeds a batch of each org's pending chunks where `owns(org)`, then
    /// waits for news (5 s at most); ends once `owns` answers `None` (the
    /// node left).
    async fn work_loop(self: Arc<Self>, owns: impl Fn(OrgId) -> Option<bool> + Send + 'static) {
        loop {
            let configs = match self.store.embeddings().embedding_configs().await {
                Ok(configs) => configs,
                Err(error) => {
                    tracing::error!(%error, "reading embedding configurations failed");
                    Vec::new()
                }
            };
            let mut worked = false;
            for (org, config) in configs {
                match owns(org) {
                    None => return,
                    Some(false) => continue,
                    Some(true) => {}
                }
                if config.retry_at.is_some_and(|at| at > Utc::now()) {
                    continue;
                }
                worked |= self.step(org, config).await;
            }
            if !worked {
                let _ = tokio::time::timeout(Duration::from_secs(5), self.work.notified()).await;
            }
        }
    }

    /// Embeds one batch of the org's pending chunks; whether it did any.
    async fn step(&self, org: OrgId, config: EmbeddingConfig) -> bool {
        let (model, dims, limit) = (
            config.model.clone(),
            config.dimensions(),
            config.batch_size.max(1) as usize,
        );
        let embeddings = self.store.embeddings();
        let found = embeddings.pending_chunks(org, model, dims, limit).await;
        let pending = match found {
            Ok(pending) => pending,
            Err(error) => {
                tracing::error!(%error, "reading pending chunks failed");
                return false;
            }
        };
        let at = (config.base_url.clone(), config.model.clone());
        if pending.is_empty() {
            if config.reembed_from.is_some()
                && let Some(dims) = config.dimensions()
            {
                // The re-embed ended: the old model's vectors go.
                let done = match embeddings
                    .prune_vectors(org, config.model.clone(), dims)
                    .await
                {
                    Ok(()) => {
                        let ended: EmbeddingNews = Box::new(|c| c.reembed_from = None);
                        embeddings.update_embedding_state(org, at, ended).await
                    }
                    Err(error) => Err(error),
                };
                if let Err(error) = done {
                    tracing::error!(%error, "ending a re-embed failed");
                }
                self.vectors.changed(org);
            }
            return false;
        }
        let (keys, texts): (Vec<_>, Vec<_>) = pending.into_iter().unzip();
        let outcome = self.call(org, &config, texts).await.and_then(|vectors| {
            let dims = config
                .dimensions()
                .unwrap_or_else(|| vectors.first().map_or(0, Vec::len));
            if dims == 0 || vectors.iter().any(|v| v.len() != dims) {
                return Err(format!(
                    "the embedding server answered vectors of another length than {dims}"
                ));
            }
            let made = keys
                .into_iter()
                .zip(vectors)
                .filter_map(|(key, v)| {
                    quantize(&v).map(|components| {
                        (
                            key,
                            StoredVector {
                                model: config.model.clone(),
                                components,
                            },
                        )
                    })
                })
                .collect::<Vec<_>>();
            Ok((dims, made))
        });
        let recorded = match outcome {
            Ok((dims, made)) => {
                let learned = config.dims.is_none() && config.learned_dims.is_none();
                let news: EmbeddingNews = Box::new(move |c| {
                    if learned {
                        c.learned_dims = Some(dims as u32);
                    }
                    c.last_error = None;
                    c.retry_at = None;
                    c.backoff_secs = 0;
                });
                embeddings.put_vectors(org, made, at, news).await
            }
            Err(error) => {
                tracing::warn!(%org, %error, "embedding chunks failed; they stay pending");
                let backoff = if config.backoff_secs == 0 {
                    FIRST_BACKOFF_SECS
                } else {
                    (config.backoff_secs * 2).min(MAX_BACKOFF_SECS)
                };
                let news: EmbeddingNews = Box::new(move |c| {
                    c.last_error = Some(error.clone());
                    c.backoff_secs = backoff;
                    c.retry_at = Some(Utc::now() + chrono::TimeDelta::seconds(backoff as i64));
                });
                embeddings.update_embedding_state(org, at, news).await
            }
        };
        if let Err(error) = recorded {
            tracing::error!(%error, "recording an embedding step failed");
        }
        self.vectors.changed(org);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::OutboundPolicy;

    #[tokio::test]
    async fn request_slots_are_tracked_for_at_most_tracked_orgs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let outbound = Outbound::new(OutboundPolicy::new("", None).unwrap(), None).unwrap();
        let embedder = Embedder::start(store, outbound, Arc::new(VectorCache::new(1 << 20)));
        let first = OrgId::new();
        let held = embedder.slot(first).await.unwrap();
        for _ in 0..TRACKED_ORGS {
            drop(embedder.slot(OrgId::new()).await);
        }
        let map = embedder.in_flight.lock().unwrap();
        assert_eq!(map.len(), TRACKED_ORGS);
        assert!(!map.contains(&first), "the least recent org is forgotten");
        drop(held);
    }
}
