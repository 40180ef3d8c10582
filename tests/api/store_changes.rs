//! The store conformance suite's cases for changes by compare-and-swap:
//! agents and threads. Racing changes all land, a delete is never undone,
//! a refusal stores nothing, and a deleted project is never kept.

use chrono::Utc;
use confer::error::ApiError;
use confer::store::update::Updated;
use confer_actors::OrgId;

use crate::store_conformance::{Ports, seeded, thread};
use crate::store_projects::{done, project};

/// Agent changes are compare-and-swap: ten racing changes all land, a
/// deleted agent is never changed back, a refusal stores nothing, and a
/// deleted project is not kept.
pub(crate) async fn agent_changes_swap_and_never_undo_a_delete(ports: Ports) {
    let (org, agent, _) = seeded(&ports).await;
    let agents = &ports.agents;
    let racing = (0..10).map(|n| {
        agents.update_agent(
            org,
            agent.id,
            Box::new(move |mut a| {
                a.description.push_str(&n.to_string());
                Ok(a)
            }),
        )
    });
    for outcome in futures_util::future::join_all(racing).await {
        assert!(matches!(outcome.unwrap(), Updated::Stored(_)));
    }
    let read = agents.agent(org, agent.id).await.unwrap().unwrap();
    let mut digits: Vec<char> = read.description.chars().collect();
    digits.sort_unstable();
    assert_eq!(digits.iter().collect::<String>(), "0123456789", "none lost");

    let refused = agents
        .update_agent(
            org,
            agent.id,
            Box::new(|_| Err(ApiError::invalid("name", "no"))),
        )
        .await
        .unwrap();
    assert!(matches!(refused, Updated::Refused(_)));
    let gone = done(
        ports
            .projects
            .create_project(project(org, "Gone", None), Vec::new())
            .await
            .unwrap(),
    );
    assert!(ports.projects.delete_project(org, gone.id).await.unwrap());
    let placed = agents
        .update_agent(
            org,
            agent.id,
            Box::new(move |mut a| {
                a.project_id = Some(gone.id);
                Ok(a)
            }),
        )
        .await
        .unwrap();
    assert!(matches!(placed, Updated::Stored(_)));
    let read = agents.agent(org, agent.id).await.unwrap().unwrap();
    assert_eq!(read.project_id, None, "a deleted project reads as none");

    let deleted = agents
        .update_agent(
            org,
            agent.id,
            Box::new(|mut a| {
                a.deleted_at = Some(Utc::now());
                Ok(a)
            }),
        )
        .await
        .unwrap();
    assert!(matches!(deleted, Updated::Stored(_)));
    let after = agents
        .update_agent(org, agent.id, Box::new(Ok))
        .await
        .unwrap();
    assert!(matches!(after, Updated::Gone));
    assert!(agents.agents(org).await.unwrap().is_empty());
    let elsewhere = agents
        .update_agent(OrgId::new(), agent.id, Box::new(Ok))
        .await
        .unwrap();
    assert!(matches!(elsewhere, Updated::Gone));
}

/// Thread changes: racing changes all land, a project move is listed
/// under the new project, a deleted project is not kept.
pub(crate) async fn thread_changes_swap_and_move_between_projects(ports: Ports) {
    let (org, agent, made) = seeded(&ports).await;
    let threads = &ports.threads;
    let racing = (0..10).map(|n| {
        threads.update_thread(
            org,
            made.id,
            Box::new(move |mut t| {
                let mut title = t.title.unwrap_or_default();
                title.push_str(&n.to_string());
                t.title = Some(title);
                Ok(t)
            }),
        )
    });
    for outcome in futures_util::future::join_all(racing).await {
        assert!(matches!(outcome.unwrap(), Updated::Stored(_)));
    }
    let read = threads.thread(org, made.id).await.unwrap().unwrap();
    let mut digits: Vec<char> = read
        .title
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.sort_unstable();
    assert_eq!(digits.iter().collect::<String>(), "0123456789", "none lost");

    let projects = &ports.projects;
    let [first, second] = [project(org, "First", None), project(org, "Second", None)];
    let first = done(projects.create_project(first, Vec::new()).await.unwrap());
    let second = done(projects.create_project(second, Vec::new()).await.unwrap());
    let mut placed = thread(org, agent.id, Utc::now());
    placed.project_id = Some(first.id);
    let placed = threads.create_thread(placed).await.unwrap();
    let to = second.id;
    let moved = threads
        .update_thread(
            org,
            placed.id,
            Box::new(move |mut t| {
                t.project_id = Some(to);
                Ok(t)
            }),
        )
        .await
        .unwrap();
    assert!(matches!(moved, Updated::Stored(_)));
    let listed = |project| projects.project_threads(org, project, None, None, 10);
    assert!(listed(first.id).await.unwrap().items.is_empty());
    assert_eq!(listed(second.id).await.unwrap().items.len(), 1);

    assert!(projects.delete_project(org, first.id).await.unwrap());
    let back = first.id;
    let outcome = threads
        .update_thread(
            org,
            placed.id,
            Box::new(move |mut t| {
                t.project_id = Some(back);
                Ok(t)
            }),
        )
        .await
        .unwrap();
    assert!(matches!(outcome, Updated::Stored(_)));
    let read = threads.thread(org, placed.id).await.unwrap().unwrap();
    assert_eq!(read.project_id, None, "a deleted project reads as none");

    let refused = threads
        .update_thread(
            org,
            placed.id,
            Box::new(|_| Err(ApiError::invalid("title", "no"))),
        )
        .await
        .unwrap();
    assert!(matches!(refused, Updated::Refused(_)));
    let elsewhere = threads
        .update_thread(OrgId::new(), placed.id, Box::new(Ok))
        .await
        .unwrap();
    assert!(matches!(elsewhere, Updated::Gone));
}

/// A deleted thread is gone at once for every reader, and only once.
pub(crate) async fn a_deleted_thread_is_gone_at_once(ports: Ports) {
    let (org, agent, made) = seeded(&ports).await;
    let threads = &ports.threads;
    assert!(!threads.delete_thread(OrgId::new(), made.id).await.unwrap());
    assert!(threads.delete_thread(org, made.id).await.unwrap());
    assert!(threads.thread(org, made.id).await.unwrap().is_none());
    assert!(
        threads
            .thread_access(org, made.id, None, true)
            .await
            .unwrap()
            .is_none()
    );
    assert!(!threads.delete_thread(org, made.id).await.unwrap());
    let page = threads
        .list_threads(org, agent.id, None, None, 10)
        .await
        .unwrap();
    assert!(page.items.is_empty(), "not listed");
    let changed = threads
        .update_thread(org, made.id, Box::new(Ok))
        .await
        .unwrap();
    assert!(matches!(changed, Updated::Gone), "never written back");
}
