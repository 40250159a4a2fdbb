//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::auth::attempts::LoginAttempts;
use crate::auth::mail_jobs::MailJobs;
use crate::auth::otp::OtpGuard;
use crate::auth::outbox::Outbox;
use crate::auth::sessions::Sessions;
use crate::auth::tokens::SingleUseTokens;
use crate::auth::users::Users;
use crate::config::BackendConfig;
use crate::scans::analyzer_client::{AnalyzerClient, RetryPolicy};
use crate::scans::runs::{RunHub, Runs};
use crate::scans::scanner::Scanner;
use crate::store::Store;
use crate::tenancy::{CiKeys, Denial, Invitations, Members, Projects, Workspaces};
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
    /// Accounts, ceilings, codes, single-use links, the outbox, the account-mail jobs and
    /// sessions.
    pub auth: AuthServices,
    /// Workspaces, members, invitations, projects, CI keys.
    pub tenancy: TenancyServices,
    /// Scan runs, their progress hub, and the scanner that fans out to the analyzer.
    pub scans: ScanServices,
}

/// The tenancy domain's services, over the one store.
#[derive(Clone, Debug)]
pub struct TenancyServices {
    /// Workspaces.
    pub workspaces: Workspaces,
    /// Memberships and role floors.
    pub members: Members,
    /// Single-use invitations.
    pub invitations: Invitations,
    /// Projects, scoped to the token's workspace.
    pub projects: Projects,
    /// CI keys, stored as digests.
    pub ci_keys: CiKeys,
    /// How another tenant's id is answered.
    pub denial: Denial,
}

impl TenancyServices {
    /// The services for these settings.
    pub fn new(config: &BackendConfig, store: &Store) -> Self {
        let denial = Denial {
            legacy_forbidden: config.legacy_forbidden_wording,
        };
        Self {
            workspaces: Workspaces::new(store.clone()),
            members: Members::with_denial(store.clone(), denial),
            invitations: Invitations::new(store.clone()),
            projects: Projects::new(store.clone(), denial),
            ci_keys: CiKeys::with_denial(store.clone(), denial),
            denial,
        }
    }
}

/// The scans domain's services.
#[derive(Clone, Debug)]
pub struct ScanServices {
    /// Stored runs.
    pub runs: Runs,
    /// Live progress for `/ws/runs/{id}`.
    pub hub: RunHub,
    /// Starts scans (202 then frames).
    pub scanner: Scanner,
    /// The analyzer, for the EXPENSIVE endpoints.
    pub analyzer: AnalyzerClient,
}

/// Files per analyzer call in a scan.
pub const SCAN_BATCH_SIZE: usize = 50;

impl ScanServices {
    /// The services for these settings. Without `ANALYZER_TOKEN` the analyzer refuses every
    /// batch and each scan ends in its terminal `ERROR: analyze: …` frame.
    pub fn new(config: &BackendConfig, store: &Store) -> Self {
        let runs = Runs::with_lease(store.clone(), config.scan_lease);
        let hub = RunHub::new(runs.clone());
        let token = config.analyzer_token.clone().unwrap_or_default();
        let analyzer =
            AnalyzerClient::new(config.analyzer_url.clone(), token, RetryPolicy::default());
        let scanner = Scanner::new(runs.clone(), hub.clone(), analyzer.clone(), SCAN_BATCH_SIZE);
        Self {
            runs,
            hub,
            scanner,
            analyzer,
        }
    }
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
    /// Sign-in sessions and their refresh tokens.
    pub sessions: Sessions,
    /// Account mail left for the background (its task is started by the application).
    pub mail_jobs: MailJobs,
}

/// How long a one-time code lives.
pub const OTP_TTL: Duration = Duration::from_secs(10 * 60);

impl AuthServices {
    /// The services for these settings, mailing through `outbox`.
    pub fn new(config: &BackendConfig, store: &Store, outbox: Outbox) -> Self {
        let users = Users::new(store.clone());
        let otp = OtpGuard::new(
            store.clone(),
            config.jwt.otp_pepper(),
            config.otp_max_attempts,
            OTP_TTL,
        );
        let tokens = SingleUseTokens::new(store.clone());
        let mail_jobs = MailJobs::new(
            store,
            users.clone(),
            otp.clone(),
            tokens.clone(),
            outbox.clone(),
        );
        Self {
            users,
            attempts: LoginAttempts::new(store.clone(), config.login_max_attempts, config.lock),
            otp,
            tokens,
            outbox,
            sessions: Sessions::new(store.clone()),
            mail_jobs,
        }
    }
}
