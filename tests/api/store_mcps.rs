//! The store conformance suite's cases for MCP servers (`tools.md` §6,
//! §8), one of the two kinds attached to agents (integrations' case is
//! `store_integrations`): a slug once in the org (suffixed on collision, never a reserved one);
//! secrets sealed; a change of where an MCP server's tokens go bumps its
//! epoch and forgets its registration and tokens, and a token made for
//! the old epoch is refused after it; attachments only to a target that
//! exists; a delete that takes attachments (and tokens) with it.

use std::sync::Arc;

use chrono::Utc;
use confer::store::mcps::{
    AttachOutcome, CachedTool, McpCredentials, McpSecrets, McpServer, McpStatus, McpTransport,
    OAuthMode,
};
use confer::store::oauth::{OAuthRegistration, OpenToken, TokenOwner};
use confer_actors::{AgentId, McpServerId, OrgId};
use secrecy::{ExposeSecret, SecretString};

use crate::store_conformance::Ports;

fn server(org: OrgId, slug: &str) -> McpServer {
    let now = Utc::now();
    McpServer {
        id: McpServerId::new(),
        org_id: org,
        name: slug.into(),
        slug: slug.into(),
        transport: McpTransport::StreamableHttp,
        url: Some("https://mcp.example.com/mcp".into()),
        command: None,
        args: Vec::new(),
        credentials: None,
        allowed_tools: None,
        oauth: OAuthMode::PerUser,
        oauth_client: None,
        timeout_ms: 30_000,
        status: McpStatus::Pending,
        last_error: None,
        tools_cache: Vec::new(),
        tools_refreshed_at: None,
        created_at: now,
        updated_at: now,
        oauth_epoch: 0,
    }
}

fn secrets() -> McpSecrets {
    let mut credentials = McpCredentials::default();
    credentials
        .headers
        .insert("Authorization".into(), "Bearer sk_live_mcp".into());
    McpSecrets {
        credentials: Some(Some(credentials)),
        client_secret: None,
    }
}

fn token(access: &str) -> OpenToken {
    OpenToken {
        access_token: SecretString::from(access.to_owned()),
        refresh_token: Some(SecretString::from(format!("{access}-refresh"))),
        expires_at: None,
        scope: Some("read".into()),
    }
}

fn registration() -> OAuthRegistration {
    OAuthRegistration {
        issuer: "https://auth.example.com".into(),
        authorization_endpoint: "https://auth.example.com/authorize".into(),
        token_endpoint: "https://auth.example.com/token".into(),
        revocation_endpoint: None,
        client_id: "confer".into(),
        client_secret: Some("client-secret".into()),
        redirect_uri: "https://confer.example.com/api/mcps/managed-oauth/callback".into(),
        scope: None,
    }
}

