//! E-mail addresses as account keys. Every path that looks up an account or counts an attempt
//! normalises first, so `Ada@Example.com` and `ada@example.com ` are one account and one
//! counter. The check is deliberately small (the inbox is the real proof an address works):
//! one `@`, non-empty parts, a dotted domain with no empty label, no whitespace or control
//! characters, at most 254 characters.

use limiter::KeyDigest;

/// The longest address accepted, in characters (RFC 5321's path limit less the brackets).
pub const MAX_EMAIL_CHARS: usize = 254;

/// The canonical form of `raw` (trimmed, lower-case), or `None` when it is not an address.
pub fn normalise(raw: &str) -> Option<String> {
    let email = raw.trim().to_lowercase();
    if email.chars().count() > MAX_EMAIL_CHARS
        || email.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    let (local, domain) = email.split_once('@')?;
    let well_formed = !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && domain.split('.').all(|label| !label.is_empty());
    well_formed.then_some(email)
}

/// The hex key digest (first 16 bytes of SHA-256) of the normalised address: what attempt,
/// code and token keys hold instead of the address. An input that is not an address is
/// digested trimmed and lower-cased, so its case variants still share one key.
pub fn key_digest(raw: &str) -> String {
    let canonical = normalise(raw).unwrap_or_else(|| raw.trim().to_lowercase());
    KeyDigest::of(canonical).to_hex()
}
