//! Knowledge benchmark (`knowledge.md` §8 point 9): the real `confer`
//! binary (release under `cargo bench`) on a temporary data directory.
//!
//! - Ingestion: an 8 MB Markdown document uploaded and waited for
//!   (`?wait=60`: parse in the child, chunk, store, index commit): MB/s.
//! - Search at `KNOWLEDGE_BENCH_CHUNKS` chunks (default 100,000, in ~1.5 MB
//!   documents of a seeded synthetic vocabulary): `POST
//!   /api/knowledge/search` latency, BM25, 1,000 queries of 2–4 words, one
//!   at a time (HTTP included).
//! - Vectors: a feature-hashing embedder (character trigrams, 384
//!   dimensions) on loopback embeds the corpus; then `vector` and `hybrid`
//!   latency by the exact scan of the cached vectors (the server started
//!   with an exact-scan bound past the corpus), then, restarted with the
//!   default bound (50,000), by the HNSW graph once built.
//! - Memory: the index's bytes on disk and the server's RSS.
//!
//! Run: `cargo bench --bench knowledge` (prints markdown tables).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/mod.rs"]
mod support;

const KEY: &str = "bench-key-0123456789abcdef0123456789";
const QUERIES: usize = 1_000;

/// A small seeded generator (xorshift), so every run indexes the same text.
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word of a 20,000-word vocabulary, frequent words more often
    /// (the square of a uniform draw leans to small ranks).
    fn word(&mut self) -> String {
        let u = (self.next() % 10_000) as f64 / 10_000.0;
        let rank = (u * u * 20_000.0) as u64;
        let mut word = String::new();
        let mut n = rank + 7;
        while n > 0 {
            word.push(char::from(b'a' + (n % 23) as u8));
            n /= 23;
        }
        word
    }

    /// Markdown of about `bytes`: a heading every 20 paragraphs.
    fn markdown(&mut self, bytes: usize) -> String {
        let mut text = String::with_capacity(bytes + 2_000);
        let mut paragraph = 0;
        while text.len() < bytes {
            if paragraph % 20 == 0 {
                text.push_str(&format!("## Part {}\n\n", paragraph / 20));
            }
            for _ in 0..180 {
                text.push_str(&self.word());
                text.push(' ');
            }
            text.push_str(".\n\n");
            paragraph += 1;
        }
        text
    }
}

/// Character trigrams of the lower-cased text hashed into 384 buckets.
fn trigram_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 384];
    let chars: Vec<char> = text.to_lowercase().chars().collect();
    for w in chars.windows(3) {
        let mut h: u32 = 2_166_136_261;
        for c in w {
            h = (h ^ *c as u32).wrapping_mul(16_777_619);
        }
        v[(h % 384) as usize] += 1.0;
    }
    v
}

