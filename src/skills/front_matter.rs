//! `SKILL.md`'s front matter (`agent-extras.md` §1 "Parsing"): the YAML
//! between the opening `---` line and the next, read by serde-saphyr with
//! one document and small alias and depth budgets, then checked field by
//! field. A fault names `SKILL.md` and, for YAML, its line and column in
//! the file.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::SkillError;

/// The longest `name`.
const MAX_NAME: usize = 64;
/// The longest `description`, in characters.
const MAX_DESCRIPTION: usize = 1024;
const MAX_LICENSE: usize = 200;
const MAX_COMPATIBILITY: usize = 500;
/// The most `metadata` entries.
const MAX_METADATA: usize = 32;

/// What the front matter declares.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontMatter {
    pub name: String,
    pub description: String,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// Kept as written; it grants nothing.
    pub allowed_tools: Option<String>,
}

/// The YAML as written; other keys are ignored.
#[derive(Deserialize)]
struct Raw {
    name: Option<String>,
    description: Option<String>,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: Option<BTreeMap<String, String>>,
    #[serde(rename = "allowed-tools")]
    allowed_tools: Option<AllowedTools>,
}

/// `allowed-tools`: a space-separated string, or (as some authors write
/// it) a list, kept as one string.
#[derive(Deserialize)]
#[serde(untagged)]
enum AllowedTools {
    Line(String),
    List(Vec<String>),
}

fn fault(detail: impl std::fmt::Display) -> SkillError {
    SkillError::Invalid(format!("SKILL.md: {detail}"))
}

/// Splits `SKILL.md` into its front matter's YAML, the line the YAML
/// starts on (1-based), and the instructions after it.
fn split(text: &str) -> Result<(&str, usize, &str), SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().unwrap_or_default();
    if opening.trim_end() != "---" {
        return Err(fault("must open with a `---` line (line 1)"));
    }
    let start = opening.len();
    let mut at = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Ok((&text[start..at], 2, &text[at + line.len()..]));
        }
        at += line.len();
    }
    Err(fault("the front matter has no closing `---` line"))
}

/// The budgets of one front matter: one document, a few aliases, shallow.
fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_documents = 1;
    budget.max_aliases = 16;
    budget.max_anchors = 16;
    budget.max_depth = 16;
    budget.max_events = 10_000;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// Whether `name` is lowercase words of letters and digits joined by
/// single hyphens.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn bounded(field: &str, value: Option<String>, max: usize) -> Result<Option<String>, SkillError> {
    match value {
        Some(v) if v.chars().count() > max => {
            Err(fault(format!("{field}: at most {max} characters")))
        }
        other => Ok(other),
    }
}

/// Parses `SKILL.md`: its front matter and the instructions after it.
pub fn parse(text: &str) -> Result<(FrontMatter, &str), SkillError> {
    let (yaml, first_line, instructions) = split(text)?;
    let raw: Raw = serde_saphyr::from_str_with_options(yaml, options()).map_err(|error| {
        let message = error.to_string();
        let message = message.lines().next().unwrap_or("invalid YAML").to_owned();
        match error.location() {
            Some(at) => fault(format!(
                "{message} (line {}, column {})",
                at.line() + first_line as u64 - 1,
                at.column()
            )),
            None => fault(message),
        }
    })?;
    let name = raw.name.ok_or_else(|| fault("name: required"))?;
    if !is_valid_name(&name) {
        return Err(fault(format!(
            "name: lowercase letters and digits in words joined by `-`, at most {MAX_NAME}"
        )));
    }
    let description = raw
        .description
        .map(|d| d.trim().to_owned())
        .ok_or_else(|| fault("description: required"))?;
    if description.is_empty() || description.chars().count() > MAX_DESCRIPTION {
        return Err(fault(format!(
            "description: 1 to {MAX_DESCRIPTION} characters"
        )));
    }
    let metadata = raw.metadata.unwrap_or_default();
    if metadata.len() > MAX_METADATA {
        return Err(fault(format!("metadata: at most {MAX_METADATA} entries")));
    }
    let allowed_tools = raw.allowed_tools.map(|tools| match tools {
        AllowedTools::Line(line) => line,
        AllowedTools::List(list) => list.join(" "),
    });
    Ok((
        FrontMatter {
            name,
            description,
            license: bounded("license", raw.license, MAX_LICENSE)?,
            compatibility: bounded("compatibility", raw.compatibility, MAX_COMPATIBILITY)?,
            metadata,
            allowed_tools,
        },
        instructions,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail(text: &str) -> String {
        match parse(text) {
            Err(SkillError::Invalid(detail)) => detail,
            other => panic!("expected a fault, got {other:?}"),
        }
    }

    #[test]
    fn reads_the_fields_and_keeps_the_instructions() {
        let text = "---\nname: pdf-tools\ndescription: >\n  Work with PDFs.\nlicense: MIT\n\
                    metadata:\n  author: someone\nallowed-tools: Bash Read\nother: ignored\n---\n\
                    # PDF tools\nDo this.\n";
        let (front, instructions) = parse(text).unwrap();
        assert_eq!(front.name, "pdf-tools");
        assert_eq!(front.description, "Work with PDFs.");
        assert_eq!(front.license.as_deref(), Some("MIT"));
        assert_eq!(
            front.metadata.get("author").map(String::as_str),
            Some("someone")
        );
        assert_eq!(front.allowed_tools.as_deref(), Some("Bash Read"));
        assert_eq!(instructions, "# PDF tools\nDo this.\n");
    }

    #[test]
    fn a_yaml_fault_names_its_line_in_the_file() {
        let detail = detail("---\nname: a\ndescription: [unclosed\n---\nbody\n");
        assert!(detail.starts_with("SKILL.md: "), "{detail}");
        assert!(detail.contains("line "), "{detail}");
    }

    #[test]
    fn names_and_descriptions_are_checked() {
        assert!(detail("---\ndescription: d\n---\n").contains("name: required"));
        for bad in ["Pdf", "a--b", "-a", "a_b", &"a".repeat(65)] {
            let text = format!("---\nname: {bad}\ndescription: d\n---\n");
            assert!(detail(&text).contains("name:"), "{bad}");
        }
        assert!(detail("---\nname: a\n---\n").contains("description: required"));
        let long = "x".repeat(1025);
        assert!(
            detail(&format!("---\nname: a\ndescription: {long}\n---\n")).contains("description")
        );
        assert!(detail("no front matter").contains("---"));
        assert!(detail("---\nname: a\n").contains("closing"));
    }

    #[test]
    fn alias_bombs_stop_at_the_budget() {
        let mut text = String::from("---\nname: a\ndescription: d\nx0: &a0 [1]\n");
        for i in 1..30 {
            text.push_str(&format!("x{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1));
        }
        text.push_str("---\n");
        assert!(parse(&text).is_err());
    }
}
