//! The purge's tests (`super::purge`).

use super::*;
use crate::store::test_secrets;
use chrono::Utc;
use confer_actors::{
    AgentId, ContextMessage, ContextRole, Message, MessageId, OrgId, ParticipantRole, Role, Thread,
    ThreadAppend, ThreadKind,
};

fn thread(org: OrgId, agent: AgentId, by: &str) -> Thread {
    Thread {
        kind: ThreadKind::Multiplayer,
        ..crate::store::test_thread(org, agent, by)
    }
}

fn fill(store: &SledStore, id: ThreadId, messages: usize) {
    for n in 0..messages {
        let message = Message {
            id: MessageId::new(),
            thread_id: id,
            seq: 0,
            role: Role::User,
            content: format!("m{n}"),
            sender_name: None,
            sender_id: None,
            created_at: Utc::now(),
            citations: Vec::new(),
        };
        let context = ContextMessage::text(ContextRole::User, format!("m{n}"));
        store
            .append(
                id,
                ThreadAppend {
                    listed: Some(message),
                    context: vec![context],
                    ..ThreadAppend::default()
                },
            )
            .unwrap();
    }
}

#[test]
fn delete_is_a_tombstone_and_the_purge_resumes_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (org, agent) = (OrgId::new(), AgentId::new());
    let id = {
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let made = store
            .create_thread(&thread(org, agent, "alice"), None)
            .unwrap();
        let bob = Participant {
            user_id: "bob".into(),
            display_name: None,
            role: ParticipantRole::Member,
            joined_at: Utc::now(),
        };
        store.put_participant(org, made.id, &bob, None).unwrap();
        fill(&store, made.id, 25);
        let long = ContextMessage::text(ContextRole::Assistant, "x".repeat(200_000));
        let write = ThreadAppend {
            context: vec![long],
            ..ThreadAppend::default()
        };
        store.append(made.id, write).unwrap();
        let files = dir.path().join(super::super::values::VALUES_DIR);
        assert_eq!(
            std::fs::read_dir(&files).unwrap().count(),
            1,
            "a long entry is in a file"
        );
        assert_eq!(store.context(made.id).unwrap()[25].content.len(), 200_000);
        let listed = |user: &str| {
            store
                .list_threads(org, agent, Some(user), None, 10, |_| Ok(true))
                .unwrap()
                .items
                .len()
        };
        assert_eq!((listed("alice"), listed("bob")), (1, 1));
        assert!(store.delete_thread(org, made.id).unwrap());
        assert!(!store.delete_thread(org, made.id).unwrap(), "already gone");
        assert!(store.thread(org, made.id).unwrap().is_none());
        assert_eq!(listed("alice"), 0);
        assert_eq!(store.pending_purges().unwrap(), vec![made.id]);
        // Part of the purge, then the process goes away.
        assert_eq!(
            store.purge_step(made.id, 10).unwrap(),
            1,
            "participants first"
        );
        assert_eq!(store.purge_step(made.id, 10).unwrap(), 10);
        made.id
    };
    let store = crate::store::reopen_for_test(dir.path());
    assert_eq!(
        store.pending_purges().unwrap(),
        vec![id],
        "the marker survives"
    );
    store.purge(id).unwrap();
    assert!(store.pending_purges().unwrap().is_empty());
    assert_eq!(store.messages(id, 0, 100).unwrap().0.len(), 0);
    assert!(store.context(id).unwrap().is_empty());
    assert!(store.participants(id).unwrap().is_empty());
    assert_eq!(
        store.threads_by_user.len() + store.messages.len() + store.context.len(),
        0,
        "no key of the thread is left"
    );
    let files = dir.path().join(super::super::values::VALUES_DIR);
    assert_eq!(
        std::fs::read_dir(&files).unwrap().count(),
        0,
        "no file of the thread is left"
    );
}

#[tokio::test]
async fn the_background_purge_runs_after_a_delete() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::open(dir.path()).unwrap();
    let (org, agent) = (OrgId::new(), AgentId::new());
    let id = store
        .run(move |s| {
            let made = s.create_thread(&thread(org, agent, "alice"), None)?;
            fill(s, made.id, 2500);
            s.delete_thread(org, made.id)?;
            Ok(made.id)
        })
        .await
        .unwrap();
    for _ in 0..500 {
        let left = store.run(|s| s.pending_purges()).await.unwrap();
        if left.is_empty() {
            let gone = store.run(move |s| s.context(id)).await.unwrap();
            assert!(gone.is_empty());
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the purge did not finish");
}
