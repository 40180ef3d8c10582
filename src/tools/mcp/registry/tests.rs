//! Reading the registry's list items.

use super::*;

#[test]
fn items_of_either_shape_are_read() {
    let nested = serde_json::json!({"server": {"name": "io.example/a", "description": "A",
        "version": "2.0.0", "websiteUrl": "https://a.example", "repository": {"url": "https://github.com/x/a"},
        "remotes": [{"type": "streamable-http", "url": "https://a.example/mcp",
                     "headers": [{"name": "Authorization", "isSecret": true}]},
                    {"type": "sse", "url": "https://{tenant}.a.example/sse"}]},
        "_meta": {OFFICIAL_META: {"status": "active", "updatedAt": "2026-01-01T00:00:00Z"}}});
    let server = parse_item(&nested).expect("read");
    assert_eq!(server.remotes.len(), 2);
    assert_eq!(server.remotes[0].transport, "streamable_http");
    assert!(server.remotes[0].headers[0].is_secret);
    assert!(server.installable);
    assert_eq!(
        server.repository_url.as_deref(),
        Some("https://github.com/x/a")
    );
    assert_eq!(server.updated_at.as_deref(), Some("2026-01-01T00:00:00Z"));
    let templated = serde_json::json!({"name": "io.example/b", "remotes": [
        {"type": "sse", "url": "https://{tenant}.b.example/sse"}]});
    assert!(!parse_item(&templated).expect("read").installable);
    assert!(parse_item(&serde_json::json!({"description": "no name"})).is_none());
}
