//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::config::BackendConfig;
use crate::store::Store;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The backend's shared state.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Settings.
    pub config: Arc<BackendConfig>,
    /// Persistence (embedded or Redis).
    pub store: Store,
    /// Metrics for `/actuator/prometheus`.
    pub registry: Arc<Registry>,
}
