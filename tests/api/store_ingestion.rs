//! Ingestion jobs on PostgreSQL (`knowledge.md` §2, `scale.md` §5): a
//! job is claimed by an owner of its shard, held by its lease, and a
//! claim that outlived its node counts as an attempt.

use confer::knowledge::DocumentStatus;
use confer::knowledge::Scope;
use confer::knowledge::files::KnowledgeFiles;
use confer_actors::OrgId;

use crate::store_conformance::Ports;
use crate::store_documents::{drafts, stored, upload};

/// A claim whose lease ran out was cut short by its node's loss: the next
/// claim (any node's) counts it as an attempt, purges what it wrote, and
/// fails the document after the third (`knowledge.md` §2's restart rule,
/// `scale.md` §5's dead node).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_claim_is_an_attempt_on_postgres() {
    use confer::cluster::{NodeId, Shard};
    let postgres = crate::postgres::Postgres::start().await;
    let url = postgres.database("lost_claims").await;
    let store = crate::store_conformance::pg_store(&url).await;
    let ports = Ports::of_postgres(&store);
    let dir = tempfile::tempdir().unwrap();
    let files = KnowledgeFiles::open(dir.path()).unwrap();
    let org = OrgId::new();
    let queued = stored(upload(&ports, &files, (org, Scope::Org), b"# Tides").await);
    let shards: Vec<Shard> = Shard::all().collect();
    let (dead, alive) = (NodeId::fresh(), NodeId::fresh());
    let held = chrono::TimeDelta::minutes(5);
    // Not the dead node's shards: nothing to claim.
    let elsewhere: Vec<Shard> = shards
        .iter()
        .copied()
        .filter(|s| *s != Shard::of_id(queued.id.0))
        .collect();
    assert!(
        store
            .claim_ingestion(alive, &elsewhere, held)
            .await
            .unwrap()
            .is_none()
    );
    let (job, document) = store
        .claim_ingestion(dead, &shards, held)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((job.attempt, document.status), (1, DocumentStatus::Parsing));
    // Held: another node passes it by.
    assert!(
        store
            .claim_ingestion(alive, &shards, held)
            .await
            .unwrap()
            .is_none()
    );
    // The dead node opened a generation; its lease runs out.
    let generation = ports
        .documents
        .begin_indexing(org, queued.id)
        .await
        .unwrap()
        .unwrap();
    ports
        .documents
        .put_chunks(queued.id, generation, drafts(&["High tide at noon."]))
        .await
        .unwrap();
    let admin = postgres.admin_of("lost_claims").await;
    let expire = "UPDATE jobs SET claimed_until = now() - interval '1 second'";
    admin.execute(expire, &[]).await.unwrap();
    let (job, document) = store
        .claim_ingestion(alive, &shards, held)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((job.attempt, document.attempts), (2, 2));
    assert_eq!(
        job.error.as_deref(),
        Some("interrupted by a node's loss (attempt 1 of 3)")
    );
    let purges: i64 = admin
        .query_one("SELECT count(*) FROM knowledge_purges", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        purges, 1,
        "the half-written generation is queued for the purge"
    );
    // Lost twice more: the third loss fails the document.
    admin.execute(expire, &[]).await.unwrap();
    let (job, _) = store
        .claim_ingestion(alive, &shards, held)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(job.attempt, 3);
    admin.execute(expire, &[]).await.unwrap();
    assert!(
        store
            .claim_ingestion(alive, &shards, held)
            .await
            .unwrap()
            .is_none()
    );
    let failed = ports
        .documents
        .document(org, queued.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(failed.status, DocumentStatus::Failed);
    assert_eq!(
        failed.error.as_deref(),
        Some("interrupted by a node's loss (attempt 3 of 3)")
    );
    let jobs: i64 = admin
        .query_one("SELECT count(*) FROM jobs", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(jobs, 0);
}
