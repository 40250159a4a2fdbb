//! The limiter settings every service reads the same way, once: how many keys a limiter keeps
//! (`RATE_LIMIT_MAX_TRACKED_KEYS`), the Redis its replicas share (`REDIS_URL`) and how long a
//! decision waits for it (`RATE_LIMIT_REDIS_TIMEOUT_MS`), and the one place a service's limiter
//! builder is finished with them.
//!
//! A service names its own groups and budgets on the builder; these settings add the rest, so
//! every limiter in the estate is bounded, counted, on the injected clock and shared through
//! Redis the same way.

use crate::config::{ConfigError, Env};
use limiter::limiter::LimiterBuilder;
use limiter::{
    CommonSettings, DEFAULT_MAX_TRACKED_KEYS, DEFAULT_REDIS_TIMEOUT, Limiter, LimiterError,
    LimiterMetrics, RedisConfig, SharedClock, SlidingWindow, SlidingWindowBuilder,
};
use std::time::Duration;

/// The bound on the keys each limiter tracks.
pub const ENV_MAX_TRACKED_KEYS: &str = "RATE_LIMIT_MAX_TRACKED_KEYS";
/// The Redis shared by a service's replicas (unset: every budget in this process).
pub const ENV_REDIS_URL: &str = "REDIS_URL";
/// The longest a decision waits for Redis before it is made locally, in milliseconds.
pub const ENV_REDIS_TIMEOUT_MS: &str = "RATE_LIMIT_REDIS_TIMEOUT_MS";

/// What every limiter of a service is built with besides its groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimiterSettings {
    /// `RATE_LIMIT_MAX_TRACKED_KEYS` (default 20 000): keys tracked per limiter.
    pub max_tracked_keys: usize,
    /// `REDIS_URL`: the Redis the replicas share, when set.
    pub redis_url: Option<String>,
    /// `RATE_LIMIT_REDIS_TIMEOUT_MS` (default [`DEFAULT_REDIS_TIMEOUT`], 50 ms): the longest a
    /// decision waits for Redis.
    pub redis_timeout: Duration,
}

impl LimiterSettings {
    /// Reads both variables.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            max_tracked_keys: env.usize_or(ENV_MAX_TRACKED_KEYS, DEFAULT_MAX_TRACKED_KEYS)?,
            redis_url: env.optional(ENV_REDIS_URL),
            redis_timeout: redis_timeout(env)?,
        })
    }

    /// Whether the budgets are shared through Redis.
    pub fn shared(&self) -> bool {
        self.redis_url.is_some()
    }

    /// Finishes a limiter: bounded, counted in `metrics`, on `clock`, shared when Redis is set.
    pub fn limiter(
        &self,
        builder: LimiterBuilder,
        metrics: LimiterMetrics,
        clock: SharedClock,
    ) -> Result<Limiter, LimiterError> {
        self.finish(builder, metrics, clock).build()
    }

    /// Finishes a sliding window the same way.
    pub fn window(
        &self,
        builder: SlidingWindowBuilder,
        metrics: LimiterMetrics,
        clock: SharedClock,
    ) -> Result<SlidingWindow, LimiterError> {
        self.finish(builder, metrics, clock).build()
    }

    /// What both kinds of builder are finished with: the bound, the counters, the clock and,
    /// when set, Redis.
    fn finish<B: CommonSettings>(
        &self,
        builder: B,
        metrics: LimiterMetrics,
        clock: SharedClock,
    ) -> B {
        let builder = builder
            .max_tracked_keys(self.max_tracked_keys)
            .metrics(metrics)
            .clock(clock);
        match self.redis() {
            Some(redis) => builder.redis(redis),
            None => builder,
        }
    }

    fn redis(&self) -> Option<RedisConfig> {
        self.redis_url.as_deref().map(|url| RedisConfig {
            timeout: self.redis_timeout,
            ..RedisConfig::new(url)
        })
    }
}

