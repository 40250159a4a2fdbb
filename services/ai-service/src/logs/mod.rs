//! `POST /api/log-analysis` (no login; per-address budget): `{"log": "<pasted text>"}` in,
//! a report out: lines and entries, entries per format and per level, error signatures
//! grouped (most frequent first) and the first failure with its line number.
//!
//! # Layout
//! - [`level`]: the six levels and their spellings; [`line`]: one line's format, level and
//!   message; [`signature`]: masking what varies; [`report`]: the whole log.

pub mod level;
pub mod line;
pub mod report;
pub mod signature;

use crate::errors::ApiError;
use actix_web::{HttpResponse, web};
use serde::Deserialize;

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogBody {
    log: String,
}

/// Analyzes the pasted log off the event loop (a megabyte of text is tens of milliseconds).
pub async fn analyze(body: web::Json<LogBody>) -> Result<HttpResponse, ApiError> {
    let log = body.into_inner().log;
    if log.trim().is_empty() {
        return Err(ApiError::Invalid {
            code: "invalid_request",
            message: "log must not be empty".to_owned(),
        });
    }
    let report = web::block(move || report::analyze(&log))
        .await
        .map_err(|error| ApiError::Internal {
            kind: "log analysis did not complete",
            cause: error.to_string(),
        })?;
    Ok(HttpResponse::Ok().json(report))
}
