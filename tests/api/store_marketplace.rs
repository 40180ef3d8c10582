//! The store conformance suite's case for the marketplace
//! (`marketplace-channels.md` §2–§5): profiles changed from their unsaved
//! defaults with their avatars, refused for another org's or a missing
//! agent, the catalogue newest first by pages and scans, deletes, and
//! `use`'s one write with its keyed answer.

use chrono::{Duration, Utc};
use confer::error::ApiError;
use confer::marketplace::adopt::from_template;
use confer::marketplace::profile::Profile;
use confer::marketplace::templates;
use confer::store::marketplace::{Adopted, AvatarChange};
use confer::store::port::{ListingFilter, MarketplaceRecords, ProfileSwap};
use confer::store::update::Updated;
use confer_actors::{AgentId, McpServerId, OrgId};

use crate::store_conformance::{Ports, agent};

/// Lists a profile titled `title`, updated `minutes` from now.
fn listed(title: &'static str, minutes: i64) -> ProfileSwap {
    Box::new(move |mut profile: Profile| {
        profile.title = Some(title.into());
        profile.listed = true;
        profile.version += 1;
        profile.updated_at = Some(Utc::now() + Duration::minutes(minutes));
        Ok(profile)
    })
}

fn every() -> ListingFilter {
    Box::new(|_, _| true)
}

fn stored(updated: Updated<Profile, ApiError>) -> Profile {
    match updated {
        Updated::Stored(profile) => profile,
        other => panic!("not stored: {other:?}"),
    }
}

async fn titles(m: &dyn MarketplaceRecords, keep: ListingFilter) -> Vec<String> {
    let page = m.marketplace_listed(None, 10, 100, keep).await.unwrap();
    page.listings
        .iter()
        .map(|(p, _)| p.title.clone().unwrap_or_default())
        .collect()
}

