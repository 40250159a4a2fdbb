//! The ingress's environment: where the file is, where to listen, and the TLS variables
//! (each overrides its `estate.tls` key; `crate::tls::settings` merges them). Everything
//! about routing lives in the file itself.

use crate::config::{PlainHttp, parse_plain_http};
use platform_core::config::{ConfigError, Env};
use platform_core::listen::{ENV_PORT, ListenConfig};
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
/// The certificate chain (PEM); overrides `estate.tls.certFile`.
pub const ENV_TLS_CERT: &str = "INGRESS_TLS_CERT";
/// Its private key (PEM); overrides `estate.tls.keyFile`.
pub const ENV_TLS_KEY: &str = "INGRESS_TLS_KEY";
/// The TLS port; overrides `estate.tls.port`.
pub const ENV_TLS_PORT: &str = "INGRESS_TLS_PORT";
/// `redirect` or `serve`; overrides `estate.plainHttp`.
pub const ENV_PLAIN_HTTP: &str = "INGRESS_PLAIN_HTTP";

/// Where the ingress reads its file and listens.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `INGRESS_CONFIG`.
    pub config_path: PathBuf,
    /// `BIND_ADDR` and `PORT`.
    pub listen: ListenConfig,
    /// `BIND_ADDR` and `INGRESS_ADMIN_PORT`.
    pub admin: ListenConfig,
    /// The `INGRESS_TLS_*` variables and `INGRESS_PLAIN_HTTP`, when set.
    pub tls: TlsEnv,
}

/// The TLS variables as set; unset ones leave the file's key in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsEnv {
    /// `INGRESS_TLS_CERT`.
    pub cert: Option<PathBuf>,
    /// `INGRESS_TLS_KEY`.
    pub key: Option<PathBuf>,
    /// `INGRESS_TLS_PORT`.
    pub port: Option<u16>,
    /// `INGRESS_PLAIN_HTTP`.
    pub plain_http: Option<PlainHttp>,
}

impl TlsEnv {
    /// Reads the four variables.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let port = match env.optional(ENV_TLS_PORT) {
            None => None,
            Some(_) => Some(env.u16_or(ENV_TLS_PORT, 0)?),
        };
        let plain_http = env
            .optional(ENV_PLAIN_HTTP)
            .map(|text| {
                parse_plain_http(&text).map_err(|_| ConfigError::Invalid {
                    name: ENV_PLAIN_HTTP,
                    expected: "redirect or serve".to_owned(),
                })
            })
            .transpose()?;
        Ok(Self {
            cert: env.optional(ENV_TLS_CERT).map(PathBuf::from),
            key: env.optional(ENV_TLS_KEY).map(PathBuf::from),
            port,
            plain_http,
        })
    }
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
            tls: TlsEnv::from_env(env)?,
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
    use platform_core::MapEnv;

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

    #[test]
    fn tls_variables_are_read_when_set() {
        let settings = Settings::from_env(&MapEnv::default()).expect("defaults");
        assert_eq!(settings.tls, TlsEnv::default());
        let env: MapEnv = [
            ("INGRESS_TLS_CERT", "c.pem"),
            ("INGRESS_TLS_KEY", "k.pem"),
            ("INGRESS_TLS_PORT", "0"),
            ("INGRESS_PLAIN_HTTP", "serve"),
        ]
        .into_iter()
        .collect();
        let tls = Settings::from_env(&env).expect("set").tls;
        assert_eq!(tls.cert, Some(PathBuf::from("c.pem")));
        assert_eq!(tls.key, Some(PathBuf::from("k.pem")));
        assert_eq!(tls.port, Some(0));
        assert_eq!(tls.plain_http, Some(PlainHttp::Serve));
        for (name, value) in [("INGRESS_TLS_PORT", "x"), ("INGRESS_PLAIN_HTTP", "yes")] {
            let env: MapEnv = [(name, value)].into_iter().collect();
            let error = Settings::from_env(&env).expect_err("bad").to_string();
            assert!(error.starts_with(&format!("{name} is invalid")), "{error}");
        }
    }
}
