//! The backend's response bodies, each built in exactly one place.
//!
//! - [`status_envelope`] builds `{"status":<int>,"message":"…"}`, the auth controllers' shape
//!   (the auth screens read it).
//! - [`api_error`] builds `{"status":"NOT_FOUND","message":"…"}` (`status` is the reason
//!   name), for everything else.
//! - [`too_many_requests`] builds the filters' `{"status":"FAIL","message":"Too many …"}`.
//! - [`internal_error`] builds `{"status":"INTERNAL_SERVER_ERROR","message":"<kind>","reference":"err-…"}`.
//!
//! A controller never builds a body of its own: a fix made here reaches every path, so no
//! path keeps an envelope the fix missed.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use platform::ErrorReference;
use serde_json::json;

/// `{"status":<int>,"message":…}` with that status.
pub fn status_envelope(status: StatusCode, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "status": status.as_u16(), "message": message }))
}

/// `{"status":"<REASON_NAME>","message":…}` with that status.
pub fn api_error(status: StatusCode, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "status": reason_name(status), "message": message }))
}

/// The filters' refusal body; the limiter's middleware adds `Retry-After` and the fields.
pub fn too_many_requests(retry_after_secs: u64) -> HttpResponse {
    let message = format!("Too many requests. Please try again in {retry_after_secs} second(s).");
    HttpResponse::TooManyRequests().json(json!({ "status": "FAIL", "message": message }))
}

/// The 500 body: the error's kind and a reference logged with the cause, nothing else.
pub fn internal_error(kind: &str, reference: &ErrorReference) -> HttpResponse {
    HttpResponse::InternalServerError().json(json!({
        "status": "INTERNAL_SERVER_ERROR",
        "message": kind,
        "reference": reference.as_str(),
    }))
}

/// `NOT_FOUND` from 404, `TOO_MANY_REQUESTS` from 429: Spring's `HttpStatus` names.
fn reason_name(status: StatusCode) -> String {
    status
        .canonical_reason()
        .unwrap_or("UNKNOWN")
        .to_ascii_uppercase()
        .replace([' ', '-'], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_names_are_springs() {
        let names: Vec<String> = [404, 401, 429, 500, 503, 415]
            .map(|code| reason_name(StatusCode::from_u16(code).unwrap()))
            .to_vec();
        assert_eq!(
            names,
            [
                "NOT_FOUND",
                "UNAUTHORIZED",
                "TOO_MANY_REQUESTS",
                "INTERNAL_SERVER_ERROR",
                "SERVICE_UNAVAILABLE",
                "UNSUPPORTED_MEDIA_TYPE"
            ]
        );
    }
}
