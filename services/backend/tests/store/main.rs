//! The store's behaviour, written once and run against both implementations: each behaviour
//! is an `async fn(Store)`, and [`both!`] makes it two tests, `…::embedded` (redb in a temp
//! dir) and `…::redis` (a real Redis in Docker, `estate/redis:7` from
//! `scripts/offline-images.sh`, `REDIS_IMAGE` overrides it; one container per test). With
//! `ESTATE_SKIP_DOCKER=1` the Redis tests print a skip line and pass; CI never sets it.
//!
//! What one implementation alone has (restart, replicas, Redis going away) lives in
//! `restart` and `failures`.

/// Instantiates each named behaviour for both implementations.
macro_rules! both {
    ($($behaviour:ident),* $(,)?) => {$(
        mod $behaviour {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn embedded() {
                let (_dir, store) = crate::support::embedded();
                super::$behaviour(store).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn redis() {
                let Some(redis) = crate::support::Redis::start().await else {
                    return;
                };
                super::$behaviour(crate::support::store_on(&redis, "estate")).await;
            }
        }
    )*};
}

mod basics;
mod concurrency;
mod expiry;
mod failures;
mod listing;
mod restart;
mod sets;
mod support;
