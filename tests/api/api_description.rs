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
    assert_streams_are_described(&doc);
    assert_operations_are_named(&doc);

    let verdict = validate(&doc);
    assert_eq!(verdict["valid"], true, "{verdict:#}");
    assert_eq!(verdict["version"], "3.1");
    // The validator does fail a broken document.
    let mut broken = doc.clone();
    broken.as_object_mut().unwrap().remove("info");
    assert_eq!(validate(&broken)["valid"], false);
}

/// sdks.md "What the document must provide": each event a named component
/// titled by its SSE name, `ThreadEvent` exactly their references, and
/// every streaming operation marked with how it resumes.
fn assert_streams_are_described(doc: &Value) {
    let schemas = &doc["components"]["schemas"];
    let members = schemas["ThreadEvent"]["oneOf"].as_array().unwrap();
    let mut titles = Vec::new();
    for member in members {
        let reference = member["$ref"].as_str().expect("a bare $ref");
        assert_eq!(member.as_object().unwrap().len(), 1, "{member}");
        let name = reference.strip_prefix("#/components/schemas/").unwrap();
        let title = schemas[name]["title"].as_str().expect("titled");
        let pascal: String = title
            .split('_')
            .map(|w| w[..1].to_uppercase() + &w[1..])
            .collect();
        assert_eq!(name, format!("{pascal}Event"));
        titles.push(title);
    }
    for event in [
        "meta",
        "token",
        "done",
        "error",
        "requires_action",
        "citation",
        "run",
        "run_status",
    ] {
        assert!(titles.contains(&event), "{event} not in {titles:?}");
    }
    let mut streaming = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(answers) = operation["responses"].as_object() else {
                continue;
            };
            for answer in answers.values() {
                let Some(content) = answer["content"].get("text/event-stream") else {
                    continue;
                };
                assert_eq!(
                    content["schema"]["$ref"],
                    "#/components/schemas/ThreadEvent"
                );
                let marker = &operation["x-confer-stream"];
                assert_eq!(marker["resume"], "Last-Event-ID", "{method} {path}");
                streaming.push((operation["operationId"].clone(), marker["reattach"].clone()));
            }
        }
    }
    for (operation, reattach) in [
        ("messages_send", "streams_stream"),
        ("streams_stream", "streams_stream"),
        ("public_messages_send", "public_stream"),
        ("runs_events", "runs_events"),
    ] {
        assert!(
            streaming.contains(&(operation.into(), reattach.into())),
            "{operation}: {streaming:?}"
        );
    }
}

/// Every operation has a unique `operationId` (the SDKs' function names),
/// the operations that take an `Idempotency-Key` declare it, and every
/// JSON error answer is the contract's `ErrorBody` (a 412's extends it).
fn assert_operations_are_named(doc: &Value) {
    let error_body = |answer: &Value| {
        let answer = match answer["$ref"].as_str() {
            Some(name) => &doc["components"]["responses"][name.rsplit('/').next().unwrap()],
            None => answer,
        };
        match answer["content"].get("application/json") {
            Some(json) => json["schema"]["$ref"].as_str().is_some_and(|r| {
                r.ends_with("/ErrorBody")
                    || (r.ends_with("/StaleBody")
                        && doc["components"]["schemas"]["StaleBody"]["allOf"][0]["$ref"]
                            == "#/components/schemas/ErrorBody")
            }),
            // A browser page's error is HTML (the OAuth links, `/c/{slug}`).
            None => true,
        }
    };
    let mut ids = std::collections::BTreeSet::new();
    let mut idempotent = Vec::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let id = operation["operationId"].as_str().expect("an operationId");
            assert!(ids.insert(id.to_owned()), "{id} twice");
            for (status, answer) in operation["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    assert!(error_body(answer), "{id} {status}: {answer}");
                }
            }
            let declares = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header");
            if declares {
                idempotent.push(id.to_owned());
            }
        }
    }
    for id in [
        "messages_send",
        "threads_create",
        "runs_start",
        "runs_resume",
    ] {
        assert!(idempotent.iter().any(|i| i == id), "{id}: {idempotent:?}");
    }
}

/// `confer openapi` prints the served document with no store or server.
#[tokio::test]
async fn the_openapi_command_prints_the_served_document() {
    let server = Server::start();
    let served = server.anonymous().get("/openapi.json").await.expect(200);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
        .arg("openapi")
        .env("CONFER_DATA_DIR", "/nonexistent/confer-data")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed, served);
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
