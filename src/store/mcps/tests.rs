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
        store.mcp_credentials(&made).unwrap().headers["Authorization"],
        "Bearer s3cret-token"
    );
    let mut moved = store
        .create_mcp(server(org, "b"), &McpSecrets::default())
        .unwrap();
    moved.credentials = Some(sealed);
    assert!(
        store.mcp_credentials(&moved).is_err(),
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
