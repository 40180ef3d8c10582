//! Participants of multiplayer threads.

use serde_json::json;

use crate::common::Server;

#[tokio::test]
async fn participants_add_update_list_remove() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("A").await;
    let single = api.thread(&agent, json!({})).await;
    let multi = api.thread(&agent, json!({"kind": "multiplayer"})).await;

    let single_path = format!("/api/threads/{single}/participants");
    api.get(&single_path)
        .await
        .expect_error(422, "VALIDATION_ERROR");
    api.post(&single_path, json!({"userId": "u1"}))
        .await
        .expect_error(422, "VALIDATION_ERROR");

    let path = format!("/api/threads/{multi}/participants");
    assert_eq!(
        api.get(&path).await.expect(200),
        json!({"participants": []})
    );
    let added = api
        .post(&path, json!({"userId": "u1", "displayName": "Ann"}))
        .await
        .expect(201);
    assert_eq!(added["user_id"], "u1");
    assert_eq!(added["display_name"], "Ann");
    assert_eq!(added["role"], "member");
    assert!(added["joined_at"].is_string());
    let updated = api
        .post(&path, json!({"userId": "u1", "role": "owner"}))
        .await
        .expect(200);
    assert_eq!(updated["role"], "owner");
    assert_eq!(updated["joined_at"], added["joined_at"]);
    api.post(&path, json!({"userId": "u2"})).await.expect(201);
    api.post(&path, json!({"displayName": "x"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.post(&path, json!({"userId": "u3", "role": "boss"}))
        .await
        .expect_error(400, "BAD_REQUEST");
    api.post(&path, json!({"userId": ""}))
        .await
        .expect_error(422, "VALIDATION_ERROR");

    let listed = api.get(&path).await.expect(200);
    let users: Vec<&str> = listed["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["user_id"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["u1", "u2"]);

    assert_eq!(
        api.delete_with(&path, json!({"userId": "u2"}))
            .await
            .expect(200),
        json!({"ok": true})
    );
    api.delete_with(&path, json!({"userId": "u2"}))
        .await
        .expect_error(404, "NOT_FOUND");
    assert_eq!(
        api.get(&path).await.expect(200)["participants"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
