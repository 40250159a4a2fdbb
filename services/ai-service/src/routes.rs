//! The ai-service's routes; unknown paths and methods get the envelope too.
//!
//! | route                     | auth          | ceilings                          |
//! |---------------------------|---------------|-----------------------------------|
//! | `GET /health`             | open          | none                              |
//! | `GET /metrics`            | open (the ingress hides it on public hostnames) | none |
//! | `POST /api/chat`          | access token  | per-subject window + backstop     |
//! | `POST /api/log-analysis`  | open          | per client address                |

use crate::chat;
use crate::errors::{ApiError, rejected};
use crate::logs;
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::Rejection;
use platform::rejection;

/// The health path the binary's `--healthcheck` probes.
pub const HEALTH_PATH: &str = "/health";
/// The largest chat body, in bytes (a message of 32 000 characters and its history).
pub const CHAT_MAX_BODY_BYTES: usize = 256 * 1024;
/// The largest pasted log, in bytes.
pub const LOG_MAX_BODY_BYTES: usize = 1024 * 1024;

/// Mounts every route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(resource(HEALTH_PATH).route(web::get().to(platform::health::health)))
        .service(resource("/metrics").route(web::get().to(metrics)))
        .service(
            resource("/api/chat")
                .app_data(json_config(CHAT_MAX_BODY_BYTES))
                .route(
                    web::post()
                        .to(chat::chat)
                        .wrap(from_fn(chat::gate::require_caller)),
                ),
        )
        .service(
            resource("/api/log-analysis")
                .app_data(json_config(LOG_MAX_BODY_BYTES))
                .route(web::post().to(logs::analyze)),
        )
        .default_service(web::to(not_found));
}

fn resource(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(|error, _| rejected(Rejection::from(&error)))
}

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    platform::metrics::render(&state.registry)
}

async fn not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(rejection::no_route(&request)))
}

async fn method_not_allowed(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed(rejection::method_not_allowed(
        &request,
    )))
}
