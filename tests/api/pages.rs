//! The web face's pages over HTTP (`publishing.md` "Pages" rules 1, 2, 8
//! and "Build" 2–3): the chat page's headers with the intersected framers,
//! the 404 of an unknown chat, embed.js, the hashed assets with their
//! integrity, caching and gzip, and the gzipped sizes.

use std::io::Read;

use base64::Engine as _;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::common::Server;
use crate::visitors::publish;

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// `(path, integrity)` of each asset the page loads.
fn assets_of(html: &str) -> Vec<(String, String)> {
    html.split("/assets/")
        .skip(1)
        .map(|rest| {
            let name = rest.split('"').next().unwrap().to_owned();
            let integrity = rest
                .split("integrity=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_owned();
            (format!("/assets/{name}"), integrity)
        })
        .collect()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[tokio::test]
async fn the_chat_page_is_framed_only_by_its_allowed_sites() {
    let server = Server::start();
    let admin = server.admin();
    admin
        .post(
            "/api/orgs/settings",
            json!({"allowedEmbedDomains": ["https://shop.example.com", "https://*.example.org"]}),
        )
        .await
        .expect(200);
    let agent = publish(
        &admin,
        "framed",
        json!({"allowedDomains": ["https://a.example.org"],
               "avatarUrl": "https://cdn.example.net/me.png"}),
    )
    .await;
    publish(&admin, "other", json!({})).await;
    // Without CONFER_PUBLIC_URL, links name the address Confer listens on
    // (they named the bind setting, port 0, before).
    let shown = admin
        .get(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    assert_eq!(shown["url"], format!("{}/c/framed", server.base));
    let client = reqwest::Client::new();
    let get = |path: &str, gzip: bool| {
        let mut request = client.get(format!("{}{path}", server.base));
        if gzip {
            request = request.header("accept-encoding", "gzip");
        }
        request.header("origin", "https://shop.example.com").send()
    };

    let page = get("/c/framed", false).await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(
        header(&page, "content-security-policy"),
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: \
         https://cdn.example.net; connect-src 'self'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'self' https://a.example.org; require-trusted-types-for 'script'; \
         trusted-types 'none'"
    );
    assert_eq!(header(&page, "x-frame-options"), "");
    assert_eq!(header(&page, "cache-control"), "no-cache");
    assert_eq!(header(&page, "referrer-policy"), "no-referrer");
    assert_eq!(header(&page, "x-content-type-options"), "nosniff");
    assert!(
        page.headers()
            .keys()
            .all(|n| !n.as_str().starts_with("access-control-"))
    );
    let html = page.text().await.unwrap();
    assert!(
        !html.contains("<script>") && !html.contains("style="),
        "no inline code"
    );
    let assets = assets_of(&html);
    assert_eq!(assets.len(), 2, "{html}");

    // The org's own list (the other publication) frames from both entries.
    let other = get("/c/other", false).await.unwrap();
    assert!(
        header(&other, "content-security-policy")
            .contains("frame-ancestors 'self' https://shop.example.com https://*.example.org;")
    );

    // Each asset is what the page's integrity says, cached for a year,
    // gzipped when accepted; the total stays small.
    let mut gzipped_total = html.len() as u64;
    let zipped_page = get("/c/framed", true).await.unwrap().bytes().await.unwrap();
    if zipped_page.starts_with(&[0x1f, 0x8b]) {
        gzipped_total = zipped_page.len() as u64;
    }
    for (path, integrity) in &assets {
        let plain = get(path, false).await.unwrap();
        assert_eq!(plain.status(), 200, "{path}");
        assert_eq!(
            header(&plain, "cache-control"),
            "public, max-age=31536000, immutable"
        );
        let bytes = plain.bytes().await.unwrap();
        let digest = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&bytes));
        assert_eq!(integrity, &format!("sha256-{digest}"), "{path}");
        let zipped = get(path, true).await.unwrap();
        assert_eq!(header(&zipped, "content-encoding"), "gzip");
        let zipped = zipped.bytes().await.unwrap();
        assert_eq!(gunzip(&zipped), bytes.to_vec());
        gzipped_total += zipped.len() as u64;
    }
    eprintln!("chat page, gzipped: {gzipped_total} bytes");
    assert!(gzipped_total <= 40 * 1024, "{gzipped_total}");
    for missing in [
        "/assets/chat.html",
        "/assets/embed.js",
        "/assets/nope.0123456789.js",
    ] {
        assert_eq!(
            get(missing, false).await.unwrap().status(),
            404,
            "{missing}"
        );
    }

    // embed.js: the same bytes for every chat, cacheable, loadable from
    // another origin.
    let embed = get("/c/framed/embed.js", false).await.unwrap();
    assert_eq!(embed.status(), 200);
    assert_eq!(header(&embed, "cache-control"), "public, max-age=300");
    assert_eq!(
        header(&embed, "cross-origin-resource-policy"),
        "cross-origin"
    );
    assert!(header(&embed, "content-type").starts_with("text/javascript"));
    let bytes = embed.bytes().await.unwrap();
    let again = get("/c/other/embed.js", false)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes, again);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, &bytes).unwrap();
    let embed_gzipped = encoder.finish().unwrap().len();
    eprintln!("embed.js, gzipped: {embed_gzipped} bytes");
    assert!(embed_gzipped <= 6 * 1024);

    // An unknown chat: a 404 page framed by no one.
    let unknown = get("/c/nobody-here", false).await.unwrap();
    assert_eq!(unknown.status(), 404);
    assert!(header(&unknown, "content-type").starts_with("text/html"));
    assert!(header(&unknown, "content-security-policy").contains("frame-ancestors 'none'"));
    assert_eq!(header(&unknown, "x-frame-options"), "DENY");
    assert_eq!(
        get("/c/nobody-here/embed.js", false)
            .await
            .unwrap()
            .status(),
        404
    );

    // After the DELETE, the page and its launcher are gone.
    admin
        .delete(&format!("/api/agents/{agent}/publish"))
        .await
        .expect(200);
    assert_eq!(get("/c/framed", false).await.unwrap().status(), 404);
    assert_eq!(
        get("/c/framed/embed.js", false).await.unwrap().status(),
        404
    );
}

