//! The start-up guard on the signing secret: what makes a secret too weak to sign with.
//!
//! Every token the estate mints is forgeable by whoever knows the secret, and a placeholder
//! that once sat in a committed file is known to everyone who read the repository. So a
//! blank, placeholder, short or patterned secret stops start-up unless the operator has
//! switched the guard off for a dev or test run.

/// The value `.env.example` ships with, refused like every other placeholder. The file and
/// the guard share this constant so the example can never be run as it stands.
pub const ENV_EXAMPLE_PLACEHOLDER: &str = "replace-me-with-64-random-characters";

/// The shortest secret accepted: RFC 7518 §3.2 asks for an HS256 key of at least 256 bits
/// (jsonwebtoken itself refuses only an empty key).
pub const MIN_SECRET_BYTES: usize = 32;

/// Fewer distinct bytes than this reads as a pattern, not a random value.
const MIN_DISTINCT_BYTES: usize = 10;

/// Shannon entropy per byte below this reads as a pattern (64 random hex digits give ≈ 3.8).
const MIN_BITS_PER_BYTE: f64 = 3.0;

/// Values people paste when they mean "fill this in later", compared case-insensitively.
const PLACEHOLDERS: [&str; 11] = [
    "secret",
    "changeme",
    "change-me",
    "changeit",
    "password",
    "placeholder",
    "your-secret-key",
    "jwt-secret",
    "replace-me",
    "default",
    ENV_EXAMPLE_PLACEHOLDER,
];

/// Any value starting with one of these is a placeholder, whatever follows.
const PLACEHOLDER_PREFIXES: [&str; 3] = ["change-me", "changeme", "replace-me"];

/// Why a secret is too weak to sign with. The text completes "the secret …" and never quotes
/// the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SecretWeakness {
    /// Only whitespace.
    #[error("is blank")]
    Blank,
    /// A well-known placeholder, or the value `.env.example` ships with.
    #[error("is a known placeholder")]
    Placeholder,
    /// Shorter than [`MIN_SECRET_BYTES`].
    #[error("is shorter than 32 bytes (HS256 needs a 256-bit key, RFC 7518 §3.2)")]
    TooShort,
    /// Few distinct bytes, low entropy, a repeated pattern or a run of consecutive characters.
    #[error("has too little variety (a repeated, sequential or low-entropy pattern)")]
    LowVariety,
}

/// Checks a secret, strongest objection first: blank, placeholder, short, low variety.
pub fn assess(secret: &str) -> Result<(), SecretWeakness> {
    let trimmed = secret.trim();
    if trimmed.is_empty() {
        return Err(SecretWeakness::Blank);
    }
    if is_placeholder(trimmed) {
        return Err(SecretWeakness::Placeholder);
    }
    if secret.len() < MIN_SECRET_BYTES {
        return Err(SecretWeakness::TooShort);
    }
    if has_low_variety(secret.as_bytes()) {
        return Err(SecretWeakness::LowVariety);
    }
    Ok(())
}

fn is_placeholder(trimmed: &str) -> bool {
    let lower = trimmed.to_ascii_lowercase();
    PLACEHOLDERS.contains(&lower.as_str())
        || PLACEHOLDER_PREFIXES
            .iter()
            .any(|prefix| lower.starts_with(prefix))
}

fn has_low_variety(bytes: &[u8]) -> bool {
    let mut counts = [0_usize; 256];
    for &byte in bytes {
        counts[usize::from(byte)] += 1;
    }
    let distinct = counts.iter().filter(|&&count| count > 0).count();
    distinct < MIN_DISTINCT_BYTES
        || bits_per_byte(&counts, bytes.len()) < MIN_BITS_PER_BYTE
        || is_periodic(bytes)
        || is_mostly_sequential(bytes)
}

/// Shannon entropy of the byte distribution, in bits per byte.
fn bits_per_byte(counts: &[usize; 256], total: usize) -> f64 {
    let total = total as f64;
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let share = count as f64 / total;
            -share * share.log2()
        })
        .sum()
}

/// True when the value repeats a shorter block ("0123456789" three times and a bit).
fn is_periodic(bytes: &[u8]) -> bool {
    let len = bytes.len();
    (1..=len / 2).any(|period| bytes[period..] == bytes[..len - period])
}

/// True when more than half the neighbouring bytes step by one ("abcdef…", "9876…").
fn is_mostly_sequential(bytes: &[u8]) -> bool {
    let steps = bytes
        .windows(2)
        .filter(|pair| pair[0].abs_diff(pair[1]) == 1)
        .count();
    steps * 2 > bytes.len().saturating_sub(1)
}
