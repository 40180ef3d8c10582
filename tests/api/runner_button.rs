//! A runner's button (`runners.md` "Button page and embed.js") over HTTP:
//! the trigger's field rules, the page's framing policy and data block,
//! the POST's checks in the contract's order (415, 403, 429, 429
//! `BUDGET_EXHAUSTED`, 422), the view token's public events, and a button
//! run offered no client tool and only its public tools. The page in a
//! browser is `browser::a_runner_button_embeds_fills_and_streams`.

use std::time::Duration;

use reqwest::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, RETRY_AFTER, X_FRAME_OPTIONS};
use serde_json::{Value, json};

use crate::common::{Api, Server, eventually};
use crate::mock::{Reply, openai_answer, server_on_mock};

/// A runner of a new agent that says back `{{ input.topic }}`.
async fn runner(admin: &Api, extra: Value) -> String {
    let agent = admin.agent("Buttoned").await;
    let mut body = json!({"agentId": agent, "name": "Ask",
        "instructions": "Tell me about {{ input.topic }}.",
        "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}},
                        "required": ["topic"]}});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    admin.post("/api/runners", body).await.expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A POST to the button from `origin` (none: no header).
async fn press(
    server: &Server,
    runner: &str,
    origin: Option<&str>,
    body: &str,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{}/api/runners/{runner}/button", server.base))
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_owned());
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.send().await.unwrap()
}

