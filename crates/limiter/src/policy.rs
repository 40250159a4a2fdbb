//! A budget: `limit` requests per `period`, written `<limit>/<period>` (`300/1h`, `20/15m`,
//! `60/60s`), and the arithmetic every Retry-After comes from.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// `limit` requests per `period`; one token accrues every `period / limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    limit: u32,
    period: Duration,
}

/// Why a budget could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Not of the form `<limit>/<number><s|m|h>`.
    #[error("expected <limit>/<period> such as 300/1h, 20/15m or 60/60s")]
    Format,
    /// A zero limit or period meters nothing.
    #[error("limit and period must both be greater than zero")]
    Zero,
}

impl Policy {
    /// A budget of `limit` per `period`.
    pub fn new(limit: u32, period: Duration) -> Result<Self, PolicyError> {
        if limit == 0 || period.is_zero() {
            return Err(PolicyError::Zero);
        }
        Ok(Self { limit, period })
    }

    /// Requests per period.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Time for one token to accrue: `period / limit`.
    pub fn emission_interval(&self) -> Duration {
        self.period / self.limit
    }
}

impl FromStr for Policy {
    type Err = PolicyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (limit, period) = text.trim().split_once('/').ok_or(PolicyError::Format)?;
        let limit: u32 = limit.trim().parse().map_err(|_| PolicyError::Format)?;
        let period = period.trim();
        let unit_at = period.len().checked_sub(1).ok_or(PolicyError::Format)?;
        let (count, unit) = period.split_at(unit_at);
        let count: u64 = count.parse().map_err(|_| PolicyError::Format)?;
        let unit_secs = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            _ => return Err(PolicyError::Format),
        };
        let secs = count.checked_mul(unit_secs).ok_or(PolicyError::Format)?;
        Self::new(limit, Duration::from_secs(secs))
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}s", self.limit, self.period.as_secs())
    }
}

/// Whole seconds a client should wait: rounded up, and never 0 (a `Retry-After: 0` sends the
/// client straight back into the refusal: tower-governor #65).
pub fn retry_after_secs(wait: Duration) -> u64 {
    let whole = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    whole.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_unit() {
        let cases = [
            ("300/1h", 300, 3600),
            ("20/15m", 20, 900),
            ("60/60s", 60, 60),
            (" 15000/60s ", 15000, 60),
        ];
        for (text, limit, secs) in cases {
            let policy: Policy = text.parse().unwrap();
            assert_eq!(
                (policy.limit(), policy.period().as_secs()),
                (limit, secs),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_budget() {
        for text in [
            "", "300", "300/", "300/h", "300/1d", "x/1h", "-1/1h", "300/1.5h", "/1h",
        ] {
            assert_eq!(text.parse::<Policy>(), Err(PolicyError::Format), "{text:?}");
        }
        assert_eq!("0/1h".parse::<Policy>(), Err(PolicyError::Zero));
        assert_eq!("5/0s".parse::<Policy>(), Err(PolicyError::Zero));
    }

    #[test]
    fn retry_after_rounds_up_and_is_never_zero() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(271)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(12)), 12);
        assert_eq!(retry_after_secs(Duration::from_millis(7500)), 8);
        assert_eq!(retry_after_secs(Duration::from_nanos(45_000_000_001)), 46);
    }
}