/// The embedding server: `POST /v1/embeddings` answered with trigram
/// vectors.
async fn serve_embeddings(mut socket: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    while let Some((_, body)) = support::read_http_request(&mut socket).await {
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let data: Vec<Value> = request["input"]
            .as_array()
            .map(|inputs| {
                inputs
                    .iter()
                    .enumerate()
                    .map(|(i, t)| json!({"index": i, "embedding": trigram_vector(t.as_str().unwrap_or(""))}))
                    .collect()
            })
            .unwrap_or_default();
        let answer = json!({"object": "list", "data": data}).to_string();
        let out = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if socket.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// `count` timed searches of 2–4 vocabulary words in `mode`, after 20
/// unmeasured ones.
async fn timed_searches(
    http: &reqwest::Client,
    base: &str,
    words: &mut Words,
    mode: &str,
    count: usize,
) -> (Vec<Duration>, usize) {
    let mut times = Vec::with_capacity(count);
    let mut found = 0;
    for q in 0..count + 20 {
        let n = 2 + (words.next() % 3) as usize;
        let query: Vec<String> = (0..n).map(|_| words.word()).collect();
        let started = Instant::now();
        let answer = support::post_json(
            http,
            base,
            KEY,
            "/api/knowledge/search",
            json!({"query": query.join(" "), "mode": mode, "topK": 6}),
        )
        .await;
        let took = started.elapsed();
        assert_eq!(answer["mode"], mode, "{answer}");
        assert_eq!(answer["partial"], false, "{answer}");
        if q >= 20 {
            times.push(took);
            found += answer["results"].as_array().map_or(0, Vec::len);
        }
    }
    times.sort();
    (times, found)
}

/// A multipart body of one file part.
fn multipart(name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "confer-bench-boundary-7d1f";
    let mut body = format!(
        "--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{name}\"\r\ncontent-type: text/markdown\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Uploads `text` and waits for its job; the document.
async fn upload(http: &reqwest::Client, base: &str, name: &str, text: &str) -> Value {
    let (content_type, body) = multipart(name, text.as_bytes());
    let reply = http
        .post(format!("{base}/api/knowledge/upload?wait=60"))
        .bearer_auth(KEY)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    assert!(reply.status().is_success(), "{name}: {}", reply.status());
    let document: Value = reply.json().await.unwrap();
    assert_eq!(document["status"], "ready", "{document}");
    document
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// The server on `data`, allowed to call the loopback embedder; with
/// `exact_scan_max` when given. `KNOWLEDGE_BENCH_LOG=1` shows its log
/// (each document's phases in its "ready" line).
fn server_command(data: &std::path::Path, exact_scan_max: Option<usize>) -> std::process::Command {
    let mut command = support::confer_command(data, KEY);
    command.env("CONFER_OUTBOUND_ALLOW", "127.0.0.1");
    if std::env::var_os("KNOWLEDGE_BENCH_LOG").is_some() {
        command.env("CONFER_LOG", "info").stderr(Stdio::inherit());
    } else {
        command.stderr(Stdio::null());
    }
    if let Some(max) = exact_scan_max {
        command.env("CONFER_KNOWLEDGE_EXACT_SCAN_MAX", max.to_string());
    }
    command
}

#[tokio::main]
async fn main() {
    let chunks_wanted: usize = std::env::var("KNOWLEDGE_BENCH_CHUNKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let embedder = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let _ = socket.set_nodelay(true);
            tokio::spawn(serve_embeddings(socket));
        }
    });
    let data = tempfile::tempdir().unwrap();
    // The exact scan at every size first (the graph rows restart the
    // server with the default bound).
    let (child, base) = support::spawn_listening(server_command(data.path(), Some(usize::MAX)));
    let mut server = support::RunningServer { child, base, data };
    let pid = server.child.id();
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let base = server.base.clone();
    let mut words = Words(0x9e37_79b9_7f4a_7c15);

    // Ingestion of one 8 MB document, end to end; and its chunking alone,
    // in this process (the part of it the splitter takes).
    let big = words.markdown(8_000_000);
    let chunking = Instant::now();
    let drafts = confer::knowledge::chunk::chunks(&big, None);
    let chunking = chunking.elapsed();
    assert!(!drafts.is_empty());
    let started = Instant::now();
    let document = upload(&http, &base, "big.md", &big).await;
    let took = started.elapsed();
    let mut chunks = document["chunk_count"].as_u64().unwrap() as usize;
    let ingest_mbs = big.len() as f64 / 1e6 / took.as_secs_f64();

    // The rest of the corpus, in ~1.5 MB documents.
    let mut seeded_bytes = big.len();
    let seeding = Instant::now();
    let mut n = 0;
    while chunks < chunks_wanted {
        let text = words.markdown(1_500_000);
        seeded_bytes += text.len();
        let document = upload(&http, &base, &format!("part-{n}.md"), &text).await;
        chunks += document["chunk_count"].as_u64().unwrap() as usize;
        n += 1;
    }
    let seeding_mbs = (seeded_bytes - big.len()) as f64 / 1e6 / seeding.elapsed().as_secs_f64();

    // Queries of 2–4 words of the vocabulary.
    let (times, found) = timed_searches(&http, &base, &mut words, "bm25", QUERIES).await;
    let bm25_rss = support::rss_mib(pid);

    // Vectors of every chunk, then the vector and hybrid searches.
    let embedding = Instant::now();
    let put = http
        .put(format!("{base}/api/knowledge/embeddings"))
        .bearer_auth(KEY)
        .json(&json!({"baseUrl": format!("http://{embedder}/v1"), "model": "trigram-384", "batchSize": 2048}))
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{}", put.status());
    loop {
        let status: Value = http
            .get(format!("{base}/api/knowledge/embeddings"))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if status["pending_chunks"] == 0 && status["dims"] == 384 {
            break;
        }
        assert!(status["last_error"].is_null(), "{status}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let embedded_per_s = chunks as f64 / embedding.elapsed().as_secs_f64();
    let (vector_times, _) = timed_searches(&http, &base, &mut words, "vector", 300).await;
    let (hybrid_times, _) = timed_searches(&http, &base, &mut words, "hybrid", 300).await;
    let scan_rss = support::rss_mib(pid);

    // The same store behind the default bound: the first vector search
    // starts the graph; timed once it answers.
    support::kill_server(&mut server.child);
    let (child, base) = support::spawn_listening(server_command(server.data.path(), None));
    server.child = child;
    server.base = base.clone();
    let pid = server.child.id();
    let building = Instant::now();
    loop {
        let answer = support::post_json(
            &http,
            &base,
            KEY,
            "/api/knowledge/search",
            json!({"query": words.word(), "mode": "vector"}),
        )
        .await;
        if answer["partial"] == false && answer["mode"] == "vector" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let graph_build = building.elapsed();
    let (graph_times, _) = timed_searches(&http, &base, &mut words, "vector", 300).await;
    let (graph_hybrid_times, _) = timed_searches(&http, &base, &mut words, "hybrid", 300).await;
    let graph_rss = support::rss_mib(pid);

    let index_bytes = dir_bytes(&server.data.path().join("knowledge/index"));
    println!(
        "\n## Knowledge ({chunks} chunks, {:.0} MB of Markdown)\n",
        seeded_bytes as f64 / 1e6
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!("| ingestion, one 8 MB document (MB/s) | {ingest_mbs:.1} |");
    println!("| ingestion, 1.5 MB documents one after another (MB/s) | {seeding_mbs:.1} |");
    println!(
        "| of which chunking the 8 MB document, in-process (s; MB/s) | {:.2}; {:.1} |",
        chunking.as_secs_f64(),
        big.len() as f64 / 1e6 / chunking.as_secs_f64()
    );
    println!(
        "| tantivy index on disk (MiB) | {:.1} |",
        index_bytes as f64 / 1048576.0
    );
    println!("| server RSS after the BM25 queries (MiB) | {bm25_rss:.1} |");
    println!("| server RSS with 384-d vectors cached (MiB) | {scan_rss:.1} |");
    println!(
        "| HNSW graph of the corpus, built from the first search (s) | {:.1} |",
        graph_build.as_secs_f64()
    );
    println!("| server RSS after a restart, vectors and graph cached (MiB) | {graph_rss:.1} |");
    println!("| embedding the corpus, loopback embedder (chunks/s) | {embedded_per_s:.0} |");
    println!(
        "| results per query (mean of topK 6) | {:.2} |",
        found as f64 / QUERIES as f64
    );
    support::print_latencies(&[
        ("bm25 search, HTTP included (ms)", &times),
        ("vector search, exact scan, 384-d (ms)", &vector_times),
        ("hybrid search, 384-d, exact scan (ms)", &hybrid_times),
        ("vector search, HNSW graph, 384-d (ms)", &graph_times),
        ("hybrid search, 384-d, HNSW graph (ms)", &graph_hybrid_times),
    ]);
}
