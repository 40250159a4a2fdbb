//! The proxy: match a request to its rule, answer `http_status:NNN` rules here, send the
//! rest to an origin of the rule's pool, and hand the answer back (the transport's headers,
//! HSTS on HTTPS, are `crate::tls::edge`'s).
//!
//! Bodies stream both ways (hyper's `Incoming` is passed through, never collected); an
//! upgrade becomes a tunnel; no origin → the edge's 502.

mod forward;
mod headers;
mod recycle;
mod replay;
mod respond;
mod tunnel;

pub use headers::{HSTS, X_FORWARDED_FOR, X_FORWARDED_HOST, X_FORWARDED_PROTO};
pub use replay::UpstreamBody;
pub use respond::{BAD_GATEWAY_BODY, BAD_GATEWAY_CONTENT_TYPE, ProxyBody};

use crate::config::{IngressConfig, OriginRequest, Service};
use crate::metrics::{Metrics, Open};
use crate::origin::{Pool, Pools};
use forward::{Failure, Reply};
use http::header::HOST;
use http::uri::{PathAndQuery, Uri};
use http::{Request, Response, StatusCode, Version};
use http_body_util::Either;
use hyper::body::Incoming;
use percent_encoding::percent_decode_str;
use recycle::Recycling;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::task::TaskTracker;

/// Where a rule sends its requests.
enum Target {
    Status(StatusCode),
    Origins(Arc<Pool>),
}

/// The request handler, shared by every connection.
pub struct Proxy {
    config: IngressConfig,
    targets: Vec<Target>,
    metrics: Arc<Metrics>,
    tasks: TaskTracker,
}

impl Proxy {
    /// A proxy for `config` over `pools`; tunnels run on `tasks` so the drain waits for them.
    pub fn new(
        config: IngressConfig,
        pools: &Pools,
        metrics: Arc<Metrics>,
        tasks: TaskTracker,
    ) -> Self {
        let targets = config
            .rules
            .iter()
            .map(|rule| match &rule.service {
                Service::Status(code) => Target::Status(*code),
                // `Pools::build` gives every HTTP service a pool; without one, the honest
                // answer would be the edge's 502.
                Service::Http(http) => pools
                    .get(&http.text)
                    .map_or(Target::Status(StatusCode::BAD_GATEWAY), |pool| {
                        Target::Origins(pool.clone())
                    }),
            })
            .collect();
        Self {
            config,
            targets,
            metrics,
            tasks,
        }
    }

    /// Answers one request from `peer`.
    pub async fn handle(
        &self,
        peer: SocketAddr,
        request: Request<Incoming>,
    ) -> Response<ProxyBody> {
        let started = Instant::now();
        let _inflight = Open::new(&self.metrics.inflight);
        let (index, settings) = self.route(&request);
        let response = match &self.targets[index] {
            Target::Status(code) => respond::status(*code),
            Target::Origins(pool) => self.relay(pool, settings, peer, request).await,
        };
        self.metrics
            .answered(index, response.status().as_u16(), started.elapsed());
        response
    }

    /// The matched rule's index and settings: by `Host` (or the absolute URI's host) and the
    /// percent-decoded path, as cloudflared matches `req.URL.Path`.
    fn route(&self, request: &Request<Incoming>) -> (usize, &OriginRequest) {
        let host = request
            .headers()
            .get(HOST)
            .and_then(|host| host.to_str().ok())
            .or_else(|| request.uri().host())
            .unwrap_or_default();
        let path = percent_decode_str(request.uri().path()).decode_utf8_lossy();
        let (index, rule) = self.config.find(host, &path);
        (index, &rule.origin_request)
    }

    async fn relay(
        &self,
        pool: &Pool,
        settings: &OriginRequest,
        peer: SocketAddr,
        mut request: Request<Incoming>,
    ) -> Response<ProxyBody> {
        let version = request.version();
        let upgrade = headers::wants_upgrade(request.headers());
        let client_upgrade = upgrade.then(|| hyper::upgrade::on(&mut request));
        prepare(&mut request, settings, peer, upgrade);
        let deadline = self.config.estate.connect_retry_deadline;
        let reply = match forward::send(pool, settings, deadline, &self.metrics, request).await {
            Ok(reply) => reply,
            Err(failure) => {
                log_bad_gateway(pool.service(), &failure);
                return respond::bad_gateway();
            }
        };
        let Reply {
            mut response,
            sender,
            origin,
        } = reply;
        // The client hears the version it spoke, whatever the origin spoke.
        *response.version_mut() = version;
        match client_upgrade {
            Some(client) if response.status() == StatusCode::SWITCHING_PROTOCOLS => {
                let origin_upgrade = hyper::upgrade::on(&mut response);
                tunnel::spawn(&self.tasks, self.metrics.clone(), client, origin_upgrade);
                headers::strip_hop_by_hop(response.headers_mut(), true);
                response.map(|body| Either::Left(Recycling::alone(body)))
            }
            _ => {
                headers::strip_hop_by_hop(response.headers_mut(), false);
                let max_idle = settings.keep_alive_connections;
                response.map(|body| Either::Left(Recycling::new(body, sender, origin, max_idle)))
            }
        }
    }
}

/// Makes the client's request the origin's: hop-by-hop headers out, `X-Forwarded-*` in,
/// `httpHostHeader` applied, the URI in origin form (`/path?query`).
fn prepare(
    request: &mut Request<Incoming>,
    settings: &OriginRequest,
    peer: SocketAddr,
    upgrade: bool,
) {
    if !request.headers().contains_key(HOST)
        && let Some(authority) = request.uri().authority()
        && let Ok(host) = authority.as_str().parse()
    {
        request.headers_mut().insert(HOST, host);
    }
    headers::strip_hop_by_hop(request.headers_mut(), upgrade);
    let proto = crate::tls::Scheme::of(request).forwarded_proto();
    headers::add_forwarded(request.headers_mut(), peer.ip(), proto);
    if let Some(host) = &settings.http_host_header {
        request.headers_mut().insert(HOST, host.clone());
    }
    let path = request
        .uri()
        .path_and_query()
        .cloned()
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    *request.uri_mut() = Uri::from(path);
    // The origin leg is ours: HTTP/1.1 with keep-alive, whatever the client spoke.
    *request.version_mut() = Version::HTTP_11;
}

fn log_bad_gateway(service: &str, failure: &Failure) {
    match failure {
        Failure::Unreachable => log_unreachable(service),
        Failure::Broken(error) => log_broken(service, error),
    }
}

fn log_unreachable(service: &str) {
    tracing::warn!(service, "502: no origin accepted a connection");
}

fn log_broken(service: &str, error: &hyper::Error) {
    tracing::warn!(service, %error, "502: the origin connection failed");
}
