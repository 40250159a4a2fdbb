//! The `{"error": code, "message": text}` envelope that the analyzer, the ai-service and the
//! mcp-server answer in, and its 500 form with an `err-` reference, built in this one place.
//! (The backend answers in its own `{"status","message"}` shape, docs/DESIGN.md, "The backend".)

use crate::reference::ErrorReference;
use actix_web::HttpResponse;
use serde_json::{Value, json};

/// `{"error": code, "message": text}`.
pub fn envelope(code: &str, message: &str) -> Value {
    json!({ "error": code, "message": message })
}

/// The 500 envelope with a fresh reference, logged with the cause (which the client never sees).
pub fn internal_error(kind: &str, cause: &str) -> HttpResponse {
    let reference = ErrorReference::new();
    tracing::error!(%reference, kind, cause, "internal error");
    internal_envelope(kind, &reference)
}

/// The 500 envelope for a reference already logged (the panic layer's):
/// `{"error":"internal_error","message": kind,"reference":"err-…"}`.
pub fn internal_envelope(kind: &str, reference: &ErrorReference) -> HttpResponse {
    HttpResponse::InternalServerError().json(
        json!({ "error": "internal_error", "message": kind, "reference": reference.as_str() }),
    )
}
