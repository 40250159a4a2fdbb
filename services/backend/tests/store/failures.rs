//! Redis away: never reachable, paused (hung) or stopped. Every call answers `Unavailable`
//! within about a second, and calls succeed again once Redis is back on the same address.

use crate::support::{Redis, assert_unavailable, every_operation, free_port};
use backend::store::{Space, Store};
use std::time::{Duration, Instant};

const BOUND: Duration = Duration::from_secs(1);

async fn assert_every_call_fails_quickly(store: &Store, state: &str) {
    for (name, took, result) in every_operation(store).await {
        assert!(took < BOUND, "{state}: {name} took {took:?}");
        assert_unavailable(result, &format!("{state}: {name}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_never_waits_for_redis() {
    let url = format!("redis://:hunter2@127.0.0.1:{}", free_port());
    let started = Instant::now();
    let store = Store::redis(&url, "estate").expect("prepared without connecting");
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    assert!(!format!("{store:?}").contains("hunter2"), "{store:?}");
    assert_every_call_fails_quickly(&store, "never reachable").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_redis_url_is_unavailable_without_echoing_it() {
    match Store::redis("mysql://:hunter2@host", "estate") {
        Err(error) => assert!(!format!("{error:?}").contains("hunter2"), "{error:?}"),
        Ok(store) => panic!("accepted a non-Redis URL: {store:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_hung_or_down_fails_fast_and_recovers() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = crate::support::store_on(&redis, "estate");
    store
        .put(Space::Users, "ada", b"account", None)
        .await
        .expect("put");

    redis.container.pause().await.expect("pause");
    assert_every_call_fails_quickly(&store, "paused").await;
    redis.container.unpause().await.expect("unpause");
    wait_until_answering(&store).await;

    redis
        .container
        .stop_with_timeout(Some(0))
        .await
        .expect("stop");
    assert_every_call_fails_quickly(&store, "stopped").await;
    redis.container.start().await.expect("start");
    wait_until_answering(&store).await;
    store
        .put(Space::Users, "ada", b"again", None)
        .await
        .expect("put after restart");
    assert_eq!(
        store.get(Space::Users, "ada").await.expect("get"),
        Some(b"again".to_vec())
    );
    assert_eq!(
        store
            .increment(Space::Attempts, "c", Duration::from_secs(9))
            .await
            .expect("inc"),
        1
    );
}

async fn wait_until_answering(store: &Store) {
    let started = Instant::now();
    while store.get(Space::Users, "probe").await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "Redis never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
