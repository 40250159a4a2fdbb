//! Comparing a presented credential with the configured one without telling a caller anything
//! by the time it takes: both sides are hashed to SHA-256 first, so neither the bytes that
//! match nor the configured credential's length shows in the comparison's time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Whether `presented` is `expected`, in time that depends on neither's content nor length
/// (beyond hashing them).
pub fn same_secret(presented: &[u8], expected: &[u8]) -> bool {
    bool::from(Sha256::digest(presented).ct_eq(&Sha256::digest(expected)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_bytes_match() {
        assert!(same_secret(b"token-1", b"token-1"));
        for other in [
            &b""[..],
            b"token-",
            b"token-12",
            b"token-2",
            b"TOKEN-1",
            b"token-1 ",
        ] {
            assert!(!same_secret(other, b"token-1"), "{other:?}");
        }
    }
}