pub(crate) async fn mcp_servers_keep_slugs_attachments_and_oauth_epochs(ports: Ports) {
    let mcps = &ports.mcps;
    let org = OrgId::new();
    let first = mcps
        .create_mcp(server(org, "github"), secrets())
        .await
        .unwrap();
    assert_eq!(first.slug, "github");
    let sealed = first.credentials.clone().unwrap();
    assert!(!sealed.contains("sk_live_mcp"), "sealed: {sealed}");
    let second = mcps
        .create_mcp(server(org, "github"), McpSecrets::default())
        .await
        .unwrap();
    assert_eq!(second.slug, "github_2");
    let reserved = mcps
        .create_mcp(server(org, "computer"), McpSecrets::default())
        .await
        .unwrap();
    assert_eq!(
        reserved.slug, "computer_2",
        "a reserved slug is never taken"
    );
    let elsewhere = mcps
        .create_mcp(server(OrgId::new(), "github"), McpSecrets::default())
        .await
        .unwrap();
    assert_eq!(elsewhere.slug, "github", "slugs are per org");
    let listed: Vec<String> = mcps
        .mcps(org)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.slug)
        .collect();
    assert_eq!(listed, ["github", "github_2", "computer_2"]);

    // Attachments: to a server of the org only; a second attach replaces.
    let (agent, other_agent) = (AgentId::new(), AgentId::new());
    let attached = mcps.attach_mcp(org, agent, first.id, None).await.unwrap();
    assert_eq!(attached, AttachOutcome::Attached);
    let replaced = mcps
        .attach_mcp(org, agent, first.id, Some(vec!["search".into()]))
        .await
        .unwrap();
    assert_eq!(replaced, AttachOutcome::Replaced);
    let missing = mcps
        .attach_mcp(org, agent, elsewhere.id, None)
        .await
        .unwrap();
    assert_eq!(missing, AttachOutcome::Missing, "another org's server");
    // First attaches that race: one attached, the others replaced it.
    for _ in 0..10 {
        let racer = AgentId::new();
        let racing = (0..8).map(|_| {
            let mcps = Arc::clone(mcps);
            tokio::spawn(async move { mcps.attach_mcp(org, racer, first.id, None).await })
        });
        let outcomes = futures_util::future::join_all(racing).await;
        let attached = outcomes
            .iter()
            .filter(|o| *o.as_ref().unwrap().as_ref().unwrap() == AttachOutcome::Attached)
            .count();
        assert_eq!(attached, 1, "{outcomes:?}");
        assert!(mcps.detach_mcp(org, racer, first.id).await.unwrap());
    }
    let not_attached = mcps
        .set_mcp_attachment_tools(org, other_agent, first.id, None)
        .await
        .unwrap();
    assert!(not_attached.is_none(), "setting tools attaches nothing");
    mcps.attach_mcp(org, agent, second.id, None).await.unwrap();
    mcps.attach_mcp(org, other_agent, first.id, None)
        .await
        .unwrap();
    let set = mcps
        .set_mcp_attachment_tools(org, agent, first.id, Some(vec!["fetch".into()]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(set.allowed, Some(vec!["fetch".to_owned()]));
    let view = mcps.org_mcps(org).await.unwrap();
    let of_agent: Vec<McpServerId> = view.of_agent(agent).map(|(s, _)| s.id).collect();
    assert_eq!(of_agent, [first.id, second.id], "in attachment order");
    assert!(mcps.detach_mcp(org, agent, second.id).await.unwrap());
    assert!(!mcps.detach_mcp(org, agent, second.id).await.unwrap());

    // A contact's outcome leaves `updated_at` alone.
    let listed = vec![CachedTool {
        name: "search".into(),
        description: None,
        input_schema: serde_json::json!({"type": "object"}),
    }];
    let contacted = mcps
        .record_mcp_contact(org, first.id, Ok(listed.clone()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(contacted.status, McpStatus::Active);
    assert_eq!(contacted.tools_cache, listed);
    assert_eq!(contacted.updated_at, first.updated_at);

    // OAuth state for epoch 0; a change that keeps the URL keeps it.
    let user = TokenOwner::User("user-1".into());
    assert!(
        mcps.put_oauth_registration(org, first.id, 0, registration())
            .await
            .unwrap()
    );
    let opened = mcps
        .oauth_registration(org, first.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(opened.client_secret.as_deref(), Some("client-secret"));
    assert!(
        mcps.put_oauth_token(org, first.id, 0, user.clone(), token("first"))
            .await
            .unwrap()
    );
    mcps.put_oauth_token(org, first.id, 0, TokenOwner::Org, token("org"))
        .await
        .unwrap();
    assert_eq!(
        mcps.latest_oauth_owner(org, first.id).await.unwrap(),
        Some(TokenOwner::Org)
    );
    let renamed = mcps
        .update_mcp(
            org,
            first.id,
            McpSecrets::default(),
            Box::new(|s| s.name = "GitHub".into()),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!((renamed.oauth_epoch, renamed.slug.as_str()), (0, "github"));
    assert_eq!(renamed.credentials, first.credentials, "credentials kept");
    let kept = mcps.oauth_token(org, first.id, user.clone()).await.unwrap();
    assert_eq!(kept.unwrap().access_token.expose_secret(), "first");

    // A new URL moves the tokens: the epoch is bumped, and they go.
    let moved = mcps
        .update_mcp(
            org,
            first.id,
            McpSecrets::default(),
            Box::new(|s| s.url = Some("https://elsewhere.example.com/mcp".into())),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.oauth_epoch, 1);
    assert!(moved.updated_at > first.updated_at);
    assert!(
        mcps.oauth_token(org, first.id, user.clone())
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        mcps.oauth_registration(org, first.id)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(mcps.latest_oauth_owner(org, first.id).await.unwrap(), None);
    let late = mcps
        .put_oauth_token(org, first.id, 0, user.clone(), token("late"))
        .await
        .unwrap();
    assert!(!late, "a token made for the old epoch is refused");
    assert!(
        !mcps
            .put_oauth_registration(org, first.id, 0, registration())
            .await
            .unwrap()
    );
    assert!(
        mcps.put_oauth_token(org, first.id, 1, user.clone(), token("second"))
            .await
            .unwrap()
    );
    assert!(
        mcps.delete_oauth_token(org, first.id, user.clone())
            .await
            .unwrap()
    );
    assert!(
        !mcps
            .delete_oauth_token(org, first.id, user.clone())
            .await
            .unwrap()
    );
    mcps.put_oauth_token(org, first.id, 1, user.clone(), token("third"))
        .await
        .unwrap();

    // A delete takes the attachments and tokens; what comes late stays out.
    assert!(mcps.delete_mcp(org, first.id).await.unwrap());
    assert!(!mcps.delete_mcp(org, first.id).await.unwrap());
    assert!(mcps.mcp(org, first.id).await.unwrap().is_none());
    assert!(
        mcps.oauth_token(org, first.id, user.clone())
            .await
            .unwrap()
            .is_none()
    );
    let view = mcps.org_mcps(org).await.unwrap();
    assert!(view.attachments.iter().all(|(_, a)| a.target != first.id));
    assert_eq!(view.of_agent(other_agent).count(), 0);
    let gone = mcps
        .record_mcp_contact(org, first.id, Err("down".into()))
        .await
        .unwrap();
    assert!(gone.is_none(), "a contact does not bring a server back");
    assert!(
        !mcps
            .put_oauth_token(org, first.id, 1, user, token("ghost"))
            .await
            .unwrap()
    );
    let slug_free = mcps
        .create_mcp(server(org, "github"), McpSecrets::default())
        .await
        .unwrap();
    assert_eq!(slug_free.slug, "github", "a deleted server's slug is free");
}