async fn code(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    (
        status,
        body["error"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test]
async fn a_button_starts_public_runs_under_its_own_checks() {
    let server = Server::start();
    let admin = server.admin();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://*.example.com"]}),
        )
        .await
        .expect(200);
    let runner = runner(&admin, json!({})).await;
    let page_url = format!("{}/api/runners/{runner}/button", server.base);
    let http = reqwest::Client::new();

    // No button: the page is a 404 no one may frame, the launcher 404.
    let none = http.get(&page_url).send().await.unwrap();
    assert_eq!(none.status(), 404);
    let policy = none.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    let embed = format!("{}/api/runners/{runner}/embed.js", server.base);
    assert_eq!(http.get(&embed).send().await.unwrap().status(), 404);

    // The trigger's field rules.
    let triggers = format!("/api/runners/{runner}/triggers");
    for (body, field) in [
        (
            json!({"kind": "button", "allowedOrigins": ["https://other.org"]}),
            "allowedOrigins[0]",
        ),
        (json!({"kind": "button", "requireSignature": true}), "kind"),
        (json!({"kind": "button", "dailyRuns": 0}), "dailyRuns"),
        (json!({"kind": "webhook", "title": "x"}), "kind"),
    ] {
        let detail = admin
            .post(&triggers, body.clone())
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(field), "{body}: {detail}");
    }
    let button = admin
        .post(
            &triggers,
            json!({"kind": "button", "title": "Ask </script> us",
                   "allowedOrigins": ["https://app.example.com"],
                   "rateLimitPerMin": 3, "dailyRuns": 4}),
        )
        .await
        .expect(201);
    assert_eq!(button["kind"], "button");
    assert_eq!(button["public_tools"], json!([]));
    let snippet = button["embed_snippet"].as_str().unwrap();
    assert!(
        snippet.contains(&format!("/api/runners/{runner}/embed.js")),
        "{snippet}"
    );
    let tid = button["id"].as_str().unwrap().to_owned();
    admin
        .post(&triggers, json!({"kind": "button"}))
        .await
        .expect_error(409, "CONFLICT");
    let listed = admin.get(&triggers).await.expect(200);
    assert_eq!(listed[0]["kind"], "button", "{listed}");

    // The page: framed by Confer and the allowed origin, its data block
    // unable to close its element.
    let page = http.get(&page_url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers().get(X_FRAME_OPTIONS).is_none());
    let policy = page.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains("frame-ancestors 'self' https://app.example.com;"),
        "{policy}"
    );
    assert!(policy.contains("script-src 'self';"), "{policy}");
    let html = page.text().await.unwrap();
    assert!(html.contains("Ask \\u003c/script\\u003e us"), "{html}");
    assert!(!html.contains("Ask </script>"));
    let launcher = http.get(&embed).send().await.unwrap();
    assert_eq!(launcher.status(), 200);
    assert!(
        launcher
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );

    // The POST's checks, in order.
    let plain = http
        .post(&page_url)
        .header(CONTENT_TYPE, "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(code(plain).await, (415, "UNSUPPORTED_MEDIA_TYPE".into()));
    let evil = press(&server, &runner, Some("https://evil.example.org"), "{}").await;
    assert_eq!(code(evil).await, (403, "FORBIDDEN".into()));
    let allowed = Some("https://app.example.com");
    let invalid = press(&server, &runner, allowed, r#"{"input": {}}"#).await;
    let invalid: Value = {
        assert_eq!(invalid.status(), 422);
        invalid.json().await.unwrap()
    };
    assert!(invalid.to_string().contains("input"), "{invalid}");
    let started = press(
        &server,
        &runner,
        allowed,
        r#"{"input": {"topic": "tides"}}"#,
    )
    .await;
    assert_eq!(started.status(), 202);
    let started: Value = started.json().await.unwrap();
    let run = started["run_id"].as_str().unwrap().to_owned();
    let token = started["view_token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("rvt_") && token.len() == 36, "{token}");

    // The view token opens the run's public events, and only it.
    let events = format!("/api/runners/{runner}/button/runs/{run}/events");
    let anonymous = server.anonymous();
    anonymous.get(&events).await.expect_error(404, "NOT_FOUND");
    let wrong = format!("{events}?viewToken=rvt_{}", "0".repeat(32));
    anonymous.get(&wrong).await.expect_error(404, "NOT_FOUND");
    let mut stream = anonymous
        .open_get(&format!("{events}?viewToken={token}"))
        .await;
    assert_eq!(stream.status, 200);
    let mut names = Vec::new();
    let mut last = Value::Null;
    while let Some(frame) = stream.next_within(Duration::from_secs(30)).await {
        names.push(frame.event.clone());
        if frame.event == "run_status" {
            last = frame.data;
        }
    }
    assert_eq!(names[0], "run_status", "{names:?}");
    assert!(names.contains(&"token".to_owned()), "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| ["token", "run_status", "error", "done"].contains(&n.as_str())),
        "{names:?}"
    );
    assert_eq!(last["status"], "succeeded", "{last}");
    assert_eq!(last["output"], "Tell me about tides.");
    let stored = admin
        .get(&format!("/api/runners/{runner}/runs/{run}"))
        .await
        .expect(200);
    assert_eq!(stored["trigger"]["kind"], "button");
    assert_eq!(stored["trigger"]["id"], tid.as_str());
    assert!(stored.get("view_token").is_none(), "{stored}");

    // Three a minute from one address: the invalid one counted.
    let body = r#"{"input": {"topic": "more"}}"#;
    assert_eq!(press(&server, &runner, allowed, body).await.status(), 202);
    let limited = press(&server, &runner, allowed, body).await;
    assert!(limited.headers().contains_key(RETRY_AFTER));
    assert_eq!(code(limited).await, (429, "RATE_LIMITED".into()));
    // Four a day: two started; then until midnight UTC.
    admin
        .patch(
            &format!("{triggers}/{tid}"),
            json!({"rateLimitPerMin": 100}),
        )
        .await
        .expect(200);
    for _ in 0..2 {
        assert_eq!(press(&server, &runner, None, body).await.status(), 202);
    }
    let spent = press(&server, &runner, allowed, body).await;
    let wait: u64 = spent.headers()[RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&wait), "{wait}");
    assert_eq!(code(spent).await, (429, "BUDGET_EXHAUSTED".into()));

    // Disabled, then deleted: the page, its POST and the launcher are gone.
    admin
        .patch(&format!("{triggers}/{tid}"), json!({"enabled": false}))
        .await
        .expect(200);
    assert_eq!(http.get(&page_url).send().await.unwrap().status(), 404);
    assert_eq!(code(press(&server, &runner, None, body).await).await.0, 404);
    admin.delete(&format!("{triggers}/{tid}")).await.expect(200);
    assert_eq!(admin.get(&triggers).await.expect(200), json!([]));
    assert_eq!(http.get(&embed).send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn a_button_run_is_offered_no_client_tool() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Looker", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let runner = admin
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Look", "instructions": "Look it up.",
                   "clientTools": [{"name": "lookup", "description": "Finds things",
                                    "parameters": {"type": "object"}}]}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    admin
        .post(
            &format!("/api/runners/{runner}/triggers"),
            json!({"kind": "button"}),
        )
        .await
        .expect(201);
    vendor.push(Reply::stream(openai_answer("Looked.", 10)));
    let started = press(&server, &runner, None, r#"{"input": {}}"#).await;
    assert_eq!(started.status(), 202);
    let run: Value = started.json().await.unwrap();
    let path = format!(
        "/api/runners/{runner}/runs/{}",
        run["run_id"].as_str().unwrap()
    );
    eventually(Duration::from_secs(30), "the button run", async || {
        let run = admin.get(&path).await.expect(200);
        (run["status"] == "succeeded").then_some(run)
    })
    .await;
    let sent = vendor.requests();
    let body = &sent.last().expect("the vendor was called").body;
    let tools = body.get("tools").and_then(Value::as_array);
    assert!(
        tools.is_none_or(|t| t.iter().all(|t| t.to_string().find("lookup").is_none())),
        "{body}"
    );
}