/// Whether a service's limiter is on, by its switch `name`, whose value `off` (`"false"` for
/// an `…_ENABLED` switch, `"true"` for a `…_DISABLED` one) turns it off. Unset or the other
/// boolean leaves it on, and so does anything else, with a warning: a typo must never switch a
/// guard off.
pub fn limiter_switch(env: &dyn Env, name: &'static str, off: &str) -> bool {
    match env.optional(name).as_deref() {
        None => true,
        Some(value) if value == off => false,
        Some("true" | "false") => true,
        Some(_) => {
            tracing::warn!(
                variable = name,
                "not exactly true or false; the limiter stays on"
            );
            true
        }
    }
}

/// `RATE_LIMIT_REDIS_TIMEOUT_MS`: 1 ms to 60 s (0 would decide every request locally).
fn redis_timeout(env: &dyn Env) -> Result<Duration, ConfigError> {
    let default = u64::try_from(DEFAULT_REDIS_TIMEOUT.as_millis()).unwrap_or(u64::MAX);
    match env.u64_or(ENV_REDIS_TIMEOUT_MS, default)? {
        millis @ 1..=60_000 => Ok(Duration::from_millis(millis)),
        _ => Err(ConfigError::Invalid {
            name: ENV_REDIS_TIMEOUT_MS,
            expected: "milliseconds from 1 to 60000".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigError, MapEnv, Parsed};
    use limiter::Policy;
    use std::time::Duration;

    fn env(pairs: &[(&str, &str)]) -> MapEnv {
        pairs.iter().copied().collect()
    }

    #[test]
    fn budgets_parse_with_the_limiter_and_fall_back_to_the_default() {
        let vars = env(&[("RATE_LIMIT_CI", "600/1h"), ("EMPTY", "")]);
        let set: Policy = vars.parsed_or("RATE_LIMIT_CI", "1/1s").unwrap();
        assert_eq!(
            (set.limit(), set.period()),
            (600, Duration::from_secs(3600))
        );
        let fallback: Policy = vars.parsed_or("EMPTY", "20/15m").unwrap();
        assert_eq!(
            (fallback.limit(), fallback.period()),
            (20, Duration::from_secs(900))
        );
        let absent: Policy = vars.parsed_or("ABSENT", "60/60s").unwrap();
        assert_eq!(absent, "60/60s".parse::<Policy>().unwrap());
    }

    #[test]
    fn a_bad_budget_names_the_variable_and_the_format_never_the_value() {
        let err = env(&[("RATE_LIMIT_CI", "600 per hour")])
            .parsed_or::<Policy>("RATE_LIMIT_CI", "600/1h")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "RATE_LIMIT_CI is invalid: expected <limit>/<period> such as 300/1h, 20/15m or 60/60s"
        );
        let zero = env(&[("RATE_LIMIT_CI", "0/1h")])
            .parsed_or::<Policy>("RATE_LIMIT_CI", "600/1h")
            .unwrap_err();
        assert!(matches!(
            zero,
            ConfigError::Unparsed {
                name: "RATE_LIMIT_CI",
                ..
            }
        ));
        assert!(!zero.to_string().contains("0/1h"), "{zero}");
        let default = MapEnv::default()
            .parsed_or::<Policy>("RATE_LIMIT_CI", "600/1d")
            .unwrap_err();
        assert!(matches!(
            default,
            ConfigError::BadDefault {
                name: "RATE_LIMIT_CI",
                ..
            }
        ));
    }

    #[test]
    fn the_redis_timeout_is_read_in_milliseconds_within_its_range() {
        use super::{ENV_REDIS_TIMEOUT_MS, LimiterSettings};
        let read = |value: &str| LimiterSettings::from_env(&env(&[(ENV_REDIS_TIMEOUT_MS, value)]));
        assert_eq!(
            LimiterSettings::from_env(&env(&[])).unwrap().redis_timeout,
            Duration::from_millis(50)
        );
        assert_eq!(read("2000").unwrap().redis_timeout, Duration::from_secs(2));
        for bad in ["0", "60001", "-1", "50ms"] {
            let error = read(bad).unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with("RATE_LIMIT_REDIS_TIMEOUT_MS is invalid"),
                "{bad}: {error}"
            );
        }
    }
}
