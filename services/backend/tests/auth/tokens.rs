//! Single-use tokens: redeemed once, for their own purpose only, never stored as issued.

use crate::support::embedded;
use backend::auth::tokens::{SingleUseTokens, TokenPurpose};
use backend::store::Space;
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);

#[tokio::test]
async fn a_token_redeems_once_for_its_purpose() {
    let (_dir, store) = embedded();
    let tokens = SingleUseTokens::new(store);
    let token = tokens
        .issue(TokenPurpose::PasswordReset, "ada@example.com", HOUR)
        .await
        .expect("issued");
    assert_eq!(token.len(), 43, "32 bytes, URL-safe base64 without padding");
    assert!(
        token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );

    assert_eq!(
        tokens
            .redeem(TokenPurpose::MagicLink, &token)
            .await
            .expect("ok"),
        None
    );
    assert_eq!(
        tokens
            .redeem(TokenPurpose::PasswordReset, &token)
            .await
            .expect("ok"),
        Some("ada@example.com".to_owned()),
        "the wrong purpose did not consume it"
    );
    assert_eq!(
        tokens
            .redeem(TokenPurpose::PasswordReset, &token)
            .await
            .expect("ok"),
        None
    );
    assert_eq!(
        tokens
            .redeem(TokenPurpose::PasswordReset, "")
            .await
            .expect("ok"),
        None
    );
    assert_eq!(
        tokens
            .redeem(TokenPurpose::PasswordReset, &"x".repeat(10_000))
            .await
            .expect("ok"),
        None
    );
}

#[tokio::test]
async fn only_a_digest_of_the_token_is_stored() {
    let (_dir, store) = embedded();
    let tokens = SingleUseTokens::new(store.clone());
    let token = tokens
        .issue(TokenPurpose::MagicLink, "ada@example.com", HOUR)
        .await
        .expect("issued");
    let stored = store.list(Space::Tokens, "").await.expect("listed");
    assert_eq!(stored.len(), 1);
    let (key, value) = &stored[0];
    assert!(
        !key.contains(&token) && !key.contains(&token[..16]),
        "{key}"
    );
    assert_eq!(value.as_slice(), b"ada@example.com");
    assert!(key.starts_with("magic_link:"), "{key}");
}

#[tokio::test]
async fn a_token_expires() {
    let (_dir, store) = embedded();
    let tokens = SingleUseTokens::new(store);
    let token = tokens
        .issue(
            TokenPurpose::MagicLink,
            "ada@example.com",
            Duration::from_millis(200),
        )
        .await
        .expect("issued");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        tokens
            .redeem(TokenPurpose::MagicLink, &token)
            .await
            .expect("ok"),
        None
    );
}
