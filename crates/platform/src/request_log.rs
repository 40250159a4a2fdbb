//! The request layer every service mounts outermost: each request gets its id (the one the
//! ingress sent in `x-request-id`, or a fresh one for a request that came without a
//! well-formed one, such as a direct call in development), every line logged while it is
//! served carries that id (they run inside its `request` span: a 500's reference, a panic),
//! the answer echoes it, and one line per request says what was answered.
//!
//! The request line holds the method, the route's pattern (`/api/v1/projects/{id}`, never the
//! path a client wrote, which may hold ids or secrets; `-` when no route matched), the status
//! and the time to the answer's head. It is written at `info`, or at `debug` for an answer a
//! handler marked [`Quiet`] (health checks, which arrive every few seconds).
//!
//! [`crate::stack`] mounts it outside CORS, so CORS's own answers (a refused preflight) are logged and carry the
//! id too, and so every layer inside runs in the span. An error an inner layer returns is
//! turned into its answer here, inside the span, exactly as actix would turn it (its response
//! mappers applied): its log line carries the id and the answer carries the header. The
//! route is read before the request is served (the router needs the request to itself), so a
//! request an inner layer refuses is still logged under its route.
//!
//! The span is at `ERROR` level so that whatever `RUST_LOG` lets through still carries the id;
//! a filter that switches this module off (`RUST_LOG=backend=debug` alone) drops the span.

use actix_layer::{Answer, Layer};
use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use platform_core::log_fields::{MAX_METHOD_CHARS, clipped, millis};
use platform_core::request_id::{RequestId, X_REQUEST_ID};
use std::rc::Rc;
use std::time::Instant;
use tracing::Instrument;

/// The layer, outermost in [`crate::stack`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestLog;

/// Put in an answer's extensions by a handler whose answers are logged at `debug`.
#[derive(Clone, Copy, Debug)]
pub struct Quiet;

impl<S, B> Layer<S, B> for RequestLog
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Body = B;

    fn call(&self, service: Rc<S>, request: ServiceRequest) -> Answer<B> {
        let started = Instant::now();
        let received = request
            .headers()
            .get_all(X_REQUEST_ID)
            .map(HeaderValue::as_bytes);
        let id = RequestId::received(received).unwrap_or_else(RequestId::mint);
        let span = tracing::error_span!("request", request_id = %id);
        // Read before the call: the request is the router's alone while it is served.
        let line = Line {
            method: request.method().clone(),
            route: request.match_pattern(),
            started,
        };
        let answer = span.in_scope(|| service.call(request));
        Box::pin(
            async move {
                match answer.await {
                    Ok(mut response) => {
                        echo(response.headers_mut(), &id);
                        line.write(
                            response.status(),
                            response.response().extensions().contains::<Quiet>(),
                        );
                        Ok(response)
                    }
                    // An inner layer's error becomes its answer here, inside the span, as
                    // actix would make it (response mappers applied), and travels on as a
                    // prepared answer: the request is gone, so it cannot become a response.
                    Err(error) => {
                        let mut response = error.error_response();
                        echo(response.headers_mut(), &id);
                        line.write(response.status(), false);
                        Err(InternalError::from_response(error, response).into())
                    }
                }
            }
            .instrument(span),
        )
    }
}

actix_layer::layer_transform!(RequestLog);

/// What the request line says of a request, read before it is served.
struct Line {
    method: Method,
    route: Option<String>,
    started: Instant,
}

impl Line {
    fn write(&self, status: StatusCode, quiet: bool) {
        let method = clipped(self.method.as_str(), MAX_METHOD_CHARS);
        let route = self.route.as_deref().unwrap_or("-");
        let duration_ms = millis(self.started.elapsed());
        let log = if quiet { log_quiet } else { log_answered };
        log(&method, route, status.as_u16(), duration_ms);
    }
}

fn log_answered(method: &str, route: &str, status: u16, duration_ms: f64) {
    tracing::info!(method, route, status, duration_ms, "answered");
}

fn log_quiet(method: &str, route: &str, status: u16, duration_ms: f64) {
    tracing::debug!(method, route, status, duration_ms, "answered");
}

fn echo(headers: &mut HeaderMap, id: &RequestId) {
    if let Ok(value) = HeaderValue::from_str(id.as_str()) {
        headers.insert(HeaderName::from_static(X_REQUEST_ID), value);
    }
}
