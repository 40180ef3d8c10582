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

/// A keyed creation makes one thread however many repeats race, refuses
/// the key for another request, and stores the owner participant.
pub(crate) async fn keyed_creations_make_one_thread(ports: Ports) {
    use confer::store::threads::Created;
    use confer_actors::{Participant, ParticipantRole};
    let (org, agent, _) = seeded(&ports).await;
    let threads = &ports.threads;
    let key = [9u8; 32];
    let owner = Participant {
        user_id: "owner-1".into(),
        display_name: None,
        role: ParticipantRole::Owner,
        joined_at: Utc::now(),
    };
    let racing = (0..5).map(|_| {
        threads.create_thread_keyed(
            thread(org, agent.id, Utc::now()),
            Some(owner.clone()),
            Some((key, "ab".repeat(32))),
        )
    });
    let (mut made, mut repeats) = (Vec::new(), Vec::new());
    for outcome in futures_util::future::join_all(racing).await {
        match outcome.unwrap() {
            Created::New(thread) => made.push(thread.id),
            Created::Repeat(id) => repeats.push(id),
            _ => panic!("neither new nor a repeat"),
        }
    }
    assert_eq!(made.len(), 1, "one thread");
    assert!(repeats.iter().all(|id| *id == made[0]), "{repeats:?}");
    let people = threads.participants(made[0]).await.unwrap();
    assert_eq!(people.len(), 1);
    assert_eq!(people[0].user_id, "owner-1");
    let other = threads
        .create_thread_keyed(
            thread(org, agent.id, Utc::now()),
            None,
            Some((key, "cd".repeat(32))),
        )
        .await
        .unwrap();
    assert!(matches!(other, Created::KeyReused));
    // The same key in another org is another key.
    let elsewhere = crate::store_conformance::agent(OrgId::new());
    ports.agents.put_agent(elsewhere.clone()).await.unwrap();
    let fresh = threads
        .create_thread_keyed(
            thread(elsewhere.org_id, elsewhere.id, Utc::now()),
            None,
            Some((key, "ab".repeat(32))),
        )
        .await
        .unwrap();
    assert!(matches!(fresh, Created::New(_)));
    let mut lost = thread(org, agent.id, Utc::now());
    lost.project_id = Some(confer_actors::ProjectId::new());
    let gone = threads.create_thread_keyed(lost, None, None).await.unwrap();
    assert!(matches!(gone, Created::ProjectGone));
}

/// An agent's plain configuration: its default when unset, ten racing
/// changes all land, a refusal stores nothing.
pub(crate) async fn agent_configs_swap_from_their_default(ports: Ports) {
    use confer::store::port::{PlainConfig, agent_config, update_agent_config};
    use confer_actors::PlanConfig;
    let (org, agent, _) = seeded(&ports).await;
    let configs = ports.configs.as_ref();
    let plans: PlanConfig = agent_config(configs, org, agent.id, PlainConfig::Plans)
        .await
        .unwrap();
    assert_eq!(plans, PlanConfig::default());
    let refused = configs
        .update_config_json(
            org,
            agent.id,
            PlainConfig::Memory,
            Box::new(|_| Err(ApiError::invalid("topK", "no"))),
        )
        .await
        .unwrap();
    assert!(matches!(refused, Updated::Refused(_)));
    let unset = configs
        .config_json(org, agent.id, PlainConfig::Memory)
        .await
        .unwrap();
    assert!(unset.is_none(), "nothing stored: {unset:?}");

    let racing = (0..10).map(|_| {
        configs.update_config_json(
            org,
            agent.id,
            PlainConfig::Knowledge,
            Box::new(|stored| {
                let n = stored["n"].as_u64().unwrap_or(0);
                Ok(serde_json::json!({ "n": n + 1 }))
            }),
        )
    });
    for outcome in futures_util::future::join_all(racing).await {
        assert!(matches!(outcome.unwrap(), Updated::Stored(_)));
    }
    let counted = configs
        .config_json(org, agent.id, PlainConfig::Knowledge)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(counted["n"], 10, "none lost");

    let changed = update_agent_config(
        configs,
        org,
        agent.id,
        PlainConfig::Plans,
        |_: PlanConfig| {
            Ok(PlanConfig {
                enabled: true,
                auto_create: false,
                require_approval: true,
            })
        },
    )
    .await
    .unwrap();
    let Updated::Stored(stored) = changed else {
        panic!("not stored")
    };
    let read: PlanConfig = agent_config(configs, org, agent.id, PlainConfig::Plans)
        .await
        .unwrap();
    assert_eq!(read, stored);
    let elsewhere: PlanConfig = agent_config(configs, OrgId::new(), agent.id, PlainConfig::Plans)
        .await
        .unwrap();
    assert_eq!(elsewhere, PlanConfig::default());
}
