//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::auth::attempts::LoginAttempts;
use crate::auth::otp::OtpGuard;
use crate::auth::outbox::Outbox;
use crate::auth::tokens::SingleUseTokens;
use crate::auth::users::Users;
use crate::config::BackendConfig;
use crate::store::Store;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::time::Duration;

/// The backend's shared state.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Settings.
    pub config: Arc<BackendConfig>,
    /// Persistence (embedded or Redis).
    pub store: Store,
    /// Metrics for `/actuator/prometheus`.
    pub registry: Arc<Registry>,
    /// Accounts, ceilings, codes, single-use links and the outbox.
    pub auth: AuthServices,
}

/// The auth domain's services, over the one store.
#[derive(Clone, Debug)]
pub struct AuthServices {
    /// Accounts.
    pub users: Users,
    /// The login attempt ceiling.
    pub attempts: LoginAttempts,
    /// One-time codes.
    pub otp: OtpGuard,
    /// Magic links and password-reset links.
    pub tokens: SingleUseTokens,
    /// Outgoing mail.
    pub outbox: Outbox,
}

/// How long a one-time code lives.
pub const OTP_TTL: Duration = Duration::from_secs(10 * 60);

impl AuthServices {
    /// The services for these settings.
    pub fn new(config: &BackendConfig, store: &Store) -> Self {
        Self {
            users: Users::new(store.clone()),
            attempts: LoginAttempts::new(store.clone(), config.login_max_attempts, config.lock),
            otp: OtpGuard::new(
                store.clone(),
                config.jwt.otp_pepper(),
                config.otp_max_attempts,
                OTP_TTL,
            ),
            tokens: SingleUseTokens::new(store.clone()),
            outbox: Outbox::new(config.data_dir.join("outbox.jsonl")),
        }
    }
}
