//! The MCP store's rules: slugs, sealing, compare-and-swap, detaching.
use super::*;
use crate::store::test_secrets;
use std::collections::BTreeMap;

fn server(org: OrgId, name: &str) -> McpServer {
    let now = Utc::now();
    McpServer {
        id: McpServerId::new(),
        org_id: org,
        name: name.into(),
        slug: slug_of(name),
        transport: McpTransport::StreamableHttp,
        url: Some("https://mcp.example/mcp".into()),
        command: None,
        args: Vec::new(),
        credentials: None,
        allowed_tools: None,
        oauth: OAuthMode::None,
        oauth_client: None,
        timeout_ms: 30_000,
        status: McpStatus::Pending,
        last_error: None,
        tools_cache: Vec::new(),
        tools_refreshed_at: None,
        oauth_epoch: 0,
        created_at: now,
        updated_at: now,
    }
}

fn store() -> (tempfile::TempDir, SledStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    (dir, store)
}

#[test]
fn a_colliding_slug_gets_a_suffix_and_is_freed_by_the_delete() {
    let (_dir, store) = store();
    let org = OrgId::new();
    let secrets = McpSecrets::default();
    let first = store.create_mcp(server(org, "Docs"), &secrets).unwrap();
    let second = store.create_mcp(server(org, "docs"), &secrets).unwrap();
    let third = store.create_mcp(server(org, "DOCS!"), &secrets).unwrap();
    assert_eq!(
        [&first.slug, &second.slug, &third.slug],
        ["docs", "docs_2", "docs_3"]
    );
    // Another org has its own slugs.
    let other = store
        .create_mcp(server(OrgId::new(), "docs"), &secrets)
        .unwrap();
    assert_eq!(other.slug, "docs");
    assert!(store.delete_mcp(org, first.id).unwrap());
    assert!(!store.delete_mcp(org, first.id).unwrap());
    let again = store.create_mcp(server(org, "docs"), &secrets).unwrap();
    assert_eq!(again.slug, "docs");
}

#[test]
fn credentials_are_sealed_and_open_only_for_their_record() {
    let (_dir, store) = store();
    let org = OrgId::new();
    let plain = McpCredentials {
        headers: [("Authorization".to_owned(), "Bearer s3cret-token".to_owned())].into(),
        env: BTreeMap::new(),
    };
    let secrets = McpSecrets {
        credentials: Some(Some(plain)),
        client_secret: None,
    };
    let made = store.create_mcp(server(org, "a"), &secrets).unwrap();
    let sealed = made.credentials.clone().unwrap();
    assert!(!sealed.contains("s3cret"));
    assert_eq!(
        super::credentials_of(&store.secrets, &made)
            .unwrap()
            .headers["Authorization"],
        "Bearer s3cret-token"
    );
    let mut moved = store
        .create_mcp(server(org, "b"), &McpSecrets::default())
        .unwrap();
    moved.credentials = Some(sealed);
    assert!(
        super::credentials_of(&store.secrets, &moved).is_err(),
        "bound to its record"
    );
}

#[test]
fn a_contact_recorded_after_the_delete_does_not_resurrect_the_server() {
    let (_dir, store) = store();
    let org = OrgId::new();
    let made = store
        .create_mcp(server(org, "a"), &McpSecrets::default())
        .unwrap();
    assert!(store.delete_mcp(org, made.id).unwrap());
    assert!(
        store
            .record_mcp_contact(org, made.id, Ok(Vec::new()))
            .unwrap()
            .is_none()
    );
    assert!(store.mcp(org, made.id).unwrap().is_none());
    let updated = store
        .update_mcp(org, made.id, &McpSecrets::default(), |s| {
            s.name = "b".into();
        })
        .unwrap();
    assert!(updated.is_none());
    assert!(store.mcp(org, made.id).unwrap().is_none());
}

#[test]
fn deleting_a_server_detaches_it_everywhere() {
    let (_dir, store) = store();
    let org = OrgId::new();
    let made = store
        .create_mcp(server(org, "a"), &McpSecrets::default())
        .unwrap();
    let kept = store
        .create_mcp(server(org, "b"), &McpSecrets::default())
        .unwrap();
    let (one, two) = (AgentId::new(), AgentId::new());
    assert_eq!(
        store.attach_mcp(org, one, made.id, None).unwrap(),
        AttachOutcome::Attached
    );
    assert_eq!(
        store
            .attach_mcp(org, one, made.id, Some(vec!["x".into()]))
            .unwrap(),
        AttachOutcome::Replaced
    );
    store.attach_mcp(org, two, made.id, None).unwrap();
    store.attach_mcp(org, two, kept.id, None).unwrap();
    assert_eq!(
        store
            .attach_mcp(org, two, McpServerId::new(), None)
            .unwrap(),
        AttachOutcome::Missing
    );
    assert_eq!(store.org_mcps(org).unwrap().attachments.len(), 3);
    assert!(store.delete_mcp(org, made.id).unwrap());
    let left = store.org_mcps(org).unwrap().attachments;
    assert_eq!(left.len(), 1);
    assert_eq!((left[0].0, left[0].1.target), (two, kept.id));
    assert!(store.detach_mcp(org, two, kept.id).unwrap());
    assert!(!store.detach_mcp(org, two, kept.id).unwrap());
}

