//! Web tools (`agent-extras.md` §4, acceptance point 6), called by a
//! scripted vendor: loopback pages (loopback allow-listed and in the
//! agent's `allowedDomains`) come back as Markdown; the same host merely
//! allow-listed, a redirect to a refused address or to a blocked domain
//! are error results; a 5 MiB page is truncated; robots.txt counts only
//! when set; SearXNG, Brave and Tavily answers (their documented shapes,
//! served locally) give filtered results; the key is in no answer or log.

use serde_json::{Value, json};

use crate::common::{Api, Options, Server};
use crate::mock::{Mock, Recorded, Reply, openai_answer, openai_tool_call};

fn page(status: u16, content_type: &str, body: String) -> Reply {
    Reply::Status {
        status,
        headers: vec![("content-type".into(), content_type.into())],
        body,
    }
}

fn redirect(to: &str) -> Reply {
    Reply::Status {
        status: 302,
        headers: vec![("location".into(), to.into())],
        body: String::new(),
    }
}

/// The site and the search backends, by path.
fn site(request: &Recorded) -> Reply {
    let path = request.path.split('?').next().unwrap_or_default();
    match path {
        "/page" => page(
            200,
            "text/html; charset=utf-8",
            "<html><head><title>Release plan</title><script>evil()</script></head>\
             <body><h1>Plan</h1><p>Ship on <b>Friday</b>.</p></body></html>"
                .into(),
        ),
        "/big" => page(200, "text/plain", "x".repeat(5 * 1024 * 1024)),
        "/to-metadata" => redirect("http://169.254.169.254/latest/meta-data"),
        "/to-blocked" => redirect("http://blocked.localhost/"),
        "/robots.txt" => page(200, "text/plain", "User-agent: *\nDisallow: /private\n".into()),
        "/private" => page(200, "text/plain", "secret plans".into()),
        "/image" => page(200, "image/png", "PNG".into()),
        "/search" => page(
            200,
            "application/json",
            json!({"results": [
                {"title": "Kept", "url": "https://docs.example.com/a", "content": "a".repeat(600)},
                {"title": "Blocked", "url": "https://ads.example.com/b", "content": "b"}
            ]})
            .to_string(),
        ),
        "/brave" => page(
            200,
            "application/json",
            json!({"web": {"results": [
                {"title": "Brave kept", "url": "https://docs.example.com/c", "description": "c"},
                {"title": "Brave blocked", "url": "https://ads.example.com/d", "description": "d"}
            ]}})
            .to_string(),
        ),
        "/tavily" => page(
            200,
            "application/json",
            json!({"query": "q", "results": [
                {"title": "Tavily kept", "url": "https://docs.example.com/e", "content": "e", "score": 0.9},
                {"title": "Tavily blocked", "url": "https://ads.example.com/f", "content": "f", "score": 0.5}
            ]})
            .to_string(),
        ),
        _ => page(404, "text/plain", "no".into()),
    }
}

/// Has the scripted model call `name` with `arguments`; the tool's result.
async fn call(api: &Api, vendor: &Mock, thread: &str, name: &str, arguments: Value) -> Value {
    vendor.push(Reply::stream(openai_tool_call("call_1", name, &arguments)));
    vendor.push(Reply::stream(openai_answer("Done.", 10)));
    api.say(thread, json!({"content": "go"})).await;
    let last = vendor.requests().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    let content = tool["content"].as_str().unwrap();
    serde_json::from_str(content).unwrap_or_else(|_| json!({"text": content}))
}

