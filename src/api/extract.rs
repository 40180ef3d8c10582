//! Request extractors shared by every handler: a JSON body whose errors name
//! the field (400), obey the body limit (413), the read timeout (408) and the
//! nesting limit (400) and never reach a handler, and a tri-state field for
//! PATCH bodies (absent / null / value).
//!
//! The rules beyond types (nesting depth, misspelled field names) are in
//! `body_rules`.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header::CONTENT_LENGTH;
use actix_web::web::{self, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use super::body_rules::{check_twins, nested_deeper_than, steps};
use crate::error::ApiError;

/// The request body rules, stored as app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit {
    /// Largest body in bytes (413 above).
    pub bytes: usize,
    /// Longest a client may take to send the body (408 after).
    pub timeout: std::time::Duration,
    /// Deepest JSON nesting (400 deeper).
    pub max_depth: usize,
}

impl Default for BodyLimit {
    fn default() -> Self {
        Self {
            bytes: 1024 * 1024,
            timeout: std::time::Duration::from_secs(10),
            max_depth: 64,
        }
    }
}

/// A JSON request body. Malformed JSON or wrong types are 400 with a detail
/// that starts with the field's path; a body over the limit is 413.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T> JsonBody<T> {
    /// The parsed body.
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Parses JSON, naming the path of the first offending field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    parse_json_with(bytes, BodyLimit::default().max_depth)
}

/// [`parse_json`] with a nesting limit.
pub fn parse_json_with<T: DeserializeOwned>(bytes: &[u8], max_depth: usize) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::BadRequest(
            "request body: expected a JSON object".into(),
        ));
    }
    if nested_deeper_than(bytes, max_depth) {
        return Err(ApiError::BadRequest(format!(
            "request body: nested deeper than {max_depth} levels"
        )));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let mut ignored = Vec::new();
    let mut record = |path: serde_ignored::Path<'_>| ignored.push(steps(&path));
    let tracked = serde_ignored::Deserializer::new(&mut deserializer, &mut record);
    let value = serde_path_to_error::deserialize(tracked).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        // serde_json appends " at line L column C"; the path is more useful.
        let message = inner.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(head, _)| head);
        if path == "." || path.is_empty() {
            ApiError::BadRequest(format!("request body: {message}"))
        } else {
            ApiError::BadRequest(format!("{path}: {message}"))
        }
    })?;
    deserializer
        .end()
        .map_err(|_| ApiError::BadRequest("request body: trailing characters after JSON".into()))?;
    check_twins::<T>(bytes, &ignored)?;
    Ok(value)
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let rules = req.app_data::<BodyLimit>().copied().unwrap_or_default();
        let limit = rules.bytes;
        let declared = req
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            let too_large =
                || ApiError::PayloadTooLarge(format!("request body: larger than {limit} bytes"));
            if declared.is_some_and(|len| len > limit) {
                return Err(too_large());
            }
            let read = async {
                let mut body = BytesMut::new();
                while let Some(chunk) = payload.next().await {
                    let chunk = chunk.map_err(|e| {
                        ApiError::BadRequest(format!("request body: unreadable: {e}"))
                    })?;
                    if body.len() + chunk.len() > limit {
                        return Err(too_large());
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(body)
            };
            let body = tokio::time::timeout(rules.timeout, read)
                .await
                .map_err(|_| {
                    ApiError::RequestTimeout(format!(
                        "request body: not received within {} s",
                        rules.timeout.as_secs()
                    ))
                })??;
            parse_json_with(&body, rules.max_depth).map(JsonBody)
        })
    }
}

/// The `If-Match` of a PATCH or DELETE: the version the client last saw
/// (`"3"` or `3`; `*` or none: any). Anything else is 400.
#[derive(Clone, Copy, Debug, Default)]
pub struct IfMatch(pub Option<u64>);

impl IfMatch {
    fn parse(value: &str) -> Result<Option<u64>, ApiError> {
        let value = value.trim();
        if value == "*" {
            return Ok(None);
        }
        let bare = value.strip_prefix("W/").unwrap_or(value);
        let bare = bare
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(bare);
        bare.parse::<u64>()
            .map(Some)
            .map_err(|_| ApiError::BadRequest("If-Match: expected a version such as \"3\"".into()))
    }
}

impl FromRequest for IfMatch {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let parsed = match req.headers().get(actix_web::http::header::IF_MATCH) {
            None => Ok(Self(None)),
            Some(value) => value
                .to_str()
                .map_err(|_| ApiError::BadRequest("If-Match: not text".into()))
                .and_then(Self::parse)
                .map(Self),
        };
        std::future::ready(parsed)
    }
}

/// A PATCH field: absent (leave as is), `null` (clear) or a value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Patch<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<T> Patch<T> {
    /// `None` when absent, `Some(None)` when null, `Some(Some(v))` for a value.
    pub fn into_change(self) -> Option<Option<T>> {
        match self {
            Self::Absent => None,
            Self::Null => Some(None),
            Self::Value(value) => Some(Some(value)),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(value) => Self::Value(value),
            None => Self::Null,
        })
    }
}

/// Query-string errors (a non-numeric limit, say) as 400 naming the parameter.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|error, _| ApiError::BadRequest(format!("query: {error}")).into())
}

/// Path errors (an ID that is not a UUID) as 404: it names nothing.
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|_, _| ApiError::NotFound("no resource with that ID".into()).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Body {
        #[allow(dead_code)]
        name: String,
        #[serde(default)]
        title: Patch<String>,
        #[serde(default)]
        #[allow(dead_code)]
        timeout_ms: Option<u32>,
    }

    #[test]
    fn errors_name_the_field() {
        let error = parse_json::<Body>(br#"{"name":"a","timeoutMs":"x"}"#).unwrap_err();
        assert!(error.to_string().starts_with("timeoutMs:"), "{error}");
        let error = parse_json::<Body>(br#"{"title":"a"}"#).unwrap_err();
        assert!(
            error.to_string().contains("missing field `name`"),
            "{error}"
        );
        assert!(parse_json::<Body>(b"not json").is_err());
        assert!(parse_json::<Body>(b"").is_err());
    }

    #[test]
    fn if_match_takes_a_quoted_or_bare_version() {
        assert_eq!(IfMatch::parse("\"3\"").unwrap(), Some(3));
        assert_eq!(IfMatch::parse("3").unwrap(), Some(3));
        assert_eq!(IfMatch::parse("W/\"12\"").unwrap(), Some(12));
        assert_eq!(IfMatch::parse("*").unwrap(), None);
        assert!(IfMatch::parse("\"abc\"").is_err());
    }

    #[test]
    fn patch_tells_absent_from_null() {
        let body: Body = parse_json(br#"{"name":"a"}"#).unwrap();
        assert_eq!(body.title, Patch::Absent);
        let body: Body = parse_json(br#"{"name":"a","title":null}"#).unwrap();
        assert_eq!(body.title, Patch::Null);
        let body: Body = parse_json(br#"{"name":"a","title":"t"}"#).unwrap();
        assert_eq!(body.title, Patch::Value("t".into()));
    }
}
