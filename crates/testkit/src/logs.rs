//! The log of a test binary, captured: one JSON subscriber (the shape `LOG_FORMAT=json`
//! writes: event fields at the top level, the current span under `span`), installed on first
//! use and kept for the binary's life, so a test can find the lines an in-process service
//! wrote while it served that test's requests (an id or a reference tells them apart).

use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Everything logged at `info` and above in this test binary since the first call.
pub struct Captured {
    buffer: Arc<Mutex<Vec<u8>>>,
}

/// The binary's captured log; the first call installs the subscriber.
///
/// # Panics
/// When another global subscriber was installed first.
pub fn captured() -> &'static Captured {
    static CAPTURED: OnceLock<Captured> = OnceLock::new();
    CAPTURED.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = buffer.clone();
        tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || Sink(sink.clone()))
            .try_init()
            .expect("no other subscriber in this binary");
        Captured { buffer }
    })
}

impl Captured {
    /// Every line so far, parsed (a line that is not JSON is skipped).
    pub fn lines(&self) -> Vec<Value> {
        let bytes = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The request log line (`answered`) a service wrote inside the span of the request
    /// whose id is `request_id`, if there is one.
    pub fn answered(&self, request_id: &str) -> Option<Value> {
        self.lines()
            .into_iter()
            .find(|line| line["message"] == "answered" && line["span"]["request_id"] == request_id)
    }

    /// The lines whose text contains `needle` anywhere (a field, the span).
    pub fn containing(&self, needle: &str) -> Vec<Value> {
        self.lines()
            .into_iter()
            .filter(|line| line.to_string().contains(needle))
            .collect()
    }
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
