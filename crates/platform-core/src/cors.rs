//! The CORS allow-list's setting, which the services read (their CORS layer) and the probe
//! checks against: its variable and its default.

/// The comma-separated origins allowed to call with credentials.
pub const ENV_CORS_ALLOWED_ORIGINS: &str = "CORS_ALLOWED_ORIGINS";
/// The local front-end origins, used when the variable is unset.
pub const DEFAULT_ALLOWED_ORIGINS: &str =
    "http://localhost:3000,http://127.0.0.1:3000,http://localhost:5173";
