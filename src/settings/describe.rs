//! `confer config`: the effective settings, each with the layer it came
//! from, secrets redacted.

use std::path::Path;

use figment::Provider;

use super::{Settings, VENDOR_ENV, layers};

/// The settings that hold secrets: `confer config` never prints their values.
pub(crate) const SECRET_KEYS: [&str; 10] = [
    "store",
    "e2b_api_key",
    "daytona_api_key",
    "bootstrap_api_key",
    "metrics_token",
    "jwt_secret",
    "secret_key",
    "secret_key_old",
    "anthropic_api_key",
    "openai_api_key",
];

/// `confer config`: the effective settings as TOML, each with the layer it
/// came from (`default`, the file, or the environment variable), secrets
/// shown as `"<redacted>"`. Fails as loading would.
pub fn describe(
    file: Option<&Path>,
    data_dir: Option<&Path>,
) -> Result<String, Box<figment::Error>> {
    Settings::load(file)?;
    let mut figment = layers(file);
    if let Some(dir) = data_dir {
        figment = figment.merge(figment::providers::Serialized::default("data_dir", dir));
    }
    let data = figment.data().map_err(Box::new)?;
    let mut lines = vec!["# confer's effective settings (secrets redacted)".to_owned()];
    let Some(dict) = data.get(&figment::Profile::Default) else {
        return Ok(lines.join("\n"));
    };
    for (key, value) in dict {
        let shown = if SECRET_KEYS.contains(&key.as_str()) {
            "\"<redacted>\"".to_owned()
        } else {
            toml_value(value)
        };
        let source = figment.find_metadata(key).map_or_else(
            || "default".to_owned(),
            |meta| match &meta.source {
                Some(figment::Source::File(path)) => format!("file {}", path.display()),
                _ if meta.name.contains("environment") => {
                    let prefix = if VENDOR_ENV.contains(&key.to_uppercase().as_str()) {
                        ""
                    } else {
                        "CONFER_"
                    };
                    format!("environment {prefix}{}", key.to_uppercase())
                }
                _ if meta.name.contains("Path") => "command line".to_owned(),
                _ => "default".to_owned(),
            },
        );
        lines.push(format!("{key} = {shown}  # {source}"));
    }
    Ok(lines.join("\n"))
}

/// A figment value as TOML (strings through JSON's escapes, which TOML's
/// basic strings share).
fn toml_value(value: &figment::value::Value) -> String {
    use figment::value::Value;
    match value {
        Value::String(_, text) => serde_json::Value::String(text.clone()).to_string(),
        Value::Char(_, c) => serde_json::Value::String(c.to_string()).to_string(),
        Value::Bool(_, b) => b.to_string(),
        Value::Num(_, n) => n
            .to_u128()
            .map(|u| u.to_string())
            .or_else(|| n.to_i128().map(|i| i.to_string()))
            .unwrap_or_else(|| format!("{:?}", n.to_f64().unwrap_or_default())),
        Value::Empty(..) => "\"\"".to_owned(),
        Value::Dict(_, dict) => format!(
            "{{ {} }}",
            dict.iter()
                .map(|(k, v)| format!("{k} = {}", toml_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(_, items) => format!(
            "[{}]",
            items.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
    }
}
