//! The admin port: `GET /health` (200 `{"status":"UP"}`, 503 `{"status":"DOWN"}` once a
//! drain has begun) for `ingress --healthcheck` and compose, and `GET /metrics`.
//!
//! They live on their own port because every hostname and path of the proxied port belongs
//! to the ingress file (its last rule matches everything): no path there can be reserved.

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The health path, as every estate service names it.
pub const HEALTH_PATH: &str = "/health";
/// The metrics path.
pub const METRICS_PATH: &str = "/metrics";

/// What the admin port answers from.
#[derive(Clone)]
pub struct Admin {
    registry: Arc<Registry>,
    draining: Arc<AtomicBool>,
}

impl Admin {
    /// Answers from `registry`; `draining` turns health to 503.
    pub fn new(registry: Registry, draining: Arc<AtomicBool>) -> Self {
        Self {
            registry: Arc::new(registry),
            draining,
        }
    }

    /// Answers one admin request.
    pub fn answer<B>(&self, request: &Request<B>) -> Response<Full<Bytes>> {
        if request.method() != Method::GET {
            return reply(StatusCode::METHOD_NOT_ALLOWED, None, Bytes::new());
        }
        match request.uri().path() {
            HEALTH_PATH if self.draining.load(Ordering::Relaxed) => {
                json(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"DOWN"}"#)
            }
            HEALTH_PATH => json(StatusCode::OK, r#"{"status":"UP"}"#),
            METRICS_PATH => self.metrics(),
            _ => reply(StatusCode::NOT_FOUND, None, Bytes::new()),
        }
    }

    fn metrics(&self) -> Response<Full<Bytes>> {
        let mut body = String::new();
        match encode(&mut body, &self.registry) {
            Ok(()) => reply(
                StatusCode::OK,
                Some(platform_core::metrics::CONTENT_TYPE),
                Bytes::from(body),
            ),
            Err(_) => reply(StatusCode::INTERNAL_SERVER_ERROR, None, Bytes::new()),
        }
    }
}

fn json(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    reply(
        status,
        Some("application/json"),
        Bytes::from_static(body.as_bytes()),
    )
}

fn reply(
    status: StatusCode,
    content_type: Option<&'static str>,
    body: Bytes,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response
}
