//! Knowledge documents over HTTP (`knowledge.md` §1, §2, §6, §8 points 1,
//! 3, 4 and 5 in part): real files (a PDF by fpdf2, a DOCX by python-docx,
//! from `tests/peers/knowledge-files.py`), HTML and Markdown parsed in the
//! child process, chunked with pages and breadcrumbs; uploads refused
//! before anything is stored; who reaches which document; deletes purged;
//! ingestion cut by SIGKILL requeued.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, eventually, exp_in, jwt, peers_dir};

/// The documents `knowledge-files.py` writes, in a fresh directory.
pub fn real_files() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let peers = peers_dir("playwright-core");
    let out = std::process::Command::new(peers.join(".venv/bin/python"))
        .arg(peers.join("knowledge-files.py"))
        .arg(dir.path())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.path().to_owned();
    (dir, path)
}

/// Uploads `name` to the org and waits for its job (`?wait=30`).
pub async fn upload(api: &Api, name: &str, bytes: &[u8], fields: &[(&str, &str)]) -> Value {
    let reply = api
        .multipart("/api/knowledge/upload?wait=30", fields, &[(name, bytes)])
        .await;
    assert!(
        reply.status.as_u16() == 201 || reply.status.as_u16() == 200,
        "{name}: {} {}",
        reply.status,
        reply.body
    );
    reply.body
}

/// The chunk ids `POST /api/knowledge/search` answers for `query` in the
/// org's documents (`bm25`).
async fn search(api: &Api, query: &str) -> Vec<Value> {
    let answer = api
        .post(
            "/api/knowledge/search",
            json!({"query": query, "mode": "bm25", "topK": 20}),
        )
        .await
        .expect(200);
    assert_eq!(answer["mode"], "bm25", "{answer}");
    answer["results"].as_array().unwrap().clone()
}

