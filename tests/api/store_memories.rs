//! The store conformance suite's cases for agents' memories and the
//! search index's change feed (`knowledge.md` §5, `scale.md` §5).

use chrono::{TimeDelta, Utc};
use confer::knowledge::memory::{Memory, MemoryScope, MemorySource, Owner};
use confer::store::knowledge::changes::IndexChange;
use confer::store::knowledge::memories::MemoryWritten;
use confer::store::port::MemoryFilter;
use confer_actors::{AgentId, MemoryId, OrgId};

use crate::store_conformance::Ports;

fn memory(org: OrgId, agent: AgentId, user: Option<&str>, content: &str) -> Memory {
    Memory {
        id: MemoryId::new(),
        org_id: org,
        agent_id: agent,
        scope: match user {
            Some(_) => MemoryScope::User,
            None => MemoryScope::Agent,
        },
        user_id: user.map(str::to_owned),
        content: content.into(),
        source: MemorySource::Api,
        thread_id: None,
        created_at: Utc::now(),
        last_recalled_at: None,
    }
}

/// Stores `memory` (per owner at most `max`), expecting it stored.
async fn stored(ports: &Ports, memory: Memory, max: usize) -> (Memory, u64) {
    match ports.memories.put_memory(memory, max, 1_000).await.unwrap() {
        MemoryWritten::Stored { memory, seq } => (*memory, seq),
        other => panic!("not stored: {other:?}"),
    }
}

fn ids(memories: &[Memory]) -> Vec<MemoryId> {
    memories.iter().map(|m| m.id).collect()
}

