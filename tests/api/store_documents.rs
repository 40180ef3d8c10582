//! The store conformance suite's cases for knowledge documents
//! (`knowledge.md` §1–2, `scale.md` §5): uploads and their files,
//! duplicates and limits, pages, generations, jobs, deletes and the purge.

use chrono::Utc;
use confer::knowledge::chunk::ChunkDraft;
use confer::knowledge::files::KnowledgeFiles;
use confer::knowledge::{Document, DocumentStatus, IngestJob, JobKind, Scope};
use confer::store::knowledge::changes::IndexChange;
use confer::store::knowledge::{DocumentCreated, Reindexed};
use confer::store::port::{DocumentFilter, DocumentRecords};
use confer_actors::{AgentId, DocumentId, OrgId, ThreadId};
use sha2::Digest;

use crate::store_conformance::Ports;

fn document(org: OrgId, scope: Scope, bytes: &[u8]) -> Document {
    let now = Utc::now();
    Document {
        id: DocumentId::new(),
        org_id: org,
        title: "Handbook".into(),
        source_ref: "handbook.md".into(),
        scope,
        content_type: "text/markdown".into(),
        size_bytes: bytes.len() as u64,
        sha256: hex::encode(sha2::Sha256::digest(bytes)),
        status: DocumentStatus::Queued,
        error: None,
        attempts: 0,
        searchable_generation: None,
        last_generation: 0,
        pages: None,
        chunk_count: 0,
        created_by: "admin".into(),
        created_at: now,
        updated_at: now,
        indexed_at: None,
    }
}

/// Uploads `bytes` as a new document of `scope` (limits 4 per org, 1 per
/// thread).
pub(crate) async fn upload(
    ports: &Ports,
    files: &KnowledgeFiles,
    (org, scope): (OrgId, Scope),
    bytes: &[u8],
) -> DocumentCreated {
    let upload = files.scratch().join(uuid::Uuid::new_v4().to_string());
    std::fs::write(&upload, bytes).unwrap();
    let made = ports
        .documents
        .create_document(
            document(org, scope, bytes),
            upload.clone(),
            files.clone(),
            (4, 1),
        )
        .await
        .unwrap();
    assert!(
        !upload.exists(),
        "the upload is gone from the scratch directory"
    );
    made
}

pub(crate) fn stored(made: DocumentCreated) -> Document {
    match made {
        DocumentCreated::Stored(document) => *document,
        other => panic!("not stored: {other:?}"),
    }
}

pub(crate) fn drafts(texts: &[&str]) -> Vec<ChunkDraft> {
    texts
        .iter()
        .enumerate()
        .map(|(n, text)| ChunkDraft {
            n: n as u32,
            text: (*text).into(),
            breadcrumb: "Handbook".into(),
            start: 0,
            end: text.len() as u64,
            page: None,
            page_end: None,
            page_breaks: Vec::new(),
        })
        .collect()
}

/// Indexes `texts` as `document`'s next generation; its number.
pub(crate) async fn indexed(d: &dyn DocumentRecords, document: &Document, texts: &[&str]) -> u64 {
    let (org, id) = (document.org_id, document.id);
    let generation = d.begin_indexing(org, id).await.unwrap().unwrap();
    d.put_chunks(id, generation, drafts(texts)).await.unwrap();
    assert!(
        d.finish_ingest(org, id, generation, (texts.len() as u64, None))
            .await
            .unwrap()
    );
    generation
}

pub(crate) async fn purge_all(d: &dyn DocumentRecords, files: &KnowledgeFiles) {
    for _ in 0..100 {
        if d.knowledge_purge_step(files.clone(), 2).await.unwrap() == 0 {
            return;
        }
    }
    panic!("the purge did not end");
}

