//! How a request line states what a client sent and how long it took, the same in every
//! service and at the edge: durations in milliseconds, client-written text clipped.

use std::borrow::Cow;
use std::time::Duration;

/// The longest method written in a request line; an extension method a client made up may be
/// long, and is cut.
pub const MAX_METHOD_CHARS: usize = 16;

/// Milliseconds with microsecond precision: how a log line states a duration.
pub fn millis(elapsed: Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1e3
}

/// `text`, cut after `max_chars` characters with `…` marking the cut: what a log line may hold
/// of something a client wrote.
pub fn clipped(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_keeps_short_text_and_marks_a_cut() {
        assert_eq!(clipped("GET", 16), "GET");
        assert_eq!(clipped("abcdef", 6), "abcdef");
        assert_eq!(clipped("abcdefg", 6), "abcdef…");
        assert_eq!(clipped("\u{e9}\u{e9}\u{e9}", 2), "\u{e9}\u{e9}…");
    }
}
