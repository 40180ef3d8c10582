//! The price table: `config/prices.toml` compiled in, the operator's file
//! (`prices_file`) first, so its patterns win.

use anyhow::Context;
use confer_actors::PriceTable;

/// The compiled-in prices.
const DEFAULT_PRICES: &str = include_str!("../../config/prices.toml");

/// The operator's prices (if any) before the compiled-in ones.
pub fn load(operator_file: Option<&std::path::Path>) -> anyhow::Result<PriceTable> {
    let mut table = parse(DEFAULT_PRICES).context("config/prices.toml")?;
    if let Some(path) = operator_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading prices_file {}", path.display()))?;
        let mut first = parse(&text).with_context(|| format!("prices_file {}", path.display()))?;
        first.models.append(&mut table.models);
        table = first;
    }
    Ok(table)
}

fn parse(text: &str) -> anyhow::Result<PriceTable> {
    use figment::providers::{Format, Toml};
    let table: PriceTable = figment::Figment::from(Toml::string(text)).extract()?;
    if let Some(bad) = table.models.iter().find(|p| {
        [p.input, p.output, p.cache_read, p.cache_write]
            .iter()
            .any(|v| !v.is_finite() || *v < 0.0)
    }) {
        anyhow::bail!("the price of `{}` is negative or not a number", bad.pattern);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_table_parses_and_an_operator_file_comes_first() {
        let table = load(None).unwrap();
        assert!(table.price("anthropic", "claude-sonnet-4-5").is_some());
        assert!(table.price("builtin", "echo").is_some());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.toml");
        std::fs::write(
            &path,
            "[[model]]\npattern = \"claude-*\"\ninput = 1.0\noutput = 2.0\n",
        )
        .unwrap();
        let table = load(Some(&path)).unwrap();
        assert_eq!(
            table.price("anthropic", "claude-sonnet-4-5").unwrap().input,
            1.0
        );
        std::fs::write(
            &path,
            "[[model]]\npattern = \"x\"\ninput = -1.0\noutput = 2.0\n",
        )
        .unwrap();
        assert!(load(Some(&path)).is_err());
    }
}
