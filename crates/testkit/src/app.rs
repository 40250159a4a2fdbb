//! A real service on a free port, spoken to over HTTP with one client, stopped when the test
//! says so: [`Served`] for a service on the system clock (a cluster node whose leases must
//! really expire), [`TestApp`] for one on a fake clock the test moves. Each service's test
//! helpers wrap one with what is theirs (their settings, their tokens, their requests, their
//! store) and reach its fields through `Deref`.

use actix_web::dev::{Server, ServerHandle};
use limiter::FakeClock;
use std::ops::Deref;

/// A running service and the way to reach it.
pub struct Served {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// One client for every request of the test.
    pub client: reqwest::Client,
    handle: ServerHandle,
}

impl Served {
    /// Runs `server`, bound to `port`, on the test's runtime.
    pub fn run(port: u16, server: Server) -> Self {
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Self {
            base: format!("http://127.0.0.1:{port}"),
            client: reqwest::Client::new(),
            handle,
        }
    }

    /// Stops the server gracefully: in-flight requests finish, then its workers go.
    pub async fn stop(&self) {
        self.handle.stop(true).await;
    }

    /// The URL of `path` on the service.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// A running service on a fake clock.
pub struct TestApp {
    served: Served,
    /// The service's clock.
    pub clock: FakeClock,
}

impl TestApp {
    /// Builds the service with `build` on a new fake clock and runs it on the test's runtime:
    /// `build` binds (port 0) and hands back the bound port and the server.
    pub fn spawn(build: impl FnOnce(&FakeClock) -> (u16, Server)) -> Self {
        let clock = FakeClock::new();
        let (port, server) = build(&clock);
        Self::run(clock, port, server)
    }

    /// Runs a server already built on `clock` and bound to `port` (a service whose build
    /// must wait, or that hands back more than its server, builds it first).
    pub fn run(clock: FakeClock, port: u16, server: Server) -> Self {
        Self {
            served: Served::run(port, server),
            clock,
        }
    }
}

impl Deref for TestApp {
    type Target = Served;

    fn deref(&self) -> &Served {
        &self.served
    }
}
