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
