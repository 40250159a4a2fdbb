//! One-time codes: six digits, hashed at rest, single use, destroyed by the fifth wrong
//! answer for the address (after which even the right code finds nothing), expiring with their
//! TTL; the wrong answers count whether or not a code is live.

use crate::support::embedded;
use backend::auth::email::key_digest;
use backend::auth::otp::{OtpGuard, OtpOutcome, OtpPurpose};
use backend::store::{Space, Store};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::time::Duration;

const PEPPER: [u8; 32] = [7; 32];
const EMAIL: &str = "ada@example.com";

fn guard(store: Store) -> OtpGuard {
    OtpGuard::new(store, PEPPER, 5, Duration::from_secs(600))
}

/// A six-digit code that is not `code`.
fn wrong(code: &str) -> String {
    let number: u32 = code.parse().expect("digits");
    format!("{:06}", (number + 1) % 1_000_000)
}

#[tokio::test]
async fn a_code_is_six_digits_and_works_once() {
    let (_dir, store) = embedded();
    let guard = guard(store);
    let code = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    assert_eq!(code.len(), 6);
    assert!(code.bytes().all(|byte| byte.is_ascii_digit()), "{code}");
    let verify = |code: String| {
        let guard = guard.clone();
        async move {
            guard
                .verify("ADA@example.com", OtpPurpose::Signup, &code)
                .await
                .expect("ok")
        }
    };
    assert_eq!(verify(code.clone()).await, OtpOutcome::Accepted);
    assert_eq!(verify(code).await, OtpOutcome::NoCode);
}

#[tokio::test]
async fn the_fifth_wrong_answer_destroys_the_code() {
    let (_dir, store) = embedded();
    let guard = guard(store);
    let code = guard.issue(EMAIL, OtpPurpose::Mfa).await.expect("issued");
    let answers = [
        wrong(&code),
        "12345".to_owned(),
        "abcdef".to_owned(),
        format!(" {code}"),
    ];
    for (remaining, answer) in (1..=4).rev().zip(answers) {
        assert_eq!(
            guard
                .verify(EMAIL, OtpPurpose::Mfa, &answer)
                .await
                .expect("ok"),
            OtpOutcome::Wrong { remaining },
            "answer {answer:?}"
        );
    }
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Mfa, &wrong(&code))
            .await
            .expect("ok"),
        OtpOutcome::Exhausted
    );
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Mfa, &code)
            .await
            .expect("ok"),
        OtpOutcome::NoCode,
        "the right code no longer works"
    );
    let fresh = guard.issue(EMAIL, OtpPurpose::Mfa).await.expect("issued");
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Mfa, &wrong(&fresh))
            .await
            .expect("ok"),
        OtpOutcome::Wrong { remaining: 3 },
        "the count is the address's: the answer to no code counted, and a new code keeps it"
    );
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Mfa, &fresh)
            .await
            .expect("ok"),
        OtpOutcome::Accepted
    );
}

#[tokio::test]
async fn a_new_code_replaces_the_old_and_purposes_are_separate() {
    let (_dir, store) = embedded();
    let guard = guard(store);
    let first = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    let mut second = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    while second == first {
        second = guard
            .issue(EMAIL, OtpPurpose::Signup)
            .await
            .expect("issued");
    }
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::PasswordChange, &second)
            .await
            .expect("ok"),
        OtpOutcome::NoCode
    );
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Signup, &first)
            .await
            .expect("ok"),
        OtpOutcome::Wrong { remaining: 4 }
    );
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Signup, &second)
            .await
            .expect("ok"),
        OtpOutcome::Accepted
    );
    assert_eq!(
        guard
            .verify("bob@example.com", OtpPurpose::Signup, &second)
            .await
            .expect("ok"),
        OtpOutcome::NoCode
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_twenty_concurrent_right_answers_exactly_one_wins() {
    let (_dir, store) = embedded();
    let guard = guard(store);
    let code = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    let answers: Vec<_> = (0..20)
        .map(|_| {
            let (guard, code) = (guard.clone(), code.clone());
            tokio::spawn(async move { guard.verify(EMAIL, OtpPurpose::Signup, &code).await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for answer in answers {
        outcomes.push(answer.await.expect("joined").expect("ok"));
    }
    let accepted = outcomes
        .iter()
        .filter(|o| **o == OtpOutcome::Accepted)
        .count();
    assert_eq!(accepted, 1, "{outcomes:?}");
    // The others find no code: each counts as a wrong answer, so enough of them reach the
    // ceiling (which has nothing left to destroy).
    assert!(outcomes.iter().all(|o| matches!(
        o,
        OtpOutcome::Accepted | OtpOutcome::NoCode | OtpOutcome::Exhausted
    )));
}

#[tokio::test]
async fn only_a_peppered_hash_is_stored() {
    let (_dir, store) = embedded();
    let guard = guard(store.clone());
    let code = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    guard
        .verify(EMAIL, OtpPurpose::Signup, &wrong(&code))
        .await
        .expect("ok");
    // Every key is the address's digest, never the address; the code's value is exactly its
    // peppered HMAC. Compared whole, not searched for substrings: a hex digest holds any short
    // string by chance.
    let digest = key_digest(EMAIL);
    let mut mac = Hmac::<Sha256>::new_from_slice(&PEPPER).expect("any key length");
    mac.update(format!("signup|{EMAIL}|{code}").as_bytes());
    let expected = hex::encode(mac.finalize().into_bytes());
    let codes = store.list(Space::Codes, "").await.expect("listed");
    let codes: Vec<_> = codes
        .iter()
        .map(|(key, value)| (key.as_str(), String::from_utf8_lossy(value)))
        .collect();
    assert_eq!(
        codes,
        [(format!("signup:{digest}").as_str(), expected.into())]
    );
    let attempts = store.list(Space::Attempts, "").await.expect("listed");
    let keys: Vec<_> = attempts.iter().map(|(key, _)| key.as_str()).collect();
    assert_eq!(keys, [format!("otp:signup:{digest}").as_str()]);
    assert!(
        digest.bytes().all(|byte| byte.is_ascii_hexdigit()),
        "{digest}"
    );
}

#[tokio::test]
async fn a_code_expires_with_its_ttl() {
    let (_dir, store) = embedded();
    let guard = OtpGuard::new(store, PEPPER, 5, Duration::from_millis(300));
    let code = guard
        .issue(EMAIL, OtpPurpose::Signup)
        .await
        .expect("issued");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        guard
            .verify(EMAIL, OtpPurpose::Signup, &code)
            .await
            .expect("ok"),
        OtpOutcome::NoCode
    );
}
