//! Where a service listens: the address from `BIND_ADDR`/`PORT`, and how long it keeps
//! serving after SIGTERM before it drains (`SHUTDOWN_DELAY_MS`).

use crate::config::{ConfigError, Env};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::time::Duration;

/// The listening address.
pub const ENV_BIND_ADDR: &str = "BIND_ADDR";
/// The listening port (0: any free port).
pub const ENV_PORT: &str = "PORT";
/// How long, after SIGTERM, the service keeps serving with its health at 503 before it drains.
pub const ENV_SHUTDOWN_DELAY_MS: &str = "SHUTDOWN_DELAY_MS";
/// Where a service listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListenConfig {
    /// `BIND_ADDR` (default `127.0.0.1`; containers set `0.0.0.0`).
    pub bind_addr: IpAddr,
    /// `PORT` (default: the service's own port).
    pub port: u16,
    /// `SHUTDOWN_DELAY_MS` (default 0): after SIGTERM, health answers 503 for this long while
    /// requests are still served, so an ingress's health check stops routing here before the
    /// drain closes idle connections. Set it above the ingress's health-check interval.
    pub shutdown_delay: Duration,
}

impl ListenConfig {
    /// Reads `BIND_ADDR` and `PORT`, with the service's default port.
    pub fn from_env(env: &dyn Env, default_port: u16) -> Result<Self, ConfigError> {
        let bind_addr = match env.optional(ENV_BIND_ADDR) {
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(text) => text.parse().map_err(|_| ConfigError::Invalid {
                name: ENV_BIND_ADDR,
                expected: "an IP address such as 127.0.0.1 or 0.0.0.0".to_owned(),
            })?,
        };
        Ok(Self {
            bind_addr,
            port: env.u16_or(ENV_PORT, default_port)?,
            shutdown_delay: Duration::from_millis(env.u64_or(ENV_SHUTDOWN_DELAY_MS, 0)?),
        })
    }

    /// Loopback on a free port: what tests use.
    pub fn ephemeral() -> Self {
        Self {
            bind_addr: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            shutdown_delay: Duration::ZERO,
        }
    }

    /// Binds the listener (the port is known from it before the server starts).
    pub fn bind(&self) -> std::io::Result<TcpListener> {
        TcpListener::bind(SocketAddr::new(self.bind_addr, self.port))
    }

    /// The address a health probe on this host should use.
    pub fn probe_addr(&self) -> SocketAddr {
        let host = if self.bind_addr.is_unspecified() {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            self.bind_addr
        };
        SocketAddr::new(host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MapEnv;

    #[test]
    fn defaults_and_overrides() {
        let config = ListenConfig::from_env(&MapEnv::default(), 9001).unwrap();
        assert_eq!(config.probe_addr().to_string(), "127.0.0.1:9001");
        let env = MapEnv::from_iter([("BIND_ADDR", "0.0.0.0"), ("PORT", "7000")]);
        let config = ListenConfig::from_env(&env, 9001).unwrap();
        assert_eq!(
            (config.bind_addr.to_string(), config.port),
            ("0.0.0.0".to_owned(), 7000)
        );
        assert_eq!(config.probe_addr().to_string(), "127.0.0.1:7000");
    }

    #[test]
    fn a_bad_address_names_the_variable() {
        let env = MapEnv::from_iter([("BIND_ADDR", "localhost:80")]);
        let error = ListenConfig::from_env(&env, 1).unwrap_err().to_string();
        assert!(error.contains("BIND_ADDR"), "{error}");
        assert!(!error.contains("localhost:80"), "{error}");
    }
}
