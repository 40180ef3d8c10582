#![allow(clippy::unwrap_used)]

use chrono::Utc;
use confer_actors::{OrgId, ProjectId};

use super::ProjectWrite;
use crate::projects::{MAX_MEMBERS, MAX_PROJECTS_PER_ORG, Member, Project, ProjectRole};
use crate::store::keys;
use crate::store::update::Updated;
use crate::store::{SledStore, reopen_for_test, test_secrets, test_thread};

type Write<T> = ProjectWrite<T, ()>;

fn project(org: OrgId, slug: Option<&str>) -> Project {
    let now = Utc::now();
    Project {
        id: ProjectId::new(),
        org_id: org,
        name: "P".into(),
        slug: slug.map(str::to_owned),
        description: None,
        created_by: "apikey:1".into(),
        created_at: now,
        updated_at: now,
    }
}

fn member(user: &str, role: ProjectRole) -> Member {
    Member {
        user_id: user.into(),
        role,
        added_by: "apikey:1".into(),
        added_at: Utc::now(),
    }
}

fn created(store: &SledStore, project: &Project, members: &[Member]) -> Project {
    match store.create_project::<()>(project, members).unwrap() {
        ProjectWrite::Done(project) => project,
        other => panic!("not created: {other:?}"),
    }
}

fn open() -> (tempfile::TempDir, SledStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    (dir, store)
}

#[test]
fn slugs_are_unique_and_users_list_their_own_projects_newest_first() {
    let (_dir, store) = open();
    let org = OrgId::new();
    let a = created(
        &store,
        &project(org, Some("alpha")),
        &[member("u1", ProjectRole::Viewer)],
    );
    let b = created(
        &store,
        &project(org, None),
        &[member("u2", ProjectRole::Owner)],
    );
    let c = created(
        &store,
        &project(org, None),
        &[member("u1", ProjectRole::Owner)],
    );
    assert!(matches!(
        store
            .create_project::<()>(&project(org, Some("alpha")), &[])
            .unwrap(),
        Write::SlugTaken
    ));
    let all = store.projects_page(org, None, None, 10).unwrap();
    let ids: Vec<_> = all.items.iter().map(|p| p.id).collect();
    assert_eq!(ids, [c.id, b.id, a.id]);
    let page = store.projects_page(org, Some("u1"), None, 1).unwrap();
    assert_eq!(page.items[0].id, c.id);
    let next = store
        .projects_page(org, Some("u1"), page.next_cursor, 1)
        .unwrap();
    assert_eq!(next.items[0].id, a.id);
    assert!(next.next_cursor.is_none());
    // A slug moves: the old one is free, the new one taken.
    let moved = store
        .update_project(org, b.id, |mut p| {
            p.slug = Some("beta".into());
            Ok::<_, ()>(p)
        })
        .unwrap();
    assert!(matches!(moved, ProjectWrite::Done(_)));
    let renamed = store
        .update_project(org, a.id, |mut p| {
            p.slug = Some("beta".into());
            Ok::<_, ()>(p)
        })
        .unwrap();
    assert!(matches!(renamed, Write::SlugTaken));
    created(&store, &project(org, Some("alpha-2")), &[]);
    // Another org's lookup never finds it.
    assert!(store.project(OrgId::new(), a.id).unwrap().is_none());
}

