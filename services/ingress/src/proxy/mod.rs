//! The proxy: check a request as RFC 9112 asks (the edge's own 400 otherwise), match it to
//! its rule by host and normalized path, answer `http_status:NNN` rules here, send the rest
//! to an origin of the rule's pool, and hand the answer back (the transport's headers,
//! HSTS on HTTPS, are `crate::tls::edge`'s).
//!
//! Bodies stream both ways (hyper's `Incoming` is passed through, never collected); a
//! WebSocket upgrade becomes a tunnel; an origin that cannot be reached or fails the request
//! → the edge's 502, one that does not answer in time → its 504.

mod attempt;
mod forward;
mod framing;
mod headers;
mod outcome;
mod prepare;
mod recycle;
mod redirect;
mod replay;
mod request_id;
mod respond;
mod strict;
mod tunnel;
mod upstream;

pub use headers::{HSTS, X_FORWARDED_FOR, X_FORWARDED_HOST, X_FORWARDED_PROTO};
pub use respond::{BAD_GATEWAY_BODY, BAD_GATEWAY_CONTENT_TYPE, ProxyBody};
pub use upstream::UpstreamBody;

use crate::config::{IngressConfig, OriginRequest, Service};
use crate::gate::OverShare;
use crate::metrics::{Metrics, Open};
use crate::origin::{Pool, Pools};
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::Either;
use hyper::body::{Body, Incoming};
use outcome::Reply;
use recycle::Recycling;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;
use strict::{Checked, Refusal};
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
        self.answer(peer, request, None).await
    }

    /// Answers one request from `peer` on a plain port that redirects to `tls_port`: checked,
    /// given its id, matched and counted as [`Self::handle`] does, then sent to HTTPS.
    pub async fn redirect(
        &self,
        peer: SocketAddr,
        request: Request<Incoming>,
        tls_port: u16,
    ) -> Response<ProxyBody> {
        self.answer(peer, request, Some(tls_port)).await
    }

    async fn answer(
        &self,
        peer: SocketAddr,
        mut request: Request<Incoming>,
        redirect_to: Option<u16>,
    ) -> Response<ProxyBody> {
        let started = Instant::now();
        let _inflight = Open::new(&self.metrics.inflight);
        let mut stamp = request_id::Stamp::take(&mut request, peer, &self.config.estate);
        let checked = match request.extensions().get::<OverShare>() {
            Some(OverShare::Streams) => Err(Refusal::Streams),
            Some(OverShare::Cancels(left)) => Err(Refusal::Cancels(*left)),
            None => strict::check(&request),
        };
        let mut response = match (checked, redirect_to) {
            (Ok(checked), None) => {
                self.routed(peer, request, checked, started, &mut stamp)
                    .await
            }
            (Ok(checked), Some(port)) => {
                let (index, _) = self.config.find(&checked.host, checked.path.matched());
                stamp.matched(index);
                let response = redirect::to_https(&request, &checked, port);
                let code = response.status().as_u16();
                self.metrics.answered(index, code, started.elapsed());
                response
            }
            (Err(refusal), _) => self.refused(&refusal),
        };
        stamp.finish(&mut response);
        response
    }

    /// A checked request, by its rule: matched by host and the normalized path
    /// ([`crate::config::RequestPath::matched`]).
    async fn routed(
        &self,
        peer: SocketAddr,
        request: Request<Incoming>,
        checked: Checked,
        started: Instant,
        stamp: &mut request_id::Stamp,
    ) -> Response<ProxyBody> {
        let (index, rule) = self.config.find(&checked.host, checked.path.matched());
        stamp.matched(index);
        let response = match &self.targets[index] {
            Target::Status(code) => respond::status(*code),
            Target::Origins(pool) => {
                let id = stamp.origin_value();
                self.relay(pool, &rule.origin_request, peer, request, checked, id)
                    .await
            }
        };
        self.metrics
            .answered(index, response.status().as_u16(), started.elapsed());
        response
    }

    /// The edge's 400, 405 or 501, before any rule.
    fn refused(&self, refusal: &Refusal) -> Response<ProxyBody> {
        self.metrics.client_error(refusal.reason());
        log_refused(refusal);
        respond::refused(refusal)
    }

    async fn relay(
        &self,
        pool: &Pool,
        settings: &OriginRequest,
        peer: SocketAddr,
        mut request: Request<Incoming>,
        checked: Checked,
        id: Option<HeaderValue>,
    ) -> Response<ProxyBody> {
        let version = request.version();
        // A handshake is a request without a body (RFC 6455 §4.1): with one, neither side's
        // upgrade could complete until the body had been read, and a body never sent would
        // hold both connections with no timer; such a request goes on as a plain one.
        let websocket = headers::wants_websocket(request.method(), request.headers())
            && request.body().is_end_stream();
        let client_upgrade = websocket.then(|| hyper::upgrade::on(&mut request));
        prepare::for_origin(
            &mut request,
            settings,
            peer,
            websocket,
            checked,
            pool.service(),
            id,
        );
        let bounds = &self.config.estate.bounds;
        let limits = forward::Limits {
            retry: self.config.estate.connect_retry_deadline,
            body: upstream::BodyBounds {
                timeout: bounds.request_body_timeout,
                max_bytes: bounds.max_request_body_bytes,
            },
        };
        let reply = match forward::send(pool, settings, limits, &self.metrics, request).await {
            Ok(reply) => reply,
            Err(failure) => return failure.answer(pool.service(), &self.metrics),
        };
        let Reply {
            mut response,
            connection,
            origin,
            answer_end,
        } = reply;
        // The client hears the version it spoke, whatever the origin spoke.
        *response.version_mut() = version;
        headers::one_length(response.headers_mut());
        if response.status() != StatusCode::SWITCHING_PROTOCOLS {
            headers::strip_hop_by_hop(response.headers_mut(), false);
            let max_idle = settings.keep_alive_connections;
            let give_back = (connection, origin, max_idle);
            return response.map(|body| Either::Left(Recycling::new(body, give_back, answer_end)));
        }
        match client_upgrade {
            Some(client) if headers::switched_to_websocket(response.headers()) => {
                let origin_upgrade = hyper::upgrade::on(&mut response);
                let idle_timeout = self.config.estate.bounds.websocket_idle_timeout;
                let ends = (client, origin_upgrade);
                tunnel::spawn(&self.tasks, self.metrics.clone(), ends, idle_timeout);
                headers::strip_hop_by_hop(response.headers_mut(), true);
                response.map(|body| Either::Left(Recycling::alone(body)))
            }
            _ => {
                self.metrics.origin_failed(origin.dial(), "upgrade");
                log_bad_upgrade(pool.service(), origin.dial());
                respond::bad_gateway()
            }
        }
    }
}

fn log_refused(refusal: &Refusal) {
    // Counted in `ingress_client_errors_total`; at debug, so a sweep of bad spellings cannot
    // flood the log.
    tracing::debug!(%refusal, "the edge refused the request");
}

fn log_bad_upgrade(service: &str, origin: &str) {
    tracing::warn!(
        service,
        origin,
        "502: the origin switched protocols to something else than the WebSocket asked for"
    );
}
