//! The backend's settings, read once from the environment (every variable in docs/config.md).

mod mail;

pub use mail::{ENV_MAIL_LINK_BASE_URL, ENV_SMTP_FROM, ENV_SMTP_URL, MailConfig, SmtpConfig};

use limiter::Policy;
use platform::{ClientIp, ConfigError, CorsConfig, Env, JwtKeys, ListenConfig, Parsed};
use std::path::PathBuf;
use std::time::Duration;

/// The backend's port.
pub const DEFAULT_PORT: u16 = 9800;
/// Where the embedded store and the outbox live.
pub const ENV_DATA_DIR: &str = "DATA_DIR";
/// Wrong passwords per e-mail before the lock.
pub const ENV_LOGIN_MAX_ATTEMPTS: &str = "LOGIN_MAX_ATTEMPTS";
/// Length of the login lock.
pub const ENV_LOCK_MINUTES: &str = "SECURITY_AUTH_ATTEMPT_LOCK_MINUTES";
/// Wrong answers before a one-time code is destroyed.
pub const ENV_OTP_MAX_ATTEMPTS: &str = "OTP_MAX_ATTEMPTS";
/// The analyzer scans fan out to.
pub const ENV_ANALYZER_URL: &str = "ANALYZER_URL";
/// The analyzer's token.
pub const ENV_ANALYZER_TOKEN: &str = "ANALYZER_TOKEN";
/// Compatibility: accept tokens minted before the `workspaceId` claim existed (default off).
pub const ENV_ALLOW_TOKENS_WITHOUT_WORKSPACE: &str = "SECURITY_ALLOW_TOKENS_WITHOUT_WORKSPACE";
/// Compatibility: answer another tenant's id with the pre-fix 403 wording (default off).
pub const ENV_LEGACY_FORBIDDEN_WORDING: &str = "SECURITY_LEGACY_FORBIDDEN_WORDING";
/// The token other estate services present on `/internal/**`.
pub const ENV_INTERNAL_TOKEN: &str = "INTERNAL_TOKEN";
/// Seconds a scan run's lease lasts without renewal (a run whose process died ends then).
pub const ENV_SCAN_LEASE_SECONDS: &str = "SCAN_LEASE_SECONDS";
/// The default of `SCAN_LEASE_SECONDS`.
pub const DEFAULT_SCAN_LEASE_SECONDS: u32 = 30;

/// The public filter's budgets (docs/DESIGN.md, "The backend").
#[derive(Clone, Copy, Debug)]
pub struct PublicBudgets {
    /// `RATE_LIMIT_EMAIL`, per IP.
    pub email: Policy,
    /// `RATE_LIMIT_EMAIL_RECIPIENT`, per recipient.
    pub email_recipient: Policy,
    /// `RATE_LIMIT_CREDENTIAL`, per IP.
    pub credential: Policy,
    /// `RATE_LIMIT_EXPENSIVE`, per bearer.
    pub expensive: Policy,
    /// `RATE_LIMIT_CI`, per CI key.
    pub ci: Policy,
}

/// The auth filter's budgets, per IP, under `/api/v1/auth/**`.
#[derive(Clone, Copy, Debug)]
pub struct AuthBudgets {
    /// `AUTH_RATE_LIMIT_CREDENTIAL`: login, reset-password.
    pub credential: Policy,
    /// `AUTH_RATE_LIMIT_ONE_TIME_CODE`: verify-otp, verify-magic, mfa/verify.
    pub one_time_code: Policy,
    /// `AUTH_RATE_LIMIT_EMAIL`: the e-mail sending paths.
    pub email: Policy,
    /// `AUTH_RATE_LIMIT_BACKSTOP`: every other POST under /auth.
    pub backstop: Policy,
}

