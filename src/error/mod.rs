//! The HTTP error contract: one enum, mapped to `{"error": CODE, "detail": ...}`
//! and its status in one place. Details name the offending field and never carry
//! internals: a storage failure is logged and answered with a generic detail.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use confer_actors::codes::{self, ErrorCode};
use confer_actors::{BrokenRule, Refusal, StoreError};

use crate::plans::PlanError;
use crate::store::update::Updated;
use serde::Serialize;

/// An error answered to an API client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the body or query is not a valid request.
    #[error("{0}")]
    BadRequest(String),
    /// 401: missing or invalid credentials.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: the caller may not use this resource.
    #[error("{0}")]
    Forbidden(String),
    /// 404: nothing by that ID in the caller's org.
    #[error("{0}")]
    NotFound(String),
    /// 409: the resource's state forbids the request.
    #[error("{0}")]
    Conflict(String),
    /// 412: `If-Match` named another version; the body carries the
    /// current object so that the client can merge and retry.
    #[error("{detail}")]
    PreconditionFailed {
        detail: String,
        current: serde_json::Value,
    },
    /// 413: the body is over the configured limit.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// 422: well-formed, but a value breaks a rule.
    #[error("{0}")]
    Validation(String),
    /// 422 naming each field that breaks its schema (`errors`, ≤ 10; the
    /// detail names the first).
    #[error("{}", crate::runners::schema::first_error(.0))]
    InvalidFields(Vec<crate::runners::schema::FieldError>),
    /// 408: the client stopped sending its request.
    #[error("{0}")]
    RequestTimeout(String),
    /// 429: over a rate limit; `retry_after` seconds until one more is allowed.
    #[error("{detail}")]
    RateLimited {
        detail: String,
        limit: u32,
        retry_after: u64,
    },
    /// A refusal with its own code (`PUBLICATION_PAUSED`,
    /// `BUDGET_EXHAUSTED`…), its status the code's; a 429 or 503 says when
    /// to come back (`retry_after` seconds, else 1).
    #[error("{detail}")]
    Refused {
        code: ErrorCode,
        detail: String,
        retry_after: Option<u64>,
    },
    /// A refusal of the turn engine (`streams.md`); its status is the
    /// code's in the table (`confer_actors::codes`).
    #[error("{detail}")]
    Turn { code: ErrorCode, detail: String },
    /// A request's own model call failed: the stream's code, answered 429,
    /// 504 or 502 (`marketplace-channels.md` §4).
    #[error("{detail}")]
    Vendor { code: ErrorCode, detail: String },
    /// 503: a store flush failed (nothing more is acknowledged), or the
    /// PostgreSQL store did not answer this time.
    #[error("{0}")]
    StoreUnavailable(String),
    /// 500: logged in full, answered with a generic detail.
    #[error("internal error")]
    Internal(String),
}

/// The JSON error body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody<'a> {
    pub error: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'a str>,
}

/// The JSON body of a 412: the error and the current object.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct StaleBody<'a> {
    pub error: &'a str,
    pub detail: &'a str,
    /// The object as it is now (a plan or a todo).
    #[schema(value_type = Object)]
    pub current: &'a serde_json::Value,
}

impl ApiError {
    /// A 422 naming `field`.
    pub fn invalid(field: &str, rule: impl std::fmt::Display) -> Self {
        Self::Validation(format!("{field}: {rule}"))
    }

    /// A 404 for a missing `what` (e.g. "agent").
    pub fn not_found(what: &str) -> Self {
        Self::NotFound(format!("{what} not found"))
    }

