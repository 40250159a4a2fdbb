//! Tests of call recognition: each language's loggers and prints, and what is not a call.

use super::{CallKind, Level, find_calls};
use crate::source::Source;
use crate::{Language, SourceFile};

/// `(callee, kind, arguments)` of every call found in `content`.
fn calls(language: Language, content: &str) -> Vec<(String, CallKind, String)> {
    let source = Source::new(&SourceFile {
        path: "x",
        content,
        language,
    });
    find_calls(&source)
        .into_iter()
        .map(|call| (call.callee, call.kind, content[call.args].to_owned()))
        .collect()
}

fn log(level: Level) -> CallKind {
    CallKind::Log(level)
}

#[test]
fn rust_macros() {
    let found = calls(
        Language::Rust,
        "tracing::warn!(a = 1, \"x\"); info!(\"y {}\", f(z)); println!(\"p\");\n// debug!(\"no\")\nlet s = \"error!(no)\"; dbg!(v); my_info!(w);",
    );
    assert_eq!(
        found,
        [
            (
                "tracing::warn!".into(),
                log(Level::Warn),
                "a = 1, \"x\"".into()
            ),
            ("info!".into(), log(Level::Info), "\"y {}\", f(z)".into()),
            ("println!".into(), CallKind::Print, "\"p\"".into()),
            ("dbg!".into(), CallKind::Print, "v".into()),
        ]
    );
}

#[test]
fn java_loggers_and_prints() {
    let found = calls(
        Language::Java,
        "LOGGER.debug(\"a\");\nlogger\n  .error(\"b\", e);\nSystem.out.println(x);\ne.printStackTrace();",
    );
    let kinds: Vec<(&str, CallKind)> = found
        .iter()
        .map(|(callee, kind, _)| (callee.as_str(), *kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("LOGGER.debug", log(Level::Debug)),
            ("logger.error", log(Level::Error)),
            ("System.out.println", CallKind::Print),
            ("e.printStackTrace", CallKind::Print),
        ]
    );
}

#[test]
fn python_loggers_prints_and_lookalikes() {
    let found = calls(
        Language::Python,
        "logging.warning('a')\nself.logger.exception('b')\nprint('c')\nreport.print()\ndef print(self):\n    pprint(x)\n",
    );
    let kinds: Vec<(&str, CallKind)> = found
        .iter()
        .map(|(callee, kind, _)| (callee.as_str(), *kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("logging.warning", log(Level::Warn)),
            ("self.logger.exception", log(Level::Error)),
            ("print", CallKind::Print),
        ]
    );
}

#[test]
fn console_log_and_debug_are_prints_the_rest_log() {
    for language in [Language::JavaScript, Language::TypeScript] {
        let found = calls(
            language,
            "console.log(a); console.error(`b`); logger.debug(c); log.log(d)",
        );
        let kinds: Vec<CallKind> = found.iter().map(|(_, kind, _)| *kind).collect();
        assert_eq!(
            kinds,
            [
                CallKind::Print,
                log(Level::Error),
                log(Level::Debug),
                log(Level::Info)
            ]
        );
    }
}

#[test]
fn go_loggers_and_prints() {
    let found = calls(
        Language::Go,
        "log.Printf(\"a %v\", b)\nlog.Fatal(c)\nlogger.Infow(\"d\")\nslog.ErrorContext(ctx, \"e\")\nfmt.Println(f)\nprintln(g)\nfmt.Sprintf(\"h\")\nfunc print(x int) {}",
    );
    let kinds: Vec<(&str, CallKind)> = found
        .iter()
        .map(|(callee, kind, _)| (callee.as_str(), *kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("log.Printf", log(Level::Unleveled)),
            ("log.Fatal", log(Level::Error)),
            ("logger.Infow", log(Level::Info)),
            ("slog.ErrorContext", log(Level::Error)),
            ("fmt.Println", CallKind::Print),
            ("println", CallKind::Print),
        ]
    );
}

#[test]
fn unclosed_call_takes_the_rest_of_its_line() {
    let found = calls(Language::Rust, "info!(\"a\", b\nnext");
    assert_eq!(found[0].2, "\"a\", b");
}
