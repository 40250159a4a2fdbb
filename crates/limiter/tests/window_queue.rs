//! The sliding window with its global backstop, and the opt-in admission queue.

use limiter::{AdmissionQueue, FakeClock, KeyDigest, QueueConfig, QueueRefusal, SlidingWindow};
use std::sync::Arc;
use std::time::Duration;

fn window(per_subject: &str, global: &str, clock: &FakeClock) -> SlidingWindow {
    SlidingWindow::new(
        per_subject.parse().expect("a valid budget"),
        global.parse().expect("a valid budget"),
        20_000,
        Arc::new(clock.clone()),
    )
}

#[test]
fn the_61st_chat_in_a_minute_waits_for_the_oldest_to_leave() {
    let clock = FakeClock::new();
    let chat = window("60/1m", "1200/1m", &clock);
    let alice = KeyDigest::of("subject-alice");
    for _ in 0..60 {
        assert!(chat.check(alice).is_allowed());
        clock.advance(Duration::from_millis(500));
    }
    // The first arrival was 30 s ago: it leaves the window in 30 s.
    assert_eq!(
        chat.check(alice).retry_after(),
        Some(Duration::from_secs(30))
    );
    assert!(
        chat.check(KeyDigest::of("subject-bob")).is_allowed(),
        "another subject is served"
    );
    clock.advance(Duration::from_secs(30));
    assert!(chat.check(alice).is_allowed(), "the window slid");
}

#[test]
fn the_global_backstop_refuses_across_subjects() {
    let clock = FakeClock::new();
    let chat = window("60/1m", "100/1m", &clock);
    for subject in 0..100 {
        assert!(
            chat.check(KeyDigest::of(format!("s{subject}")))
                .is_allowed()
        );
    }
    let refused = chat.check(KeyDigest::of("a-new-subject"));
    assert_eq!(refused.retry_after(), Some(Duration::from_secs(60)));
}

#[test]
fn subjects_are_bounded() {
    let clock = FakeClock::new();
    let chat = SlidingWindow::new(
        "60/1m".parse().expect("a valid budget"),
        "1000000/1m".parse().expect("a valid budget"),
        100,
        Arc::new(clock),
    );
    for subject in 0..10_000 {
        chat.check(KeyDigest::of(format!("s{subject}")));
    }
    assert_eq!(chat.tracked_keys(), 100);
}

fn queue(max_inflight: usize, max_queue: usize) -> Arc<AdmissionQueue> {
    Arc::new(AdmissionQueue::new(QueueConfig {
        max_inflight,
        max_queue,
        queue_timeout: Duration::from_secs(5),
    }))
}

#[tokio::test(start_paused = true)]
async fn beyond_inflight_and_queue_the_fifth_is_refused_at_once() {
    let queue = queue(2, 2);
    let running = [queue.admit().await.unwrap(), queue.admit().await.unwrap()];
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move { queue.admit().await.map(|_| ()) })
        })
        .collect();
    tokio::task::yield_now().await;
    assert_eq!((queue.inflight(), queue.queued()), (2, 2));
    let fifth = queue.admit().await.unwrap_err();
    assert_eq!(
        fifth,
        QueueRefusal::Full {
            retry_after: Duration::from_secs(5)
        }
    );
    drop(running);
    for waiter in waiters {
        assert_eq!(waiter.await.unwrap(), Ok(()), "queued requests complete");
    }
}

#[tokio::test(start_paused = true)]
async fn a_request_that_waits_too_long_is_refused() {
    let queue = queue(1, 4);
    let _running = queue.admit().await.unwrap();
    let refusal = queue.admit().await.unwrap_err();
    assert_eq!(
        refusal,
        QueueRefusal::TimedOut {
            retry_after: Duration::from_secs(5)
        }
    );
    assert_eq!(queue.queued(), 0);
}

#[tokio::test]
async fn zero_inflight_means_off() {
    let queue = queue(0, 0);
    assert!(!queue.enabled());
    let admitted: Vec<_> = futures_join(&queue, 100).await;
    assert_eq!(admitted.len(), 100);
}

async fn futures_join(queue: &AdmissionQueue, count: usize) -> Vec<limiter::Admission> {
    let mut admitted = Vec::with_capacity(count);
    for _ in 0..count {
        admitted.push(queue.admit().await.expect("admitted"));
    }
    admitted
}

#[tokio::test(start_paused = true)]
async fn the_pacer_waits_one_interval_per_call() {
    let pacer = limiter::Pacer::new(
        "2/1s".parse().expect("a valid budget"),
        limiter::system_clock(),
    );
    let start = tokio::time::Instant::now();
    for _ in 0..3 {
        pacer.wait().await;
    }
    // The pacer books on the system clock; tokio's paused clock only runs the sleeps.
    assert!(
        start.elapsed() >= Duration::from_millis(999),
        "{:?}",
        start.elapsed()
    );
}
