//! Agents' memories on PostgreSQL (`knowledge.md` §5, `scale.md` §5): a
//! memory written on one node is recalled on another (each node's index
//! follows the change feed), a node started later builds its index from
//! the rows, a turn's collection runs once on the thread's owner, and a
//! forget on one node hides the memories on every node at once.

use std::time::Duration;

use serde_json::{Value, json};

use crate::cluster_serve::on_postgres_with_vendor;
use crate::common::{Server, done_of, eventually};
use crate::memories::{recall, user};
use crate::mock::{Mock, Reply, openai_answer};
use crate::postgres::Postgres;

fn contents(found: &[Value]) -> Vec<&str> {
    found
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_are_recalled_collected_and_forgotten_across_nodes() {
    let vendor = Mock::start("/v1").await;
    let postgres = Postgres::start().await;
    let url = postgres.database("memories").await;
    let node = |name| on_postgres_with_vendor(&url, name, &vendor.base);
    let a = Server::start_with(node("a"));
    let b = Server::start_with(node("b"));
    let on_a = a.admin();
    let org = on_a.org_id().await;
    let agent = on_a
        .agent_with(json!({"name": "Keeper", "defaultModel": "openai/gpt-4.1"}))
        .await;
    on_a.put(
        &format!("/api/agents/{agent}/memory"),
        json!({"enabled": true, "autoCollect": true, "collectBudgetTokens": 200}),
    )
    .await
    .expect(200);

    // Written on A, durable and searchable there when answered; recalled
    // on B once B's index has read the feed (it reads it every second).
    let written = on_a
        .post(
            &format!("/api/agents/{agent}/memories"),
            json!({"content": "Alice keeps bees on her roof", "userId": "alice"}),
        )
        .await
        .expect(201);
    let alice_on_a = user(&a, &org, "alice");
    let found = recall(&alice_on_a, &agent, json!({"query": "bees"})).await;
    assert_eq!(contents(&found), ["Alice keeps bees on her roof"]);
    let alice_on_b = user(&b, &org, "alice");
    let found = eventually(
        Duration::from_secs(10),
        "B recalls A's memory",
        async || {
            let found = recall(&alice_on_b, &agent, json!({"query": "bees"})).await;
            (!found.is_empty()).then_some(found)
        },
    )
    .await;
    assert_eq!(found[0]["id"], written["id"]);
    // Another user recalls none of Alice's, on either node.
    let bob_on_b = user(&b, &org, "bob");
    assert!(
        recall(&bob_on_b, &agent, json!({"query": "bees"}))
            .await
            .is_empty()
    );

    // A turn sent on B is collected once, by the thread's owner.
    let thread = alice_on_b.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_answer("Honey, then.", 10)));
    vendor.push(Reply::stream(openai_answer(
        r#"{"memories": ["Alice sells honey at the market"]}"#,
        12,
    )));
    let frames = alice_on_b
        .say(&thread, json!({"content": "I sell honey at the market."}))
        .await;
    assert_eq!(done_of(&frames)["ok"], true, "{frames:?}");
    let path = format!("/api/agents/{agent}/memories?userId=alice");
    let listed = eventually(
        Duration::from_secs(20),
        "the turn is collected",
        async || {
            let listed = on_a.get(&path).await.expect(200);
            (listed.as_array().unwrap().len() == 2).then_some(listed)
        },
    )
    .await;
    assert_eq!(listed[0]["content"], "Alice sells honey at the market");
    assert_eq!(listed[0]["source"], "auto");
    assert_eq!(vendor.requests().len(), 2, "one turn, one collection");

    // A node started now builds its index from the rows.
    let c = Server::start_with(node("c"));
    let alice_on_c = user(&c, &org, "alice");
    let found = eventually(
        Duration::from_secs(10),
        "C recalls from its rebuilt index",
        async || {
            let found = recall(&alice_on_c, &agent, json!({"query": "honey market"})).await;
            (!found.is_empty()).then_some(found)
        },
    )
    .await;
    assert_eq!(contents(&found), ["Alice sells honey at the market"]);

    // Forgotten on B: hidden on every node at once, then purged.
    b.admin()
        .delete(&format!("/api/agents/{agent}/memories?userId=alice"))
        .await
        .expect(200);
    for alice in [&alice_on_a, &alice_on_c] {
        assert!(
            recall(alice, &agent, json!({"query": "bees honey"}))
                .await
                .is_empty()
        );
    }
    assert_eq!(on_a.get(&path).await.expect(200), json!([]));
    let admin = postgres.admin_of("memories").await;
    eventually(
        Duration::from_secs(20),
        "the forgotten memories are purged",
        async || {
            let left: i64 = admin
                .query_one("SELECT count(*) FROM memories", &[])
                .await
                .unwrap()
                .get(0);
            (left == 0).then_some(())
        },
    )
    .await;
}

/// The feed keeps changes a week: the sweep removes older ones and raises
/// the floor past them, and a reader behind the floor is told to rebuild.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_feed_is_swept_past_a_week_and_says_so() {
    use confer::knowledge::memory::{Memory, MemoryScope, MemorySource};
    use confer::store::port::MemoryRecords;
    use confer_actors::{AgentId, MemoryId, OrgId};

    let postgres = Postgres::start().await;
    let url = postgres.database("feed").await;
    let store = crate::store_conformance::pg_store(&url).await;
    let (org, agent) = (OrgId::new(), AgentId::new());
    let mut seqs = Vec::new();
    for content in ["old", "new"] {
        let memory = Memory {
            id: MemoryId::new(),
            org_id: org,
            agent_id: agent,
            scope: MemoryScope::Agent,
            user_id: None,
            content: content.into(),
            source: MemorySource::Api,
            thread_id: None,
            created_at: chrono::Utc::now(),
            last_recalled_at: None,
        };
        match store.put_memory(memory, 10, 10).await.unwrap() {
            confer::store::knowledge::memories::MemoryWritten::Stored { seq, .. } => seqs.push(seq),
            other => panic!("{other:?}"),
        }
    }
    let admin = postgres.admin_of("feed").await;
    let old = i64::try_from(seqs[0]).unwrap();
    admin
        .execute(
            "UPDATE index_changes SET at = now() - interval '8 days' WHERE seq = $1",
            &[&old],
        )
        .await
        .unwrap();
    let swept = store
        .sweep(chrono::TimeDelta::days(30), chrono::Utc::now())
        .await
        .unwrap()
        .expect("this sweep holds the lock");
    assert_eq!(swept.index_changes, 1, "{swept:?}");
    assert_eq!(store.index_floor().await.unwrap(), seqs[0]);
    assert_eq!(
        store.index_changes_after(0, 10).await.unwrap(),
        None,
        "behind the floor"
    );
    let after = store
        .index_changes_after(seqs[0], 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [seqs[1]]);
}
