//! The send body's vendor options (`vendor-options.md`):
//! `anthropicOverrides`, `openaiOverrides` and `streamThinking`. Unknown
//! keys inside either object are 400 (serde, naming the key); values out of
//! range are 422 (here, naming the field). Both objects are checked on every
//! send, whatever the model; each takes effect only for its vendor.

use confer_actors::vendor_options::{
    DEFAULT_THINKING_BUDGET, MAX_FALLBACK_MODELS, THINKING_BUDGET_RANGE,
};
use confer_actors::{AnthropicCache, AnthropicOptions, OpenAiOptions, VendorOptions};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// The longest `promptCacheKey` or `safetyIdentifier` (OpenAI's limit on
/// `safety_identifier`).
const MAX_IDENTIFIER_CHARS: usize = 64;

/// `anthropicOverrides`: options for vendor A models.
#[derive(Clone, Debug, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnthropicOverrides {
    /// Extended thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingBody>,
    /// Models tried in order when the model fails before its first token
    /// (unknown, refused, rate limited or down); any provider's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback_models: Option<Vec<String>>,
    /// Prompt caching (on by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheBody>,
}

/// `anthropicOverrides.thinking`.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThinkingBody {
    pub enabled: bool,
    /// 1,024 to 64,000 (default 10,000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<i64>,
}

/// `anthropicOverrides.cache`.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CacheBody {
    /// No cache breakpoint at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// `"5m"` (default) or `"1h"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    /// A breakpoint on the last tool definition (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_tools: Option<bool>,
}

/// `openaiOverrides`: options for vendor B (OpenAI-compatible) models.
#[derive(Clone, Debug, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenAiOverrides {
    /// Send neither `prompt_cache_key` nor `safety_identifier`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// Replaces the key derived from the thread (1 to 64 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// Replaces the identifier derived from the end user (1 to 64 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety_identifier: Option<String>,
}

/// The options of a send, validated (422 naming the field).
pub fn validated(
    anthropic: Option<&AnthropicOverrides>,
    openai: Option<&OpenAiOverrides>,
    stream_thinking: Option<bool>,
) -> Result<VendorOptions, ApiError> {
    Ok(VendorOptions {
        anthropic: anthropic
            .map(anthropic_options)
            .transpose()?
            .unwrap_or_default(),
        openai: openai.map(openai_options).transpose()?.unwrap_or_default(),
        stream_thinking: stream_thinking.unwrap_or(false),
        max_output_tokens: None,
    })
}

fn anthropic_options(body: &AnthropicOverrides) -> Result<AnthropicOptions, ApiError> {
    let thinking_budget = match &body.thinking {
        Some(thinking) => {
            let budget = thinking
                .budget_tokens
                .unwrap_or(i64::from(DEFAULT_THINKING_BUDGET));
            let range = THINKING_BUDGET_RANGE;
            let budget = u32::try_from(budget)
                .ok()
                .filter(|b| range.contains(b))
                .ok_or_else(|| {
                    ApiError::invalid(
                        "anthropicOverrides.thinking.budgetTokens",
                        format!("must be {} to {}", range.start(), range.end()),
                    )
                })?;
            thinking.enabled.then_some(budget)
        }
        None => None,
    };
    let fallback_models = body.fallback_models.clone().unwrap_or_default();
    if fallback_models.len() > MAX_FALLBACK_MODELS {
        return Err(ApiError::invalid(
            "anthropicOverrides.fallbackModels",
            format!("at most {MAX_FALLBACK_MODELS} models"),
        ));
    }
    if let Some(at) = fallback_models.iter().position(|m| m.trim().is_empty()) {
        return Err(ApiError::invalid(
            &format!("anthropicOverrides.fallbackModels[{at}]"),
            "must not be empty",
        ));
    }
    let mut cache = AnthropicCache::default();
    if let Some(body) = &body.cache {
        cache.disabled = body.disabled.unwrap_or(false);
        cache.tools = body.cache_tools.unwrap_or(true);
        cache.one_hour = match body.ttl.as_deref() {
            None | Some("5m") => false,
            Some("1h") => true,
            Some(_) => {
                return Err(ApiError::invalid(
                    "anthropicOverrides.cache.ttl",
                    "must be \"5m\" or \"1h\"",
                ));
            }
        };
    }
    Ok(AnthropicOptions {
        thinking_budget,
        fallback_models,
        cache,
    })
}

