//! E-mail normalisation: the table of accepted and refused forms, and key digests.

use backend::auth::email::{key_digest, normalise};

#[test]
fn normalises_to_one_canonical_form() {
    let cases = [
        ("ada@example.com", Some("ada@example.com")),
        ("  Ada@Example.COM\t", Some("ada@example.com")),
        (
            "ADA.LOVELACE+tag@Sub.Example.org",
            Some("ada.lovelace+tag@sub.example.org"),
        ),
        ("a@b.co", Some("a@b.co")),
        ("", None),
        ("   ", None),
        ("ada", None),
        ("ada@", None),
        ("@example.com", None),
        ("ada@example", None),
        ("ada@@example.com", None),
        ("ada@x@example.com", None),
        ("ada lovelace@example.com", None),
        ("ada@exa mple.com", None),
        ("ada\u{0}@example.com", None),
        ("ada@example.com\r\nBcc: x@y.z", None),
        ("ada@.example.com", None),
        ("ada@example.com.", None),
        ("ada@example..com", None),
    ];
    for (raw, expected) in cases {
        assert_eq!(normalise(raw).as_deref(), expected, "{raw:?}");
    }
}

#[test]
fn length_limit_is_254_characters() {
    let domain = "@example.com";
    let at_limit = format!("{}{domain}", "a".repeat(254 - domain.len()));
    let over = format!("a{at_limit}");
    assert_eq!(normalise(&at_limit).as_deref(), Some(at_limit.as_str()));
    assert_eq!(normalise(&over), None);
}

#[test]
fn case_variants_share_one_digest_that_hides_the_address() {
    let digest = key_digest("ada@example.com");
    assert_eq!(digest, key_digest(" ADA@Example.com "));
    assert_eq!(digest.len(), 32);
    assert!(!digest.contains("ada"));
    assert_eq!(
        key_digest("alice@example.com"),
        "ff8d9819fc0e12bf0d24892e45987e24"
    );
    assert_eq!(key_digest("Not An Address"), key_digest("not an address"));
}
