//! The token contract from outside the crate: the start-up guard on the secret, and which
//! tokens verify — the estate's own, and none of the forgeries an attacker would try.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use platform::jwt::{ACCESS_TTL, ENV_EXAMPLE_PLACEHOLDER, REFRESH_TTL};
use platform::{Claims, JwtError, JwtKeys, MapEnv, Subject, TokenKind};
use serde_json::json;
use sha2::Sha256;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SECRET: &str = "9f2c4e1a7b3d8f60c5e2a91d4b7f3c08e6a15d9b2f4c7e30a8d1b6f5c2e9a473";
const NOW_SECS: u64 = 1_900_000_000;

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW_SECS)
}

fn keys() -> JwtKeys {
    JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("strong")
}

fn refusal(pairs: &[(&str, &str)]) -> String {
    let env = pairs.iter().copied().collect::<MapEnv>();
    JwtKeys::from_env(&env).expect_err("refused").to_string()
}

/// The access key as the documentation defines it: HKDF-SHA256, no salt, the kind's label.
fn access_key() -> [u8; 32] {
    let mut key = [0_u8; 32];
    Hkdf::<Sha256>::new(None, SECRET.as_bytes())
        .expand(TokenKind::Access.label().as_bytes(), &mut key)
        .expect("32 bytes is a valid length");
    key
}

fn sign(algorithm: Algorithm, key: &[u8], claims: &serde_json::Value) -> String {
    let key = EncodingKey::from_secret(key).expect("non-empty key");
    jsonwebtoken::encode(&Header::new(algorithm), claims, &key).expect("signs")
}

/// Verifies `token` as an access token at [`now`].
fn access(keys: &JwtKeys, token: &str) -> Result<Claims, JwtError> {
    keys.verify_at(TokenKind::Access, token, now())
}

/// An access token for `u-1` issued at `issued_at`, valid for 15 minutes.
fn mint(keys: &JwtKeys, issued_at: SystemTime) -> String {
    let subject = Subject::user("u-1");
    keys.issue_at(TokenKind::Access, &subject, issued_at, ACCESS_TTL)
        .expect("signs")
}

fn access_claims() -> serde_json::Value {
    json!({"sub": "u-1", "iat": NOW_SECS, "exp": NOW_SECS + 900, "kind": "access"})
}

