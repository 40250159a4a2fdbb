//! The client's address given the TCP peer and the `X-Forwarded-For` list: the peer, or what `X-Forwarded-For` says when — and only when —
//! the peer is one of our own proxies (the ingress), so a forged header changes nothing.
//!
//! Each proxy appends the address it received the request from, so the list is read from
//! the RIGHT: the rightmost address that is not itself a trusted proxy is the client. The
//! leftmost entries are whatever the client chose to write and are never believed.

use crate::config::{ConfigError, Env};
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// Comma-separated CIDR blocks or single addresses whose `X-Forwarded-For` is believed.
pub const ENV_TRUSTED_PROXIES: &str = "TRUSTED_PROXIES";

/// The header proxies append the client address to.
pub const X_FORWARDED_FOR: &str = "x-forwarded-for";

/// The proxies whose `X-Forwarded-For` is believed; none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<IpNet>,
}

impl TrustedProxies {
    /// Reads `TRUSTED_PROXIES` (unset: trust nobody). Space around the commas is ignored;
    /// an empty or unparseable entry is refused.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let Some(list) = env.optional(ENV_TRUSTED_PROXIES) else {
            return Ok(Self::default());
        };
        Self::from_entries(list.split(',').map(str::trim)).map_err(|_| ConfigError::Invalid {
            name: ENV_TRUSTED_PROXIES,
            expected: "comma-separated IP addresses or CIDR blocks \
                       (10.0.0.0/8, 192.168.1.5, fd00::/8)"
                .to_owned(),
        })
    }

    /// The networks written in `entries`, each a CIDR block or one address (a block of one;
    /// host bits are dropped). The first entry that is neither is the error.
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Self, &'a str> {
        let networks = entries
            .into_iter()
            .map(|entry| network(entry).ok_or(entry))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { networks })
    }

    /// Whether `address` is one of the trusted proxies.
    pub fn is_trusted(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.networks
            .iter()
            .any(|network| network.contains(&address))
    }

    /// The client address: `peer`, unless `peer` is trusted and `forwarded_for` is present;
    /// then the rightmost entry that is not a trusted proxy. An unparseable entry stops the
    /// walk at the last trusted hop seen, since nothing left of it can be vouched for.
    pub fn client_ip(&self, peer: Option<IpAddr>, forwarded_for: Option<&str>) -> Option<IpAddr> {
        let peer = peer?.to_canonical();
        let Some(list) = forwarded_for.filter(|_| self.is_trusted(peer)) else {
            return Some(peer);
        };
        let mut last_trusted = peer;
        for entry in list.rsplit(',') {
            let Some(hop) = hop(entry) else {
                return Some(last_trusted);
            };
            if !self.is_trusted(hop) {
                return Some(hop);
            }
            last_trusted = hop;
        }
        Some(last_trusted)
    }
}

/// A `TRUSTED_PROXIES` entry: a CIDR block, or one address as a block of one.
fn network(entry: &str) -> Option<IpNet> {
    if let Ok(network) = entry.parse::<IpNet>() {
        return Some(network.trunc());
    }
    entry.parse::<IpAddr>().ok().map(IpNet::from)
}

/// An `X-Forwarded-For` entry: an address, or an address with a port as some proxies write.
fn hop(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    let address = entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<SocketAddr>().map(|socket| socket.ip()))
        .ok()?;
    Some(address.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MapEnv;

    fn proxies(list: &str) -> TrustedProxies {
        TrustedProxies::from_env(&MapEnv::from_iter([(ENV_TRUSTED_PROXIES, list)])).unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = proxies("10.0.0.0/8, 192.168.1.5,fd00::/8");
        // (peer, X-Forwarded-For, expected client)
        let cases = [
            ("203.0.113.7", Some("198.51.100.1"), "203.0.113.7"),
            ("203.0.113.7", None, "203.0.113.7"),
            ("10.0.0.2", None, "10.0.0.2"),
            ("10.0.0.2", Some("198.51.100.1"), "198.51.100.1"),
            ("10.0.0.2", Some("1.1.1.1, 198.51.100.1"), "198.51.100.1"),
            (
                "10.0.0.2",
                Some("1.1.1.1, 198.51.100.1, 192.168.1.5"),
                "198.51.100.1",
            ),
            (
                "10.0.0.2",
                Some("198.51.100.1,10.9.9.9,192.168.1.5"),
                "198.51.100.1",
            ),
            ("10.0.0.2", Some("10.1.1.1, 10.2.2.2"), "10.1.1.1"),
            ("10.0.0.2", Some(""), "10.0.0.2"),
            ("10.0.0.2", Some("  "), "10.0.0.2"),
            ("10.0.0.2", Some("198.51.100.1, not-an-ip"), "10.0.0.2"),
            (
                "10.0.0.2",
                Some("198.51.100.1, garbage, 10.3.3.3"),
                "10.3.3.3",
            ),
            ("10.0.0.2", Some("198.51.100.1,,10.3.3.3"), "10.3.3.3"),
            ("10.0.0.2", Some("198.51.100.1:4711"), "198.51.100.1"),
            ("10.0.0.2", Some("[2001:db8::1]:443"), "2001:db8::1"),
            ("fd00::1", Some("2001:db8::7, fd00::2"), "2001:db8::7"),
            ("2001:db8::9", Some("2001:db8::7"), "2001:db8::9"),
            ("::ffff:10.0.0.2", Some("198.51.100.1"), "198.51.100.1"),
            ("10.0.0.2", Some("::ffff:198.51.100.1"), "198.51.100.1"),
        ];
        for (peer, forwarded_for, expected) in cases {
            assert_eq!(
                trusted.client_ip(Some(ip(peer)), forwarded_for),
                Some(ip(expected)),
                "peer {peer}, X-Forwarded-For {forwarded_for:?}"
            );
        }
    }

    #[test]
    fn nobody_is_trusted_by_default() {
        let trusted = TrustedProxies::from_env(&MapEnv::default()).unwrap();
        assert_eq!(trusted, TrustedProxies::default());
        assert_eq!(
            trusted.client_ip(Some(ip("127.0.0.1")), Some("198.51.100.1")),
            Some(ip("127.0.0.1"))
        );
        assert_eq!(trusted.client_ip(None, Some("198.51.100.1")), None);
    }

    #[test]
    fn a_single_address_trusts_only_itself_and_host_bits_are_dropped() {
        let trusted = proxies("127.0.0.1,10.1.2.3/16");
        assert!(trusted.is_trusted(ip("127.0.0.1")));
        assert!(!trusted.is_trusted(ip("127.0.0.2")));
        assert!(trusted.is_trusted(ip("10.1.200.200")));
        assert!(!trusted.is_trusted(ip("10.2.0.0")));
    }

    #[test]
    fn a_bad_entry_is_refused_naming_the_variable() {
        for list in [
            "10.0.0.0/33",
            "localhost",
            "10.0.0.0/8,",
            "10.0.0.0/8,,fd00::/8",
            "*",
        ] {
            let error = TrustedProxies::from_env(&MapEnv::from_iter([(ENV_TRUSTED_PROXIES, list)]))
                .expect_err("refused");
            assert_eq!(
                error.to_string(),
                "TRUSTED_PROXIES is invalid: expected comma-separated IP addresses or CIDR \
                 blocks (10.0.0.0/8, 192.168.1.5, fd00::/8)",
                "{list}"
            );
        }
    }
}
