//! A rule's `service`, checked in cloudflared's order with cloudflared's messages.

use super::IngressError;
use http::StatusCode;
use http::uri::Authority;

/// Where a matched request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// Proxied to the origin(s) of `http://host:port`.
    Http(HttpService),
    /// Answered here with this status and an empty body.
    Status(StatusCode),
}

/// An `http://host:port` service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpService {
    /// As written in the file: the key that `estate.pools` refers to.
    pub text: String,
    /// `host:port`, port 80 when the URL has none: what a connection dials.
    pub dial: String,
}

impl std::fmt::Display for Service {
    /// cloudflared's rendering: the URL as written, or `http_status:NNN`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Http(http) => f.write_str(&http.text),
            Self::Status(code) => write!(f, "http_status:{}", code.as_u16()),
        }
    }
}

/// Services cloudflared serves that this ingress does not.
const CLOUDFLARED_ONLY: [&str; 5] = [
    "hello_world",
    "hello-world",
    "bastion",
    "socks-proxy",
    "warp-routing",
];

/// Parses a `service` value.
pub fn parse(text: &str) -> Result<Service, IngressError> {
    if let Some(code) = text.strip_prefix("http_status:") {
        return status(code).map(Service::Status);
    }
    if text.starts_with("unix:")
        || text.starts_with("unix+tls:")
        || CLOUDFLARED_ONLY.contains(&text)
    {
        return Err(IngressError::Unsupported(text.to_owned()));
    }
    address(text).map(Service::Http)
}

/// `http_status:` codes: Go's `strconv.Atoi` words for what is not a number.
fn status(code: &str) -> Result<StatusCode, IngressError> {
    let number: i64 = code.parse().map_err(|error: std::num::ParseIntError| {
        let why = match error.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "value out of range"
            }
            _ => "invalid syntax",
        };
        IngressError::BadStatus(format!("strconv.Atoi: parsing \"{code}\": {why}"))
    })?;
    u16::try_from(number)
        .ok()
        .and_then(|number| StatusCode::from_u16(number).ok())
        .ok_or_else(|| IngressError::BadStatus(number.to_string()))
}

/// An origin address: `http://host[:port]` (or `ws://`), nothing after the authority but a
/// query. Also used for `estate.pools[].origins`.
pub fn address(text: &str) -> Result<HttpService, IngressError> {
    let invalid = || IngressError::NoSchemeOrHost(text.to_owned());
    let (scheme, rest) = text.split_once("://").ok_or_else(invalid)?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if scheme.is_empty() || authority.is_empty() {
        return Err(invalid());
    }
    let authority: Authority = authority.parse().map_err(|_| invalid())?;
    if authority.host().is_empty() {
        return Err(invalid());
    }
    if tail.starts_with('/') {
        return Err(IngressError::PathInService(text.to_owned()));
    }
    if !matches!(scheme, "http" | "ws") {
        return Err(IngressError::Unsupported(text.to_owned()));
    }
    let port = authority.port_u16().unwrap_or(80);
    let host = authority.host();
    Ok(HttpService {
        text: text.to_owned(),
        dial: format!("{host}:{port}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        parse(text).expect_err(text).to_string()
    }

    #[test]
    fn http_services_dial_host_and_port() {
        let Ok(Service::Http(http)) = parse("http://127.0.0.1:9800") else {
            panic!("not http")
        };
        assert_eq!(http.dial, "127.0.0.1:9800");
        let Ok(Service::Http(http)) = parse("http://backend") else {
            panic!("not http")
        };
        assert_eq!(http.dial, "backend:80");
        assert_eq!(
            parse("http_status:404").expect("valid"),
            Service::Status(StatusCode::NOT_FOUND)
        );
        assert_eq!(
            parse("http_status:404").expect("valid").to_string(),
            "http_status:404"
        );
    }

    #[test]
    fn refusals_use_cloudflared_words() {
        assert_eq!(
            message("http_status:abc"),
            "invalid HTTP status code: strconv.Atoi: parsing \"abc\": invalid syntax"
        );
        assert_eq!(message("http_status:99"), "invalid HTTP status code: 99");
        assert_eq!(
            message("http_status:1000"),
            "invalid HTTP status code: 1000"
        );
        assert_eq!(
            message("localhost:8000"),
            "localhost:8000 is an invalid address, please make sure it has a scheme and a hostname"
        );
        assert!(message("http://localhost:8000/api").starts_with(
            "http://localhost:8000/api is an invalid address, ingress rules don't support proxying"
        ));
        assert!(message("http://localhost:8000/").contains("different path"));
        assert!(message("https://localhost:8443").contains("not supported by this ingress"));
        assert!(message("hello_world").contains("not supported by this ingress"));
        assert!(message("unix:/tmp/socket").contains("not supported by this ingress"));
    }
}
