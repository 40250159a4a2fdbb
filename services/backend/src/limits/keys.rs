//! What each group is keyed on, so that each budget is one person's: the client's subscriber
//! (its IPv4 address, or its IPv6 network) for the per-address groups, the verified subject
//! of the bearer for EXPENSIVE, the CI key as the gatekeeper authenticates it for CI, the
//! recipient's inbox for the per-recipient ceiling. Every key is digested before it reaches
//! the limiter, and the kinds of key never share a digest (`sub`, `ip`, `ci` prefixes).

use super::recipient;
use super::rules;
use crate::config::BackendConfig;
use actix_web::HttpRequest;
use actix_web::dev::ServiceRequest;
use limiter::KeyDigest;
use limiter_actix::{RateLimit, UnknownGroup};
use platform::jwt::bearer_token;
use platform::{ClientIp, JwtKeys, TokenKind};

/// The header a CI runner may send its key in, instead of `Authorization: Bearer`.
pub const CI_KEY_HEADER: &str = "x-ci-key";

/// How the backend's requests are keyed: built once from the config.
#[derive(Clone, Debug)]
pub struct Keys {
    client_ip: ClientIp,
    jwt: JwtKeys,
}

impl Keys {
    /// The keys of `config`'s proxies, IPv6 prefix and token keys.
    pub fn new(config: &BackendConfig) -> Self {
        Self {
            client_ip: config.client_ip.clone(),
            jwt: config.jwt.clone(),
        }
    }

    /// `rate_limit` keyed per group, the recipient read from the body of the mail paths.
    pub fn apply(self, rate_limit: RateLimit) -> Result<RateLimit, UnknownGroup> {
        rate_limit
            .key(move |request, group| self.key(request, group.name()))
            .body_key(rules::EMAIL_RECIPIENT, recipient::recipient_of)
    }

    /// The key of `group` for this request (`None`: this group does not meter it).
    fn key(&self, request: &ServiceRequest, group: &str) -> Option<KeyDigest> {
        let request = request.request();
        match group {
            rules::EXPENSIVE => Some(self.expensive(request)),
            rules::CI => ci_key(request).map(|key| KeyDigest::of_parts(&[b"ci\0", key.as_bytes()])),
            _ => self.client_ip.key(request),
        }
    }

    /// The user a valid access token names; a request without one (it is refused by the
    /// handler) spends its client's budget, so a flood of made-up tokens is one budget.
    fn expensive(&self, request: &HttpRequest) -> KeyDigest {
        let subject = bearer_token(request.headers())
            .and_then(|token| self.jwt.verify(TokenKind::Access, token).ok())
            .map(|claims| claims.sub);
        match subject {
            Some(subject) => KeyDigest::of_parts(&[b"sub\0", subject.as_bytes()]),
            None => self
                .client_ip
                .key_with(request, b"ip\0")
                .unwrap_or_else(|| KeyDigest::of(b"ip\0")),
        }
    }
}

/// A CI runner's key as the gatekeeper authenticates it: its bearer, or `X-CI-Key`, trimmed.
pub fn ci_key(request: &HttpRequest) -> Option<&str> {
    bearer_token(request.headers())
        .or_else(|| {
            request
                .headers()
                .get(CI_KEY_HEADER)
                .and_then(|value| value.to_str().ok())
        })
        .map(str::trim)
        .filter(|key| !key.is_empty())
}
