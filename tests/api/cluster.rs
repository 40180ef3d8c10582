//! The cluster's foundations on a real PostgreSQL (`scale.md` §1, §3):
//! migrations under the advisory lock, the shared key check, node
//! registration and heartbeats, shard claims and takeover, fencing, and
//! a set `CONFER_STORE` refused by `serve` while the records are not yet
//! kept there.

use std::time::{Duration, Instant};

use confer::cluster::leases::{self, Plan};
use confer::cluster::node::ClusterNode;
use confer::cluster::nodes::{self, NodeSettings};
use confer::cluster::{SHARDS, Shard};
use confer::secrets::SecretBox;
use confer::store::pg::meta::{self, Prepared};
use confer::store::pg::migrate::{self, MIGRATIONS, Migration};
use confer::store::pg::{Database, PgError, PgSettings};
use confer::tools::integrations::connection::{self, TlsSettings};
use secrecy::SecretString;

use crate::common::eventually;
use crate::postgres::Postgres;

async fn open(url: &str) -> Database {
    let settings = PgSettings {
        target: connection::parse_operator(url).unwrap(),
        pool_size: 4,
    };
    Database::open(&settings, TlsSettings::new(None).unwrap())
        .await
        .unwrap()
}

fn secrets(current: u8, old: Option<u8>) -> SecretBox {
    use base64::Engine as _;
    let text =
        |byte: u8| SecretString::from(base64::engine::general_purpose::STANDARD.encode([byte; 32]));
    let dir = tempfile::tempdir().unwrap();
    SecretBox::load(
        Some(&text(current)),
        None,
        old.map(text).as_ref(),
        dir.path(),
    )
    .unwrap()
}

fn node(name: &str, ttl_secs: u64) -> NodeSettings {
    NodeSettings {
        name: name.into(),
        url: format!("http://{name}.invalid:8080"),
        ttl: Duration::from_secs(ttl_secs),
    }
}

