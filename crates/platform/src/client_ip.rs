//! The client's address as actix sees a request: its TCP peer and every `X-Forwarded-For`
//! line, judged by the [`TrustedProxies`] (the framework-free core's): a forged header from
//! anyone but our own proxies changes nothing.

use actix_web::HttpRequest;
use std::net::IpAddr;

pub use platform_core::trusted_proxies::{ENV_TRUSTED_PROXIES, TrustedProxies, X_FORWARDED_FOR};

/// [`TrustedProxies::client_ip`] for a request: its peer address and every `X-Forwarded-For`
/// line, joined with commas in order (a line that is not text stops the walk there).
pub fn of_request(proxies: &TrustedProxies, request: &HttpRequest) -> Option<IpAddr> {
    let lines: Vec<&str> = request
        .headers()
        .get_all(X_FORWARDED_FOR)
        .map(|line| line.to_str().unwrap_or(""))
        .collect();
    let forwarded_for = (!lines.is_empty()).then(|| lines.join(","));
    let peer = request.peer_addr().map(|address| address.ip());
    proxies.client_ip(peer, forwarded_for.as_deref())
}
