//! The store conformance suite's case for publishing's records
//! (`publishing.md`): an org's settings swapped from their defaults; a
//! publication per agent, its slug the instance's; a change that keeps
//! the slug and never undoes a delete; a deleted agent's publication not
//! served by slug.

use confer::error::ApiError;
use confer::publishing::Publication;
use confer::store::publications::PublicationCreated;
use confer::store::update::Updated;
use confer_actors::{AgentId, OrgId, PublicationId, ThreadId};

use crate::store_conformance::{Ports, agent};

pub(crate) async fn publications_keep_one_slug_and_swap(ports: Ports) {
    let records = &ports.publications;
    let (org, other) = (OrgId::new(), OrgId::new());

    // The org's settings start at their defaults; a refused change stores
    // nothing.
    assert!(
        records
            .org_settings(org)
            .await
            .unwrap()
            .allowed_embed_domains
            .is_empty()
    );
    let listed = vec!["https://shop.example.com".to_owned()];
    let domains = listed.clone();
    let stored = records
        .update_org_settings(
            org,
            Box::new(move |mut settings| {
                settings.allowed_embed_domains = domains.clone();
                Ok(settings)
            }),
        )
        .await
        .unwrap();
    assert!(matches!(stored, Updated::Stored(_)));
    let refused = records
        .update_org_settings(org, Box::new(|_| Err(ApiError::Conflict("no".into()))))
        .await
        .unwrap();
    assert!(matches!(refused, Updated::Refused(_)));
    assert_eq!(
        records
            .org_settings(org)
            .await
            .unwrap()
            .allowed_embed_domains,
        listed
    );
    assert!(
        records
            .org_settings(other)
            .await
            .unwrap()
            .allowed_embed_domains
            .is_empty()
    );

    // One publication per agent; a slug once in the instance.
    let (mine, theirs) = (agent(org), agent(other));
    ports.agents.put_agent(mine.clone()).await.unwrap();
    ports.agents.put_agent(theirs.clone()).await.unwrap();
    let first = Publication::new(org, mine.id, "shop".into());
    let made = records.create_publication(first.clone()).await.unwrap();
    assert!(matches!(made, PublicationCreated::Stored(_)));
    let again = Publication::new(org, mine.id, "elsewhere".into());
    let again = records.create_publication(again).await.unwrap();
    assert!(matches!(again, PublicationCreated::AlreadyPublished));
    let taken = Publication::new(other, theirs.id, "shop".into());
    let taken_answer = records.create_publication(taken.clone()).await.unwrap();
    assert!(matches!(taken_answer, PublicationCreated::SlugTaken));
    assert_eq!(
        records.publication(org, mine.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(records.publication(other, mine.id).await.unwrap(), None);
    let by_slug = records
        .publication_by_slug("shop".into(), true)
        .await
        .unwrap();
    assert_eq!(by_slug, Some(first.clone()));
    let both = records
        .publications_of(org, vec![AgentId::new(), mine.id])
        .await
        .unwrap();
    assert_eq!(both, vec![None, Some(first.clone())]);

    // A change is stored whole; a refused one stores nothing.
    let changed = records
        .update_publication(
            org,
            mine.id,
            Box::new(|mut publication| {
                publication.title = "Shop help".into();
                publication.generation += 1;
                Ok(publication)
            }),
        )
        .await
        .unwrap();
    let Updated::Stored(changed) = changed else {
        panic!("stored")
    };
    assert_eq!(
        (changed.title.as_str(), changed.generation),
        ("Shop help", 2)
    );
    let refused = records
        .update_publication(
            org,
            mine.id,
            Box::new(|_| Err(ApiError::Conflict("no".into()))),
        )
        .await
        .unwrap();
    assert!(matches!(refused, Updated::Refused(_)));
    assert_eq!(
        records.publication(org, mine.id).await.unwrap(),
        Some(changed.clone())
    );

    // A deleted agent's publication is not served by slug (its record
    // stays until the agent's delete reaches it).
    ports
        .agents
        .update_agent(
            org,
            mine.id,
            Box::new(|mut agent| {
                agent.deleted_at = Some(chrono::Utc::now());
                Ok(agent)
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        records
            .publication_by_slug("shop".into(), true)
            .await
            .unwrap(),
        None
    );
    let kept = records
        .publication_by_slug("shop".into(), false)
        .await
        .unwrap();
    assert_eq!(kept, Some(changed.clone()));

    // A delete frees the slug at once and is never undone by a change.
    assert_eq!(
        records.delete_publication(org, mine.id).await.unwrap(),
        Some(changed)
    );
    assert_eq!(
        records.delete_publication(org, mine.id).await.unwrap(),
        None
    );
    let late = records
        .update_publication(org, mine.id, Box::new(Ok))
        .await
        .unwrap();
    assert!(matches!(late, Updated::Gone));
    assert_eq!(records.publication(org, mine.id).await.unwrap(), None);
    let freed = records.create_publication(taken).await.unwrap();
    assert!(matches!(freed, PublicationCreated::Stored(_)));

    // Nothing spent yet, and no call made on a thread.
    let spent = records
        .publication_tokens(PublicationId::new(), 20_000)
        .await
        .unwrap();
    assert_eq!(spent, 0);
    let last = records
        .last_input_tokens(org, ThreadId::new())
        .await
        .unwrap();
    assert_eq!(last, 0);
}

/// A visitor keeps at most `MAX_THREADS_PER_VISITOR` threads of a
/// publication: racing creations at its last place make one thread
/// (`publishing.md` §3; before, the handler counted, then created).
pub(crate) async fn a_visitor_keeps_its_threads_under_a_race(ports: Ports) {
    use confer::publishing::MAX_THREADS_PER_VISITOR;
    use confer::store::threads::Created;
    let org = OrgId::new();
    let owner = agent(org);
    ports.agents.put_agent(owner.clone()).await.unwrap();
    let publication = PublicationId::new();
    let thread = |visitor: &str| {
        let mut thread = crate::store_conformance::thread(org, owner.id, chrono::Utc::now());
        thread.id = ThreadId::new();
        thread.created_by = visitor.to_owned();
        thread.publication_id = Some(publication);
        thread
    };
    for _ in 1..MAX_THREADS_PER_VISITOR {
        let made = ports
            .threads
            .create_thread_keyed(thread("visitor:a"), None, None);
        assert!(matches!(made.await.unwrap(), Created::New(_)));
    }
    let racing: Vec<_> = (0..8)
        .map(|_| {
            let threads = ports.threads.clone();
            let thread = thread("visitor:a");
            tokio::spawn(async move { threads.create_thread_keyed(thread, None, None).await })
        })
        .collect();
    let mut made = 0;
    for race in racing {
        match race.await.unwrap().unwrap() {
            Created::New(_) => made += 1,
            Created::VisitorFull => {}
            other => panic!("neither made nor refused: {other:?}"),
        }
    }
    assert_eq!(made, 1, "one racing creation takes the last place");
    // Another visitor of the same chat still may.
    let theirs = ports
        .threads
        .create_thread_keyed(thread("visitor:b"), None, None);
    assert!(matches!(theirs.await.unwrap(), Created::New(_)));
}
