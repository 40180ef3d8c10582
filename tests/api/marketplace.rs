//! The marketplace over HTTP (`marketplace-channels.md` §2, §3, §5 and
//! Acceptance 5, 6 in part): profiles with their versions and rules,
//! avatars made by Pillow (`tests/peers/avatar-images.py`) checked by
//! content and re-encoded, the catalogue across two orgs, and `use` of
//! every official template and of another org's listing.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of, peers_dir, python_peer};
use crate::mock::{Reply, openai_answer, server_on_mock};

/// Pillow's uploads, in a fresh directory.
fn pillow_images() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let peers = peers_dir("playwright-core");
    let out = std::process::Command::new(peers.join(".venv/bin/python"))
        .arg(peers.join("avatar-images.py"))
        .arg(dir.path())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// A second org and its admin.
pub(crate) async fn other_org(server: &Server, name: &str) -> Api {
    server.api(&other_org_key(server, name).await)
}

/// A second org, made on `server`; its admin key.
pub(crate) async fn other_org_key(server: &Server, name: &str) -> String {
    let org = server
        .admin()
        .post("/api/orgs", json!({"name": name}))
        .await
        .expect(201);
    org["api_key"]["key"].as_str().unwrap().to_owned()
}

/// The chunk types of a PNG, in order.
fn png_chunks(png: &[u8]) -> Vec<String> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    let mut chunks = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        chunks.push(String::from_utf8_lossy(&png[at + 4..at + 8]).into_owned());
        at += 12 + length;
    }
    chunks
}

/// The avatar behind `avatar_url`, fetched without a bearer.
async fn avatar(
    server: &Server,
    url: &str,
) -> (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let response = reqwest::Client::new()
        .get(format!("{}{url}", server.base))
        .send()
        .await
        .unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.bytes().await.unwrap().to_vec())
}

fn rgb(image: &image::RgbaImage, x: u32, y: u32) -> [u8; 3] {
    let [r, g, b, _] = image.get_pixel(x, y).0;
    [r, g, b]
}

fn reddish([r, g, b]: [u8; 3]) -> bool {
    r > 200 && g < 60 && b < 60
}

fn bluish([r, g, b]: [u8; 3]) -> bool {
    b > 200 && r < 60 && g < 60
}

#[tokio::test]
async fn a_profile_is_versioned_checked_and_listed_by_its_first_put() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Helpdesk", "description": "Answers billing questions"}))
        .await;
    let path = format!("/api/agents/{agent}/marketplace");
    let unsaved = admin.get(&path).await;
    assert_eq!(unsaved.etag.as_deref(), Some("\"0\""));
    let unsaved = unsaved.expect(200);
    assert_eq!(unsaved["version"], 0);
    assert_eq!(unsaved["listed"], false);
    assert_eq!(unsaved["title"], "Helpdesk");
    assert_eq!(unsaved["visibility"], "org");
    assert_eq!(unsaved["readiness"]["score"], 0);

    // Rules: 422 naming the field, nothing stored.
    for (body, field) in [
        (json!({"title": "  "}), "title"),
        (json!({"category": "games"}), "category"),
        (json!({"tags": ["ok", "not ok"]}), "tags[1]"),
        (
            json!({"capabilities": [{"name": "Bad", "label": "x"}]}),
            "capabilities[0].name",
        ),
        (json!({"visibility": "everyone"}), "visibility"),
    ] {
        let detail = admin
            .put(&path, body)
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(detail.starts_with(&format!("{field}:")), "{detail}");
    }
    assert_eq!(admin.get(&path).await.expect(200)["version"], 0);

    let stored = admin
        .put(
            &path,
            json!({"title": " Billing helper ", "category": "support",
                   "tags": ["Billing", "billing", "invoices"]}),
        )
        .await;
    assert_eq!(stored.etag.as_deref(), Some("\"1\""));
    let stored = stored.expect(200);
    assert_eq!(stored["listed"], true, "the first PUT lists");
    assert_eq!(stored["title"], "Billing helper");
    assert_eq!(stored["tags"], json!(["billing", "invoices"]));
    assert_eq!(stored["readiness"]["score"], 40);
    assert_eq!(
        stored["readiness"]["missing"],
        json!(["description", "capabilities", "avatar"])
    );

    // If-Match: a stale version is 412 with the profile as it is.
    let stale = admin
        .request_with(
            Method::PUT,
            &path,
            Some(json!({"title": "Late"})),
            &[("if-match", "\"0\"")],
        )
        .await
        .expect(412);
    assert_eq!(stale["error"], "PRECONDITION_FAILED");
    assert_eq!(stale["current"]["title"], "Billing helper");
    admin
        .request_with(
            Method::PUT,
            &path,
            Some(json!({"listed": false})),
            &[("if-match", "\"1\"")],
        )
        .await
        .expect(200);
    let capabilities = admin
        .put(
            &format!("{path}/capabilities"),
            json!({"capabilities": [{"name": "billing.refunds", "label": "Refunds", "tools": ["refund"]}]}),
        )
        .await
        .expect(200);
    assert_eq!(capabilities["version"], 3);
    assert_eq!(capabilities["listed"], false, "a later PUT keeps `listed`");
    assert_eq!(capabilities["capabilities"][0]["tools"], json!(["refund"]));

    // A member reads, never writes.
    let member = server.api(&admin.new_key("member").await);
    member.get(&path).await.expect(200);
    member
        .put(&path, json!({"title": "mine"}))
        .await
        .expect_error(403, "FORBIDDEN");

    admin.delete(&path).await.expect(200);
    assert_eq!(admin.get(&path).await.expect(200)["version"], 0);
}

