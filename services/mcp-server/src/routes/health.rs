//! `GET /health` and `GET /metrics`: open and unmetered (the ingress hides `/metrics` from
//! public hostnames).

use crate::state::AppState;
use actix_web::{HttpResponse, web};

/// Prometheus exposition.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    platform::metrics::render(&state.registry)
}
