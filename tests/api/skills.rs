//! Skills (`agent-extras.md` §1, acceptance points 1–3): uploads refused
//! for traversal, links and bombs with nothing stored; multipart files and
//! zips installed with their front matter; archives installed and synced
//! from a loopback host (304, unchanged, updated, failed with the last
//! content still served); the catalogue browsed offline; and a scripted
//! vendor's turn offered `<available_skills>` and `load_skill`, for an
//! agent's and a runner's skills.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Api, Options, Server};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\nlicense: MIT\n---\n{body}")
}

/// A zip of `(name, bytes)`, deflated.
fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        out.start_file(*name, options).unwrap();
        out.write_all(bytes).unwrap();
    }
    out.finish().unwrap().into_inner()
}

async fn upload_zip(api: &Api, zip: &[u8]) -> crate::common::Reply {
    api.multipart("/api/skills", &[], &[("skill.zip", zip)])
        .await
}

#[tokio::test]
async fn unsafe_archives_are_refused_whole_and_good_ones_installed() {
    let server = Server::start();
    let api = server.admin();
    let good = skill_md("notes", "Take notes.", "Write them down.\n");

    let traversal = zip_of(&[("s/SKILL.md", good.as_bytes()), ("../evil.md", b"x")]);
    let detail = upload_zip(&api, &traversal)
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.starts_with("../evil.md"), "{detail}");

    let mut linked = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    linked.start_file("s/SKILL.md", options).unwrap();
    linked.write_all(good.as_bytes()).unwrap();
    linked
        .add_symlink("s/link", "/etc/passwd", options)
        .unwrap();
    let linked = linked.finish().unwrap().into_inner();
    let detail = upload_zip(&api, &linked)
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(
        detail.starts_with("s/link") && detail.contains("link"),
        "{detail}"
    );

    let zeros = vec![0u8; 9 * 1024 * 1024];
    let bomb = zip_of(&[("s/SKILL.md", good.as_bytes()), ("s/zeros.bin", &zeros)]);
    assert!(bomb.len() < 100 * 1024);
    let detail = upload_zip(&api, &bomb)
        .await
        .expect_error(413, "PAYLOAD_TOO_LARGE");
    assert!(detail.starts_with("s/zeros.bin"), "{detail}");

    let bad_yaml = "---\nname: notes\ndescription: [unclosed\n---\nx\n";
    let detail = api
        .multipart_parts(
            "/api/skills",
            &[],
            &[("files", "SKILL.md", bad_yaml.as_bytes())],
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(
        detail.starts_with("SKILL.md: ") && detail.contains("line "),
        "{detail}"
    );
    assert_eq!(
        api.get("/api/skills").await.expect(200),
        json!([]),
        "nothing stored"
    );

    let skill = api
        .multipart_parts(
            "/api/skills",
            &[],
            &[
                ("files", "SKILL.md", good.as_bytes()),
                ("files", "references/api.md", b"# API\n"),
            ],
        )
        .await
        .expect(201);
    assert_eq!(skill["name"], "notes");
    assert_eq!(skill["description"], "Take notes.");
    assert_eq!(skill["license"], "MIT");
    assert_eq!(skill["source"], "upload");
    assert_eq!(skill["version"], 1);
    assert_eq!(skill["has_token"], false);
    assert_eq!(
        skill["files"],
        json!([{"path": "SKILL.md", "size": good.len()}, {"path": "references/api.md", "size": 6}])
    );
    let id = skill["id"].as_str().unwrap();
    let read = api.get(&format!("/api/skills/{id}")).await.expect(200);
    assert_eq!(read["instructions"], "Write them down.\n");

    let zipped = zip_of(&[("repo-main/notes/SKILL.md", good.as_bytes())]);
    upload_zip(&api, &zipped)
        .await
        .expect_error(409, "CONFLICT");
    let other = skill_md("other", "Another.", "x");
    let zipped = zip_of(&[
        ("repo-main/other/SKILL.md", other.as_bytes()),
        ("repo-main/other/.DS_Store", b"junk"),
    ]);
    let installed = upload_zip(&api, &zipped).await.expect(201);
    assert_eq!(
        installed["files"],
        json!([{"path": "SKILL.md", "size": other.len()}])
    );

    api.multipart_parts("/api/skills", &[], &[])
        .await
        .expect_error(400, "BAD_REQUEST");
    let sync = api.post(&format!("/api/skills/{id}/sync"), json!({})).await;
    sync.expect_error(422, "VALIDATION_ERROR");
}