async fn chunks(api: &Api, id: &str) -> Vec<Value> {
    api.get(&format!("/api/knowledge/{id}/chunks?limit=200"))
        .await
        .expect(200)
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn documents_of_every_kind_become_ready_with_pages_and_breadcrumbs() {
    let (_dir, files) = real_files();
    let server = Server::start();
    let admin = server.admin();

    let pdf_bytes = std::fs::read(files.join("facts.pdf")).unwrap();
    let pdf = upload(
        &admin,
        "facts.pdf",
        &pdf_bytes,
        &[("title", "Harbour facts")],
    )
    .await;
    assert_eq!(pdf["status"], "ready", "{pdf}");
    assert_eq!(pdf["title"], "Harbour facts");
    assert_eq!(pdf["content_type"], "application/pdf");
    assert_eq!(pdf["pages"], 3);
    assert_eq!(pdf["searchable"], true);
    assert_eq!(pdf["duplicate"], false);
    assert_eq!(pdf["chunks"], pdf["chunk_count"]);
    assert_eq!(pdf["scope_type"], "org");
    let pdf_chunks = chunks(&admin, pdf["id"].as_str().unwrap()).await;
    let cat = pdf_chunks
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("Marmalade"))
        .expect("the page-2 fact is in a chunk");
    // The fact is on page 2 only: its chunk covers page 2; the chunks
    // cover pages 1 to 3 in order.
    let (page, page_end) = (
        cat["page"].as_u64().unwrap(),
        cat["page_end"].as_u64().unwrap(),
    );
    assert!(page <= 2 && 2 <= page_end, "{cat}");
    assert_eq!(pdf_chunks.first().unwrap()["page"], 1);
    assert_eq!(pdf_chunks.last().unwrap()["page_end"], 3);
    assert!(
        pdf_chunks
            .iter()
            .any(|c| c["page"] == 2 && c["page_end"] == 2),
        "a chunk within page 2"
    );

    let docx_bytes = std::fs::read(files.join("guide.docx")).unwrap();
    let docx = upload(&admin, "guide.docx", &docx_bytes, &[]).await;
    assert_eq!(docx["status"], "ready", "{docx}");
    assert_eq!(docx["title"], "guide.docx");
    assert_eq!(docx["pages"], Value::Null);
    let docx_chunks = chunks(&admin, docx["id"].as_str().unwrap()).await;
    let gasket = docx_chunks
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("17 newton metres"))
        .expect("the DOCX fact");
    assert_eq!(
        gasket["breadcrumb"], "Field Guide › Installation › Requirements",
        "{gasket}"
    );

    let html = upload(
        &admin,
        "page.html",
        b"<html><body><h1>Opening hours</h1><script>var hiddenScriptToken = 1;</script>\
          <p>We open at nine.</p></body></html>",
        &[],
    )
    .await;
    assert_eq!(html["status"], "ready", "{html}");
    let html_text: String = chunks(&admin, html["id"].as_str().unwrap())
        .await
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(html_text.contains("We open at nine."), "{html_text}");
    assert!(!html_text.contains("hiddenScriptToken"), "{html_text}");

    let markdown = "# Notes\n\n## Tides\n\nHigh tide is at noon.\n";
    let md = upload(&admin, "notes.md", markdown.as_bytes(), &[]).await;
    assert_eq!(md["status"], "ready");
    let md_chunks = chunks(&admin, md["id"].as_str().unwrap()).await;
    assert_eq!(md_chunks.len(), 1);
    let chunk = &md_chunks[0];
    let (start, end) = (
        chunk["start"].as_u64().unwrap() as usize,
        chunk["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &markdown.chars().collect::<Vec<_>>()[start..end]
            .iter()
            .collect::<String>(),
        chunk["text"].as_str().unwrap()
    );

    // An encrypted PDF fails at once, with a fixed reason.
    let locked = upload(
        &admin,
        "locked.pdf",
        &std::fs::read(files.join("locked.pdf")).unwrap(),
        &[],
    )
    .await;
    assert_eq!(locked["status"], "failed", "{locked}");
    assert_eq!(locked["error"], "encrypted PDF");
    assert_eq!(locked["attempts"], 1);
    assert_eq!(locked["searchable"], false);

    // The file as uploaded, as an attachment that is never sniffed.
    let response = reqwest::Client::new()
        .get(format!(
            "{}/api/knowledge/{}/file",
            server.base,
            pdf["id"].as_str().unwrap()
        ))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    assert_eq!(response.bytes().await.unwrap().to_vec(), pdf_bytes);

    // Newest first, paged by `X-Next-Cursor`; filtered by status.
    let all = admin.get("/api/knowledge").await.expect(200);
    let titles: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["source_ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "locked.pdf",
            "notes.md",
            "page.html",
            "guide.docx",
            "facts.pdf"
        ]
    );
    let first = reqwest::Client::new()
        .get(format!("{}/api/knowledge?limit=2", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    let cursor = first.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_owned();
    let second = admin
        .get(&format!("/api/knowledge?limit=2&cursor={cursor}"))
        .await
        .expect(200);
    assert_eq!(second[0]["source_ref"], "page.html");
    let failed = admin.get("/api/knowledge?status=failed").await.expect(200);
    assert_eq!(failed.as_array().unwrap().len(), 1);

    // Search: the page-2 fact (case and stem folded), the DOCX's heading
    // (its breadcrumb is indexed), never the HTML's script.
    let found = search(&admin, "marmalades").await;
    assert_eq!(found[0]["doc_id"], pdf["id"], "{found:?}");
    assert_eq!(found[0]["page"], 2);
    assert!(found[0]["text"].as_str().unwrap().contains("Marmalade"));
    assert_eq!(found[0]["bm25_rank"], 1);
    assert!(found[0]["score"].as_f64().unwrap() > 0.0);
    let found = search(&admin, "requirements newton").await;
    assert_eq!(found[0]["doc_id"], docx["id"], "{found:?}");
    assert!(search(&admin, "hiddenScriptToken").await.is_empty());
    // The index outlives a restart, and a rebuild gives the same answers.
    let before: Vec<Value> = search(&admin, "tide noon nine marmalade").await;
    assert!(before.len() >= 3, "{before:?}");
    let (data, options) = server.kill();
    std::fs::remove_dir_all(data.path().join("knowledge/index")).unwrap();
    let server = Server::start_in(data, options);
    let admin = server.admin();
    let after = eventually(
        Duration::from_secs(30),
        "the index is rebuilt",
        async || {
            let answer = admin
                .post(
                    "/api/knowledge/search",
                    json!({"query": "tide noon nine marmalade", "mode": "bm25", "topK": 20}),
                )
                .await
                .expect(200);
            (answer["partial"] == false).then(|| answer["results"].as_array().unwrap().clone())
        },
    )
    .await;
    let ids =
        |hits: &[Value]| -> Vec<Value> { hits.iter().map(|h| h["chunk_id"].clone()).collect() };
    assert_eq!(ids(&after), ids(&before));
}

/// An upload that must be refused: status, detail, fields, files.
type Refusal<'a> = (
    u16,
    &'a str,
    Vec<(&'a str, &'a str)>,
    Vec<(&'a str, &'a [u8])>,
);

