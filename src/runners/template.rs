//! A runner's instruction template (`runners.md` Objects): `minijinja`
//! over `{input, run, now}`, with chainable undefined (a missing input
//! field renders empty rather than failing the run) and fuel, so that a
//! template cannot loop for long on the worker.

use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value;

/// Instructions a template may execute (minijinja's fuel units).
const FUEL: u64 = 200_000;

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Chainable);
    env.set_fuel(Some(FUEL));
    env
}

/// Why a template was refused, naming its line when minijinja knows it.
fn described(error: &minijinja::Error) -> String {
    let detail = error
        .detail()
        .map_or_else(|| error.kind().to_string(), str::to_owned);
    match error.line() {
        Some(line) => format!("line {line}: {detail}"),
        None => detail.to_owned(),
    }
}

/// Checks that `source` compiles; the refusal names the line.
pub fn check(source: &str) -> Result<(), String> {
    let env = environment();
    env.template_from_str(source)
        .map(|_| ())
        .map_err(|e| described(&e))
}

/// Renders `source` over `input`, the run (`{id, runner_id, attempt}`) and
/// `now` (RFC 3339).
pub fn render(source: &str, input: &Value, run: &Value, now: &str) -> Result<String, String> {
    let env = environment();
    let template = env.template_from_str(source).map_err(|e| described(&e))?;
    template
        .render(minijinja::context! {
            input => minijinja::Value::from(minijinja::value::Serde(input)),
            run => minijinja::Value::from(minijinja::value::Serde(run)),
            now => now,
        })
        .map_err(|e| described(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_the_input_and_leaves_missing_fields_empty() {
        let out = render(
            "Summarize {{ input.topic }} for {{ input.who.name }}.",
            &json!({"topic": "tides"}),
            &json!({"id": "r"}),
            "2026-01-01T00:00:00Z",
        )
        .unwrap();
        assert_eq!(out, "Summarize tides for .");
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let refused = check("line one\n{{ input.x ").unwrap_err();
        assert!(refused.starts_with("line 2"), "{refused}");
    }

    #[test]
    fn a_long_loop_runs_out_of_fuel() {
        let refused = render(
            "{% for i in range(10000) %}{% for j in range(10000) %}x{% endfor %}{% endfor %}",
            &json!({}),
            &json!({}),
            "",
        )
        .unwrap_err();
        assert!(refused.contains("fuel"), "{refused}");
    }
}
