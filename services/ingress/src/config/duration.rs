//! Durations as cloudflared's files write them, read the same way by every part of the file
//! (the rules' `originRequest`, the `estate:` block, the TLS settings).

use super::IngressError;
use std::time::Duration;

/// A duration as cloudflared's files write them: `30s`, `1m30s`, `500ms`, `2h`.
pub fn parse_duration(key: &str, text: &str) -> Result<Duration, IngressError> {
    humantime::parse_duration(text).map_err(|error| IngressError::Duration {
        key: key.to_owned(),
        reason: error.to_string(),
    })
}
