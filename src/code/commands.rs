//! A code agent's `allowed_commands` (`computer.md` §5): word patterns,
//! the last word of which may be `*` (`cargo test *`). A command passes
//! when it holds no unquoted shell operator and its words (split as a
//! POSIX shell would, by `shlex`) match a pattern. This is a guard against
//! a model wandering off its task; the sandbox is the boundary.

/// The most patterns a code agent may hold.
pub const MAX_PATTERNS: usize = 100;
/// The longest pattern, in bytes.
const MAX_PATTERN_BYTES: usize = 1_000;

/// A checked list of patterns, each as its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedCommands {
    patterns: Vec<Vec<String>>,
}

/// Why a pattern is refused: `(index, reason)`.
pub type PatternFault = (usize, &'static str);

impl AllowedCommands {
    /// Parses `patterns` (as stored or sent).
    pub fn parse(patterns: &[String]) -> Result<Self, PatternFault> {
        if patterns.len() > MAX_PATTERNS {
            return Err((MAX_PATTERNS, "at most 100 patterns"));
        }
        let mut parsed = Vec::with_capacity(patterns.len());
        for (at, pattern) in patterns.iter().enumerate() {
            if pattern.len() > MAX_PATTERN_BYTES {
                return Err((at, "at most 1000 bytes"));
            }
            if let Err(reason) = operators(pattern) {
                return Err((at, reason));
            }
            let words = shlex::split(pattern).ok_or((at, "unbalanced quotes"))?;
            if words.is_empty() || words[0] == "*" {
                return Err((at, "must start with a command word"));
            }
            if words[..words.len() - 1].iter().any(|w| w == "*") {
                return Err((at, "`*` may only be the last word"));
            }
            parsed.push(words);
        }
        Ok(Self { patterns: parsed })
    }

    /// Whether `command` may run: `Err` carries the reason that follows
    /// `command not allowed: `.
    pub fn check(&self, command: &str) -> Result<(), String> {
        operators(command).map_err(str::to_owned)?;
        let words = shlex::split(command).ok_or("unbalanced quotes")?;
        if words.is_empty() {
            return Err("empty command".into());
        }
        if self.patterns.iter().any(|p| matches(p, &words)) {
            Ok(())
        } else {
            Err(format!("`{}` matches no allowed pattern", words.join(" ")))
        }
    }
}

/// Whether `words` match `pattern` (a last `*` takes any number of words).
fn matches(pattern: &[String], words: &[String]) -> bool {
    match pattern.split_last() {
        Some((last, head)) if last == "*" => {
            words.len() >= head.len() && head.iter().zip(words).all(|(p, w)| p == w)
        }
        _ => pattern == words,
    }
}

/// Refuses the shell operators that would run more than the matched
/// words: `;`, `&`, `|`, `<`, `>` and newlines outside quotes, and `$(`
/// or a backquote anywhere but inside single quotes (bash expands them
/// in double quotes too).
fn operators(command: &str) -> Result<(), &'static str> {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let mut quote = Quote::None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (&quote, c) {
            (Quote::Single, '\'') => quote = Quote::None,
            (Quote::Single, _) => {}
            (_, '\\') => {
                chars.next();
            }
            (Quote::None, '\'') => quote = Quote::Single,
            (Quote::None, '"') => quote = Quote::Double,
            (Quote::Double, '"') => quote = Quote::None,
            (_, '`') => return Err("a backquote"),
            (_, '$') if chars.peek() == Some(&'(') => return Err("`$(`"),
            (Quote::None, ';') => return Err("an unquoted `;`"),
            (Quote::None, '&') => return Err("an unquoted `&`"),
            (Quote::None, '|') => return Err("an unquoted `|`"),
            (Quote::None, '<' | '>') => return Err("an unquoted redirection"),
            (Quote::None, '\n' | '\r') => return Err("a newline"),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(patterns: &[&str]) -> AllowedCommands {
        let owned: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        AllowedCommands::parse(&owned).unwrap()
    }

    #[test]
    fn a_trailing_star_takes_any_words_and_only_those_words_pass() {
        let rules = allowed(&["cargo test *", "git status"]);
        assert!(rules.check("cargo test -p x").is_ok());
        assert!(rules.check("cargo test").is_ok());
        assert!(rules.check("cargo  test 'a b'").is_ok());
        assert!(rules.check("git status").is_ok());
        assert!(rules.check("git status --short").is_err());
        assert!(
            rules
                .check("ls")
                .unwrap_err()
                .contains("matches no allowed")
        );
        assert!(rules.check("cargo build").is_err());
    }

    #[test]
    fn shell_operators_are_refused_unless_quoted() {
        let rules = allowed(&["cargo test *", "echo *"]);
        for refused in [
            "cargo test; id",
            "cargo test && id",
            "cargo test | tee x",
            "cargo test > out",
            "cargo test < in",
            "cargo test\nid",
            "cargo test $(id)",
            "cargo test \"$(id)\"",
            "cargo test `id`",
            "cargo test &",
        ] {
            assert!(rules.check(refused).is_err(), "{refused:?} passed");
        }
        assert!(rules.check("echo 'a; b | c $(d)'").is_ok());
        assert!(rules.check("echo \"a; b\"").is_ok());
        assert!(rules.check("echo a\\;b").is_ok());
        assert!(rules.check("echo 'open").is_err());
    }

    #[test]
    fn patterns_are_checked_when_set() {
        let parse = |p: &[&str]| {
            AllowedCommands::parse(&p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(parse(&["* test"]).unwrap_err().0, 0);
        assert_eq!(parse(&["ls", "cargo * x"]).unwrap_err().0, 1);
        assert!(parse(&[""]).is_err());
        assert!(parse(&["ls; id"]).is_err());
        assert!(parse(&vec!["ls"; 101]).is_err());
        assert!(parse(&vec!["ls"; 100]).is_ok());
        // An empty list allows nothing.
        assert!(parse(&[]).unwrap().check("ls").is_err());
    }
}
