//! The health answer every service gives, and the stop announcement behind it: 200
//! `{"status":"UP"}` while the process serves, 503 `{"status":"DOWN"}` from the moment a stop
//! is requested, so a load balancer's health check takes the process out of rotation before
//! its drain closes connections.
//!
//! One process runs one service, so the state is the process's own (a static), set only by
//! [`crate::server::run_until_stopped`] when the stop signal arrives.

use crate::request_log::Quiet;
use actix_web::HttpResponse;
use actix_web::http::header::ContentType;
use std::sync::atomic::{AtomicBool, Ordering};

static STOPPING: AtomicBool = AtomicBool::new(false);

/// Marks this process as stopping: from now on [`health`] answers 503.
pub fn announce_stop() {
    STOPPING.store(true, Ordering::Relaxed);
}

/// Whether a stop was announced.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::Relaxed)
}

/// The health handler: open, unmetered, the same body on every service. Its answers are
/// [`Quiet`]: a health check every few seconds is not worth an `info` line each.
pub async fn health() -> HttpResponse {
    let mut response = if stopping() {
        HttpResponse::ServiceUnavailable()
            .content_type(ContentType::json())
            .body(r#"{"status":"DOWN"}"#)
    } else {
        HttpResponse::Ok()
            .content_type(ContentType::json())
            .body(r#"{"status":"UP"}"#)
    };
    response.extensions_mut().insert(Quiet);
    response
}
