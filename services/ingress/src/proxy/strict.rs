//! What the edge refuses before routing, and what it routes by (RFC 9112).
//!
//! - The host: the absolute-form URL's authority when there is one (§3.2.2: the URL wins, and
//!   it becomes the `Host` the origin receives), else the one `Host` header. Two `Host`
//!   lines, an HTTP/1.1 request without one, an invalid value or a `user@` in either is a
//!   400 (§3.2, RFC 9110 §4.2.4).
//!   An empty `Host` is a 400 too: every target the edge routes has an authority. Over
//!   HTTP/2 a `host` field that names another host than `:authority` is a 400
//!   (RFC 9113 §8.3.1).
//! - Framing: two different `Content-Length`s are hyper's 400; transfer codings are
//!   [`super::framing`]'s (501 or 400).
//! - The method: the seven `Allow` names are forwarded; any other is `405` with that `Allow`:
//!   `TRACE` (it would echo the edge's and the origin's headers back), `CONNECT` (the edge
//!   opens no tunnels), and every other spelling or extension (`trace`, `TRACK`, WebDAV's),
//!   which an origin that upper-cases methods would read as one of those.
//! - The target: `*` only with `OPTIONS` (RFC 9112 §3.2.4), else a 400; the path, normalized
//!   ([`RequestPath`]); what it refuses is a 400.

use super::framing::{self, BadCoding};
use crate::config::{BadPath, RequestPath, split_host_port, without_port};
use http::header::{HOST, HeaderValue};
use http::uri::Authority;
use http::{Method, Request, StatusCode, Version};
use std::time::Duration;

/// What a `405` from the edge names in `Allow`: every method it forwards.
pub const ALLOWED_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
/// The methods of [`ALLOWED_METHODS`].
const FORWARDED_METHODS: [Method; 7] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
];

/// A request the edge accepts: what it is routed by and what the origin receives.
#[derive(Debug)]
pub struct Checked {
    /// The host it is for, as written (a port included).
    pub host: String,
    /// The `Host` the origin receives instead of the header: the URL's authority.
    pub authority: Option<HeaderValue>,
    /// Its path.
    pub path: RequestPath,
}

/// Why the edge refused a request.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// No `Host`, two of them, an empty one, one that is not `host[:port]`, or (HTTP/2) one
    /// that differs from `:authority`.
    #[error("the request's Host is missing, repeated, empty or invalid")]
    Host,
    /// A path no origin agrees on.
    #[error("{0}")]
    Path(#[from] BadPath),
    /// `*` with another method than `OPTIONS`.
    #[error("the request target * is only for OPTIONS")]
    Asterisk,
    /// A method the edge does not forward (`TRACE`, `CONNECT`, `trace`, `TRACK`, …).
    #[error("the edge does not forward this method")]
    Method,
    /// A transfer coding the edge does not read.
    #[error("{0}")]
    Coding(#[from] BadCoding),
    /// An HTTP/2 stream past its client's share of streams in flight ([`crate::gate`]).
    #[error("the client has its share of streams in flight")]
    Streams,
    /// An HTTP/2 stream of a client in debt of its cancel budget ([`crate::cancel_budget`]),
    /// for this long still.
    #[error("the client cancelled more streams than its budget")]
    Cancels(Duration),
}

impl Refusal {
    /// The `reason` label of `ingress_client_errors_total`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::Path(_) | Self::Asterisk => "path",
            Self::Method => "method",
            Self::Coding(_) => "coding",
            Self::Streams => "streams",
            Self::Cancels(_) => "cancels",
        }
    }

    /// The status the edge answers it with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::Method => StatusCode::METHOD_NOT_ALLOWED,
            Self::Coding(BadCoding::Unknown) => StatusCode::NOT_IMPLEMENTED,
            Self::Streams | Self::Cancels(_) => StatusCode::TOO_MANY_REQUESTS,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    /// How long the client should wait before it asks again, when the edge knows.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Cancels(left) => Some(*left),
            _ => None,
        }
    }

    /// Whether the connection must close after the answer: the body was not read, and its
    /// framing is one the edge does not trust to find the next request behind it.
    pub fn closes(&self) -> bool {
        matches!(self, Self::Coding(_))
    }
}

/// Checks `request`.
pub fn check<B>(request: &Request<B>) -> Result<Checked, Refusal> {
    framing::check(request.headers())?;
    let (host, authority) = host(request)?;
    let method = request.method();
    if !FORWARDED_METHODS.contains(method) {
        return Err(Refusal::Method);
    }
    let uri = request.uri();
    if uri.path() == "*" && method != Method::OPTIONS {
        return Err(Refusal::Asterisk);
    }
    let path = RequestPath::parse(uri.path(), uri.query())?;
    Ok(Checked {
        host,
        authority,
        path,
    })
}

