//! What each transport answers. On HTTPS every answer carries HSTS (an origin's own value is
//! replaced); on plain HTTP none does (RFC 6797 §7.2: a browser ignores it there, and an
//! edge that sends it over plain HTTP only says it believes otherwise), and a request is
//! either redirected to the TLS port (`308`, same host and path, once the request passed the
//! edge's checks, with its request id and counted like every answer) or served as on HTTPS.

use crate::config::PlainHttp;
use crate::proxy::{HSTS, Proxy, ProxyBody};
use crate::server::TlsServing;
use crate::tls::automatic::Answering;
use http::header::{COOKIE, HeaderMap, HeaderValue, STRICT_TRANSPORT_SECURITY};
use http::{Request, Response, StatusCode, Version};
use hyper::body::Incoming;
use std::net::SocketAddr;
use std::sync::Arc;

/// How the client reached the edge; a request extension the proxy reads for
/// `X-Forwarded-Proto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// The plain port.
    Http,
    /// The TLS port.
    Https,
}

impl Scheme {
    /// The scheme `request` arrived with (plain when the edge did not say).
    pub fn of<B>(request: &Request<B>) -> Self {
        request
            .extensions()
            .get::<Self>()
            .copied()
            .unwrap_or(Self::Http)
    }

    /// Its `X-Forwarded-Proto` value.
    pub fn forwarded_proto(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            Self::Http => "http",
            Self::Https => "https",
        })
    }
}

/// The proxy behind both ports, with each port's rules.
pub struct Edge {
    proxy: Arc<Proxy>,
    serving: TlsServing,
    plain_http: PlainHttp,
    tls_port: Option<u16>,
}

impl Edge {
    /// `tls_port` is where a redirect sends plain requests (the bound TLS port).
    pub fn new(
        proxy: Arc<Proxy>,
        serving: TlsServing,
        plain_http: PlainHttp,
        tls_port: Option<u16>,
    ) -> Self {
        Self {
            proxy,
            serving,
            plain_http,
            tls_port,
        }
    }

    /// What the TLS port does beside the proxy: HSTS (`estate.edgeHeaders.hsts`) and the
    /// HTTP/2 idle timeout (`estate.http2IdleTimeout`).
    pub fn tls_serving(&self) -> TlsServing {
        self.serving
    }

    /// A request on the plain port.
    pub async fn plain(&self, peer: SocketAddr, request: Request<Incoming>) -> Response<ProxyBody> {
        if let (PlainHttp::Redirect, Some(port)) = (self.plain_http, self.tls_port) {
            return self.proxy.redirect(peer, request, port).await;
        }
        let mut response = self.proxy.handle(peer, request).await;
        response.headers_mut().remove(STRICT_TRANSPORT_SECURITY);
        response
    }

    /// A request on the TLS port; `answering` is told when it becomes a tunnel, from which on
    /// the connection's bytes are no longer HTTP answers.
    pub async fn https(
        &self,
        peer: SocketAddr,
        mut request: Request<Incoming>,
        answering: &Answering,
    ) -> Response<ProxyBody> {
        request.extensions_mut().insert(Scheme::Https);
        if request.version() == Version::HTTP_2 {
            join_cookies(request.headers_mut());
        }
        let mut response = self.proxy.handle(peer, request).await;
        if response.status() == StatusCode::SWITCHING_PROTOCOLS {
            answering.switch();
        }
        if self.serving.hsts {
            response
                .headers_mut()
                .insert(STRICT_TRANSPORT_SECURITY, HSTS);
        }
        response
    }
}

/// HTTP/2 may split `Cookie` into one field per cookie; an HTTP/1.1 origin expects one line
/// (RFC 9113 §8.2.3), and many read only the first.
fn join_cookies(headers: &mut HeaderMap) {
    if headers.get_all(COOKIE).iter().nth(1).is_none() {
        return;
    }
    let joined: Vec<&[u8]> = headers
        .get_all(COOKIE)
        .iter()
        .map(HeaderValue::as_bytes)
        .collect();
    if let Ok(value) = HeaderValue::from_bytes(&joined.join(&b"; "[..])) {
        headers.insert(COOKIE, value);
    }
}
