//! The store conformance suite's case for database integrations
//! (`tools.md` §7): a slug once in the org, the connection string sealed,
//! a schema read that never brings a deleted one back, and attachments
//! only to one that exists.

use chrono::Utc;
use confer::store::mcps::AttachOutcome;
use confer_actors::{AgentId, OrgId};

use crate::store_conformance::Ports;

fn integration(org: OrgId, slug: &str) -> confer::store::integrations::Integration {
    let now = Utc::now();
    confer::store::integrations::Integration {
        id: confer_actors::IntegrationId::new(),
        org_id: org,
        name: slug.into(),
        slug: slug.into(),
        connection: "postgres://u:pw-123@db.example/app?sslmode=require".into(),
        tables: None,
        schema: Vec::new(),
        schema_read_at: now,
        created_at: now,
        updated_at: now,
    }
}

/// Integrations (`tools.md` §7): a slug once in the org, the connection
/// string sealed, a schema read that never brings a deleted one back, and
/// attachments only to one that exists.
pub(crate) async fn integrations_keep_slugs_schemas_and_attachments(ports: Ports) {
    use confer::store::integrations::{Column, Table};
    let records = &ports.integrations;
    let org = OrgId::new();
    let made = records
        .create_integration(integration(org, "sales_db"))
        .await
        .unwrap();
    assert!(!made.connection.contains("pw-123"), "sealed");
    let twin = records
        .create_integration(integration(org, "sales_db"))
        .await
        .unwrap();
    assert_eq!(
        (made.slug.as_str(), twin.slug.as_str()),
        ("sales_db", "sales_db_2")
    );
    let listed: Vec<_> = records
        .integrations(org)
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(listed, [made.id, twin.id], "oldest first");
    let schema = vec![Table {
        name: "orders".into(),
        columns: vec![Column {
            name: "id".into(),
            data_type: "integer".into(),
            udt_schema: "pg_catalog".into(),
            udt_name: "int4".into(),
        }],
    }];
    let read = records
        .record_integration_schema(org, made.id, schema.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.schema, schema);
    assert_eq!(
        records
            .integration(org, made.id)
            .await
            .unwrap()
            .unwrap()
            .schema,
        schema
    );
    let agent = AgentId::new();
    let attach = |id, tables| records.attach_integration(org, agent, id, tables);
    assert_eq!(
        attach(made.id, None).await.unwrap(),
        AttachOutcome::Attached
    );
    let tables = Some(vec!["orders".to_owned()]);
    assert_eq!(
        attach(made.id, tables.clone()).await.unwrap(),
        AttachOutcome::Replaced
    );
    assert_eq!(
        attach(twin.id, None).await.unwrap(),
        AttachOutcome::Attached
    );
    let other = records
        .create_integration(integration(OrgId::new(), "sales_db"))
        .await
        .unwrap();
    assert_eq!(
        attach(other.id, None).await.unwrap(),
        AttachOutcome::Missing
    );
    let view = records.org_integrations(org).await.unwrap();
    let of_agent: Vec<_> = view
        .of_agent(agent)
        .map(|(i, a)| (i.id, a.allowed.clone()))
        .collect();
    assert_eq!(of_agent, [(made.id, tables), (twin.id, None)]);
    assert!(
        records
            .detach_integration(org, agent, twin.id)
            .await
            .unwrap()
    );
    assert!(
        !records
            .detach_integration(org, agent, twin.id)
            .await
            .unwrap()
    );
    assert!(records.delete_integration(org, made.id).await.unwrap());
    assert!(!records.delete_integration(org, made.id).await.unwrap());
    assert!(
        records
            .org_integrations(org)
            .await
            .unwrap()
            .attachments
            .is_empty()
    );
    let late = records
        .record_integration_schema(org, made.id, Vec::new())
        .await
        .unwrap();
    assert!(late.is_none(), "a late schema read does not bring it back");
    let again = records
        .create_integration(integration(org, "sales_db"))
        .await
        .unwrap();
    assert_eq!(
        again.slug, "sales_db",
        "a deleted integration's slug is free"
    );
}
