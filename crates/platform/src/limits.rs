//! The limiter settings every service reads the same way, once: how many keys a limiter keeps
//! (`RATE_LIMIT_MAX_TRACKED_KEYS`) and the Redis its replicas share (`REDIS_URL`), and the one
//! place a service's limiter builder is finished with them.
//!
//! A service names its own groups and budgets on the builder; these settings add the rest, so
//! every limiter in the estate is bounded, counted, on the injected clock and shared through
//! Redis the same way.

use crate::config::{ConfigError, Env};
use limiter::limiter::LimiterBuilder;
use limiter::{
    DEFAULT_MAX_TRACKED_KEYS, Limiter, LimiterError, LimiterMetrics, RedisConfig, SharedClock,
    SlidingWindow, SlidingWindowBuilder,
};

/// The bound on the keys each limiter tracks.
pub const ENV_MAX_TRACKED_KEYS: &str = "RATE_LIMIT_MAX_TRACKED_KEYS";
/// The Redis shared by a service's replicas (unset: every budget in this process).
pub const ENV_REDIS_URL: &str = "REDIS_URL";

/// The calls both limiter builders share (they have no trait in common), written once.
macro_rules! finish {
    ($settings:expr, $builder:expr, $metrics:expr, $clock:expr) => {{
        let builder = $builder
            .max_tracked_keys($settings.max_tracked_keys)
            .metrics($metrics)
            .clock($clock);
        match $settings.redis() {
            Some(redis) => builder.redis(redis),
            None => builder,
        }
        .build()
    }};
}

/// What every limiter of a service is built with besides its groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimiterSettings {
    /// `RATE_LIMIT_MAX_TRACKED_KEYS` (default 20 000): keys tracked per limiter.
    pub max_tracked_keys: usize,
    /// `REDIS_URL`: the Redis the replicas share, when set.
    pub redis_url: Option<String>,
}

impl LimiterSettings {
    /// Reads both variables.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            max_tracked_keys: env.usize_or(ENV_MAX_TRACKED_KEYS, DEFAULT_MAX_TRACKED_KEYS)?,
            redis_url: env.optional(ENV_REDIS_URL),
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
        finish!(self, builder, metrics, clock)
    }

    /// Finishes a sliding window the same way.
    pub fn window(
        &self,
        builder: SlidingWindowBuilder,
        metrics: LimiterMetrics,
        clock: SharedClock,
    ) -> Result<SlidingWindow, LimiterError> {
        finish!(self, builder, metrics, clock)
    }

    fn redis(&self) -> Option<RedisConfig> {
        self.redis_url.as_deref().map(RedisConfig::new)
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
}
