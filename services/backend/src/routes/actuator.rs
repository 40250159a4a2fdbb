//! `/actuator/health`, `/actuator/prometheus`, and the API description: `/v3/api-docs` serves
//! the OpenAPI document and `/swagger-ui.html` redirects to it. Never metered.

use crate::state::AppState;
use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, web};

/// The OpenAPI document (data, kept beside the code it describes).
const OPENAPI: &str = include_str!("../../openapi.json");

/// Mounts the routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/actuator/health", web::get().to(platform::health::health))
        .route("/actuator/prometheus", web::get().to(prometheus))
        .route("/v3/api-docs", web::get().to(api_docs))
        .route("/swagger-ui.html", web::get().to(swagger));
}

async fn prometheus(state: web::Data<AppState>) -> HttpResponse {
    platform::metrics::render(&state.registry)
}

async fn api_docs() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(OPENAPI)
}

async fn swagger() -> HttpResponse {
    HttpResponse::Found()
        .insert_header((LOCATION, "/v3/api-docs"))
        .finish()
}
