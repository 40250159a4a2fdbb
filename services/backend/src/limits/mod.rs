//! The backend's request budgets: the public filter's groups and the auth filter's, evaluated
//! through one allow-list so each request meets every bucket that meters it in one pass.
//!
//! Two filters, nine groups, independent budgets (docs/DESIGN.md, "The backend"). A request matching no rule
//! is never metered: `/actuator/**`, `/internal/**`, `/api/v1/analytics/**`, `/api/v1/runs/**`
//! and `/ws/**` appear in no rule, so no future edit to a limit can reach them.
//!
//! # Layout
//! - [`rules`]: the table; [`keys`]: what each group is keyed on; [`recipient`]: the inbox a
//!   mail path's body names, for the per-recipient ceiling.

pub mod keys;
pub mod recipient;
pub mod rules;

use crate::config::BackendConfig;
use limiter::{Limiter, LimiterError, LimiterMetrics, SharedClock};
use limiter_actix::RateLimit;

/// The limiter of all nine groups.
pub fn limiter(
    config: &BackendConfig,
    metrics: LimiterMetrics,
    clock: SharedClock,
) -> Result<Limiter, LimiterError> {
    let (public, auth) = (&config.public, &config.auth);
    let builder = Limiter::builder("backend")
        .group(rules::EMAIL, public.email)
        .hidden_group(rules::EMAIL_RECIPIENT, public.email_recipient)
        .group(rules::CREDENTIAL, public.credential)
        .group(rules::EXPENSIVE, public.expensive)
        .group(rules::CI, public.ci)
        .group(rules::AUTH_CREDENTIAL, auth.credential)
        .group(rules::AUTH_ONE_TIME_CODE, auth.one_time_code)
        .group(rules::AUTH_EMAIL, auth.email)
        .group(rules::AUTH_BACKSTOP, auth.backstop);
    config.limiter.limiter(builder, metrics, clock)
}

/// The middleware: keyed per group, refusing with the filters' FAIL body.
pub fn middleware(
    limiter: Limiter,
    config: &BackendConfig,
) -> Result<RateLimit, limiter_actix::UnknownGroup> {
    let rate_limit = RateLimit::new(limiter, rules::table().clone())?.refusal(|refused| {
        crate::envelope::too_many_requests(limiter::retry_after_secs(refused.retry_after))
    });
    keys::Keys::new(config).apply(rate_limit)
}
