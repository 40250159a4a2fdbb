//! `print-debugging`: prints left in library code that look like debugging (`marks.rs`: `dbg!`,
//! `printStackTrace()`, a message opening with "debug" or "here", a print under a debug switch,
//! a `TODO` saying it is to go, or a message of a few words that only labels the values printed
//! with their own names: `print("x =", x)`, `println!("{:?}", v)`). A library's print of a
//! sentence or of a bare value is often its job and is not reported, nor is one under an output
//! switch (`if verbose:`). Not reported either: prints in tests, examples, benchmarks and
//! programs' entry points (their output is the point, unless the print says it is debugging:
//! `dbg!`, "DEBUG …", a `TODO` on its line), prints the ecosystem's own suppression marks as
//! intended, a message printed right before the program exits or aborts, an error or a warning
//! told on stderr (its message says so, or it is in a caught error's handler that logs
//! nothing), a wrapper that forwards its own arguments (`log(...args) { console.log(...args)
//! }`), and a print that logs a secret (that is reported once, as sensitive data).

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::context::trim_escapes;
use super::marks::{looks_like_debugging, marked_as_debugging};
use super::output::{behind_output_switch, is_output, printing_functions};
use super::role::Role;
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
        r"panic!|unreachable!|exit|abort|(?:raise\s+)?SystemExit)\s*\(",
    ))
    .expect("constant pattern compiles")
});
/// Python's `file=` naming a stream other than the process's own: `print(row, file=fh)` writes
/// to a file or buffer it was given, which is output, not debugging.
static TO_STREAM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bfile\s*=\s*(?P<stream>[\w.]+)").expect("constant pattern compiles")
});
/// Statements that may stand between a message and the exit it announces: flushing, printing
/// the traceback (`sys.stderr.flush()`, `traceback.print_exc()`), more lines of the message.
static BEFORE_EXIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[\w.]+\.)?(?:flush|print_exc|print_stack)\([^()]*\)$|^(?:print|e?println!|e?print!)\(.*$")
        .expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    if !scan.calls.iter().any(|call| call.kind == CallKind::Print) {
        return;
    }
    // Found only when a print gets that far: most files' prints are settled before.
    let printing = std::cell::OnceCell::new();
    for call in &scan.calls {
        if call.kind != CallKind::Print || !unintended(scan, call, &printing) {
            continue;
        }
        let message = format!("print debugging left in the code: `{}`", call.callee);
        findings.push(source.finding(PRINT_DEBUGGING, Severity::Warning, call.start, message, FIX));
    }
}

/// Whether the print `call` is debugging left in, rather than output someone meant.
fn unintended(
    scan: &Scan<'_>,
    call: &Call,
    printing: &std::cell::OnceCell<Vec<std::ops::Range<usize>>>,
) -> bool {
    let source = &scan.source;
    let role = scan.roles.at(call.start);
    let output = match role {
        Role::Library => {
            !looks_like_debugging(scan, call) || behind_output_switch(source, call.start)
        }
        Role::Cli => !marked_as_debugging(scan, call),
        Role::Example | Role::Test => true,
    };
    if output
        || scan.suppressions.intends_print(source, call.start)
        || forwards_arguments(&source.text[call.args.clone()])
        || writes_to_given_stream(source, call)
        || reports_on_stderr(scan, call)
        || is_output(
            source,
            call,
            printing.get_or_init(|| printing_functions(source)),
            to_stderr(source, call),
        )
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
            .is_some_and(|found| settles_to_exit(source, after, &window[..found.start()]));
    // The sensitive check runs first: a print it reported is that one problem.
    let secret = scan.runs(SENSITIVE_DATA)
        && scan
            .secret_calls
            .borrow()
            .binary_search(&call.start)
            .is_ok();
    !exits && !secret
}

/// Whether a print's arguments only forward its caller's own: `...args`, `*args, **kwargs`,
/// `args...`.
fn forwards_arguments(args: &str) -> bool {
    let is_name =
        |text: &str| !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_');
    let args = args.trim();
    if let Some(name) = args.strip_prefix("...") {
        return is_name(name);
    }
    if let Some(name) = args.strip_suffix("...") {
        return is_name(name);
    }
    let mut parts = args.split(',').map(str::trim);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(first), second, None) => {
            first.strip_prefix('*').is_some_and(is_name)
                && second.is_none_or(|second| second.strip_prefix("**").is_some_and(is_name))
        }
        _ => false,
    }
}

/// Whether the code between a print (its closing parenthesis at `from`) and an exit is only
/// closers, comments, flushes and traceback prints.
fn settles_to_exit(source: &crate::source::Source<'_>, from: usize, between: &str) -> bool {
    let code: String = between
        .char_indices()
        .map(|(at, c)| if source.is_code(from + at) { c } else { ' ' })
        .collect();
    code.split(['\n', ';']).all(|statement| {
        let statement = statement.trim().trim_start_matches([')', '}']).trim();
        statement.is_empty() || BEFORE_EXIT.is_match(statement)
    })
}

/// Whether a print to the standard error stream (`eprintln!`, `System.err`, Python's
/// `file=sys.stderr`) tells the user of an error or a warning: its message opens by saying so
/// ("Error: …", "WARNING: …", "deprecated"), or it lies in a caught error's handler that logs
/// nothing (where a logger tells the error, the print beside it is left over).
fn reports_on_stderr(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    if !to_stderr(source, call) {
        return false;
    }
    // The opening word may follow escaped line breaks: `"\nWarning: …"`.
    let says_so = crate::args::literal_bodies(source, call.args.clone())
        .first()
        .is_some_and(|body| {
            let opening = trim_escapes(body).to_ascii_lowercase();
            ["error", "warning", "deprecat", "fatal", "note:", "info:"]
                .iter()
                .any(|word| opening.starts_with(word))
        });
    // On an error path the print is how the error is told, unless a logger there tells it.
    let in_quiet_handler = || {
        scan.blocks()
            .iter()
            .any(|block| block.range.contains(&call.start) && !logs_in(scan, &block.range))
    };
    says_so || in_quiet_handler()
}

/// Whether a log call stands in `range`.
fn logs_in(scan: &Scan<'_>, range: &std::ops::Range<usize>) -> bool {
    scan.calls_in(range.clone())
        .iter()
        .any(|other| matches!(other.kind, CallKind::Log(_)))
}

/// Whether a print writes to the standard error stream: `eprintln!`, `System.err`, Python's
/// `file=sys.stderr`.
fn to_stderr(source: &crate::source::Source<'_>, call: &Call) -> bool {
    let callee: String = call.callee.split_whitespace().collect();
    callee.starts_with("eprint")
        || callee.starts_with("System.err")
        || (source.language == crate::Language::Python
            && TO_STREAM
                .captures(&source.text[call.args.clone()])
                .and_then(|captures| captures.name("stream"))
                .is_some_and(|stream| matches!(stream.as_str(), "sys.stderr" | "sys.__stderr__")))
}

/// Whether a Python print writes to a stream it was given (`file=fh`, `file=self.out`) rather
/// than to the process's stdout or stderr.
pub(super) fn writes_to_given_stream(source: &crate::source::Source<'_>, call: &Call) -> bool {
    source.language == crate::Language::Python
        && TO_STREAM
            .captures(&source.text[call.args.clone()])
            .and_then(|captures| captures.name("stream"))
            .is_some_and(|stream| {
                !matches!(
                    stream.as_str(),
                    "sys.stdout" | "sys.stderr" | "sys.__stdout__" | "sys.__stderr__"
                )
            })
}

#[cfg(test)]
mod tests;
