//! The estate's one way to write an actix-web middleware, as tower writes its layers: a small
//! type holding the layer's state (cloned into each worker) and one `call` that answers a
//! request, with or without the service it wraps.
//!
//! actix asks for two impls per middleware (a `Transform` that builds the per-worker service,
//! and that `Service`); here the `Service` is [`Wrapped`], written once, and
//! [`layer_transform!`] writes the `Transform` for a [`Layer`], so a middleware is its state,
//! its builder and its [`Layer::call`]:
//!
//! ```ignore
//! impl<S, B> actix_layer::Layer<S, B> for MyLayer
//! where
//!     S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
//!     B: MessageBody + 'static,
//! {
//!     type Body = B;
//!     fn call(&self, inner: Rc<S>, request: ServiceRequest) -> Answer<B> { … }
//! }
//! actix_layer::layer_transform!(MyLayer);
//! ```

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, forward_ready};
use futures_util::future::LocalBoxFuture;
use std::future::{Ready, ready};
use std::rc::Rc;

#[doc(hidden)]
pub use actix_web as __actix_web;

/// A layer's answer to one request.
pub type Answer<B> = LocalBoxFuture<'static, Result<ServiceResponse<B>, Error>>;

/// What a middleware does with one request, given the service it wraps (shared by the
/// requests of one worker).
pub trait Layer<S, B>: Clone + 'static {
    /// The body of its answers (`B` itself, or `EitherBody<B>` when it answers on its own).
    type Body: MessageBody;

    /// Answers `request`, calling `inner` or not.
    fn call(&self, inner: Rc<S>, request: ServiceRequest) -> Answer<Self::Body>;
}

/// The per-worker service of a [`Layer`]: the service it wraps and the layer's state.
pub struct Wrapped<S, L> {
    inner: Rc<S>,
    layer: L,
}

/// The ready `Transform` future of `layer` around `service` (what [`layer_transform!`]
/// returns).
pub fn wrap<S, L>(layer: &L, service: S) -> Ready<Result<Wrapped<S, L>, ()>>
where
    L: Clone,
{
    ready(Ok(Wrapped {
        inner: Rc::new(service),
        layer: layer.clone(),
    }))
}

impl<S, B, L> Service<ServiceRequest> for Wrapped<S, L>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
    L: Layer<S, B>,
{
    type Response = ServiceResponse<L::Body>;
    type Error = Error;
    type Future = Answer<L::Body>;

    forward_ready!(inner);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        self.layer.call(self.inner.clone(), request)
    }
}

/// Writes the actix `Transform` of a type that is a [`Layer`], so `App::wrap` mounts it.
#[macro_export]
macro_rules! layer_transform {
    ($layer:ty) => {
        impl<S, B> $crate::__actix_web::dev::Transform<S, $crate::__actix_web::dev::ServiceRequest>
            for $layer
        where
            S: $crate::__actix_web::dev::Service<
                    $crate::__actix_web::dev::ServiceRequest,
                    Response = $crate::__actix_web::dev::ServiceResponse<B>,
                    Error = $crate::__actix_web::Error,
                > + 'static,
            B: $crate::__actix_web::body::MessageBody + 'static,
            $layer: $crate::Layer<S, B>,
        {
            type Response =
                $crate::__actix_web::dev::ServiceResponse<<$layer as $crate::Layer<S, B>>::Body>;
            type Error = $crate::__actix_web::Error;
            type Transform = $crate::Wrapped<S, $layer>;
            type InitError = ();
            type Future = ::std::future::Ready<Result<Self::Transform, ()>>;

            fn new_transform(&self, service: S) -> Self::Future {
                $crate::wrap(self, service)
            }
        }
    };
}
