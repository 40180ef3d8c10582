//! The settings' unit tests: layers, secrets, and the operations guide.

use super::*;

/// Every key of `config/default.toml`, set or shown commented out.
fn documented_keys() -> Vec<String> {
    DEFAULT_TOML
        .lines()
        .filter_map(|line| {
            let line = line.trim_start_matches("# ");
            let (key, _) = line.split_once(" = ")?;
            key.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                .then(|| key.to_owned())
        })
        .collect()
}

#[test]
fn every_setting_is_in_the_operations_guide() {
    let guide = include_str!("../../docs/operations.md");
    let keys = documented_keys();
    assert!(keys.len() >= 45, "{keys:?}");
    let missing: Vec<_> = keys
        .iter()
        .filter(|key| !guide.contains(&format!("| `{key}` |")))
        .collect();
    assert!(missing.is_empty(), "not in docs/operations.md: {missing:?}");
    for secret in SECRET_KEYS {
        assert!(keys.iter().any(|k| k == secret), "{secret}");
    }
}

#[test]
fn compiled_in_defaults_parse() {
    let settings: Settings = Figment::from(Toml::string(DEFAULT_TOML)).extract().unwrap();
    assert_eq!(settings.bind, "127.0.0.1:8080");
    assert_eq!(settings.max_body_bytes, 1024 * 1024);
    assert!(settings.jwt_secret.is_none());
    assert_eq!(settings.platform_default_model(), BUILTIN_ECHO_MODEL);
}

#[test]
fn secrets_are_redacted_in_debug() {
    let mut settings: Settings = Figment::from(Toml::string(DEFAULT_TOML)).extract().unwrap();
    settings.jwt_secret = Some(SecretString::from("super-secret-value"));
    assert!(!format!("{settings:?}").contains("super-secret-value"));
}

#[test]
fn default_model_follows_the_configured_vendor() {
    let mut settings: Settings = Figment::from(Toml::string(DEFAULT_TOML)).extract().unwrap();
    settings.openai_api_key = Some(SecretString::from("k"));
    assert_eq!(settings.platform_default_model(), DEFAULT_OPENAI_MODEL);
    settings.anthropic_api_key = Some(SecretString::from("k"));
    assert_eq!(settings.platform_default_model(), DEFAULT_ANTHROPIC_MODEL);
    settings.default_model = Some("builtin/echo".into());
    assert_eq!(settings.platform_default_model(), "builtin/echo");
}
