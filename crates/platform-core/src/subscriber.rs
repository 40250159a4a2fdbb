//! One client as a budget sees it: the subscriber, not the address.
//!
//! An IPv4 client holds one address, so it is that address. An IPv6 subscriber is handed a
//! whole prefix (a /64 at the least, often a /56 or /48) and can pick a fresh address in it
//! for every connection: counted by the full address, each pick would be a fresh share. An
//! IPv6 address is therefore grouped by its first bits (a /64 by default). An IPv4-mapped
//! IPv6 address (`::ffff:198.51.100.1`) is the IPv4 client it maps.
//!
//! The services' per-client budgets and the edge's per-client bounds both group addresses
//! here, so one client is one client everywhere.

use ipnet::Ipv6Net;
use std::fmt;
use std::net::IpAddr;

/// One /64 is one subscriber's network (RFC 6177's smallest assignment).
pub const DEFAULT_IPV6_PREFIX: u8 = 64;

/// A subscriber as bytes: an IPv4 address's four, or an IPv6 network's sixteen and its
/// prefix length. Cheap to copy, hash and compare; no text is formatted to make one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subscriber {
    bytes: [u8; 17],
    len: u8,
}

impl Subscriber {
    /// The subscriber `address` belongs to, IPv6 grouped by its first `ipv6_prefix` bits
    /// (1 to 128; a larger value is taken as 128).
    pub fn of(address: IpAddr, ipv6_prefix: u8) -> Self {
        let mut bytes = [0u8; 17];
        match address.to_canonical() {
            IpAddr::V4(v4) => {
                bytes[..4].copy_from_slice(&v4.octets());
                Self { bytes, len: 4 }
            }
            IpAddr::V6(v6) => {
                let prefix = ipv6_prefix.min(128);
                let network = Ipv6Net::new_assert(v6, prefix).trunc();
                bytes[..16].copy_from_slice(&network.network().octets());
                bytes[16] = prefix;
                Self { bytes, len: 17 }
            }
        }
    }

    /// The bytes a digest of this subscriber is made of.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Display for Subscriber {
    /// The IPv4 address itself, or the IPv6 network (`2001:db8:1:2::/64`).
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.len == 4 {
            let [a, b, c, d, ..] = self.bytes;
            return write!(formatter, "{a}.{b}.{c}.{d}");
        }
        let mut octets = [0u8; 16];
        octets.copy_from_slice(&self.bytes[..16]);
        let network = Ipv6Net::new_assert(octets.into(), self.bytes[16]);
        write!(formatter, "{network}")
    }
}

impl fmt::Debug for Subscriber {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Subscriber({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subscriber(text: &str, prefix: u8) -> Subscriber {
        Subscriber::of(text.parse().expect("an address"), prefix)
    }

    #[test]
    fn one_network_one_subscriber() {
        let at = |text| subscriber(text, DEFAULT_IPV6_PREFIX).to_string();
        assert_eq!(at("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(at("2001:db8:1:2:ffff:1:2:3"), "2001:db8:1:2::/64");
        assert_eq!(at("2001:db8:1:3::1"), "2001:db8:1:3::/64");
        assert_eq!(at("198.51.100.1"), "198.51.100.1");
        assert_eq!(at("::ffff:198.51.100.1"), "198.51.100.1");
        assert_eq!(
            subscriber("2001:db8:1:2::1", 48).to_string(),
            "2001:db8:1::/48"
        );
    }

    #[test]
    fn one_subscriber_one_set_of_bytes() {
        let at = |text| subscriber(text, DEFAULT_IPV6_PREFIX);
        assert_eq!(at("2001:db8:1:2::1"), at("2001:db8:1:2:ffff::9"));
        assert_ne!(at("2001:db8:1:2::1"), at("2001:db8:1:3::1"));
        assert_eq!(at("::ffff:198.51.100.1"), at("198.51.100.1"));
        assert_ne!(at("198.51.100.1"), at("198.51.100.2"));
        assert_eq!(at("198.51.100.1").as_bytes(), &[198, 51, 100, 1]);
        assert_eq!(at("2001:db8:1:2::1").as_bytes().len(), 17);
    }
}
