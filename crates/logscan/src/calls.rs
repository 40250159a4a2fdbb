//! Finds the log calls and print calls of a file, per language: where each starts, what it is
//! called, its level, and the bytes of its arguments.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::Language;
use crate::source::Source;

/// A log call's level, as the checks compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    /// No level at all: Go's standard `log.Print*` writes every line unconditionally.
    Unleveled,
}

impl Level {
    /// The level a method or macro name means: `Infof` is info; `exception`, `critical`,
    /// `Fatal` and `Panic` are error; Go's `Print*` has none.
    fn from_method(method: &str) -> Self {
        let method = method.to_ascii_lowercase();
        let starts = |prefixes: &[&str]| prefixes.iter().any(|prefix| method.starts_with(prefix));
        if starts(&["print"]) {
            Self::Unleveled
        } else if starts(&["trace"]) {
            Self::Trace
        } else if starts(&["debug"]) {
            Self::Debug
        } else if starts(&["warn"]) {
            Self::Warn
        } else if starts(&["error", "exception", "critical", "fatal", "panic", "dpanic"]) {
            Self::Error
        } else {
            Self::Info
        }
    }

    /// The lowercase name used in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Trace => "trace",
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
            Self::Unleveled => "no",
        }
    }
}

/// What a call does with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// Goes through a logger (or the log macros) at a level.
    Log(Level),
    /// Writes straight to stdout/stderr: print debugging.
    Print,
}

/// One call: `start` is where its name starts, `args` what lies between its parentheses
/// (to the end of the line when they are never closed). `nested` calls lie inside an earlier
/// call's arguments, so whatever reads arguments reads theirs as part of that call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Call {
    pub start: usize,
    pub callee: String,
    pub kind: CallKind,
    pub args: Range<usize>,
    pub nested: bool,
}

/// How a pattern's match becomes a [`CallKind`].
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// A logger; the `level` group names the level.
    Log,
    /// A print call.
    Print,
    /// `console.*`: `log` and `debug` are print debugging, the rest log calls.
    Console,
}

/// Every pattern names the callee in group `call` (and the method in `level` for loggers) and
/// ends at the call's opening parenthesis.
const PATTERNS: &[(&[Language], Shape, &str)] = &[
    (
        RUST,
        Shape::Log,
        r"(?P<call>(?:\b(?:log|tracing)\s*::\s*)?\b(?P<level>trace|debug|info|warn|error)!)\s*\(",
    ),
    (
        RUST,
        Shape::Print,
        r"\b(?P<call>(?:println|eprintln|print|eprint|dbg)!)\s*\(",
    ),
    (
        JAVA,
        Shape::Log,
        r"\b(?P<call>(?i:log|logger)\s*\.\s*(?P<level>trace|debug|info|warn|error))\s*\(",
    ),
    (
        JAVA,
        Shape::Print,
        r"\b(?P<call>System\s*\.\s*(?:out|err)\s*\.\s*(?:println|printf|print|format))\s*\(",
    ),
    (
        JAVA,
        Shape::Print,
        r"(?P<call>(?:\b\w+\s*)?\.\s*printStackTrace)\s*\(",
    ),
    (
        PYTHON,
        Shape::Log,
        r"\b(?P<call>(?:logging|logger|log|LOGGER|LOG|_logger|_log|self\.logger|self\.log|self\._logger)\s*\.\s*(?P<level>debug|info|warning|warn|error|exception|critical|fatal))\s*\(",
    ),
    (
        PYTHON,
        Shape::Print,
        r"(?m)(?:^|[^\w.])(?P<call>print)\s*\(",
    ),
    (
        SCRIPT,
        Shape::Console,
        r"\b(?P<call>(?:console|logger|log|this\.logger|this\.log)\s*\.\s*(?P<level>trace|debug|info|warn|error|log))\s*\(",
    ),
    (
        GO,
        Shape::Log,
        r"\b(?P<call>(?:log|logger|slog|sugar)\s*\.\s*(?P<level>(?:Print|Fatal|Panic|Debug|Info|Warn|Error)(?:f|ln|w|Context)?))\s*\(",
    ),
    (
        GO,
        Shape::Print,
        r"\b(?P<call>fmt\s*\.\s*(?:Println|Printf|Print))\s*\(",
    ),
    (
        GO,
        Shape::Print,
        r"(?m)(?:^|[^\w.])(?P<call>println|print)\s*\(",
    ),
];
const RUST: &[Language] = &[Language::Rust];
const JAVA: &[Language] = &[Language::Java];
const PYTHON: &[Language] = &[Language::Python];
const SCRIPT: &[Language] = &[Language::JavaScript, Language::TypeScript];
const GO: &[Language] = &[Language::Go];

static COMPILED: LazyLock<Vec<(&[Language], Shape, Regex)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|&(languages, shape, pattern)| {
            (
                languages,
                shape,
                Regex::new(pattern).expect("the built-in call patterns compile"),
            )
        })
        .collect()
});

/// Words that, right before a name, make it a definition rather than a call.
const DEFINERS: [&str; 4] = ["def", "fn", "func", "function"];

/// Every log and print call in `source`, in file order.
pub(crate) fn find_calls(source: &Source<'_>) -> Vec<Call> {
    let mut calls = Vec::new();
    for (languages, shape, regex) in COMPILED.iter() {
        if !languages.contains(&source.language) {
            continue;
        }
        for captures in regex.captures_iter(source.text) {
            let (Some(whole), Some(call)) = (captures.get(0), captures.name("call")) else {
                continue;
            };
            if !source.is_code(call.start()) || follows_definer(source.text, call.start()) {
                continue;
            }
            let method = captures.name("level").map_or("", |level| level.as_str());
            let open = whole.end() - 1;
            let close = source.matching_close(open);
            let args_end = close.unwrap_or_else(|| source.line_bounds(open).end);
            calls.push(Call {
                start: call.start(),
                callee: call.as_str().split_whitespace().collect(),
                kind: kind(*shape, call.as_str(), method),
                args: open + 1..args_end.max(open + 1),
                nested: false,
            });
        }
    }
    calls.sort_by_key(|call| call.start);
    calls.dedup_by_key(|call| call.start);
    let mut outer_end = 0;
    for call in &mut calls {
        call.nested = call.start < outer_end;
        if !call.nested {
            outer_end = call.args.end;
        }
    }
    calls
}

fn kind(shape: Shape, callee: &str, method: &str) -> CallKind {
    match shape {
        Shape::Print => CallKind::Print,
        Shape::Console if callee.starts_with("console") && matches!(method, "log" | "debug") => {
            CallKind::Print
        }
        Shape::Log | Shape::Console => CallKind::Log(Level::from_method(method)),
    }
}

/// Whether the word before `start` (on the same line) is `def`, `fn`, `func` or `function`.
fn follows_definer(text: &str, start: usize) -> bool {
    let before = text[..start].trim_end_matches([' ', '\t']);
    DEFINERS.iter().any(|definer| {
        before
            .strip_suffix(definer)
            .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests;
