//! `estate.requestId`: the peers whose `x-request-id` the edge keeps (when well-formed)
//! instead of minting its own — an edge or load balancer of ours in front of this one.
//! Nobody by default: a client never chooses the id its request is logged under.

use super::IngressError;
use platform_core::TrustedProxies;
use serde::Deserialize;

/// `estate.requestId` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawRequestId {
    /// IP addresses or CIDR blocks (`10.0.0.0/8`, `192.168.1.5`, `fd00::/8`).
    #[serde(default)]
    pub trust_from: Vec<String>,
}

/// The trusted peers of `estate.requestId.trustFrom`.
pub fn resolve(raw: &RawRequestId) -> Result<TrustedProxies, IngressError> {
    TrustedProxies::from_entries(raw.trust_from.iter().map(String::as_str)).map_err(|entry| {
        let at = raw
            .trust_from
            .iter()
            .position(|written| written == entry)
            .unwrap_or_default();
        IngressError::Invalid {
            key: format!("estate.requestId.trustFrom[{at}]"),
            reason: format!(
                "'{entry}' is not an IP address or CIDR block (10.0.0.0/8, 192.168.1.5, fd00::/8)"
            ),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(entries: &[&str]) -> RawRequestId {
        RawRequestId {
            trust_from: entries.iter().map(|entry| (*entry).to_owned()).collect(),
        }
    }

    #[test]
    fn nobody_is_trusted_unless_listed() {
        let nobody = resolve(&raw(&[])).expect("valid");
        assert!(!nobody.is_trusted("127.0.0.1".parse().expect("ip")));
        let listed = resolve(&raw(&["10.0.0.0/8", "192.168.1.5", "fd00::/8"])).expect("valid");
        assert!(listed.is_trusted("10.9.8.7".parse().expect("ip")));
        assert!(listed.is_trusted("::ffff:192.168.1.5".parse().expect("ip")));
        assert!(!listed.is_trusted("192.168.1.6".parse().expect("ip")));
    }

    #[test]
    fn a_bad_entry_is_named_by_its_index() {
        for (entries, at) in [
            (&["10.0.0.0/33"][..], 0),
            (&["10.0.0.0/8", "localhost"][..], 1),
            (&["10.0.0.0/8", ""][..], 1),
            (&["10.0.0.0/8", "*"][..], 1),
        ] {
            let error = resolve(&raw(entries)).expect_err("refused").to_string();
            assert!(
                error.starts_with(&format!("estate.requestId.trustFrom[{at}]: '")),
                "{error}"
            );
            assert!(
                error.ends_with(
                    "is not an IP address or CIDR block (10.0.0.0/8, 192.168.1.5, fd00::/8)"
                ),
                "{error}"
            );
        }
    }
}
