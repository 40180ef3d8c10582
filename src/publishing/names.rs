//! Visitors' names in multiplayer threads (`publishing.md` "Multiplayer
//! configuration" rule 3): a host identity's name wins; else `chosen`
//! requires a `displayName` (1–40 characters, no control characters) and
//! `generated` gives `Guest NNNN`; a name already taken in the thread gets
//! ` 2`, ` 3`….

use super::DisplayNames;
use crate::error::ApiError;

/// Longest chosen name, in characters.
const MAX_CHARS: usize = 40;

/// The name a visitor joins a thread under.
pub fn display_name(
    rule: DisplayNames,
    given: Option<&str>,
    identity: Option<&str>,
    taken: &[String],
) -> Result<String, ApiError> {
    let base = match (identity, rule) {
        (Some(name), _) => name.trim().to_owned(),
        (None, DisplayNames::Chosen) => chosen(given)?,
        (None, DisplayNames::Generated) => {
            let mut bytes = [0u8; 2];
            // A failing OS generator still names the guest.
            let _ = getrandom::fill(&mut bytes);
            format!("Guest {:04}", u16::from_be_bytes(bytes) % 10_000)
        }
    };
    if !taken.contains(&base) {
        return Ok(base);
    }
    Ok((2..)
        .map(|n| format!("{base} {n}"))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or(base))
}

fn chosen(given: Option<&str>) -> Result<String, ApiError> {
    let name = given
        .map(str::trim)
        .ok_or_else(|| ApiError::invalid("displayName", "required by this chat"))?;
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_CHARS {
        return Err(ApiError::invalid(
            "displayName",
            format!("1 to {MAX_CHARS} characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::invalid("displayName", "no control characters"));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_follow_rule_three() {
        let taken = vec!["Ann".to_owned(), "Ann 2".to_owned()];
        assert_eq!(
            display_name(DisplayNames::Chosen, Some("Ann"), None, &taken).unwrap(),
            "Ann 3"
        );
        assert_eq!(
            display_name(DisplayNames::Chosen, Some("x"), Some("Host Name"), &[]).unwrap(),
            "Host Name"
        );
        for bad in [None, Some(""), Some("a\u{7}b"), Some(&*"n".repeat(41))] {
            assert!(
                display_name(DisplayNames::Chosen, bad, None, &[]).is_err(),
                "{bad:?}"
            );
        }
        let guest = display_name(DisplayNames::Generated, None, None, &[]).unwrap();
        assert!(guest.starts_with("Guest ") && guest.len() == 10, "{guest}");
    }
}