#[tokio::test]
async fn nodes_started_together_migrate_once_and_must_share_the_key() {
    let postgres = Postgres::start().await;
    let url = postgres.database("confer").await;
    let database = open(&url).await;
    let key = secrets(1, None);
    let (a, b, c) = tokio::join!(
        meta::prepare(&database, &key),
        meta::prepare(&database, &key),
        meta::prepare(&database, &key)
    );
    let mut prepared: Vec<Prepared> = vec![a.unwrap(), b.unwrap(), c.unwrap()];
    prepared.sort_by_key(|p| p.migrated.is_empty());
    let every: Vec<i32> = MIGRATIONS.iter().map(|m| m.version).collect();
    assert_eq!(prepared[0].migrated, every);
    assert!(prepared[0].first_start);
    for later in &prepared[1..] {
        assert!(later.migrated.is_empty() && !later.first_start, "{later:?}");
    }
    let session = database.session().await.unwrap();
    let count: i64 = session
        .client
        .query_one("SELECT count(*) FROM schema_migrations", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(count, MIGRATIONS.len() as i64);
    let shards: i64 = session
        .client
        .query_one("SELECT count(*) FROM shard_leases", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(shards, i64::from(SHARDS));

    // Another key is refused, and the refusal names no key.
    let refused = meta::prepare(&database, &secrets(2, None))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("CONFER_SECRET_KEY"), "{refused}");
    // A rotation: the new key with the old one beside it moves the check;
    // from then on the old key alone is refused.
    let rotated = meta::prepare(&database, &secrets(2, Some(1)))
        .await
        .unwrap();
    assert!(rotated.rotated);
    assert!(meta::prepare(&database, &secrets(1, None)).await.is_err());
    assert!(meta::prepare(&database, &secrets(2, None)).await.is_ok());

    // `confer migrate` at work: nodes refuse to start.
    session
        .client
        .execute(
            "INSERT INTO meta (key, value) VALUES ('migration', 'in_progress')",
            &[],
        )
        .await
        .unwrap();
    let during = meta::prepare(&database, &secrets(2, None))
        .await
        .unwrap_err()
        .to_string();
    assert!(during.contains("confer migrate"), "{during}");
}

#[tokio::test]
async fn a_changed_or_unknown_migration_stops_start_up() {
    let postgres = Postgres::start().await;
    let database = open(&postgres.database("confer").await).await;
    meta::prepare(&database, &secrets(1, None)).await.unwrap();
    let mut connection = database.dedicated().await.unwrap();
    let edited = [Migration {
        sql: "CREATE TABLE meta (key text PRIMARY KEY); -- edited",
        ..MIGRATIONS[0]
    }];
    let changed = migrate::migrate(&mut connection.client, &edited)
        .await
        .unwrap_err();
    assert!(
        matches!(&changed, PgError::Migration(m) if m.contains("changed")),
        "{changed}"
    );
    connection
        .client
        .execute(
            "INSERT INTO schema_migrations (version, name, sha256) VALUES (99, 'later', 'x')",
            &[],
        )
        .await
        .unwrap();
    let newer = meta::prepare(&database, &secrets(1, None))
        .await
        .unwrap_err();
    assert!(
        matches!(&newer, PgError::Migration(m) if m.contains("V99__later")),
        "{newer}"
    );
}

/// Shards each node owns, by name.
fn owned(nodes: &[&ClusterNode]) -> Vec<(String, usize)> {
    let view = nodes[0].view();
    let counts = view.map.counts();
    nodes
        .iter()
        .map(|n| {
            (
                n.name().to_owned(),
                counts.get(&n.id()).copied().unwrap_or(0),
            )
        })
        .collect()
}

#[tokio::test]
async fn three_nodes_share_the_shards_and_a_dead_one_s_are_taken_over() {
    let postgres = Postgres::start().await;
    let database = open(&postgres.database("confer").await).await;
    meta::prepare(&database, &secrets(1, None)).await.unwrap();
    let idle = || Box::new(|_: Shard| true);
    let a = ClusterNode::join(database.clone(), node("a", 5), idle())
        .await
        .unwrap();
    // Alone, a node owns every shard once it has joined.
    assert_eq!(a.view().map.counts().get(&a.id()), Some(&1024));
    assert!(a.admits_turns());
    let b = ClusterNode::join(database.clone(), node("b", 5), idle())
        .await
        .unwrap();
    let c = ClusterNode::join(database.clone(), node("c", 5), idle())
        .await
        .unwrap();
    // A hands each newcomer its preferred shards once it has been live
    // 10 s (64 a second; each is free until its new owner's next round).
    let shared = eventually(
        Duration::from_secs(40),
        "the shards are shared",
        async || {
            let counts = owned(&[&a, &b, &c]);
            (a.view().map.orphaned() == 0 && counts.iter().all(|(_, n)| (250..430).contains(n)))
                .then_some(counts)
        },
    )
    .await;
    let total: usize = shared.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 1024, "{shared:?}");

    // C dies without leaving: with the default TTL of 5 s its shards are
    // owned again within TTL + 2 s (the contract says 10 s).
    let c_id = c.id();
    drop(c);
    let killed = Instant::now();
    eventually(
        Duration::from_secs(10),
        "C's shards are taken over",
        async || {
            let view = a.view();
            let counts = view.map.counts();
            (view.map.orphaned() == 0 && !counts.contains_key(&c_id)).then_some(())
        },
    )
    .await;
    let took = killed.elapsed();
    eprintln!("takeover of a dead node's shards: {took:?}");
    assert!(took < Duration::from_secs(10), "takeover took {took:?}");

    // B leaves: A holds every shard, B's row is gone.
    let b_id = b.id();
    b.leave(Duration::from_secs(5)).await.unwrap();
    eventually(Duration::from_secs(5), "A owns everything", async || {
        (a.view().map.counts().get(&a.id()) == Some(&1024)).then_some(())
    })
    .await;
    let session = database.session().await.unwrap();
    let rows = session
        .client
        .query("SELECT 1 FROM nodes WHERE id = $1", &[&b_id.0])
        .await
        .unwrap();
    assert!(rows.is_empty());
}

