//! The edge's bounds on its clients, from the `estate:` block: how many connections it holds
//! (everyone's, and one client's), how many HTTP/2 streams one client has in flight or may
//! cancel, how large a request body may be, and how long a request body or a WebSocket tunnel
//! may go silent.

use super::IngressError;
use super::duration::parse_duration;
use super::raw::RawEstate;
use std::time::Duration;

/// `estate.maxConnections` when unset.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// `estate.maxConnectionsPerClient` when unset.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 256;
/// `estate.maxStreamsPerClient` when unset: eight connections' worth of HTTP/2 streams.
pub const DEFAULT_MAX_STREAMS_PER_CLIENT: usize = 1024;
/// `estate.cancelledStreamsPerClient` when unset: a minute's cancelled HTTP/2 streams, one
/// connection's GOAWAY bound.
pub const DEFAULT_CANCELLED_STREAMS_PER_CLIENT: u32 = 1000;
/// `estate.maxRequestBodyBytes` when unset: Cloudflare's 100 MB upload limit.
pub const DEFAULT_MAX_REQUEST_BODY_BYTES: u64 = 100 * 1024 * 1024;
/// `estate.requestBodyTimeout` when unset: nginx's `client_body_timeout`.
pub const DEFAULT_REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// `estate.websocketIdleTimeout` when unset: Cloudflare's idle WebSocket timeout.
pub const DEFAULT_WEBSOCKET_IDLE_TIMEOUT: Duration = Duration::from_secs(100);

/// What one client, and everyone, may hold of the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientBounds {
    /// Client connections held at once; past it, new ones wait to be accepted.
    pub max_connections: usize,
    /// Connections one client (an IPv4 address, an IPv6 /64) holds; past it, closed at once.
    pub max_connections_per_client: usize,
    /// HTTP/2 streams one client has in flight over all its connections; past it, `429`.
    pub max_streams_per_client: usize,
    /// HTTP/2 streams one client may cancel in a minute over all its connections; past it,
    /// GOAWAY.
    pub cancelled_streams_per_client: u32,
    /// The largest request body forwarded; past it, `413`.
    pub max_request_body_bytes: u64,
    /// How long a request body may send nothing while its origin waits for it; then `408`.
    pub request_body_timeout: Duration,
    /// How long a WebSocket tunnel with no byte either way is kept; then it is closed.
    pub websocket_idle_timeout: Duration,
}

impl ClientBounds {
    /// Every bound at its default.
    pub const DEFAULT: Self = Self {
        max_connections: DEFAULT_MAX_CONNECTIONS,
        max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
        max_streams_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
        cancelled_streams_per_client: DEFAULT_CANCELLED_STREAMS_PER_CLIENT,
        max_request_body_bytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
        request_body_timeout: DEFAULT_REQUEST_BODY_TIMEOUT,
        websocket_idle_timeout: DEFAULT_WEBSOCKET_IDLE_TIMEOUT,
    };

    /// The bounds `raw` sets; each count at least 1, each duration more than 0s.
    pub fn resolve(raw: &RawEstate) -> Result<Self, IngressError> {
        let defaults = Self::DEFAULT;
        let duration = |value: &Option<String>, key: &str, default| {
            let parsed = value
                .as_deref()
                .map_or(Ok(default), |text| parse_duration(key, text))?;
            if parsed.is_zero() {
                return Err(invalid(key, "must be more than 0s"));
            }
            Ok(parsed)
        };
        Ok(Self {
            max_connections: count(
                raw.max_connections,
                "estate.maxConnections",
                defaults.max_connections,
            )?,
            max_connections_per_client: count(
                raw.max_connections_per_client,
                "estate.maxConnectionsPerClient",
                defaults.max_connections_per_client,
            )?,
            max_streams_per_client: count(
                raw.max_streams_per_client,
                "estate.maxStreamsPerClient",
                defaults.max_streams_per_client,
            )?,
            cancelled_streams_per_client: count(
                raw.cancelled_streams_per_client,
                "estate.cancelledStreamsPerClient",
                defaults.cancelled_streams_per_client,
            )?,
            max_request_body_bytes: count(
                raw.max_request_body_bytes,
                "estate.maxRequestBodyBytes",
                defaults.max_request_body_bytes,
            )?,
            request_body_timeout: duration(
                &raw.request_body_timeout,
                "estate.requestBodyTimeout",
                defaults.request_body_timeout,
            )?,
            websocket_idle_timeout: duration(
                &raw.websocket_idle_timeout,
                "estate.websocketIdleTimeout",
                defaults.websocket_idle_timeout,
            )?,
        })
    }
}

/// A count as written, at least 1, or `default`.
fn count<T: PartialEq + From<u8>>(
    value: Option<T>,
    key: &str,
    default: T,
) -> Result<T, IngressError> {
    match value {
        Some(value) if value == T::from(0) => Err(invalid(key, "must be at least 1")),
        Some(value) => Ok(value),
        None => Ok(default),
    }
}

fn invalid(key: &str, reason: &str) -> IngressError {
    IngressError::Invalid {
        key: key.to_owned(),
        reason: reason.to_owned(),
    }
}
