//! Which failed attempts get another try, and after how long.
//!
//! Connection errors and 5xx are retried twice (after [`BACKOFF`]); a 429 once, and only when
//! the provider asks for a wait of at most [`LONGEST_HONOURED_WAIT`] (a longer one is handed
//! to the caller, whose own client can come back later); everything else never, above all a
//! 4xx: the same request would be refused again.

use std::time::Duration;

use crate::LlmError;

/// Waits before the first and second retry of an unreachable or failing provider.
pub(crate) const BACKOFF: [Duration; 2] = [Duration::from_millis(100), Duration::from_millis(400)];

/// The longest `Retry-After` worth waiting for inside one call.
pub(crate) const LONGEST_HONOURED_WAIT: Duration = Duration::from_secs(5);

/// The retries one call has used so far.
#[derive(Debug, Default)]
pub(crate) struct Retries {
    unavailable: usize,
    rate_limited: bool,
}

impl Retries {
    /// How long to wait before trying again after `error`, or `None` to give up. Books the
    /// retry it allows.
    pub(crate) fn next_wait(&mut self, error: &LlmError) -> Option<Duration> {
        match error {
            LlmError::Unavailable { .. } => {
                let wait = BACKOFF.get(self.unavailable).copied()?;
                self.unavailable += 1;
                Some(wait)
            }
            LlmError::RateLimited {
                retry_after: Some(wait),
            } if *wait <= LONGEST_HONOURED_WAIT && !self.rate_limited => {
                self.rate_limited = true;
                Some(*wait)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(errors: &[LlmError]) -> Vec<Option<u128>> {
        let mut retries = Retries::default();
        errors
            .iter()
            .map(|error| retries.next_wait(error).map(|wait| wait.as_millis()))
            .collect()
    }

    #[test]
    fn unavailable_is_retried_twice_with_growing_backoff() {
        let down = LlmError::Unavailable { status: Some(503) };
        let unreachable = LlmError::Unavailable { status: None };
        assert_eq!(
            waits(&[down.clone(), unreachable, down]),
            [Some(100), Some(400), None]
        );
    }

    #[test]
    fn a_short_retry_after_is_honoured_once() {
        let limited = LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(5)),
        };
        assert_eq!(waits(&[limited.clone(), limited]), [Some(5000), None]);
    }

    #[test]
    fn a_long_or_missing_retry_after_is_handed_back() {
        let long = LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(6)),
        };
        let missing = LlmError::RateLimited { retry_after: None };
        assert_eq!(waits(&[long, missing]), [None, None]);
    }

    #[test]
    fn our_own_mistakes_and_bad_answers_are_never_retried() {
        let errors = [
            LlmError::Rejected { status: 400 },
            LlmError::Rejected { status: 401 },
            LlmError::BadResponse("no choices".to_owned()),
            LlmError::Timeout,
        ];
        assert_eq!(waits(&errors), [None, None, None, None]);
    }
}