    /// The contract's code string.
    pub fn code(&self) -> &'static str {
        self.error_code().code
    }

    /// The code's entry in the one table of codes (`confer_actors::codes`).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            Self::BadRequest(_) => codes::BAD_REQUEST,
            Self::Unauthorized(_) => codes::UNAUTHORIZED,
            Self::Forbidden(_) => codes::FORBIDDEN,
            Self::NotFound(_) => codes::NOT_FOUND,
            Self::Conflict(_) => codes::CONFLICT,
            Self::PreconditionFailed { .. } => codes::PRECONDITION_FAILED,
            Self::PayloadTooLarge(_) => codes::PAYLOAD_TOO_LARGE,
            Self::Validation(_) | Self::InvalidFields(_) => codes::VALIDATION_ERROR,
            Self::RequestTimeout(_) => codes::REQUEST_TIMEOUT,
            Self::RateLimited { .. } => codes::RATE_LIMITED,
            Self::StoreUnavailable(_) => codes::STORE_UNAVAILABLE,
            Self::Turn { code, .. } | Self::Refused { code, .. } | Self::Vendor { code, .. } => {
                *code
            }
            Self::Internal(_) => codes::INTERNAL,
        }
    }

    fn detail(&self) -> &str {
        match self {
            Self::Internal(_) => "internal error",
            Self::InvalidFields(errors) => errors.first().map_or("invalid", |e| e.message.as_str()),
            Self::BadRequest(d)
            | Self::Unauthorized(d)
            | Self::Forbidden(d)
            | Self::NotFound(d)
            | Self::Conflict(d)
            | Self::PayloadTooLarge(d)
            | Self::Validation(d)
            | Self::RequestTimeout(d)
            | Self::StoreUnavailable(d)
            | Self::RateLimited { detail: d, .. }
            | Self::PreconditionFailed { detail: d, .. }
            | Self::Turn { detail: d, .. }
            | Self::Vendor { detail: d, .. }
            | Self::Refused { detail: d, .. } => d,
        }
    }
}

/// The code for a bare status (a 405 from routing, say).
pub fn code_for_status(status: StatusCode) -> &'static str {
    let code = match status.as_u16() {
        400 => codes::BAD_REQUEST,
        401 => codes::UNAUTHORIZED,
        403 => codes::FORBIDDEN,
        404 => codes::NOT_FOUND,
        405 => codes::METHOD_NOT_ALLOWED,
        409 => codes::CONFLICT,
        408 => codes::REQUEST_TIMEOUT,
        412 => codes::PRECONDITION_FAILED,
        413 => codes::PAYLOAD_TOO_LARGE,
        415 => codes::UNSUPPORTED_MEDIA_TYPE,
        422 => codes::VALIDATION_ERROR,
        429 => codes::RATE_LIMITED,
        431 => codes::HEADERS_TOO_LARGE,
        s if s < 500 => codes::BAD_REQUEST,
        _ => codes::INTERNAL,
    };
    code.code
}

