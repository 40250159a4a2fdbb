//! Replicas of the backend on one real Redis (Docker, `estate/redis:7` from
//! `scripts/offline-images.sh`; `REDIS_IMAGE` overrides it): the budgets, the login lock,
//! the one-time codes, the mail queue, the account-mail jobs, scan runs and sessions are one
//! state for the whole cluster, not one per process. Each test starts its own container and
//! its own backends on free ports, over HTTP as a client sees them. With
//! `ESTATE_SKIP_DOCKER=1` each test prints a skip line and passes; CI never sets it.
//!
//! # Layout
//! - [`support`]: a backend node on the test's Redis.
//! - [`budget`]: one CREDENTIAL budget across two replicas.
//! - [`lock`]: the login lock across replicas and across a restart.
//! - [`codes`]: a code sent by one replica verified on the other.
//! - [`failover`]: the lock and a code survive a Sentinel failover; during it, 503s only.
//! - [`jobs`]: account-mail jobs written on either replica worked exactly once.
//! - [`mail`]: mail queued on either replica delivered by SMTP exactly once.
//! - [`runs`]: a run driven by a live replica is never ended by another; a dead one's is.
//! - [`sessions`]: a session rotated or ended on one replica is spent or refused on the other.

mod budget;
mod codes;
mod failover;
mod jobs;
mod lock;
mod mail;
mod runs;
mod sessions;
mod support;
