//! Random secrets handed out once, and the digests stored in their place.
//!
//! The store only ever holds [`sha256_hex`] of a secret, so a copy of the database (or a
//! Redis dump) holds nothing a caller could present.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// `byte_count` bytes from the operating system's CSPRNG (through rand's thread generator),
/// as unpadded URL-safe base64: 32 bytes make 43 characters, 30 bytes make 40.
pub(crate) fn url_safe_random(byte_count: usize) -> String {
    let mut bytes = vec![0_u8; byte_count];
    rand::fill(bytes.as_mut_slice());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The lower-case hex SHA-256 of `secret`: what the store keeps instead of the secret.
pub(crate) fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}
