//! What each transport answers. On HTTPS every answer carries HSTS (an origin's own value is
//! replaced); on plain HTTP none does (RFC 6797 §7.2: a browser ignores it there, and an
//! edge that sends it over plain HTTP only says it believes otherwise), and a request is
//! either redirected to the TLS port (`308`, same host and path) or served as on HTTPS.

use crate::config::{PlainHttp, without_port};
use crate::proxy::{HSTS, Proxy, ProxyBody};
use bytes::Bytes;
use http::header::{COOKIE, HOST, HeaderMap, HeaderValue, LOCATION, STRICT_TRANSPORT_SECURITY};
use http::uri::Authority;
use http::{Request, Response, StatusCode, Version};
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
    hsts: bool,
    plain_http: PlainHttp,
    tls_port: Option<u16>,
}

impl Edge {
    /// `tls_port` is where a redirect sends plain requests (the bound TLS port).
    pub fn new(
        proxy: Arc<Proxy>,
        hsts: bool,
        plain_http: PlainHttp,
        tls_port: Option<u16>,
    ) -> Self {
        Self {
            proxy,
            hsts,
            plain_http,
            tls_port,
        }
    }

    /// The HSTS setting (`estate.edgeHeaders.hsts`).
    pub fn hsts(&self) -> bool {
        self.hsts
    }

    /// A request on the plain port.
    pub async fn plain(&self, peer: SocketAddr, request: Request<Incoming>) -> Response<ProxyBody> {
        if let (PlainHttp::Redirect, Some(port)) = (self.plain_http, self.tls_port) {
            return redirect(&request, port);
        }
        let mut response = self.proxy.handle(peer, request).await;
        response.headers_mut().remove(STRICT_TRANSPORT_SECURITY);
        response
    }

    /// A request on the TLS port; `switched` is set when it becomes a tunnel, from which on
    /// the connection's bytes are no longer HTTP answers.
    pub async fn https(
        &self,
        peer: SocketAddr,
        mut request: Request<Incoming>,
        switched: &AtomicBool,
    ) -> Response<ProxyBody> {
        request.extensions_mut().insert(Scheme::Https);
        if request.version() == Version::HTTP_2 {
            join_cookies(request.headers_mut());
        }
        let mut response = self.proxy.handle(peer, request).await;
        if response.status() == StatusCode::SWITCHING_PROTOCOLS {
            switched.store(true, Ordering::Relaxed);
        }
        if self.hsts {
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

/// `308` to `https://<host>[:port]<path?query>`; a request without a usable host is `400`.
fn redirect<B>(request: &Request<B>, port: u16) -> Response<ProxyBody> {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| request.uri().host())
        .map(without_port)
        .filter(|host| !host.is_empty());
    let target = request
        .uri()
        .path_and_query()
        .map(|target| target.as_str())
        .filter(|target| target.starts_with('/'))
        .unwrap_or("/");
    let location = host.and_then(|host| location(host, port, target));
    let mut response = Response::new(Either::Right(Full::new(Bytes::new())));
    match location {
        Some(location) => {
            *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
            response.headers_mut().insert(LOCATION, location);
        }
        None => *response.status_mut() = StatusCode::BAD_REQUEST,
    }
    response
}

/// `https://host[:port]target`, when `host` is a host and nothing else: no user info, no
/// path, nothing a browser would read as another destination than the one the client named.
fn location(host: &str, port: u16, target: &str) -> Option<HeaderValue> {
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let authority = if port == 443 {
        host
    } else {
        format!("{host}:{port}")
    };
    let parsed = authority.parse::<Authority>().ok()?;
    if parsed.as_str().contains('@') {
        return None;
    }
    HeaderValue::from_str(&format!("https://{authority}{target}")).ok()
}
