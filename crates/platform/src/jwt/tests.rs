//! Unit tests of the secret guard, key derivation, the claims' wire form and the bearer helper.

use super::*;
use actix_web::http::header::HeaderValue;

const HEX_64: &str = "9f2c4e1a7b3d8f60c5e2a91d4b7f3c08e6a15d9b2f4c7e30a8d1b6f5c2e9a473";
const BASE64_44: &str = "q3Xv9Jt0Lw+Z1mYb8R2cKpN4sH7eUaF6dGiO5jTzVxE=";

#[test]
fn each_weakness_is_named() {
    let cases = [
        ("", SecretWeakness::Blank),
        ("  \t ", SecretWeakness::Blank),
        ("secret", SecretWeakness::Placeholder),
        ("ChangeMe", SecretWeakness::Placeholder),
        (" password ", SecretWeakness::Placeholder),
        ("your-secret-key", SecretWeakness::Placeholder),
        (ENV_EXAMPLE_PLACEHOLDER, SecretWeakness::Placeholder),
        (
            "CHANGE-ME-please-to-something-long-and-random-9f2c",
            SecretWeakness::Placeholder,
        ),
        (
            "replace-me-9f2c4e1a7b3d8f60c5e2a91d4b7f3c08",
            SecretWeakness::Placeholder,
        ),
        ("9f2c4e1a7b3d8f60c5e2a91d4b7f3c0", SecretWeakness::TooShort),
        (&"a".repeat(64), SecretWeakness::LowVariety),
        (&"ab".repeat(32), SecretWeakness::LowVariety),
        (
            "0123456789012345678901234567890123",
            SecretWeakness::LowVariety,
        ),
        (
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
            SecretWeakness::LowVariety,
        ),
        (
            "Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3",
            SecretWeakness::LowVariety,
        ),
    ];
    for (secret, weakness) in cases {
        assert_eq!(assess(secret), Err(weakness), "{secret:?}");
    }
}

#[test]
fn random_secrets_pass() {
    for secret in [HEX_64, BASE64_44, &BASE64_44[..32]] {
        assert_eq!(assess(secret), Ok(()), "{secret}");
    }
}

#[test]
fn generated_secrets_pass() {
    const HEX: &[u8] = b"0123456789abcdef";
    const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for _ in 0..500 {
        let hex: String = (0..64)
            .map(|_| char::from(HEX[rand::random_range(0..HEX.len())]))
            .collect();
        let base64: String = (0..32)
            .map(|_| char::from(BASE64[rand::random_range(0..BASE64.len())]))
            .collect();
        assert_eq!(assess(&hex), Ok(()), "{hex}");
        assert_eq!(assess(&base64), Ok(()), "{base64}");
    }
}

#[test]
fn each_kind_has_its_own_key() {
    let keys = TokenKind::ALL.map(|kind| derive_key(HEX_64.as_bytes(), kind).unwrap());
    for (index, key) in keys.iter().enumerate() {
        assert!(!keys[..index].contains(key), "{:?}", TokenKind::ALL[index]);
        assert_ne!(&key[..], HEX_64.as_bytes().get(..32).unwrap());
    }
    assert_eq!(
        derive_key(HEX_64.as_bytes(), TokenKind::Access),
        derive_key(HEX_64.as_bytes(), TokenKind::Access)
    );
    assert_ne!(
        derive_key(HEX_64.as_bytes(), TokenKind::Access),
        derive_key(BASE64_44.as_bytes(), TokenKind::Access)
    );
}

#[test]
fn a_kind_claim_that_disagrees_with_the_key_is_the_wrong_kind() {
    let keys = JwtKeys::derive(HEX_64.as_bytes()).unwrap();
    let claims = Claims {
        sub: "u-1".to_owned(),
        exp: 1_900_000_900,
        iat: 1_900_000_000,
        kind: TokenKind::Refresh,
        workspace_id: None,
        role: None,
        email: None,
        sid: None,
        jti: None,
    };
    let access_key = &keys.kinds[TokenKind::Access.index()].encoding;
    let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, access_key).unwrap();
    let now = UNIX_EPOCH + Duration::from_secs(1_900_000_000);
    assert_eq!(
        keys.verify_at(TokenKind::Access, &token, now),
        Err(JwtError::WrongKind)
    );
    assert_eq!(
        keys.verify_at(TokenKind::Refresh, &token, now),
        Err(JwtError::BadSignature)
    );
}

#[test]
fn claims_travel_in_camel_case_with_kind_names() {
    let claims = Claims {
        sub: "u-1".to_owned(),
        exp: 1_900_000_900,
        iat: 1_900_000_000,
        kind: TokenKind::EmailVerification,
        workspace_id: Some("w-1".to_owned()),
        role: None,
        email: None,
        sid: None,
        jti: None,
    };
    assert_eq!(
        serde_json::to_string(&claims).unwrap(),
        r#"{"sub":"u-1","exp":1900000900,"iat":1900000000,"kind":"email_verification","workspaceId":"w-1"}"#
    );
    let kinds = TokenKind::ALL.map(|kind| serde_json::to_string(&kind).unwrap());
    assert_eq!(
        kinds,
        [
            r#""access""#,
            r#""refresh""#,
            r#""mfa""#,
            r#""email_verification""#
        ]
    );
}

#[test]
fn default_ttls() {
    let ttls = TokenKind::ALL.map(|kind| kind.default_ttl().as_secs());
    assert_eq!(ttls, [900, 604_800, 300, 86_400]);
}

fn authorization(value: &'static str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_static(value));
    headers
}

#[test]
fn the_bearer_token_is_read_in_any_case_and_trimmed() {
    let cases = [
        ("Bearer abc.def.ghi", Some("abc.def.ghi")),
        ("bearer abc", Some("abc")),
        ("BEARER   abc  ", Some("abc")),
        ("Bearer ", None),
        ("Bearer", None),
        ("Basic dXNlcjpwYXNz", None),
        ("Bearerabc", None),
        ("", None),
    ];
    for (value, token) in cases {
        assert_eq!(bearer_token(&authorization(value)), token, "{value:?}");
    }
    assert_eq!(bearer_token(&HeaderMap::new()), None);
}

#[test]
fn every_refusal_reads_the_same() {
    let refusals = [
        JwtError::Malformed,
        JwtError::BadSignature,
        JwtError::Expired,
        JwtError::WrongKind,
    ];
    for error in refusals {
        assert_eq!(error.to_string(), "invalid token");
    }
}
