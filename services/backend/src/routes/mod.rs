//! The backend's routes, one module per resource; unknown paths get the envelope of their
//! controller.

mod actuator;
mod analytics;
mod auth;
mod ci_keys;
mod expensive;
mod gatekeeper;
mod internal;
mod invitations;
mod members;
mod projects;
mod runs;
mod scans;
mod user;
mod workspaces;
mod ws;

use crate::errors::ApiError;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::rejection;

/// Mounts every route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.configure(actuator::config)
        .configure(auth::config)
        .configure(user::config)
        .configure(analytics::config)
        .configure(expensive::config)
        .configure(gatekeeper::config)
        .configure(internal::config)
        .configure(runs::config)
        .configure(scans::config)
        .configure(ws::config)
        .configure(workspaces::config)
        .configure(members::config)
        .configure(invitations::config)
        .configure(projects::config)
        .configure(ci_keys::config)
        .default_service(web::to(not_found));
}

async fn not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    let message = rejection::no_route(&request);
    Err(ApiError::client(StatusCode::NOT_FOUND, message, &request))
}
