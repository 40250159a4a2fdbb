//! The ingress file as written: cloudflared's keys, plus the `estate:` extension, before any
//! validation. Unknown keys are ignored, as cloudflared ignores them, so one file can drive
//! both a real `cloudflared` and this ingress.

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
pub struct RawFile {
    /// The rules, first match wins.
    #[serde(default)]
    pub ingress: Vec<RawRule>,
    /// Defaults for every rule's `originRequest`.
    #[serde(default, rename = "originRequest")]
    pub origin_request: RawOriginRequest,
    /// This ingress's own settings; cloudflared ignores the key.
    #[serde(default)]
    pub estate: RawEstate,
}

/// One `ingress:` entry.
#[derive(Debug, Default, Deserialize)]
pub struct RawRule {
    /// Exact hostname, `*.` wildcard, `*`, or absent.
    #[serde(default)]
    pub hostname: String,
    /// An unanchored regular expression on the request path.
    #[serde(default)]
    pub path: String,
    /// `http://host:port` or `http_status:NNN`.
    #[serde(default)]
    pub service: String,
    /// Overrides of the top-level `originRequest`, field by field.
    #[serde(default, rename = "originRequest")]
    pub origin_request: RawOriginRequest,
}

/// The `originRequest` keys this ingress honours; cloudflared's others are ignored.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawOriginRequest {
    /// Time to establish a TCP connection to an origin (cloudflared: 30s).
    pub connect_timeout: Option<String>,
    /// TCP keep-alive probe interval on origin connections (cloudflared: 30s).
    pub tcp_keep_alive: Option<String>,
    /// Idle connections kept per origin (cloudflared: 100).
    pub keep_alive_connections: Option<usize>,
    /// How long an idle origin connection may be reused (cloudflared: 1m30s).
    pub keep_alive_timeout: Option<String>,
    /// How long an origin has to answer a request's head, once the request is sent (ours:
    /// cloudflared has no such deadline; default 60s).
    pub response_timeout: Option<String>,
    /// The `Host` header sent to the origin instead of the client's.
    pub http_host_header: Option<String>,
}

/// The `estate:` key: what cloudflared users ask for and cloudflared does not have.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawEstate {
    /// How long a SIGTERM waits for in-flight requests (default 30s).
    pub drain_timeout: Option<String>,
    /// How long a request keeps retrying origins that refuse connections (default 0s: one
    /// pass over the origins, as cloudflared).
    pub connect_retry_deadline: Option<String>,
    /// How long an HTTP/2 connection with no open stream is kept (default 75s).
    pub http2_idle_timeout: Option<String>,
    /// How long a client connection may take nothing of its answers (HTTP/1.1: a blocked
    /// write; HTTP/2: a stream waiting on the client) before it is closed (default 60s,
    /// nginx's `send_timeout`).
    pub send_timeout: Option<String>,
    /// Client connections held at once, everyone's (default 4096).
    pub max_connections: Option<usize>,
    /// Client connections one client (an IPv4 address, an IPv6 /64) holds at once (default 256).
    pub max_connections_per_client: Option<usize>,
    /// HTTP/2 streams one client has in flight at once, over all its connections (default 1024).
    pub max_streams_per_client: Option<usize>,
    /// HTTP/2 streams one client may cancel in a minute, over all its connections (default 1000).
    pub cancelled_streams_per_client: Option<u32>,
    /// The largest request body forwarded, in bytes (default 100 MiB).
    pub max_request_body_bytes: Option<u64>,
    /// How long a request body may send nothing while its origin waits for it (default 60s,
    /// nginx's `client_body_timeout`).
    pub request_body_timeout: Option<String>,
    /// How long a WebSocket tunnel with no byte either way is kept (default 100s).
    pub websocket_idle_timeout: Option<String>,
    /// Headers the edge adds.
    #[serde(default)]
    pub edge_headers: RawEdgeHeaders,
    /// Whose `x-request-id` is kept.
    #[serde(default)]
    pub request_id: super::request_id::RawRequestId,
    /// The default active health check of every pool.
    pub health_check: Option<RawHealthCheck>,
    /// Several origins for a rule's service.
    #[serde(default)]
    pub pools: Vec<RawPool>,
    /// TLS termination (`crate::config::tls`).
    pub tls: Option<super::tls::RawTls>,
    /// `redirect` or `serve` on the plain HTTP port.
    pub plain_http: Option<String>,
}

/// `estate.edgeHeaders`.
#[derive(Debug, Default, Deserialize)]
pub struct RawEdgeHeaders {
    /// `strict-transport-security` on every response (default true).
    pub hsts: Option<bool>,
}

/// An active health check.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct RawHealthCheck {
    /// The path probed with `GET` (required).
    pub path: Option<String>,
    /// Time between probes (default 2s).
    pub interval: Option<String>,
    /// Time a probe may take (default 1s).
    pub timeout: Option<String>,
}

/// `estate.pools[]`: the origins behind one service named in `ingress:`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawPool {
    /// The `service` of the rules this pool serves, exactly as written there.
    #[serde(default)]
    pub service: String,
    /// Every origin, `http://host:port` (default: the service alone).
    #[serde(default)]
    pub origins: Vec<String>,
    /// Overrides `estate.healthCheck` for this pool, key by key.
    pub health_check: Option<RawHealthCheck>,
}