#[tokio::test]
async fn avatars_are_read_by_content_and_reencoded_without_metadata() {
    let images = pillow_images();
    let file = |name: &str| std::fs::read(images.path().join(name)).unwrap();
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Pictured").await;
    let upload = format!("/api/agents/{agent}/marketplace/avatar");

    // The JPEG turned by its EXIF orientation 6: red on top, blue below.
    let profile = admin
        .multipart(&upload, &[], &[("photo.jpg", &file("rotated.jpg"))])
        .await
        .expect(200);
    assert_eq!(profile["listed"], false, "an avatar first stores a draft");
    let url = profile["avatar_url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("/api/marketplace/avatars/{agent}?v=")),
        "{url}"
    );
    let (status, headers, png) = avatar(&server, &url).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["cache-control"], "public, max-age=300");
    // The frame policy adds `frame-ancestors 'none'` to every answer.
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(etag, format!("\"{}\"", url.rsplit_once("?v=").unwrap().1));
    assert_eq!(
        png_chunks(&png),
        ["IHDR", "IDAT", "IEND"],
        "no metadata chunk"
    );
    assert!(
        !png.windows(6).any(|w| w == b"secret"),
        "the EXIF text is gone"
    );
    let decoded = image::load_from_memory(&png).unwrap().to_rgba8();
    assert_eq!(decoded.dimensions(), (256, 256));
    assert!(
        reddish(rgb(&decoded, 128, 10)),
        "{:?}",
        rgb(&decoded, 128, 10)
    );
    assert!(
        bluish(rgb(&decoded, 128, 245)),
        "{:?}",
        rgb(&decoded, 128, 245)
    );
    let again = reqwest::Client::new()
        .get(format!("{}{url}", server.base))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    // PNG and WebP: center-cropped squares, red left and blue right.
    for name in ["landscape.png", "photo.webp"] {
        let profile = admin
            .multipart(&upload, &[], &[(name, &file(name))])
            .await
            .expect(200);
        let (_, _, png) = avatar(&server, profile["avatar_url"].as_str().unwrap()).await;
        let decoded = image::load_from_memory(&png).unwrap().to_rgba8();
        assert_eq!(decoded.dimensions(), (256, 256), "{name}");
        assert!(reddish(rgb(&decoded, 10, 128)), "{name}");
        assert!(bluish(rgb(&decoded, 245, 128)), "{name}");
    }
    let kept = admin
        .get(&format!("/api/agents/{agent}/marketplace"))
        .await
        .expect(200)["avatar_url"]
        .clone();

    // Refused by content whatever the name: the old avatar stays.
    let html = b"<!doctype html><script>alert(1)</script>".to_vec();
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_vec();
    for (bytes, what) in [
        (html, "not a PNG"),
        (svg, "not a PNG"),
        (file("anim.gif"), "not a PNG"),
        (file("truncated.png"), "file:"),
        (file("huge.png"), "too large"),
    ] {
        let detail = admin
            .multipart(&upload, &[], &[("x.png", &bytes)])
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(
            detail.starts_with("file:") && detail.contains(what),
            "{detail}"
        );
    }
    admin
        .multipart(&upload, &[], &[("big.png", &file("big.bin"))])
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    admin
        .post(&upload, json!({"file": "x"}))
        .await
        .expect_error(415, "UNSUPPORTED_MEDIA_TYPE");
    admin
        .multipart_parts(&upload, &[("other", "x")], &[])
        .await
        .expect_error(400, "BAD_REQUEST");
    let now = admin
        .get(&format!("/api/agents/{agent}/marketplace"))
        .await
        .expect(200);
    assert_eq!(now["avatar_url"], kept);

    // Removed, then gone with the agent.
    let without = admin.delete(&upload).await.expect(200);
    assert_eq!(without["avatar_url"], Value::Null);
    assert_eq!(avatar(&server, kept.as_str().unwrap()).await.0, 404);
    let profile = admin
        .multipart(&upload, &[], &[("a.png", &file("landscape.png"))])
        .await
        .expect(200);
    let url = profile["avatar_url"].as_str().unwrap().to_owned();
    admin
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    assert_eq!(avatar(&server, &url).await.0, 404);
}

