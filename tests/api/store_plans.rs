//! The store conformance suite's case for plans (`plans.md`).

use chrono::Utc;
use confer::plans::edit::{self, NewPlan};
use confer::plans::{MAX_PLANS_PER_THREAD, Plan, PlanError, PlanStatus};
use confer::store::plans::{PlanCreate, PlanDelete};
use confer::store::update::Updated;
use confer_actors::{OrgId, PlanId, ThreadId};

use crate::store_conformance::{Ports, seeded};

fn plan(org: OrgId, thread: ThreadId, title: &str) -> Plan {
    let new = NewPlan {
        title: title.into(),
        description: None,
        status: PlanStatus::InProgress,
        todos: Vec::new(),
        created_by: "user-1".into(),
    };
    edit::create(org, thread, new, Utc::now()).unwrap()
}

pub(crate) async fn plans_are_limited_swapped_and_deleted_at_a_version(ports: Ports) {
    let (org, _, thread) = seeded(&ports).await;
    let plans = &ports.plans;
    let orphan = plan(org, ThreadId::new(), "no thread");
    assert_eq!(
        plans.create_plan(orphan).await.unwrap(),
        Err(PlanCreate::ThreadGone)
    );
    let elsewhere = plan(OrgId::new(), thread.id, "another org");
    assert_eq!(
        plans.create_plan(elsewhere).await.unwrap(),
        Err(PlanCreate::ThreadGone)
    );
    let mut made = Vec::new();
    for n in 0..MAX_PLANS_PER_THREAD {
        let p = plan(org, thread.id, &format!("plan {n}"));
        made.push(p.id);
        plans.create_plan(p).await.unwrap().unwrap();
    }
    let extra = plan(org, thread.id, "one too many");
    assert_eq!(
        plans.create_plan(extra).await.unwrap(),
        Err(PlanCreate::ThreadFull)
    );
    let listed: Vec<PlanId> = plans
        .thread_plans(org, thread.id)
        .await
        .unwrap()
        .iter()
        .map(|p| p.id)
        .collect();
    made.reverse();
    assert_eq!(listed, made, "newest first");
    assert!(
        plans
            .thread_plans(OrgId::new(), thread.id)
            .await
            .unwrap()
            .is_empty()
    );

    // A refused change stores nothing; a change is stored whole.
    let refuse = Box::new(|mut p: Plan| {
        p.title = "changed".into();
        Err(PlanError::TodoNotFound)
    });
    let refused = plans.update_plan(org, made[0], refuse).await.unwrap();
    assert!(matches!(refused, Updated::Refused(PlanError::TodoNotFound)));
    let newest = format!("plan {}", MAX_PLANS_PER_THREAD - 1);
    assert_eq!(
        plans.plan(org, made[0]).await.unwrap().unwrap().title,
        newest
    );
    let rename = Box::new(|mut p: Plan| {
        p.title = "renamed".into();
        p.version += 1;
        Ok(p)
    });
    let Updated::Stored(stored) = plans.update_plan(org, made[0], rename).await.unwrap() else {
        panic!("the change is stored");
    };
    assert_eq!((stored.title.as_str(), stored.version), ("renamed", 2));
    assert_eq!(
        plans.plan(org, made[0]).await.unwrap().unwrap().title,
        "renamed"
    );
    assert!(plans.plan(OrgId::new(), made[0]).await.unwrap().is_none());

    let stale = plans.delete_plan(org, made[0], Some(7)).await.unwrap();
    assert!(matches!(stale, PlanDelete::Stale(p) if p.version == 2));
    let deleted = plans.delete_plan(org, made[0], Some(2)).await.unwrap();
    assert!(matches!(deleted, PlanDelete::Deleted));
    let again = plans.delete_plan(org, made[0], None).await.unwrap();
    assert!(matches!(again, PlanDelete::Gone));
    let gone = plans.update_plan(org, made[0], Box::new(Ok)).await.unwrap();
    assert!(
        matches!(gone, Updated::Gone),
        "a deleted plan stays deleted"
    );
    // A place freed by a delete takes a new plan.
    plans
        .create_plan(plan(org, thread.id, "again"))
        .await
        .unwrap()
        .unwrap();
}
