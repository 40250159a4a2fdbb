//! CORS as an allow-list of explicit origins, for the services a browser calls with
//! credentials (backend, ai-service, mcp-server).
//!
//! Credentials are on, so an origin wildcard would let any site read a logged-in user's
//! responses: `*` is refused at start-up, as is anything that is not exactly an origin a
//! browser sends (`scheme://host[:port]`, http or https, lower case, no path).
//!
//! [`crate::stack`] mounts it ([`mount`]) outside every layer but the request log: then a 401
//! from an auth middleware, a 429 from a limiter or a 500 carries the CORS
//! headers for an allowed origin, and the browser shows the real status instead of a CORS
//! failure. actix-cors ≥ 0.7.2 adds them to errors from inner middleware too. The request log
//! goes outside it so that CORS's own answers (a refused preflight) carry the request's id.
//!
//! What a disallowed origin sees: a simple request is served as usual (actix-cors's
//! `block_on_origin_mismatch` stays off, so a same-origin page whose browser sends `Origin`
//! still works) but without any `access-control-*` header, so the browser withholds the
//! response from the page; a preflight is answered 400 with no `access-control-*` header,
//! so the browser never sends the real request. actix-cors alone would still add
//! `access-control-allow-credentials` and `access-control-expose-headers` to the served
//! response; [`OrphanHeaders`] strips every `access-control-*` header from a response that does
//! not allow an origin, errors from inner layers included.

use crate::config::{ConfigError, Env};
use crate::stack::AppFactory;
use actix_cors::Cors;
use actix_layer::{Answer, Layer};
use actix_web::App;
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::Uri;
use actix_web::http::header::{ACCESS_CONTROL_ALLOW_ORIGIN, HeaderMap, HeaderName};
use actix_web::middleware::Condition;
use actix_web::{Error, HttpResponse};
use std::rc::Rc;

pub use platform_core::cors::{DEFAULT_ALLOWED_ORIGINS, ENV_CORS_ALLOWED_ORIGINS};
/// The methods a cross-origin caller may use.
pub const ALLOWED_METHODS: [&str; 6] = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/// The request headers a cross-origin caller may send.
pub const ALLOWED_HEADERS: [&str; 5] = [
    "authorization",
    "content-type",
    "accept",
    "x-requested-with",
    "x-ci-key",
];
/// The response headers a page may read: a client needs the first three to back off after a
/// 429, and the request id to quote when it reports a failure.
pub const EXPOSED_HEADERS: [&str; 4] = [
    "retry-after",
    "ratelimit",
    "ratelimit-policy",
    crate::request_id::X_REQUEST_ID,
];
/// How long a browser may cache a preflight answer, in seconds.
pub const MAX_AGE_SECS: usize = 3600;

const WILDCARD_REFUSED: &str = "explicit origins such as https://app.example.com: `*` is \
     refused because credentialed requests are allowed";
const NOT_AN_ORIGIN: &str = "comma-separated origins written scheme://host[:port] \
     (http or https, lower case, no path, no trailing slash)";

/// The allowed origins, exactly as browsers send them in `Origin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsConfig {
    origins: Vec<String>,
    extra_headers: Vec<&'static str>,
}

impl CorsConfig {
    /// Reads `CORS_ALLOWED_ORIGINS` (default [`DEFAULT_ALLOWED_ORIGINS`]). Space around the
    /// commas is ignored; an empty entry, a wildcard or anything but an origin is refused.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let list = env
            .optional(ENV_CORS_ALLOWED_ORIGINS)
            .unwrap_or_else(|| DEFAULT_ALLOWED_ORIGINS.to_owned());
        let origins = list
            .split(',')
            .map(|entry| origin(entry.trim()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|expected| ConfigError::Invalid {
                name: ENV_CORS_ALLOWED_ORIGINS,
                expected: expected.to_owned(),
            })?;
        Ok(Self {
            origins,
            extra_headers: Vec::new(),
        })
    }