/// One archive a loopback host serves, with its ETag; a request naming
/// the ETag gets 304.
#[derive(Clone, Default)]
struct ArchiveHost {
    served: Arc<Mutex<(Vec<u8>, String)>>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl ArchiveHost {
    fn serve(&self, bytes: Vec<u8>, etag: &str) {
        *self.served.lock().unwrap() = (bytes, etag.to_owned());
    }

    /// Listens on 127.0.0.1 until the task is aborted.
    async fn start(&self) -> (String, tokio::task::JoinHandle<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let host = self.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).await.unwrap_or(0) == 1
                {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_lowercase();
                host.requests.lock().unwrap().push(head.clone());
                let (bytes, etag) = host.served.lock().unwrap().clone();
                let response = if head.contains(&format!("if-none-match: {}", etag.to_lowercase()))
                {
                    format!(
                        "HTTP/1.1 304 Not Modified\r\netag: {etag}\r\nconnection: close\r\n\r\n"
                    )
                    .into_bytes()
                } else {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\netag: {etag}\r\ncontent-length: {}\r\ncontent-type: application/zip\r\nconnection: close\r\n\r\n",
                        bytes.len()
                    )
                    .into_bytes();
                    r.extend_from_slice(&bytes);
                    r
                };
                let _ = socket.write_all(&response).await;
            }
        });
        (base, task)
    }
}

