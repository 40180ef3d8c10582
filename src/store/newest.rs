//! A page of the newest records of an unordered scan, kept in bounded
//! memory: for listings whose order is not the key order (a channel's
//! contacts by their last message), so the page is chosen while the scan
//! runs instead of after collecting and sorting every record.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A record and the key it is ordered by; ordered by the key alone.
struct Keyed<K, T> {
    key: K,
    item: T,
}

impl<K: Ord, T> PartialEq for Keyed<K, T> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<K: Ord, T> Eq for Keyed<K, T> {}

impl<K: Ord, T> PartialOrd for Keyed<K, T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<K: Ord, T> Ord for Keyed<K, T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// The `limit` records of `items` with the greatest keys below `before`
/// (all when `None`), greatest first. Holds at most `limit + 1` records at
/// once, whatever the scan's length; the first error ends it.
pub fn greatest_below<T, K: Ord, E>(
    items: impl IntoIterator<Item = Result<T, E>>,
    key: impl Fn(&T) -> K,
    before: Option<&K>,
    limit: usize,
) -> Result<Vec<T>, E> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    // A min-heap of the greatest seen so far: its top is the one to drop.
    let mut kept = BinaryHeap::with_capacity(limit + 1);
    for item in items {
        let item = item?;
        let key = key(&item);
        if before.is_some_and(|before| key >= *before) {
            continue;
        }
        kept.push(Reverse(Keyed { key, item }));
        if kept.len() > limit {
            kept.pop();
        }
    }
    // Ascending order of `Reverse` is descending order of the keys.
    Ok(kept
        .into_sorted_vec()
        .into_iter()
        .map(|Reverse(k)| k.item)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(items: &[u32], before: Option<u32>, limit: usize) -> Vec<u32> {
        let items = items.iter().map(|&n| Ok::<_, ()>(n));
        greatest_below(items, |n| *n, before.as_ref(), limit).unwrap()
    }

    #[test]
    fn pages_go_from_the_greatest_down_and_hold_at_most_the_limit() {
        let items = [5, 1, 9, 3, 7, 2, 8];
        assert_eq!(page(&items, None, 3), [9, 8, 7]);
        assert_eq!(page(&items, Some(7), 3), [5, 3, 2]);
        assert_eq!(page(&items, Some(2), 3), [1]);
        assert_eq!(page(&items, None, 0), Vec::<u32>::new());
        assert_eq!(page(&items, None, 100), [9, 8, 7, 5, 3, 2, 1]);
        // The bound is reached: a million records, three kept.
        let many = (0..1_000_000u32).map(Ok::<_, ()>);
        let newest = greatest_below(many, |n| *n, None, 3).unwrap();
        assert_eq!(newest, [999_999, 999_998, 999_997]);
    }

    #[test]
    fn the_first_error_ends_the_scan() {
        let items = vec![Ok(1), Err("broken"), Ok(3)];
        assert_eq!(greatest_below(items, |n| *n, None, 2), Err("broken"));
    }
}
