//! One CREDENTIAL budget for the whole cluster: 40 logins from one client address, alternating
//! between two replicas on one Redis, meet a 30/1h budget exactly once — 30 reach the login
//! handler and 10 are refused with the filters' body and the 120 s a token takes to come back.
//!
//! The 40 are sent at once: each login that passes runs one argon2 verification (slow in a
//! debug build), and sent one by one the later refusals would see the bucket a few seconds
//! older than 120 s. Sent together, every decision falls within the first second, and the
//! race itself is part of what is proved: two processes deciding concurrently on one bucket.

use crate::support::{Node, Redis, answer, fail_body};
use futures_util::future::join_all;

const LOGINS: usize = 40;
const BUDGET: usize = 30;
/// The budget, and Redis deciding every request: a loaded machine can take longer than the
/// default 50 ms (the first call also opens the connection), which would decide locally.
const BUDGETS: [(&str, &str); 3] = [
    ("RATE_LIMIT_REDIS_TIMEOUT_MS", "2000"),
    ("RATE_LIMIT_CREDENTIAL", "30/1h"),
    ("AUTH_RATE_LIMIT_CREDENTIAL", "1000/15m"),
];
const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;

#[actix_web::test]
async fn two_replicas_share_one_credential_budget_exactly() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let nodes = [
        Node::start(&redis, data.path(), &BUDGETS).await,
        Node::start(&redis, data.path(), &BUDGETS).await,
    ];
    let logins = (0..LOGINS).map(|attempt| {
        let node = &nodes[attempt % 2];
        async move {
            let email = format!("guess{attempt}@example.com");
            answer(node.login(&email, "wrong-password").await).await
        }
    });
    let answers = join_all(logins).await;

    let (refused, passed): (Vec<_>, Vec<_>) = answers
        .into_iter()
        .partition(|(status, _, _)| *status == 429);
    assert_eq!(passed.len(), BUDGET, "logins that reached the handler");
    for (status, retry_after, body) in passed {
        assert_eq!(
            (status, retry_after, body.as_str()),
            (401, None, INVALID_LOGIN)
        );
    }
    assert_eq!(refused.len(), LOGINS - BUDGET, "logins the filter refused");
    for (_, retry_after, body) in refused {
        assert_eq!(
            (retry_after.as_deref(), body),
            (Some("120"), fail_body(120))
        );
    }
    let mut allowed = 0;
    for node in &nodes {
        assert_eq!(
            node.limiter_count("credential", "fallback").await,
            0,
            "Redis decided"
        );
        allowed += node.limiter_count("credential", "allowed").await;
    }
    assert_eq!(allowed, 30, "allowed decisions over both replicas");
    for node in nodes {
        node.stop().await;
    }
}