#[test]
fn every_weak_secret_is_refused_with_the_reason_and_never_the_value() {
    let placeholder = "is a known placeholder";
    let patterned = "has too little variety (a repeated, sequential or low-entropy pattern)";
    let cases = [
        ("   ", "is blank"),
        ("secret", placeholder),
        ("CHANGEIT", placeholder),
        ("jwt-secret", placeholder),
        (ENV_EXAMPLE_PLACEHOLDER, placeholder),
        (
            "change-me-0b6f5c2e9a4739f2c4e1a7b3d8f60c5e2a91d4b7",
            placeholder,
        ),
        (
            "q3Xv9Jt0Lw+Z1mYb8R2cKpN4sH7",
            "is shorter than 32 bytes (HS256 needs a 256-bit key, RFC 7518 §3.2)",
        ),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", patterned),
        ("abababababababababababababababababababab", patterned),
        ("0123456789012345678901234567890123", patterned),
    ];
    for (secret, reason) in cases {
        let expected = format!(
            "SECURITY_JWT_SECRET_KEY is invalid: expected a strong secret (at least 32 random \
             bytes); this one {reason}"
        );
        let message = refusal(&[("SECURITY_JWT_SECRET_KEY", secret)]);
        assert_eq!(message, expected, "{secret:?}");
        assert!(secret.len() < 8 || !message.contains(secret), "{message}");
    }
    assert_eq!(
        refusal(&[]),
        "SECURITY_JWT_SECRET_KEY is not set: a value is required"
    );
    assert_eq!(
        refusal(&[
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("SECURITY_JWT_REQUIRE_STRONG_SECRET", "no")
        ]),
        "SECURITY_JWT_REQUIRE_STRONG_SECRET is invalid: expected exactly true or false"
    );
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn with_the_guard_off_a_weak_secret_is_accepted_with_a_warning_but_none_is_not() {
    let off = ("SECURITY_JWT_REQUIRE_STRONG_SECRET", "false");
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let weak = MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", "dev-only-secret"), off]);
    let keys = tracing::subscriber::with_default(subscriber, || JwtKeys::from_env(&weak))
        .expect("accepted with the guard off");
    let log = String::from_utf8(log.0.lock().expect("not poisoned").clone()).expect("text");
    assert!(log.contains("WARN"), "{log}");
    assert!(
        log.contains("variable=\"SECURITY_JWT_SECRET_KEY\""),
        "{log}"
    );
    assert!(log.contains("reason=is shorter than 32 bytes"), "{log}");
    assert!(!log.contains("dev-only-secret"), "{log}");
    let token = keys
        .issue(TokenKind::Access, &Subject::user("u-1"), ACCESS_TTL)
        .unwrap();
    assert_eq!(keys.verify(TokenKind::Access, &token).unwrap().sub, "u-1");

    assert_eq!(
        refusal(&[off]),
        "SECURITY_JWT_SECRET_KEY is not set: a value is required"
    );
    assert_eq!(
        refusal(&[("SECURITY_JWT_SECRET_KEY", " "), off]),
        "SECURITY_JWT_SECRET_KEY is invalid: expected a strong secret (at least 32 random \
         bytes); this one is blank"
    );
}

#[test]
fn an_access_token_verifies_with_every_claim() {
    let keys = keys();
    let subject = Subject {
        sub: "u-1".to_owned(),
        workspace_id: Some("w-7".to_owned()),
        role: Some("ADMIN".to_owned()),
        email: Some("a@example.com".to_owned()),
        session: Some("s-3".to_owned()),
        token_id: Some("t-9".to_owned()),
    };
    let token = keys
        .issue_at(TokenKind::Access, &subject, now(), ACCESS_TTL)
        .unwrap();
    let expected = Claims {
        sub: "u-1".to_owned(),
        exp: NOW_SECS + 900,
        iat: NOW_SECS,
        kind: TokenKind::Access,
        workspace_id: Some("w-7".to_owned()),
        role: Some("ADMIN".to_owned()),
        email: Some("a@example.com".to_owned()),
        sid: Some("s-3".to_owned()),
        jti: Some("t-9".to_owned()),
    };
    assert_eq!(access(&keys, &token), Ok(expected));
    let fresh = keys.issue(TokenKind::Access, &subject, ACCESS_TTL).unwrap();
    assert_eq!(
        keys.verify(TokenKind::Access, &fresh)
            .unwrap()
            .workspace_id
            .as_deref(),
        Some("w-7")
    );
    let by_hand = sign(Algorithm::HS256, &access_key(), &access_claims());
    assert_eq!(access(&keys, &by_hand).unwrap().sub, "u-1");
}

#[test]
fn a_token_of_one_kind_never_verifies_as_another() {
    let keys = keys();
    let subject = Subject::user("u-1");
    for issued in TokenKind::ALL {
        let token = keys.issue_at(issued, &subject, now(), REFRESH_TTL).unwrap();
        for verified in TokenKind::ALL {
            let outcome = keys
                .verify_at(verified, &token, now())
                .map(|claims| claims.kind);
            let expected = if issued == verified {
                Ok(issued)
            } else {
                Err(JwtError::BadSignature)
            };
            assert_eq!(outcome, expected, "{issued:?} as {verified:?}");
        }
    }
}

#[test]
fn tampering_and_foreign_keys_are_bad_signatures() {
    let keys = keys();
    let token = mint(&keys, now());
    let parts: Vec<&str> = token.split('.').collect();
    let mut forged_claims = access_claims();
    forged_claims["sub"] = json!("admin");
    let forged_payload = URL_SAFE_NO_PAD.encode(forged_claims.to_string());
    let tampered_payload = format!("{}.{forged_payload}.{}", parts[0], parts[2]);
    let first = if parts[2].starts_with('A') { "B" } else { "A" };
    let tampered_signature = format!("{}.{}.{first}{}", parts[0], parts[1], &parts[2][1..]);
    let one_byte_key = sign(Algorithm::HS256, b"k", &access_claims());
    let hs512 = sign(Algorithm::HS512, &access_key(), &access_claims());
    let raw_secret = sign(Algorithm::HS256, SECRET.as_bytes(), &access_claims());
    for forged in [
        tampered_payload,
        tampered_signature,
        one_byte_key,
        hs512,
        raw_secret,
    ] {
        assert_eq!(
            access(&keys, &forged),
            Err(JwtError::BadSignature),
            "{forged}"
        );
    }
}

#[test]
fn alg_none_missing_claims_and_garbage_are_malformed() {
    let keys = keys();
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(access_claims().to_string());
    let unsigned = format!("{header}.{payload}.");
    let without = |field: &str| {
        let mut claims = access_claims();
        claims.as_object_mut().expect("an object").remove(field);
        sign(Algorithm::HS256, &access_key(), &claims)
    };
    let mut empty_sub = access_claims();
    empty_sub["sub"] = json!("");
    let empty_sub = sign(Algorithm::HS256, &access_key(), &empty_sub);
    let (no_exp, no_sub, no_kind) = (without("exp"), without("sub"), without("kind"));
    for forged in [
        unsigned,
        no_exp,
        no_sub,
        empty_sub,
        no_kind,
        "not-a-jwt".to_owned(),
        String::new(),
    ] {
        assert_eq!(access(&keys, &forged), Err(JwtError::Malformed), "{forged}");
    }
}

#[test]
fn expiry_allows_five_seconds_of_skew_and_no_more() {
    let keys = keys();
    let stale = mint(&keys, now() - Duration::from_secs(3600));
    assert_eq!(access(&keys, &stale), Err(JwtError::Expired));
    let really_stale = mint(&keys, SystemTime::now() - Duration::from_secs(3600));
    assert_eq!(
        keys.verify(TokenKind::Access, &really_stale),
        Err(JwtError::Expired)
    );
    let expired_at = |secs_ago: u64| {
        let token = mint(&keys, now() - ACCESS_TTL - Duration::from_secs(secs_ago));
        access(&keys, &token).map(|claims| claims.exp)
    };
    assert_eq!(expired_at(3), Ok(NOW_SECS - 3));
    assert_eq!(expired_at(5), Ok(NOW_SECS - 5));
    assert_eq!(expired_at(6), Err(JwtError::Expired));
}