/// Lists `agent` with `visibility`.
async fn list(api: &Api, agent: &str, title: &str, visibility: &str) {
    api.put(
        &format!("/api/agents/{agent}/marketplace"),
        json!({"title": title, "visibility": visibility, "tags": ["walk"]}),
    )
    .await
    .expect(200);
}

fn titles(listings: &Value) -> Vec<&str> {
    listings
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["title"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_catalogue_and_use_keep_org_listings_in_their_org() {
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1:9"));
    catalogue_and_use(&server, &server).await;
}

/// The catalogue and `use` seen by the first org on `a` and by a second
/// org on `b` (one node, or two of a cluster).
pub(crate) async fn catalogue_and_use(a: &Server, b: &Server) {
    let server = a;
    let alpha = server.admin();
    let beta = b.api(&other_org_key(server, "Beta").await);
    let shared = alpha
        .agent_with(json!({"name": "Shared", "stablePreamble": "You answer in haiku."}))
        .await;
    let private = alpha.agent("Private").await;
    let draft = alpha.agent("Draft").await;
    list(&alpha, &private, "Alpha only", "org").await;
    list(&alpha, &shared, "Haiku writer", "instance").await;
    alpha
        .put(
            &format!("/api/agents/{draft}/marketplace"),
            json!({"listed": false}),
        )
        .await
        .expect(200);
    // What the shared agent has: an org tool and an MCP server with a
    // private URL.
    alpha
        .post(
            "/api/tools",
            json!({"name": "lookup", "url": "http://127.0.0.1:9/hook"}),
        )
        .await
        .expect(201);
    let mcp = alpha
        .post(
            "/api/mcps",
            json!({"name": "internal", "url": "http://127.0.0.1:9/mcp/s3cr3t"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    alpha
        .post(
            &format!("/api/agents/{shared}/mcps"),
            json!({"mcpServerId": mcp}),
        )
        .await
        .expect(201);

    let own = alpha.get("/api/marketplace").await.expect(200);
    assert_eq!(
        titles(&own),
        ["Haiku writer", "Alpha only"],
        "newest first, no draft"
    );
    let seen = beta.get("/api/marketplace").await.expect(200);
    assert_eq!(titles(&seen), ["Haiku writer"]);
    let listing = &seen[0];
    assert_eq!(listing["org_name"], "default");
    assert_eq!(listing["tools"], json!(["lookup"]));
    assert_eq!(listing["mcp_servers"][0]["name"], "internal");
    assert_eq!(
        listing["mcp_servers"][0]["url"],
        Value::Null,
        "a private URL is hidden"
    );
    assert!(
        listing.get("stable_preamble").is_none(),
        "the preamble is hidden"
    );
    let mine = &own[0];
    assert_eq!(
        mine["mcp_servers"][0]["url"],
        "http://127.0.0.1:9/mcp/s3cr3t"
    );

    // Query and pages.
    assert_eq!(
        titles(&alpha.get("/api/marketplace?q=HAIKU").await.expect(200)),
        ["Haiku writer"]
    );
    assert_eq!(
        titles(&alpha.get("/api/marketplace?tag=none").await.expect(200)).len(),
        0
    );
    let first = alpha
        .request_with(Method::GET, "/api/marketplace?limit=1", None, &[])
        .await;
    assert_eq!(titles(&first.body), ["Haiku writer"]);
    let response = reqwest::Client::new()
        .get(format!("{}/api/marketplace?limit=1", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    let cursor = response.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_owned();
    let second = alpha
        .get(&format!(
            "/api/marketplace?limit=1&cursor={}",
            urlencode(&cursor)
        ))
        .await
        .expect(200);
    assert_eq!(titles(&second), ["Alpha only"]);
    alpha
        .get("/api/marketplace?cursor=nonsense")
        .await
        .expect_error(400, "BAD_REQUEST");

    // `use` across orgs: the preamble comes, the org's own things do not.
    beta.post(
        "/api/marketplace/official/use",
        json!({"listingId": private}),
    )
    .await
    .expect_error(404, "NOT_FOUND");
    let used = beta
        .post(
            "/api/marketplace/official/use",
            json!({"listingId": shared, "name": "My haiku"}),
        )
        .await
        .expect(201);
    assert_eq!(used["agent"]["name"], "My haiku");
    assert_eq!(used["agent"]["stable_preamble"], "You answer in haiku.");
    assert_eq!(
        used["source"],
        json!({"kind": "listing", "id": shared, "version": "1"})
    );
    assert_eq!(used["mcp_servers"], json!([]));
    let skipped: Vec<(&str, &str)> = used["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["kind"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [("mcp_private", "internal"), ("org_tool", "lookup")]
    );
    let new_agent = used["agent"]["id"].as_str().unwrap();
    assert!(
        beta.get(&format!("/api/agents/{new_agent}"))
            .await
            .status
            .is_success()
    );
    assert_eq!(
        beta.get(&format!("/api/agents/{new_agent}/mcps"))
            .await
            .expect(200)["mcps"],
        json!([])
    );
    // The same org keeps its servers.
    let copy = alpha
        .post(
            "/api/marketplace/official/use",
            json!({"listingId": shared}),
        )
        .await
        .expect(201);
    assert_eq!(copy["mcp_servers"][0]["mcp_server_id"], mcp.as_str());
    assert_eq!(copy["mcp_servers"][0]["created"], false);
    assert_eq!(copy["skipped"], json!([]));
    let copy_id = copy["agent"]["id"].as_str().unwrap();
    let attached = alpha
        .get(&format!("/api/agents/{copy_id}/mcps"))
        .await
        .expect(200);
    assert_eq!(attached["mcps"].as_array().unwrap().len(), 1, "{attached}");
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn every_official_template_makes_an_agent_that_answers() {
    let server = Server::start();
    let admin = server.admin();
    let templates = admin.get("/api/marketplace/official").await.expect(200);
    let ids: Vec<&str> = templates
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "general-assistant",
            "customer-support",
            "project-planner",
            "meeting-notes"
        ]
    );
    for template in templates.as_array().unwrap() {
        let id = template["id"].as_str().unwrap();
        let used = admin
            .post("/api/marketplace/official/use", json!({"templateId": id}))
            .await
            .expect(201);
        assert_eq!(used["agent"]["name"], template["title"]);
        assert_eq!(used["source"]["version"], template["version"]);
        assert_eq!(
            used["agent"]["default_profile"],
            template["default_profile"]
        );
        let agent = used["agent"]["id"].as_str().unwrap();
        let plan = admin
            .get(&format!("/api/agents/{agent}/plan"))
            .await
            .expect(200);
        assert_eq!(plan["enabled"], template["plan"]["enabled"], "{id}");
        let thread = admin.thread(agent, json!({})).await;
        let done = done_of(&admin.say(&thread, json!({"content": "hello world"})).await);
        assert_eq!(done["content"], "hello world", "{id}: {done}");
    }

    // One key, one agent; the key with another body is refused.
    let keyed = |key: &'static str, body: Value| {
        let admin = &admin;
        async move {
            admin
                .request_with(
                    Method::POST,
                    "/api/marketplace/official/use",
                    Some(body),
                    &[("idempotency-key", key)],
                )
                .await
        }
    };
    let body = json!({"templateId": "meeting-notes", "name": "Standup notes"});
    let first = keyed("k-1", body.clone()).await.expect(201);
    let again = keyed("k-1", body).await.expect(201);
    assert_eq!(first, again);
    let agents = admin.get("/api/agents").await.expect(200);
    let named = agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["name"] == "Standup notes")
        .count();
    assert_eq!(named, 1);
    keyed("k-1", json!({"templateId": "general-assistant"}))
        .await
        .expect_error(422, "IDEMPOTENCY_KEY_REUSED");

    admin
        .post(
            "/api/marketplace/official/use",
            json!({"templateId": "general-assistant", "listingId": "0190d1f2-0000-7000-8000-000000000000"}),
        )
        .await
        .expect_error(400, "BAD_REQUEST");
    admin
        .post("/api/marketplace/official/use", json!({}))
        .await
        .expect_error(400, "BAD_REQUEST");
    admin
        .post(
            "/api/marketplace/official/use",
            json!({"templateId": "nope"}),
        )
        .await
        .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn proposals_are_billed_model_calls_that_save_nothing() {
    let (vendor, server) = server_on_mock("OPENAI", "/v1").await;
    let admin = server.admin();
    let agent = admin
        .agent_with(json!({"name": "Helpdesk", "defaultModel": "openai/gpt-4.1",
                           "stablePreamble": "You are the billing desk of Acme Corp."}))
        .await;
    admin
        .post(
            "/api/tools",
            json!({"name": "lookup_invoice", "description": "Finds an invoice by number",
                   "url": "https://tools.example/lookup"}),
        )
        .await
        .expect(201);
    let path = format!("/api/agents/{agent}/marketplace");
    admin
        .put(&path, json!({"title": "Billing", "listed": false}))
        .await
        .expect(200);

    vendor.push(Reply::stream(openai_answer(
        "Sure! {\"title\": \"Acme billing desk\", \"category\": \"Support\", \"tags\": [\"Billing\", \"bad tag!\"]}",
        40,
    )));
    let described = admin
        .post(
            &format!("{path}/generate-description"),
            json!({"instructions": "Mention invoices."}),
        )
        .await
        .expect(200);
    assert_eq!(described["parsed"], true);
    assert_eq!(described["proposal"]["title"], "Acme billing desk");
    assert_eq!(described["proposal"]["category"], "support");
    assert_eq!(described["proposal"]["tags"], json!(["billing"]));
    assert_eq!(
        described["proposal"]["description"], "",
        "kept: the agent has none"
    );
    assert_eq!(described["usage"]["input_tokens"], 40);
    let asked = &vendor.requests()[0].body;
    assert_eq!(
        asked["max_completion_tokens"]
            .as_u64()
            .or(asked["max_tokens"].as_u64()),
        Some(1024),
        "{asked}"
    );
    assert!(
        asked
            .get("tools")
            .is_none_or(|t| t.as_array().is_none_or(|t| t.is_empty())),
        "no tools offered"
    );
    let sent = asked.to_string();
    for expected in [
        "billing desk of Acme Corp.",
        "lookup_invoice",
        "Mention invoices.",
    ] {
        assert!(sent.contains(expected), "{expected}: {sent}");
    }

    // The deterministic list needs no call.
    let tools = admin
        .post(
            &format!("{path}/detect-capabilities"),
            json!({"mode": "tools"}),
        )
        .await
        .expect(200);
    assert_eq!(tools["source"], "tools");
    assert_eq!(tools["capabilities"][0]["name"], "tool:lookup_invoice");
    assert_eq!(tools["capabilities"][0]["tools"], json!(["lookup_invoice"]));
    assert_eq!(vendor.requests().len(), 1);

    vendor.push(Reply::stream(openai_answer(
        "{\"capabilities\": [{\"name\": \"invoices\", \"label\": \"Finds invoices\", \"tools\": [\"lookup_invoice\", \"invented\"]}]}",
        30,
    )));
    let detected = admin
        .post(&format!("{path}/detect-capabilities"), json!({}))
        .await
        .expect(200);
    assert_eq!(detected["source"], "model");
    assert_eq!(
        detected["capabilities"][0]["tools"],
        json!(["lookup_invoice"])
    );
    assert!(detected["usage"]["output_tokens"].is_u64());
    // Nothing usable: the deterministic list, still billed.
    vendor.push(Reply::stream(openai_answer("I cannot tell.", 30)));
    let fallback = admin
        .post(
            &format!("{path}/detect-capabilities"),
            json!({"mode": "model"}),
        )
        .await
        .expect(200);
    assert_eq!(fallback["source"], "tools");
    assert_eq!(fallback["model"], "gpt-4.1");

    // Nothing saved; three calls billed as the marketplace's.
    let profile = admin.get(&path).await.expect(200);
    assert_eq!(
        (profile["version"].as_u64(), &profile["title"]),
        (Some(1), &json!("Billing"))
    );
    assert_eq!(profile["capabilities"], json!([]));
    let usage = admin.get("/api/usage").await.expect(200);
    let billed = usage["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["purpose"] == "marketplace" && r["thread_id"].is_null())
        .count();
    assert_eq!(billed, 3, "{usage}");

    admin
        .post(
            &format!("{path}/generate-description"),
            json!({"instructions": "x".repeat(1001)}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    admin
        .post(
            &format!("{path}/detect-capabilities"),
            json!({"mode": "guess"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    vendor.push(Reply::json(
        401,
        json!({"error": {"message": "bad key", "type": "invalid_request_error"}}),
    ));
    let refused = admin
        .post(&format!("{path}/generate-description"), json!({}))
        .await;
    assert_eq!(refused.body["error"], "PROVIDER_AUTH", "{:?}", refused.body);
    assert_eq!(refused.status.as_u16(), 502);
}

#[tokio::test]
async fn the_registry_is_searched_page_by_page_and_the_snapshot_answers_when_it_fails() {
    let (mut registry, port) = python_peer("mcp_registry_mock.py");
    let base = format!("http://127.0.0.1:{port}");
    let server = Server::start_with(
        Options::default()
            .env("CONFER_MCP_REGISTRY_URL", &base)
            .env("CONFER_OUTBOUND_ALLOW", &format!("127.0.0.1:{port}"))
            .env(
                "CONFER_MCP_MANAGED_OAUTH",
                r#"[{"name": "Weather", "url": "https://weather.example/1/mcp", "client_id": "w"}]"#,
            ),
    );
    let member = server.api(&server.admin().new_key("member").await);
    let first = member
        .get("/api/mcp-registry/search?q=weather&limit=2")
        .await
        .expect(200);
    assert_eq!(first["source"], "registry");
    let names: Vec<&str> = first["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["io.example/weather-0", "io.example/weather-1"]);
    // The operator holds an OAuth client for the second one's URL.
    let managed: Vec<bool> = first["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["managed_oauth"].as_bool().unwrap())
        .collect();
    assert_eq!(managed, [false, true]);
    let listed = member.get("/api/mcp-registry/managed").await.expect(200);
    assert_eq!(listed[0]["title"], first["servers"][1]["title"]);
    assert_eq!(listed[0]["description"], first["servers"][1]["description"]);
    let one = &first["servers"][0];
    assert_eq!(one["remotes"][0]["transport"], "streamable_http");
    assert_eq!(
        one["remotes"][0]["headers"][0],
        json!({"name": "X-Api-Key", "is_secret": true})
    );
    assert_eq!(one["installable"], true);
    assert_eq!(
        one["repository_url"],
        "https://github.com/example/weather-0"
    );
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    assert_eq!(cursor, "r:io.example/weather-1");
    let second = member
        .get(&format!(
            "/api/mcp-registry/search?q=weather&limit=2&cursor={}",
            urlencode(&cursor)
        ))
        .await
        .expect(200);
    assert_eq!(second["servers"][0]["name"], "io.example/weather-2");
    assert_eq!(second["nextCursor"], Value::Null);
    let seen: Value = reqwest::get(format!("{base}/_calls"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["errors"], json!([]));
    let calls = seen["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0]["query"],
        json!({"search": "weather", "limit": "2", "version": "latest"})
    );
    assert_eq!(calls[1]["query"]["cursor"], "io.example/weather-1");
    // Cached: the same search makes no call.
    member
        .get("/api/mcp-registry/search?q=weather&limit=2")
        .await
        .expect(200);

    // The registry down: the snapshot answers, saying why; a registry
    // cursor cannot be followed.
    registry.kill().unwrap();
    registry.wait().unwrap();
    let fallback = member
        .get("/api/mcp-registry/search?q=forecast")
        .await
        .expect(200);
    assert_eq!(fallback["source"], "snapshot");
    assert!(fallback["upstream_error"].is_string(), "{fallback}");
    member
        .get(&format!(
            "/api/mcp-registry/search?cursor={}",
            urlencode("r:io.example/weather-1")
        ))
        .await
        .expect_error(502, "UPSTREAM_UNAVAILABLE");
    member
        .get("/api/mcp-registry/search?cursor=nonsense")
        .await
        .expect_error(400, "BAD_REQUEST");

    // Offline (the harness's default): the snapshot, no error, no call.
    let offline = Server::start();
    let answer = offline
        .admin()
        .get("/api/mcp-registry/search?q=x")
        .await
        .expect(200);
    assert_eq!(answer["source"], "snapshot");
    assert!(answer.get("upstream_error").is_none());
}

#[tokio::test]
async fn a_registry_server_of_another_orgs_listing_is_made_again_without_credentials() {
    let (mut registry, port) = python_peer("mcp_registry_mock.py");
    let server = Server::start_with(
        Options::default()
            .env(
                "CONFER_MCP_REGISTRY_URL",
                &format!("http://127.0.0.1:{port}"),
            )
            .env("CONFER_OUTBOUND_ALLOW", &format!("127.0.0.1:{port}")),
    );
    let alpha = server.admin();
    let beta = other_org(&server, "Beta").await;
    let shared = alpha
        .agent_with(json!({"name": "Forecaster", "stablePreamble": "You forecast."}))
        .await;
    for (name, url) in [
        ("weather", "https://weather.example/0/mcp"),
        ("private", "https://internal.example/mcp/t0k3n"),
    ] {
        let id = alpha
            .post(
                "/api/mcps",
                json!({"name": name, "url": url,
                       "credentials": {"headers": {"X-Api-Key": "alpha-secret"}}}),
            )
            .await
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        alpha
            .post(
                &format!("/api/agents/{shared}/mcps"),
                json!({"mcpServerId": id}),
            )
            .await
            .expect(201);
    }
    list(&alpha, &shared, "Forecasts", "instance").await;
    // The registry's answer is what says the server is public.
    beta.get("/api/mcp-registry/search?q=weather")
        .await
        .expect(200);
    let seen = beta.get("/api/marketplace").await.expect(200);
    let servers = &seen[0]["mcp_servers"];
    assert_eq!(servers[0]["public"], true);
    assert_eq!(servers[0]["url"], "https://weather.example/0/mcp");
    assert_eq!(servers[1]["public"], false);
    assert_eq!(servers[1]["url"], Value::Null);

    let used = beta
        .post(
            "/api/marketplace/official/use",
            json!({"listingId": shared}),
        )
        .await
        .expect(201);
    assert_eq!(used["mcp_servers"][0]["name"], "weather");
    assert_eq!(used["mcp_servers"][0]["created"], true);
    assert_eq!(used["skipped"][0]["kind"], "mcp_private");
    let made = used["mcp_servers"][0]["mcp_server_id"].as_str().unwrap();
    let record = beta.get(&format!("/api/mcps/{made}")).await.expect(200);
    assert_eq!(record["has_credentials"], false);
    assert_eq!(record["url"], "https://weather.example/0/mcp");
    assert_eq!(record["org_id"], beta.org_id().await.as_str());
    let agent = used["agent"]["id"].as_str().unwrap();
    let attached = beta
        .get(&format!("/api/agents/{agent}/mcps"))
        .await
        .expect(200);
    assert_eq!(attached["mcps"].as_array().unwrap().len(), 1);
    // A second use attaches the server beta has now.
    let again = beta
        .post(
            "/api/marketplace/official/use",
            json!({"listingId": shared}),
        )
        .await
        .expect(201);
    assert_eq!(again["mcp_servers"][0]["mcp_server_id"], made);
    assert_eq!(again["mcp_servers"][0]["created"], false);
    registry.kill().unwrap();
    registry.wait().unwrap();
}
