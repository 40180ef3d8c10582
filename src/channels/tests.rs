use super::*;

#[test]
fn settings_change_field_by_field() {
    let change: SettingsChange = serde_json::from_value(serde_json::json!({
        "errorReply": "", "dailyTokenBudget": null, "businessNumber": "+1 (555) 010-0200"
    }))
    .expect("a change");
    let settings = change.apply(ChannelSettings::default()).expect("valid");
    assert_eq!(settings.error_reply, "");
    assert_eq!(settings.daily_token_budget, None);
    assert_eq!(settings.business_number.as_deref(), Some("15550100200"));
    let too_long: SettingsChange =
        serde_json::from_value(serde_json::json!({"errorReply": "x".repeat(501)})).unwrap();
    assert_eq!(
        too_long.apply(ChannelSettings::default()).unwrap_err().0,
        "settings.errorReply"
    );
    for budget in [999_u64, 1_000_000_000_001] {
        let outside: SettingsChange =
            serde_json::from_value(serde_json::json!({"dailyTokenBudget": budget})).unwrap();
        assert_eq!(
            outside.apply(ChannelSettings::default()).unwrap_err().0,
            "settings.dailyTokenBudget"
        );
    }
    assert_eq!(phone_digits("123"), None);
    assert_eq!(phone_digits("12345678a"), None);
}

#[test]
fn each_kind_names_the_credential_it_lacks() {
    let slack = Credentials {
        bot_token: Some("xoxb-1".into()),
        ..Credentials::default()
    };
    assert_eq!(
        slack.check(ChannelKind::Slack).unwrap_err().0,
        "credentials.signingSecret"
    );
    assert!(slack.check(ChannelKind::Telegram).is_ok());
    assert!(!format!("{slack:?}").contains("xoxb"));
}

#[test]
fn secrets_have_their_shapes() {
    let secret = webhook_secret();
    assert_eq!(secret.len(), 64);
    assert!(
        secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    );
    let token = verify_token();
    assert!(token.starts_with("cwv_") && token.len() == 36);
}
