//! Error references: `err-` and eight hex digits, returned to the caller of a 500 and logged
//! with the full error chain, so support can find the one without the caller seeing the other.

use std::fmt;

/// One 500's reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorReference(String);

impl ErrorReference {
    /// A fresh random reference.
    pub fn new() -> Self {
        Self(format!("err-{:08x}", rand::random::<u32>()))
    }

    /// The text (`err-1a2b3c4d`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ErrorReference {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for ErrorReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_err_and_eight_hex_digits() {
        let reference = ErrorReference::new();
        let text = reference.as_str();
        assert_eq!(text.len(), 12);
        assert!(text.starts_with("err-"));
        assert!(
            text[4..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
}
