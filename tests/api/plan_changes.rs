//! How plans change over time (`plans.md`): `ready` and the automatic
//! statuses on a diamond, `If-Match` and concurrent writers, and the
//! agent's plan configuration.

use reqwest::Method;
use serde_json::json;

use crate::common::Server;
use crate::plans::{ids, plan_on};

#[tokio::test]
async fn ready_follows_a_diamond_and_the_plan_status_follows_its_todos() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Diamond").await;
    let thread = api.thread(&agent, json!({})).await;
    let plan = plan_on(
        &api,
        &thread,
        json!({"title": "Diamond", "status": "draft", "todos": [
            {"content": "top"},
            {"content": "left", "dependsOn": [0]},
            {"content": "right", "dependsOn": [0]},
            {"content": "bottom", "dependsOn": [1, 2]}]}),
    )
    .await;
    let id = plan["id"].as_str().unwrap();
    let [top, left, right, bottom] = <[String; 4]>::try_from(ids(&plan["todos"])).unwrap();
    let ready =
        || async { ids(&api.get(&format!("/api/plans/{id}/ready")).await.expect(200)["todos"]) };
    let set = |todo: String, status: &'static str| {
        let api = api.clone();
        async move {
            api.patch(
                &format!("/api/plans/{id}/todos/{todo}"),
                json!({"status": status}),
            )
            .await
            .expect(200)
        }
    };
    let status =
        || async { api.get(&format!("/api/plans/{id}")).await.expect(200)["status"].clone() };
    assert_eq!(ready().await, [top.as_str()]);
    api.patch(&format!("/api/plans/{id}"), json!({"status": "approved"}))
        .await
        .expect(200);
    set(top.clone(), "in_progress").await;
    assert_eq!(
        status().await,
        "in_progress",
        "a started todo starts the plan"
    );
    assert!(ready().await.is_empty());
    set(top.clone(), "done").await;
    assert_eq!(ready().await, [left.as_str(), right.as_str()]);
    set(left.clone(), "done").await;
    assert_eq!(ready().await, [right.as_str()]);
    set(right.clone(), "skipped").await;
    assert_eq!(ready().await, [bottom.as_str()]);
    set(bottom.clone(), "done").await;
    assert!(ready().await.is_empty());
    assert_eq!(status().await, "done", "every todo done or skipped");
    set(right.clone(), "pending").await;
    assert_eq!(
        status().await,
        "in_progress",
        "a reopened todo reopens the plan"
    );
    assert_eq!(ready().await, [right.as_str()]);
}

#[tokio::test]
async fn if_match_refuses_stale_writes_and_concurrent_changes_are_all_kept() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Racer").await;
    let thread = api.thread(&agent, json!({})).await;
    let plan = plan_on(
        &api,
        &thread,
        json!({"title": "Race", "todos": [{"content": "a"}]}),
    )
    .await;
    let id = plan["id"].as_str().unwrap().to_owned();
    let a = plan["todos"][0]["id"].as_str().unwrap().to_owned();
    let todo_path = format!("/api/plans/{id}/todos/{a}");

    // If-Match: the right version passes; a stale one is 412 with the
    // current object, which the client merges and retries.
    let ok = api
        .request_with(
            Method::PATCH,
            &todo_path,
            Some(json!({"content": "A"})),
            &[("If-Match", "\"1\"")],
        )
        .await;
    assert_eq!(ok.etag.as_deref(), Some("\"2\""));
    let stale = api
        .request_with(
            Method::PATCH,
            &todo_path,
            Some(json!({"status": "done"})),
            &[("If-Match", "1")],
        )
        .await
        .expect(412);
    assert_eq!(stale["error"], "PRECONDITION_FAILED");
    assert_eq!(stale["current"]["content"], "A");
    assert_eq!(stale["current"]["version"], 2);
    let plan_now = api.get(&format!("/api/plans/{id}")).await;
    let etag = plan_now.etag.clone().unwrap();
    let stale_plan = api
        .request_with(
            Method::DELETE,
            &format!("/api/plans/{id}"),
            None,
            &[("If-Match", "\"1\"")],
        )
        .await
        .expect(412);
    assert_eq!(stale_plan["current"]["id"], id.as_str());
    api.request_with(
        Method::PATCH,
        &todo_path,
        Some(json!({"status": "done"})),
        &[("If-Match", "\"2\"")],
    )
    .await
    .expect(200);
    api.request_with(
        Method::PATCH,
        &format!("/api/plans/{id}"),
        None,
        &[("If-Match", "x")],
    )
    .await
    .expect_error(400, "BAD_REQUEST");
    assert_ne!(etag, "\"1\"");

    // Without If-Match, 24 concurrent writes (new todos and a retitle each)
    // are all kept: every change is a compare-and-swap.
    let before = api.get(&format!("/api/plans/{id}")).await.expect(200)["version"]
        .as_u64()
        .unwrap();
    let writes = (0..24).map(|n| {
        let (api, id) = (api.clone(), id.clone());
        async move {
            if n % 2 == 0 {
                api.post(
                    &format!("/api/plans/{id}/todos"),
                    json!({"content": format!("t{n}")}),
                )
                .await
                .expect(201);
            } else {
                api.patch(
                    &format!("/api/plans/{id}"),
                    json!({"description": format!("d{n}")}),
                )
                .await
                .expect(200);
            }
        }
    });
    futures_util::future::join_all(writes).await;
    let after = api.get(&format!("/api/plans/{id}")).await.expect(200);
    assert_eq!(
        after["version"].as_u64().unwrap(),
        before + 24,
        "no write lost"
    );
    assert_eq!(after["todos"].as_array().unwrap().len(), 13);
}

#[tokio::test]
async fn the_agent_plan_configuration_is_partial_and_off_by_default() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Configured").await;
    let path = format!("/api/agents/{agent}/plan");
    let initial = api.get(&path).await.expect(200);
    assert_eq!(
        (
            initial["enabled"].clone(),
            initial["auto_create"].clone(),
            initial["require_approval"].clone()
        ),
        (json!(false), json!(false), json!(false))
    );
    assert_eq!(initial["agent_id"], agent.as_str());
    api.put(&path, json!({"enabled": true})).await.expect(200);
    let both = api
        .put(&path, json!({"requireApproval": true}))
        .await
        .expect(200);
    assert_eq!(
        (both["enabled"].clone(), both["require_approval"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(both["auto_create"], false);
}
