//! What was wrong with a request that never reached a handler: an unparseable or oversized
//! body, a wrong content type, a bad path or query. Each service renders a [`Rejection`] in
//! its own envelope; this module only decides the status, a stable code and a message — and
//! the messages of the two answers a router gives itself, [`no_route`] (404) and
//! [`method_not_allowed`] (405), which every service words the same.

use actix_web::HttpRequest;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::StatusCode;

/// The message of a 404 for a path no route serves: `no route for GET /x`.
pub fn no_route(request: &HttpRequest) -> String {
    format!("no route for {} {}", request.method(), request.path())
}

/// The message of a 405 for a method a route does not take: `DELETE is not allowed on /x`.
pub fn method_not_allowed(request: &HttpRequest) -> String {
    format!("{} is not allowed on {}", request.method(), request.path())
}

/// A request refused before its handler ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// 400, 413 or 415.
    pub status: StatusCode,
    /// A stable code (`invalid_request_body`, `payload_too_large`, …).
    pub code: &'static str,
    /// What was wrong, for a person. Never contains server internals.
    pub message: String,
}

impl Rejection {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }
}

impl From<&JsonPayloadError> for Rejection {
    fn from(error: &JsonPayloadError) -> Self {
        match error {
            JsonPayloadError::OverflowKnownLength { limit, .. }
            | JsonPayloadError::Overflow { limit } => Self::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("request body is larger than {limit} bytes"),
            ),
            JsonPayloadError::ContentType => Self::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "request body must be JSON (Content-Type: application/json)",
            ),
            JsonPayloadError::Deserialize(error) => Self::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_body",
                format!("request body is not valid: {error}"),
            ),
            _ => Self::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_body",
                "request body could not be read",
            ),
        }
    }
}

impl From<&PathError> for Rejection {
    fn from(error: &PathError) -> Self {
        let PathError::Deserialize(error) = error else {
            return Self::new(
                StatusCode::BAD_REQUEST,
                "invalid_path",
                "path parameter is not valid",
            );
        };
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_path",
            format!("path parameter is not valid: {error}"),
        )
    }
}

impl From<&QueryPayloadError> for Rejection {
    fn from(error: &QueryPayloadError) -> Self {
        let QueryPayloadError::Deserialize(error) = error else {
            return Self::new(
                StatusCode::BAD_REQUEST,
                "invalid_query",
                "query string is not valid",
            );
        };
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            format!("query string is not valid: {error}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_each_body_failure() {
        let too_large = Rejection::from(&JsonPayloadError::Overflow { limit: 10 });
        assert_eq!(
            (too_large.status.as_u16(), too_large.code),
            (413, "payload_too_large")
        );
        let wrong_type = Rejection::from(&JsonPayloadError::ContentType);
        assert_eq!(
            (wrong_type.status.as_u16(), wrong_type.code),
            (415, "unsupported_media_type")
        );
        let parse = serde_json::from_str::<u8>("{").unwrap_err();
        let bad = Rejection::from(&JsonPayloadError::Deserialize(parse));
        assert_eq!(
            (bad.status.as_u16(), bad.code),
            (400, "invalid_request_body")
        );
    }
}