#[tokio::test]
async fn refused_uploads_store_nothing_and_a_repeat_is_a_duplicate() {
    let server =
        Server::start_with(Options::default().env("CONFER_KNOWLEDGE_MAX_UPLOAD_BYTES", "2000"));
    let admin = server.admin();
    let first = upload(&admin, "a.md", b"# A\n\nSame text.", &[]).await;
    let again = admin
        .multipart(
            "/api/knowledge/upload",
            &[],
            &[("copy.md", b"# A\n\nSame text.")],
        )
        .await
        .expect(200);
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["id"], first["id"]);

    let big = vec![b'a'; 2001];
    let refusals: [Refusal; 6] = [
        (
            422,
            "file: unsupported type",
            vec![],
            vec![("tool.exe", b"MZ\x90\x00")],
        ),
        (
            422,
            "file: unsupported type",
            vec![],
            vec![("fake.pdf", b"not a pdf")],
        ),
        (
            413,
            "file: larger than 2000 bytes",
            vec![],
            vec![("big.txt", &big)],
        ),
        (
            400,
            "file: exactly one part",
            vec![],
            vec![("a.txt", b"1"), ("b.txt", b"2")],
        ),
        (
            400,
            "file: exactly one part",
            vec![("title", "no file")],
            vec![],
        ),
        (
            422,
            "scopeType",
            vec![("scopeType", "galaxy")],
            vec![("c.txt", b"3")],
        ),
    ];
    for (status, detail, fields, files) in refusals {
        let reply = admin
            .multipart("/api/knowledge/upload", &fields, &files)
            .await;
        assert_eq!(reply.status.as_u16(), status, "{detail}: {}", reply.body);
        assert!(
            reply.body["detail"].as_str().unwrap().contains(detail),
            "{}",
            reply.body
        );
    }
    let not_multipart = admin
        .post("/api/knowledge/upload", json!({"file": "x"}))
        .await;
    assert_eq!(not_multipart.status.as_u16(), 400);
    // Only the first document and its one file; no upload left behind.
    assert_eq!(
        admin
            .get("/api/knowledge")
            .await
            .expect(200)
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let knowledge = server.data_dir().join("knowledge");
    let stored: usize = std::fs::read_dir(knowledge.join("files"))
        .unwrap()
        .map(|org| std::fs::read_dir(org.unwrap().path()).unwrap().count())
        .sum();
    assert_eq!(stored, 1);
    let scratch: Vec<_> = std::fs::read_dir(knowledge.join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name.to_string_lossy().starts_with("upload-"))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
}

