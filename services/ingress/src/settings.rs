//! The ingress's environment: where the file is and where to listen. Everything about
//! routing lives in the file itself.

use platform::config::{ConfigError, Env};
use platform::server::{ENV_PORT, ListenConfig};
use std::path::PathBuf;

/// The ingress file.
pub const ENV_INGRESS_CONFIG: &str = "INGRESS_CONFIG";
/// Its default, relative to the working directory (the repository root, or `/` in images).
pub const DEFAULT_CONFIG: &str = "compose/ingress.yml";
/// The admin port (`/health`, `/metrics`).
pub const ENV_ADMIN_PORT: &str = "INGRESS_ADMIN_PORT";
/// The proxied port by default.
pub const DEFAULT_PORT: u16 = 8080;
/// The admin port by default.
pub const DEFAULT_ADMIN_PORT: u16 = 8081;

/// Where the ingress reads its file and listens.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `INGRESS_CONFIG`.
    pub config_path: PathBuf,
    /// `BIND_ADDR` and `PORT`.
    pub listen: ListenConfig,
    /// `BIND_ADDR` and `INGRESS_ADMIN_PORT`.
    pub admin: ListenConfig,
}

impl Settings {
    /// Reads the environment.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let listen = ListenConfig::from_env(env, DEFAULT_PORT)?;
        let admin = ListenConfig {
            port: env.u16_or(ENV_ADMIN_PORT, DEFAULT_ADMIN_PORT)?,
            ..listen
        };
        Ok(Self {
            config_path: config_path(env),
            listen,
            admin,
        })
    }
}

/// `INGRESS_CONFIG`, or its default.
pub fn config_path(env: &dyn Env) -> PathBuf {
    PathBuf::from(
        env.optional(ENV_INGRESS_CONFIG)
            .unwrap_or_else(|| DEFAULT_CONFIG.to_owned()),
    )
}

/// The environment as `--healthcheck` sees it: its `PORT` is `INGRESS_ADMIN_PORT`, so the
/// platform's probe checks the admin port unchanged.
pub struct AdminEnv<'a>(pub &'a dyn Env);

impl Env for AdminEnv<'_> {
    fn var(&self, name: &str) -> Option<String> {
        if name == ENV_PORT {
            self.0.var(ENV_ADMIN_PORT)
        } else {
            self.0.var(name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::MapEnv;

    #[test]
    fn defaults_and_the_admin_port() {
        let settings = Settings::from_env(&MapEnv::default()).expect("defaults");
        assert_eq!(settings.config_path, PathBuf::from("compose/ingress.yml"));
        assert_eq!(settings.listen.port, 8080);
        assert_eq!(settings.admin.port, 8081);
        let env: MapEnv = [("PORT", "0"), ("INGRESS_ADMIN_PORT", "9")]
            .into_iter()
            .collect();
        let settings = Settings::from_env(&env).expect("set");
        assert_eq!((settings.listen.port, settings.admin.port), (0, 9));
        let env: MapEnv = [("INGRESS_ADMIN_PORT", "x")].into_iter().collect();
        let error = Settings::from_env(&env).expect_err("bad").to_string();
        assert!(
            error.starts_with("INGRESS_ADMIN_PORT is invalid"),
            "{error}"
        );
    }
}
