//! The store conformance suite's cases for projects (`agent-extras.md`
//! §5): slugs, roles, the member bound under a race, listings, and a
//! delete that detaches the project's threads and agents.

use chrono::Utc;
use confer::error::ApiError;
use confer::projects::{MAX_MEMBERS, Member, Project, ProjectRole};
use confer::store::projects::ProjectWrite;
use confer_actors::{OrgId, ProjectId};

use crate::store_conformance::{Ports, agent, seeded, thread};

pub(crate) fn project(org: OrgId, name: &str, slug: Option<&str>) -> Project {
    let now = Utc::now();
    Project {
        id: ProjectId::new(),
        org_id: org,
        name: name.into(),
        slug: slug.map(str::to_owned),
        description: None,
        created_by: "owner-1".into(),
        created_at: now,
        updated_at: now,
    }
}

pub(crate) fn member(user: &str, role: ProjectRole) -> Member {
    Member {
        user_id: user.into(),
        role,
        added_by: "owner-1".into(),
        added_at: Utc::now(),
    }
}

pub(crate) fn done<T>(write: ProjectWrite<T, ApiError>) -> T {
    match write {
        ProjectWrite::Done(done) => done,
        other => panic!("not done: {}", label(&other)),
    }
}

fn label<T>(write: &ProjectWrite<T, ApiError>) -> &'static str {
    match write {
        ProjectWrite::Done(_) => "done",
        ProjectWrite::SlugTaken => "slug taken",
        ProjectWrite::Full => "full",
        ProjectWrite::Gone => "gone",
        ProjectWrite::Refused(_) => "refused",
    }
}

fn allow_all() -> confer::store::port::MemberRule {
    Box::new(|_| Ok(()))
}

