//! The analyzer's routes, one module per resource; unknown paths and methods get the envelope.

mod analyze;
mod explain;
mod health;
mod rules;
mod types;

use crate::errors::ApiError;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::rejection;

/// Mounts every route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/health").route(web::get().to(platform::health::health)))
        .service(resource("/metrics").route(web::get().to(health::metrics)))
        .service(resource("/analyze").route(web::post().to(analyze::analyze)))
        .service(resource("/analysis-types").route(web::get().to(types::list)))
        .service(resource("/rules/validate").route(web::post().to(rules::validate)))
        .service(
            resource("/rules")
                .route(web::get().to(rules::list))
                .route(web::post().to(rules::create)),
        )
        .service(
            resource("/rules/{id}")
                .route(web::get().to(rules::get))
                .route(web::put().to(rules::put))
                .route(web::delete().to(rules::delete)),
        )
        .service(resource("/llm/explain").route(web::post().to(explain::explain)))
        .default_service(web::to(not_found));
}

fn resource(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

async fn not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(rejection::no_route(&request)))
}

async fn method_not_allowed(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed(rejection::method_not_allowed(
        &request,
    )))
}
