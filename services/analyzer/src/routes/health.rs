//! `GET /health` (open, unmetered) and `GET /metrics` (token-gated, unmetered).

use crate::state::AppState;
use actix_web::{HttpResponse, web};

/// Prometheus exposition.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    platform::metrics::render(&state.registry)
}