#[tokio::test]
async fn web_fetch_and_search_follow_the_agents_rules() {
    let vendor = Mock::start("/v1").await;
    let site_mock = Mock::start("").await;
    site_mock.otherwise(Reply::computed(site));
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform"),
    );
    let api = server.admin();
    let agent = api
        .agent_with(json!({"name": "Browser", "defaultModel": "openai/gpt-4.1"}))
        .await;
    let web = format!("/api/agents/{agent}/web");
    let defaults = api.get(&web).await.expect(200);
    assert_eq!(defaults["enabled"], false);
    assert_eq!(defaults["fetch"]["max_bytes"], 2_097_152);
    assert_eq!(defaults["search"]["has_api_key"], false);
    let thread = api.thread(&agent, json!({})).await;
    let base = &site_mock.base;

    // Enabled, loopback allow-listed but not named by the agent.
    api.put(&web, json!({"enabled": true})).await.expect(200);
    let refused = call(
        &api,
        &vendor,
        &thread,
        "web_fetch",
        json!({"url": format!("{base}/page")}),
    )
    .await;
    assert_eq!(
        refused["error"], "address refused by outbound policy",
        "{refused}"
    );

    // The agent names the metadata address too, but the operator did not.
    api.put(
        &web,
        json!({"allowedDomains": ["127.0.0.1", "169.254.169.254"],
               "blockedDomains": ["blocked.localhost"]}),
    )
    .await
    .expect(200);
    let fetched = call(
        &api,
        &vendor,
        &thread,
        "web_fetch",
        json!({"url": format!("{base}/page")}),
    )
    .await;
    assert_eq!(fetched["status"], 200, "{fetched}");
    assert_eq!(fetched["title"], "Release plan");
    assert_eq!(fetched["content_type"], "text/html");
    let content = fetched["content"].as_str().unwrap();
    assert!(
        content.contains("# Plan") && content.contains("**Friday**"),
        "{content}"
    );
    assert!(!content.contains("evil"), "{content}");
    assert_eq!(fetched["truncated"], false);
    let agent_header = site_mock
        .requests()
        .last()
        .unwrap()
        .header("user-agent")
        .map(str::to_owned);
    assert!(agent_header.unwrap().starts_with("Confer/"));

    for (path, error) in [
        ("/to-metadata", "address refused by outbound policy"),
        ("/to-blocked", "domain not allowed for this agent"),
        ("/image", "unsupported content type image/png"),
        ("/nowhere", "http 404"),
    ] {
        let result = call(
            &api,
            &vendor,
            &thread,
            "web_fetch",
            json!({"url": format!("{base}{path}")}),
        )
        .await;
        assert_eq!(result["error"], error, "{path}: {result}");
    }
    // A non-empty allowed list admits only its hosts.
    let other = call(
        &api,
        &vendor,
        &thread,
        "web_fetch",
        json!({"url": "https://example.org/"}),
    )
    .await;
    assert_eq!(other["error"], "domain not allowed for this agent");

    let big = call(
        &api,
        &vendor,
        &thread,
        "web_fetch",
        json!({"url": format!("{base}/big")}),
    )
    .await;
    assert_eq!(big["truncated"], true);
    assert_eq!(big["content"].as_str().unwrap().len(), 20_000);

    // robots.txt only when set.
    let private = json!({"url": format!("{base}/private")});
    let open = call(&api, &vendor, &thread, "web_fetch", private.clone()).await;
    assert_eq!(open["content"], "secret plans");
    api.put(&web, json!({"fetch": {"respectRobots": true}}))
        .await
        .expect(200);
    let closed = call(&api, &vendor, &thread, "web_fetch", private).await;
    assert_eq!(closed["error"], "disallowed by robots.txt");

    // Search, filtered by the lists, on each backend.
    api.put(
        &web,
        json!({"blockedDomains": ["ads.example.com"],
               "allowedDomains": ["127.0.0.1", "example.com"],
               "search": {"enabled": true, "backend": "searxng", "url": base}}),
    )
    .await
    .expect(200);
    let found = call(
        &api,
        &vendor,
        &thread,
        "web_search",
        json!({"query": "plans"}),
    )
    .await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{found}");
    assert_eq!(results[0]["title"], "Kept");
    assert_eq!(results[0]["snippet"].as_str().unwrap().len(), 500);
    let asked = site_mock.requests().last().unwrap().path.clone();
    assert!(asked.starts_with("/search?q=plans&format=json"), "{asked}");

    api.put(
        &web,
        json!({"search": {"backend": "brave", "url": format!("{base}/brave")}}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    let stored = api
        .put(
            &web,
            json!({"search": {"backend": "brave", "url": format!("{base}/brave"), "apiKey": "brave-secret"}}),
        )
        .await
        .expect(200);
    assert_eq!(stored["search"]["has_api_key"], true);
    assert!(!stored.to_string().contains("brave-secret"));
    let found = call(
        &api,
        &vendor,
        &thread,
        "web_search",
        json!({"query": "plans", "maxResults": 3}),
    )
    .await;
    assert_eq!(found["results"][0]["title"], "Brave kept", "{found}");
    assert_eq!(found["results"].as_array().unwrap().len(), 1);
    let asked = site_mock.requests().last().unwrap().clone();
    assert_eq!(asked.header("x-subscription-token"), Some("brave-secret"));
    assert!(asked.path.contains("count=3"), "{}", asked.path);

    api.put(
        &web,
        json!({"search": {"backend": "tavily", "url": format!("{base}/tavily"), "apiKey": "tvly-secret"}}),
    )
    .await
    .expect(200);
    let found = call(
        &api,
        &vendor,
        &thread,
        "web_search",
        json!({"query": "plans"}),
    )
    .await;
    assert_eq!(found["results"][0]["title"], "Tavily kept", "{found}");
    let asked = site_mock.requests().last().unwrap().clone();
    assert_eq!(asked.header("authorization"), Some("Bearer tvly-secret"));
    assert_eq!(asked.body["query"], "plans");

    // Off: neither tool is offered.
    api.put(&web, json!({"enabled": false})).await.expect(200);
    vendor.push(Reply::stream(openai_answer("Plain.", 10)));
    api.say(&thread, json!({"content": "again"})).await;
    let last = vendor.requests().pop().unwrap();
    let offered = last.body["tools"].to_string();
    assert!(
        !offered.contains("web_fetch") && !offered.contains("web_search"),
        "{offered}"
    );
    let logs = server.stderr.lock().unwrap().clone();
    assert!(!logs.contains("brave-secret") && !logs.contains("tvly-secret"));
    assert!(
        !api.get(&web)
            .await
            .expect(200)
            .to_string()
            .contains("secret")
    );
}
