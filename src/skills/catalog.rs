//! The catalogue (`agent-extras.md` §1 "Browse"): skills written for
//! Confer, compiled in from `assets/skills/{name}/`, each parsed by the
//! same code as an upload (a test holds every one to it).

use super::{ArchiveFile, SkillContent, SkillError, build};

/// One catalogue skill: its key (the folder's name) and its files.
struct CatalogSkill {
    key: &'static str,
    files: &'static [(&'static str, &'static str)],
}

macro_rules! asset {
    ($skill:literal, $path:literal) => {
        (
            $path,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/skills/",
                $skill,
                "/",
                $path
            )),
        )
    };
}

const CATALOG: &[CatalogSkill] = &[
    CatalogSkill {
        key: "incident-report",
        files: &[asset!("incident-report", "SKILL.md")],
    },
    CatalogSkill {
        key: "meeting-notes",
        files: &[asset!("meeting-notes", "SKILL.md")],
    },
    CatalogSkill {
        key: "release-notes",
        files: &[asset!("release-notes", "SKILL.md")],
    },
    CatalogSkill {
        key: "sql-review",
        files: &[
            asset!("sql-review", "SKILL.md"),
            asset!("sql-review", "references/migrations.md"),
        ],
    },
];

/// The revision of every catalogue skill: the build that carries it.
pub const REVISION: &str = concat!("confer-", env!("CARGO_PKG_VERSION"));

/// The catalogue's keys, by name.
pub fn keys() -> impl Iterator<Item = &'static str> {
    CATALOG.iter().map(|skill| skill.key)
}

/// The content of the catalogue skill `key`, as the binary carries it;
/// `None` if there is no such key.
pub fn content(key: &str) -> Option<Result<SkillContent, SkillError>> {
    let skill = CATALOG.iter().find(|skill| skill.key == key)?;
    let files: Vec<ArchiveFile> = skill
        .files
        .iter()
        .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
        .collect();
    Some(build(files, None, "key"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_skill_parses_and_is_named_by_its_key() {
        let keys: Vec<&str> = keys().collect();
        assert!(keys.len() >= 4);
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "kept by name");
        for key in keys {
            let content = content(key).unwrap().unwrap();
            assert_eq!(content.front.name, key);
            assert!(content.front.description.len() > 40, "{key}");
        }
        assert!(content("nope").is_none());
    }
}
