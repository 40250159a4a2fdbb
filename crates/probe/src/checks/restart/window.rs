//! The restart window from a poll's samples: how many failed, how (the edge's 502 or no
//! answer at all), whether any failure carried CORS headers, first and last failure, and when
//! the service answered again. A poll fails when it is not answered as the first poll (before
//! the restart) was. Each sample stands for one poll interval, so a window with one failed
//! sample is one interval long.

use std::time::{Duration, Instant, SystemTime};

/// The ingress's whole answer when no origin answers.
pub const EDGE_502: &str = "error code: 502";

/// One poll.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Wall-clock time it was sent.
    pub sent_at: SystemTime,
    /// Monotonic time it was sent.
    pub sent: Instant,
    /// Its status, `None` without an answer.
    pub status: Option<u16>,
    /// Its body (or the transport error).
    pub body: String,
    /// The `access-control-*` headers it carried.
    pub cors: Vec<String>,
    /// Milliseconds until the whole answer.
    pub elapsed_ms: u128,
}

impl Sample {
    /// Answered as `baseline` (the service's answer before the restart) says it should be.
    pub fn as_before(&self, baseline: Option<u16>) -> bool {
        baseline.is_some() && self.status == baseline
    }

    /// How a failure reads in the report.
    pub fn kind(&self) -> String {
        match self.status {
            Some(502) if self.body == EDGE_502 => format!("502 `{EDGE_502}`"),
            Some(status) => format!("{status} (body {:?})", truncate(&self.body)),
            None => format!("no answer ({})", truncate(&self.body)),
        }
    }
}

/// The answer the service gives when it is up: the first poll's, unless that one failed.
pub fn baseline(samples: &[Sample]) -> Option<u16> {
    samples
        .first()
        .and_then(|sample| sample.status)
        .filter(|status| *status < 500)
}

/// What the samples say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The status the service answered before the restart (`None`: it did not).
    pub baseline: Option<u16>,
    /// Polls sent.
    pub requests: usize,
    /// Polls not answered 200.
    pub failures: usize,
    /// Each kind of failure and its count.
    pub kinds: Vec<(String, usize)>,
    /// `access-control-*` headers seen on failures.
    pub cors_on_failures: Vec<String>,
    /// Wall-clock time of the first and last failure.
    pub first_and_last: Option<(SystemTime, SystemTime)>,
    /// From the first failure to the last, plus one interval; zero without failures.
    pub window: Duration,
    /// From the command's start to the first 200 after the last failure.
    pub recovered_after: Option<Duration>,
    /// The slowest answer, in milliseconds.
    pub slowest_ms: u128,
    /// When the slowest poll was sent, in milliseconds after the command started (negative:
    /// before).
    pub slowest_sent_ms: i128,
}

/// Summarises `samples` (in sending order) polled every `interval`; `command_started` is when
/// the restart command began.
pub fn summarise(samples: &[Sample], interval: Duration, command_started: Instant) -> Summary {
    let baseline = baseline(samples);
    let failed: Vec<&Sample> = samples
        .iter()
        .filter(|sample| !sample.as_before(baseline))
        .collect();
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for sample in &failed {
        let kind = sample.kind();
        match kinds.iter_mut().find(|(name, _)| *name == kind) {
            Some((_, count)) => *count += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let mut cors: Vec<String> = failed
        .iter()
        .flat_map(|sample| sample.cors.clone())
        .collect();
    cors.sort();
    cors.dedup();
    let (first, last) = (failed.first(), failed.last());
    let window = match (first, last) {
        (Some(first), Some(last)) => last.sent.duration_since(first.sent) + interval,
        _ => Duration::ZERO,
    };
    let settled_from = last.map_or(command_started, |last| last.sent.max(command_started));
    let recovered_after = samples
        .iter()
        .find(|sample| sample.as_before(baseline) && sample.sent > settled_from)
        .map(|sample| sample.sent.duration_since(command_started));
    let slowest = samples.iter().max_by_key(|sample| sample.elapsed_ms);
    Summary {
        baseline,
        requests: samples.len(),
        failures: failed.len(),
        kinds,
        cors_on_failures: cors,
        first_and_last: first
            .zip(last)
            .map(|(first, last)| (first.sent_at, last.sent_at)),
        window,
        recovered_after,
        slowest_ms: slowest.map_or(0, |sample| sample.elapsed_ms),
        slowest_sent_ms: slowest.map_or(0, |sample| relative_ms(sample.sent, command_started)),
    }
}

fn relative_ms(at: Instant, origin: Instant) -> i128 {
    let after = i128::try_from(at.saturating_duration_since(origin).as_millis()).unwrap_or(0);
    let before = i128::try_from(origin.saturating_duration_since(at).as_millis()).unwrap_or(0);
    after - before
}

fn truncate(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(start: Instant, at_ms: u64, status: Option<u16>, body: &str) -> Sample {
        Sample {
            sent_at: SystemTime::UNIX_EPOCH + Duration::from_millis(at_ms),
            sent: start + Duration::from_millis(at_ms),
            status,
            body: body.to_owned(),
            cors: Vec::new(),
            elapsed_ms: 2,
        }
    }

    #[test]
    fn the_window_runs_from_the_first_failure_to_the_last_plus_one_interval() {
        let start = Instant::now();
        let samples = [
            sample(start, 0, Some(200), "{}"),
            sample(start, 1_050, Some(502), EDGE_502),
            sample(start, 1_100, None, "connection failed: refused"),
            sample(start, 1_150, Some(502), EDGE_502),
            sample(start, 1_200, Some(200), "{}"),
        ];
        let command = start + Duration::from_millis(1_000);
        let summary = summarise(&samples, Duration::from_millis(50), command);
        assert_eq!((summary.requests, summary.failures), (5, 3));
        assert_eq!(summary.window, Duration::from_millis(150));
        assert_eq!(summary.recovered_after, Some(Duration::from_millis(200)));
        assert_eq!(
            summary.kinds,
            vec![
                ("502 `error code: 502`".to_owned(), 2),
                ("no answer (connection failed: refused)".to_owned(), 1)
            ]
        );
    }

    #[test]
    fn no_failure_is_a_zero_window() {
        let start = Instant::now();
        let samples = [
            sample(start, 0, Some(200), "{}"),
            sample(start, 1_500, Some(200), "{}"),
        ];
        let summary = summarise(
            &samples,
            Duration::from_millis(50),
            start + Duration::from_secs(1),
        );
        assert_eq!((summary.failures, summary.window), (0, Duration::ZERO));
        assert_eq!(summary.recovered_after, Some(Duration::from_millis(500)));
    }
}
