//! Building and running the backend: bind first (so the port is known), then serve.
//!
//! The layers and their order are the estate's one stack (`platform::stack`); what is the
//! backend's own: CORS, no guard of its own (routes check their tokens), and a limiter of
//! both filters' groups that reads the recipient of a mail path from the body.

use crate::auth::outbox::{MailQueue, Outbox, OutboxMetrics};
use crate::config::BackendConfig;
use crate::envelope::internal_error;
use crate::errors::ApiError;
use crate::state::{AppState, AuthServices, ScanServices, TenancyServices};
use crate::store::Store;
use crate::{limits, routes};
use actix_web::dev::Server;
use limiter::{LimiterMetrics, SharedClock};
use platform::server::Bound;
use platform::{Stack, StartFailure};
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The file under `DATA_DIR`, or with `SMTP_URL` the SMTP queue, its delivery task started
/// and its counters registered.
fn outbox(
    config: &BackendConfig,
    store: &Store,
    registry: &mut Registry,
) -> Result<Outbox, lettre::transport::smtp::Error> {
    let outbox = match &config.mail.smtp {
        Some(smtp) => {
            let metrics = OutboxMetrics::default();
            metrics.register(registry);
            let queue = MailQueue::new(store.clone(), smtp, metrics)?;
            queue.start();
            Outbox::smtp(queue)
        }
        None => Outbox::file(config.data_dir.join(OUTBOX_FILE)),
    };
    Ok(outbox.with_link_base(config.mail.link_base.clone()))
}

/// The outbox file's name inside `DATA_DIR`.
pub const OUTBOX_FILE: &str = "outbox.jsonl";

/// A bound, not yet running backend.
pub struct Application {
    bound: Bound,
    state: AppState,
}

impl Application {
    /// Builds on the system clock.
    pub fn build(config: BackendConfig) -> Result<Self, StartFailure> {
        Self::build_with_clock(config, limiter::system_clock())
    }

    /// Builds with an injected clock (tests move a fake one).
    pub fn build_with_clock(
        config: BackendConfig,
        clock: SharedClock,
    ) -> Result<Self, StartFailure> {
        let fail = |error: &dyn std::fmt::Display| StartFailure::Other(error.to_string());
        let store = match &config.limiter.redis_url {
            Some(url) => Store::redis(url, "backend"),
            None => Store::embedded(&config.data_dir),
        }
        .map_err(|e| fail(&e))?;
        let mut registry = Registry::default();
        let metrics = LimiterMetrics::default();
        metrics.register(&mut registry);
        let limiter = limits::limiter(&config, metrics, clock).map_err(|e| fail(&e))?;
        let rate_limit = limits::middleware(limiter, &config).map_err(|e| fail(&e))?;
        tracing::info!("backend rate limits:\n{}", limits::rules::table());
        let cors = config.cors.clone();
        let listener = config.listen.bind().map_err(|e| fail(&e))?;
        let shutdown_delay = config.listen.shutdown_delay;
        let outbox = outbox(&config, &store, &mut registry).map_err(|e| fail(&e))?;
        let auth = AuthServices::new(&config, &store, outbox);
        auth.mail_jobs.start();
        let tenancy = TenancyServices::new(&config, &store);
        let scans = ScanServices::new(&config, &store);
        let config = Arc::new(config);
        let state = AppState {
            config,
            store,
            registry: Arc::new(registry),
            auth,
            tenancy,
            scans,
        };
        let stack = Stack::new(
            state.clone(),
            routes::config,
            |reference| internal_error("panic", reference),
            rate_limit,
        )
        .cors(cors)
        .rejections(|rejection, request| ApiError::rejected(&rejection, request).into());
        let bound = Bound::new("backend", listener, shutdown_delay, move || stack.app())?;
        Ok(Self { bound, state })
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.bound.port()
    }

    /// The shared state (tests reach the store's fault switch through it).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The server, for tests that spawn it.
    pub fn into_server(self) -> Server {
        self.bound.into_server()
    }

    /// Serves until SIGTERM, then drains.
    pub async fn run_until_stopped(self) -> Result<(), StartFailure> {
        self.bound.run_until_stopped().await
    }
}
