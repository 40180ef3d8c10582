//! Tests of the mapping of errors to HTTP answers.

use super::*;

#[test]
fn internal_errors_hide_their_cause() {
    let error = ApiError::Internal("/var/lib/confer/db: disk full".into());
    assert_eq!(error.detail(), "internal error");
    assert_eq!(error.status_code(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(error.code(), "INTERNAL");
}

/// Every code of the table is in docs/api.md, which promises them.
#[test]
fn the_contract_lists_every_code() {
    let contract = include_str!("../../docs/api.md");
    for code in codes::ALL {
        assert!(
            contract.contains(code.code),
            "{} is not in docs/api.md",
            code.code
        );
    }
}

#[test]
fn validation_names_the_field() {
    let error = ApiError::invalid("timeoutMs", "must be between 100 and 30000");
    assert_eq!(error.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error.detail().starts_with("timeoutMs:"));
}

#[test]
fn a_requests_own_vendor_failure_keeps_its_code_with_a_gateway_status() {
    for (code, status) in [
        (codes::PROVIDER_RATE_LIMITED, StatusCode::TOO_MANY_REQUESTS),
        (codes::PROVIDER_TIMEOUT, StatusCode::GATEWAY_TIMEOUT),
        (codes::PROVIDER_UNAVAILABLE, StatusCode::BAD_GATEWAY),
        (codes::MODEL_ERROR, StatusCode::BAD_GATEWAY),
    ] {
        let error = ApiError::Vendor {
            code,
            detail: "vendor said no".into(),
        };
        assert_eq!(error.status_code(), status, "{}", code.code);
        assert_eq!(error.code(), code.code);
    }
}
