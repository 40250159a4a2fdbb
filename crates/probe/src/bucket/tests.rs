//! The model against the limiter itself: a server deciding with `limiter::gcra` somewhere
//! inside each request's window must always land inside what the model expected.

use super::*;
use limiter::Decision;

/// The estate's side: one real bucket.
struct Server {
    gcra: Gcra,
    tat: Option<u64>,
}

impl Server {
    fn new(policy: &str) -> Self {
        Self {
            gcra: Gcra::new(&policy.parse().expect("a policy")),
            tat: None,
        }
    }

    fn decide(&mut self, now: Duration) -> Decision {
        let now = u64::try_from(now.as_nanos()).expect("small");
        let (decision, next) = self.gcra.decide(self.tat, now);
        if next.is_some() {
            self.tat = next;
        }
        decision
    }
}

fn window(origin: Instant, from_ms: u64, to_ms: u64) -> Window {
    Window {
        sent: origin + Duration::from_millis(from_ms),
        received: origin + Duration::from_millis(to_ms),
    }
}

/// Sends one request at `at_ms` (decided 3 ms later, answered 5 ms later) to both sides.
fn exchange(
    server: &mut Server,
    model: &mut Bucket,
    origin: Instant,
    at_ms: u64,
) -> (Expect, Decision) {
    let window = window(origin, at_ms, at_ms + 5);
    let expected = model.expect(window);
    let decision = server.decide(Duration::from_millis(at_ms + 3));
    match decision {
        Decision::Allowed {
            remaining,
            reset_after,
        } => model.served(
            window,
            Some((u64::from(remaining), retry_after_secs(reset_after))),
        ),
        Decision::Refused { retry_after, .. } => {
            model.refused(window, retry_after_secs(retry_after))
        }
    }
    (expected, decision)
}

#[test]
fn the_21st_login_is_refused_with_45_and_the_model_knows_it_in_advance() {
    let origin = Instant::now();
    let mut server = Server::new("20/15m");
    let mut model = Bucket::new("20/15m".parse().expect("a policy"), origin);
    let (first, _) = exchange(&mut server, &mut model, origin, 0);
    assert_eq!(first, Expect::Unknown);
    for request in 1..20 {
        let (expected, decision) = exchange(&mut server, &mut model, origin, request * 10);
        assert_eq!(expected, Expect::Allow, "request {}", request + 1);
        assert!(decision.is_allowed());
    }
    let (expected, decision) = exchange(&mut server, &mut model, origin, 200);
    assert!(!decision.is_allowed());
    let Expect::Refuse { retry_after, .. } = expected else {
        panic!("expected a refusal, got {expected:?}");
    };
    assert_eq!(retry_after, (45, 45));
    // One token 45 s after the first request: served once, then refused again.
    let (after_refill, _) = exchange(&mut server, &mut model, origin, 45_100);
    assert_eq!(after_refill, Expect::Allow);
    assert!(matches!(
        exchange(&mut server, &mut model, origin, 45_200).0,
        Expect::Refuse { .. }
    ));
}

#[test]
fn a_burst_gets_what_is_left_within_the_bounds() {
    let origin = Instant::now();
    let mut server = Server::new("300/1h");
    let mut model = Bucket::new("300/1h".parse().expect("a policy"), origin);
    for request in 0..126 {
        exchange(&mut server, &mut model, origin, request * 20);
    }
    let burst = window(origin, 30_000, 31_000);
    let (low, high) = model.available(burst).expect("known");
    let mut served = 0;
    for offset in 0..240 {
        served += u32::from(
            server
                .decide(Duration::from_millis(30_000 + offset * 4))
                .is_allowed(),
        );
    }
    assert!((low..=high).contains(&served), "{low} ≤ {served} ≤ {high}");
    assert_eq!(
        (low, high),
        (176, 176),
        "2 tokens accrued in the 30 s before"
    );
    model.served_many(served, burst);
    let Decision::Refused { retry_after, .. } = server.decide(Duration::from_millis(31_000)) else {
        panic!("the burst emptied the bucket");
    };
    let longest = model.longest_wait_secs(burst.received).expect("known");
    assert!(
        retry_after_secs(retry_after) <= longest,
        "{retry_after:?} > {longest}"
    );
}

#[test]
fn a_first_answer_that_refuses_still_teaches_the_model() {
    let origin = Instant::now();
    let mut server = Server::new("60/60s");
    for _ in 0..60 {
        server.decide(Duration::ZERO);
    }
    let mut model = Bucket::new("60/60s".parse().expect("a policy"), origin);
    let (first, decision) = exchange(&mut server, &mut model, origin, 100);
    assert_eq!((first, decision.is_allowed()), (Expect::Unknown, false));
    // A whole-second Retry-After on a one-second interval: a token may accrue any moment.
    let (second, decision) = exchange(&mut server, &mut model, origin, 200);
    assert_eq!((second, decision.is_allowed()), (Expect::Either, false));
    let (later, _) = exchange(&mut server, &mut model, origin, 1_200);
    assert_eq!(later, Expect::Allow);
}
