//! `print-debugging`: prints left in library code (`println!`, `dbg!`, `System.out.println`,
//! `printStackTrace()`, `print(`, `console.log`, `fmt.Println`). Not reported: prints in tests,
//! examples, benchmarks and programs' entry points (their output is the point, unless the print
//! says it is debugging: `dbg!`, "DEBUG …", a `TODO` on its line), prints the
//! ecosystem's own suppression marks as intended, a message printed right before the program
//! exits or aborts, a wrapper that forwards its own arguments (`log(...args) {
//! console.log(...args) }`), and a print that logs a secret (that is reported once, as
//! sensitive data).

use std::sync::LazyLock;

use regex::Regex;

use super::role::Role;
use super::{Scan, sensitive};
use crate::Severity;
use crate::bounds::Kept;
use crate::calls::{Call, CallKind};
use crate::catalog::{PRINT_DEBUGGING, SENSITIVE_DATA};

const FIX: &str = "remove it, or log through the logger at debug level";
/// How far after a print its program may exit for the print to be the exit's message.
const EXIT_WINDOW_BYTES: usize = 200;

/// The end of a program: the print before it tells the user why.
static EXITS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:(?:std::)?process::(?:exit|abort)|os\.Exit|sys\.exit|System\.exit|process\.exit|",
        r"panic!|unreachable!|exit|abort)\s*\(",
    ))
    .expect("constant pattern compiles")
});
/// Arguments that only forward the caller's own: `...args`, `*args, **kwargs`, `args...`.
static FORWARDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\.\.\.\w+|\*\w+(?:\s*,\s*\*\*\w+)?|\w+\.\.\.)\s*$")
        .expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    for call in &scan.calls {
        if call.kind != CallKind::Print || !unintended(scan, call) {
            continue;
        }
        let message = format!("print debugging left in the code: `{}`", call.callee);
        findings.push(source.finding(PRINT_DEBUGGING, Severity::Warning, call.start, message, FIX));
    }
}

/// Whether the print `call` is debugging left in, rather than output someone meant.
fn unintended(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    let role = scan.roles.at(call.start);
    let output = match role {
        Role::Library => false,
        Role::Cli => !marked_as_debugging(scan, call),
        Role::Example | Role::Test => true,
    };
    if output
        || scan.suppressions.intends_print(source, call.start)
        || FORWARDED.is_match(&source.text[call.args.clone()])
    {
        return false;
    }
    let after = call.args.end;
    let mut window_end = source.text.len().min(after + EXIT_WINDOW_BYTES);
    while !source.text.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let window = &source.text[after..window_end];
    let may_exit = ["exit", "Exit", "abort", "panic", "unreachable"]
        .iter()
        .any(|word| window.contains(word));
    let exits = may_exit
        && EXITS
            .find_iter(window)
            .find(|found| source.is_code(after + found.start()))
            .is_some_and(|found| {
                // Only the statement right after the print: nothing but closers in between.
                window[..found.start()].char_indices().all(|(at, c)| {
                    !source.is_code(after + at) || c.is_whitespace() || matches!(c, ')' | ';' | '}')
                })
            });
    let secret = scan.runs(SENSITIVE_DATA) && sensitive::reported(scan, call);
    !exits && !secret
}

/// Whether a print in a program's own output code says it is debugging: `dbg!`,
/// `console.debug`, `printStackTrace`, a message starting with "debug", or a `TODO`/`FIXME`
/// comment on its line.
fn marked_as_debugging(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    let callee = call.callee.as_str();
    let message = crate::args::literal_bodies(source, call.args.clone())
        .first()
        .is_some_and(|body| body.trim_start().to_ascii_lowercase().starts_with("debug"));
    let line = &source.text[source.line_bounds(call.start)];
    let noted = ["TODO", "FIXME", "XXX"].iter().any(|note| {
        line.match_indices(note)
            .any(|(at, _)| !source.is_code(source.line_bounds(call.start).start + at))
    });
    matches!(callee, "dbg!" | "console.debug")
        || callee.ends_with("printStackTrace")
        || message
        || noted
}

#[cfg(test)]
mod tests;