fn openai_options(body: &OpenAiOverrides) -> Result<OpenAiOptions, ApiError> {
    let identifier = |field: &str, value: &Option<String>| match value {
        Some(v) if v.is_empty() || v.chars().count() > MAX_IDENTIFIER_CHARS => {
            Err(ApiError::invalid(
                &format!("openaiOverrides.{field}"),
                format!("must be 1 to {MAX_IDENTIFIER_CHARS} characters"),
            ))
        }
        _ => Ok(value.clone()),
    };
    Ok(OpenAiOptions {
        disabled: body.disabled.unwrap_or(false),
        prompt_cache_key: identifier("promptCacheKey", &body.prompt_cache_key)?,
        safety_identifier: identifier("safetyIdentifier", &body.safety_identifier)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::extract::parse_json;

    fn anthropic(json: &str) -> Result<VendorOptions, ApiError> {
        let body: AnthropicOverrides = parse_json(json.as_bytes())?;
        validated(Some(&body), None, None)
    }

    fn detail(error: ApiError) -> (u16, String) {
        use actix_web::ResponseError;
        (error.status_code().as_u16(), error.to_string())
    }

    #[test]
    fn defaults_cache_and_think_not() {
        let options = validated(None, None, None).unwrap();
        assert_eq!(options, VendorOptions::default());
        assert!(options.anthropic.cache.tools && !options.anthropic.cache.disabled);
        let options = anthropic(r#"{"thinking": {"enabled": true}}"#).unwrap();
        assert_eq!(options.anthropic.thinking_budget, Some(10_000));
        let options = anthropic(r#"{"thinking": {"enabled": false, "budgetTokens": 2000}}"#);
        assert_eq!(options.unwrap().anthropic.thinking_budget, None);
        let options = anthropic(r#"{"cache": {"ttl": "1h", "cacheTools": false}}"#).unwrap();
        assert!(options.anthropic.cache.one_hour && !options.anthropic.cache.tools);
    }

    #[test]
    fn out_of_range_is_422_naming_the_field() {
        for (json, field) in [
            (
                r#"{"thinking": {"enabled": true, "budgetTokens": 1023}}"#,
                "budgetTokens",
            ),
            (
                r#"{"thinking": {"enabled": true, "budgetTokens": -1}}"#,
                "budgetTokens",
            ),
            (
                r#"{"thinking": {"enabled": true, "budgetTokens": 64001}}"#,
                "budgetTokens",
            ),
            (r#"{"cache": {"ttl": "2h"}}"#, "cache.ttl"),
            (r#"{"fallbackModels": ["a", " "]}"#, "fallbackModels[1]"),
            (
                r#"{"fallbackModels": ["a", "b", "c", "d", "e"]}"#,
                "fallbackModels",
            ),
        ] {
            let (status, text) = detail(anthropic(json).unwrap_err());
            assert_eq!(status, 422, "{json}");
            assert!(text.contains(field), "{json}: {text}");
        }
        let body: OpenAiOverrides =
            parse_json(format!(r#"{{"promptCacheKey": "{}"}}"#, "k".repeat(65)).as_bytes())
                .unwrap();
        let (status, text) = detail(validated(None, Some(&body), None).unwrap_err());
        assert_eq!(status, 422);
        assert!(text.contains("openaiOverrides.promptCacheKey"), "{text}");
    }

    #[test]
    fn unknown_keys_are_400_naming_the_key() {
        for json in [
            r#"{"thinking": {"enabled": true, "budget": 2000}}"#,
            r#"{"cache": {"ttl": "5m", "tll": "1h"}}"#,
            r#"{"fallback_models": []}"#,
        ] {
            let (status, text) = detail(anthropic(json).unwrap_err());
            assert_eq!(status, 400, "{json}");
            assert!(text.contains("unknown field"), "{json}: {text}");
        }
    }
}
