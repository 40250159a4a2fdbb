//! The retry loop's arithmetic: backoff doubling and its cap, `Retry-After` parsing.

use super::{RetryPolicy, backoff, retry_after};
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use std::time::Duration;

#[test]
fn backoff_doubles_from_the_base_and_stops_at_the_cap() {
    let policy = RetryPolicy::default();
    let within = |attempt, millis| {
        let wait = backoff(&policy, attempt);
        let floor = Duration::from_millis(millis);
        assert!(
            wait >= floor && wait <= floor + floor / 10,
            "{attempt}: {wait:?}"
        );
    };
    within(1, 100);
    within(2, 200);
    within(3, 400);
    within(6, 2000);
    within(40, 2000);
}

#[test]
fn retry_after_is_whole_seconds_or_nothing() {
    let mut headers = HeaderMap::new();
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, HeaderValue::from_static("12"));
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(12)));
    headers.insert(
        RETRY_AFTER,
        HeaderValue::from_static("Wed, 21 Oct 2026 07:28:00 GMT"),
    );
    assert_eq!(retry_after(&headers), None);
}