pub(crate) async fn projects_keep_slugs_roles_and_members(ports: Ports) {
    let projects = &ports.projects;
    let org = OrgId::new();
    let at = Utc::now();
    let mut first = project(org, "First", Some("first"));
    first.created_at = at;
    let first = done(
        projects
            .create_project(first, vec![member("owner-1", ProjectRole::Owner)])
            .await
            .unwrap(),
    );
    let taken = projects
        .create_project(project(org, "Again", Some("first")), Vec::new())
        .await
        .unwrap();
    assert_eq!(label(&taken), "slug taken");
    // The same slug in another org, and the same instant in this one.
    done(
        projects
            .create_project(project(OrgId::new(), "Other", Some("first")), Vec::new())
            .await
            .unwrap(),
    );
    let mut second = project(org, "Second", None);
    second.created_at = at;
    let second = done(projects.create_project(second, Vec::new()).await.unwrap());
    assert!(second.created_at > first.created_at, "unique in the org");

    let (read, role) = projects
        .project(org, first.id, Some("owner-1".into()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((read.id, role), (first.id, Some(ProjectRole::Owner)));
    let (_, role) = projects
        .project(org, first.id, Some("stranger".into()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(role, None);
    assert!(
        projects
            .project(OrgId::new(), first.id, None)
            .await
            .unwrap()
            .is_none()
    );

    // A slug change to a taken slug, a refusal, a change.
    let to_first = projects
        .update_project(
            org,
            second.id,
            Box::new(|mut p| {
                p.slug = Some("first".into());
                Ok(p)
            }),
        )
        .await
        .unwrap();
    assert_eq!(label(&to_first), "slug taken");
    let refused = projects
        .update_project(
            org,
            second.id,
            Box::new(|_| Err(ApiError::invalid("name", "no"))),
        )
        .await
        .unwrap();
    assert_eq!(label(&refused), "refused");
    let renamed = done(
        projects
            .update_project(
                org,
                first.id,
                Box::new(|mut p| {
                    p.slug = Some("renamed".into());
                    Ok(p)
                }),
            )
            .await
            .unwrap(),
    );
    assert_eq!(renamed.slug.as_deref(), Some("renamed"));
    // The old slug is free again.
    done(
        projects
            .create_project(project(org, "Third", Some("first")), Vec::new())
            .await
            .unwrap(),
    );

    // Members: new, changed, a rule that sees them, removed.
    let (_, new) = done(
        projects
            .put_project_member(org, first.id, member("b", ProjectRole::Viewer), allow_all())
            .await
            .unwrap(),
    );
    assert!(new);
    let (_, new) = done(
        projects
            .put_project_member(org, first.id, member("b", ProjectRole::Editor), allow_all())
            .await
            .unwrap(),
    );
    assert!(!new);
    let seen = projects
        .remove_project_member(
            org,
            first.id,
            "owner-1".into(),
            Box::new(|members| {
                assert_eq!(members.len(), 2);
                Err(ApiError::Conflict("the last owner stays".into()))
            }),
        )
        .await
        .unwrap();
    assert_eq!(label(&seen), "refused");
    let members = projects.project_members(first.id).await.unwrap();
    let roles: Vec<(&str, ProjectRole)> = members
        .iter()
        .map(|m| (m.user_id.as_str(), m.role))
        .collect();
    assert_eq!(
        roles,
        [("b", ProjectRole::Editor), ("owner-1", ProjectRole::Owner)]
    );
    assert!(done(
        projects
            .remove_project_member(org, first.id, "b".into(), allow_all())
            .await
            .unwrap()
    ));
    assert!(!done(
        projects
            .remove_project_member(org, first.id, "b".into(), allow_all())
            .await
            .unwrap()
    ));
    let elsewhere = projects
        .put_project_member(
            OrgId::new(),
            first.id,
            member("c", ProjectRole::Viewer),
            allow_all(),
        )
        .await
        .unwrap();
    assert_eq!(label(&elsewhere), "gone");

    // A user's listing holds its projects only, with its role, in pages.
    let page = projects
        .projects_page(org, Some("owner-1".into()), None, 10)
        .await
        .unwrap();
    let mine: Vec<_> = page.items.iter().map(|(p, r)| (p.id, *r)).collect();
    assert_eq!(mine, [(first.id, Some(ProjectRole::Owner))]);
    let page = projects.projects_page(org, None, None, 2).await.unwrap();
    assert_eq!(page.items.len(), 2);
    let rest = projects
        .projects_page(org, None, page.next_cursor, 2)
        .await
        .unwrap();
    let ids: Vec<ProjectId> = page
        .items
        .iter()
        .chain(&rest.items)
        .map(|(p, _)| p.id)
        .collect();
    assert_eq!(ids.len(), 3, "every project once");
    assert_eq!(ids.last(), Some(&first.id), "newest first");
    assert!(rest.next_cursor.is_none());
}

/// Ten adds racing for a project's last five places: five get one.
pub(crate) async fn project_members_are_bounded_under_a_race(ports: Ports) {
    let projects = &ports.projects;
    let org = OrgId::new();
    let full = done(
        projects
            .create_project(project(org, "Full", None), Vec::new())
            .await
            .unwrap(),
    );
    const RACERS: usize = 10;
    for n in 0..MAX_MEMBERS - RACERS / 2 {
        let user = format!("user-{n:03}");
        done(
            projects
                .put_project_member(
                    org,
                    full.id,
                    member(&user, ProjectRole::Viewer),
                    allow_all(),
                )
                .await
                .unwrap(),
        );
    }
    // Every racer finds a connection ready, so they overlap.
    futures_util::future::join_all((0..RACERS).map(|_| projects.project_members(full.id))).await;
    let racing = (0..RACERS).map(|n| {
        let racer = member(&format!("late-{n}"), ProjectRole::Viewer);
        projects.put_project_member(org, full.id, racer, allow_all())
    });
    let mut outcomes: Vec<&str> = futures_util::future::join_all(racing)
        .await
        .into_iter()
        .map(|outcome| label(&outcome.unwrap()))
        .collect();
    outcomes.sort_unstable();
    assert_eq!(
        outcomes,
        [["done"; RACERS / 2], ["full"; RACERS / 2]].concat()
    );
    assert_eq!(
        projects.project_members(full.id).await.unwrap().len(),
        MAX_MEMBERS
    );
    // A role change of a member is no new member.
    done(
        projects
            .put_project_member(
                org,
                full.id,
                member("user-000", ProjectRole::Owner),
                allow_all(),
            )
            .await
            .unwrap(),
    );
}

/// A project's threads are listed under it; its delete detaches them and
/// its agents at once, and takes its members.
pub(crate) async fn a_deleted_project_detaches_its_records(ports: Ports) {
    let projects = &ports.projects;
    let (org, plain_agent, _) = seeded(&ports).await;
    let held = done(
        projects
            .create_project(
                project(org, "Held", None),
                vec![member("owner-1", ProjectRole::Owner)],
            )
            .await
            .unwrap(),
    );
    let mut placed_agent = agent(org);
    placed_agent.project_id = Some(held.id);
    ports.agents.put_agent(placed_agent.clone()).await.unwrap();
    let mut ids = Vec::new();
    for agent_id in [plain_agent.id, placed_agent.id] {
        let mut made = thread(org, agent_id, Utc::now());
        made.project_id = Some(held.id);
        ids.push(ports.threads.create_thread(made).await.unwrap().id);
    }
    let page = projects
        .project_threads(org, held.id, None, None, 10)
        .await
        .unwrap();
    let listed: Vec<_> = page.items.iter().rev().map(|t| t.id).collect();
    assert_eq!(listed, ids, "newest first");
    let page = projects
        .project_threads(org, held.id, Some(placed_agent.id), None, 10)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert!(
        projects
            .project_threads(OrgId::new(), held.id, None, None, 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );

    assert!(projects.delete_project(org, held.id).await.unwrap());
    assert!(!projects.delete_project(org, held.id).await.unwrap());
    for id in &ids {
        let thread = ports.threads.thread(org, *id).await.unwrap().unwrap();
        assert_eq!(thread.project_id, None, "detached at once");
    }
    let agent = ports
        .agents
        .agent(org, placed_agent.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(agent.project_id, None);
    assert!(projects.project_members(held.id).await.unwrap().is_empty());
    assert!(
        projects
            .project(org, held.id, None)
            .await
            .unwrap()
            .is_none()
    );
    let mut late = thread(org, plain_agent.id, Utc::now());
    late.project_id = Some(held.id);
    assert!(
        ports.threads.create_thread(late).await.is_err(),
        "no thread joins a deleted project"
    );
}
