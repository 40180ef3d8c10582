//! The publication rules, without HTTP.
use super::*;
use crate::publishing::{MultiplayerConfig, WhoCanInvite};
use confer_actors::{AgentId, OrgId};
use serde_json::json;

fn base() -> Publication {
    Publication::new(OrgId::new(), AgentId::new(), "shop-abcdef".into())
}

fn secret() -> String {
    "cfi_new".into()
}

fn org() -> Vec<EmbedOrigin> {
    domains::parse_list("x", &["https://*.example.com".into()]).unwrap()
}

fn refused(changes: PublicationChanges) -> String {
    apply(base(), changes, &org(), secret)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_new_publication_takes_the_defaults_and_the_agent_name() {
    let long = "n".repeat(150);
    let (publication, applied) =
        create(base(), &long, PublicationChanges::default(), &org(), secret).unwrap();
    assert_eq!(publication.title.chars().count(), 100);
    assert_eq!(publication.theme_color, "#2563eb");
    assert_eq!(publication.limits, PublicationLimits::default());
    assert_eq!((publication.generation, publication.is_active()), (1, true));
    assert_eq!(applied, Applied::default());
    let revoke = PublicationChanges {
        revoke_sessions: true,
        ..Default::default()
    };
    assert!(create(base(), "a", revoke, &org(), secret).is_err());
}

#[test]
fn each_bound_names_its_field() {
    let cases: Vec<(PublicationChanges, &str)> = vec![
        (
            PublicationChanges {
                title: Some(Some(String::new())),
                ..Default::default()
            },
            "title",
        ),
        (
            PublicationChanges {
                title: Some(None),
                ..Default::default()
            },
            "title",
        ),
        (
            PublicationChanges {
                description: Some(Some("d".repeat(501))),
                ..Default::default()
            },
            "description",
        ),
        (
            PublicationChanges {
                suggested_prompts: Some(Some(vec!["ok".into(), String::new()])),
                ..Default::default()
            },
            "suggestedPrompts[1]",
        ),
        (
            PublicationChanges {
                theme_color: Some(Some("blue".into())),
                ..Default::default()
            },
            "themeColor",
        ),
        (
            PublicationChanges {
                avatar_url: Some(Some("http://a.example.com/x.png".into())),
                ..Default::default()
            },
            "avatarUrl",
        ),
        (
            PublicationChanges {
                avatar_url: Some(Some("https://u:p@a.example.com/x.png".into())),
                ..Default::default()
            },
            "avatarUrl",
        ),
        (
            PublicationChanges {
                persistence: Some(Some("cookie".into())),
                ..Default::default()
            },
            "persistence",
        ),
        (
            PublicationChanges {
                retention_days: Some(Some(0)),
                ..Default::default()
            },
            "retentionDays",
        ),
        (
            PublicationChanges {
                allowed_domains: Some(Some(vec![
                    "https://a.example.com".into(),
                    "https://b.org".into(),
                ])),
                ..Default::default()
            },
            "allowedDomains[1]",
        ),
        (
            PublicationChanges {
                identity: Some(Some("optional".into())),
                visibility: Some(Some("private".into())),
                ..Default::default()
            },
            "visibility",
        ),
        (
            PublicationChanges {
                public_tools: Some(Some(vec!["lookup".into(), "computer_click".into()])),
                ..Default::default()
            },
            "publicTools[1]",
        ),
        (
            PublicationChanges {
                public_tools: Some(Some(vec!["*".into()])),
                ..Default::default()
            },
            "publicTools[0]",
        ),
        (
            PublicationChanges {
                limits: Some(Some(
                    json!({"maxConcurrentTurns": 0})
                        .as_object()
                        .unwrap()
                        .clone(),
                )),
                ..Default::default()
            },
            "limits.maxConcurrentTurns",
        ),
        (
            PublicationChanges {
                limits: Some(Some(
                    json!({"dailyTokenBudget": 999})
                        .as_object()
                        .unwrap()
                        .clone(),
                )),
                ..Default::default()
            },
            "limits.dailyTokenBudget",
        ),
        (
            PublicationChanges {
                limits: Some(Some(json!({"speed": 1}).as_object().unwrap().clone())),
                ..Default::default()
            },
            "limits.speed",
        ),
    ];
    for (changes, field) in cases {
        let error = refused(changes);
        assert!(error.contains(&format!("{field}:")), "{field}: {error}");
    }
}

#[test]
fn limits_merge_by_key_and_the_generation_counts_pauses_and_revocations() {
    let changes = PublicationChanges {
        limits: Some(Some(
            json!({"maxConcurrentTurns": 2, "dailyTokenBudget": null})
                .as_object()
                .unwrap()
                .clone(),
        )),
        status: Some(Some("paused".into())),
        ..Default::default()
    };
    let (paused, applied) = apply(base(), changes, &org(), secret).unwrap();
    assert_eq!(paused.limits.max_concurrent_turns, 2);
    assert_eq!(paused.limits.daily_token_budget, None);
    assert_eq!(paused.limits.max_message_chars, 4000, "other keys kept");
    assert!(applied.generation_bumped);
    assert_eq!(paused.generation, 2);
    // Pausing a paused publication bumps nothing; resuming neither.
    let again = PublicationChanges {
        status: Some(Some("paused".into())),
        ..Default::default()
    };
    let (same, applied) = apply(paused.clone(), again, &org(), secret).unwrap();
    assert_eq!((same.generation, applied.generation_bumped), (2, false));
    let revoke = PublicationChanges {
        revoke_sessions: true,
        ..Default::default()
    };
    assert_eq!(apply(same, revoke, &org(), secret).unwrap().0.generation, 3);
}

#[test]
fn the_identity_secret_is_made_once_and_on_rotation() {
    let private = PublicationChanges {
        visibility: Some(Some("private".into())),
        ..Default::default()
    };
    let (mut publication, applied) = apply(base(), private, &org(), secret).unwrap();
    assert_eq!(publication.identity, Identity::Required);
    assert_eq!(applied.new_identity_secret.as_deref(), Some("cfi_new"));
    publication.identity_secret = Some("sealed".into());
    let optional = PublicationChanges {
        identity: Some(Some("optional".into())),
        ..Default::default()
    };
    let (publication, applied) = apply(publication, optional, &org(), secret).unwrap();
    assert_eq!(applied.new_identity_secret, None, "shown only once");
    let rotate = PublicationChanges {
        rotate_identity_secret: true,
        ..Default::default()
    };
    let (_, applied) = apply(publication, rotate, &org(), secret).unwrap();
    assert!(applied.new_identity_secret.is_some());
}

#[test]
fn slugs_follow_their_grammar() {
    for good in ["abc", "my-shop-2", &"a".repeat(48)] {
        assert!(is_valid_slug(good), "{good}");
    }
    for bad in ["ab", "-abc", "abc-", "ABC", "a_b", &"a".repeat(49), "a b"] {
        assert!(!is_valid_slug(bad), "{bad}");
    }
    let slug = generated_slug("  Ünïcode Shop — Support!! ", [0, 1, 2, 25, 26, 31]);
    assert_eq!(slug, "n-code-shop-support-abcz27");
    assert!(is_valid_slug(&slug));
    assert_eq!(generated_slug("✓✓", [0; 6]), "chat-aaaaaa");
    let long = generated_slug(&"word ".repeat(20), [0; 6]);
    assert!(is_valid_slug(&long) && long.len() <= 32 + 7, "{long}");
}

#[test]
fn multiplayer_settings_are_bounded() {
    let config = MultiplayerConfig::default();
    assert_eq!(config.max_participants, 10);
    let changed =
        apply_multiplayer(config.clone(), Some(json!(2)), Some("owner".into()), None).unwrap();
    assert_eq!(changed.max_participants, 2);
    assert_eq!(changed.who_can_invite, WhoCanInvite::Owner);
    for (max, who, names, field) in [
        (Some(json!(1)), None, None, "maxParticipants"),
        (Some(json!(101)), None, None, "maxParticipants"),
        (Some(json!("5")), None, None, "maxParticipants"),
        (None, Some("everyone".to_owned()), None, "whoCanInvite"),
        (None, None, Some("random".to_owned()), "displayNames"),
    ] {
        let error = apply_multiplayer(config.clone(), max, who, names)
            .unwrap_err()
            .to_string();
        assert!(error.contains(field), "{error}");
    }
}
