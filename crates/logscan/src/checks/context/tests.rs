//! `log-without-context` per language: a bare constant message, and messages that carry values.

use crate::Language;
use crate::catalog::LOG_WITHOUT_CONTEXT;
use crate::checks::testing::{lines, run_at};

fn found(language: Language, content: &str) -> Vec<u32> {
    lines(LOG_WITHOUT_CONTEXT, language, content)
}

#[test]
fn rust() {
    let content = "error!(\"failed\");\ninfo!(\"done\");\nerror!(\"failed: {}\", e);\nerror!(\"failed: {e}\");\nwarn!(order_id = %id, \"retrying\");\ninfo!(\"loaded {} orders from the warehouse cache\", n);\n";
    assert_eq!(found(Language::Rust, content), [1]);
    assert!(found(Language::Rust, "warn!(\"Pool recreating\");\n").is_empty());
}

#[test]
fn java() {
    let content = "log.error(\"Error\", e);\nlogger.error(\"Error\");\nlog.info(\"Order {} shipped\", id);\nSystem.out.println(\"here\");\n";
    assert_eq!(found(Language::Java, content), [2]);
    // A headline whose next line logs the error.
    assert!(
        found(
            Language::Java,
            "logger.error(\"Error\");\nlog.debug(\"cause\", e);\n"
        )
        .is_empty()
    );
}

#[test]
fn python() {
    let content = "logging.error(\"failed\")\nlogger.exception(\"failed\")\nlogger.info(f\"synced {count}\")\nlogger.info(\"synced %d\", count)\nprint(\"here\")\nlog.warning(f\"retrying\")\n";
    assert_eq!(found(Language::Python, content), [1]);
}

#[test]
fn javascript_and_typescript() {
    let content = "console.error(\"error\");\nlogger.warn(`retry ${n}`);\nlogger.info('saved', { id });\nconsole.log('here');\nlogger.info(`Something went wrong`);\nlogger.warn(`Something went wrong`);\n";
    assert_eq!(found(Language::JavaScript, content), [1, 6]);
    assert_eq!(found(Language::TypeScript, content), [1, 6]);
}

#[test]
fn go() {
    let content = "log.Printf(\"sync failed: %v\", err)\nlog.Println(\"error\")\nlogger.Info(\"started\", zap.Int(\"port\", p))\nslog.Error(\"boom\")\n";
    assert_eq!(found(Language::Go, content), [2, 4]);
}

#[test]
fn long_constant_messages_are_not_reported() {
    let content = "log.info(\"Shutting down the scheduler after the last job\");";
    assert!(found(Language::Java, content).is_empty());
    let findings = run_at(
        LOG_WITHOUT_CONTEXT,
        Language::Java,
        "A.java",
        "log.error(\"failed\");",
    );
    assert_eq!(
        findings[0].message,
        "log message \"failed\" carries no context"
    );
}
