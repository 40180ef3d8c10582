//! The cases of the store conformance suite (`store_conformance.rs` runs
//! each on both stores): only the ports are used.

use std::sync::Arc;

use chrono::Utc;
use confer::store::UsageFilter;
use confer::store::participants::ParticipantPut;
use confer::store::records::{ApiKey, KeyRole, Org};
use confer_actors::{
    AgentId, ApiKeyId, CompactionConfig, ContextMessage, ContextRole, CredentialConfig, OrgId,
    Participant, ParticipantRole, Role, ThreadAppend, ThreadId, ThreadOrigin,
};

use crate::store_conformance::{Ports, keyed_record, message, seeded, thread, usage};

pub(crate) async fn records_stay_in_their_org(ports: Ports) {
    let (org, agent, thread) = seeded(&ports).await;
    let other = OrgId::new();
    assert!(ports.agents.agent(other, agent.id).await.unwrap().is_none());
    assert!(
        ports
            .threads
            .thread(other, thread.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ports
            .turns
            .turn_inputs(other, thread.id, true)
            .await
            .unwrap()
            .is_none()
    );

    let credentials = CredentialConfig {
        enabled: true,
        resolver_url: "https://resolver.example/keys".into(),
        timeout_ms: 1_500,
        signing_secret: Some("whsec-conformance".into()),
    };
    ports
        .agents
        .put_credentials(org, agent.id, credentials.clone())
        .await
        .unwrap();
    let compaction = CompactionConfig {
        enabled: true,
        ..Default::default()
    };
    ports
        .agents
        .put_compaction(org, agent.id, compaction.clone())
        .await
        .unwrap();
    ports
        .turns
        .append_durably(
            thread.id,
            ThreadAppend {
                listed: Some(message(thread.id, Role::User, "hello")),
                context: vec![ContextMessage::text(ContextRole::User, "hello")],
                ..Default::default()
            },
        )
        .await
        .unwrap();

    let inputs = ports
        .turns
        .turn_inputs(org, thread.id, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(inputs.thread, thread);
    assert_eq!(inputs.agent.as_ref().map(|a| a.id), Some(agent.id));
    assert_eq!(
        inputs.credentials, credentials,
        "the secret comes back opened"
    );
    assert_eq!(inputs.compaction, compaction);
    assert!(inputs.history.is_none(), "history only when asked for");
    let inputs = ports
        .turns
        .turn_inputs(org, thread.id, true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(inputs.history.unwrap().len(), 1);
    assert_eq!(
        ports.agents.credentials(org, agent.id).await.unwrap(),
        credentials
    );
}

pub(crate) async fn appends_number_densely(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let writes = (0..16).map(|n| {
        let turns = Arc::clone(&ports.turns);
        let id = thread.id;
        tokio::spawn(async move {
            turns
                .append_durably(
                    id,
                    ThreadAppend {
                        listed: Some(message(id, Role::User, &format!("message {n}"))),
                        context: vec![ContextMessage::text(
                            ContextRole::User,
                            format!("entry {n}"),
                        )],
                        ..Default::default()
                    },
                )
                .await
                .unwrap()
        })
    });
    let mut seqs: Vec<u64> = Vec::new();
    for write in writes {
        seqs.push(write.await.unwrap().listed.unwrap().seq);
    }
    seqs.sort_unstable();
    assert_eq!(
        seqs,
        (1..=16).collect::<Vec<_>>(),
        "one seq each, none skipped"
    );
    let (page, total) = ports.threads.messages(thread.id, 10, 100).await.unwrap();
    assert_eq!(total, 16);
    assert_eq!(
        page.iter().map(|m| m.seq).collect::<Vec<_>>(),
        (11..=16).collect::<Vec<_>>()
    );
    let (page, _) = ports.threads.messages(thread.id, 0, 3).await.unwrap();
    assert_eq!(page.len(), 3);
    assert_eq!(ports.threads.context(thread.id).await.unwrap().len(), 16);
}

pub(crate) async fn turn_numbers_only_grow(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap(), 0);
    assert_eq!(ports.turns.last_turn(ThreadId::new()).await.unwrap(), 0);
    for turn in [5, 3] {
        let write = ThreadAppend {
            turn: Some(turn),
            ..Default::default()
        };
        ports.turns.append_durably(thread.id, write).await.unwrap();
    }
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap(), 5);
}

pub(crate) async fn keyed_sends_learn_their_answer(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let key = [9u8; 32];
    let mut record = keyed_record(1);
    let write = ThreadAppend {
        turn: Some(1),
        listed: Some(message(thread.id, Role::User, "question")),
        keyed: Some((key, record.clone())),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();
    let read = ports
        .turns
        .admission_reads(thread.id, Some(key), false)
        .await
        .unwrap();
    assert_eq!(read.keyed.unwrap().turn, 1);
    assert!(read.tail.is_none(), "the tail only when asked for");

    record.outcome = Some(serde_json::from_value(serde_json::json!({"kind": "ok"})).unwrap());
    let answer = message(thread.id, Role::Assistant, "answer");
    let write = ThreadAppend {
        listed: Some(answer.clone()),
        keyed: Some((key, record)),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();
    let read = ports
        .turns
        .admission_reads(thread.id, Some(key), false)
        .await
        .unwrap();
    let outcome = read.keyed.unwrap().outcome.unwrap();
    assert_eq!(outcome.message_id, Some(answer.id));
    assert_eq!(outcome.answer_seq, Some(2));
    let other = ports
        .turns
        .admission_reads(thread.id, Some([1; 32]), false)
        .await
        .unwrap();
    assert!(other.keyed.is_none());
}

pub(crate) async fn context_tail_starts_at_the_last_answer(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let append = |context: Vec<ContextMessage>| {
        let turns = Arc::clone(&ports.turns);
        async move {
            let write = ThreadAppend {
                context,
                ..Default::default()
            };
            turns.append_durably(thread.id, write).await.unwrap();
        }
    };
    append(vec![ContextMessage::text(ContextRole::User, "first")]).await;
    let tail = ports
        .turns
        .admission_reads(thread.id, None, true)
        .await
        .unwrap()
        .tail
        .unwrap();
    assert_eq!(tail.len(), 1, "no answer yet: all of it");
    append(vec![
        ContextMessage::text(ContextRole::Assistant, "answer"),
        ContextMessage::tool_result("call-1", "result"),
    ])
    .await;
    append(vec![ContextMessage::text(ContextRole::User, "second")]).await;
    let tail = ports
        .turns
        .admission_reads(thread.id, None, true)
        .await
        .unwrap()
        .tail
        .unwrap();
    let contents: Vec<&str> = tail.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents, ["answer", "result", "second"]);
    let all = ports.threads.context(thread.id).await.unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[0].content, "first");
}

pub(crate) async fn usage_is_unique_in_time_and_linked(ports: Ports) {
    let (org, agent, thread) = seeded(&ports).await;
    let at = Utc::now();
    let mut stored = Vec::new();
    for _ in 0..3 {
        stored.push(
            ports
                .turns
                .record_usage(usage(org, agent.id, thread.id, at))
                .await
                .unwrap(),
        );
    }
    let mut instants: Vec<_> = stored.iter().map(|r| r.created_at).collect();
    instants.dedup();
    assert_eq!(instants.len(), 3, "one instant each: {instants:?}");
    let answer = message(thread.id, Role::Assistant, "answer");
    let write = ThreadAppend {
        listed: Some(answer.clone()),
        billed: vec![stored[0].clone()],
        usage: Some(usage(org, agent.id, thread.id, at)),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();

    let filter = UsageFilter {
        thread: Some(thread.id),
        agent: None,
    };
    let page = ports.threads.usage(org, filter, None, 10).await.unwrap();
    assert_eq!(page.items.len(), 4);
    assert!(page.next_cursor.is_none());
    let linked: Vec<_> = page
        .items
        .iter()
        .filter(|r| r.message_id == Some(answer.id))
        .collect();
    assert_eq!(linked.len(), 2, "the billed record and the answer's own");
    assert!(
        page.items
            .windows(2)
            .all(|w| w[0].created_at > w[1].created_at),
        "newest first"
    );

    let first = ports.threads.usage(org, filter, None, 3).await.unwrap();
    let cursor = first.next_cursor.expect("a fourth record follows");
    let rest = ports
        .threads
        .usage(org, filter, Some(cursor), 3)
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 1);
    assert!(rest.next_cursor.is_none());
    let by_agent = UsageFilter {
        thread: None,
        agent: Some(AgentId::new()),
    };
    assert!(
        ports
            .threads
            .usage(org, by_agent, None, 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert!(
        ports
            .threads
            .usage(OrgId::new(), UsageFilter::default(), None, 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

pub(crate) async fn creation_instants_are_unique_in_the_org(ports: Ports) {
    let (org, agent, _) = seeded(&ports).await;
    let at = Utc::now();
    let a = ports
        .threads
        .create_thread(thread(org, agent.id, at))
        .await
        .unwrap();
    let b = ports
        .threads
        .create_thread(thread(org, agent.id, at))
        .await
        .unwrap();
    assert_ne!(a.created_at, b.created_at);
    assert_eq!(ports.threads.thread(org, b.id).await.unwrap().unwrap(), b);
}

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