#[tokio::test]
async fn archives_install_and_sync_keeping_the_last_good_content() {
    let vendor = Mock::start("/v1").await;
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform"),
    );
    let api = server.admin();
    let host = ArchiveHost::default();
    let v1 = skill_md("deploys", "Ship safely.", "Version one.\n");
    host.serve(
        zip_of(&[("deploys-main/SKILL.md", v1.as_bytes())]),
        "\"v1\"",
    );
    let (base, task) = host.start().await;
    let url = format!("{base}/deploys.zip");

    let refused = api
        .post(
            "/api/skills",
            json!({"source": "archive", "url": "http://10.1.2.3/x.zip"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(refused.starts_with("url: "), "{refused}");
    let skill = api
        .post(
            "/api/skills",
            json!({"source": "archive", "url": url, "token": "tok-secret"}),
        )
        .await
        .expect(201);
    assert_eq!(skill["source"], "archive");
    assert_eq!(skill["revision"], "\"v1\"");
    assert_eq!(skill["has_token"], true);
    assert_eq!(skill["sync_status"], "ok");
    assert!(!skill.to_string().contains("tok-secret"));
    assert!(host.requests.lock().unwrap()[0].contains("authorization: bearer tok-secret"));
    let id = skill["id"].as_str().unwrap().to_owned();
    let sync = format!("/api/skills/{id}/sync");

    let unchanged = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(unchanged["outcome"], "unchanged");
    assert!(host.requests.lock().unwrap()[1].contains("if-none-match: \"v1\""));
    // A new ETag over the same bytes: unchanged by the hash.
    host.serve(
        zip_of(&[("deploys-main/SKILL.md", v1.as_bytes())]),
        "\"v1b\"",
    );
    assert_eq!(
        api.post(&sync, json!({})).await.expect(200)["outcome"],
        "unchanged"
    );

    let v2 = skill_md("deploys", "Ship safely, twice.", "Version two.\n");
    host.serve(
        zip_of(&[("deploys-main/SKILL.md", v2.as_bytes())]),
        "\"v2\"",
    );
    let updated = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(updated["outcome"], "updated");
    assert_eq!(updated["skill"]["version"], 2);
    assert_eq!(updated["skill"]["revision"], "\"v2\"");
    assert_eq!(updated["skill"]["description"], "Ship safely, twice.");

    task.abort();
    let _ = task.await;
    let failed = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(failed["outcome"], "failed");
    assert_eq!(failed["skill"]["sync_status"], "failed");
    assert_eq!(failed["skill"]["last_error"], "url: unreachable");
    assert_eq!(failed["skill"]["version"], 2);

    // The last good content is what a turn loads.
    let agent = api
        .agent_with(json!({"name": "Deployer", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.post(
        &format!("/api/agents/{agent}/skills"),
        json!({"skillId": id}),
    )
    .await
    .expect(201);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "load_skill",
        &json!({"name": "deploys"}),
    )));
    vendor.push(Reply::stream(openai_answer("Loaded.", 10)));
    api.say(&thread, json!({"content": "deploy it"})).await;
    let second = vendor.requests().pop().unwrap();
    let result = tool_result(&second);
    assert_eq!(result["instructions"], "Version two.\n", "{result}");
}

/// The content of the `tool` message a vendor request ends with.
pub(crate) fn tool_result(request: &crate::mock::Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
}

pub(crate) fn system_of(request: &crate::mock::Recorded) -> String {
    request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

pub(crate) fn offered(request: &crate::mock::Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_turn_lists_enabled_skills_and_loads_them_on_demand() {
    let (vendor, server) = crate::mock::server_on_mock("OPENAI", "/v1").await;
    let api = server.admin();

    // The catalogue browses with no network at all.
    let browsed = api
        .get("/api/skills/browse?source=catalog&q=SQL")
        .await
        .expect(200);
    assert_eq!(browsed[0]["key"], "catalog:sql-review", "{browsed}");
    assert_eq!(browsed[0]["installed_id"], Value::Null);
    let sql = api
        .post(
            "/api/skills",
            json!({"source": "catalog", "key": "sql-review"}),
        )
        .await
        .expect(201);
    let sql_id = sql["id"].as_str().unwrap().to_owned();
    let browsed = api.get("/api/skills/browse?q=sql").await.expect(200);
    assert_eq!(browsed[0]["key"], format!("org:{sql_id}"));
    assert_eq!(browsed[1]["installed_id"], sql_id.as_str());
    let page = api.get("/api/skills/browse?source=catalog&limit=2").await;
    assert_eq!(page.body.as_array().unwrap().len(), 2);

    let agent = api
        .agent_with(json!({
            "name": "Reviewer",
            "defaultModel": "openai/gpt-4.1",
            "stablePreamble": "You review code."
        }))
        .await;
    let attach = format!("/api/agents/{agent}/skills");
    api.post(&attach, json!({"skillId": sql_id}))
        .await
        .expect(201);
    let listed = api.get(&attach).await.expect(200);
    assert_eq!(listed[0]["name"], "sql-review");
    assert_eq!(listed[0]["enabled"], true);

    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "load_skill",
        &json!({"name": "sql-review"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_2",
        "load_skill",
        &json!({"name": "sql-review", "path": "references/migrations.md"}),
    )));
    vendor.push(Reply::stream(openai_tool_call(
        "call_3",
        "load_skill",
        &json!({"name": "sql-review", "path": "nope.md"}),
    )));
    vendor.push(Reply::stream(openai_answer("Reviewed.", 10)));
    api.say(&thread, json!({"content": "review this SQL"}))
        .await;
    let requests = vendor.requests();
    let first = &requests[requests.len() - 4];
    let system = system_of(first);
    assert!(
        system.starts_with("You review code.\n\n<available_skills>\n"),
        "{system}"
    );
    assert!(
        system.contains("- sql-review: Review a SQL query"),
        "{system}"
    );
    assert!(offered(first).contains(&"load_skill".to_owned()));
    let instructions = tool_result(&requests[requests.len() - 3]);
    assert!(
        instructions["instructions"]
            .as_str()
            .unwrap()
            .starts_with("# SQL review")
    );
    assert_eq!(instructions["files"][1]["path"], "references/migrations.md");
    let file = tool_result(&requests[requests.len() - 2]);
    assert!(file["content"].as_str().unwrap().contains("CONCURRENTLY"));
    let missing = tool_result(&requests[requests.len() - 1]);
    assert_eq!(missing["error"], "no such file");

    // Disabled: gone from the next turn.
    api.post(&attach, json!({"skillId": sql_id, "enabled": false}))
        .await
        .expect(200);
    vendor.push(Reply::stream(openai_answer("Plain.", 10)));
    api.say(&thread, json!({"content": "again"})).await;
    let last = vendor.requests().pop().unwrap();
    assert!(!system_of(&last).contains("available_skills"));
    assert!(!offered(&last).contains(&"load_skill".to_owned()));

    // A runner's skill joins its runs' turns; the runner's `enabled` wins.
    let runner = api
        .post(
            "/api/runners",
            json!({"agentId": agent, "name": "Reviews", "instructions": "Review {{ input.sql }}"}),
        )
        .await
        .expect(201);
    let runner_id = runner["id"].as_str().unwrap();
    api.post(
        &format!("/api/runners/{runner_id}/skills"),
        json!({"skillId": sql_id}),
    )
    .await
    .expect(201);
    vendor.push(Reply::stream(openai_answer("Run done.", 10)));
    let before = vendor.requests().len();
    api.post(
        &format!("/api/runners/{runner_id}/runs"),
        json!({"input": {"sql": "select 1"}}),
    )
    .await
    .expect(201);
    let ran = crate::common::eventually(
        std::time::Duration::from_secs(30),
        "the run's model call",
        async || vendor.requests().get(before).cloned(),
    )
    .await;
    let system = system_of(&ran);
    assert_eq!(system.matches("- sql-review:").count(), 1, "{system}");

    // At most 32 skills per runner.
    let runner_skills = format!("/api/runners/{runner_id}/skills");
    for i in 0..32 {
        let text = skill_md(&format!("extra-{i}"), "Extra.", "x");
        let extra = api
            .multipart_parts(
                "/api/skills",
                &[],
                &[("files", "SKILL.md", text.as_bytes())],
            )
            .await
            .expect(201);
        let attached = api
            .post(&runner_skills, json!({"skillId": extra["id"]}))
            .await;
        if i < 31 {
            attached.expect(201);
        } else {
            attached.expect_error(409, "CONFLICT");
        }
    }
    assert_eq!(
        api.get(&runner_skills)
            .await
            .expect(200)
            .as_array()
            .unwrap()
            .len(),
        32
    );

    api.request(
        reqwest::Method::DELETE,
        &format!("/api/skills/{sql_id}"),
        None,
    )
    .await
    .expect(200);
    assert_eq!(api.get(&attach).await.expect(200), json!([]));
    api.delete_with(&attach, json!({"skillId": sql_id}))
        .await
        .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn an_org_keeps_at_most_200_skills() {
    let server = Server::start();
    let api = server.admin();
    let mut last = String::new();
    for n in 0..200 {
        let md = skill_md(&format!("skill-{n}"), "One of many.", "Body.\n");
        let made = upload_zip(&api, &zip_of(&[("SKILL.md", md.as_bytes())]))
            .await
            .expect(201);
        last = made["id"].as_str().unwrap().to_owned();
    }
    let md = skill_md("one-too-many", "Past the cap.", "Body.\n");
    let full = upload_zip(&api, &zip_of(&[("SKILL.md", md.as_bytes())]))
        .await
        .expect_error(409, "CONFLICT");
    assert_eq!(full, "the org has 200 skills, the most it may keep");
    // Room again once one goes.
    api.delete(&format!("/api/skills/{last}")).await.expect(200);
    upload_zip(&api, &zip_of(&[("SKILL.md", md.as_bytes())]))
        .await
        .expect(201);
}
