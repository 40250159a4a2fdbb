//! The one actix service stack: every actix service of the estate builds its `App` through
//! [`Stack`], so the order of the layers — the estate's safety property — is written once.
//!
//! Outermost first:
//! 1. the request log ([`RequestLog`]): every answer, CORS's own included, carries the
//!    request's id and gets its line; every line logged inside runs in the request's span;
//! 2. CORS, for a service a browser calls ([`Stack::cors`]): a 401, 403, 429 or 500 for an
//!    allowed origin carries the CORS headers (the browser shows the real status), a
//!    disallowed origin never gets any, and a preflight is answered here, before any guard;
//! 3. the panic layer ([`CatchPanic`]): a panic anywhere inside is the service's 500 envelope,
//!    with the request's id and the CORS headers like any other answer;
//! 4. the service's own guard ([`Stack::guard`]: a token gate, an `Origin` check, a bearer
//!    check): a request it refuses spends nobody's budget, and what it learns (the caller) is
//!    left for the limiter's key;
//! 5. the limiter ([`RateLimit`], switched off with [`Stack::limiter_enabled`] where the
//!    service allows it);
//! 6. the routes, where a body, path or query an extractor cannot read is answered in the
//!    service's own envelope ([`Stack::rejections`]).
//!
//! A [`Stack`] is built once and cloned into each worker; [`Stack::app`] is the factory
//! [`crate::server::Bound::new`] calls: `Bound::new(name, listener, delay, move || stack.app())`.

mod guard;

pub use guard::{AppFactory, Guard, GuardFn, Limited};

use crate::cors::{self, CorsConfig};
use crate::panic::CatchPanic;
use crate::reference::ErrorReference;
use crate::rejection::Rejection;
use crate::request_log::RequestLog;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{Condition, Identity, Next};
use actix_web::{App, Error, HttpRequest, HttpResponse, web};
use limiter_actix::RateLimit;
use std::future::Future;

/// How a service renders a request its extractors refused, as the error actix answers with.
pub type RejectionFn = fn(Rejection, &HttpRequest) -> Error;

/// What is each service's own in its `App`; [`Stack::app`] mounts it in the estate's order.
#[derive(Clone)]
pub struct Stack<T, G = Identity> {
    state: T,
    routes: fn(&mut web::ServiceConfig),
    panic: CatchPanic,
    limiter: RateLimit,
    limiter_enabled: bool,
    guard: G,
    cors: Option<CorsConfig>,
    rejected: Option<RejectionFn>,
    json_limit: Option<usize>,
}

impl<T> Stack<T> {
    /// A stack with `state` as the app's data, `routes` mounted, `internal_error` as the 500
    /// envelope of a panic and `limiter` switched on; no guard, no CORS, and actix's own
    /// answers to extractor failures until [`Stack::rejections`] is given.
    pub fn new(
        state: T,
        routes: fn(&mut web::ServiceConfig),
        internal_error: impl Fn(&ErrorReference) -> HttpResponse + Send + Sync + 'static,
        limiter: RateLimit,
    ) -> Self {
        Self {
            state,
            routes,
            panic: CatchPanic::new(internal_error),
            limiter,
            limiter_enabled: true,
            guard: Identity::default(),
            cors: None,
            rejected: None,
            json_limit: None,
        }
    }
}

impl<T, G> Stack<T, G> {
    /// Whether the limiter meters at all (a service whose limits can be switched off).
    #[must_use]
    pub fn limiter_enabled(mut self, enabled: bool) -> Self {
        self.limiter_enabled = enabled;
        self
    }

    /// CORS for these origins, outside everything but the request log.
    #[must_use]
    pub fn cors(mut self, cors: CorsConfig) -> Self {
        self.cors = Some(cors);
        self
    }

    /// The service's envelope for a JSON body, path or query its extractors refused.
    #[must_use]
    pub fn rejections(mut self, rejected: RejectionFn) -> Self {
        self.rejected = Some(rejected);
        self
    }

    /// The largest JSON body, in bytes, where a route sets none of its own (actix's default
    /// otherwise); a larger one is a 413 in the envelope of [`Stack::rejections`].
    #[must_use]
    pub fn json_limit(mut self, limit: usize) -> Self {
        self.json_limit = Some(limit);
        self
    }

    /// The service's own guard, a middleware function (as `middleware::from_fn` takes it)
    /// between the panic layer and the limiter. A service with several guards writes them as
    /// one function, the outer one first.
    pub fn guard<F, Fut, B>(self, guard: F) -> Stack<T, GuardFn<F>>
    where
        F: Fn(ServiceRequest, Next<Limited>) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<ServiceResponse<B>, Error>> + 'static,
        B: MessageBody + 'static,
    {
        Stack {
            state: self.state,
            routes: self.routes,
            panic: self.panic,
            limiter: self.limiter,
            limiter_enabled: self.limiter_enabled,
            guard: GuardFn(guard),
            cors: self.cors,
            rejected: self.rejected,
            json_limit: self.json_limit,
        }
    }
}

impl<T, G> Stack<T, G>
where
    T: Clone + Send + 'static,
    G: Guard,
{
    /// The service's `App`, its layers in the estate's order (each `.wrap` goes around the
    /// ones before it, so the request log, last, is outermost).
    pub fn app(&self) -> App<impl AppFactory + use<T, G>> {
        let app = self
            .extractors(App::new().app_data(web::Data::new(self.state.clone())))
            .configure(self.routes)
            .wrap(Condition::new(self.limiter_enabled, self.limiter.clone()));
        let app = self.guard.clone().mount(app).wrap(self.panic.clone());
        cors::mount(app, self.cors.as_ref()).wrap(RequestLog)
    }

    /// The extractors' configurations: the JSON limit, and their failures in the service's
    /// envelope (actix's own answers when the service gives none, as with no configuration).
    fn extractors<A>(&self, app: App<A>) -> App<A>
    where
        A: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
    {
        let mut json = web::JsonConfig::default();
        let mut path = web::PathConfig::default();
        let mut query = web::QueryConfig::default();
        if let Some(limit) = self.json_limit {
            json = json.limit(limit);
        }
        if let Some(rejected) = self.rejected {
            json = json.error_handler(move |e, r| rejected(Rejection::from(&e), r));
            path = path.error_handler(move |e, r| rejected(Rejection::from(&e), r));
            query = query.error_handler(move |e, r| rejected(Rejection::from(&e), r));
        }
        app.app_data(json).app_data(path).app_data(query)
    }
}