pub(crate) async fn documents_keep_files_duplicates_generations_and_purges(ports: Ports) {
    let dir = tempfile::tempdir().unwrap();
    let files = KnowledgeFiles::open(dir.path()).unwrap();
    let d = ports.documents.as_ref();
    let (org, agent) = (OrgId::new(), AgentId::new());
    let scope = Scope::Agent(agent);
    let handbook = stored(upload(&ports, &files, (org, scope), b"# Leave\nTwenty days.").await);
    let bytes = d
        .read_file(org, handbook.sha256.clone(), files.clone())
        .await
        .unwrap();
    assert_eq!(bytes, b"# Leave\nTwenty days.");
    // The same content in the same scope is the first document.
    match upload(&ports, &files, (org, scope), b"# Leave\nTwenty days.").await {
        DocumentCreated::Duplicate(found) => assert_eq!(found.id, handbook.id),
        other => panic!("not a duplicate: {other:?}"),
    }
    // In the org's scope it is another document sharing the file.
    let shared = stored(upload(&ports, &files, (org, Scope::Org), b"# Leave\nTwenty days.").await);
    // A thread holds one document; the org four.
    let thread = Scope::Thread(ThreadId::new());
    let notes = stored(upload(&ports, &files, (org, thread), b"notes").await);
    match upload(&ports, &files, (org, thread), b"more notes").await {
        DocumentCreated::OverLimit(detail) => assert!(detail.contains("thread"), "{detail}"),
        other => panic!("not over the thread's limit: {other:?}"),
    }
    let fourth = stored(upload(&ports, &files, (org, Scope::Org), b"a fourth").await);
    match upload(&ports, &files, (org, Scope::Org), b"a fifth").await {
        DocumentCreated::OverLimit(detail) => assert!(detail.contains("org"), "{detail}"),
        other => panic!("not over the org's limit: {other:?}"),
    }
    // Pages: newest first, by scope, by status.
    let ids = |page: &[Document]| page.iter().map(|d| d.id).collect::<Vec<_>>();
    let (first, next) = d
        .documents(org, DocumentFilter::default(), None, 3)
        .await
        .unwrap();
    assert_eq!(ids(&first), vec![fourth.id, notes.id, shared.id]);
    let (rest, end) = d
        .documents(org, DocumentFilter::default(), next, 3)
        .await
        .unwrap();
    assert_eq!((ids(&rest), end), (vec![handbook.id], None));
    let scoped = DocumentFilter {
        scope: Some(scope),
        status: None,
    };
    let (page, _) = d.documents(org, scoped, None, 10).await.unwrap();
    assert_eq!(ids(&page), vec![handbook.id]);
    assert!(!d.any_searchable(org, vec![scope]).await.unwrap());

    // A generation counts once finished; a reindex keeps it meanwhile.
    let first_gen = indexed(d, &handbook, &["Leave is twenty days.", "Ask HR."]).await;
    let ready = d.document(org, handbook.id).await.unwrap().unwrap();
    assert_eq!(ready.status, DocumentStatus::Ready);
    assert_eq!(
        (ready.searchable_generation, ready.chunk_count),
        (Some(first_gen), 2)
    );
    assert!(
        d.any_searchable(org, vec![Scope::Org, scope])
            .await
            .unwrap()
    );
    let status = DocumentFilter {
        scope: None,
        status: Some(DocumentStatus::Ready),
    };
    let (page, _) = d.documents(org, status, None, 10).await.unwrap();
    assert_eq!(ids(&page), vec![handbook.id]);
    let page = d.chunks_page(ready.clone(), Some(0), 10).await.unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].text, "Ask HR.");
    match d
        .reindex_document(org, handbook.id, JobKind::Reindex)
        .await
        .unwrap()
    {
        Reindexed::Queued(queued) => assert_eq!(queued.status, DocumentStatus::Queued),
        other => panic!("not queued: {other:?}"),
    }
    assert!(matches!(
        d.reindex_document(org, handbook.id, JobKind::Reindex)
            .await
            .unwrap(),
        Reindexed::Busy
    ));
    let second_gen = indexed(d, &handbook, &["Leave is thirty days."]).await;
    assert!(second_gen > first_gen);
    let places = vec![
        (handbook.id, first_gen, 0),
        (handbook.id, second_gen, 0),
        (handbook.id, second_gen, 7),
    ];
    let hits = d.searchable_chunks(org, places, 10).await.unwrap();
    assert_eq!(
        hits.len(),
        1,
        "only the searchable generation's chunks count"
    );
    assert_eq!(hits[0].1.text, "Leave is thirty days.");
    assert!(
        d.searchable_chunks(OrgId::new(), vec![(handbook.id, second_gen, 0)], 10)
            .await
            .unwrap()
            .is_empty()
    );
    let generations = d.searchable_generations().await.unwrap();
    assert!(
        generations
            .iter()
            .any(|g| g.doc_id == handbook.id && g.generation == second_gen)
    );
    let (found_scope, chunks) = d
        .generation_chunks(org, handbook.id, second_gen)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((found_scope, chunks.len()), (scope, 1));
    // The replaced generation is purged, and the index told.
    purge_all(d, &files).await;
    assert!(
        d.generation_chunks(org, handbook.id, first_gen)
            .await
            .unwrap()
            .unwrap()
            .1
            .is_empty()
    );
    let feed = ports
        .memories
        .index_changes_after(0, 1_000)
        .await
        .unwrap()
        .unwrap();
    assert!(feed.iter().any(|(_, change)| *change
        == IndexChange::RemoveGeneration {
            doc_id: handbook.id,
            generation: Some(first_gen),
        }));

    // A failed document is queued again by a new upload of its content.
    let job = IngestJob {
        doc_id: notes.id,
        org_id: org,
        kind: JobKind::Ingest,
        attempt: 3,
        lease_until: None,
        next_attempt_at: Utc::now(),
        error: None,
    };
    let failed = d
        .fail_attempt(job, "no extractable text".into(), None, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(failed.status, DocumentStatus::Failed);
    match upload(&ports, &files, (org, thread), b"notes").await {
        DocumentCreated::Duplicate(found) => {
            assert_eq!((found.id, found.status), (notes.id, DocumentStatus::Queued));
        }
        other => panic!("not queued again: {other:?}"),
    }

    // A delete is at once; the purge takes the chunks, and the file once
    // no document uses it.
    assert!(d.delete_document(org, handbook.id).await.unwrap());
    assert!(!d.delete_document(org, handbook.id).await.unwrap());
    assert!(d.document(org, handbook.id).await.unwrap().is_none());
    purge_all(d, &files).await;
    assert!(
        d.generation_chunks(org, handbook.id, second_gen)
            .await
            .unwrap()
            .is_none()
    );
    let kept = d.read_file(org, shared.sha256.clone(), files.clone()).await;
    assert_eq!(kept.unwrap(), b"# Leave\nTwenty days.");
    assert_eq!(d.delete_scope_documents(org, Scope::Org).await.unwrap(), 2);
    assert_eq!(d.delete_scope_documents(org, thread).await.unwrap(), 1);
    purge_all(d, &files).await;
    assert!(
        d.read_file(org, shared.sha256.clone(), files.clone())
            .await
            .is_err()
    );
    let (left, _) = d
        .documents(org, DocumentFilter::default(), None, 10)
        .await
        .unwrap();
    assert!(left.is_empty());
}
