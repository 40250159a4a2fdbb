//! The key a client's per-address budget is kept under: the subscriber, not the address
//! ([`platform_core::subscriber`]), its IPv6 networks `RATE_LIMIT_IPV6_PREFIX` bits wide
//! (default 64).

use crate::client_ip::TrustedProxies;
use crate::config::{ConfigError, Env};
use actix_web::HttpRequest;
use limiter::KeyDigest;
use platform_core::subscriber::Subscriber;
use std::net::IpAddr;

/// How many leading bits of an IPv6 client address make one budget (1 to 128).
pub const ENV_RATE_LIMIT_IPV6_PREFIX: &str = "RATE_LIMIT_IPV6_PREFIX";

pub use platform_core::subscriber::DEFAULT_IPV6_PREFIX;

/// The client address behind the trusted proxies, and the key its budget is kept under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIp {
    proxies: TrustedProxies,
    ipv6_prefix: u8,
}

impl Default for ClientIp {
    fn default() -> Self {
        Self {
            proxies: TrustedProxies::default(),
            ipv6_prefix: DEFAULT_IPV6_PREFIX,
        }
    }
}

impl ClientIp {
    /// Reads `TRUSTED_PROXIES` and `RATE_LIMIT_IPV6_PREFIX`.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let ipv6_prefix = env
            .u16_or(ENV_RATE_LIMIT_IPV6_PREFIX, DEFAULT_IPV6_PREFIX.into())
            .ok()
            .and_then(|bits| u8::try_from(bits).ok())
            .filter(|bits| (1..=128).contains(bits))
            .ok_or_else(|| ConfigError::Invalid {
                name: ENV_RATE_LIMIT_IPV6_PREFIX,
                expected: "a prefix length from 1 to 128".to_owned(),
            })?;
        Ok(Self {
            proxies: TrustedProxies::from_env(env)?,
            ipv6_prefix,
        })
    }

    /// The proxies whose `X-Forwarded-For` is believed.
    pub fn proxies(&self) -> &TrustedProxies {
        &self.proxies
    }

    /// The client's address (see [`crate::client_ip::of_request`]).
    pub fn address(&self, request: &HttpRequest) -> Option<IpAddr> {
        crate::client_ip::of_request(&self.proxies, request)
    }

    /// The digest of the client's subscriber: what every per-address group is keyed on.
    pub fn key(&self, request: &HttpRequest) -> Option<KeyDigest> {
        self.key_with(request, b"")
    }

    /// The digest of `kind` followed by the client's subscriber, for a group whose keys mix
    /// subscribers with other inputs (`ip\0` beside `sub\0`): the same subscriber, the same
    /// key, with no text formatted on the way.
    pub fn key_with(&self, request: &HttpRequest, kind: &[u8]) -> Option<KeyDigest> {
        let address = self.address(request)?;
        let subscriber = self.subscriber_of(address);
        Some(KeyDigest::of_parts(&[kind, subscriber.as_bytes()]))
    }

    /// The subscriber `address` belongs to, its IPv6 network of the configured prefix.
    pub fn subscriber_of(&self, address: IpAddr) -> Subscriber {
        Subscriber::of(address, self.ipv6_prefix)
    }

    /// The subscriber `address` belongs to, as text (for logs and tests): the IPv4 address
    /// itself, or the IPv6 network of the configured prefix (`2001:db8:1:2::/64`).
    pub fn subscriber(&self, address: IpAddr) -> String {
        self.subscriber_of(address).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MapEnv;

    fn client_ip(prefix: Option<&str>) -> ClientIp {
        let env: MapEnv = prefix
            .map(|bits| (ENV_RATE_LIMIT_IPV6_PREFIX, bits))
            .into_iter()
            .collect();
        ClientIp::from_env(&env).expect("a valid prefix")
    }

    #[test]
    fn one_subscriber_one_key() {
        let keys = client_ip(None);
        let subscriber = |text: &str| keys.subscriber(text.parse().expect("an address"));
        assert_eq!(subscriber("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(subscriber("2001:db8:1:2:ffff:1:2:3"), "2001:db8:1:2::/64");
        assert_eq!(subscriber("2001:db8:1:3::1"), "2001:db8:1:3::/64");
        assert_eq!(subscriber("198.51.100.1"), "198.51.100.1");
        assert_eq!(subscriber("::ffff:198.51.100.1"), "198.51.100.1");
        let wide = client_ip(Some("48"));
        let parsed = "2001:db8:1:2::1".parse().expect("an address");
        assert_eq!(wide.subscriber(parsed), "2001:db8:1::/48");
    }

    #[test]
    fn a_bad_prefix_is_refused_naming_the_variable() {
        for bits in ["0", "129", "-1", "64k", "300"] {
            let env = MapEnv::from_iter([(ENV_RATE_LIMIT_IPV6_PREFIX, bits)]);
            let error = ClientIp::from_env(&env).expect_err("refused");
            assert_eq!(
                error.to_string(),
                "RATE_LIMIT_IPV6_PREFIX is invalid: expected a prefix length from 1 to 128",
                "{bits}"
            );
        }
    }
}
