//! The auth domain layer's behaviour: e-mail normalisation, password hashing, the login and
//! one-time-code ceilings, single-use tokens and the outbox. Ceilings run on the embedded
//! store, and where replicas matter on a real Redis in Docker (`estate/redis:7`, `REDIS_IMAGE`
//! overrides it); with `ESTATE_SKIP_DOCKER=1` those tests print a skip line and pass.

mod attempts;
mod email;
mod otp;
mod outbox;
mod passwords;
mod support;
mod tokens;
mod users;
