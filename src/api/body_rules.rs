//! Body rules beyond types, applied by `extract::JsonBody`:
//! - nesting: a body nested deeper than the limit is refused before parsing;
//! - unknown fields are ignored, except a field whose camelCase/snake_case
//!   twin is a known field of the same object (`default_model` for
//!   `defaultModel`): that is a 400 naming the right spelling, since the
//!   client meant it and would otherwise lose it silently. Keys of free-form
//!   maps (`metadata`…) are values, not fields, so the rule never sees them
//!   (serde_ignored reports only the keys a struct ignored).

use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Whether arrays and objects in `bytes` nest deeper than `max`.
pub fn nested_deeper_than(bytes: &[u8], max: usize) -> bool {
    // The depth is at most the number of openers: most bodies (a long flat
    // message) pass with this quick count, not the string-aware scan.
    let openers = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    openers > max && nesting_depth(bytes) > max
}

/// The deepest nesting of arrays and objects in `bytes` (strings skipped).
fn nesting_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

pub fn steps(path: &serde_ignored::Path<'_>) -> Vec<Step> {
    use serde_ignored::Path;
    match path {
        Path::Root => Vec::new(),
        Path::Seq { parent, index } => {
            let mut steps = steps(parent);
            steps.push(Step::Index(*index));
            steps
        }
        Path::Map { parent, key } => {
            let mut steps = steps(parent);
            steps.push(Step::Key(key.clone()));
            steps
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => steps(parent),
    }
}

fn dotted(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Step::Key(k) => k.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The other spelling of a field name: `default_model` ⇄ `defaultModel`.
fn twin(name: &str) -> Option<String> {
    let twin = if name.contains('_') {
        let mut out = String::new();
        let mut upper = false;
        for c in name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    } else {
        let mut out = String::new();
        for c in name.chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    };
    (twin != name && !twin.is_empty()).then_some(twin)
}

/// The fields of `value` that a `T` ignores.
fn ignored_fields<T: DeserializeOwned>(value: &serde_json::Value) -> Vec<Vec<Step>> {
    let mut ignored = Vec::new();
    let _ = serde_ignored::deserialize::<_, _, T>(value.clone(), |path| ignored.push(steps(&path)));
    ignored
}

/// Renames the key at `path` of `value` to `to`.
fn rename_at(value: &mut serde_json::Value, path: &[Step], to: &str) {
    let Some((Step::Key(last), parents)) = path.split_last() else {
        return;
    };
    let mut node = value;
    for step in parents {
        let next = match (step, node) {
            (Step::Key(k), serde_json::Value::Object(map)) => map.get_mut(k),
            (Step::Index(i), serde_json::Value::Array(items)) => items.get_mut(*i),
            _ => None,
        };
        let Some(next) = next else { return };
        node = next;
    }
    if let serde_json::Value::Object(map) = node
        && let Some(v) = map.remove(last)
    {
        map.insert(to.to_owned(), v);
    }
}

/// 400 when an ignored field is the misspelled twin of a known one.
pub fn check_twins<T: DeserializeOwned>(
    bytes: &[u8],
    ignored: &[Vec<Step>],
) -> Result<(), ApiError> {
    let candidates: Vec<(&Vec<Step>, String)> = ignored
        .iter()
        .filter_map(|path| match path.last() {
            Some(Step::Key(name)) => twin(name).map(|t| (path, t)),
            _ => None,
        })
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Ok(());
    };
    for (path, twin_name) in candidates {
        let mut probe = value.clone();
        rename_at(&mut probe, path, &twin_name);
        let mut twin_path = path.clone();
        if let Some(last) = twin_path.last_mut() {
            *last = Step::Key(twin_name.clone());
        }
        // Known if the probe no longer ignores it under its twin spelling.
        if !ignored_fields::<T>(&probe).contains(&twin_path) {
            return Err(ApiError::BadRequest(format!(
                "{}: unknown field; the field is spelled `{}`",
                dotted(path),
                dotted(&twin_path)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::extract::parse_json;
    use serde::Deserialize;

    #[test]
    fn misspelled_twins_are_named_and_free_form_keys_are_not() {
        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Inner {
            #[allow(dead_code)]
            user_id: Option<String>,
        }
        #[derive(Debug, Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Outer {
            #[allow(dead_code)]
            default_model: Option<String>,
            #[allow(dead_code)]
            #[serde(default)]
            people: Vec<Inner>,
            #[allow(dead_code)]
            metadata: Option<std::collections::BTreeMap<String, serde_json::Value>>,
        }
        let error = parse_json::<Outer>(br#"{"default_model":"x"}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "default_model: unknown field; the field is spelled `defaultModel`"
        );
        let error = parse_json::<Outer>(br#"{"people":[{"user_id":"u"}]}"#).unwrap_err();
        assert!(error.to_string().contains("`people.0.userId`"), "{error}");
        // Unknown fields without a known twin, and keys of free-form maps, pass.
        parse_json::<Outer>(br#"{"other_thing":1,"metadata":{"default_model":1}}"#).unwrap();
        parse_json::<Outer>(br#"{"defaultModel":"x"}"#).unwrap();
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        let error = parse_json::<serde_json::Value>(deep.as_bytes()).unwrap_err();
        assert!(
            error.to_string().contains("nested deeper than 64"),
            "{error}"
        );
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        parse_json::<serde_json::Value>(ok.as_bytes()).unwrap();
        // Brackets inside strings do not count.
        let quoted = format!("{{\"a\":\"{}\"}}", "[".repeat(100));
        parse_json::<serde_json::Value>(quoted.as_bytes()).unwrap();
    }
}
