//! A reply cut to its vendor's message limit (`marketplace-channels.md` §9):
//! Telegram 4,096 UTF-16 units, Slack 4,000 characters once `& < >` are
//! escaped, WhatsApp 4,096 characters. A chunk ends at the last blank line
//! in its second half, else the last newline there, else the last space,
//! else at the limit; at most 20 chunks, the last ending "…".

use super::ChannelKind;

/// Chunks a reply may have.
pub const MAX_CHUNKS: usize = 20;
const ELLIPSIS: char = '…';

/// A vendor's limit and how it counts a character.
struct Measure {
    limit: usize,
    units: fn(char) -> usize,
}

fn measure(kind: ChannelKind) -> Measure {
    match kind {
        ChannelKind::Telegram => Measure {
            limit: 4_096,
            units: char::len_utf16,
        },
        ChannelKind::Slack => Measure {
            limit: 4_000,
            units: |c| match c {
                '&' => 5,
                '<' | '>' => 4,
                _ => 1,
            },
        },
        ChannelKind::Whatsapp => Measure {
            limit: 4_096,
            units: |_| 1,
        },
    }
}

/// The byte index after the longest prefix of `text` within `limit` units.
fn fits(text: &str, limit: usize, units: fn(char) -> usize) -> usize {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += units(c);
        if used > limit {
            return at;
        }
    }
    text.len()
}

/// Where to cut `text` (longer than the limit) so the chunk fits.
fn cut_at(text: &str, limit: usize, units: fn(char) -> usize) -> usize {
    let end = fits(text, limit, units);
    let half = fits(text, limit / 2, units);
    let window = &text[half..end];
    let after = |found: Option<usize>, len: usize| found.map(|at| half + at + len);
    after(window.rfind("\n\n"), 2)
        .or_else(|| after(window.rfind('\n'), 1))
        .or_else(|| after(window.rfind(' '), 1))
        .filter(|at| *at > 0)
        .unwrap_or(end.max(text.chars().next().map_or(0, char::len_utf8)))
}

/// `reply` as the chunks `kind` takes, in order (none for an empty reply).
pub fn split(kind: ChannelKind, reply: &str) -> Vec<String> {
    let Measure { limit, units } = measure(kind);
    let mut chunks = Vec::new();
    let mut rest = reply.trim();
    while !rest.is_empty() {
        if chunks.len() == MAX_CHUNKS - 1 && fits(rest, limit, units) < rest.len() {
            // The last chunk: as much as fits with the ellipsis.
            let end = cut_at(rest, limit - units(ELLIPSIS), units);
            chunks.push(format!("{}{ELLIPSIS}", rest[..end].trim_end()));
            break;
        }
        let end = if fits(rest, limit, units) == rest.len() {
            rest.len()
        } else {
            cut_at(rest, limit, units)
        };
        let chunk = rest[..end].trim_end();
        if !chunk.is_empty() {
            chunks.push(chunk.to_owned());
        }
        rest = rest[end..].trim_start();
    }
    chunks
}

/// Slack's text: `& < >` escaped (its only rule for plain text).
pub fn slack_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_reply_is_one_chunk() {
        assert_eq!(split(ChannelKind::Telegram, "  hello  "), ["hello"]);
        assert!(split(ChannelKind::Slack, "   ").is_empty());
    }

    #[test]
    fn long_replies_break_at_paragraphs_then_lines_then_words() {
        let paragraph = format!("{}\n\n", "word ".repeat(500).trim_end());
        let reply = paragraph.repeat(4);
        let chunks = split(ChannelKind::Whatsapp, &reply);
        assert!(chunks.iter().all(|c| c.chars().count() <= 4_096));
        assert!(
            chunks.iter().all(|c| c.ends_with("word")),
            "{:?}",
            chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
        );
        assert_eq!(chunks.join(" ").split_whitespace().count(), 2_000);
        // No space at all: cut at the limit.
        let solid = "x".repeat(9_000);
        let cut = split(ChannelKind::Telegram, &solid);
        assert_eq!(
            cut.iter().map(String::len).collect::<Vec<_>>(),
            [4_096, 4_096, 808]
        );
    }

    #[test]
    fn telegram_counts_utf16_and_slack_counts_escapes() {
        let emoji = "😀".repeat(3_000); // 2 UTF-16 units each
        let chunks = split(ChannelKind::Telegram, &emoji);
        assert_eq!(chunks[0].chars().count(), 2_048);
        let angles = "<".repeat(1_500);
        let chunks = split(ChannelKind::Slack, &angles);
        assert_eq!(chunks[0].chars().count(), 1_000);
        assert_eq!(slack_escaped("a<b>&"), "a&lt;b&gt;&amp;");
    }

    #[test]
    fn at_most_twenty_chunks_the_last_with_an_ellipsis() {
        let reply = "word ".repeat(30_000);
        let chunks = split(ChannelKind::Whatsapp, &reply);
        assert_eq!(chunks.len(), MAX_CHUNKS);
        assert!(chunks[19].ends_with('…'));
        assert!(chunks[19].chars().count() <= 4_096);
    }
}
