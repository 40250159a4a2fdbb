//! The last resort: a handler that panics answers the service's 500 envelope with an error
//! reference (logged with the panic message), instead of a dropped connection.
//!
//! Mount it outermost but for CORS, so every layer inside it is covered.

use crate::reference::ErrorReference;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::{Error, HttpResponse};
use futures_util::FutureExt;
use futures_util::future::{LocalBoxFuture, Ready, ready};
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

impl<S, B> Transform<S, ServiceRequest> for CatchPanic
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Transform = CatchPanicService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(CatchPanicService {
            service: Rc::new(service),
            envelope: self.envelope.clone(),
        }))
    }
}

/// The per-worker service of [`CatchPanic`].
pub struct CatchPanicService<S> {
    service: Rc<S>,
    envelope: Arc<EnvelopeFn>,
}

impl<S, B> Service<ServiceRequest> for CatchPanicService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        let (http_request, payload) = request.into_parts();
        let request = ServiceRequest::from_parts(http_request.clone(), payload);
        let call = AssertUnwindSafe(self.service.call(request));
        let envelope = self.envelope.clone();
        Box::pin(async move {
            match call.catch_unwind().await {
                Ok(result) => result.map(ServiceResponse::map_into_left_body),
                Err(panic) => {
                    let reference = ErrorReference::new();
                    let message = panic
                        .downcast_ref::<&str>()
                        .map(|text| (*text).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(%reference, path = http_request.path(), panic = message, "handler panicked");
                    let response = envelope(&reference);
                    Ok(ServiceResponse::new(http_request, response).map_into_right_body())
                }
            }
        })
    }
}