#[tokio::test]
async fn a_node_that_lost_its_lease_is_fenced_and_a_claim_waits_for_a_fenced_write() {
    let postgres = Postgres::start().await;
    let database = open(&postgres.database("confer").await).await;
    meta::prepare(&database, &secrets(1, None)).await.unwrap();
    // Pooled sessions: a fenced write runs its check as the store does,
    // with the session's prepared statements.
    let mut x = database.session().await.unwrap();
    let mut y = database.session().await.unwrap();
    let shard = Shard::new(5).unwrap();

    // X, alone, claims shard 5 and may write under its epoch.
    let x_id = nodes::register(&x.client, &node("x", 2)).await.unwrap();
    let claim = move |epoch: i64| Plan {
        claim: vec![(shard, epoch)],
        release: vec![],
    };
    let applied = leases::apply(&mut x.client, x_id, &claim(0)).await.unwrap();
    let epoch = applied.claimed[0].1;
    assert_eq!(applied.claimed, vec![(shard, 1)]);
    assert!(leases::fence(x.db(), x_id, shard, epoch).await.unwrap());
    // A claim naming a stale epoch, or of a shard with a live owner, fails.
    let y_id = nodes::register(&y.client, &node("y", 2)).await.unwrap();
    let lost = leases::apply(&mut y.client, y_id, &claim(1)).await.unwrap();
    assert!(lost.claimed.is_empty(), "a live owner's shard was taken");

    // A write holding the fence makes a competing claim wait for it.
    let write = x.transaction().await.unwrap();
    assert!(leases::fence(write.db(), x_id, shard, epoch).await.unwrap());
    // X goes silent (as if SIGSTOPped) while its write is open; Y keeps
    // heartbeating.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert!(
            nodes::heartbeat(&y.client, y_id, Duration::from_secs(2))
                .await
                .unwrap()
        );
    }
    let mut claimer = database.dedicated().await.unwrap();
    let waiting = tokio::spawn(async move {
        let applied = leases::apply(&mut claimer.client, y_id, &claim(epoch)).await;
        (applied, Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "the claim did not wait for the fenced write"
    );
    let committed = Instant::now();
    write.commit().await.unwrap();
    let (applied, at) = waiting.await.unwrap();
    assert!(at >= committed);
    assert_eq!(applied.unwrap().claimed, vec![(shard, epoch + 1)]);

    // X's next write is fenced off, and its heartbeat finds the lease gone.
    assert!(!leases::fence(x.db(), x_id, shard, epoch).await.unwrap());
    assert!(
        !nodes::heartbeat(&x.client, x_id, Duration::from_secs(2))
            .await
            .unwrap()
    );
    // Y holds it now, under the new epoch.
    assert!(leases::fence(y.db(), y_id, shard, epoch + 1).await.unwrap());
    // A re-registered X is a new node, and its name is free again.
    let again = nodes::register(&x.client, &node("x", 2)).await.unwrap();
    assert_ne!(again, x_id);
}

#[tokio::test]
async fn a_second_live_node_with_the_same_name_is_refused() {
    let postgres = Postgres::start().await;
    let database = open(&postgres.database("confer").await).await;
    meta::prepare(&database, &secrets(1, None)).await.unwrap();
    let first = ClusterNode::join(database.clone(), node("same", 2), Box::new(|_| true))
        .await
        .unwrap();
    let started = Instant::now();
    let second = ClusterNode::join(database.clone(), node("same", 2), Box::new(|_| true)).await;
    let refused = second.err().expect("the name is taken").to_string();
    assert!(refused.contains("CONFER_NODE_NAME"), "{refused}");
    // It waited one TTL first, in case the live row was its own last life.
    assert!(started.elapsed() >= Duration::from_secs(2));
    drop(first);
}

#[test]
fn serve_on_an_unreachable_store_stops_without_showing_its_password() {
    let data = tempfile::tempdir().unwrap();
    let run = |key: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_confer"));
        command
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("CONFER_DATA_DIR", data.path())
            .env(
                "CONFER_STORE",
                "postgres://confer:pw-never-shown-42@127.0.0.1:1/confer",
            );
        if let Some(key) = key {
            command.env("CONFER_SECRET_KEY", key);
        }
        let out = command.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Every node needs the same key: one made in a data directory won't do.
    let said = run(None);
    assert!(said.contains("CONFER_SECRET_KEY"), "{said}");
    let said = run(Some("c2VjcmV0LWtleS1vZi10aGUtY2x1c3Rlci0wMTIzNDU="));
    assert!(said.contains("PostgreSQL"), "{said}");
    assert!(!said.contains("pw-never-shown-42"), "{said}");
    // Nothing was made in the data directory: sled was never opened.
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}

/// A session keeps the statements it prepared, up to its bound, and a
/// statement prepared inside a rolled-back transaction still runs after.
#[tokio::test]
async fn a_session_keeps_its_prepared_statements_up_to_the_bound() {
    use confer::store::pg::statements::MAX_STATEMENTS;
    let postgres = Postgres::start().await;
    let database = open(&postgres.database("statements").await).await;
    let mut session = database.session().await.unwrap();
    {
        let rolled_back = session.transaction().await.unwrap();
        let row = rolled_back
            .db()
            .query_one("SELECT 40 + 2", &[])
            .await
            .unwrap();
        assert_eq!(row.get::<_, i32>(0), 42);
    }
    assert_eq!(session.statements().len(), 1);
    let row = session.db().query_one("SELECT 40 + 2", &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 42, "the kept statement runs again");
    assert_eq!(session.statements().len(), 1, "a text is prepared once");
    for n in 0..MAX_STATEMENTS + 5 {
        let sql = format!("SELECT {n}::int");
        let row = session.db().query_one(&sql, &[]).await.unwrap();
        assert_eq!(row.get::<_, i32>(0), i32::try_from(n).unwrap());
    }
    assert_eq!(session.statements().len(), MAX_STATEMENTS);
}
