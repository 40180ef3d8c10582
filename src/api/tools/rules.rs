//! The rules of a tool's fields (`tools.md` §1), each a 422 naming the
//! field, and the mapping of the store's refusals.

use serde_json::Value;

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::tools::{OrgTool, ToolWrite};

const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<i64> = 100..=60_000;
/// A tool's timeout when its creation names none.
pub(super) const DEFAULT_TIMEOUT_MS: u32 = 10_000;
const MAX_DESCRIPTION_CHARS: usize = 4_096;
const MAX_PARAMETERS_BYTES: usize = 64 * 1024;
/// Names the platform keeps for its own tools.
const RESERVED_PREFIXES: [&str; 5] = ["plan_", "todo_", "query_", "count_", "computer_"];
/// The knowledge and memory tools' names (`knowledge.md` §7).
const RESERVED_NAMES: [&str; 6] = [
    "search_knowledge",
    "remember",
    "recall",
    "load_skill",
    "web_fetch",
    "web_search",
];

pub(super) fn validate_name(name: &str) -> Result<(), ApiError> {
    if !confer_actors::gating::is_model_facing_name(name) {
        return Err(ApiError::invalid(
            "name",
            "must be 1 to 64 characters of a-z, A-Z, 0-9, _ and -",
        ));
    }
    if name.contains("__") {
        return Err(ApiError::invalid("name", "must not contain `__`"));
    }
    if name == confer_actors::tools::PROPOSE_PROFILE_SWITCH
        || RESERVED_NAMES.contains(&name)
        || RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
    {
        return Err(ApiError::invalid(
            "name",
            "is reserved (propose_profile_switch, search_knowledge, remember, recall, load_skill, \
             web_fetch, web_search, or a \
             plan_, todo_, query_, count_ or computer_ prefix)",
        ));
    }
    Ok(())
}

pub(super) fn validate_description(description: &str) -> Result<(), ApiError> {
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(ApiError::invalid(
            "description",
            "must be at most 4096 characters",
        ));
    }
    Ok(())
}

pub(super) fn validate_parameters(parameters: &Value) -> Result<(), ApiError> {
    if parameters.get("type") != Some(&Value::from("object")) {
        return Err(ApiError::invalid(
            "parameters",
            "must be a JSON Schema object with \"type\": \"object\"",
        ));
    }
    if parameters.to_string().len() > MAX_PARAMETERS_BYTES {
        return Err(ApiError::invalid("parameters", "must be at most 64 KiB"));
    }
    Ok(())
}

pub(super) fn validate_timeout(timeout_ms: i64) -> Result<u32, ApiError> {
    if !TIMEOUT_RANGE_MS.contains(&timeout_ms) {
        return Err(ApiError::invalid(
            "timeoutMs",
            "must be between 100 and 60000",
        ));
    }
    Ok(u32::try_from(timeout_ms).unwrap_or(DEFAULT_TIMEOUT_MS))
}

pub(super) fn validate_url(state: &AppState, url: &str) -> Result<(), ApiError> {
    state
        .outbound
        .policy()
        .check_url(url)
        .map(drop)
        .map_err(|why| ApiError::invalid("url", why))
}

pub(super) fn written(
    outcome: Result<OrgTool, ToolWrite>,
    name: &str,
) -> Result<OrgTool, ApiError> {
    outcome.map_err(|why| match why {
        ToolWrite::NameTaken => {
            ApiError::Conflict(format!("a tool named `{name}` exists in this org"))
        }
        ToolWrite::Missing => ApiError::not_found("tool"),
    })
}
