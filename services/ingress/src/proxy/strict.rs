//! What the edge refuses before routing, and what it routes by (RFC 9112).
//!
//! - The host: the absolute-form URL's authority when there is one (§3.2.2: the URL wins, and
//!   it becomes the `Host` the origin receives), else the one `Host` header. Two `Host`
//!   lines, an HTTP/1.1 request without one, an invalid value or a `user@` in either is a
//!   400 (§3.2, RFC 9110 §4.2.4).
//! - Framing is hyper's: two different `Content-Length`s are its 400, and a request with both
//!   `Content-Length` and `Transfer-Encoding` is read by its chunks, its length dropped and
//!   its connection closed after the answer (§6.1), so nothing can be smuggled behind it.
//! - The path, normalized ([`RequestPath`]); what it refuses is a 400.

use crate::config::{BadPath, RequestPath, split_host_port};
use http::header::{HOST, HeaderValue};
use http::uri::Authority;
use http::{Request, Version};

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
    /// No `Host`, two of them, or one that is not `host[:port]`.
    #[error("the request's Host is missing, repeated or invalid")]
    Host,
    /// A path no origin agrees on.
    #[error("{0}")]
    Path(#[from] BadPath),
}

impl Refusal {
    /// The `reason` label of `ingress_client_errors_total`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::Path(_) => "path",
        }
    }
}

/// Checks `request`.
pub fn check<B>(request: &Request<B>) -> Result<Checked, Refusal> {
    let (host, authority) = host(request)?;
    let uri = request.uri();
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
        let value = HeaderValue::from_str(text).map_err(|_| Refusal::Host)?;
        return Ok((text.to_owned(), Some(value)));
    }
    match header {
        None if request.version() == Version::HTTP_11 => Err(Refusal::Host),
        None => Ok((String::new(), None)),
        Some(value) => {
            let text = value.to_str().map_err(|_| Refusal::Host)?;
            if text.is_empty() {
                return Ok((String::new(), None));
            }
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
        assert_eq!(host_of("/x", &[""]).expect("empty is allowed"), "");
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
    fn a_bad_path_is_refused() {
        assert!(matches!(
            host_of("/a%2fb", &["a.test"]),
            Err(Refusal::Path(BadPath::Separator))
        ));
    }
}
