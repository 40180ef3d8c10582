#![allow(clippy::unwrap_used)]
use super::*;
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::json;

fn keys() -> VisitorKeys {
    VisitorKeys::derive(&[7u8; 32])
}

fn claims(publication: PublicationId, expires_at: i64) -> VisitorClaims {
    VisitorClaims {
        user_id: "visitor:abc".into(),
        publication,
        generation: 3,
        org: OrgId::new(),
        name: None,
        origin: Some("https://shop.example".into()),
        expires_at,
    }
}

#[test]
fn the_three_keys_differ_and_follow_the_instance_key() {
    let a = keys();
    assert_ne!(a.token, a.visitor);
    assert_ne!(a.visitor, a.invite);
    assert_eq!(a.token, VisitorKeys::derive(&[7u8; 32]).token);
    assert_ne!(a.token, VisitorKeys::derive(&[8u8; 32]).token);
}

#[test]
fn tokens_round_trip_and_refuse_tampering_expiry_and_other_keys() {
    let now = chrono::Utc::now().timestamp();
    let publication = PublicationId::new();
    let wanted = claims(publication, now + 600);
    let token = keys().mint_token(&wanted, now).unwrap();
    assert!(token.starts_with("cfv_"));
    assert_eq!(keys().verify_token(&token).unwrap(), wanted);

    let other = VisitorKeys::derive(&[9u8; 32]);
    assert_eq!(
        other.verify_token(&token).unwrap_err(),
        "visitor token invalid"
    );
    let expired = keys()
        .mint_token(&claims(publication, now - 1), now - 10)
        .unwrap();
    assert_eq!(
        keys().verify_token(&expired).unwrap_err(),
        "visitor token expired"
    );
    assert!(
        keys()
            .verify_token(token.trim_start_matches("cfv_"))
            .is_err()
    );
    let mut tampered = token.clone();
    tampered.pop();
    tampered.push(if token.ends_with('A') { 'B' } else { 'A' });
    assert!(keys().verify_token(&tampered).is_err());
}

#[test]
fn secrets_resume_their_visitor_on_their_publication_only() {
    let publication = PublicationId::new();
    let visitor = VisitorId::random();
    let secret = keys().visitor_secret(publication, visitor);
    assert!(secret.starts_with("cvs_"));
    assert_eq!(
        keys().open_visitor_secret(publication, &secret),
        Some(visitor)
    );
    assert_eq!(
        keys().open_visitor_secret(PublicationId::new(), &secret),
        None
    );
    let mut forged = secret.clone();
    forged.replace_range(4..6, "AA");
    assert_eq!(keys().open_visitor_secret(publication, &forged), None);
    assert_eq!(keys().open_visitor_secret(publication, "cvs_short"), None);
    assert_eq!(keys().open_visitor_secret(publication, "garbage"), None);
}

#[test]
fn host_visitors_are_stable_and_distinct() {
    let publication = PublicationId::new();
    let a = keys().host_visitor(publication, "alice");
    assert_eq!(a, keys().host_visitor(publication, "alice"));
    assert_ne!(a, keys().host_visitor(publication, "bob"));
    assert_ne!(a, keys().host_visitor(PublicationId::new(), "alice"));
    assert_eq!(
        user_id(publication, a, Some("alice")),
        format!("ext:{publication}:alice")
    );
    assert_eq!(user_id(publication, a, None), format!("visitor:{a}"));
}

#[test]
fn invite_codes_change_with_their_generation() {
    let thread = ThreadId::new();
    let code = keys().invite_code(thread, 0);
    assert!(keys().invite_matches(thread, 0, &code));
    assert!(!keys().invite_matches(thread, 1, &code));
    assert!(!keys().invite_matches(ThreadId::new(), 0, &code));
    assert_eq!(participant_id(thread, "visitor:x").len(), 16);
    assert_ne!(
        participant_id(thread, "visitor:x"),
        participant_id(thread, "visitor:y")
    );
}

fn user_token(secret: &str, claims: serde_json::Value) -> String {
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

#[test]
fn user_tokens_follow_rule_two() {
    let now = chrono::Utc::now().timestamp();
    let secret = "cfi_s3cret";
    let good = user_token(
        secret,
        json!({"sub": "u1", "exp": now + 600, "name": "Ann"}),
    );
    let identity = verify_user_token(&good, secret, "help", now).unwrap();
    assert_eq!(identity.sub, "u1");
    assert_eq!(identity.name.as_deref(), Some("Ann"));
    let with_aud = user_token(
        secret,
        json!({"sub": "u1", "exp": now + 600, "aud": "help"}),
    );
    assert!(verify_user_token(&with_aud, secret, "help", now).is_ok());

    let refused = |claims: serde_json::Value, key: &str| {
        verify_user_token(&user_token(key, claims), secret, "help", now).unwrap_err()
    };
    assert!(refused(json!({"sub": "u1", "exp": now + 600}), "other").contains("signature"));
    assert!(refused(json!({"sub": "u1", "exp": now - 120}), secret).contains("expired"));
    assert!(
        verify_user_token(
            &user_token(secret, json!({"sub": "u1", "exp": now - 30})),
            secret,
            "help",
            now
        )
        .is_ok()
    );
    assert!(refused(json!({"sub": "u1", "exp": now + 90_000}), secret).contains("24 h"));
    assert!(
        refused(
            json!({"sub": "u1", "exp": now + 60, "aud": "other"}),
            secret
        )
        .contains("aud")
    );
    assert!(refused(json!({"exp": now + 60}), secret).contains("required"));
    assert!(refused(json!({"sub": "", "exp": now + 60}), secret).contains("sub"));
    let long = "x".repeat(129);
    assert!(refused(json!({"sub": long, "exp": now + 60}), secret).contains("sub"));
    let name = "n".repeat(81);
    assert!(refused(json!({"sub": "u", "exp": now + 60, "name": name}), secret).contains("name"));
    // Another algorithm, even with the right secret, is refused.
    let hs512 = encode(
        &Header::new(Algorithm::HS512),
        &json!({"sub": "u1", "exp": now + 60}),
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    assert!(
        verify_user_token(&hs512, secret, "help", now)
            .unwrap_err()
            .contains("HS256")
    );
}