fn token(secret: &str) -> crate::store::oauth::OpenToken {
    crate::store::oauth::OpenToken {
        access_token: secrecy::SecretString::from(secret.to_owned()),
        refresh_token: Some(secrecy::SecretString::from(format!("{secret}-refresh"))),
        expires_at: None,
        scope: Some("read".into()),
    }
}

fn registration() -> crate::store::oauth::OAuthRegistration {
    crate::store::oauth::OAuthRegistration {
        issuer: "https://as.example".into(),
        authorization_endpoint: "https://as.example/authorize".into(),
        token_endpoint: "https://as.example/token".into(),
        revocation_endpoint: None,
        client_id: "confer".into(),
        client_secret: Some("client-secret-1".into()),
        redirect_uri: "http://127.0.0.1/cb".into(),
        scope: None,
    }
}

#[test]
fn tokens_are_sealed_per_owner_and_deleted_with_their_server() {
    use crate::store::oauth::TokenOwner;
    let (_dir, store) = store();
    let org = OrgId::new();
    let server = store
        .create_mcp(server(org, "Docs"), &McpSecrets::default())
        .unwrap()
        .id;
    let alice = TokenOwner::User("alice".into());
    assert!(
        store
            .put_oauth_token(org, server, 0, &alice, &token("at-secret-1"))
            .unwrap()
    );
    let raw: Vec<u8> = store
        .oauth_tokens
        .iter()
        .values()
        .next()
        .unwrap()
        .unwrap()
        .to_vec();
    assert!(!String::from_utf8_lossy(&raw).contains("at-secret-1"));
    let read = store.oauth_token(org, server, &alice).unwrap().unwrap();
    assert_eq!(read.access_token.expose_secret(), "at-secret-1");
    let bob = TokenOwner::User("bob".into());
    assert!(store.oauth_token(org, server, &bob).unwrap().is_none());
    assert!(
        store
            .oauth_token(org, server, &TokenOwner::Org)
            .unwrap()
            .is_none()
    );
    store.delete_oauth_of(org, server).unwrap();
    assert!(store.oauth_token(org, server, &alice).unwrap().is_none());
    // A server that does not exist keeps no token.
    assert!(
        !store
            .put_oauth_token(org, McpServerId::new(), 0, &alice, &token("x"))
            .unwrap()
    );
}

#[test]
fn a_changed_url_or_client_forgets_the_oauth_state_and_refuses_late_writes() {
    use crate::store::oauth::TokenOwner;
    let (_dir, store) = store();
    let org = OrgId::new();
    let made = store
        .create_mcp(server(org, "Docs"), &McpSecrets::default())
        .unwrap();
    let id = made.id;
    let alice = TokenOwner::User("alice".into());
    assert!(
        store
            .put_oauth_registration(org, id, 0, registration())
            .unwrap()
    );
    assert!(
        store
            .put_oauth_token(org, id, 0, &alice, &token("old"))
            .unwrap()
    );

    // A rename keeps them.
    let renamed = store
        .update_mcp(org, id, &McpSecrets::default(), |s| {
            s.name = "Docs 2".into()
        })
        .unwrap()
        .unwrap();
    assert_eq!(renamed.oauth_epoch, 0);
    assert!(store.oauth_token(org, id, &alice).unwrap().is_some());
    assert!(store.oauth_registration(org, id).unwrap().is_some());

    // A new url forgets both in the same transaction.
    let moved = store
        .update_mcp(org, id, &McpSecrets::default(), |s| {
            s.url = Some("https://elsewhere.example/mcp".into());
        })
        .unwrap()
        .unwrap();
    assert_eq!(moved.oauth_epoch, 1);
    assert!(store.oauth_token(org, id, &alice).unwrap().is_none());
    assert!(store.oauth_registration(org, id).unwrap().is_none());
    // A refresh or a callback that began before the change stores nothing.
    assert!(
        !store
            .put_oauth_token(org, id, 0, &alice, &token("late"))
            .unwrap()
    );
    assert!(
        !store
            .put_oauth_registration(org, id, 0, registration())
            .unwrap()
    );
    assert!(store.oauth_token(org, id, &alice).unwrap().is_none());
    assert!(
        store
            .put_oauth_token(org, id, 1, &alice, &token("new"))
            .unwrap()
    );

    // So does a new oauthClient, and a token of an older epoch that
    // escaped the transaction's scan is swept after it.
    store
        .oauth_tokens
        .insert(
            [
                &crate::store::keys::pair(org.as_bytes(), id.as_bytes())[..],
                b"stray",
            ]
            .concat(),
            crate::store::codec::encode(&crate::store::oauth::StoredToken {
                user: Some("mallory".into()),
                sealed: String::new(),
                expires_at: None,
                scope: None,
                updated_at: Utc::now(),
                epoch: 0,
            })
            .unwrap(),
        )
        .unwrap();
    let reclient = store
        .update_mcp(org, id, &McpSecrets::default(), |s| {
            s.oauth_client = Some(OAuthClient {
                client_id: "other".into(),
                client_secret: None,
                scope: None,
            });
        })
        .unwrap()
        .unwrap();
    assert_eq!(reclient.oauth_epoch, 2);
    assert_eq!(store.oauth_tokens.len(), 0);
}
