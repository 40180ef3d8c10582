//! Reads on PostgreSQL that answered 501 before (`scale.md` §2): the usage
//! records and the stored traces (`GET /api/usage`, `GET /api/logs`), as
//! each caller may read them.

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres;
use crate::common::{Api, Server, done_of, exp_in, jwt};
use crate::postgres::Postgres;

/// A node on a fresh database, end user alice's thread and another
/// caller's (end user `other`, else the admin), each of one agent after
/// `sends` answered sends (alice's first). The database and the node stop
/// when their fields are dropped: a test binds them.
struct Sent {
    postgres: Postgres,
    url: String,
    node: Server,
    admin: Api,
    alice: Api,
    other: Api,
    hers: String,
    theirs: String,
}

async fn sent(database: &str, other: Option<&str>, sends: [usize; 2]) -> Sent {
    let postgres = Postgres::start().await;
    let url = postgres.database(database).await;
    let node = Server::start_with(on_postgres(&url, "a"));
    let admin = node.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("counted").await;
    let user = |sub: &str| node.api(&jwt(json!({"sub": sub, "exp": exp_in(600), "org_id": org})));
    let alice = user("alice");
    let other = other.map_or_else(|| node.admin(), user);
    let hers = alice.thread(&agent, json!({})).await;
    let theirs = other.thread(&agent, json!({})).await;
    for (api, thread, n) in [(&alice, &hers, sends[0]), (&other, &theirs, sends[1])] {
        for _ in 0..n {
            let frames = api.say(thread, json!({"content": "count me"})).await;
            assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
        }
    }
    Sent {
        postgres,
        url,
        node,
        admin,
        alice,
        other,
        hers,
        theirs,
    }
}

/// `GET /api/usage` answers on PostgreSQL (it answered 501): an admin sees
/// the org's records, newest first and paged; an end user only those of
/// the threads it may read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_is_listed_on_postgres_as_each_caller_may_read_it() {
    let Sent {
        admin,
        alice,
        other: bob,
        hers: mine,
        theirs,
        node: _node,
        postgres: _postgres,
        ..
    } = sent("usage", Some("bob"), [2, 3]).await;
    let threads_of = |page: &Value| -> Vec<String> {
        page["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["thread_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = admin.get("/api/usage").await.expect(200);
    assert_eq!(threads_of(&all).len(), 5, "{all}");
    let first = admin.get("/api/usage?limit=3").await.expect(200);
    let cursor = first["nextCursor"].as_str().unwrap();
    let rest = admin
        .get(&format!("/api/usage?limit=3&cursor={}", urlencode(cursor)))
        .await
        .expect(200);
    assert_eq!(
        [threads_of(&first), threads_of(&rest)].concat(),
        threads_of(&all)
    );
    assert_eq!(
        threads_of(&alice.get("/api/usage").await.expect(200)),
        [mine.clone(), mine.clone()]
    );
    let bobs = bob.get("/api/usage?limit=2").await.expect(200);
    assert_eq!(threads_of(&bobs), [theirs.clone(), theirs.clone()]);
    assert_eq!(
        threads_of(
            &admin
                .get(&format!("/api/usage?threadId={theirs}"))
                .await
                .expect(200)
        )
        .len(),
        3
    );
    alice
        .get(&format!("/api/usage?threadId={theirs}"))
        .await
        .expect_error(403, "FORBIDDEN");
}

fn urlencode(text: &str) -> String {
    text.replace(':', "%3A").replace('+', "%2B")
}

/// `GET /api/logs` and `GET /api/logs/{id}` answer on PostgreSQL: the
/// stored traces newest first and paged without a repeat, filtered, one
/// with its spans; an end user's own only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traces_are_listed_on_postgres_as_each_caller_may_read_them() {
    let Sent {
        admin,
        alice,
        hers: mine,
        theirs,
        node: _node,
        postgres: _postgres,
        ..
    } = sent("logs", None, [2, 3]).await;
    let ids = |page: &Value| -> Vec<String> {
        page["traces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = admin.get("/api/logs").await.expect(200);
    assert_eq!(ids(&all).len(), 5, "{all}");
    let mut paged = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = admin
            .get(&format!("/api/logs?limit=2&cursor={cursor}"))
            .await
            .expect(200);
        paged.extend(ids(&page));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = next.replace(':', "%3A").replace('+', "%2B"),
            None => break,
        }
    }
    assert_eq!(paged, ids(&all));
    let of_thread = admin
        .get(&format!("/api/logs?threadId={theirs}&status=ok"))
        .await
        .expect(200);
    assert_eq!(ids(&of_thread).len(), 3, "{of_thread}");
    let own = alice.get("/api/logs").await.expect(200);
    assert_eq!(ids(&own).len(), 2, "{own}");
    let first = &ids(&own)[0];
    let one = alice.get(&format!("/api/logs/{first}")).await.expect(200);
    assert_eq!(one["trace"]["thread_id"], json!(mine), "{one}");
    assert!(!one["spans"].as_array().unwrap().is_empty(), "{one}");
    let other = &ids(&of_thread)[0];
    alice
        .get(&format!("/api/logs/{other}"))
        .await
        .expect_error(403, "FORBIDDEN");
}

/// `GET /api/analytics` answers on PostgreSQL (it answered 501): today's
/// turns are counted from their traces as they are read; once the sweep
/// has folded them into the day aggregates, the answer is the same, and
/// each trace counts once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analytics_on_postgres_count_each_turn_once_folded_or_not() {
    let Sent {
        postgres,
        url,
        admin,
        alice,
        node: _node,
        ..
    } = sent("analytics", None, [2, 3]).await;
    let read = async || {
        (
            admin.get("/api/analytics?period=7d").await.expect(200),
            alice.get("/api/analytics?period=7d").await.expect(200),
        )
    };
    let (whole, own) = read().await;
    assert_eq!(whole["summary"]["total_turns"], 5, "{whole}");
    assert_eq!(whole["summary"]["unique_users"], 2, "{whole}");
    assert_eq!(whole["summary"]["total_threads"], 2, "{whole}");
    assert_eq!(own["summary"]["total_turns"], 2, "{own}");

    // A sweep two days on folds today's traces (nothing is past its
    // retention): the answers do not change.
    let database = postgres.admin_of("analytics").await;
    let store = crate::store_conformance::pg_store_of_node(&url).await;
    let later = chrono::Utc::now() + chrono::Duration::days(2);
    let swept = store
        .sweep(chrono::TimeDelta::days(30), later)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((swept.folded_traces, swept.traces), (5, 0), "{swept:?}");
    let unfolded: i64 = database
        .query_one("SELECT count(*) FROM traces WHERE NOT folded", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(unfolded, 0);
    assert_eq!(read().await, (whole, own));
}
