//! Tests of the sensitive-name vocabulary: splitting names into words, and which names count.

use super::{is_redacting, is_sensitive, split_words};

#[test]
fn splits_every_naming_style() {
    assert_eq!(split_words("apiKey"), ["api", "key"]);
    assert_eq!(split_words("API_KEY"), ["api", "key"]);
    assert_eq!(split_words("X-Api-Key"), ["x", "api", "key"]);
    assert_eq!(split_words("APIKey"), ["api", "key"]);
    assert_eq!(
        split_words("getHTTPResponse2xx"),
        ["get", "http", "response", "xx"]
    );
    assert_eq!(split_words("user.email"), ["user", "email"]);
}

#[test]
fn secrets_and_personal_data_are_sensitive() {
    for name in [
        "password",
        "userPassword",
        "getPassword",
        "PASSWD",
        "pwd",
        "clientSecret",
        "access_token",
        "refreshToken",
        "bearer",
        "apiKey",
        "API_KEY",
        "x-api-key",
        "Authorization",
        "creditCard",
        "card_number",
        "cvv",
        "ssn",
        "email",
        "e_mail",
        "privateKey",
        "jwt",
    ] {
        assert!(is_sensitive(name), "{name}");
    }
}

#[test]
fn descriptions_and_lookalikes_are_not() {
    for name in [
        "password_policy",
        "passwordHash",
        "tokenCount",
        "max_tokens",
        "isEmailVerified",
        "secretName",
        "className",
        "tokenizer",
        "passwordless",
        "username",
        "keyId",
        "emailTemplate",
        "ssnLength",
        "token_state",
        "passwordStatus",
    ] {
        assert!(!is_sensitive(name), "{name}");
    }
}

#[test]
fn redactions_are_recognised() {
    assert!(is_redacting("mask"));
    assert!(is_redacting("sha256Hex"));
    assert!(is_redacting("redactedToken"));
    assert!(!is_redacting("token"));
}
