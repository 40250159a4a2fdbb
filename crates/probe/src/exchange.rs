//! One request and its answer as the probe saw it: status, headers, body, and when it was
//! sent and received (the bucket arithmetic needs both instants).

use reqwest::header::HeaderMap;
use std::time::{Instant, SystemTime};

/// The interval in which the server decided: after `sent`, before `received`.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Just before the request left.
    pub sent: Instant,
    /// Just after the whole answer arrived.
    pub received: Instant,
}

/// A request's answer, or why there was none.
#[derive(Debug)]
pub struct Exchange {
    /// The status; `None` when no answer came (connection refused, timeout).
    pub status: Option<u16>,
    /// The answer's headers (empty without an answer).
    pub headers: HeaderMap,
    /// The answer's body, or the transport error's text.
    pub body: String,
    /// When it was sent and received.
    pub window: Window,
    /// Wall-clock time of sending, for reports.
    pub sent_at: SystemTime,
}

impl Exchange {
    /// A header as text (`None` when absent or not ASCII).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The status as a report shows it: `401`, or `no answer`.
    pub fn status_text(&self) -> String {
        self.status
            .map_or_else(|| "no answer".to_owned(), |status| status.to_string())
    }

    /// `Retry-After` as whole seconds, when present and numeric.
    pub fn retry_after(&self) -> Option<u64> {
        self.header("retry-after")?.trim().parse().ok()
    }

    /// The names of the `access-control-*` headers the answer carries.
    pub fn cors_headers(&self) -> Vec<String> {
        self.headers
            .keys()
            .map(|name| name.as_str().to_owned())
            .filter(|name| name.starts_with("access-control-"))
            .collect()
    }

    /// Milliseconds from sending to the whole answer.
    pub fn elapsed_ms(&self) -> u128 {
        self.window
            .received
            .duration_since(self.window.sent)
            .as_millis()
    }

    /// `status` and, when set, `retry-after: N`: the report's shorthand for an answer.
    pub fn shorthand(&self) -> String {
        match self.retry_after() {
            Some(secs) => format!("{}   retry-after: {secs}", self.status_text()),
            None => self.status_text(),
        }
    }
}
