//! Helpers the store's unit tests share: a secret key, an agent, a thread, and
//! reopening a store; and the test of opening a store whose lock is held.

use std::path::Path;
use std::sync::Arc;

use chrono::Utc;
use confer_actors::{OrgId, ThreadId};

use super::SledStore;
use crate::secrets::SecretBox;

/// A key for unit tests, kept in `dir`.
pub(crate) fn test_secrets(dir: &Path) -> Arc<SecretBox> {
    #[allow(clippy::unwrap_used)]
    Arc::new(SecretBox::load(None, None, None, dir).unwrap())
}

/// Opens the store in `dir` again after a handle to it was dropped (its
/// lock may be held a moment longer; `SledStore::open` waits for it).
pub(crate) fn reopen_for_test(dir: &Path) -> SledStore {
    #[allow(clippy::unwrap_used)]
    SledStore::open(dir, test_secrets(dir)).unwrap()
}

/// A new single-user thread of `org` and `agent`, made by `by`, for unit
/// tests.
pub(crate) fn test_thread(
    org: OrgId,
    agent: confer_actors::AgentId,
    by: &str,
) -> confer_actors::Thread {
    let now = Utc::now();
    confer_actors::Thread {
        id: ThreadId::new(),
        org_id: org,
        agent_id: agent,
        title: None,
        kind: confer_actors::ThreadKind::Single,
        active_profile: None,
        metadata: Default::default(),
        system_prompt_overlay: None,
        resource_bindings: Vec::new(),
        created_by: by.into(),
        publication_id: None,
        invite_generation: 0,
        origin: None,
        delegation: None,
        project_id: None,
        created_at: now,
        updated_at: now,
    }
}

/// A new live agent of `org` on `builtin/echo`, for unit tests.
pub(crate) fn test_agent(org: OrgId) -> confer_actors::Agent {
    let now = Utc::now();
    confer_actors::Agent {
        id: confer_actors::AgentId::new(),
        org_id: org,
        name: "a".into(),
        description: String::new(),
        stable_preamble: String::new(),
        default_model: "builtin/echo".into(),
        tool_profiles: None,
        default_profile: None,
        runtime_provider: confer_actors::RuntimeProvider::default(),
        project_id: None,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    }
}

/// An open waits for a lock the last handle's threads release a moment
/// later, and still refuses a lock that stays held.
#[test]
#[allow(clippy::unwrap_used)]
fn an_open_waits_briefly_for_the_lock() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let held = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    let started = Instant::now();
    let refused = SledStore::open(dir.path(), test_secrets(dir.path()));
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("could not acquire lock")),
        "a held lock is refused"
    );
    assert!(
        started.elapsed() >= super::durability::LOCK_WAIT,
        "after waiting for it"
    );
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(held);
    });
    let reopened = SledStore::open(dir.path(), test_secrets(dir.path()));
    release.join().unwrap();
    assert!(
        reopened.is_ok(),
        "opened once released: {:?}",
        reopened.err()
    );
}
