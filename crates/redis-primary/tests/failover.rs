//! A failover followed without a restart: on real containers (a primary, a replica, three
//! Sentinels), the primary is paused or killed and writes through one `Primary`, opened once
//! from the sentinel URL, succeed again on the promoted replica within seconds, with what was
//! written before still there.

use redis::RedisResult;
use redis_primary::Primary;
use std::time::{Duration, Instant};
use testkit::SentinelSet;

/// Each call's bound, as the backend's store uses.
const CALL_TIMEOUT: Duration = Duration::from_millis(500);
/// The longest a failover may take before the test fails (down-after 1 s, then the election).
const FAILOVER_WITHIN: Duration = Duration::from_secs(20);

async fn set(primary: &Primary, key: &str, value: &str) -> RedisResult<()> {
    let mut connection = primary.clone();
    redis::cmd("SET")
        .arg(key)
        .arg(value)
        .query_async(&mut connection)
        .await
}

async fn get(primary: &Primary, key: &str) -> RedisResult<Option<String>> {
    let mut connection = primary.clone();
    redis::cmd("GET")
        .arg(key)
        .query_async(&mut connection)
        .await
}

/// How long the replica may take to acknowledge the first write: it may still be taking its
/// first copy from the primary after a slow start.
const REPLICATED_WITHIN: Duration = Duration::from_secs(10);

/// Writes before the failure, replicated, so a lost write cannot be blamed on timing. `WAIT`
/// is asked for shorter than a call's bound, again until the replica acknowledges.
async fn write_before(primary: &Primary) {
    set(primary, "before", "kept")
        .await
        .expect("a write to the first primary");
    let asked_at = Instant::now();
    loop {
        let mut connection = primary.clone();
        let replicas: i64 = redis::cmd("WAIT")
            .arg(1)
            .arg(300)
            .query_async(&mut connection)
            .await
            .expect("WAIT on the first primary");
        if replicas == 1 {
            return;
        }
        assert!(
            asked_at.elapsed() < REPLICATED_WITHIN,
            "the replica acknowledged the write within {REPLICATED_WITHIN:?}"
        );
    }
}

/// Writes every 100 ms until one succeeds; the time from the failure to that write.
async fn window_until_writes_succeed(primary: &Primary, failed_at: Instant) -> Duration {
    let mut failures = 0_u32;
    while failed_at.elapsed() < FAILOVER_WITHIN {
        match tokio::time::timeout(CALL_TIMEOUT * 2, set(primary, "after", "written")).await {
            Ok(Ok(())) => {
                let window = failed_at.elapsed();
                println!("writes failed {failures} times; succeeded again after {window:?}");
                return window;
            }
            _ => failures += 1,
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no write succeeded within {FAILOVER_WITHIN:?} of the failure");
}

async fn assert_followed(sentinels: &SentinelSet, primary: &Primary, failed_at: Instant) {
    let window = window_until_writes_succeed(primary, failed_at).await;
    assert!(window < FAILOVER_WITHIN);
    assert_eq!(
        get(primary, "before").await.expect("a read"),
        Some("kept".to_owned())
    );
    assert_eq!(
        get(primary, "after").await.expect("a read"),
        Some("written".to_owned())
    );
    let replica = sentinels.replica_url();
    assert_eq!(
        sentinels
            .named_primary()
            .map(|host| format!("redis://{host}:6379")),
        Some(replica),
        "the Sentinels promoted the replica"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_reach_the_promoted_replica_after_the_primary_is_killed() {
    let Some(sentinels) = SentinelSet::start().await else {
        return;
    };
    let primary = Primary::open(&sentinels.url(), CALL_TIMEOUT).expect("the sentinel URL");
    assert!(primary.through_sentinel());
    write_before(&primary).await;
    sentinels.kill_primary();
    assert_followed(&sentinels, &primary, Instant::now()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_reach_the_promoted_replica_after_the_primary_is_paused() {
    let Some(sentinels) = SentinelSet::start().await else {
        return;
    };
    let primary = Primary::open(&sentinels.url(), CALL_TIMEOUT).expect("the sentinel URL");
    write_before(&primary).await;
    sentinels.pause_primary();
    assert_followed(&sentinels, &primary, Instant::now()).await;
    sentinels.unpause_primary();
    set(&primary, "once-back", "yes")
        .await
        .expect("writes still reach the new primary once the old one runs again");
}

#[tokio::test]
async fn a_plain_url_is_one_server_as_before() {
    let primary = Primary::open("redis://127.0.0.1:1/0", CALL_TIMEOUT).expect("a plain URL");
    assert!(!primary.through_sentinel());
    let error =
        Primary::open("redis-sentinel://host:26379", CALL_TIMEOUT).expect_err("no primary name");
    assert!(error.to_string().starts_with("REDIS_URL: "), "{error}");
}
