//! The per-recipient ceiling's key: the inbox a mail path would write to, read from the
//! request's JSON body (the limiter reads the body for the groups keyed on it and puts it
//! back for the handler).
//!
//! The address is normalised as accounts are ([`normalise`]: trimmed, lower-case), then folded
//! to the inbox it reaches: a `+tag` is dropped (sub-addressing, which most providers
//! deliver to the untagged inbox), and for Gmail the dots of the local part too, so
//! `V.ictim+1@gmail.com` and `victim@gmail.com` share one ceiling.

use crate::auth::email::normalise;
use limiter::KeyDigest;

/// Domains whose local part ignores dots.
const DOTLESS_DOMAINS: [&str; 2] = ["gmail.com", "googlemail.com"];

/// The digest of the inbox the body's `email` reaches; `None` when the body has no address
/// (the handler refuses such a body itself).
pub fn recipient_of(body: &[u8]) -> Option<KeyDigest> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let email = normalise(value.get("email")?.as_str()?)?;
    Some(KeyDigest::of(inbox(&email)))
}

/// The inbox a normalised address delivers to.
fn inbox(email: &str) -> String {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return email.to_owned();
    };
    let local = local.split_once('+').map_or(local, |(base, _)| base);
    let local = match DOTLESS_DOMAINS.contains(&domain) {
        true => local.replace('.', ""),
        false => local.to_owned(),
    };
    format!("{local}@{domain}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_one_inbox_is_one_recipient() {
        let victim = recipient_of(br#"{"email":"victim@example.com"}"#);
        assert!(victim.is_some());
        for body in [
            r#"{"email":" Victim@Example.com "}"#,
            r#"{"email":"victim+1@example.com"}"#,
            r#"{"email":"VICTIM+reset@EXAMPLE.COM"}"#,
        ] {
            assert_eq!(recipient_of(body.as_bytes()), victim, "{body}");
        }
        let gmail = recipient_of(br#"{"email":"victim@gmail.com"}"#);
        assert_eq!(recipient_of(br#"{"email":"v.i.c.tim+x@gmail.com"}"#), gmail);
        assert_ne!(recipient_of(br#"{"email":"v.ictim@example.com"}"#), victim);
        assert_eq!(recipient_of(b"not json"), None);
        assert_eq!(recipient_of(br#"{"name":"x"}"#), None);
        assert_eq!(recipient_of(br#"{"email":"not an address"}"#), None);
    }
}
