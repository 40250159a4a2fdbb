//! Error signatures: a message with what varies between occurrences masked, so the same error
//! groups together whichever user, order, address or attempt it was about.
//!
//! Masked, in this order: UUIDs, e-mail addresses, IPv4 addresses (with a port), hex numbers
//! (`0x…`, or 8+ hex digits mixing digits and letters: ids, hashes), quoted text, and every
//! remaining number (`worker-7` → `worker-<n>`, `250ms` → `<n>ms`). Whitespace is collapsed.

use regex::{Captures, Regex};
use std::sync::LazyLock;

struct Masks {
    uuid: Regex,
    email: Regex,
    ipv4: Regex,
    hex: Regex,
    quoted: Regex,
    number: Regex,
}

static MASKS: LazyLock<Masks> = LazyLock::new(|| {
    let pattern = |text: &str| Regex::new(text).expect("a valid pattern");
    Masks {
        uuid: pattern(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        ),
        email: pattern(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
        ipv4: pattern(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"),
        hex: pattern(r"\b(?:0[xX][0-9a-fA-F]+|[0-9a-fA-F]{8,})\b"),
        quoted: pattern(r#""[^"]*"|'[^']*'"#),
        number: pattern(r"\d+(?:[.,]\d+)*"),
    }
});

/// The signature of `message`.
pub fn signature(message: &str) -> String {
    let masks = &*MASKS;
    let text = masks.uuid.replace_all(message, "<uuid>");
    let text = masks.email.replace_all(&text, "<email>");
    let text = masks.ipv4.replace_all(&text, "<ip>");
    let text = masks.hex.replace_all(&text, |found: &Captures<'_>| {
        let token = &found[0];
        let mixed = token.bytes().any(|b| b.is_ascii_digit())
            && token.bytes().any(|b| b.is_ascii_alphabetic());
        if mixed || token.starts_with("0x") || token.starts_with("0X") {
            "<hex>".to_owned()
        } else {
            token.to_owned()
        }
    });
    let text = masks.quoted.replace_all(&text, |found: &Captures<'_>| {
        let quote = &found[0][..1];
        format!("{quote}<str>{quote}")
    });
    let text = masks.number.replace_all(&text, "<n>");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_varies_is_masked() {
        let cases = [
            (
                "Order 1842 failed for user 7c9e6679-7425-40de-944b-e07fc1f90ae7",
                "Order <n> failed for user <uuid>",
            ),
            (
                "connect to 10.0.3.7:5432 refused after 250ms",
                "connect to <ip> refused after <n>ms",
            ),
            ("mail to ann@example.com bounced", "mail to <email> bounced"),
            ("segfault at 0x7ffd5e8c", "segfault at <hex>"),
            ("object deadbeef42 missing", "object <hex> missing"),
            ("Table 'orders_2026' is locked", "Table '<str>' is locked"),
            ("  worker-3   gave   up  ", "worker-<n> gave up"),
            ("Invalid token", "Invalid token"),
        ];
        for (message, expected) in cases {
            assert_eq!(signature(message), expected, "{message}");
        }
    }

    #[test]
    fn the_same_error_twice_has_one_signature() {
        assert_eq!(
            signature("Timeout after 30s calling payments (attempt 2/3)"),
            signature("Timeout after 5s calling payments (attempt 1/3)")
        );
        assert_ne!(
            signature("Timeout calling payments"),
            signature("Timeout calling inventory")
        );
    }
}
