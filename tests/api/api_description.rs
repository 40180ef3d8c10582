//! The API description (operations.md "HTTP surface for operators"):
//! `/openapi.json` lists every mounted route and validates as OpenAPI 3.1
//! under a real validator library; `/docs` is served whole from the binary.

use std::time::Duration;

use serde_json::Value;

use crate::common::Server;

/// What `tests/peers/validate-openapi.mjs` (@seriousme/openapi-schema-validator)
/// says of `doc`.
fn validate(doc: &Value) -> Value {
    let peers = crate::common::peers_dir("@seriousme/openapi-schema-validator");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), doc.to_string()).unwrap();
    let output = std::process::Command::new("node")
        .arg(peers.join("validate-openapi.mjs"))
        .arg(file.path())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "validator output: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[tokio::test]
async fn every_mounted_route_is_described_and_the_document_is_valid_openapi_3_1() {
    let server = Server::start();
    let doc = server.anonymous().get("/openapi.json").await.expect(200);
    assert_eq!(doc["openapi"], "3.1.0");

    let mut missing = Vec::new();
    // A route's pattern (`{file:.*}`) is its template (`{file}`) in the document.
    let template = |path: &str| path.replace(":.*}", "}");
    for (method, path) in confer::api::MOUNTED {
        let operation = &doc["paths"][template(path)][method.to_lowercase()];
        if !operation.is_object() {
            missing.push(format!("{method} {path}"));
        }
    }
    assert!(missing.is_empty(), "not in /openapi.json: {missing:#?}");
    let mut unmounted = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let method = method.to_uppercase();
            let mounted = confer::api::MOUNTED
                .iter()
                .any(|(m, p)| *m == method && template(p) == *path);
            if !mounted {
                unmounted.push(format!("{method} {path}"));
            }
        }
    }
    assert!(
        unmounted.is_empty(),
        "described, not mounted: {unmounted:#?}"
    );

    // Every operation names its errors with the contract's body, and the
    // send describes its event stream.
    let send = &doc["paths"]["/api/threads/{thread_id}/messages"]["post"];
    assert!(send["responses"]["200"]["content"]["text/event-stream"].is_object());
    assert_eq!(
        doc["paths"]["/api/agents"]["post"]["responses"]["422"]["$ref"],
        "#/components/responses/ValidationError"
    );
    let codes = doc["components"]["schemas"]["ErrorBody"]["properties"]["error"]["enum"]
        .as_array()
        .unwrap();
    assert!(codes.iter().any(|c| c == "THREAD_BUSY"), "{codes:?}");
    let events = doc["components"]["schemas"]["ThreadEvent"]["oneOf"]
        .as_array()
        .unwrap();
    let titles: Vec<&str> = events.iter().filter_map(|e| e["title"].as_str()).collect();
    assert!(
        titles.contains(&"done") && titles.contains(&"meta"),
        "{titles:?}"
    );

    let verdict = validate(&doc);
    assert_eq!(verdict["valid"], true, "{verdict:#}");
    assert_eq!(verdict["version"], "3.1");
    // The validator does fail a broken document.
    let mut broken = doc.clone();
    broken.as_object_mut().unwrap().remove("info");
    assert_eq!(validate(&broken)["valid"], false);
}

#[tokio::test]
async fn the_docs_page_and_all_its_assets_are_served_locally() {
    let server = Server::start();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let moved = client
        .get(format!("{}/docs", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 308);
    assert_eq!(moved.headers()["location"], "/docs/");

    let page = client
        .get(format!("{}/docs/", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    let mut assets = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for piece in html.split(attribute).skip(1) {
            assets.push(piece.split('"').next().unwrap().to_owned());
        }
    }
    assert!(assets.len() >= 4, "{assets:?}");
    for asset in &assets {
        assert!(
            !asset.contains("//"),
            "{asset} is not served by Confer itself"
        );
        let url = format!("{}/docs/{}", server.base, asset.trim_start_matches("./"));
        let response = client.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert!(!response.bytes().await.unwrap().is_empty(), "{url}");
    }
    // Stored gzipped: sent so to a client that accepts it, else inflated.
    let zipped = client
        .get(format!("{}/docs/swagger-ui-bundle.js", server.base))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(zipped.headers()["content-encoding"], "gzip");
    let zipped = zipped.bytes().await.unwrap().len();
    let plain = client
        .get(format!("{}/docs/swagger-ui-bundle.js", server.base))
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.text().await.unwrap();
    assert!(plain.len() > 2 * zipped, "{} vs {zipped}", plain.len());
    assert!(plain.contains("SwaggerUI"));
    client
        .get(format!("{}/docs/nothing-here.js", server.base))
        .send()
        .await
        .map(|r| assert_eq!(r.status(), 404))
        .unwrap();
    // The page reads the description from this server.
    let initializer = client
        .get(format!("{}/docs/swagger-initializer.js", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(initializer.contains("/openapi.json"), "{initializer}");
    assert!(!initializer.contains("https://"), "{initializer}");
}