/// A JSON error response with `code` and `detail`.
pub fn error_response(status: StatusCode, code: &str, detail: Option<&str>) -> HttpResponse {
    let mut response = HttpResponse::build(status).json(ErrorBody {
        error: code,
        detail,
    });
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        if let Self::Vendor { code, .. } = self {
            return match code.code {
                "PROVIDER_RATE_LIMITED" => StatusCode::TOO_MANY_REQUESTS,
                "PROVIDER_TIMEOUT" => StatusCode::GATEWAY_TIMEOUT,
                _ => StatusCode::BAD_GATEWAY,
            };
        }
        self.error_code()
            .status
            .and_then(|status| StatusCode::from_u16(status).ok())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(%cause, "internal error");
        }
        if let Self::InvalidFields(errors) = self {
            return HttpResponse::UnprocessableEntity().json(serde_json::json!({
                "error": self.code(),
                "detail": self.to_string(),
                "errors": errors,
            }));
        }
        if let Self::PreconditionFailed { detail, current } = self {
            return HttpResponse::PreconditionFailed().json(StaleBody {
                error: self.code(),
                detail,
                current,
            });
        }
        let mut response = error_response(self.status_code(), self.code(), Some(self.detail()));
        if let Self::RateLimited {
            limit, retry_after, ..
        } = self
        {
            let headers = response.headers_mut();
            for (name, value) in [
                ("retry-after", retry_after.to_string()),
                ("ratelimit-limit", limit.to_string()),
                ("ratelimit-remaining", "0".to_owned()),
                ("ratelimit-reset", retry_after.to_string()),
            ] {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    headers.insert(header::HeaderName::from_static(name), value);
                }
            }
        }
        // Every other 429 and 503 says when to come back (`streams.md`).
        let status = self.status_code();
        if !matches!(self, Self::RateLimited { .. })
            && (status == StatusCode::TOO_MANY_REQUESTS
                || status == StatusCode::SERVICE_UNAVAILABLE)
        {
            let after = match self {
                Self::Refused {
                    retry_after: Some(after),
                    ..
                } => HeaderValue::from(*after),
                _ => HeaderValue::from_static("1"),
            };
            response.headers_mut().insert(header::RETRY_AFTER, after);
        }
        if matches!(self, Self::RequestTimeout(_)) {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// The turn engine's refusals: their code (and so status) and detail.
pub fn turn_refusal(refusal: TurnError) -> ApiError {
    let (code, detail) = match refusal {
        TurnError::Refused(Refusal::Rule(BrokenRule::AgentDeleted)) => {
            return ApiError::Conflict(BrokenRule::AgentDeleted.to_string());
        }
        TurnError::Refused(Refusal::Rule(BrokenRule::Invalid { field, detail })) => {
            return ApiError::invalid(&field, detail);
        }
        TurnError::Refused(Refusal::Busy) => (
            codes::THREAD_BUSY,
            "a turn is running or queued on this thread (ifBusy: reject)",
        ),
        TurnError::Refused(Refusal::QueueFull) => (
            codes::THREAD_QUEUE_FULL,
            "as many sends wait on this thread as it may queue (CONFER_MAX_QUEUED_PER_THREAD)",
        ),
        TurnError::Refused(Refusal::ShuttingDown) | TurnError::ShuttingDown => (
            codes::SHUTTING_DOWN,
            "the server is shutting down; try again when it is back",
        ),
        TurnError::Refused(Refusal::OrgQueueFull) => (
            codes::ORG_QUEUE_FULL,
            "the org runs as many turns as it may and its queue is full (CONFER_MAX_QUEUED_PER_ORG)",
        ),
        TurnError::Refused(Refusal::KeyReused) => (
            codes::IDEMPOTENCY_KEY_REUSED,
            "this Idempotency-Key was used for a different request on this thread",
        ),
        TurnError::Refused(Refusal::Unavailable) => (codes::INTERNAL, "internal error"),
        TurnError::Refused(Refusal::LeaseLapsing) => (
            codes::OWNER_UNAVAILABLE,
            "the node owning this thread is renewing its lease; retry in a moment",
        ),
        TurnError::TooManyReaders => (
            codes::TOO_MANY_READERS,
            "as many streams read this thread as it allows (CONFER_MAX_WATCHERS_PER_THREAD)",
        ),
        TurnError::StreamGap => (
            codes::STREAM_GAP,
            "the frames after that event are no longer kept; read the thread's messages",
        ),
    };
    ApiError::Turn {
        code,
        detail: detail.to_owned(),
    }
}

/// What the turn engine refused, as the HTTP layer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    /// The thread's actor did not admit a send.
    Refused(Refusal),
    /// One reader too many on a thread.
    TooManyReaders,
    /// A reattach after frames that are gone.
    StreamGap,
    /// A stream asked for while the server shuts down.
    ShuttingDown,
}

impl From<TurnError> for ApiError {
    fn from(error: TurnError) -> Self {
        turn_refusal(error)
    }
}

/// The record an update stored, 404 when it was gone (`what`: "agent"…),
/// or the change's own refusal.
pub fn stored<T>(outcome: Updated<T, ApiError>, what: &str) -> Result<T, ApiError> {
    match outcome {
        Updated::Stored(record) => Ok(record),
        Updated::Gone => Err(ApiError::not_found(what)),
        Updated::Refused(error) => Err(error),
    }
}

impl From<PlanError> for ApiError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::Invalid(detail) => Self::Validation(detail),
            PlanError::TodoNotFound => Self::not_found("todo"),
            PlanError::Stale(current) => Self::PreconditionFailed {
                detail: "If-Match: the object has changed; `current` is its present version".into(),
                current,
            },
            PlanError::NotApproved(reason) => Self::Conflict(reason.into()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => Self::StoreUnavailable(
                "the store failed to flush; retry when the service has restarted".into(),
            ),
            StoreError::Unreachable(detail) => {
                tracing::warn!(%detail, "the store did not answer");
                Self::StoreUnavailable("the store did not answer; retry in a second".into())
            }
            StoreError::Unstorable(field) => {
                Self::invalid(&field, "holds U+0000, which the store cannot keep")
            }
            StoreError::NotOnThisStore => Self::Refused {
                code: codes::NOT_ON_THIS_STORE,
                detail: "this feature's records are not kept in PostgreSQL yet; \
                         run it on a node with the sled store"
                    .into(),
                retry_after: None,
            },
            other => Self::Internal(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests;
