//! The estate's one rate limiter, shared by every service.
//!
//! Decisions never block: a request is allowed or refused with an exact wait, at once. Buckets
//! are keyed by digests (never raw credentials or addresses), refill continuously (GCRA, the
//! same rule as `governor`), live in a bounded map or in Redis shared by replicas, and fall
//! back to local decisions when Redis is slow or down.
//!
//! # Layout
//! - [`clock`]: injected monotonic time; [`key`]: SHA-256 key digests; [`policy`]: budgets
//!   and Retry-After arithmetic; [`gcra`]: the bucket arithmetic; [`decision`]: its answer.
//! - [`memory`]: the bounded in-memory backend; `redis_store` and [`breaker`]: the shared one,
//!   over `redis_link` (connection, timeout, breaker), which the shared windows use too.
//! - [`limiter`]: named groups over a backend; [`rules`]: the allow-list of metered paths;
//!   [`common`]: what both kinds of limiter are finished with (bound, clock, counters, Redis).
//! - [`sliding`]: per-subject sliding windows with a global backstop, in memory
//!   (`sliding_log`) or in Redis (`sliding_redis`); [`queue`]: opt-in
//!   admission control; [`pacer`]: the outbound pacer that waits (never inbound).
//! - [`metrics`]: Prometheus counters; [`headers`]: the response fields' names and texts.
//!
//! No web framework is in this crate's dependency tree: the actix-web middleware is the
//! `limiter-actix` crate.

pub mod breaker;
pub mod clock;
pub mod common;
pub mod decision;
pub mod gcra;
pub mod headers;
pub mod key;
pub mod limiter;
pub mod memory;
pub mod metrics;
pub mod pacer;
pub mod policy;
pub mod queue;
mod redis_link;
mod redis_store;
pub mod rules;
pub mod sliding;
mod sliding_log;
mod sliding_redis;

pub use clock::{Clock, CoarseClock, FakeClock, SharedClock, SystemClock, system_clock};
pub use common::{Common, CommonSettings};
pub use decision::Decision;
pub use headers::FieldStyle;
pub use key::KeyDigest;
pub use limiter::{DEFAULT_MAX_TRACKED_KEYS, GroupId, Limiter, LimiterError, Verdict};
pub use metrics::{LimiterMetrics, Outcome};
pub use pacer::Pacer;
pub use policy::{Policy, PolicyError, retry_after_secs};
pub use queue::{Admission, AdmissionQueue, QueueConfig, QueueMetrics, QueueOutcome, QueueRefusal};
pub use redis_link::{DEFAULT_REDIS_TIMEOUT, RedisConfig};
pub use rules::RuleTable;
pub use sliding::{SlidingWindow, SlidingWindowBuilder};
