//! A publication's slug: its grammar, and the one made from an agent's
//! name when none is given.

/// Whether `slug` is a valid one: `^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$`.
pub fn is_valid_slug(slug: &str) -> bool {
    let bytes = slug.as_bytes();
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    (3..=48).contains(&bytes.len())
        && bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|b| edge(b) || *b == b'-')
}

/// A slug made from an agent's name: lowercased, other runs → `-`,
/// trimmed, at most 32 characters, then `-` and 6 of `[a-z2-7]` made from
/// `random` (`chat-…` when nothing of the name is left).
pub fn generated_slug(name: &str, random: [u8; 6]) -> String {
    let mut stem = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    let mut stem: String = stem.trim_matches('-').chars().take(32).collect();
    while stem.ends_with('-') {
        stem.pop();
    }
    if stem.is_empty() {
        stem = "chat".into();
    }
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let tail: String = random
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    format!("{stem}-{tail}")
}