/// The console (`publishing.md` "Console" rule 3): its own policy (no
/// framer, images and frames from Confer only), `X-Frame-Options: DENY`,
/// `Cross-Origin-Opener-Policy`, never cached, no CORS, its assets by
/// integrity; 404 with `CONFER_CONSOLE=false`.
#[tokio::test]
async fn the_console_is_never_framed_or_cached() {
    let server = Server::start();
    let client = reqwest::Client::new();
    let page = client
        .get(format!("{}/console", server.base))
        .header("origin", "https://elsewhere.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(
        header(&page, "content-security-policy"),
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; \
         require-trusted-types-for 'script'; trusted-types 'none'; frame-ancestors 'none'"
    );
    assert_eq!(header(&page, "x-frame-options"), "DENY");
    assert_eq!(header(&page, "cross-origin-opener-policy"), "same-origin");
    assert_eq!(header(&page, "cache-control"), "no-store");
    assert!(
        page.headers()
            .keys()
            .all(|n| !n.as_str().starts_with("access-control-"))
    );
    let html = page.text().await.unwrap();
    assert!(!html.contains("<script>") && !html.contains("style="));
    let assets = assets_of(&html);
    assert_eq!(assets.len(), 2, "{html}");
    for (path, integrity) in &assets {
        let bytes = client
            .get(format!("{}{path}", server.base))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let digest = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&bytes));
        assert_eq!(integrity, &format!("sha256-{digest}"), "{path}");
    }

    let off = Server::start_with(crate::common::Options::default().env("CONFER_CONSOLE", "false"));
    let missing = client
        .get(format!("{}/console", off.base))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

/// `web/dist` is the build of `web/src` (`node web/build.mjs --check`), and
/// the sources pass `tsc --noEmit` in strict mode.
#[test]
fn the_web_build_is_fresh_and_type_checks() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let run = |program: &str, args: &[&str]| {
        let out = std::process::Command::new(program)
            .args(args)
            .current_dir(&web)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run("node", &["build.mjs", "--check"]);
    run(
        "node",
        &["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."],
    );
}
