//! The code sessions' retention sweep (`super::code`).

use chrono::{Duration, Utc};
use confer_actors::OrgId;

use crate::code::sessions::{CodeSession, SessionStatus, test_session};
use crate::store::{SledStore, test_secrets};

fn session(org: OrgId, status: SessionStatus, archived_days_ago: Option<i64>) -> CodeSession {
    CodeSession {
        archived_at: archived_days_ago.map(|days| Utc::now() - Duration::days(days)),
        ..test_session(org, status)
    }
}

#[test]
fn sessions_archived_before_the_cutoff_go_with_their_threads() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    let org = OrgId::new();
    let old = session(org, SessionStatus::Archived, Some(100));
    let recent = session(org, SessionStatus::Archived, Some(10));
    let idle = session(org, SessionStatus::Idle, None);
    for s in [&old, &recent, &idle] {
        store.create_thread(&s.thread(s.created_at), None).unwrap();
        store.create_code_session(s).unwrap();
    }
    let cutoff = Utc::now() - Duration::days(90);
    assert_eq!(store.sweep_code_sessions(cutoff, 10).unwrap(), 1);
    assert!(store.code_session(org, old.id).unwrap().is_none());
    assert!(
        store
            .code_session_of_thread(old.thread_id)
            .unwrap()
            .is_none()
    );
    assert!(store.thread(org, old.thread_id).unwrap().is_none());
    for kept in [&recent, &idle] {
        assert!(store.code_session(org, kept.id).unwrap().is_some());
        assert!(store.thread(org, kept.thread_id).unwrap().is_some());
    }
    // Nothing more is due; a batch bounds a sweep.
    assert_eq!(store.sweep_code_sessions(cutoff, 10).unwrap(), 0);
    let more: Vec<_> = (0..3)
        .map(|_| session(org, SessionStatus::Archived, Some(200)))
        .collect();
    for s in &more {
        store.create_thread(&s.thread(s.created_at), None).unwrap();
        store.create_code_session(s).unwrap();
    }
    assert_eq!(store.sweep_code_sessions(cutoff, 2).unwrap(), 2);
    assert_eq!(store.sweep_code_sessions(cutoff, 2).unwrap(), 1);
}
