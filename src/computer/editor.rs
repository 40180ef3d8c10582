//! `computer_edit`'s commands on a file's text (`computer.md` §3, in the
//! form of Anthropic's text editor tool): `view` numbers lines,
//! `str_replace` needs exactly one match, `insert` goes after a line. The
//! sandbox reads and writes the file; these functions only change text,
//! so they are tested without one.

/// How many lines around an edit its result shows, each side.
const AROUND: usize = 4;

/// `lines` numbered from `first` (1-based), as `view` shows them.
fn numbered<'a>(lines: impl Iterator<Item = &'a str>, first: usize) -> String {
    let mut out = String::new();
    for (at, line) in lines.enumerate() {
        out.push_str(&format!("{:>6}\t{line}\n", first + at));
    }
    out
}

/// `view` of a file's text, whole or `range` (1-based, inclusive; an end
/// of -1 is the last line).
pub fn view(content: &str, range: Option<(i64, i64)>) -> Result<String, String> {
    let lines: Vec<&str> = content.lines().collect();
    let Some((start, end)) = range else {
        return Ok(numbered(lines.iter().copied(), 1));
    };
    let last = lines.len() as i64;
    let end = if end == -1 { last } else { end };
    if start < 1 || start > last.max(1) || end < start || end > last {
        return Err(format!(
            "view_range [{start}, {end}] is outside the file's lines 1 to {last}"
        ));
    }
    let (from, to) = (start as usize - 1, end as usize);
    Ok(numbered(lines[from..to].iter().copied(), start as usize))
}

/// The lines around `[first, last]` (0-based line indexes) of `content`.
fn snippet(content: &str, first: usize, last: usize) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let from = first.saturating_sub(AROUND);
    let to = (last + AROUND + 1).min(lines.len());
    numbered(lines[from.min(to)..to].iter().copied(), from + 1)
}

/// `str_replace`: the new text and the edit with its surroundings.
pub fn str_replace(
    content: &str,
    path: &str,
    old: &str,
    new: &str,
) -> Result<(String, String), String> {
    if old.is_empty() {
        return Err("old_str must not be empty".into());
    }
    let found = content.matches(old).count();
    match found {
        0 => return Err(format!("old_str not found in {path}")),
        1 => {}
        n => {
            return Err(format!(
                "old_str found {n} times in {path}; it must be unique: add surrounding lines"
            ));
        }
    }
    // One match, so `find` is it.
    let at = content.find(old).unwrap_or(0);
    let replaced = format!("{}{new}{}", &content[..at], &content[at + old.len()..]);
    let first = content[..at].matches('\n').count();
    let last = first + new.matches('\n').count();
    Ok((replaced.clone(), snippet(&replaced, first, last)))
}

/// `insert`: `text` after line `after` (0 = the start).
pub fn insert(content: &str, after: usize, text: &str) -> Result<(String, String), String> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    if after > lines.len() {
        return Err(format!(
            "insert_line {after} is past the file's {} lines",
            lines.len()
        ));
    }
    let mut inserted = String::with_capacity(content.len() + text.len() + 1);
    for line in &lines[..after] {
        inserted.push_str(line);
    }
    if after > 0 && !inserted.ends_with('\n') {
        inserted.push('\n');
    }
    inserted.push_str(text);
    if !text.ends_with('\n') && after < lines.len() {
        inserted.push('\n');
    }
    for line in &lines[after..] {
        inserted.push_str(line);
    }
    let last = after + text.lines().count().max(1) - 1;
    Ok((inserted.clone(), snippet(&inserted, after, last)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_numbers_lines_and_checks_its_range() {
        let text = "a\nb\nc\n";
        assert_eq!(
            view(text, None).unwrap(),
            "     1\ta\n     2\tb\n     3\tc\n"
        );
        assert_eq!(view(text, Some((2, -1))).unwrap(), "     2\tb\n     3\tc\n");
        assert!(view(text, Some((3, 4))).is_err());
        assert!(view(text, Some((0, 1))).is_err());
    }

    #[test]
    fn str_replace_needs_exactly_one_match() {
        let text = "one\ntwo\nthree\ntwo\n";
        assert_eq!(
            str_replace(text, "f", "four", "4").unwrap_err(),
            "old_str not found in f"
        );
        assert!(
            str_replace(text, "f", "two", "2")
                .unwrap_err()
                .starts_with("old_str found 2 times in f")
        );
        let (new, shown) = str_replace(text, "f", "three", "3\n3b").unwrap();
        assert_eq!(new, "one\ntwo\n3\n3b\ntwo\n");
        assert!(shown.contains("     3\t3\n     4\t3b\n"), "{shown}");
    }

    #[test]
    fn insert_goes_after_its_line() {
        let text = "a\nb\n";
        assert_eq!(insert(text, 0, "z").unwrap().0, "z\na\nb\n");
        assert_eq!(insert(text, 1, "z\n").unwrap().0, "a\nz\nb\n");
        assert_eq!(insert(text, 2, "z").unwrap().0, "a\nb\nz");
        assert_eq!(insert("a", 1, "z").unwrap().0, "a\nz");
        assert!(insert(text, 3, "z").is_err());
    }
}
