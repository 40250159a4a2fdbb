//! Bucket keys are digests: the first 16 bytes of SHA-256 of the raw key, never the raw value.
//!
//! A map of live tokens or addresses kept for the life of the process is a credential store
//! nobody asked for; 128 bits of digest is as unique a bucket and carries nothing back.

use sha2::{Digest, Sha256};
use std::fmt;

/// The digest of a raw key (an IP, a bearer token, an e-mail address, a CI key).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyDigest([u8; 16]);

impl KeyDigest {
    /// Digests a raw key.
    pub fn of(raw: impl AsRef<[u8]>) -> Self {
        let full = Sha256::digest(raw.as_ref());
        let mut first = [0u8; 16];
        first.copy_from_slice(&full[..16]);
        Self(first)
    }

    /// Digests a key given in parts (a kind, then the value), as if they were one: no
    /// allocation to join them.
    pub fn of_parts(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update(part);
        }
        let full = hasher.finalize();
        let mut first = [0u8; 16];
        first.copy_from_slice(&full[..16]);
        Self(first)
    }

    /// The 16 bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Lower-case hex, for Redis keys and logs only: never on the memory path.
    pub fn to_hex(&self) -> String {
        let mut text = String::with_capacity(32);
        self.push_hex(&mut text);
        text
    }

    /// Appends the lower-case hex to `text` (a Redis key being built), with no allocation
    /// of its own.
    pub fn push_hex(&self, text: &mut String) {
        let mut digits = [0u8; 32];
        if hex::encode_to_slice(self.0, &mut digits).is_ok()
            && let Ok(digits) = std::str::from_utf8(&digits)
        {
            text.push_str(digits);
        }
    }

    /// A byte that spreads a group's decision counters over their stripes (the digest is
    /// uniform). Where a bucket is stored is the memory store's seeded hash, never this.
    pub(crate) fn stripe_byte(&self) -> u8 {
        self.0[15]
    }
}

impl fmt::Debug for KeyDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyDigest({})", self.to_hex())
    }
}

impl fmt::Display for KeyDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_known_answers() {
        // Reference values: `printf %s INPUT | sha256sum | cut -c1-32`.
        let cases = [
            ("", "e3b0c44298fc1c149afbf4c8996fb924"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223"),
            ("203.0.113.7", "fec52565aa0cf18f57d7cf5b3ac72850"),
            ("alice@example.com", "ff8d9819fc0e12bf0d24892e45987e24"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                KeyDigest::of(input).to_hex(),
                expected,
                "digest of {input:?}"
            );
        }
    }

    #[test]
    fn debug_shows_only_the_digest() {
        let shown = format!("{:?}", KeyDigest::of("secret-token"));
        assert!(!shown.contains("secret-token"));
        assert_eq!(shown.len(), "KeyDigest()".len() + 32);
    }
}