/// Everything the backend reads from its environment.
#[derive(Clone, Debug)]
pub struct BackendConfig {
    /// Where to listen.
    pub listen: ListenConfig,
    /// `DATA_DIR` (default `./data`).
    pub data_dir: PathBuf,
    /// The keys each limiter tracks and the Redis the replicas share (budgets and, for the
    /// backend, its store).
    pub limiter: platform::LimiterSettings,
    /// Token keys derived from `SECURITY_JWT_SECRET_KEY`.
    pub jwt: JwtKeys,
    /// The CORS allow-list.
    pub cors: CorsConfig,
    /// The client address behind the trusted proxies, and the key of its per-address budgets.
    pub client_ip: ClientIp,
    /// Public filter budgets.
    pub public: PublicBudgets,
    /// Auth filter budgets.
    pub auth: AuthBudgets,
    /// `LOGIN_MAX_ATTEMPTS`.
    pub login_max_attempts: u32,
    /// `SECURITY_AUTH_ATTEMPT_LOCK_MINUTES`.
    pub lock: Duration,
    /// `OTP_MAX_ATTEMPTS`.
    pub otp_max_attempts: u32,
    /// `ANALYZER_URL`.
    pub analyzer_url: String,
    /// `ANALYZER_TOKEN` (scans fail with a terminal frame when unset).
    pub analyzer_token: Option<String>,
    /// `SECURITY_ALLOW_TOKENS_WITHOUT_WORKSPACE` (default false: an absent claim fails closed).
    pub allow_tokens_without_workspace: bool,
    /// `SECURITY_LEGACY_FORBIDDEN_WORDING` (default false: another tenant's id is a 404).
    pub legacy_forbidden_wording: bool,
    /// `INTERNAL_TOKEN` (unset: `/internal/**` refuses everyone).
    pub internal_token: Option<String>,
    /// `SCAN_LEASE_SECONDS` (default 30).
    pub scan_lease: Duration,
    /// `SMTP_URL`, `SMTP_FROM`, `MAIL_LINK_BASE_URL`.
    pub mail: MailConfig,
}

impl BackendConfig {
    /// Reads every setting; the first bad one stops start-up, named.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: ListenConfig::from_env(env, DEFAULT_PORT)?,
            data_dir: env
                .optional(ENV_DATA_DIR)
                .map_or_else(|| PathBuf::from("./data"), PathBuf::from),
            limiter: platform::LimiterSettings::from_env(env)?,
            jwt: JwtKeys::from_env(env)?,
            cors: CorsConfig::from_env(env)?,
            client_ip: ClientIp::from_env(env)?,
            public: PublicBudgets {
                email: env.parsed_or("RATE_LIMIT_EMAIL", "20/1h")?,
                email_recipient: env.parsed_or("RATE_LIMIT_EMAIL_RECIPIENT", "10/1h")?,
                credential: env.parsed_or("RATE_LIMIT_CREDENTIAL", "300/1h")?,
                expensive: env.parsed_or("RATE_LIMIT_EXPENSIVE", "240/1h")?,
                ci: env.parsed_or("RATE_LIMIT_CI", "600/1h")?,
            },
            auth: AuthBudgets {
                credential: env.parsed_or("AUTH_RATE_LIMIT_CREDENTIAL", "20/15m")?,
                one_time_code: env.parsed_or("AUTH_RATE_LIMIT_ONE_TIME_CODE", "15/15m")?,
                email: env.parsed_or("AUTH_RATE_LIMIT_EMAIL", "10/1h")?,
                backstop: env.parsed_or("AUTH_RATE_LIMIT_BACKSTOP", "120/15m")?,
            },
            login_max_attempts: positive(env, ENV_LOGIN_MAX_ATTEMPTS, 5)?,
            lock: Duration::from_secs(60 * u64::from(positive(env, ENV_LOCK_MINUTES, 10)?)),
            otp_max_attempts: positive(env, ENV_OTP_MAX_ATTEMPTS, 5)?,
            analyzer_url: env
                .optional(ENV_ANALYZER_URL)
                .unwrap_or_else(|| "http://127.0.0.1:9001".to_owned()),
            analyzer_token: env.optional(ENV_ANALYZER_TOKEN),
            allow_tokens_without_workspace: env
                .bool_or(ENV_ALLOW_TOKENS_WITHOUT_WORKSPACE, false)?,
            legacy_forbidden_wording: env.bool_or(ENV_LEGACY_FORBIDDEN_WORDING, false)?,
            internal_token: env.optional(ENV_INTERNAL_TOKEN),
            scan_lease: Duration::from_secs(u64::from(positive(
                env,
                ENV_SCAN_LEASE_SECONDS,
                DEFAULT_SCAN_LEASE_SECONDS,
            )?)),
            mail: MailConfig::from_env(env)?,
        })
    }
}

fn positive(env: &dyn Env, name: &'static str, default: u32) -> Result<u32, ConfigError> {
    let value = env.u64_or(name, u64::from(default))?;
    u32::try_from(value)
        .ok()
        .filter(|value| *value > 0)
        .ok_or(ConfigError::Invalid {
            name,
            expected: "a whole number from 1 to 4294967295".to_owned(),
        })
}
