//! Reading git's output: `ls-tree -r -z --long` (a tree's blobs with
//! their sizes, before any byte is read) and `cat-file --batch` (the
//! blobs).

use super::git::TreeEntry;

/// `ls-tree -r -z --long` output: `mode type object size\tpath\0`.
pub(super) fn parse_tree(listed: &[u8]) -> Result<Vec<TreeEntry>, String> {
    let mut entries = Vec::new();
    for record in listed.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let (meta, path) = record.split_once('\t').ok_or("unreadable tree")?;
        let words: Vec<&str> = meta.split_whitespace().collect();
        let [mode, _kind, object, size] = words.as_slice() else {
            return Err("unreadable tree".into());
        };
        entries.push(TreeEntry {
            path: path.to_owned(),
            mode: (*mode).to_owned(),
            object: (*object).to_owned(),
            size: size.parse().unwrap_or(0),
        });
    }
    Ok(entries)
}

/// `cat-file --batch` output: `object type size\n` then the bytes and `\n`.
pub(super) fn parse_batch(mut output: &[u8], count: usize) -> Result<Vec<Vec<u8>>, String> {
    let mut blobs = Vec::with_capacity(count);
    for _ in 0..count {
        let end = output
            .iter()
            .position(|b| *b == b'\n')
            .ok_or("unreadable blob")?;
        let header = String::from_utf8_lossy(&output[..end]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or("unreadable blob")?;
        let body = output
            .get(end + 1..end + 1 + size)
            .ok_or("unreadable blob")?;
        blobs.push(body.to_vec());
        output = output.get(end + 2 + size..).unwrap_or_default();
    }
    Ok(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_and_batch_output_are_read() {
        let tree = b"100644 blob aaa 5\tnotes/SKILL.md\x00120000 blob bbb 11\tnotes/link\x00";
        let entries = parse_tree(tree).unwrap();
        assert_eq!(entries[0].path, "notes/SKILL.md");
        assert_eq!(entries[0].size, 5);
        assert_eq!(entries[1].mode, "120000");
        let batch = b"aaa blob 5\nhello\nccc blob 2\nhi\n";
        assert_eq!(
            parse_batch(batch, 2).unwrap(),
            vec![b"hello".to_vec(), b"hi".to_vec()]
        );
        assert!(parse_batch(b"aaa blob 9\nshort\n", 1).is_err());
    }
}
