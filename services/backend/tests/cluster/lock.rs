//! The login lock is cluster state: five wrong passwords on one replica lock the address on
//! every replica, and a replica started afterwards (a restart, or a new pod) still refuses it
//! — even the right password — with the lock's body and the remaining seconds.

use crate::support::{Node, Redis, answer};
use serde_json::json;

const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;
const LOCKED: &str = r#"{"status":429,"message":"Too many failed attempts. Try again in 10 minute(s), or reset your password."}"#;
const EMAIL: &str = "ada@example.com";

/// The lock's answer: its body, and a wait of nearly the full ten minutes.
fn assert_locked((status, retry_after, body): (u16, Option<String>, String), on: &str) {
    assert_eq!((status, body.as_str()), (429, LOCKED), "{on}");
    let secs: u64 = retry_after
        .expect("the lock says how long")
        .parse()
        .expect("seconds");
    assert!((540..=600).contains(&secs), "{on}: Retry-After {secs}");
}

#[actix_web::test]
async fn a_lock_made_on_one_replica_holds_on_the_other_and_after_a_restart() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let first = Node::start(&redis, data.path(), &[]).await;
    for attempt in 1..=5 {
        let wrong = answer(first.login(EMAIL, "wrong-password").await).await;
        assert_eq!(
            wrong,
            (401, None, INVALID_LOGIN.to_owned()),
            "attempt {attempt}"
        );
    }
    assert_locked(
        answer(first.login(EMAIL, "wrong-password").await).await,
        "A",
    );

    let second = Node::start(&redis, data.path(), &[]).await;
    assert_locked(answer(second.login(EMAIL, "x-wrong-pw").await).await, "B");
    first.stop().await;
    second.stop().await;

    let restarted = Node::start(&redis, data.path(), &[]).await;
    assert_locked(
        answer(restarted.login("ADA@example.com", "wrong-password").await).await,
        "after the restart",
    );
    restarted.stop().await;
}

#[actix_web::test]
async fn the_lock_refuses_the_right_password_on_every_replica() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (one, two) = (
        Node::start(&redis, data.path(), &[]).await,
        Node::start(&redis, data.path(), &[]).await,
    );
    let signup = json!({ "email": EMAIL, "password": "correct horse battery", "name": "Ada" });
    assert_eq!(one.post("/api/v1/auth/signup", &signup).await.status(), 201);
    for attempt in 0..5 {
        let node = if attempt % 2 == 0 { &one } else { &two };
        let wrong = answer(node.login(EMAIL, "wrong-password").await).await;
        assert_eq!(wrong.0, 401, "attempt {attempt}: the count is shared");
    }
    for (node, on) in [(&one, "one"), (&two, "two")] {
        assert_locked(
            answer(node.login(EMAIL, "correct horse battery").await).await,
            on,
        );
    }
    one.stop().await;
    two.stop().await;
}
