//! Shards and preference without a database.

use super::*;

#[test]
fn a_thread_s_shard_is_stable_and_below_1024() {
    let thread = ThreadId::new();
    assert_eq!(Shard::of(thread), Shard::of(thread));
    assert!(Shard::of(thread).number() < SHARDS);
    // The rule, by hand: the first two bytes of SHA-256 of the id's text.
    let digest = Sha256::digest(thread.to_string().as_bytes());
    let expected = u16::from_be_bytes([digest[0], digest[1]]) % 1024;
    assert_eq!(Shard::of(thread).number(), expected);
}

#[test]
fn threads_spread_over_the_shards() {
    let mut seen = std::collections::HashSet::new();
    for _ in 0..5_000 {
        seen.insert(Shard::of(ThreadId::new()));
    }
    // 5,000 draws over 1,024 shards leave ~8 empty on average.
    assert!(seen.len() > 980, "only {} shards drawn", seen.len());
}

#[test]
fn shards_round_trip_through_smallint_and_refuse_out_of_range() {
    for shard in Shard::all() {
        assert_eq!(Shard::from_sql(shard.sql()), Some(shard));
    }
    assert_eq!(Shard::all().count(), 1024);
    assert_eq!(Shard::new(1024), None);
    assert_eq!(Shard::from_sql(-1), None);
    assert_eq!(Shard::from_sql(1024), None);
}

#[test]
fn a_leaving_node_moves_only_its_own_shards() {
    let preferred = |names: &[&str], shard: Shard| {
        names
            .iter()
            .max_by_key(|name| preference(name, shard))
            .map(|name| name.to_string())
    };
    let three = ["a", "b", "c"];
    let two = ["a", "b"];
    let mut counts = std::collections::HashMap::new();
    for shard in Shard::all() {
        let before = preferred(&three, shard).unwrap();
        let after = preferred(&two, shard).unwrap();
        if before != "c" {
            assert_eq!(before, after, "shard {shard} moved though its node stayed");
        }
        *counts.entry(before).or_insert(0) += 1;
    }
    for name in three {
        let n = counts[name];
        assert!((250..430).contains(&n), "{name} prefers {n} shards");
    }
}

#[test]
fn a_thread_drawn_in_a_shard_hashes_there() {
    for n in [0, 511, 1023] {
        let shard = Shard::new(n).unwrap();
        let thread = thread_in(shard);
        assert_eq!(Shard::of(thread), shard);
        assert_eq!(thread.0.get_version_num(), 7);
    }
}

#[test]
fn the_live_work_of_a_thread_is_the_apis_and_a_public_chats() {
    use super::forward::{LiveWork, thread_route};
    use actix_web::http::Method;
    let thread = ThreadId::new();
    let api = |public| LiveWork { thread, public };
    let at = |method: Method, path: String| thread_route(&method, &path);
    assert_eq!(
        at(Method::POST, format!("/api/threads/{thread}/messages")),
        Some(api(false))
    );
    assert_eq!(
        at(Method::DELETE, format!("/api/threads/{thread}")),
        Some(api(false))
    );
    let public = format!("/api/public/chat/help/threads/{thread}");
    for (method, tail) in [
        (Method::POST, "/messages"),
        (Method::POST, "/stop"),
        (Method::GET, "/stream"),
    ] {
        assert_eq!(
            at(method, format!("{public}{tail}")),
            Some(api(true)),
            "{tail}"
        );
    }
    // Not live work: a visitor's other routes, and a delete of a public
    // path (there is none).
    assert_eq!(at(Method::GET, format!("{public}/messages")), None);
    assert_eq!(at(Method::POST, format!("{public}/join")), None);
    assert_eq!(at(Method::DELETE, public.clone()), None);
    assert_eq!(
        at(Method::GET, "/api/public/chat/help/threads".into()),
        None
    );
    assert_eq!(
        at(Method::POST, "/api/threads/not-a-uuid/messages".into()),
        None
    );
}
