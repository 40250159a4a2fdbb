//! The MCP server's routes, one module per resource; unknown paths and methods get the envelope.

mod health;
mod installer;
mod skills;

pub use installer::render as render_installer;

use crate::errors;
use crate::mcp::{MCP_PATH, transport};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::rejection;

/// Mounts every route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/health").route(web::get().to(platform::health::health)))
        .service(resource("/metrics").route(web::get().to(health::metrics)))
        .service(
            web::resource(MCP_PATH)
                .route(web::post().to(transport::post))
                .default_service(web::to(transport::method_not_allowed)),
        )
        .service(resource("/skills/package").route(web::get().to(skills::package)))
        .service(resource("/install.sh").route(web::get().to(installer::script)))
        .default_service(web::to(not_found));
}

fn resource(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

async fn not_found(request: HttpRequest) -> HttpResponse {
    let message = rejection::no_route(&request);
    errors::respond(StatusCode::NOT_FOUND, "not_found", &message)
}

async fn method_not_allowed(request: HttpRequest) -> HttpResponse {
    let message = rejection::method_not_allowed(&request);
    errors::respond(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        &message,
    )
}