/// The host a request is for and, from an absolute-form URL, the `Host` to send instead.
fn host<B>(request: &Request<B>) -> Result<(String, Option<HeaderValue>), Refusal> {
    let mut hosts = request.headers().get_all(HOST).iter();
    let header = hosts.next();
    if hosts.next().is_some() {
        return Err(Refusal::Host);
    }
    if let Some(authority) = request.uri().authority() {
        let text = valid(authority.as_str())?;
        // The port aside, as rules match: `host: a.test` beside `:authority: a.test:443`.
        let differs = |host: &HeaderValue| {
            let host = host.to_str().map_or("", without_port);
            !host.eq_ignore_ascii_case(without_port(text))
        };
        if request.version() == Version::HTTP_2 && header.is_some_and(differs) {
            return Err(Refusal::Host);
        }
        let value = HeaderValue::from_str(text).map_err(|_| Refusal::Host)?;
        return Ok((text.to_owned(), Some(value)));
    }
    match header {
        None if request.version() == Version::HTTP_11 => Err(Refusal::Host),
        None => Ok((String::new(), None)),
        Some(value) => {
            let text = value.to_str().map_err(|_| Refusal::Host)?;
            Ok((valid(text)?.to_owned(), None))
        }
    }
}

/// `text` if it is `host[:port]`: an authority without user information, a numeric port.
fn valid(text: &str) -> Result<&str, Refusal> {
    let authority: Authority = text.parse().map_err(|_| Refusal::Host)?;
    let port_is_numeric = split_host_port(text)
        .is_none_or(|(_, port)| port.bytes().all(|byte| byte.is_ascii_digit()));
    if text.contains('@') || authority.host().is_empty() || !port_is_numeric {
        return Err(Refusal::Host);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(target: &str, hosts: &[&str], version: Version) -> Request<()> {
        let mut builder = Request::get(target).version(version);
        for host in hosts {
            builder = builder.header(HOST, *host);
        }
        builder.body(()).expect("a request")
    }

    fn host_of(target: &str, hosts: &[&str]) -> Result<String, Refusal> {
        check(&request(target, hosts, Version::HTTP_11)).map(|checked| checked.host)
    }

    #[test]
    fn one_valid_host_or_the_url_authority() {
        assert_eq!(host_of("/x", &["a.test"]).expect("valid"), "a.test");
        assert_eq!(
            host_of("/x", &["a.test:8080"]).expect("valid"),
            "a.test:8080"
        );
        assert_eq!(host_of("/x", &["[::1]:80"]).expect("valid"), "[::1]:80");
        let absolute =
            check(&request("http://b.test/x", &["a.test"], Version::HTTP_11)).expect("valid");
        assert_eq!(absolute.host, "b.test");
        assert_eq!(absolute.authority.expect("the URL's"), "b.test");
        let old = check(&request("/x", &[], Version::HTTP_10)).expect("HTTP/1.0 needs none");
        assert_eq!(old.host, "");
    }

    #[test]
    fn a_missing_repeated_or_invalid_host_is_refused() {
        for hosts in [
            &[][..],
            &["a.test", "a.test"],
            &["a.test", "b.test"],
            &["user@a.test"],
            &["a.test:http"],
            &["a b"],
            &["a.test/x"],
            &[":80"],
            &[""],
        ] {
            assert!(
                matches!(host_of("/x", hosts), Err(Refusal::Host)),
                "{hosts:?}"
            );
        }
        assert!(matches!(
            host_of("http://user@b.test/x", &["b.test"]),
            Err(Refusal::Host)
        ));
        assert!(matches!(
            host_of("http://b.test/x", &["a.test", "a.test"]),
            Err(Refusal::Host)
        ));
    }

    #[test]
    fn an_http2_host_must_name_the_authority() {
        let mut request = request("https://a.test/x", &["b.test"], Version::HTTP_2);
        assert!(matches!(check(&request), Err(Refusal::Host)));
        request
            .headers_mut()
            .insert(HOST, HeaderValue::from_static("A.test"));
        assert_eq!(check(&request).expect("the same authority").host, "a.test");
    }

    #[test]
    fn trace_connect_and_a_misused_asterisk_are_refused() {
        let trace = Request::builder()
            .method(Method::TRACE)
            .uri("/x")
            .header(HOST, "a.test");
        let refusal = check(&trace.body(()).expect("a request")).expect_err("TRACE");
        assert_eq!(refusal.status(), StatusCode::METHOD_NOT_ALLOWED);
        let star = Request::get("*")
            .header(HOST, "a.test")
            .body(())
            .expect("a request");
        assert!(matches!(check(&star), Err(Refusal::Asterisk)));
        let options = Request::builder()
            .method(Method::OPTIONS)
            .uri("*")
            .header(HOST, "a.test");
        assert!(check(&options.body(()).expect("a request")).is_ok());
    }

    #[test]
    fn a_bad_path_is_refused() {
        assert!(matches!(
            host_of("/a%2fb", &["a.test"]),
            Err(Refusal::Path(BadPath::Separator))
        ));
    }
}
