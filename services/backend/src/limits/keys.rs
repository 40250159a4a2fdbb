//! What each group is keyed on: the client address for IP groups, the bearer for EXPENSIVE,
//! the CI key for CI, the e-mail's recipient for the per-recipient ceiling. Every key is
//! digested before it reaches the limiter.

use super::recipient::Recipient;
use super::rules;
use actix_web::HttpMessage;
use actix_web::dev::ServiceRequest;
use limiter::KeyDigest;
use platform::TrustedProxies;
use platform::jwt::bearer_token;

/// The header a CI runner may send its key in, instead of `Authorization: Bearer`.
pub const CI_KEY_HEADER: &str = "x-ci-key";

/// The key of `group` for this request (`None`: this group does not meter it).
pub fn key(request: &ServiceRequest, group: &str, proxies: &TrustedProxies) -> Option<KeyDigest> {
    match group {
        rules::EXPENSIVE => bearer_token(request.headers()).map(KeyDigest::of),
        rules::CI => ci_key(request).map(KeyDigest::of),
        rules::EMAIL_RECIPIENT => request
            .extensions()
            .get::<Recipient>()
            .map(|recipient| recipient.0),
        _ => proxies
            .from_service_request(request)
            .map(|ip| KeyDigest::of(ip.to_string())),
    }
}

/// A CI runner's key: its bearer, or `X-CI-Key`.
fn ci_key(request: &ServiceRequest) -> Option<&str> {
    bearer_token(request.headers())
        .or_else(|| {
            request
                .headers()
                .get(CI_KEY_HEADER)
                .and_then(|value| value.to_str().ok())
        })
        .filter(|key| !key.is_empty())
}
