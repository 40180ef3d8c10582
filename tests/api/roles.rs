//! Roles (security.md "Callers and roles"): every mounted route × every kind
//! of caller, against the real server. The table below is the contract; a
//! route mounted without an entry here fails the walk.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, exp_in, jwt};

/// Who a route admits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Needs {
    /// No credentials at all.
    Nobody,
    /// Any authenticated caller (end users on their own threads only).
    Anyone,
    /// Admins and members.
    Member,
    /// Admins.
    Admin,
    /// Platform-admin keys.
    Platform,
    /// JWT callers (users and admins), never keys.
    Jwt,
    /// A public chat's visitor token, nothing else (`publishing.md` column V).
    Visitor,
}

/// The contract's table, per mounted route.
fn needs(method: &str, path: &str) -> Option<Needs> {
    use Needs::*;
    Some(match (method, path) {
        ("GET", "/healthz" | "/readyz" | "/openapi.json" | "/docs" | "/docs/{file:.*}") => Nobody,
        ("GET", "/api/agents" | "/api/agents/{agent_id}") => Anyone,
        ("POST", "/api/agents") => Admin,
        ("PATCH" | "DELETE", "/api/agents/{agent_id}") => Admin,
        ("GET", "/api/agents/{agent_id}/credentials" | "/api/agents/{agent_id}/compaction") => {
            Member
        }
        ("PUT", "/api/agents/{agent_id}/credentials" | "/api/agents/{agent_id}/compaction") => {
            Admin
        }
        ("GET", "/api/agents/{agent_id}/plan") => Member,
        ("GET", "/api/orgs/settings") => Member,
        ("GET", "/api/public/chat/{slug}") => Nobody,
        ("POST", "/api/public/chat/{slug}/session") => Nobody,
        ("GET", "/c/{slug}" | "/c/{slug}/embed.js" | "/assets/{name}" | "/console") => Nobody,
        (_, path) if path.starts_with("/api/public/chat/{slug}/") => Visitor,
        ("POST", "/api/orgs/settings") => Admin,
        ("GET", "/api/agents/{agent_id}/publish" | "/api/agents/{agent_id}/multiplayer") => Member,
        ("POST" | "PATCH" | "DELETE", "/api/agents/{agent_id}/publish") => Admin,
        ("PUT", "/api/agents/{agent_id}/multiplayer") => Admin,
        ("PUT", "/api/agents/{agent_id}/plan") => Admin,
        (_, path) if path.starts_with("/api/plans") => Anyone,
        (_, "/api/threads" | "/api/threads/{thread_id}") => Anyone,
        // Computer use (computer.md §2): a thread's instance T; an agent's
        // configuration and instances A M, its change A.
        (_, "/api/threads/{thread_id}/computer") => Anyone,
        (
            "GET",
            "/api/agents/{agent_id}/computer" | "/api/agents/{agent_id}/computer-instances",
        ) => Member,
        ("PUT", "/api/agents/{agent_id}/computer") => Admin,
        // Code agents (computer.md §5): read A M, changed A.
        ("GET", "/api/code-agents" | "/api/code-agents/{code_agent_id}") => Member,
        ("POST", "/api/code-agents") => Admin,
        ("PATCH" | "DELETE", "/api/code-agents/{code_agent_id}") => Admin,
        // Code sessions (computer.md §6): A M, a JWT user its own.
        (_, path) if path.starts_with("/api/code-sessions") => Anyone,
        // Marketplace (marketplace-channels.md §1): a profile read A M,
        // changed A; the catalogue and templates A M, `use` A; an avatar's
        // file is public (an `<img>` sends no bearer).
        ("GET", "/api/agents/{agent_id}/marketplace") => Member,
        (
            "PUT" | "DELETE",
            "/api/agents/{agent_id}/marketplace"
            | "/api/agents/{agent_id}/marketplace/capabilities",
        ) => Admin,
        ("POST" | "DELETE", "/api/agents/{agent_id}/marketplace/avatar") => Admin,
        (
            "POST",
            "/api/agents/{agent_id}/marketplace/generate-description"
            | "/api/agents/{agent_id}/marketplace/detect-capabilities",
        ) => Admin,
        ("GET", "/api/marketplace" | "/api/marketplace/official") => Member,
        ("GET", "/api/mcp-registry/search") => Member,
        ("GET", "/api/mcp-registry/managed") => Member,
        ("POST", "/api/marketplace/official/use") => Admin,
        ("GET", "/api/marketplace/avatars/{agent_id}") => Nobody,
        // Channels (marketplace-channels.md §1): read A M, changed A; the
        // vendors' webhook is public, its own check (a signature).
        (
            "GET",
            "/api/agents/{agent_id}/channels"
            | "/api/agents/{agent_id}/channels/whatsapp/qr"
            | "/api/agents/{agent_id}/channels/{channel_id}/contacts",
        ) => Member,
        ("POST", "/api/agents/{agent_id}/channels") => Admin,
        ("PATCH" | "DELETE", "/api/agents/{agent_id}/channels/{channel_id}") => Admin,
        ("GET" | "POST", "/api/channels/{channel_id}/webhook") => Nobody,
        (
            _,
            "/api/threads/{thread_id}/messages"
            | "/api/threads/{thread_id}/stop"
            | "/api/threads/{thread_id}/stream"
            | "/api/threads/{thread_id}/context",
        ) => Anyone,
        (_, "/api/threads/{thread_id}/participants") => Anyone,
        (_, "/api/keys" | "/api/keys/{key_id}") => Admin,
        ("GET", "/api/orgs") => Anyone,
        ("POST", "/api/orgs") => Platform,
        ("GET", "/api/admin/backup" | "/api/admin/export" | "/api/admin/cluster") => Platform,
        ("GET", "/api/usage") => Anyone,
        ("GET", "/metrics") => Nobody,
        ("GET", "/api/logs" | "/api/logs/{trace_id}" | "/api/analytics") => Anyone,
        ("GET", "/api/tools" | "/api/tools/{tool_id}") => Anyone,
        ("POST", "/api/tools" | "/api/tools/execute") => Admin,
        ("PATCH" | "DELETE", "/api/tools/{tool_id}") => Admin,
        ("GET", "/api/integrations" | "/api/integrations/{integration_id}") => Member,
        ("POST", "/api/integrations") => Admin,
        ("DELETE", "/api/integrations/{integration_id}") => Admin,
        ("GET", "/api/agents/{agent_id}/integrations") => Member,
        ("POST" | "DELETE", "/api/agents/{agent_id}/integrations") => Admin,
        ("GET", "/api/mcps/managed-oauth/begin" | "/api/mcps/managed-oauth/callback") => Nobody,
        ("POST", "/api/mcps/managed-oauth/begin") => Nobody,
        ("POST", "/api/mcps/managed-oauth/start" | "/api/mcps/managed-oauth/disconnect") => Jwt,
        ("GET", "/api/mcps" | "/api/mcps/{mcp_id}") => Member,
        ("POST", "/api/mcps" | "/api/mcps/{mcp_id}/test") => Admin,
        ("PATCH" | "DELETE", "/api/mcps/{mcp_id}") => Admin,
        (
            "GET",
            "/api/agents/{agent_id}/mcps" | "/api/agents/{agent_id}/mcps/{mcp_id}/services",
        ) => Member,
        (
            "POST" | "DELETE" | "PATCH",
            "/api/agents/{agent_id}/mcps" | "/api/agents/{agent_id}/mcps/{mcp_id}/services",
        ) => Admin,
        // The walk's document is the org's (knowledge.md §6): members read,
        // admins write; a thread's document is `knowledge.rs`'s to check.
        ("GET", "/api/knowledge") => Member,
        (
            "GET",
            "/api/knowledge/{document_id}"
            | "/api/knowledge/{document_id}/chunks"
            | "/api/knowledge/{document_id}/file",
        ) => Member,
        ("POST", "/api/knowledge/upload" | "/api/knowledge/{document_id}/reindex") => Admin,
        ("DELETE", "/api/knowledge/{document_id}") => Admin,
        // Without a threadId: the org's documents (end users: 403).
        ("POST", "/api/knowledge/search") => Member,
        ("GET", "/api/knowledge/embeddings") => Member,
        ("PUT" | "DELETE", "/api/knowledge/embeddings") => Admin,
        ("GET", "/api/agents/{agent_id}/knowledge") => Member,
        ("PUT", "/api/agents/{agent_id}/knowledge") => Admin,
        ("GET", "/api/agents/{agent_id}/memory") => Member,
        ("PUT", "/api/agents/{agent_id}/memory") => Admin,
        // End users on their own memories (knowledge.md §6).
        ("POST", "/api/agents/{agent_id}/memory") => Anyone,
        ("GET" | "POST" | "DELETE", "/api/agents/{agent_id}/memories") => Anyone,
        ("DELETE", "/api/agents/{agent_id}/memories/{memory_id}") => Anyone,
        ("DELETE", "/api/memories") => Admin,
        // A chat shows them (agent-extras.md: a deliberate refinement).
        ("GET", "/api/agents/{agent_id}/suggestions") => Anyone,
        // Projects (agent-extras.md Routes): end users on the projects
        // they are members of, as their role allows (`projects.rs`).
        (
            _,
            "/api/projects" | "/api/projects/{project_id}" | "/api/projects/{project_id}/members",
        ) => Anyone,
        ("PUT" | "POST", "/api/agents/{agent_id}/suggestions") => Admin,
        // Skills (agent-extras.md Routes): the library read A M, changed A;
        // an agent's attachments read A M, changed A; a runner's A M.
        ("GET", "/api/skills" | "/api/skills/browse" | "/api/skills/{skill_id}") => Member,
        ("POST", "/api/skills" | "/api/skills/{skill_id}/sync") => Admin,
        ("DELETE", "/api/skills/{skill_id}") => Admin,
        (
            "GET",
            "/api/agents/{agent_id}/skills"
            | "/api/agents/{agent_id}/web"
            | "/api/agents/{agent_id}/delegated",
        ) => Member,
        ("PUT", "/api/agents/{agent_id}/web" | "/api/agents/{agent_id}/delegated") => Admin,
        ("POST" | "DELETE", "/api/agents/{agent_id}/skills") => Admin,
        (_, "/api/runners/{runner_id}/skills") => Member,
        ("GET", "/api/agents/{agent_id}/scheduled-tasks") => Member,
        ("PUT", "/api/agents/{agent_id}/scheduled-tasks") => Admin,
        // Runners (runners.md Routes): reads A M, writes A; starting,
        // cancelling and resuming a run A M.
        (
            "GET",
            "/api/runners"
            | "/api/runners/{runner_id}"
            | "/api/runners/{runner_id}/budget"
            | "/api/runners/{runner_id}/suggestions"
            | "/api/runners/{runner_id}/runs"
            | "/api/runners/{runner_id}/runs/{run_id}"
            | "/api/runners/{runner_id}/runs/{run_id}/events",
        ) => Member,
        ("POST", "/api/runners") => Admin,
        ("PATCH" | "DELETE", "/api/runners/{runner_id}") => Admin,
        ("GET", "/api/runners/{runner_id}/triggers" | "/api/runners/{runner_id}/deliveries") => {
            Member
        }
        ("POST", "/api/runners/{runner_id}/triggers") => Admin,
        ("PATCH" | "DELETE", "/api/runners/{runner_id}/triggers/{trigger_id}") => Admin,
        // The path token is the credential (P).
        ("POST", "/api/runners/webhooks/{token}") => Nobody,
        // The button's own checks, or the view token, are the credential (P).
        (
            "GET",
            "/api/runners/{runner_id}/button"
            | "/api/runners/{runner_id}/button/runs/{run_id}/events"
            | "/api/runners/{runner_id}/embed.js",
        ) => Nobody,
        ("POST", "/api/runners/{runner_id}/button") => Nobody,
        ("PUT", "/api/runners/{runner_id}/budget" | "/api/runners/{runner_id}/suggestions") => {
            Admin
        }
        // Generating spends a model call (and may store): a write.
        ("POST", "/api/runners/{runner_id}/suggestions") => Admin,
        (
            "POST",
            "/api/runners/{runner_id}/runs"
            | "/api/runners/{runner_id}/runs/{run_id}/cancel"
            | "/api/runners/{runner_id}/runs/{run_id}/resume",
        ) => Member,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Anonymous,
    User,
    Member,
    AdminKey,
    AdminJwt,
    PlatformKey,
    /// A visitor of the walk's publication.
    Visitor,
}

/// Every kind of caller the walk tries.
const KINDS: [Kind; 7] = [
    Kind::Anonymous,
    Kind::User,
    Kind::Member,
    Kind::AdminKey,
    Kind::AdminJwt,
    Kind::PlatformKey,
    Kind::Visitor,
];

/// The walk's publication's slug.
const SLUG: &str = "walked-slug";

fn admits(needs: Needs, kind: Kind) -> bool {
    use Kind::*;
    match needs {
        Needs::Nobody => true,
        Needs::Anyone => !matches!(kind, Anonymous | Visitor),
        Needs::Member => matches!(kind, Member | AdminKey | AdminJwt | PlatformKey),
        Needs::Admin => matches!(kind, AdminKey | AdminJwt | PlatformKey),
        Needs::Platform => kind == PlatformKey,
        Needs::Jwt => matches!(kind, User | AdminJwt),
        Needs::Visitor => kind == Visitor,
    }
}

/// A plausible body for each route (valid where the route takes one).
fn body_for(method: &str, path: &str, [agent, thread, todo, mcp]: [&str; 4]) -> Option<Value> {
    Some(match (method, path) {
        ("POST" | "DELETE", "/api/agents/{agent_id}/mcps") => json!({"mcpServerId": mcp}),
        // No database in the walk: the create is refused (422) after the
        // role check, and the other routes name an integration that is not
        // there (404).
        ("POST", "/api/integrations") => {
            json!({"name": "walk", "kind": "postgres", "connectionString": "host=/tmp dbname=x"})
        }
        ("POST" | "DELETE", "/api/agents/{agent_id}/integrations") => {
            json!({"integrationId": "0190d1f2-0000-7000-8000-000000000000"})
        }
        ("PUT", "/api/agents/{agent_id}/plan") => json!({"enabled": true}),
        ("PUT", "/api/agents/{agent_id}/marketplace") => json!({"title": "walk"}),
        ("PUT", "/api/agents/{agent_id}/marketplace/capabilities") => {
            json!({"capabilities": [{"name": "walk", "label": "Walk"}]})
        }
        ("POST", "/api/marketplace/official/use") => json!({"templateId": "general-assistant"}),
        // No vendor in the walk: refused (422) after the role check.
        ("POST", "/api/agents/{agent_id}/channels") => {
            json!({"kind": "telegram", "credentials": {}})
        }
        ("PATCH", "/api/agents/{agent_id}/channels/{channel_id}") => json!({"name": "walk"}),
        (
            "POST",
            "/api/agents/{agent_id}/marketplace/generate-description"
            | "/api/agents/{agent_id}/marketplace/detect-capabilities",
        ) => json!({}),
        ("POST", "/api/orgs/settings") => json!({"allowedEmbedDomains": ["https://a.example.com"]}),
        ("POST" | "PATCH", "/api/agents/{agent_id}/publish") => json!({"description": "walk"}),
        ("PUT", "/api/agents/{agent_id}/multiplayer") => json!({"maxParticipants": 5}),
        ("POST", "/api/plans") => json!({"threadId": thread, "title": "walk"}),
        ("POST", "/api/knowledge/search") => json!({"query": "walk"}),
        ("PUT", "/api/knowledge/embeddings") => {
            json!({"baseUrl": "http://127.0.0.1:9/v1", "model": "walk"})
        }
        ("PUT", "/api/agents/{agent_id}/knowledge") => json!({"topK": 5}),
        ("PUT", "/api/agents/{agent_id}/memory") => json!({"injectCount": 3}),
        ("POST", "/api/agents/{agent_id}/memory") => json!({"query": "walk"}),
        ("POST", "/api/agents/{agent_id}/memories") => json!({"content": "walk"}),
        ("PATCH", "/api/plans/{plan_id}") => json!({"title": "changed"}),
        ("POST", "/api/plans/{plan_id}/todos") => json!({"content": "walk"}),
        ("PATCH", "/api/plans/{plan_id}/todos/{todo_id}") => json!({"status": "done"}),
        ("POST" | "DELETE", "/api/plans/{plan_id}/todos/{todo_id}/deps") => {
            json!({"dependsOn": [todo]})
        }
        ("POST", "/api/agents") => json!({"name": "walk"}),
        ("POST", "/api/projects") => json!({"name": "walk"}),
        ("PATCH", "/api/projects/{project_id}") => json!({"name": "changed"}),
        ("POST", "/api/projects/{project_id}/members") => {
            json!({"userId": "carol", "role": "viewer"})
        }
        ("DELETE", "/api/projects/{project_id}/members") => json!({"userId": "carol"}),
        ("POST", "/api/runners") => {
            json!({"agentId": agent, "name": "walk", "instructions": "Say {{ input.word }}"})
        }
        ("PATCH", "/api/runners/{runner_id}") => json!({"description": "changed"}),
        ("PUT", "/api/runners/{runner_id}/budget") => json!({"maxSteps": 10}),
        ("PUT", "/api/runners/{runner_id}/suggestions") => {
            json!({"suggestions": [{"label": "Try it", "input": {}}]})
        }
        ("POST", "/api/runners/{runner_id}/suggestions") => json!({"count": 1}),
        ("PUT", "/api/agents/{agent_id}/suggestions") => json!({"suggestions": ["Hi"]}),
        ("POST", "/api/agents/{agent_id}/suggestions") => json!({"count": 1}),
        ("POST", "/api/runners/{runner_id}/triggers") => json!({"kind": "webhook"}),
        ("PATCH", "/api/runners/{runner_id}/triggers/{trigger_id}") => json!({"enabled": true}),
        ("POST", "/api/runners/webhooks/{token}") => json!({"word": "walk"}),
        ("POST", "/api/runners/{runner_id}/button") => json!({"input": {}}),
        ("PUT", "/api/agents/{agent_id}/scheduled-tasks") => json!({"tasks": []}),
        ("PUT", "/api/agents/{agent_id}/web") => json!({"enabled": false}),
        ("PUT", "/api/agents/{agent_id}/computer") => json!({"enabled": false}),
        ("POST", "/api/code-agents") => json!({"agentId": agent, "name": "walk",
                                               "repository": {"url": "https://git.example/r.git"}}),
        ("PATCH", "/api/code-agents/{code_agent_id}") => json!({"description": "changed"}),
        // An unknown code agent: 404 after the role check.
        ("POST", "/api/code-sessions") => {
            json!({"codeAgentId": "0190d1f2-0000-7000-8000-000000000000"})
        }
        ("PATCH", "/api/code-sessions/{code_session_id}") => json!({"title": "changed"}),
        ("POST", "/api/code-sessions/{code_session_id}/messages") => json!({"content": "hi"}),
        ("POST", "/api/code-sessions/{code_session_id}/cancel") => json!({}),
        ("PUT", "/api/agents/{agent_id}/delegated") => json!({"delegates": []}),
        // An unknown skill: refused (422, 404) after the role check.
        ("POST", "/api/skills") => json!({"source": "catalog", "key": "no-such-skill"}),
        (
            "POST" | "DELETE",
            "/api/agents/{agent_id}/skills" | "/api/runners/{runner_id}/skills",
        ) => json!({"skillId": "0190d1f2-0000-7000-8000-000000000000"}),
        ("POST", "/api/runners/{runner_id}/runs") => json!({"input": {"word": "walk"}}),
        ("POST", "/api/runners/{runner_id}/runs/{run_id}/resume") => json!({}),
        ("PATCH", "/api/agents/{agent_id}") => json!({"description": "changed"}),
        ("PUT", "/api/agents/{agent_id}/credentials") => {
            json!({"enabled": true, "resolverUrl": "https://resolver.example/k", "rotateSecret": true})
        }
        ("PUT", "/api/agents/{agent_id}/compaction") => json!({"enabled": true}),
        ("POST", "/api/threads") => json!({"agentId": agent}),
        ("PATCH", "/api/threads/{thread_id}") => json!({"title": "changed"}),
        ("POST", "/api/threads/{thread_id}/messages") => json!({"content": "hi"}),
        ("POST", "/api/threads/{thread_id}/stop") => json!({}),
        ("POST" | "DELETE", "/api/threads/{thread_id}/participants") => json!({"userId": "carol"}),
        ("POST", "/api/keys") => json!({"name": "walk"}),
        ("POST", "/api/orgs") => json!({"name": "walk"}),
        ("POST", "/api/tools") => json!({"name": format!("walk-{}", &agent[agent.len() - 12..]),
                                         "url": "http://127.0.0.1:9/hook"}),
        ("PATCH", "/api/tools/{tool_id}") => json!({"description": "changed"}),
        ("POST", "/api/mcps") => json!({"name": "walk", "url": "http://127.0.0.1:9/mcp"}),
        ("PATCH", "/api/mcps/{mcp_id}") => json!({"name": "changed"}),
        ("POST", "/api/mcps/{mcp_id}/test") => json!({}),
        ("POST", "/api/mcps/managed-oauth/start" | "/api/mcps/managed-oauth/disconnect") => {
            json!({"mcpServerId": mcp})
        }
        ("PATCH", "/api/agents/{agent_id}/mcps/{mcp_id}/services") => json!({"enabled": null}),
        ("POST", "/api/public/chat/{slug}/session") => json!({}),
        ("POST", "/api/public/chat/{slug}/threads") => json!({"displayName": "Walker"}),
        ("POST", "/api/public/chat/{slug}/threads/{thread_id}/messages") => {
            json!({"content": "hi"})
        }
        (
            "POST",
            "/api/public/chat/{slug}/threads/{thread_id}/stop"
            | "/api/public/chat/{slug}/threads/{thread_id}/invite",
        ) => {
            json!({})
        }
        ("POST", "/api/public/chat/{slug}/threads/{thread_id}/join") => {
            json!({"code": "wrong", "displayName": "Walker"})
        }
        ("DELETE", "/api/public/chat/{slug}/threads/{thread_id}/participants") => {
            json!({"participantId": "0000000000000000"})
        }
        ("POST", "/api/tools/execute") => {
            json!({"name": format!("hook-{}", &agent[agent.len() - 12..]), "arguments": {}})
        }
        _ => return None,
    })
}

struct Callers {
    org: String,
    member_key: String,
    admin_key: String,
}

/// A new visitor of the walk's publication.
async fn visitor(server: &Server) -> Api {
    let session = server
        .anonymous()
        .post(&format!("/api/public/chat/{SLUG}/session"), json!({}))
        .await
        .expect(200);
    server.api(session["token"].as_str().unwrap())
}

/// A thread of `visitor`'s (through the public chat).
async fn visitor_thread(visitor: &Api) -> String {
    visitor
        .post(
            &format!("/api/public/chat/{SLUG}/threads"),
            json!({"displayName": "Walker"}),
        )
        .await
        .expect(200)["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

impl Callers {
    async fn api(&self, server: &Server, kind: Kind) -> Api {
        match kind {
            Kind::Visitor => visitor(server).await,
            Kind::Anonymous => server.anonymous(),
            Kind::User => server.api(&jwt(
                json!({"sub": "alice", "exp": exp_in(600), "org_id": self.org}),
            )),
            Kind::AdminJwt => server.api(&jwt(
                json!({"sub": "boss", "exp": exp_in(600), "org_id": self.org, "role": "admin"}),
            )),
            Kind::Member => server.api(&self.member_key),
            Kind::AdminKey => server.api(&self.admin_key),
            Kind::PlatformKey => server.admin(),
        }
    }
}

#[tokio::test]
async fn every_route_admits_exactly_the_roles_of_the_contract() {
    // Tools call a closed local port: refused at once, no DNS involved.
    // Every visitor is new, and mints are not limited.
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1:9")
            .env("CONFER_PUBLIC_MINTS_PER_IP_PER_MIN", "0"),
    );
    let root = server.admin();
    let published = root.agent("published").await;
    root.post(
        &format!("/api/agents/{published}/publish"),
        json!({"slug": SLUG, "mode": "multiplayer",
               "limits": {"ipMessagesPerMinute": 6000, "visitorMessagesPerMinute": 600}}),
    )
    .await
    .expect(201);
    let org = root.org_id().await;
    let member_key = root
        .post("/api/keys", json!({"name": "member", "role": "member"}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let admin_key = root
        .post("/api/keys", json!({"name": "admin", "role": "admin"}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let callers = Callers {
        org,
        member_key,
        admin_key,
    };
    let routes = confer::api::MOUNTED;
    assert!(routes.len() >= 25, "{routes:?}");
    for (method, path) in routes {
        let needs = needs(method, path)
            .unwrap_or_else(|| panic!("route {method} {path} has no entry in the role table"));
        let public = needs == Needs::Visitor;
        for kind in KINDS {
            let api = callers.api(&server, kind).await;
            // Fresh resources for each call, so deletes do not interfere.
            let agent = root.agent("walked").await;
            let user = callers.api(&server, Kind::User).await;
            let own_thread = if public && kind == Kind::Visitor {
                visitor_thread(&api).await
            } else if public {
                visitor_thread(&visitor(&server).await).await
            } else if kind == Kind::User {
                user.thread(&agent, json!({"kind": "multiplayer"})).await
            } else {
                root.thread(&agent, json!({"kind": "multiplayer"})).await
            };
            let key = root
                .post("/api/keys", json!({"name": "victim"}))
                .await
                .expect(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let tool = root
                .post(
                    "/api/tools",
                    json!({"name": format!("hook-{}", &agent[agent.len() - 12..]), "url": "http://127.0.0.1:9/hook"}),
                )
                .await
                .expect(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            // An MCP server attached to the agent, for the MCP routes.
            let mcp = if path.contains("mcp") {
                let id = root
                    .post(
                        "/api/mcps",
                        json!({"name": "walked", "url": "http://127.0.0.1:9/mcp"}),
                    )
                    .await
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                root.post(
                    &format!("/api/agents/{agent}/mcps"),
                    json!({"mcpServerId": id}),
                )
                .await
                .expect(201);
                id
            } else {
                String::new()
            };
            // An org document, for the knowledge routes.
            let document = if path.contains("{document_id}") {
                root.multipart(
                    "/api/knowledge/upload",
                    &[],
                    &[("walk.md", format!("# Walk\n\n{agent}").as_bytes())],
                )
                .await
                .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            } else {
                String::new()
            };
            // A runner of the agent with one run, for the runner routes.
            let (runner, run) = if path.contains("{runner_id}") {
                let runner = root
                    .post(
                        "/api/runners",
                        json!({"agentId": agent, "name": "walked", "instructions": "hi"}),
                    )
                    .await
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                let run = root
                    .post(&format!("/api/runners/{runner}/runs"), json!({}))
                    .await
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                (runner, run)
            } else {
                (String::new(), String::new())
            };
            // A code agent of the agent, for its routes.
            let code_agent = if path.contains("{code_agent_id}") {
                root.post(
                    "/api/code-agents",
                    json!({"agentId": agent, "name": "walked",
                           "repository": {"url": "https://git.example/r.git"}}),
                )
                .await
                .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            } else {
                String::new()
            };
            // A project the caller owns (an end user's own; the org's for
            // the others, who act as owners of every project).
            let project = if path.contains("{project_id}") {
                let owner = if kind == Kind::User { &user } else { &root };
                owner
                    .post("/api/projects", json!({"name": "walked"}))
                    .await
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            } else {
                String::new()
            };
            let plans = path.starts_with("/api/plans");
            // A plan of two todos, the second after the first.
            let plan_of = |thread: String| {
                let root = &root;
                async move {
                    if !plans {
                        return (thread, String::new(), [String::new(), String::new()]);
                    }
                    let plan = root
                        .post(
                            "/api/plans",
                            json!({"threadId": thread, "title": "walked",
                                   "todos": [{"content": "a"}, {"content": "b", "dependsOn": [0]}]}),
                        )
                        .await
                        .expect(201);
                    let todo = |n: usize| plan["todos"][n]["id"].as_str().unwrap().to_owned();
                    let id = plan["id"].as_str().unwrap().to_owned();
                    (thread, id, [todo(1), todo(0)])
                }
            };
            let own = plan_of(own_thread).await;
            let concrete = |(thread, plan, todos): &(String, String, [String; 2])| {
                let mut concrete = path
                    .replace("{agent_id}", &agent)
                    .replace("{thread_id}", thread)
                    .replace("{key_id}", &key)
                    .replace("{tool_id}", &tool)
                    .replace("{mcp_id}", &mcp)
                    .replace("{integration_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{plan_id}", plan)
                    .replace("{todo_id}", &todos[0])
                    .replace("{document_id}", &document)
                    .replace("{runner_id}", &runner)
                    .replace("{project_id}", &project)
                    .replace("{code_agent_id}", &code_agent)
                    .replace("{code_session_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{run_id}", &run)
                    .replace("{trigger_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{skill_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{channel_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{token}", "whk_walk")
                    .replace("{memory_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{trace_id}", "0190d1f2-0000-7000-8000-000000000000")
                    .replace("{file:.*}", "index.html")
                    .replace("{slug}", SLUG)
                    .replace("{name}", "missing.0000000000.js");
                if *path == "/api/threads" && *method == "GET" {
                    concrete.push_str(&format!("?agentId={agent}"));
                }
                if *path == "/api/plans" && *method == "GET" {
                    concrete.push_str(&format!("?threadId={thread}"));
                }
                concrete
            };
            let method_of = Method::from_bytes(method.as_bytes()).unwrap();
            let body_on = |(thread, _, todos): &(String, String, [String; 2])| {
                body_for(method, path, [&agent, thread, &todos[1], &mcp])
            };
            let reply = if *path == "/api/knowledge/upload" {
                let content = format!("# Uploaded\n\n{agent} {kind:?}");
                api.multipart(path, &[], &[("walk.md", content.as_bytes())])
                    .await
            } else {
                api.request(method_of.clone(), &concrete(&own), body_on(&own))
                    .await
            };
            let status = reply.status.as_u16();
            if admits(needs, kind) {
                assert!(
                    status != 401 && status != 403,
                    "{kind:?} must be admitted to {method} {path}: {status} {}",
                    reply.body
                );
            } else if kind == Kind::Anonymous || public {
                // Keys and JWTs are no credential on the public routes.
                assert_eq!(status, 401, "{kind:?} {method} {path}: {}", reply.body);
            } else if kind == Kind::Visitor {
                assert_eq!(status, 403, "{kind:?} {method} {path}: {}", reply.body);
                let detail = reply.body["detail"].as_str().unwrap_or_default();
                assert!(
                    detail.contains("/api/public/chat/"),
                    "names the prefix: {detail}"
                );
            } else {
                assert_eq!(status, 403, "{kind:?} {method} {path}: {}", reply.body);
                assert_eq!(reply.body["error"], "FORBIDDEN");
                let detail = reply.body["detail"].as_str().unwrap_or_default();
                assert!(detail.contains("requires"), "names the role: {detail}");
            }
            // A visitor reaches only its own threads of its publication:
            // another visitor's, or an org thread, is 404.
            if kind == Kind::Visitor && public && path.contains("{thread_id}") {
                let others = visitor_thread(&visitor(&server).await).await;
                let org_thread = root.thread(&published, json!({})).await;
                for foreign in [others, org_thread] {
                    let foreign = (foreign, String::new(), [String::new(), String::new()]);
                    let reply = api
                        .request(method_of.clone(), &concrete(&foreign), body_on(&foreign))
                        .await;
                    assert_eq!(
                        reply.status.as_u16(),
                        404,
                        "visitor on another's thread: {method} {path}: {}",
                        reply.body
                    );
                }
            }
            // An end user reaches only its own threads (and their plans):
            // another's is 403.
            if kind == Kind::User && !public && (path.contains("{thread_id}") || plans) {
                let foreign = plan_of(root.thread(&agent, json!({})).await).await;
                let reply = api
                    .request(method_of, &concrete(&foreign), body_on(&foreign))
                    .await;
                assert_eq!(
                    reply.status.as_u16(),
                    403,
                    "user on another's thread: {method} {path}: {}",
                    reply.body
                );
            }
        }
    }
}

#[tokio::test]
async fn an_end_user_cannot_take_over_an_agent() {
    // The reviewer's attack: a plain user JWT rotates the resolver's signing
    // secret to learn it, rewrites the preamble and deletes the agent.
    let server = Server::start();
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("Guarded").await;
    let configured = admin
        .put(
            &format!("/api/agents/{agent}/credentials"),
            json!({"enabled": true, "resolverUrl": "https://resolver.example/keys"}),
        )
        .await
        .expect(200);
    assert!(configured["signing_secret"].is_string());
    let alice = server.api(&jwt(
        json!({"sub": "alice", "exp": exp_in(600), "org_id": org}),
    ));
    let detail = alice
        .put(
            &format!("/api/agents/{agent}/credentials"),
            json!({"enabled": true, "resolverUrl": "https://evil.example/steal", "rotateSecret": true}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    assert!(detail.contains("admin"), "{detail}");
    alice
        .get(&format!("/api/agents/{agent}/credentials"))
        .await
        .expect_error(403, "FORBIDDEN");
    alice
        .patch(
            &format!("/api/agents/{agent}"),
            json!({"stablePreamble": "obey alice"}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    alice
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect_error(403, "FORBIDDEN");
    // Nothing changed.
    let now = admin
        .get(&format!("/api/agents/{agent}/credentials"))
        .await
        .expect(200);
    assert_eq!(now["resolver_url"], "https://resolver.example/keys");
    assert!(now.get("signing_secret").is_none());
    let record = admin.get(&format!("/api/agents/{agent}")).await.expect(200);
    assert_eq!(record["stable_preamble"], "");
    // She still reads the agent, as the contract allows.
    alice.get(&format!("/api/agents/{agent}")).await.expect(200);

    // A member key reads configuration but changes nothing.
    let member = admin
        .post("/api/keys", json!({"name": "m", "role": "member"}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let member = server.api(&member);
    member
        .get(&format!("/api/agents/{agent}/credentials"))
        .await
        .expect(200);
    member
        .patch(&format!("/api/agents/{agent}"), json!({"name": "mine"}))
        .await
        .expect_error(403, "FORBIDDEN");
    assert_eq!(
        admin.get(&format!("/api/agents/{agent}")).await.expect(200)["name"],
        "Guarded"
    );
}

#[tokio::test]
async fn jwt_claims_are_checked_as_configured() {
    let server = Server::start_with(
        Options::default()
            .env("CONFER_JWT_ISSUER", "https://idp.example")
            .env("CONFER_JWT_AUDIENCE", "chat-app"),
    );
    let org = server.admin().org_id().await;
    let token = |extra: Value| {
        let mut claims = json!({"sub": "u1", "exp": exp_in(600), "org_id": org,
            "iss": "https://idp.example", "aud": "chat-app"});
        claims
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        jwt(claims)
    };
    server
        .api(&token(json!({})))
        .get("/api/agents")
        .await
        .expect(200);
    for bad in [
        json!({"iss": "https://other.example"}),
        json!({"aud": "billing"}),
        json!({"nbf": exp_in(300)}),
        json!({"sub": "apikey:0190a1b2-0000-7000-8000-000000000000"}),
        // Identities Confer gives visitors, channel contacts and runs
        // (publishing.md "Callers").
        json!({"sub": "visitor:0190a1b2"}),
        json!({"sub": "ext:pub:alice"}),
        json!({"sub": "channel:slack:U1"}),
        json!({"sub": "schedule:daily"}),
        json!({"sub": "webhook:w1"}),
        json!({"sub": "button:b1"}),
    ] {
        server
            .api(&token(bad.clone()))
            .get("/api/agents")
            .await
            .expect_error(401, "UNAUTHORIZED");
    }
}

#[tokio::test]
async fn a_public_key_fixes_the_algorithm() {
    let key = rcgen::KeyPair::generate().unwrap(); // ECDSA P-256
    let dir = tempfile::tempdir().unwrap();
    let pem_path = dir.path().join("idp.pem");
    std::fs::write(&pem_path, key.public_key_pem()).unwrap();
    let mut options = Options::default().env("CONFER_JWT_PUBLIC_KEY", pem_path.to_str().unwrap());
    options.jwt_secret = None;
    let server = Server::start_with(options);
    let org = server.admin().org_id().await;
    let claims = json!({"sub": "u1", "exp": exp_in(600), "org_id": org});
    let es256 = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256),
        &claims,
        &jsonwebtoken::EncodingKey::from_ec_pem(key.serialize_pem().as_bytes()).unwrap(),
    )
    .unwrap();
    server.api(&es256).get("/api/agents").await.expect(200);
    // The classic confusion: HS256 "signed" with the public key as secret.
    let confused = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(key.public_key_pem().as_bytes()),
    )
    .unwrap();
    server
        .api(&confused)
        .get("/api/agents")
        .await
        .expect_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn unknown_methods_are_405_with_allow() {
    let server = Server::start();
    let response = reqwest::Client::new()
        .put(format!("{}/api/agents", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    let allow = response
        .headers()
        .get("allow")
        .expect("Allow header")
        .to_str()
        .unwrap()
        .to_owned();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "METHOD_NOT_ALLOWED");
}

/// The scheme and role scopes `/openapi.json` states for `needs` (see
/// `src/api/openapi.rs`).
fn stated_scopes(needs: Needs) -> Option<(&'static str, Vec<&'static str>)> {
    match needs {
        Needs::Nobody => None,
        Needs::Anyone => Some(("bearer", vec![])),
        Needs::Member => Some(("bearer", vec!["member"])),
        Needs::Admin => Some(("bearer", vec!["admin"])),
        Needs::Platform => Some(("bearer", vec!["platform_admin"])),
        Needs::Jwt => Some(("bearer", vec!["jwt"])),
        Needs::Visitor => Some(("visitor", vec![])),
    }
}

#[tokio::test]
async fn the_api_description_states_the_role_of_every_route() {
    let server = Server::start();
    let doc = server.anonymous().get("/openapi.json").await.expect(200);
    let mut wrong = Vec::new();
    for (method, path) in confer::api::MOUNTED {
        let needs = needs(method, path).expect("in the role table");
        let operation = &doc["paths"][path.replace(":.*}", "}")][method.to_lowercase()];
        let stated = operation["security"].as_array().and_then(|requirements| {
            requirements.iter().find_map(|r| {
                let (scheme, scopes) = r.as_object()?.iter().next()?;
                let scopes = scopes
                    .as_array()?
                    .iter()
                    .map(|s| s.as_str().unwrap_or_default().to_owned())
                    .collect::<Vec<_>>();
                Some((scheme.clone(), scopes))
            })
        });
        let expected = stated_scopes(needs).map(|(scheme, s)| {
            (
                scheme.to_owned(),
                s.iter().map(|s| (*s).to_owned()).collect(),
            )
        });
        if stated != expected {
            wrong.push(format!(
                "{method} {path}: states {stated:?}, admits {needs:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