pub(crate) async fn memories_keep_owners_bounds_and_forgets(ports: Ports) {
    let m = &ports.memories;
    let (org, agent) = (OrgId::new(), AgentId::new());
    let (tea, _) = stored(&ports, memory(org, agent, Some("u1"), "Likes tea"), 2).await;
    // The same content, normalized, is the owner's duplicate.
    let again = memory(org, agent, Some("u1"), "  likes   TEA ");
    match m.put_memory(again, 2, 1_000).await.unwrap() {
        MemoryWritten::Duplicate(found) => assert_eq!(found.id, tea.id),
        other => panic!("not a duplicate: {other:?}"),
    }
    // Another owner may keep the same content.
    let (theirs, _) = stored(&ports, memory(org, agent, Some("u2"), "Likes tea"), 2).await;
    let (biscuits, _) = stored(&ports, memory(org, agent, Some("u1"), "Likes biscuits"), 2).await;
    // Recalled memories are evicted last: the biscuits go, not the tea.
    let now = Utc::now();
    m.memories_recalled(org, agent, vec![tea.id], now)
        .await
        .unwrap();
    let recalled = m.memory(org, agent, tea.id).await.unwrap().unwrap();
    let stamp = recalled.last_recalled_at.expect("stamped");
    assert!(
        (stamp - now).abs() < TimeDelta::milliseconds(1),
        "{stamp} {now}"
    );
    // A second recall within the minute writes nothing.
    let later = now + TimeDelta::seconds(10);
    m.memories_recalled(org, agent, vec![tea.id], later)
        .await
        .unwrap();
    let unchanged = m.memory(org, agent, tea.id).await.unwrap().unwrap();
    assert_eq!(unchanged.last_recalled_at, recalled.last_recalled_at);
    let (jam, _) = stored(&ports, memory(org, agent, Some("u1"), "Likes jam"), 2).await;
    assert!(m.memory(org, agent, biscuits.id).await.unwrap().is_none());
    assert!(m.memory(org, agent, tea.id).await.unwrap().is_some());
    // The org's bound: it holds 3 (tea, theirs, jam).
    let full = m
        .put_memory(memory(org, agent, None, "Shared note"), 10, 3)
        .await
        .unwrap();
    assert!(matches!(full, MemoryWritten::OrgFull), "{full:?}");
    let (shared, _) = stored(&ports, memory(org, agent, None, "Shared note"), 10).await;
    // Records stay in their org.
    assert!(
        m.memory(OrgId::new(), agent, tea.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        m.memory(org, AgentId::new(), tea.id)
            .await
            .unwrap()
            .is_none()
    );

    // Pages: newest first, by owner, by scope, with a cursor.
    let every = MemoryFilter::default();
    let (all, next) = m
        .memories(org, agent, every.clone(), None, 10)
        .await
        .unwrap();
    assert_eq!(ids(&all), vec![shared.id, jam.id, theirs.id, tea.id]);
    assert_eq!(next, None);
    let (first, next) = m
        .memories(org, agent, every.clone(), None, 3)
        .await
        .unwrap();
    assert_eq!(ids(&first), vec![shared.id, jam.id, theirs.id]);
    assert_eq!(next, Some(theirs.id));
    let (rest, next) = m.memories(org, agent, every, next, 3).await.unwrap();
    assert_eq!((ids(&rest), next), (vec![tea.id], None));
    let u1 = MemoryFilter {
        owners: Some(vec![Owner::User("u1".into()), Owner::Shared]),
        only: None,
    };
    let (owned, _) = m.memories(org, agent, u1, None, 10).await.unwrap();
    assert_eq!(ids(&owned), vec![shared.id, jam.id, tea.id]);
    let users = MemoryFilter {
        owners: None,
        only: Some(MemoryScope::User),
    };
    let (personal, _) = m.memories(org, agent, users, None, 10).await.unwrap();
    assert_eq!(ids(&personal), vec![jam.id, theirs.id, tea.id]);

    // Forgetting u1 hides theirs at once; the purge removes them after.
    m.forget_memories(org, Some(agent), Some(Owner::User("u1".into())))
        .await
        .unwrap();
    assert!(m.memory(org, agent, tea.id).await.unwrap().is_none());
    let (left, _) = m
        .memories(org, agent, MemoryFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(ids(&left), vec![shared.id, theirs.id]);
    let asked = vec![tea.id, theirs.id, shared.id, jam.id, MemoryId::new()];
    let mut found = ids(&m.memories_of(org, agent, asked).await.unwrap());
    found.sort();
    let mut visible = vec![theirs.id, shared.id];
    visible.sort();
    assert_eq!(found, visible, "read at once, the forgotten left out");
    // A forgotten content may be written again at once.
    let (tea_again, _) = stored(&ports, memory(org, agent, Some("u1"), "Likes tea"), 2).await;
    let mut steps = 0;
    while m.memory_purge_step(1).await.unwrap() > 0 {
        steps += 1;
        assert!(steps < 10, "the purge ends");
    }
    let mut kept: Vec<MemoryId> = m
        .memory_ids()
        .await
        .unwrap()
        .into_iter()
        .map(|(o, a, id)| {
            assert_eq!((o, a), (org, agent));
            id
        })
        .collect();
    kept.sort();
    let mut expected = vec![shared.id, theirs.id, tea_again.id];
    expected.sort();
    assert_eq!(kept, expected);
    assert!(m.memory(org, agent, tea_again.id).await.unwrap().is_some());

    // Forgetting a user everywhere reaches every agent.
    let elsewhere = AgentId::new();
    let (other_agent, _) = stored(&ports, memory(org, elsewhere, Some("u2"), "Tall"), 5).await;
    m.forget_memories(org, None, Some(Owner::User("u2".into())))
        .await
        .unwrap();
    assert!(
        m.memory(org, elsewhere, other_agent.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(m.memory(org, agent, theirs.id).await.unwrap().is_none());
    assert!(m.memory(org, agent, shared.id).await.unwrap().is_some());

    assert!(m.delete_memory(org, agent, shared.id).await.unwrap());
    assert!(!m.delete_memory(org, agent, shared.id).await.unwrap());
}

pub(crate) async fn memory_writes_feed_the_index_in_order(ports: Ports) {
    let m = &ports.memories;
    let feed = m.index_feed().await.unwrap();
    assert_eq!(m.index_feed().await.unwrap(), feed, "a feed keeps its name");
    let start = m.index_floor().await.unwrap();
    let (org, agent) = (OrgId::new(), AgentId::new());
    let (first, first_seq) = stored(&ports, memory(org, agent, Some("u"), "One"), 1).await;
    // At its bound of 1, the owner's first memory goes with the second.
    let (second, second_seq) = stored(&ports, memory(org, agent, Some("u"), "Two"), 1).await;
    assert!(second_seq > first_seq);
    assert!(m.delete_memory(org, agent, second.id).await.unwrap());
    let changes = m
        .index_changes_after(start, 100)
        .await
        .unwrap()
        .expect("the feed holds what follows its floor");
    let seqs: Vec<u64> = changes.iter().map(|(seq, _)| *seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let ours: Vec<&IndexChange> = changes
        .iter()
        .filter(|(seq, _)| *seq >= first_seq)
        .map(|(_, change)| change)
        .collect();
    let added = |id| IndexChange::AddMemory {
        org_id: org,
        agent_id: agent,
        memory_id: id,
    };
    let removed = |id| IndexChange::RemoveMemory { memory_id: id };
    assert_eq!(
        ours,
        vec![
            &added(first.id),
            &removed(first.id),
            &added(second.id),
            &removed(second.id),
        ]
    );
    assert_eq!(
        changes
            .iter()
            .find(|(s, _)| *s == second_seq)
            .map(|(_, c)| c),
        Some(&added(second.id))
    );
    let last = *seqs.last().unwrap();
    assert_eq!(
        m.index_changes_after(last, 100).await.unwrap(),
        Some(Vec::new())
    );
    m.index_committed(last).await.unwrap();
    assert_eq!(
        m.index_changes_after(last, 100).await.unwrap(),
        Some(Vec::new())
    );
}
