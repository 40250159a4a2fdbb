//! One timer always pending on each worker, so that arming a timer on the request path never
//! costs a system call.
//!
//! Tokio's timer wakes its driver (a write to the runtime's eventfd, then one more
//! `epoll_wait`) whenever a new timer is due sooner than every timer the driver last went to
//! sleep with — also when it is armed on the runtime's own thread, where the driver is not
//! asleep at all. hyper arms a header-read timer for each request a client connection waits
//! for and the proxy a response deadline for each request it sends, so a worker whose timers
//! had all been cleared paid that wake-up for about one request in five. A timer due every
//! [`PERIOD`], sooner than those deadlines (30 s by default), is always there and always
//! earlier, so arming them no longer wakes the driver.

use std::time::Duration;
use tokio::time::{MissedTickBehavior, interval};

/// How often the floor's timer fires: well under hyper's 30 s header-read timeout and the
/// default response timeout, and rare enough to cost nothing on an idle ingress.
pub const PERIOD: Duration = Duration::from_secs(1);

/// Keeps a timer pending on the current runtime for as long as the future is polled.
pub async fn hold() {
    let mut ticks = interval(PERIOD);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
    }
}
