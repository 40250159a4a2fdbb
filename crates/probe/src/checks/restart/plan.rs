//! The restart a run measures, as the command line describes it.

use crate::service::Service;
use std::time::Duration;

/// The restart to measure.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Run with `sh -c`, e.g. `docker compose restart analyzer`.
    pub command: String,
    /// The service restarted.
    pub service: Service,
    /// The path polled (`GET`), one of the service's own routes.
    pub path: String,
    /// Between polls.
    pub interval: Duration,
    /// Bound on the command plus the recovery.
    pub timeout: Duration,
    /// Failed polls tolerated; `None`: measured, not judged.
    pub max_failures: Option<usize>,
}
