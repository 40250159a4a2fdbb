//! Unit tests of line reading: each shape, and the words that are not levels.

use super::*;

fn read(line: &str) -> (Format, Option<&'static str>, String) {
    let entry = parse(line);
    (entry.format, entry.level.map(Level::name), entry.message)
}

fn plain(level: Option<&'static str>, message: &str) -> (Format, Option<&'static str>, String) {
    (Format::Plain, level, message.to_owned())
}

#[test]
fn json_lines_with_the_usual_keys() {
    let line = r#"{"time":"2026-03-01T10:00:00Z","level":"error","msg":"payment failed","error":"card declined"}"#;
    assert_eq!(
        read(line),
        (
            Format::Json,
            Some("error"),
            "payment failed: card declined".to_owned()
        )
    );
    let pino = r#"{"level":40,"time":1,"msg":"slow query"}"#;
    assert_eq!(
        read(pino),
        (Format::Json, Some("warn"), "slow query".to_owned())
    );
    let ecs = r#"{"@timestamp":"x","log":{"level":"WARN"},"message":"disk 91% full"}"#;
    assert_eq!(
        read(ecs),
        (Format::Json, Some("warn"), "disk 91% full".to_owned())
    );
    let nested =
        r#"{"severity":"E","message":"boom","exception":{"type":"IOError","message":"boom"}}"#;
    assert_eq!(
        read(nested),
        (Format::Json, Some("error"), "boom".to_owned())
    );
}

#[test]
fn logfmt_with_quoted_values() {
    let line = r#"ts=2026-03-01T10:00:00Z level=error msg="upstream \"auth\" timed out" err="context deadline exceeded""#;
    assert_eq!(
        read(line),
        (
            Format::Logfmt,
            Some("error"),
            r#"upstream "auth" timed out: context deadline exceeded"#.to_owned()
        )
    );
    assert_eq!(
        read("a=1 b=2").0,
        Format::Plain,
        "pairs without level or msg"
    );
    assert_eq!(read(r#"level=info msg="unterminated"#).0, Format::Plain);
}

#[test]
fn text_with_the_level_before_or_after_the_timestamp() {
    let cases = [
        (
            "ERROR 2026-03-01 10:00:00,123 [main] Failed to bind",
            plain(
                Some("error"),
                "2026-03-01 10:00:00,123 [main] Failed to bind",
            ),
        ),
        (
            "2026-03-01T10:00:00.123Z WARN  [pool-2] Retrying",
            plain(Some("warn"), "[pool-2] Retrying"),
        ),
        (
            "[2026-03-01 10:00:00] [error] disk full",
            plain(Some("error"), "disk full"),
        ),
        (
            "2026-03-01 10:00:00,123 - app.db - CRITICAL - pool exhausted",
            plain(Some("fatal"), "pool exhausted"),
        ),
        (
            "Mar  1 10:00:00 web-1 app[812]: error: quota exceeded",
            plain(Some("error"), "quota exceeded"),
        ),
        (
            "[Sun Mar 01 10:00:00.1 2026] [core:error] [pid 9] AH00124: limit",
            plain(Some("error"), "[pid 9] AH00124: limit"),
        ),
        (
            "2026-03-01T10:00:00.123Z ERROR 4242 --- [api] [  main] c.e.OrderService : Order 17 failed",
            plain(Some("error"), "Order 17 failed"),
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(read(line), expected, "{line}");
    }
}

#[test]
fn a_level_word_inside_a_sentence_is_not_a_level() {
    assert_eq!(
        read("2026-03-01 10:00:00 retrying after error in step 3"),
        plain(None, "2026-03-01 10:00:00 retrying after error in step 3")
    );
    assert_eq!(read("Started. Info at http://x").1, None);
}

#[test]
fn panics_and_uncaught_exceptions_are_failures_without_a_level() {
    let panic = "thread 'main' panicked at src/main.rs:10:5:";
    assert_eq!(read(panic).1, Some("fatal"));
    assert_eq!(
        read("Exception in thread \"main\" java.lang.NullPointerException").1,
        Some("error")
    );
}

#[test]
fn continuations_and_exception_tails() {
    assert!(is_continuation("\tat com.example.Main.run(Main.java:12)"));
    assert!(is_continuation("Caused by: java.io.IOException: closed"));
    assert!(is_continuation("... 12 more"));
    assert!(!is_continuation("ERROR x"));
    assert!(is_exception_tail("ValueError: invalid literal for int()"));
    assert!(is_exception_tail("KeyboardInterrupt"));
    assert!(!is_exception_tail("Errors were found"));
}
