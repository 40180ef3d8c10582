//! What visitors do in public chats (`publishing.md` "Visitors" rules 3, 5,
//! 8, 12): multiplayer chats joined by link, the public tools, the thread
//! cap and the retention sweep.

use std::time::Duration;

use serde_json::json;

use crate::common::{Frame, Options, Server, done_of};
use crate::visitors::{publish, visit};

/// Multiplayer chats: an invite link joins, the cap holds, `rotate` kills
/// the old code, `owner` keeps invitations to owners, participants are
/// shown without their ids, and owners remove others while members may
/// only leave.
#[tokio::test]
async fn visitors_join_a_multiplayer_chat_by_link() {
    let server = Server::start();
    let admin = server.admin();
    let agent = publish(&admin, "together", json!({"mode": "multiplayer"})).await;
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"maxParticipants": 2}),
        )
        .await
        .expect(200);
    let owner = visit(&server, "together", json!({})).await;
    let detail = owner
        .api
        .post(&owner.path("/threads"), json!({}))
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("displayName"), "{detail}");
    let thread = owner.thread(json!({"displayName": "Ann"})).await;
    assert_eq!(thread["kind"], "multiplayer");
    assert_eq!(thread["role"], "owner");
    let id = thread["id"].as_str().unwrap();
    let invite = owner
        .api
        .post(&owner.path(&format!("/threads/{id}/invite")), json!({}))
        .await
        .expect(200);
    let url = invite["invite_url"].as_str().unwrap().to_owned();
    let (page, fragment) = url.split_once("#join=").unwrap();
    assert!(page.ends_with("/c/together"), "{url}");
    let (thread_part, code) = fragment.split_once('.').unwrap();
    assert_eq!(thread_part, id);

    let guest = visit(&server, "together", json!({})).await;
    let join = guest.path(&format!("/threads/{id}/join"));
    guest
        .api
        .post(&join, json!({"code": "wrong", "displayName": "Bo"}))
        .await
        .expect_error(404, "NOT_FOUND");
    // Not yet a participant: the thread is not found.
    guest
        .api
        .get(&guest.path(&format!("/threads/{id}")))
        .await
        .expect_error(404, "NOT_FOUND");
    // The same name is made unique.
    let joined = guest
        .api
        .post(&join, json!({"code": code, "displayName": "Ann"}))
        .await
        .expect(200);
    assert_eq!(joined["role"], "member");
    let people = guest
        .api
        .get(&guest.path(&format!("/threads/{id}/participants")))
        .await
        .expect(200);
    let names: Vec<&str> = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["display_name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Ann") && names.contains(&"Ann 2"),
        "{people}"
    );
    let text = people.to_string();
    assert!(!text.contains("visitor:"), "ids are hidden: {text}");
    let me = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["is_you"] == true)
        .unwrap()
        .clone();
    assert_eq!(me["display_name"], "Ann 2");

    // The third is past the cap of two.
    let third = visit(&server, "together", json!({})).await;
    third
        .api
        .post(
            &third.path(&format!("/threads/{id}/join")),
            json!({"code": code, "displayName": "Cy"}),
        )
        .await
        .expect_error(409, "CONFLICT");

    // A member may not remove the owner, but may leave.
    let owner_entry = people["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["is_you"] == false)
        .unwrap()
        .clone();
    let members = guest.path(&format!("/threads/{id}/participants"));
    guest
        .api
        .delete_with(&members, json!({"participantId": owner_entry["id"]}))
        .await
        .expect_error(403, "FORBIDDEN");

    // Under `owner`, a member gets no invite link; the owner does.
    admin
        .put(
            &format!("/api/agents/{agent}/multiplayer"),
            json!({"whoCanInvite": "owner"}),
        )
        .await
        .expect(200);
    guest
        .api
        .post(&guest.path(&format!("/threads/{id}/invite")), json!({}))
        .await
        .expect_error(403, "FORBIDDEN");
    // Rotating kills the old code.
    let rotated = owner
        .api
        .post(
            &owner.path(&format!("/threads/{id}/invite")),
            json!({"rotate": true}),
        )
        .await
        .expect(200);
    assert_ne!(rotated["invite_url"], invite["invite_url"]);
    guest
        .api
        .delete_with(&members, json!({"participantId": me["id"]}))
        .await
        .expect(200);
    guest
        .api
        .post(&join, json!({"code": code, "displayName": "Bo"}))
        .await
        .expect_error(404, "NOT_FOUND");
    let new_code = rotated["invite_url"]
        .as_str()
        .unwrap()
        .rsplit_once('.')
        .unwrap()
        .1
        .to_owned();
    guest
        .api
        .post(&join, json!({"code": new_code, "displayName": "Bo"}))
        .await
        .expect(200);
    // A single chat has no invitations.
    publish(&admin, "alone", json!({})).await;
    let solo = visit(&server, "alone", json!({})).await;
    let thread = solo.thread(json!({})).await;
    solo.api
        .post(
            &solo.path(&format!(
                "/threads/{}/invite",
                thread["id"].as_str().unwrap()
            )),
            json!({}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
}

/// A public chat runs only the tools its publication lists: the vendor is
/// offered only those, a webhook not listed is never called from the chat
/// (an API send calls it), a listed one is, with the visitor as `userId`;
/// the visitor's stream carries no arguments or results.
#[tokio::test]
async fn a_public_chat_runs_only_its_public_tools() {
    use crate::mock::{Reply, fixture};
    let (vendor, hooks, server) = crate::org_tools::rig().await;
    let admin = server.admin();
    for name in ["get_weather", "get_time"] {
        crate::org_tools::tool(&admin, &hooks, name, json!({})).await;
    }
    let agent = admin
        .agent_with(json!({"name": "Tooled", "defaultModel": "openai/gpt-4.1"}))
        .await;
    admin
        .post(
            &format!("/api/agents/{agent}/publish"),
            json!({"slug": "weather", "publicTools": ["get_weather"]}),
        )
        .await
        .expect(201);
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let guest = visit(&server, "weather", json!({})).await;
    let thread = guest.thread(json!({})).await;
    let frames = guest
        .say(thread["id"].as_str().unwrap(), "Weather in Paris?")
        .await;
    assert_eq!(done_of(&frames)["ok"], true);

    let requests = vendor.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["get_weather"]);
    let calls = hooks.requests();
    assert_eq!(calls.len(), 1, "get_time was never called");
    assert_eq!(calls[0].body["toolName"], "get_weather");
    let visitor = format!("visitor:{}", guest.session["visitor_id"].as_str().unwrap());
    assert_eq!(calls[0].body["userId"], visitor);

    let shown: Vec<&Frame> = frames
        .iter()
        .filter(|f| f.event.starts_with("tool_"))
        .collect();
    assert!(!shown.is_empty());
    for frame in &shown {
        let text = frame.data.to_string();
        assert!(
            !text.contains("Paris") && !text.contains("sunny") && !text.contains("arguments"),
            "{}: {text}",
            frame.event
        );
    }
    let call = frames.iter().find(|f| f.event == "tool_call").unwrap();
    assert_eq!(
        call.data,
        json!({"tool": {"id": "call_A", "name": "get_weather"}})
    );

    // An API send on the same agent offers and calls both.
    hooks.push(Reply::json(200, json!({"value": "sunny"})));
    hooks.push(Reply::json(200, json!({"value": "noon"})));
    vendor.push(Reply::stream(fixture("openai_tool_calls.sse")));
    vendor.push(Reply::stream(fixture("openai_text.sse")));
    let org_thread = admin.thread(&agent, json!({})).await;
    let frames = admin
        .say(&org_thread, json!({"content": "Weather in Paris?"}))
        .await;
    assert_eq!(done_of(&frames)["ok"], true);
    let names: Vec<String> = hooks
        .requests()
        .iter()
        .map(|c| c.body["toolName"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"get_time".to_owned()), "{names:?}");
}

/// A chat holds at most `CONFER_PUBLIC_MAX_THREADS` threads (409), and a
/// visitor thread idle past `retentionDays` is deleted by the sweep, which
/// runs again at every start: one left idle while the server was down goes
/// at the next start, a recent one stays.
#[tokio::test]
async fn visitor_threads_are_capped_and_swept_after_their_retention() {
    let server = Server::start_with(Options::default().env("CONFER_PUBLIC_MAX_THREADS", "2"));
    let admin = server.admin();
    let agent = publish(&admin, "kept", json!({"retentionDays": 1})).await;
    let publication = admin
        .get(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    let org: confer_actors::OrgId = publication["org_id"].as_str().unwrap().parse().unwrap();
    let publication_id: confer_actors::PublicationId =
        publication["id"].as_str().unwrap().parse().unwrap();
    let agent_id: confer_actors::AgentId = agent.parse().unwrap();
    let (data, options) = server.kill();

    // Offline: an old visitor thread (the org has no thread yet, so its
    // clock takes the old time), then a recent one.
    let (old, recent) = {
        let store = confer::store::Store::open(data.path()).unwrap();
        let made = store
            .with_inner(|s| {
                let mut ids = Vec::new();
                for age in [chrono::TimeDelta::days(3), chrono::TimeDelta::zero()] {
                    let at = chrono::Utc::now() - age;
                    let thread = confer_actors::Thread {
                        id: confer_actors::ThreadId::new(),
                        org_id: org,
                        agent_id,
                        title: None,
                        kind: confer_actors::ThreadKind::Single,
                        active_profile: None,
                        metadata: Default::default(),
                        system_prompt_overlay: None,
                        resource_bindings: Vec::new(),
                        created_by: "visitor:0000".into(),
                        publication_id: Some(publication_id),
                        invite_generation: 0,
                        origin: None,
                        delegation: None,
                        project_id: None,
                        created_at: at,
                        updated_at: at,
                    };
                    ids.push(s.create_thread(&thread, None).unwrap().id);
                }
                Ok::<_, confer_actors::StoreError>(ids)
            })
            .unwrap();
        store.flush_now().unwrap();
        (made[0], made[1])
    };
    let server = Server::start_in(data, options);
    let admin = server.admin();
    crate::common::eventually(
        Duration::from_secs(10),
        "the old thread swept",
        async || {
            let reply = admin.get(&format!("/api/threads/{old}")).await;
            (reply.status == 404).then_some(())
        },
    )
    .await;
    admin
        .get(&format!("/api/threads/{recent}"))
        .await
        .expect(200);

    // Two threads held (the recent one and this one): the third is refused.
    let guest = visit(&server, "kept", json!({})).await;
    guest.thread(json!({})).await;
    let detail = guest
        .api
        .post(&guest.path("/threads"), json!({}))
        .await
        .expect_error(409, "CONFLICT");
    assert!(detail.contains("CONFER_PUBLIC_MAX_THREADS"), "{detail}");
    // Deleting one frees its place.
    admin
        .delete(&format!("/api/threads/{recent}"))
        .await
        .expect(200);
    guest.thread(json!({})).await;
}
