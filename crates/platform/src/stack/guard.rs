//! The guard slot of the stack: between the panic layer and the limiter, a service mounts its
//! own middleware function, or nothing.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{Identity, Next, from_fn};
use actix_web::{App, Error};
use std::future::Future;

/// The body of the answers a guard's `Next` yields: the limiter's (its refusal or the routes'
/// answer) behind its on/off switch.
pub type Limited = EitherBody<EitherBody<BoxBody>, BoxBody>;

/// What an `App` is built from at each layer: a factory of services that take a request and
/// answer with a `Body`. One name for the bounds `App::wrap` takes and gives.
pub trait AppFactory:
    ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<Self::Body>,
        Error = Error,
        InitError = (),
    >
{
    /// The body of its answers.
    type Body: MessageBody;
}

impl<S, B> AppFactory for S
where
    S: ServiceFactory<
            ServiceRequest,
            Config = (),
            Response = ServiceResponse<B>,
            Error = Error,
            InitError = (),
        >,
    B: MessageBody,
{
    type Body = B;
}

/// What may stand in the guard slot: [`Identity`] (no guard) or a [`GuardFn`].
pub trait Guard: Clone + Send + 'static {
    /// `app` (the routes behind the limiter) with the guard around it.
    fn mount<A>(self, app: App<A>) -> App<impl AppFactory>
    where
        A: AppFactory<Body = Limited>,
        A::Service: 'static;
}

/// No guard: the panic layer wraps the limiter directly.
impl Guard for Identity {
    fn mount<A>(self, app: App<A>) -> App<impl AppFactory>
    where
        A: AppFactory<Body = Limited>,
        A::Service: 'static,
    {
        app
    }
}

/// A guard written as a middleware function, mounted with `middleware::from_fn` in each worker.
#[derive(Clone, Copy, Debug)]
pub struct GuardFn<F>(pub F);

impl<F, Fut, B> Guard for GuardFn<F>
where
    F: Fn(ServiceRequest, Next<Limited>) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<ServiceResponse<B>, Error>> + 'static,
    B: MessageBody + 'static,
{
    fn mount<A>(self, app: App<A>) -> App<impl AppFactory>
    where
        A: AppFactory<Body = Limited>,
        A::Service: 'static,
    {
        app.wrap(from_fn(self.0))
    }
}