#[test]
fn a_deleted_projects_threads_read_detached_at_once_and_are_rewritten_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let org = OrgId::new();
    let agent_record = {
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let p = created(
            &store,
            &project(org, None),
            &[member("u1", ProjectRole::Editor)],
        );
        let mut agent = crate::store::testing::test_agent(org);
        agent.project_id = Some(p.id);
        store.put_agent(&agent).unwrap();
        let mut ids = Vec::new();
        for _ in 0..5 {
            let mut thread = test_thread(org, agent.id, "u1");
            thread.project_id = Some(p.id);
            ids.push(store.create_thread(&thread, None).unwrap().id);
        }
        let listed = store.project_threads(org, p.id, None, None, 10).unwrap();
        assert_eq!(listed.items.len(), 5);
        assert!(store.delete_project(org, p.id).unwrap());
        // No worker runs here: readers see the detach before any record
        // is rewritten, and the member is gone.
        let thread = store.thread(org, ids[0]).unwrap().unwrap();
        assert_eq!(thread.project_id, None);
        assert_eq!(
            store.agent(org, agent.id).unwrap().unwrap().project_id,
            None
        );
        assert_eq!(store.project_role(p.id, "u1").unwrap(), None);
        let raw: confer_actors::Thread = SledStore::get(
            &store.threads,
            &keys::pair(org.as_bytes(), ids[0].as_bytes()),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            raw.project_id,
            Some(p.id),
            "rewritten before the detach ran"
        );
        assert_eq!(store.pending_detaches().unwrap().len(), 1);
        // A thread can no longer be created in it.
        let mut late = test_thread(org, agent.id, "u1");
        late.project_id = Some(p.id);
        assert!(matches!(
            store.create_thread_keyed(&late, None, None).unwrap(),
            crate::store::threads::Created::ProjectGone
        ));
        (agent.id, p.id, ids)
    };
    // "Restart": the marker alone says what is left to do.
    let store = reopen_for_test(dir.path());
    let (agent, project, ids) = agent_record;
    let marker = store.pending_detaches().unwrap().pop().unwrap();
    assert_eq!(marker.project_id, project);
    assert_eq!(store.detach_step(org, project, 2).unwrap(), 2);
    let mut steps = 1;
    while store.detach_step(org, project, 2).unwrap() > 0 {
        steps += 1;
    }
    assert_eq!(steps, 4, "3 thread batches of at most 2, then the agent");
    for id in ids {
        let raw: confer_actors::Thread =
            SledStore::get(&store.threads, &keys::pair(org.as_bytes(), id.as_bytes()))
                .unwrap()
                .unwrap();
        assert_eq!(raw.project_id, None);
    }
    let raw: confer_actors::Agent =
        SledStore::get(&store.agents, &keys::pair(org.as_bytes(), agent.as_bytes()))
            .unwrap()
            .unwrap();
    assert_eq!(raw.project_id, None);
    assert!(store.pending_detaches().unwrap().is_empty());
    assert_eq!(store.projects.threads.len(), 0);
}

#[test]
fn moving_a_thread_moves_its_project_listing() {
    let (_dir, store) = open();
    let org = OrgId::new();
    let p1 = created(&store, &project(org, None), &[]);
    let p2 = created(&store, &project(org, None), &[]);
    let agent = crate::store::testing::test_agent(org);
    let mut thread = test_thread(org, agent.id, "u1");
    thread.project_id = Some(p1.id);
    let thread = store.create_thread(&thread, None).unwrap();
    let moved = store
        .update_thread(org, thread.id, |mut t| {
            t.project_id = Some(p2.id);
            Ok::<_, ()>(t)
        })
        .unwrap();
    assert!(matches!(moved, Updated::Stored(ref t) if t.project_id == Some(p2.id)));
    let count = |p: ProjectId| {
        store
            .project_threads(org, p, None, None, 10)
            .unwrap()
            .items
            .len()
    };
    assert_eq!((count(p1.id), count(p2.id)), (0, 1));
    store.delete_thread(org, thread.id).unwrap();
    assert_eq!(store.projects.threads.len(), 0, "the delete took its entry");
}

#[test]
fn a_project_keeps_at_most_500_members_and_an_org_10000_projects() {
    let (_dir, store) = open();
    let org = OrgId::new();
    let p = created(&store, &project(org, None), &[]);
    for i in 0..MAX_MEMBERS {
        let added = store
            .put_project_member(
                org,
                p.id,
                member(&format!("u{i}"), ProjectRole::Viewer),
                |_| Ok::<_, ()>(()),
            )
            .unwrap();
        assert!(matches!(added, ProjectWrite::Done((_, true))));
    }
    let over = store
        .put_project_member(org, p.id, member("one-more", ProjectRole::Viewer), |_| {
            Ok::<_, ()>(())
        })
        .unwrap();
    assert!(matches!(over, Write::Full));
    // A role change of an existing member is not an addition.
    let changed = store
        .put_project_member(org, p.id, member("u0", ProjectRole::Owner), |_| {
            Ok::<_, ()>(())
        })
        .unwrap();
    assert!(matches!(changed, ProjectWrite::Done((_, false))));
    // Fill the org's listing to one short of the bound with entries of
    // projects that need not exist: the count is what is bounded.
    for _ in 1..MAX_PROJECTS_PER_ORG - 1 {
        let entry = keys::timeline(org.as_bytes(), 1, ProjectId::new().as_bytes());
        store.projects.timeline.insert(entry, &[]).unwrap();
    }
    created(&store, &project(org, None), &[]);
    assert!(matches!(
        store
            .create_project::<()>(&project(org, None), &[])
            .unwrap(),
        Write::Full
    ));
}
