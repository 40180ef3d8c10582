//! The store conformance suite's cases for who reaches what: orgs and
//! their API keys, and threads' participants and listings.

use chrono::Utc;
use confer::store::participants::ParticipantPut;
use confer::store::records::{ApiKey, KeyRole, Org};
use confer_actors::{ApiKeyId, OrgId, Participant, ParticipantRole, ThreadOrigin};

use crate::store_conformance::{Ports, seeded, thread};

fn api_key(org: OrgId, name: &str, secret: &str) -> (ApiKey, [u8; 32]) {
    use sha2::{Digest, Sha256};
    let hash: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
    let key = ApiKey {
        id: ApiKeyId::new(),
        org_id: org,
        name: name.into(),
        prefix: secret[..6].into(),
        role: KeyRole::Member,
        platform_admin: false,
        secret_sha256: hex::encode(hash),
        created_at: Utc::now(),
        last_used_at: None,
        rate_limit_rps: Some(5.0),
        act_as_users: false,
    };
    (key, hash)
}

pub(crate) async fn orgs_and_keys_round_trip(ports: Ports) {
    let orgs = &ports.orgs;
    let (a, b) = (
        Org {
            id: OrgId::new(),
            name: "a".into(),
            created_at: Utc::now(),
        },
        Org {
            id: OrgId::new(),
            name: "b".into(),
            created_at: Utc::now(),
        },
    );
    orgs.put_org(a.clone()).await.unwrap();
    orgs.put_org(b.clone()).await.unwrap();
    assert_eq!(orgs.org(a.id).await.unwrap().unwrap().name, "a");
    assert!(orgs.org(OrgId::new()).await.unwrap().is_none());
    let names: Vec<String> = orgs
        .orgs()
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert!(
        names.contains(&"a".into()) && names.contains(&"b".into()),
        "{names:?}"
    );

    let (first, first_hash) = api_key(a.id, "first", "ck_first_secret");
    let (second, _) = api_key(a.id, "second", "ck_second_secret");
    orgs.insert_api_key(first.clone(), first_hash)
        .await
        .unwrap();
    let second_hash = hex::decode(&second.secret_sha256)
        .unwrap()
        .try_into()
        .unwrap();
    orgs.insert_api_key(second.clone(), second_hash)
        .await
        .unwrap();
    let found = orgs.api_key_by_hash(first_hash).await.unwrap().unwrap();
    assert_eq!((found.id, found.rate_limit_rps), (first.id, Some(5.0)));
    assert!(orgs.api_key_by_hash([0; 32]).await.unwrap().is_none());
    let listed: Vec<_> = orgs
        .api_keys(a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    assert_eq!(listed, [first.id, second.id], "oldest first");
    assert!(orgs.api_keys(b.id).await.unwrap().is_empty());

    let minute = chrono::TimeDelta::seconds(60);
    let used = Utc::now();
    let key = orgs
        .use_api_key(first_hash, used, minute)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(key.id, first.id);
    let touched = orgs.api_keys(a.id).await.unwrap()[0].last_used_at.unwrap();
    assert_eq!(touched.timestamp_micros(), used.timestamp_micros());
    // Within the minute the use is not noted again.
    let later = used + chrono::TimeDelta::seconds(10);
    orgs.use_api_key(first_hash, later, minute)
        .await
        .unwrap()
        .unwrap();
    let noted = orgs.api_keys(a.id).await.unwrap()[0].last_used_at.unwrap();
    assert_eq!(noted.timestamp_micros(), used.timestamp_micros());
    let later = used + chrono::TimeDelta::seconds(61);
    orgs.use_api_key(first_hash, later, minute)
        .await
        .unwrap()
        .unwrap();
    let noted = orgs.api_keys(a.id).await.unwrap()[0].last_used_at.unwrap();
    assert_eq!(noted.timestamp_micros(), later.timestamp_micros());
    assert!(
        orgs.use_api_key([1; 32], later, minute)
            .await
            .unwrap()
            .is_none()
    );

    assert!(
        !orgs.delete_api_key(b.id, first.id).await.unwrap(),
        "another org's key"
    );
    assert!(orgs.api_key_by_hash(first_hash).await.unwrap().is_some());
    assert!(orgs.delete_api_key(a.id, first.id).await.unwrap());
    assert!(!orgs.delete_api_key(a.id, first.id).await.unwrap());
    assert!(
        orgs.api_key_by_hash(first_hash).await.unwrap().is_none(),
        "a deleted key is gone"
    );
    let after = later + chrono::TimeDelta::seconds(120);
    assert!(
        orgs.use_api_key(first_hash, after, minute)
            .await
            .unwrap()
            .is_none()
    );
    let left: Vec<_> = orgs
        .api_keys(a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.id)
        .collect();
    assert_eq!(left, [second.id], "a use does not bring a deleted key back");
}

fn participant(user: &str, name: &str) -> Participant {
    Participant {
        user_id: user.into(),
        display_name: Some(name.into()),
        role: ParticipantRole::Member,
        joined_at: Utc::now(),
    }
}

pub(crate) async fn participants_and_listings(ports: Ports) {
    let (org, agent, first) = seeded(&ports).await;
    let threads = &ports.threads;
    let mut second = thread(org, agent.id, Utc::now());
    second.created_by = "user-2".into();
    let second = threads.create_thread(second).await.unwrap();
    let mut run = thread(org, agent.id, Utc::now());
    run.origin = Some(ThreadOrigin::Run);
    threads.create_thread(run).await.unwrap();
    let listed = |user: Option<&str>| {
        let user = user.map(str::to_owned);
        async move {
            let page = threads
                .list_threads(org, agent.id, user, None, 10)
                .await
                .unwrap();
            page.items.into_iter().map(|t| t.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(
        listed(None).await,
        [second.id, first.id],
        "newest first, the run's unlisted"
    );
    assert_eq!(listed(Some("user-1")).await, [first.id]);
    assert_eq!(listed(Some("user-2")).await, [second.id]);
    assert!(listed(Some("user-3")).await.is_empty());
    let page = threads
        .list_threads(org, agent.id, None, None, 1)
        .await
        .unwrap();
    let cursor = page.next_cursor.expect("a second thread follows");
    let rest = threads
        .list_threads(org, agent.id, None, Some(cursor), 1)
        .await
        .unwrap();
    assert_eq!(
        rest.items.iter().map(|t| t.id).collect::<Vec<_>>(),
        [first.id]
    );
    assert!(rest.next_cursor.is_none());

    let joined = participant("user-3", "Three");
    let put = threads
        .put_participant(org, first.id, joined.clone(), Some(2))
        .await
        .unwrap();
    assert!(
        matches!(
            put,
            ParticipantPut::Stored {
                replaced: false,
                ..
            }
        ),
        "{put:?}"
    );
    assert_eq!(
        listed(Some("user-3")).await,
        [first.id],
        "listed for who joined"
    );
    let mut renamed = participant("user-3", "Three again");
    renamed.joined_at = Utc::now() + chrono::TimeDelta::seconds(5);
    let ParticipantPut::Stored {
        participant: kept,
        replaced,
    } = threads
        .put_participant(org, first.id, renamed, Some(2))
        .await
        .unwrap()
    else {
        panic!("an update goes through");
    };
    assert!(replaced);
    assert_eq!(
        kept.joined_at.timestamp_micros(),
        joined.joined_at.timestamp_micros()
    );
    let put = threads.put_participant(org, first.id, participant("user-4", "Four"), Some(2));
    assert!(matches!(put.await.unwrap(), ParticipantPut::Stored { .. }));
    let put = threads.put_participant(org, first.id, participant("user-5", "Five"), Some(2));
    assert!(
        matches!(put.await.unwrap(), ParticipantPut::Full),
        "the cap holds"
    );
    let put = threads.put_participant(org, first.id, participant("user-5", "Five"), None);
    assert!(matches!(put.await.unwrap(), ParticipantPut::Stored { .. }));
    let users: Vec<String> = threads
        .participants(first.id)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.user_id)
        .collect();
    assert_eq!(users, ["user-3", "user-4", "user-5"]);
    let gone = threads.put_participant(OrgId::new(), first.id, participant("user-6", "Six"), None);
    assert!(
        matches!(gone.await.unwrap(), ParticipantPut::ThreadGone),
        "another org's thread"
    );

    assert!(
        threads
            .remove_participant(org, first.id, "user-3".into())
            .await
            .unwrap()
    );
    assert!(
        !threads
            .remove_participant(org, first.id, "user-3".into())
            .await
            .unwrap()
    );
    assert!(listed(Some("user-3")).await.is_empty());
    assert!(
        !threads
            .remove_participant(org, first.id, "user-1".into())
            .await
            .unwrap()
    );
    assert_eq!(
        listed(Some("user-1")).await,
        [first.id],
        "the creator keeps it"
    );
}

/// The facts an access check reads: participation, the project role, a
/// delegate's root, the agent; none of another org's thread.
pub(crate) async fn thread_access_reads_its_facts_in_one_trip(ports: Ports) {
    use crate::store_projects::{done, member, project};
    use confer::projects::ProjectRole;
    use confer_actors::ThreadKind;
    let (org, agent, _) = seeded(&ports).await;
    let held = done(
        ports
            .projects
            .create_project(
                project(org, "Facts", None),
                vec![member("editor-1", ProjectRole::Editor)],
            )
            .await
            .unwrap(),
    );
    let mut root = thread(org, agent.id, Utc::now());
    root.kind = ThreadKind::Multiplayer;
    root.project_id = Some(held.id);
    let root = ports.threads.create_thread(root).await.unwrap();
    let joined = Participant {
        user_id: "guest-1".into(),
        display_name: None,
        role: ParticipantRole::Member,
        joined_at: Utc::now(),
    };
    ports
        .threads
        .put_participant(org, root.id, joined, None)
        .await
        .unwrap();
    let mut child = thread(org, agent.id, Utc::now());
    child.origin = Some(ThreadOrigin::Delegate);
    child.delegation = Some(Box::new(confer_actors::delegation::ThreadDelegation {
        parent_thread_id: root.id,
        parent_tool_call_id: "call-1".into(),
        root_thread_id: root.id,
        depth: 1,
    }));
    let child = ports.threads.create_thread(child).await.unwrap();

    let facts = |user: &str, with_agent| {
        ports
            .threads
            .thread_access(org, root.id, Some(user.into()), with_agent)
    };
    let guest = facts("guest-1", false).await.unwrap().unwrap();
    assert!(guest.participant);
    assert_eq!(guest.project_role, None);
    assert!(guest.agent.is_none() && guest.root.is_none());
    let editor = facts("editor-1", true).await.unwrap().unwrap();
    assert!(!editor.participant);
    assert_eq!(editor.project_role, Some(ProjectRole::Editor));
    assert_eq!(editor.agent.map(|a| a.id), Some(agent.id));
    let nobody = ports
        .threads
        .thread_access(org, root.id, None, false)
        .await
        .unwrap()
        .unwrap();
    assert!(!nobody.participant && nobody.project_role.is_none());

    let delegate = ports
        .threads
        .thread_access(org, child.id, Some("guest-1".into()), false)
        .await
        .unwrap()
        .unwrap();
    let children = ports
        .threads
        .child_threads(org, root.id, None, 10)
        .await
        .unwrap();
    assert_eq!(
        children.items.iter().map(|t| t.id).collect::<Vec<_>>(),
        [child.id]
    );
    assert!(
        ports
            .threads
            .child_threads(org, root.id, Some(child.created_at), 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let via_root = delegate.root.expect("a delegate's root is read");
    assert_eq!(via_root.thread.id, root.id);
    assert!(via_root.participant);
    assert!(
        ports
            .threads
            .thread_access(OrgId::new(), root.id, Some("guest-1".into()), true)
            .await
            .unwrap()
            .is_none()
    );
}