pub(crate) async fn marketplace_keeps_profiles_the_catalogue_and_adoptions(ports: Ports) {
    let m = ports.marketplace.as_ref();
    let org = OrgId::new();
    let (walker, sitter) = (agent(org), agent(org));
    for a in [&walker, &sitter] {
        ports.agents.put_agent(a.clone()).await.unwrap();
    }
    assert!(
        m.marketplace_profile(org, walker.id)
            .await
            .unwrap()
            .is_none()
    );

    // The first change starts from the unsaved defaults, with its avatar.
    let png = b"\x89PNG a tiny avatar".to_vec();
    let first = m
        .update_marketplace_profile(
            org,
            walker.id,
            AvatarChange::Set(png.clone()),
            listed("Walker", 0),
        )
        .await
        .unwrap();
    let first = stored(first);
    assert_eq!((first.version, first.org_id), (1, org));
    assert_eq!(
        m.marketplace_profile(org, walker.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(m.marketplace_avatar(walker.id).await.unwrap(), Some(png));
    let (profile, found) = m.marketplace_listing(walker.id).await.unwrap().unwrap();
    assert_eq!((profile, found.id), (first.clone(), walker.id));
    // Another org's, or a missing agent: gone; a refusal stores nothing.
    let other = OrgId::new();
    let gone =
        m.update_marketplace_profile(other, walker.id, AvatarChange::Keep, listed("Theft", 0));
    assert!(matches!(gone.await.unwrap(), Updated::Gone));
    assert!(
        m.marketplace_profile(other, walker.id)
            .await
            .unwrap()
            .is_none()
    );
    let missing =
        m.update_marketplace_profile(org, AgentId::new(), AvatarChange::Keep, listed("No one", 0));
    assert!(matches!(missing.await.unwrap(), Updated::Gone));
    let refuse: ProfileSwap = Box::new(|_| Err(ApiError::invalid("title", "too long")));
    let refused = m.update_marketplace_profile(org, walker.id, AvatarChange::Remove, refuse);
    assert!(matches!(refused.await.unwrap(), Updated::Refused(_)));
    assert!(
        m.marketplace_avatar(walker.id).await.unwrap().is_some(),
        "a refusal keeps the avatar"
    );

    // The catalogue: newest first, filtered, by pages and bounded scans.
    stored(
        m.update_marketplace_profile(org, sitter.id, AvatarChange::Keep, listed("Sitter", 5))
            .await
            .unwrap(),
    );
    assert_eq!(titles(m, every()).await, ["Sitter", "Walker"]);
    let walkers: ListingFilter = Box::new(|p, _| p.title.as_deref() == Some("Walker"));
    assert_eq!(titles(m, walkers).await, ["Walker"]);
    let page = m.marketplace_listed(None, 1, 100, every()).await.unwrap();
    assert_eq!(page.listings.len(), 1);
    let rest = m
        .marketplace_listed(page.next, 1, 100, every())
        .await
        .unwrap();
    assert_eq!(rest.listings[0].0.agent_id, walker.id);
    assert_eq!(rest.next, None);
    let none: ListingFilter = Box::new(|_, _| false);
    let scanned = m.marketplace_listed(None, 10, 1, none).await.unwrap();
    assert!(scanned.listings.is_empty());
    assert!(
        scanned.next.is_some(),
        "a scan cut short says where it stopped"
    );
    // Unlisted, it leaves the catalogue; its avatar goes on request.
    let unlist: ProfileSwap = Box::new(|mut p: Profile| {
        p.listed = false;
        Ok(p)
    });
    stored(
        m.update_marketplace_profile(org, sitter.id, AvatarChange::Keep, unlist)
            .await
            .unwrap(),
    );
    assert_eq!(titles(m, every()).await, ["Walker"]);
    let keep: ProfileSwap = Box::new(Ok);
    stored(
        m.update_marketplace_profile(org, walker.id, AvatarChange::Remove, keep)
            .await
            .unwrap(),
    );
    assert!(m.marketplace_avatar(walker.id).await.unwrap().is_none());

    // Deleted by its own org only.
    assert!(
        !m.delete_marketplace_profile(other, walker.id)
            .await
            .unwrap()
    );
    assert!(m.delete_marketplace_profile(org, walker.id).await.unwrap());
    assert!(!m.delete_marketplace_profile(org, walker.id).await.unwrap());
    assert!(titles(m, every()).await.is_empty());

    // `use`: the agent and its settings at once, a keyed repeat answered
    // from the first, another request under the key refused.
    let template = &templates::all()[0];
    let adoption = from_template(
        template,
        org,
        Some("Mine".into()),
        "builtin/echo",
        Utc::now(),
    );
    let made = adoption.agent.id;
    let keyed = Some(([7u8; 32], "request-1".to_owned()));
    let first = m
        .adopt_agent(adoption, keyed.clone(), "{\"first\":1}".into())
        .await
        .unwrap();
    assert_eq!(first, Adopted::Stored);
    assert_eq!(
        ports.agents.agent(org, made).await.unwrap().unwrap().name,
        "Mine"
    );
    let again = from_template(template, org, None, "builtin/echo", Utc::now());
    let repeat = m.adopt_agent(again, keyed, "{}".into()).await.unwrap();
    assert_eq!(repeat, Adopted::Repeat("{\"first\":1}".into()));
    let other_request = Some(([7u8; 32], "request-2".to_owned()));
    let again = from_template(template, org, None, "builtin/echo", Utc::now());
    let reused = m
        .adopt_agent(again, other_request, "{}".into())
        .await
        .unwrap();
    assert_eq!(reused, Adopted::KeyReused);
    // A server to attach that is not there: nothing is made.
    let mut orphan = from_template(template, org, None, "builtin/echo", Utc::now());
    orphan.mcp_attachments.push((McpServerId::new(), None));
    let orphan_id = orphan.agent.id;
    assert_eq!(
        m.adopt_agent(orphan, None, "{}".into()).await.unwrap(),
        Adopted::TargetGone
    );
    assert!(ports.agents.agent(org, orphan_id).await.unwrap().is_none());
}