#[tokio::test]
async fn who_reaches_a_document_follows_its_scope() {
    let server = Server::start();
    let admin = server.admin();
    let org = admin.org_id().await;
    let agent = admin.agent("Librarian").await;
    let member_key = admin
        .post("/api/keys", json!({"name": "member", "role": "member"}))
        .await
        .expect(201)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let member = server.api(&member_key);
    let alice = server.api(&jwt(
        json!({"sub": "alice", "exp": exp_in(600), "org_id": org}),
    ));
    let bob = server.api(&jwt(
        json!({"sub": "bob", "exp": exp_in(600), "org_id": org}),
    ));
    let alices_thread = alice.thread(&agent, json!({})).await;

    let org_doc = upload(&admin, "org.md", b"# Org\n\nFor everyone.", &[]).await;
    let org_doc = org_doc["id"].as_str().unwrap();
    let agent_doc = upload(
        &admin,
        "agent.md",
        b"# Agent\n\nFor one agent.",
        &[("scopeType", "agent"), ("scopeId", &agent)],
    )
    .await;
    assert_eq!(agent_doc["scope_id"], agent.as_str());

    // Members read org documents and add thread ones only.
    member
        .get(&format!("/api/knowledge/{org_doc}"))
        .await
        .expect(200);
    member
        .multipart("/api/knowledge/upload", &[], &[("m.md", b"member")])
        .await
        .expect_error(403, "FORBIDDEN");
    member
        .delete(&format!("/api/knowledge/{org_doc}"))
        .await
        .expect_error(403, "FORBIDDEN");
    let thread_fields = [("scopeType", "thread"), ("scopeId", alices_thread.as_str())];
    let by_member = member
        .multipart(
            "/api/knowledge/upload",
            &thread_fields,
            &[("m.md", b"# By a member")],
        )
        .await
        .expect(201);

    // An end user: its own threads' documents, nothing else.
    let mine = alice
        .multipart(
            "/api/knowledge/upload",
            &thread_fields,
            &[("mine.md", b"# Alice's notes")],
        )
        .await
        .expect(201);
    let mine = mine["id"].as_str().unwrap();
    alice
        .get(&format!("/api/knowledge/{mine}"))
        .await
        .expect(200);
    let listed = alice
        .get(&format!(
            "/api/knowledge?scopeType=thread&scopeId={alices_thread}"
        ))
        .await
        .expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    alice
        .get("/api/knowledge")
        .await
        .expect_error(403, "FORBIDDEN");
    alice
        .get(&format!("/api/knowledge/{org_doc}"))
        .await
        .expect_error(403, "FORBIDDEN");
    alice
        .multipart("/api/knowledge/upload", &[], &[("o.md", b"org?")])
        .await
        .expect_error(403, "FORBIDDEN");
    bob.get(&format!("/api/knowledge/{mine}"))
        .await
        .expect_error(403, "FORBIDDEN");
    bob.delete(&format!(
        "/api/knowledge/{}",
        by_member["id"].as_str().unwrap()
    ))
    .await
    .expect_error(403, "FORBIDDEN");
    alice
        .delete(&format!("/api/knowledge/{mine}"))
        .await
        .expect(200);

    // Unknown scopes and documents.
    admin
        .multipart(
            "/api/knowledge/upload",
            &[
                ("scopeType", "agent"),
                ("scopeId", "0190d1f2-0000-7000-8000-000000000000"),
            ],
            &[("x.md", b"x")],
        )
        .await
        .expect_error(404, "NOT_FOUND");
    admin
        .get("/api/knowledge/0190d1f2-0000-7000-8000-000000000000")
        .await
        .expect_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_deleted_document_is_gone_at_once_and_its_file_purged() {
    let server = Server::start();
    let admin = server.admin();
    let doc = upload(&admin, "gone.md", b"# Gone\n\nSoon.", &[]).await;
    let id = doc["id"].as_str().unwrap().to_owned();
    assert_eq!(search(&admin, "soon").await[0]["doc_id"], doc["id"]);
    let file = server
        .data_dir()
        .join("knowledge/files")
        .join(doc["org_id"].as_str().unwrap())
        .join(doc["sha256"].as_str().unwrap());
    assert!(file.exists());
    admin
        .delete(&format!("/api/knowledge/{id}"))
        .await
        .expect(200);
    admin
        .get(&format!("/api/knowledge/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    assert!(search(&admin, "soon").await.is_empty(), "no hit at once");
    admin
        .get(&format!("/api/knowledge/{id}/chunks"))
        .await
        .expect_error(404, "NOT_FOUND");
    admin
        .delete(&format!("/api/knowledge/{id}"))
        .await
        .expect_error(404, "NOT_FOUND");
    eventually(Duration::from_secs(10), "the file is purged", async || {
        (!file.exists()).then_some(())
    })
    .await;
    // Nothing of it is left: `confer check` through the server agrees.
    let (ok, said) = crate::common::confer_check(&server.base);
    assert!(ok, "{said}");
    assert!(said.contains("chunks: 0"), "{said}");
    assert!(said.contains("vectors: 0"), "{said}");
    // The same content again is a new document.
    let again = upload(&admin, "gone.md", b"# Gone\n\nSoon.", &[]).await;
    assert_ne!(again["id"], doc["id"]);
    assert_eq!(again["duplicate"], false);
    assert!(file.exists());
}

#[tokio::test]
async fn ingestion_cut_by_a_crash_is_requeued_then_ready_once() {
    let server = Server::start();
    let admin = server.admin();
    // About 8 MB of Markdown, under the text and chunk limits: paragraphs
    // of about 1,500 characters, a heading every twenty.
    let mut text = String::with_capacity(8_400_000);
    let mut paragraph = 0;
    while text.len() < 8_000_000 {
        if paragraph % 20 == 0 {
            text.push_str(&format!("## Part {}\n\n", paragraph / 20));
        }
        for sentence in 0..24 {
            text.push_str(&format!(
                "Sentence {sentence} of paragraph {paragraph} is filler. "
            ));
        }
        text.push_str("\n\n");
        paragraph += 1;
    }
    let reply = admin
        .multipart("/api/knowledge/upload", &[], &[("big.md", text.as_bytes())])
        .await
        .expect(201);
    let id = reply["id"].as_str().unwrap().to_owned();
    // Until it is ready, no search finds its chunks (they are written, and
    // indexed, before the document is).
    // A search answered before a read that says "not ready" found nothing.
    let unready_finds_nothing = async |admin: &Api| -> Value {
        let hits = search(admin, "paragraph 4321").await;
        let doc = admin.get(&format!("/api/knowledge/{id}")).await.expect(200);
        if doc["status"] != "ready" {
            assert!(hits.is_empty(), "{doc}: {hits:?}");
        }
        doc
    };
    eventually(
        Duration::from_secs(30),
        "the job is under way",
        async || {
            let doc = unready_finds_nothing(&admin).await;
            // After the parse: the claim is durable by then.
            (doc["status"] == "indexing").then_some(())
        },
    )
    .await;
    let server = server.kill_and_restart();
    let admin = server.admin();
    let doc = admin.get(&format!("/api/knowledge/{id}")).await.expect(200);
    assert_eq!(
        doc["error"], "interrupted by a restart (attempt 1 of 3)",
        "{doc}"
    );
    assert_ne!(doc["status"], "ready", "{doc}");
    assert_eq!(doc["searchable"], false);
    let ready = eventually(
        Duration::from_secs(120),
        "the document is ready",
        async || {
            let doc = unready_finds_nothing(&admin).await;
            (doc["status"] == "ready").then_some(doc)
        },
    )
    .await;
    assert_eq!(ready["attempts"], 2);
    let found = search(&admin, "paragraph 4321").await;
    assert!(
        found[0]["text"]
            .as_str()
            .unwrap()
            .contains("of paragraph 4321 is"),
        "{found:?}"
    );
    assert_eq!(ready["error"], Value::Null);
    let count = ready["chunk_count"].as_u64().unwrap();
    assert!(count > 1000 && count <= 10_000, "{count}");
    // Every chunk once, in order, of the one searchable generation.
    let mut seen = 0u64;
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/knowledge/{id}/chunks?limit=200&cursor={c}"),
            None => format!("/api/knowledge/{id}/chunks?limit=200"),
        };
        let page = admin.get(&path).await.expect(200);
        let page = page.as_array().unwrap();
        for chunk in page {
            assert_eq!(chunk["n"].as_u64().unwrap(), seen);
            seen += 1;
        }
        if page.len() < 200 {
            break;
        }
        cursor = Some(page.last().unwrap()["n"].to_string());
    }
    assert_eq!(seen, count);
}

#[tokio::test]
async fn three_crashes_fail_the_document() {
    let mut server = Server::start();
    let mut text = String::new();
    for n in 0..120_000 {
        text.push_str(&format!("Sentence {n} of a long document. "));
    }
    let reply = server
        .admin()
        .multipart(
            "/api/knowledge/upload",
            &[],
            &[("long.md", text.as_bytes())],
        )
        .await
        .expect(201);
    let id = reply["id"].as_str().unwrap().to_owned();
    for attempt in 1..=3 {
        let admin = server.admin();
        // `indexing` comes after the parse, so the claim (its attempt) was
        // flushed: a kill cannot take it back.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let doc = admin.get(&format!("/api/knowledge/{id}")).await.expect(200);
            if doc["attempts"] == attempt && doc["status"] == "indexing" {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "attempt {attempt} not seen indexing within 30 s: {doc}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        server = server.kill_and_restart();
    }
    let doc = server
        .admin()
        .get(&format!("/api/knowledge/{id}"))
        .await
        .expect(200);
    assert_eq!(doc["status"], "failed", "{doc}");
    assert_eq!(doc["error"], "interrupted by a restart (attempt 3 of 3)");
}

#[tokio::test]
async fn deleting_a_thread_or_an_agent_deletes_its_documents() {
    let server = Server::start();
    let admin = server.admin();
    let agent = admin.agent("Archivist").await;
    let thread = admin.thread(&agent, json!({})).await;
    let on_thread = upload(
        &admin,
        "t.md",
        b"# Thread notes",
        &[("scopeType", "thread"), ("scopeId", &thread)],
    )
    .await;
    let on_agent = upload(
        &admin,
        "a.md",
        b"# Agent notes",
        &[("scopeType", "agent"), ("scopeId", &agent)],
    )
    .await;
    let file_of = |doc: &Value| {
        server
            .data_dir()
            .join("knowledge/files")
            .join(doc["org_id"].as_str().unwrap())
            .join(doc["sha256"].as_str().unwrap())
    };
    admin
        .delete(&format!("/api/threads/{thread}"))
        .await
        .expect(200);
    let id = on_thread["id"].as_str().unwrap().to_owned();
    eventually(
        Duration::from_secs(20),
        "the thread's document is gone",
        async || (admin.get(&format!("/api/knowledge/{id}")).await.status == 404).then_some(()),
    )
    .await;
    let file = file_of(&on_thread);
    eventually(Duration::from_secs(20), "its file is purged", async || {
        (!file.exists()).then_some(())
    })
    .await;
    admin
        .delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    admin
        .get(&format!(
            "/api/knowledge/{}",
            on_agent["id"].as_str().unwrap()
        ))
        .await
        .expect_error(404, "NOT_FOUND");
    let file = file_of(&on_agent);
    eventually(
        Duration::from_secs(20),
        "the agent's file is purged",
        async || (!file.exists()).then_some(()),
    )
    .await;
}

/// Threads of tantivy's index writer in the server process.
fn index_writer_threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("thrd-tantivy") || name.starts_with("merge_thread"))
        .count()
}

#[tokio::test]
async fn the_index_writer_goes_when_idle_and_comes_back_for_the_next_document() {
    let server = Server::start();
    let admin = server.admin();
    let pid = server.pid();
    eventually(
        Duration::from_secs(30),
        "no writer at rest after the start",
        async || (index_writer_threads(pid) == 0).then_some(()),
    )
    .await;
    upload(&admin, "first.md", b"# First\n\nAlpha words here.", &[]).await;
    assert_eq!(search(&admin, "alpha").await.len(), 1);
    assert!(index_writer_threads(pid) > 0, "a writer indexed it");
    // Released about 10 s after its last commit.
    eventually(
        Duration::from_secs(40),
        "the idle writer released",
        async || (index_writer_threads(pid) == 0).then_some(()),
    )
    .await;
    upload(&admin, "second.md", b"# Second\n\nBeta words here.", &[]).await;
    assert_eq!(search(&admin, "beta").await.len(), 1);
    assert_eq!(search(&admin, "alpha").await.len(), 1, "the first is kept");
}