    /// Also lets cross-origin callers send these request headers, beyond [`ALLOWED_HEADERS`]
    /// (a protocol's own headers, such as MCP's `mcp-protocol-version`).
    #[must_use]
    pub fn with_request_headers(mut self, headers: &[&'static str]) -> Self {
        self.extra_headers.extend_from_slice(headers);
        self
    }

    /// The allowed origins, in the order configured.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    /// actix-cors for exactly these origins, with credentials.
    fn cors(&self) -> Cors {
        self.origins
            .iter()
            .fold(Cors::default(), |cors, origin| cors.allowed_origin(origin))
            .allowed_methods(ALLOWED_METHODS)
            .allowed_headers(ALLOWED_HEADERS.iter().chain(&self.extra_headers).copied())
            .expose_headers(EXPOSED_HEADERS)
            .supports_credentials()
            .max_age(MAX_AGE_SECS)
    }
}

/// `app` with CORS for `config` around it: actix-cors, and outside it [`OrphanHeaders`]
/// ([`crate::stack`] mounts it outermost but for the request log). Without a config (a
/// service no browser calls) both are switched off and every request passes straight through.
pub fn mount<A>(app: App<A>, config: Option<&CorsConfig>) -> App<impl AppFactory + use<A>>
where
    A: AppFactory + 'static,
{
    let on = config.is_some();
    let cors = config.map_or_else(Cors::default, CorsConfig::cors);
    app.wrap(Condition::new(on, cors))
        .wrap(Condition::new(on, OrphanHeaders))
}

/// Strips every `access-control-*` header from an answer that allows no origin, errors of
/// inner layers included: actix-cors alone would leave `access-control-allow-credentials` and
/// `access-control-expose-headers` on them.
#[derive(Clone, Copy, Debug)]
pub struct OrphanHeaders;

impl<S, B> Layer<S, B> for OrphanHeaders
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Body = B;

    fn call(&self, inner: Rc<S>, request: ServiceRequest) -> Answer<B> {
        let answer = inner.call(request);
        Box::pin(async move {
            match answer.await {
                Ok(mut response) => {
                    strip_orphans(response.headers_mut());
                    Ok(response)
                }
                Err(mut error) => {
                    // Runs after actix-cors's own mapper when the error becomes a response.
                    error.add_response_mapper(|mut response: HttpResponse| {
                        strip_orphans(response.headers_mut());
                        response
                    });
                    Err(error)
                }
            }
        })
    }
}

actix_layer::layer_transform!(OrphanHeaders);

/// Without `access-control-allow-origin` the other CORS headers grant nothing: drop them.
fn strip_orphans(headers: &mut HeaderMap) {
    if headers.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN) {
        return;
    }
    let orphans: Vec<HeaderName> = headers
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .cloned()
        .collect();
    for name in orphans {
        headers.remove(name);
    }
}

/// `entry` if it is exactly an origin a browser would send, else what was expected.
fn origin(entry: &str) -> Result<String, &'static str> {
    if entry.contains('*') {
        return Err(WILDCARD_REFUSED);
    }
    let uri: Uri = entry.parse().map_err(|_| NOT_AN_ORIGIN)?;
    let scheme = uri
        .scheme_str()
        .filter(|scheme| matches!(*scheme, "http" | "https"));
    let authority = uri
        .authority()
        .filter(|authority| !authority.as_str().contains('@'));
    let (Some(scheme), Some(authority)) = (scheme, authority) else {
        return Err(NOT_AN_ORIGIN);
    };
    let canonical = format!("{scheme}://{authority}");
    if canonical != entry || canonical != canonical.to_ascii_lowercase() {
        return Err(NOT_AN_ORIGIN);
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MapEnv;

    fn refusal(value: &str) -> String {
        CorsConfig::from_env(&MapEnv::from_iter([(ENV_CORS_ALLOWED_ORIGINS, value)]))
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn origins_are_taken_exactly() {
        let env = MapEnv::from_iter([(
            ENV_CORS_ALLOWED_ORIGINS,
            "https://app.example.com, http://[::1]:8080,https://a.example.com:8443",
        )]);
        let config = CorsConfig::from_env(&env).unwrap();
        assert_eq!(
            config.origins(),
            [
                "https://app.example.com",
                "http://[::1]:8080",
                "https://a.example.com:8443"
            ]
        );
    }

    #[test]
    fn anything_but_an_origin_is_refused() {
        let shape = format!("CORS_ALLOWED_ORIGINS is invalid: expected {NOT_AN_ORIGIN}");
        for value in [
            "https://app.example.com/",
            "https://app.example.com/app",
            "https://app.example.com?x=1",
            "ftp://files.example.com",
            "file:///etc/passwd",
            "app.example.com",
            "HTTPS://APP.EXAMPLE.COM",
            "https://user@app.example.com",
            "https://a.example.com,,https://b.example.com",
            "https://a.example.com,",
            "null",
        ] {
            assert_eq!(refusal(value), shape, "{value}");
        }
    }

    #[test]
    fn a_wildcard_is_refused_wherever_it_is() {
        let wildcard = format!("CORS_ALLOWED_ORIGINS is invalid: expected {WILDCARD_REFUSED}");
        for value in ["*", "https://a.example.com,*", "https://*.example.com"] {
            assert_eq!(refusal(value), wildcard, "{value}");
        }
    }
}
