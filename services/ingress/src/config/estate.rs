//! The `estate:` extension resolved: drain, connect retry, edge headers, the pools of
//! origins (with their health checks) behind the services named in `ingress:`, and TLS.

use super::IngressError;
use super::bounds::ClientBounds;
use super::duration::parse_duration;
use super::raw::{RawEstate, RawHealthCheck, RawPool};
use super::service::{self, HttpService};
use super::tls::TlsFile;
use platform_core::TrustedProxies;
use std::time::Duration;

/// This ingress's own settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estate {
    /// How long a SIGTERM waits for in-flight requests.
    pub drain_timeout: Duration,
    /// How long one request keeps retrying refused connections; 0 is one pass.
    pub connect_retry_deadline: Duration,
    /// How long an HTTP/2 connection with no open stream is kept before GOAWAY.
    pub http2_idle_timeout: Duration,
    /// How long a client connection may take nothing of its answers (a full receive window, a
    /// zero HTTP/2 flow-control window) before it is closed.
    pub send_timeout: Duration,
    /// What one client, and everyone, may hold of the edge.
    pub bounds: ClientBounds,
    /// `strict-transport-security` on every response.
    pub hsts: bool,
    /// The peers whose well-formed `x-request-id` is kept (`estate.requestId.trustFrom`).
    pub request_id_trust: TrustedProxies,
    /// Several origins behind a service, with their health checks.
    pub pools: Vec<Pool>,
    /// TLS termination and the plain HTTP port's answer, as the file sets them.
    pub tls: TlsFile,
}

/// The origins behind one service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    /// The service as written in `ingress:`.
    pub service: String,
    /// Every origin, in the order written.
    pub origins: Vec<HttpService>,
    /// The active health check, when one is configured.
    pub health_check: Option<HealthCheck>,
}

/// An active health check: `GET path` on each origin every `interval`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthCheck {
    /// Starts with `/`.
    pub path: String,
    /// Time between probes.
    pub interval: Duration,
    /// Time one probe may take.
    pub timeout: Duration,
}

/// Default HTTP/2 idle timeout (nginx's `keepalive_timeout`, 75 s).
pub const DEFAULT_HTTP2_IDLE_TIMEOUT: Duration = Duration::from_secs(75);
/// `estate.sendTimeout` when unset: nginx's `send_timeout`.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(60);
/// Default drain deadline.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time between health probes.
pub const DEFAULT_HEALTH_INTERVAL: Duration = Duration::from_secs(2);
/// Default time a health probe may take.
pub const DEFAULT_HEALTH_TIMEOUT: Duration = Duration::from_secs(1);

impl Estate {
    /// Resolves the extension; `services` are the `service` values of the HTTP rules.
    pub fn resolve(raw: &RawEstate, services: &[&str]) -> Result<Self, IngressError> {
        let duration = |value: &Option<String>, key: &str, default| {
            value
                .as_deref()
                .map_or(Ok(default), |text| parse_duration(key, text))
        };
        let default_check = raw.health_check.clone().unwrap_or_default();
        let mut pools = Vec::with_capacity(raw.pools.len());
        for (index, pool) in raw.pools.iter().enumerate() {
            let pool = resolve_pool(pool, index, &default_check, services)?;
            if pools
                .iter()
                .any(|known: &Pool| known.service == pool.service)
            {
                return Err(invalid(
                    format!("estate.pools[{index}].service"),
                    format!("'{}' already has a pool", pool.service),
                ));
            }
            pools.push(pool);
        }
        let http2_idle_timeout = duration(
            &raw.http2_idle_timeout,
            "estate.http2IdleTimeout",
            DEFAULT_HTTP2_IDLE_TIMEOUT,
        )?;
        let send_timeout = duration(
            &raw.send_timeout,
            "estate.sendTimeout",
            DEFAULT_SEND_TIMEOUT,
        )?;
        for (value, key) in [
            (http2_idle_timeout, "estate.http2IdleTimeout"),
            (send_timeout, "estate.sendTimeout"),
        ] {
            if value.is_zero() {
                return Err(invalid(key.to_owned(), "must be more than 0s".to_owned()));
            }
        }
        Ok(Self {
            http2_idle_timeout,
            send_timeout,
            bounds: ClientBounds::resolve(raw)?,
            drain_timeout: duration(
                &raw.drain_timeout,
                "estate.drainTimeout",
                DEFAULT_DRAIN_TIMEOUT,
            )?,
            connect_retry_deadline: duration(
                &raw.connect_retry_deadline,
                "estate.connectRetryDeadline",
                Duration::ZERO,
            )?,
            hsts: raw.edge_headers.hsts.unwrap_or(true),
            request_id_trust: super::request_id::resolve(&raw.request_id)?,
            pools,
            tls: TlsFile::resolve(raw.tls.as_ref(), raw.plain_http.as_deref())?,
        })
    }

    /// The pool behind `service`, if one is declared.
    pub fn pool(&self, service: &str) -> Option<&Pool> {
        self.pools.iter().find(|pool| pool.service == service)
    }
}

fn resolve_pool(
    raw: &RawPool,
    index: usize,
    default_check: &RawHealthCheck,
    services: &[&str],
) -> Result<Pool, IngressError> {
    let key = format!("estate.pools[{index}]");
    if !services.contains(&raw.service.as_str()) {
        return Err(invalid(
            format!("{key}.service"),
            format!("'{}' is not the service of any ingress rule", raw.service),
        ));
    }
    let written = if raw.origins.is_empty() {
        std::slice::from_ref(&raw.service)
    } else {
        raw.origins.as_slice()
    };
    let origins = written
        .iter()
        .enumerate()
        .map(|(at, origin)| {
            service::address(origin)
                .map_err(|error| invalid(format!("{key}.origins[{at}]"), error.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let own = raw.health_check.clone().unwrap_or_default();
    let check = RawHealthCheck {
        path: own.path.or_else(|| default_check.path.clone()),
        interval: own.interval.or_else(|| default_check.interval.clone()),
        timeout: own.timeout.or_else(|| default_check.timeout.clone()),
    };
    Ok(Pool {
        service: raw.service.clone(),
        origins,
        health_check: health_check(&check, &format!("{key}.healthCheck"))?,
    })
}

fn health_check(raw: &RawHealthCheck, key: &str) -> Result<Option<HealthCheck>, IngressError> {
    let Some(path) = &raw.path else {
        return Ok(None);
    };
    if !path.starts_with('/') {
        return Err(invalid(
            format!("{key}.path"),
            "must start with '/'".to_owned(),
        ));
    }
    let duration = |value: &Option<String>, name: &str, default| {
        value.as_deref().map_or(Ok(default), |text| {
            parse_duration(&format!("{key}.{name}"), text)
        })
    };
    let interval = duration(&raw.interval, "interval", DEFAULT_HEALTH_INTERVAL)?;
    if interval.is_zero() {
        return Err(invalid(
            format!("{key}.interval"),
            "must be more than 0s".to_owned(),
        ));
    }
    Ok(Some(HealthCheck {
        path: path.clone(),
        interval,
        timeout: duration(&raw.timeout, "timeout", DEFAULT_HEALTH_TIMEOUT)?,
    }))
}

fn invalid(key: String, reason: String) -> IngressError {
    IngressError::Invalid { key, reason }
}
