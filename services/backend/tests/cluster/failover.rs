//! Redis behind Sentinel (`REDIS_URL=redis-sentinel://…`, real containers: a primary, a replica
//! and three Sentinels): a login lock and a one-time code written before the primary is killed
//! survive the failover; while it lasts every answer is the 503 envelope, never a 401 or a 500;
//! afterwards the same backend, not restarted, serves normally. The window is printed.

use crate::support::{Node, answer, last_mail};
use serde_json::json;
use std::time::{Duration, Instant};
use testkit::SentinelSet;

const LOCKED_EMAIL: &str = "lin@example.com";
const CODE_EMAIL: &str = "mae@example.com";
const PASSWORD: &str = "correct horse battery";
const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;
const LOCKED: &str = r#"{"status":429,"message":"Too many failed attempts. Try again in 10 minute(s), or reset your password."}"#;
const UNAVAILABLE: &str =
    r#"{"status":"SERVICE_UNAVAILABLE","message":"service temporarily unavailable"}"#;
/// Budgets no test loop reaches: the answers here are the store's, not the filters'.
const BUDGETS: [(&str, &str); 2] = [
    ("RATE_LIMIT_CREDENTIAL", "100000/1h"),
    ("AUTH_RATE_LIMIT_CREDENTIAL", "100000/15m"),
];
/// The longest the failover may take before the test fails.
const FAILOVER_WITHIN: Duration = Duration::from_secs(20);
const PAUSE: Duration = Duration::from_millis(100);

#[actix_web::test]
async fn a_lock_and_a_code_survive_a_failover_with_only_503s_while_it_lasts() {
    let Some(sentinels) = SentinelSet::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let node = Node::start_on(&sentinels.url(), data.path(), &BUDGETS).await;
    for attempt in 1..=5 {
        let wrong = answer(node.login(LOCKED_EMAIL, "wrong-password").await).await;
        assert_eq!(
            wrong,
            (401, None, INVALID_LOGIN.to_owned()),
            "attempt {attempt}"
        );
    }
    let signup = json!({ "email": CODE_EMAIL, "password": PASSWORD, "name": "Mae" });
    assert_eq!(
        node.post("/api/v1/auth/signup", &signup).await.status(),
        201
    );
    let mail = last_mail(data.path(), CODE_EMAIL, "otp").await;
    let code = json!({ "email": CODE_EMAIL, "code": mail["code"] });
    // Replication is asynchronous: give the replica time to hold the lock and the code.
    actix_web::rt::time::sleep(Duration::from_secs(1)).await;

    sentinels.kill_primary();
    let killed_at = Instant::now();
    let mut unavailable = 0_u32;
    let mut last_unavailable = None;
    loop {
        assert!(
            killed_at.elapsed() < FAILOVER_WITHIN,
            "the backend did not serve again within {FAILOVER_WITHIN:?}"
        );
        let (status, retry_after, body) =
            answer(node.login(LOCKED_EMAIL, "wrong-password").await).await;
        if status == 503 {
            assert_eq!(
                (retry_after.as_deref(), body.as_str()),
                (Some("5"), UNAVAILABLE)
            );
            unavailable += 1;
            last_unavailable = Some(killed_at.elapsed());
            actix_web::rt::time::sleep(PAUSE).await;
            continue;
        }
        assert_eq!((status, body.as_str()), (429, LOCKED), "the lock survived");
        break;
    }
    let serving_after = killed_at.elapsed();
    println!(
        "failover: {unavailable} answers were 503, the last {last_unavailable:?} after the kill; \
         the lock answered again {serving_after:?} after it"
    );

    let verified = node.post("/api/v1/auth/verify-otp", &code).await;
    assert_eq!(verified.status(), 200, "the code survived the failover");
    let login = node.login(CODE_EMAIL, PASSWORD).await;
    assert_eq!(login.status(), 200, "normal service resumed");
    node.stop().await;
}
