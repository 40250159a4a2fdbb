//! The last resort: a handler that panics answers the service's 500 envelope with an error
//! reference (logged with the panic message), instead of a dropped connection.
//!
//! [`crate::stack`] mounts it inside CORS and the request log, so every layer inside it is
//! covered, its answer carries the request's id and CORS headers, and its log line carries the
//! id (it runs in the request's span).

use crate::reference::ErrorReference;
use actix_layer::{Answer, Layer};
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::{Error, HttpResponse, ResponseError};
use futures_util::FutureExt;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::Arc;

type EnvelopeFn = dyn Fn(&ErrorReference) -> HttpResponse + Send + Sync;

/// Turns panics into the service's 500 envelope.
#[derive(Clone)]
pub struct CatchPanic {
    envelope: Arc<EnvelopeFn>,
}

impl CatchPanic {
    /// `envelope` builds the service's 500 response for a reference.
    pub fn new(envelope: impl Fn(&ErrorReference) -> HttpResponse + Send + Sync + 'static) -> Self {
        Self {
            envelope: Arc::new(envelope),
        }
    }
}

/// A caught panic, rendered by actix through [`ResponseError`] (the request itself is owned by
/// the panicked future, so the response is built from this error, not from the request).
struct Panicked {
    reference: ErrorReference,
    envelope: Arc<EnvelopeFn>,
}

impl fmt::Debug for Panicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Panicked")
            .field("reference", &self.reference)
            .finish()
    }
}

impl fmt::Display for Panicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "handler panicked ({})", self.reference)
    }
}

impl ResponseError for Panicked {
    fn status_code(&self) -> StatusCode {
        StatusCode::INTERNAL_SERVER_ERROR
    }

    fn error_response(&self) -> HttpResponse {
        (self.envelope)(&self.reference)
    }
}

impl<S, B> Layer<S, B> for CatchPanic
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Body = B;

    fn call(&self, service: Rc<S>, request: ServiceRequest) -> Answer<B> {
        let path = request.path().to_owned();
        let call = AssertUnwindSafe(service.call(request));
        let envelope = self.envelope.clone();
        Box::pin(async move {
            call.catch_unwind().await.unwrap_or_else(|panic| {
                let reference = ErrorReference::new();
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!(%reference, path, panic = message, "handler panicked");
                Err(Panicked {
                    reference,
                    envelope,
                }
                .into())
            })
        })
    }
}

actix_layer::layer_transform!(CatchPanic);
