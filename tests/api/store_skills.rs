//! The store conformance suite's case for skills (`agent-extras.md` §1):
//! a name once in the org; a content change only on the version read,
//! files replaced with it; a token sealed; an owner's attachments capped
//! even when two attaches race for the last place; a delete that takes
//! the files and the attachments.

use chrono::Utc;
use confer::skills::{MAX_ATTACHMENTS, Skill, SkillFileEntry, SkillSource};
use confer::store::skills::{SkillAttach, SkillWrite};
use confer_actors::{OrgId, SkillId};

use crate::store_conformance::Ports;

/// Skills compare as their JSON (the record has no `PartialEq`).
mod erased {
    pub trait Json {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}

fn skill(org: OrgId, name: &str) -> Skill {
    let now = Utc::now();
    Skill {
        id: SkillId::new(),
        org_id: org,
        name: name.into(),
        description: "d".into(),
        license: None,
        compatibility: None,
        metadata: Default::default(),
        allowed_tools: None,
        source: SkillSource::Git,
        source_url: Some("https://git.example.com/s.git".into()),
        source_ref: None,
        source_path: None,
        token: Some("ghp_secret".into()),
        version: 1,
        revision: None,
        etag: None,
        last_modified: None,
        content_hash: "h1".into(),
        files: vec![SkillFileEntry {
            path: "SKILL.md".into(),
            size: 2,
        }],
        sync_status: None,
        last_error: None,
        synced_at: None,
        created_at: now,
        updated_at: now,
    }
}

fn files(text: &str) -> Vec<(String, Vec<u8>)> {
    vec![("SKILL.md".into(), text.as_bytes().to_vec())]
}

pub(crate) async fn skills_keep_names_versions_and_attachment_caps(ports: Ports) {
    let skills = &ports.skills;
    let org = OrgId::new();
    let SkillWrite::Stored(first) = skills
        .create_skill(skill(org, "notes"), files("v1"))
        .await
        .unwrap()
    else {
        panic!("stored")
    };
    let sealed = first.token.clone().unwrap();
    assert!(!sealed.contains("ghp_secret"), "sealed: {sealed}");
    let taken = skills
        .create_skill(skill(org, "notes"), files("x"))
        .await
        .unwrap();
    assert!(matches!(taken, SkillWrite::NameTaken));
    let elsewhere = skills
        .create_skill(skill(OrgId::new(), "notes"), files("x"))
        .await;
    assert!(matches!(elsewhere.unwrap(), SkillWrite::Stored(_)));
    let json = |value: &dyn erased::Json| value.json();
    let listed = skills.skills(org).await.unwrap();
    assert_eq!(json(&listed), json(&vec![(*first).clone()]));
    let read = skills
        .skill_file(first.id, "SKILL.md".into())
        .await
        .unwrap();
    assert_eq!(read, Some(b"v1".to_vec()));

    // A content change on the version read; a second one on the same read
    // is stale.
    let mut next = (*first).clone();
    next.version = 2;
    next.content_hash = "h2".into();
    next.files = vec![SkillFileEntry {
        path: "ref.md".into(),
        size: 1,
    }];
    let moved = vec![("ref.md".to_owned(), b"r".to_vec())];
    let changed = skills
        .replace_skill_content((*first).clone(), next.clone(), moved.clone())
        .await
        .unwrap();
    assert!(matches!(changed, SkillWrite::Stored(_)));
    let stale = skills
        .replace_skill_content((*first).clone(), next.clone(), moved)
        .await
        .unwrap();
    assert!(matches!(stale, SkillWrite::Stale));
    assert_eq!(
        skills
            .skill_file(first.id, "SKILL.md".into())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        skills.skill_file(first.id, "ref.md".into()).await.unwrap(),
        Some(b"r".to_vec())
    );
    let touched = skills
        .touch_skill(
            org,
            first.id,
            Box::new(|s| s.last_error = Some("late".into())),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (touched.version, touched.last_error.as_deref()),
        (2, Some("late"))
    );
    let stored = skills.skill(org, first.id).await.unwrap();
    assert_eq!(json(&stored), json(&Some(touched)));

    // An owner holds at most MAX_ATTACHMENTS: of two racing for the last
    // place, one wins; an attach again only changes `enabled`.
    let owner = uuid::Uuid::now_v7();
    let mut ids = vec![first.id];
    for i in 1..=MAX_ATTACHMENTS {
        let SkillWrite::Stored(made) = skills
            .create_skill(skill(org, &format!("s{i}")), files("x"))
            .await
            .unwrap()
        else {
            panic!("stored")
        };
        ids.push(made.id);
    }
    for id in &ids[..MAX_ATTACHMENTS - 1] {
        let attached = skills.attach_skill(org, owner, *id, None).await.unwrap();
        assert_eq!(attached, SkillAttach::Attached);
    }
    let (last, spare) = (ids[MAX_ATTACHMENTS - 1], ids[MAX_ATTACHMENTS]);
    let (one, two) = tokio::join!(
        skills.attach_skill(org, owner, last, None),
        skills.attach_skill(org, owner, spare, None),
    );
    let mut outcomes = [one.unwrap(), two.unwrap()];
    outcomes.sort_by_key(|o| *o == SkillAttach::Full);
    assert_eq!(outcomes, [SkillAttach::Attached, SkillAttach::Full]);
    let again = skills
        .attach_skill(org, owner, first.id, Some(false))
        .await
        .unwrap();
    assert_eq!(again, SkillAttach::Updated);
    let held = skills.skill_attachments(org, owner).await.unwrap();
    assert_eq!(held.len(), MAX_ATTACHMENTS);
    assert!(!held[0].0.enabled, "the first attached, now disabled");

    // A delete takes its files and attachments; a detach of what is gone
    // says so.
    assert!(skills.delete_skill(org, first.id).await.unwrap());
    assert!(!skills.delete_skill(org, first.id).await.unwrap());
    assert_eq!(
        skills.skill_file(first.id, "ref.md".into()).await.unwrap(),
        None
    );
    let held = skills.skill_attachments(org, owner).await.unwrap();
    assert_eq!(held.len(), MAX_ATTACHMENTS - 1);
    assert!(!skills.detach_skill(owner, first.id).await.unwrap());
    let missing = skills
        .attach_skill(org, owner, first.id, None)
        .await
        .unwrap();
    assert_eq!(
        missing,
        SkillAttach::Missing,
        "a deleted skill is not attached"
    );
    assert!(skills.detach_skill(owner, ids[1]).await.unwrap());
}
