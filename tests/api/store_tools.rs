//! The store conformance suite's case for org tools (`tools.md` §1).

use chrono::Utc;
use confer::store::tools::{OrgTool, ToolWrite};
use confer_actors::{OrgId, ToolId};
use secrecy::ExposeSecret;

use crate::store_conformance::Ports;

fn tool(org: OrgId, name: &str) -> OrgTool {
    let now = Utc::now();
    OrgTool {
        id: ToolId::new(),
        org_id: org,
        name: name.into(),
        description: "looks things up".into(),
        parameters: serde_json::json!({"type": "object"}),
        url: "https://tools.example/hook".into(),
        timeout_ms: 10_000,
        signing_secret: "cfs_plain".into(),
        created_at: now,
        updated_at: now,
    }
}

pub(crate) async fn tool_names_are_unique_and_secrets_sealed(ports: Ports) {
    let tools = &ports.tools;
    let (org, other) = (OrgId::new(), OrgId::new());
    let made = tools
        .create_tool(tool(org, "lookup"))
        .await
        .unwrap()
        .unwrap();
    assert_ne!(made.signing_secret, "cfs_plain", "sealed at rest");
    assert_eq!(
        tools.tool_secret(&made).unwrap().expose_secret(),
        "cfs_plain"
    );
    let taken = tools.create_tool(tool(org, "lookup")).await.unwrap();
    assert!(matches!(taken, Err(ToolWrite::NameTaken)));
    tools
        .create_tool(tool(other, "lookup"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(tools.list_tools(org).await.unwrap().len(), 1);
    let named = tools
        .tool_named(org, "lookup".into())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(named.id, made.id);
    assert!(
        tools.tool(other, made.id).await.unwrap().is_none(),
        "another org's tool"
    );

    let second = tools
        .create_tool(tool(org, "search"))
        .await
        .unwrap()
        .unwrap();
    let listed: Vec<_> = tools
        .list_tools(org)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(listed, [made.id, second.id], "oldest first");
    let clash = tools
        .update_tool(org, second.id, None, Box::new(|t| t.name = "lookup".into()))
        .await
        .unwrap();
    assert!(matches!(clash, Err(ToolWrite::NameTaken)));
    let renamed = tools
        .update_tool(
            org,
            second.id,
            Some("cfs_new".into()),
            Box::new(|t| t.name = "find".into()),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        tools.tool_secret(&renamed).unwrap().expose_secret(),
        "cfs_new"
    );
    let stored = tools.tool(org, second.id).await.unwrap().unwrap();
    assert_eq!(stored.name, "find");
    assert!(
        tools
            .tool_named(org, "search".into())
            .await
            .unwrap()
            .is_none()
    );
    assert!(tools.delete_tool(org, second.id).await.unwrap());
    assert!(
        tools
            .tool_named(org, "find".into())
            .await
            .unwrap()
            .is_none()
    );
    assert!(!tools.delete_tool(org, second.id).await.unwrap());
    let gone = tools
        .update_tool(org, second.id, None, Box::new(|_| {}))
        .await
        .unwrap();
    assert!(
        matches!(gone, Err(ToolWrite::Missing)),
        "a deleted tool stays deleted"
    );
    // The name of a deleted tool is free again.
    tools.create_tool(tool(org, "find")).await.unwrap().unwrap();
}

/// Every write of an org's tools bumps its `cache_versions` row, so each
/// node drops its cached copy (`scale.md` §5); a refused write does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_writes_bump_the_org_s_cache_version_on_postgres() {
    use confer::store::port::ToolRecords;
    let postgres = crate::postgres::Postgres::start().await;
    let store = crate::store_conformance::pg_store(&postgres.database("versions").await).await;
    let org = OrgId::new();
    let made = store.create_tool(tool(org, "a")).await.unwrap().unwrap();
    let change = Box::new(|t: &mut OrgTool| t.description = "changed".into());
    store
        .update_tool(org, made.id, None, change)
        .await
        .unwrap()
        .unwrap();
    let refused = store.create_tool(tool(org, "a")).await.unwrap();
    assert!(matches!(refused, Err(ToolWrite::NameTaken)));
    assert!(store.delete_tool(org, made.id).await.unwrap());
    let version: i64 = postgres
        .admin_of("versions")
        .await
        .query_one(
            "SELECT version FROM cache_versions WHERE org_id = $1 AND kind = 'tools'",
            &[&org.0],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, 3, "created, updated, deleted");
}
