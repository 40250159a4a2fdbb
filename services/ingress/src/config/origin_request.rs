//! `originRequest`: the top-level defaults and each rule's overrides, resolved to values.
//! Honoured: `connectTimeout`, `tcpKeepAlive`, `keepAliveConnections`, `keepAliveTimeout`,
//! `httpHostHeader`, and the estate's `responseTimeout` (cloudflared has no deadline on an
//! origin's answer; the key is named like its timeouts); cloudflared's other keys (TLS,
//! proxy, access, …) are ignored.

use super::IngressError;
use super::duration::parse_duration;
use super::raw::RawOriginRequest;
use http::HeaderValue;
use std::time::Duration;

/// How requests of one rule reach its origins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginRequest {
    /// Time to establish one TCP connection.
    pub connect_timeout: Duration,
    /// TCP keep-alive probe interval on origin connections.
    pub tcp_keep_alive: Duration,
    /// Idle connections kept per origin.
    pub keep_alive_connections: usize,
    /// How long an idle connection may wait for reuse.
    pub keep_alive_timeout: Duration,
    /// `Host` sent to the origin instead of the client's.
    pub http_host_header: Option<HeaderValue>,
    /// How long an origin has to answer with a response head once the whole request is sent.
    pub response_timeout: Duration,
}

/// Default `responseTimeout`: nginx's `proxy_read_timeout`.
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for OriginRequest {
    /// cloudflared's defaults.
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            tcp_keep_alive: Duration::from_secs(30),
            keep_alive_connections: 100,
            keep_alive_timeout: Duration::from_secs(90),
            http_host_header: None,
            response_timeout: DEFAULT_RESPONSE_TIMEOUT,
        }
    }
}

impl OriginRequest {
    /// `raw` over `defaults`; `prefix` names where the keys are (`originRequest`,
    /// `Rule #2 originRequest`) in error messages.
    pub fn resolve(
        raw: &RawOriginRequest,
        defaults: &Self,
        prefix: &str,
    ) -> Result<Self, IngressError> {
        let key = |name: &str| format!("{prefix}.{name}");
        let duration = |value: &Option<String>, name: &str, default: Duration| match value {
            Some(text) => parse_duration(&key(name), text),
            None => Ok(default),
        };
        let http_host_header = match &raw.http_host_header {
            None => defaults.http_host_header.clone(),
            Some(text) => Some(
                HeaderValue::from_str(text).map_err(|_| IngressError::Invalid {
                    key: key("httpHostHeader"),
                    reason: "not a valid Host header value".to_owned(),
                })?,
            ),
        };
        Ok(Self {
            connect_timeout: duration(
                &raw.connect_timeout,
                "connectTimeout",
                defaults.connect_timeout,
            )?,
            tcp_keep_alive: duration(&raw.tcp_keep_alive, "tcpKeepAlive", defaults.tcp_keep_alive)?,
            keep_alive_connections: raw
                .keep_alive_connections
                .unwrap_or(defaults.keep_alive_connections),
            keep_alive_timeout: duration(
                &raw.keep_alive_timeout,
                "keepAliveTimeout",
                defaults.keep_alive_timeout,
            )?,
            http_host_header,
            response_timeout: positive(
                duration(
                    &raw.response_timeout,
                    "responseTimeout",
                    defaults.response_timeout,
                )?,
                &key("responseTimeout"),
            )?,
        })
    }
}

/// A deadline of zero would refuse every request: it must be more than that.
fn positive(value: Duration, key: &str) -> Result<Duration, IngressError> {
    if value.is_zero() {
        return Err(IngressError::Invalid {
            key: key.to_owned(),
            reason: "must be more than 0s".to_owned(),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_values_override_defaults_field_by_field() {
        let top = RawOriginRequest {
            connect_timeout: Some("5s".to_owned()),
            keep_alive_timeout: Some("4s".to_owned()),
            ..RawOriginRequest::default()
        };
        let defaults = OriginRequest::resolve(&top, &OriginRequest::default(), "originRequest")
            .expect("valid");
        let rule = RawOriginRequest {
            connect_timeout: Some("1m30s".to_owned()),
            ..RawOriginRequest::default()
        };
        let resolved =
            OriginRequest::resolve(&rule, &defaults, "Rule #1 originRequest").expect("valid");
        assert_eq!(resolved.connect_timeout, Duration::from_secs(90));
        assert_eq!(resolved.keep_alive_timeout, Duration::from_secs(4));
        assert_eq!(resolved.keep_alive_connections, 100);
        assert_eq!(resolved.response_timeout, DEFAULT_RESPONSE_TIMEOUT);
    }

    #[test]
    fn the_response_timeout_is_per_rule_and_more_than_zero() {
        let rule = RawOriginRequest {
            response_timeout: Some("250ms".to_owned()),
            ..RawOriginRequest::default()
        };
        let resolved =
            OriginRequest::resolve(&rule, &OriginRequest::default(), "x").expect("valid");
        assert_eq!(resolved.response_timeout, Duration::from_millis(250));
        let zero = RawOriginRequest {
            response_timeout: Some("0s".to_owned()),
            ..RawOriginRequest::default()
        };
        let error =
            OriginRequest::resolve(&zero, &OriginRequest::default(), "Rule #2 originRequest")
                .expect_err("zero")
                .to_string();
        assert_eq!(
            error,
            "Rule #2 originRequest.responseTimeout: must be more than 0s"
        );
    }

    #[test]
    fn a_bad_duration_names_its_key() {
        let raw = RawOriginRequest {
            tcp_keep_alive: Some("soon".to_owned()),
            ..RawOriginRequest::default()
        };
        let error =
            OriginRequest::resolve(&raw, &OriginRequest::default(), "Rule #3 originRequest")
                .expect_err("invalid")
                .to_string();
        assert!(
            error.starts_with("Rule #3 originRequest.tcpKeepAlive is not a duration: "),
            "{error}"
        );
    }
}
