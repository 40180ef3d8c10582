use super::*;

fn put(json: serde_json::Value) -> PutProfile {
    serde_json::from_value(json).expect("a PUT body")
}

fn fresh() -> Profile {
    Profile::unsaved(OrgId::new(), AgentId::new())
}

#[test]
fn the_first_put_lists_unless_told_not_to() {
    let now = Utc::now();
    let listed = put(serde_json::json!({"title": "Helper"}))
        .apply(fresh(), true, now)
        .expect("valid");
    assert!(listed.listed);
    assert_eq!(listed.version, 1);
    let draft = put(serde_json::json!({"listed": false}))
        .apply(fresh(), true, now)
        .expect("valid");
    assert!(!draft.listed);
    // A later PUT without `listed` leaves it as it was.
    let again = put(serde_json::json!({"title": "Other"}))
        .apply(draft, true, now)
        .expect("valid");
    assert!(!again.listed);
    assert_eq!(again.version, 2);
}

#[test]
fn each_rule_names_its_field() {
    let now = Utc::now();
    let cases = [
        (serde_json::json!({"title": "   "}), "title"),
        (
            serde_json::json!({"description": "x".repeat(2001)}),
            "description",
        ),
        (serde_json::json!({"category": "games"}), "category"),
        (serde_json::json!({"tags": ["ok", "no spaces"]}), "tags[1]"),
        (
            serde_json::json!({"tags": (0..11).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            "tags",
        ),
        (
            serde_json::json!({"capabilities": [{"name": "A", "label": "x"}]}),
            "capabilities[0].name",
        ),
        (
            serde_json::json!({"capabilities": [{"name": "a", "label": "x"}, {"name": "a", "label": "y"}]}),
            "capabilities[1].name",
        ),
        (
            serde_json::json!({"capabilities": [{"name": "a", "label": ""}]}),
            "capabilities[0].label",
        ),
        (serde_json::json!({"visibility": "world"}), "visibility"),
    ];
    for (body, field) in cases {
        let (named, _) = put(body.clone())
            .apply(fresh(), true, now)
            .expect_err("refused");
        assert_eq!(named, field, "{body}");
    }
    let (named, rule) = put(serde_json::json!({"visibility": "instance"}))
        .apply(fresh(), false, now)
        .expect_err("instance listings off");
    assert_eq!(named, "visibility");
    assert!(rule.contains("CONFER_MARKETPLACE_INSTANCE"));
}

#[test]
fn tags_are_lowercased_and_deduplicated() {
    let tags = tags_rule(&["Support".into(), "support".into(), "a-1".into()]).expect("valid");
    assert_eq!(tags, ["support", "a-1"]);
}

#[test]
fn readiness_counts_five_things() {
    let mut profile = fresh();
    assert_eq!(profile.readiness("short").score, 0);
    profile.category = Some("support".into());
    profile.tags = vec!["a".into()];
    profile.avatar = Some("0123456789ab".into());
    let readiness = profile.readiness(&"x".repeat(50));
    assert_eq!(readiness.score, 80);
    assert_eq!(readiness.missing, ["capabilities"]);
}
