//! Password hashing: argon2id PHC strings, verification, the dummy path and the policy.

use backend::auth::AuthError;
use backend::auth::passwords::{check_policy, hash, verify, verify_or_dummy};
use std::time::{Duration, Instant};

#[test]
fn hash_verifies_the_password_and_nothing_else() {
    let hashed = hash("correct horse battery").expect("hashes");
    assert!(
        hashed.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hashed}"
    );
    assert!(!hashed.contains("correct horse"));
    assert!(verify(&hashed, "correct horse battery"));
    assert!(!verify(&hashed, "correct horse battery "));
    assert!(!verify(&hashed, "Correct horse battery"));
    assert!(!verify("not a phc string", "correct horse battery"));
    assert_ne!(
        hash("correct horse battery").expect("hashes"),
        hashed,
        "salted"
    );
}

#[test]
fn unknown_users_cost_a_verification_too() {
    let hashed = hash("correct horse battery").expect("hashes");
    assert!(verify_or_dummy(Some(&hashed), "correct horse battery"));
    assert!(!verify_or_dummy(Some(&hashed), "wrong"));
    assert!(!verify_or_dummy(None, "correct horse battery"));
    // The first dummy call also makes the dummy hash; time the later ones.
    let real = median_of_three(|| verify(&hashed, "wrong guess"));
    let dummy = median_of_three(|| verify_or_dummy(None, "wrong guess"));
    assert!(
        dummy * 5 >= real && dummy <= real * 5,
        "real {real:?}, dummy {dummy:?}"
    );
}

fn median_of_three(mut work: impl FnMut() -> bool) -> Duration {
    let mut times: Vec<Duration> = (0..3)
        .map(|_| {
            let started = Instant::now();
            assert!(!work());
            started.elapsed()
        })
        .collect();
    times.sort();
    times[1]
}

#[test]
fn policy_refuses_short_long_and_repeated() {
    let refusals = [
        ("", "Password must be at least 8 characters"),
        ("seven77", "Password must be at least 8 characters"),
        ("aaaaaaaa", "Password must not be one character repeated"),
        ("ééééééééé", "Password must not be one character repeated"),
    ];
    for (password, reason) in refusals {
        match check_policy(password) {
            Err(error @ AuthError::WeakPassword(_)) => {
                assert_eq!(error.to_string(), reason, "{password:?}");
            }
            other => panic!("{password:?}: {other:?}"),
        }
    }
    assert!(matches!(
        check_policy(&"ab".repeat(65)),
        Err(AuthError::WeakPassword(
            "Password must be at most 128 characters"
        ))
    ));
    for accepted in ["eightch8", "aaaaaaab", &"ab".repeat(64), "pässwörd"] {
        assert!(check_policy(accepted).is_ok(), "{accepted:?}");
    }
}
