//! A service's HTTP server, bound and built with the estate's settings but not yet serving:
//! what each service's `Application::build` holds, so that the server settings and the run
//! loop exist once.

use super::{DRAIN_TIMEOUT, run_until_stopped};
use crate::cli::StartFailure;
use actix_http::{Request, Response};
use actix_service::IntoServiceFactory;
use actix_web::body::MessageBody;
use actix_web::dev::{AppConfig, Server, Service, ServiceFactory};
use actix_web::{Error, HttpServer};
use std::net::TcpListener;
use std::time::Duration;

/// A bound server: its port, the server future, and how it stops.
pub struct Bound {
    service: &'static str,
    port: u16,
    server: Server,
    shutdown_delay: Duration,
}

impl Bound {
    /// Builds the server on `listener` from `factory`: the process's own signal handling (see
    /// [`Bound::run_until_stopped`]) and [`DRAIN_TIMEOUT`] for in-flight requests.
    pub fn new<F, I, S, B>(
        service: &'static str,
        listener: TcpListener,
        shutdown_delay: Duration,
        factory: F,
    ) -> Result<Self, StartFailure>
    where
        F: Fn() -> I + Send + Clone + 'static,
        I: IntoServiceFactory<S, Request>,
        S: ServiceFactory<Request, Config = AppConfig> + 'static,
        S::Error: Into<Error> + 'static,
        S::InitError: std::fmt::Debug,
        S::Response: Into<Response<B>> + 'static,
        <S::Service as Service<Request>>::Future: 'static,
        S::Service: 'static,
        B: MessageBody + 'static,
    {
        let fail = |error: std::io::Error| StartFailure::Other(error.to_string());
        let port = listener.local_addr().map_err(fail)?.port();
        let server = HttpServer::new(factory)
            .disable_signals()
            .shutdown_timeout(DRAIN_TIMEOUT.as_secs())
            .listen(listener)
            .map_err(fail)?
            .run();
        Ok(Self {
            service,
            port,
            server,
            shutdown_delay,
        })
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server, for tests that spawn it.
    pub fn into_server(self) -> Server {
        self.server
    }

    /// Serves until SIGTERM or Ctrl-C; then health answers 503 for the shutdown delay while
    /// requests are still served, then in-flight requests drain.
    pub async fn run_until_stopped(self) -> Result<(), StartFailure> {
        run_until_stopped(self.server, self.service, self.shutdown_delay)
            .await
            .map_err(|error| StartFailure::Other(error.to_string()))
    }
}
