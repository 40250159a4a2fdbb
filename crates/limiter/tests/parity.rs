//! Property test: on the same fake clock and the same random schedule, our GCRA makes the
//! same decisions as `governor`, with the same waits to the nanosecond.

use governor::clock::{Clock as _, FakeRelativeClock};
use governor::{Quota, RateLimiter};
use limiter::CommonSettings;
use limiter::{FakeClock, KeyDigest, Limiter, Policy};
use proptest::prelude::*;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

fn schedule() -> impl Strategy<Value = (u32, u64, Vec<(u64, u8)>)> {
    (
        1u32..40,
        1u64..600,
        prop::collection::vec((0u64..5_000, 0u8..4), 1..300),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decisions_match_governor((limit, period_secs, steps) in schedule()) {
        let policy = Policy::new(limit, Duration::from_secs(period_secs)).expect("a valid budget");
        let quota = Quota::with_period(policy.emission_interval())
            .unwrap()
            .allow_burst(NonZeroU32::new(limit).expect("non-zero"));
        let reference_clock = FakeRelativeClock::default();
        let reference = RateLimiter::hashmap_with_clock(quota, reference_clock.clone());

        let clock = FakeClock::new();
        let ours = Limiter::builder("parity")
            .group("group", policy)
            .clock(Arc::new(clock.clone()))
            .build()
            .expect("the limiter builds");
        let group = ours.group_id("group").expect("a declared group");
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("the limiter builds");

        for (advance_ms, key) in steps {
            let step = Duration::from_millis(advance_ms);
            reference_clock.advance(step);
            clock.advance(step);
            let expected = reference
                .check_key(&key)
                .err()
                .map(|not_until| not_until.wait_time_from(reference_clock.now()));
            let decision = runtime.block_on(ours.check(group, KeyDigest::of([key])));
            prop_assert_eq!(decision.retry_after(), expected);
        }
    }
}
