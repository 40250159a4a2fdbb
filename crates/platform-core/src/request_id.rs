//! Request ids: what lets one request be followed from the edge's log into every service's.
//!
//! The ingress mints one per request (or keeps a trusted upstream's), sends it to the origin
//! in `x-request-id` and echoes it on the answer; a service takes it from that header, or
//! mints its own when a request comes without one. Either side keeps a received id only when
//! it is well-formed — at most [`MAX_LEN`] characters of `A-Z a-z 0-9 - . _ ~` (what a URL
//! carries unescaped) — so a log line never holds text a client chose beyond that shape.

use std::fmt;

/// The header the id travels in, both ways.
pub const X_REQUEST_ID: &str = "x-request-id";

/// The longest id kept from a request; a minted one is 32 characters.
pub const MAX_LEN: usize = 64;

/// One request's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// A fresh id: 128 random bits as 32 lower-case hex digits, the shape of a W3C trace id.
    pub fn mint() -> Self {
        Self(format!("{:032x}", rand::random::<u128>()))
    }

    /// `bytes` as an id, if they are well-formed (see the module's rule).
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        let well_formed = (1..=MAX_LEN).contains(&bytes.len())
            && bytes
                .iter()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-._~".contains(byte));
        well_formed.then(|| Self(String::from_utf8_lossy(bytes).into_owned()))
    }

    /// The id a request arrives with: its one header value when well-formed; `None` when
    /// the header is absent, repeated or malformed.
    pub fn received<'a>(mut values: impl Iterator<Item = &'a [u8]>) -> Option<Self> {
        let first = values.next()?;
        if values.next().is_some() {
            return None;
        }
        Self::parse(first)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_id_is_32_lower_case_hex_digits_and_fresh() {
        let first = RequestId::mint();
        assert_eq!(first.as_str().len(), 32);
        assert!(
            first
                .as_str()
                .bytes()
                .all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase())
        );
        assert_eq!(
            RequestId::parse(first.as_str().as_bytes()),
            Some(first.clone())
        );
        assert_ne!(RequestId::mint(), first);
    }

    #[test]
    fn only_short_url_safe_text_is_kept() {
        let longest = "a".repeat(MAX_LEN);
        for kept in [
            "0af7651916cd43dd8448eb211c80319c",
            "8f1e2d3c4b5a6978-AMS",
            "123e4567-e89b-12d3-a456-426614174000",
            "a.b_c~d",
            "x",
            longest.as_str(),
        ] {
            assert_eq!(
                RequestId::parse(kept.as_bytes()).map(|id| id.0),
                Some(kept.to_owned())
            );
        }
        let too_long = "a".repeat(MAX_LEN + 1);
        for refused in [
            "",
            too_long.as_str(),
            "a b",
            "a\tb",
            "a\"b",
            "a=b",
            "a/b",
            "a%0Ab",
            "a,b",
            "a;b",
            "a\u{e9}b",
            "{\"level\":\"ERROR\"}",
        ] {
            assert_eq!(RequestId::parse(refused.as_bytes()), None, "{refused:?}");
        }
        assert_eq!(RequestId::parse(b"a\xffb"), None);
        assert_eq!(RequestId::parse(b"a\rb\nc"), None);
    }

    #[test]
    fn a_repeated_header_is_not_an_id() {
        let one: [&[u8]; 1] = [b"abc"];
        assert_eq!(
            RequestId::received(one.into_iter()).map(|id| id.0),
            Some("abc".to_owned())
        );
        let two: [&[u8]; 2] = [b"abc", b"def"];
        assert_eq!(RequestId::received(two.into_iter()), None);
        assert_eq!(RequestId::received(std::iter::empty()), None);
    }
}
