//! Ingestion jobs on PostgreSQL (`knowledge.md` §2, `scale.md` §5): a
//! job is claimed by an owner of its shard, held by its lease, and a
//! claim that outlived its node counts as an attempt.

use confer::knowledge::DocumentStatus;
use confer::knowledge::Scope;
use confer::knowledge::files::KnowledgeFiles;
use confer_actors::OrgId;

use crate::store_conformance::Ports;
use crate::store_documents::{drafts, stored, upload};

/// What `node` claims of `shards`' jobs, held 5 minutes.
async fn claim(
    store: &confer::store::pg::PgStore,
    node: confer::cluster::NodeId,
    shards: &[confer::cluster::Shard],
) -> Option<(confer::knowledge::IngestJob, confer::knowledge::Document)> {
    let held = chrono::TimeDelta::minutes(5);
    store.claim_ingestion(node, shards, held).await.unwrap()
}

/// A database with one document queued in an org.
struct Rig {
    postgres: crate::postgres::Postgres,
    store: confer::store::pg::PgStore,
    ports: Ports,
    org: OrgId,
    queued: confer::knowledge::Document,
    /// Where the upload was received.
    _dir: tempfile::TempDir,
}

impl Rig {
    async fn with_one_document(name: &str) -> Self {
        let postgres = crate::postgres::Postgres::start().await;
        let url = postgres.database(name).await;
        let store = crate::store_conformance::pg_store(&url).await;
        let ports = Ports::of_postgres(&store);
        let dir = tempfile::tempdir().unwrap();
        let files = KnowledgeFiles::open(dir.path()).unwrap();
        let org = OrgId::new();
        let queued = stored(upload(&ports, &files, (org, Scope::Org), b"# Tides").await);
        Self {
            postgres,
            store,
            ports,
            org,
            queued,
            _dir: dir,
        }
    }
}

/// The rows of `table`.
async fn rows(admin: &tokio_postgres::Client, table: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM {table}");
    admin.query_one(sql.as_str(), &[]).await.unwrap().get(0)
}

/// A claim whose lease ran out was cut short by its node's loss: the next
/// claim (any node's) counts it as an attempt, purges what it wrote, and
/// fails the document after the third (`knowledge.md` §2's restart rule,
/// `scale.md` §5's dead node).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_claim_is_an_attempt_on_postgres() {
    use confer::cluster::{NodeId, Shard};
    let Rig {
        postgres,
        store,
        ports,
        org,
        queued,
        _dir,
    } = Rig::with_one_document("lost_claims").await;
    let shards: Vec<Shard> = Shard::all().collect();
    let (dead, alive) = (NodeId::fresh(), NodeId::fresh());
    // Not the dead node's shards: nothing to claim.
    let elsewhere: Vec<Shard> = shards
        .iter()
        .copied()
        .filter(|s| *s != Shard::of_id(queued.id.0))
        .collect();
    assert!(claim(&store, alive, &elsewhere).await.is_none());
    let (job, document) = claim(&store, dead, &shards).await.unwrap();
    assert_eq!((job.attempt, document.status), (1, DocumentStatus::Parsing));
    // Held: another node passes it by.
    assert!(claim(&store, alive, &shards).await.is_none());
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
    let (job, document) = claim(&store, alive, &shards).await.unwrap();
    assert_eq!((job.attempt, document.attempts), (2, 2));
    assert_eq!(
        job.error.as_deref(),
        Some("interrupted by a node's loss (attempt 1 of 3)")
    );
    assert_eq!(
        rows(&admin, "knowledge_purges").await,
        1,
        "the half-written generation is queued for the purge"
    );
    // Lost twice more: the third loss fails the document.
    admin.execute(expire, &[]).await.unwrap();
    let (job, _) = claim(&store, alive, &shards).await.unwrap();
    assert_eq!(job.attempt, 3);
    admin.execute(expire, &[]).await.unwrap();
    assert!(claim(&store, alive, &shards).await.is_none());
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
    assert_eq!(rows(&admin, "jobs").await, 0);
}

/// A claim passes a job whose document another transaction holds (a
/// delete, a reindex) rather than wait: those lock the document before
/// the job, the claim the job first, and waiting could deadlock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_passes_a_held_document_on_postgres() {
    use confer::cluster::{NodeId, Shard};
    let Rig {
        postgres,
        store,
        queued,
        _dir,
        ..
    } = Rig::with_one_document("held_documents").await;
    let shards: Vec<Shard> = Shard::all().collect();
    let mut admin = postgres.admin_of("held_documents").await;
    let holding = admin.transaction().await.unwrap();
    holding
        .execute(
            "SELECT 1 FROM documents WHERE id = $1 FOR UPDATE",
            &[&queued.id.0],
        )
        .await
        .unwrap();
    let passed = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        claim(&store, NodeId::fresh(), &shards),
    )
    .await
    .expect("the claim does not wait for the held document");
    assert!(passed.is_none());
    holding.commit().await.unwrap();
    let (job, _) = claim(&store, NodeId::fresh(), &shards).await.unwrap();
    assert_eq!(job.doc_id, queued.id);
}
