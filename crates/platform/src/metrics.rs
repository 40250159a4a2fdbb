//! The Prometheus exposition every service serves on its metrics path (unmetered; the ingress
//! answers 404 for it on public hostnames, so only the cluster network reads it).

use actix_web::HttpResponse;
use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;

pub use platform_core::metrics::CONTENT_TYPE;

/// Renders a registry as a response.
pub fn render(registry: &Registry) -> HttpResponse {
    let mut body = String::new();
    match encode(&mut body, registry) {
        Ok(()) => HttpResponse::Ok().content_type(CONTENT_TYPE).body(body),
        Err(error) => {
            tracing::error!(%error, "metrics encoding failed");
            HttpResponse::InternalServerError().finish()
        }
    }
}
