//! The store conformance suite's case for knowledge embeddings
//! (`knowledge.md` §3, `scale.md` §5): a configuration replaced by one
//! rule, pending chunks, vectors by model and dimensions in searchable
//! generations only, the embedder's news, a re-embed's prune, and vectors
//! gone with their chunks and with the configuration.

use confer::knowledge::Scope;
use confer::knowledge::embedding_config::{EmbeddingConfig, EmbeddingSettings};
use confer::knowledge::files::KnowledgeFiles;
use confer::knowledge::vectors::StoredVector;
use confer::store::port::{ChunkKey, EmbeddingNews, EmbeddingRecords};
use confer_actors::OrgId;

use crate::store_conformance::Ports;
use crate::store_documents::{indexed, purge_all, stored, upload};

fn settings(model: &str, api_key: Option<Option<&str>>) -> EmbeddingSettings {
    EmbeddingSettings {
        base_url: "http://embeddings.test/v1".into(),
        model: model.into(),
        dims: None,
        api_key: api_key.map(|k| k.map(str::to_owned)),
        batch_size: 64,
        timeout_ms: 30_000,
    }
}

fn vector(model: &str, first: i8) -> StoredVector {
    StoredVector {
        model: model.into(),
        components: vec![first, 0, -127, 5],
    }
}

fn at(config: &EmbeddingConfig) -> (String, String) {
    (config.base_url.clone(), config.model.clone())
}

fn learned(dims: u32) -> EmbeddingNews {
    Box::new(move |c| {
        c.learned_dims = Some(dims);
        c.last_error = None;
    })
}

/// Stores `keys`' vectors of `model` with the news that their size is 4.
async fn embed(e: &dyn EmbeddingRecords, org: OrgId, config: &EmbeddingConfig, keys: &[ChunkKey]) {
    let made = keys
        .iter()
        .enumerate()
        .map(|(i, key)| (key.clone(), vector(&config.model, i as i8)))
        .collect();
    e.put_vectors(org, made, at(config), learned(4))
        .await
        .unwrap();
}

pub(crate) async fn embeddings_follow_the_model_and_go_with_their_chunks(ports: Ports) {
    let dir = tempfile::tempdir().unwrap();
    let files = KnowledgeFiles::open(dir.path()).unwrap();
    let (d, e) = (ports.documents.as_ref(), ports.embeddings.as_ref());
    let org = OrgId::new();
    let handbook = stored(upload(&ports, &files, (org, Scope::Org), b"# Leave").await);
    indexed(
        d,
        &handbook,
        &["Leave is twenty days.", "Ask HR.", "Holidays."],
    )
    .await;
    let handbook = d.document(org, handbook.id).await.unwrap().unwrap();
    assert!(e.embedding_config(org).await.unwrap().is_none());
    assert_eq!(e.pending_count(org, "m1".into(), None).await.unwrap(), 3);

    let first = e
        .configure_embeddings(org, settings("m1", Some(Some("sealed-key"))))
        .await
        .unwrap();
    assert_eq!(
        (first.reembed_from.clone(), first.api_key.as_deref()),
        (None, Some("sealed-key"))
    );
    assert_eq!(e.embedding_config(org).await.unwrap(), Some(first.clone()));
    assert!(
        e.embedding_configs()
            .await
            .unwrap()
            .contains(&(org, first.clone()))
    );

    // Pending chunks come with their text; a batch stores vectors and the
    // dimensions they taught at once.
    let pending = e.pending_chunks(org, "m1".into(), None, 2).await.unwrap();
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].1, "Handbook\nLeave is twenty days.");
    let keys: Vec<ChunkKey> = pending.iter().map(|(key, _)| key.clone()).collect();
    embed(e, org, &first, &keys).await;
    let config = e.embedding_config(org).await.unwrap().unwrap();
    assert_eq!(config.learned_dims, Some(4));
    assert_eq!(e.pending_count(org, "m1".into(), Some(4)).await.unwrap(), 1);
    assert_eq!(e.pending_count(org, "m1".into(), Some(8)).await.unwrap(), 3);
    let vectors = e.org_vectors(org, "m1".into(), 4).await.unwrap();
    assert_eq!(vectors.len(), 2);
    assert_eq!(
        vectors[0],
        (keys[0].clone(), Scope::Org, vec![0, 0, -127, 5])
    );
    assert!(e.org_vectors(org, "m1".into(), 8).await.unwrap().is_empty());
    let progress = e
        .document_vectors(vec![handbook.clone()], "m1".into(), Some(4))
        .await
        .unwrap();
    assert_eq!(progress, vec![(2, 1)]);
    // A chunk that is not stored gets no vector.
    let mut missing = keys[0].clone();
    missing[27] = 99;
    embed(e, org, &config, &[missing]).await;
    assert_eq!(e.org_vectors(org, "m1".into(), 4).await.unwrap().len(), 2);

    // News for another server is dropped.
    let elsewhere = ("http://other.test".to_owned(), "m1".to_owned());
    let failed: EmbeddingNews = Box::new(|c| c.last_error = Some("down".into()));
    e.update_embedding_state(org, elsewhere, failed)
        .await
        .unwrap();
    assert_eq!(
        e.embedding_config(org).await.unwrap().unwrap().last_error,
        None
    );

    // A new model re-embeds; its end prunes the old model's vectors.
    let second = e
        .configure_embeddings(org, settings("m2", None))
        .await
        .unwrap();
    assert_eq!(second.reembed_from.as_deref(), Some("m1"));
    assert_eq!(
        (second.learned_dims, second.api_key.as_deref()),
        (None, Some("sealed-key"))
    );
    let all: Vec<ChunkKey> = e
        .pending_chunks(org, "m2".into(), None, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    assert_eq!(all.len(), 3);
    embed(e, org, &second, &all).await;
    e.prune_vectors(org, "m2".into(), 4).await.unwrap();
    assert!(e.org_vectors(org, "m1".into(), 4).await.unwrap().is_empty());
    assert_eq!(e.org_vectors(org, "m2".into(), 4).await.unwrap().len(), 3);

    // A new generation's chunks are pending; the old ones' vectors count
    // no more, and go with their purge.
    indexed(d, &handbook, &["Leave is thirty days."]).await;
    assert!(e.org_vectors(org, "m2".into(), 4).await.unwrap().is_empty());
    assert_eq!(e.pending_count(org, "m2".into(), Some(4)).await.unwrap(), 1);
    purge_all(d, &files).await;
    let fresh = e
        .pending_chunks(org, "m2".into(), Some(4), 10)
        .await
        .unwrap();
    embed(e, org, &second, &[fresh[0].0.clone()]).await;
    assert_eq!(e.org_vectors(org, "m2".into(), 4).await.unwrap().len(), 1);

    // The configuration goes with every vector; a deleted document's go
    // with its purge.
    assert!(e.delete_embedding_config(org).await.unwrap());
    assert!(!e.delete_embedding_config(org).await.unwrap());
    assert!(e.embedding_config(org).await.unwrap().is_none());
    assert!(e.org_vectors(org, "m2".into(), 4).await.unwrap().is_empty());
    embed(e, org, &second, &[fresh[0].0.clone()]).await;
    assert!(d.delete_document(org, handbook.id).await.unwrap());
    purge_all(d, &files).await;
    assert_eq!(e.pending_count(org, "m2".into(), None).await.unwrap(), 0);
}
