//! `log-without-context`: a log call at warn or error level (or Go's unleveled `log.Print*`)
//! whose only argument is a short constant message that says something went wrong and no more
//! (`"Error"`, `"failed"`, `"oops"`, `"request failed"`), with no placeholder, interpolation,
//! field or extra argument that would say what happened to what.
//! Not reported: trace, debug and info lines (breadcrumbs and progress, read next to their
//! neighbours: `"Pool recreating"`), a short warning that names its state rather than a
//! failure (`"Queue full"`), headings that end in `:` or are banners in capitals
//! (`"CONFIGURATION ERROR"`) and blank lines, a message that only
//! names the code it is in (`Reporter.starting()`), code inside a tracing span
//! (`#[instrument]`), tests and examples, a message naming a path, a line behind a debug switch
//! (a breadcrumb), a line right before an error is raised or returned (`break Err(…)`, Go's
//! `return fmt.Errorf(…)`) or whose next line logs the error, and a line in a caught error's
//! handler that raises or returns an error after it or tells it in another warn or error call
//! (the details travel on). A caught error's wrong level is a debug line, so the two rules
//! never report one call twice.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::output::behind_debug_switch;
use super::role::Role;
use super::words::is_error_value;
use crate::Severity;
use crate::args::{mentioned_names, sole_literal, takes_values};
use crate::bounds::Kept;
use crate::calls::{Call, CallKind, Level};
use crate::catalog::LOG_WITHOUT_CONTEXT;

const FIX: &str = "say what failed and add the ids, values or error needed to act on it";
/// Longer messages usually say something; these limits catch "Error", "here", "request failed".
const MAX_WORDS: usize = 3;
const MAX_CHARS: usize = 40;

/// A message that names the code it is in (`Reporter.starting()`, `Connection::poll`): a
/// breadcrumb saying where, read with the lines around it.
static BREADCRUMB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)+(?:\(\))?$|^[A-Za-z_]\w*\(\)$")
        .expect("constant pattern compiles")
});
/// A message that says something went wrong and nothing else worth reading on its own.
static GENERIC_FAILURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:fail\w*|errors?|exceptions?|oops\w*|boom|went wrong|problem|crash\w*|fatal|",
        r"unable|cannot|can ?not|can't|could ?n[o']t|unexpected)\b",
    ))
    .expect("constant pattern compiles")
});
/// A statement that hands an error on: `raise`, `throw`, `panic!`, `return Err(…)`, `break
/// Err(…)`, Go's `return fmt.Errorf(…)`, `return errors.New(…)`, `return nil, err`.
static HANDS_ON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)(?-u:\b)(?:(?:raise|throw|panic!|(?:return|break)\s+Err)(?-u:\b)|",
        r"return\s+(?:fmt\.Errorf|errors\.\w+)\(|return\s+(?:\w+,\s*)*err\s*$)",
    ))
    .expect("constant pattern compiles")
});
/// Rust functions whose body runs in a span that carries their arguments.
static INSTRUMENTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"#\s*\[\s*(?:tracing\s*::\s*)?instrument\b").expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    let spans = instrumented(scan);
    for call in &scan.calls {
        // Python's `exception()` attaches the traceback: that is context.
        let CallKind::Log(level) = call.kind else {
            continue;
        };
        if !matches!(level, Level::Warn | Level::Error | Level::Unleveled)
            || call.callee.ends_with(".exception")
            || matches!(scan.roles.at(call.start), Role::Test | Role::Example)
            || scan.suppressions.silences(source, call.start)
            || spans.iter().any(|span| span.contains(&call.start))
        {
            continue;
        }
        let Some(literal) = sole_literal(source, call.args.clone()) else {
            continue;
        };
        let body = &source.text[literal.body.clone()];
        let trimmed = trim_escapes(body);
        let short =
            body.split_whitespace().count() <= MAX_WORDS && body.chars().count() <= MAX_CHARS;
        if !short
            || !GENERIC_FAILURE.is_match(trimmed)
            || trimmed.is_empty()
            || trimmed.ends_with(':')
            || is_banner(trimmed)
            || BREADCRUMB.is_match(trimmed)
        {
            continue;
        }
        if takes_values(source.language, literal, body)
            || (names_a_place(trimmed) && !in_a_handler(scan, call))
            || in_a_handling_block(scan, call)
            || hands_on_next(scan, call)
            || behind_debug_switch(source, call.start)
        {
            continue;
        }
        let message = format!("log message \"{body}\" carries no context");
        findings.push(source.finding(
            LOG_WITHOUT_CONTEXT,
            Severity::Info,
            call.start,
            message,
            FIX,
        ));
    }
}

/// Whether a message names a file, a path or a thing of the code (`"Couldn't find
/// ~/.zephyr.subs!"`, `"Unexpected event did_read_rssi"`, `"bad cacheEntry"`): outside a
/// caught error's handler, that is the context an operator acts on.
fn names_a_place(message: &str) -> bool {
    let code_name = |word: &str| {
        let inner = word.trim_matches(|c: char| !c.is_alphanumeric());
        inner.contains('_')
            || inner.contains("::")
            || inner
                .chars()
                .zip(inner.chars().skip(1))
                .any(|(before, after)| before.is_lowercase() && after.is_uppercase())
    };
    message.contains(['/', '~', '\\']) || message.split_whitespace().any(code_name)
}

/// Whether the statements right after `call` (on its line or the next two) hand an error on
/// (`error!("signature verification failed!"); return Err(…)`), or the next line of its block
/// logs the error (`warning("XMPP send failed.")` then `debug("XMPP Exception: %s", e)`): the
/// failure travels with them, and the line is their headline.
fn hands_on_next(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    let line = source.line_index(call.args.end);
    let starts = source.line_starts();
    let end = starts.get(line + 3).copied().unwrap_or(source.text.len());
    let after = call.args.end..end;
    let hands_on = HANDS_ON
        .find_iter(&source.text[after.clone()])
        .any(|found| source.is_code(after.start + found.start()));
    let next_line = starts.get(line + 1).copied().unwrap_or(source.text.len())
        ..starts.get(line + 2).copied().unwrap_or(source.text.len());
    hands_on
        || scan.calls_in(next_line).iter().any(|next| {
            matches!(next.kind, CallKind::Log(_))
                && source.indent(next.start) == source.indent(call.start)
                && mentioned_names(source, next.args.clone())
                    .iter()
                    .any(|name| {
                        is_error_value(&name.value)
                            || name.path.split('.').next().is_some_and(is_error_value)
                    })
        })
}

/// Whether `call` stands in a caught error's handler: there the context missing is the error,
/// whatever place the message names (`"Error running spider_closed_callback"`).
fn in_a_handler(scan: &Scan<'_>, call: &Call) -> bool {
    scan.blocks()
        .iter()
        .any(|block| block.range.contains(&call.start))
}

/// Whether `call` stands in a caught error's handler that deals with the error beyond it:
/// raises or returns an error after it, or tells it in another call at warn or error. The line
/// then announces a failure whose details travel on (`log.error("Failed netstat")` before
/// `raise`, before `log.exception(err)`).
fn in_a_handling_block(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    scan.blocks()
        .iter()
        .filter(|block| block.range.contains(&call.start))
        .any(|block| {
            let after = call.args.end.min(block.range.end)..block.range.end;
            let raises = HANDS_ON
                .find_iter(&source.text[after.clone()])
                .any(|found| source.is_code(after.start + found.start()));
            raises
                || scan.calls_in(block.range.clone()).iter().any(|other| {
                    other.start != call.start
                        && matches!(other.kind, CallKind::Log(Level::Warn | Level::Error))
                })
        })
}

/// Whether a message is a banner in capitals of more than one word (`"CONFIGURATION ERROR"`,
/// `"UNCAUGHT EXCEPTION"`): a heading over the lines that follow it, as one ending in `:` is.
fn is_banner(message: &str) -> bool {
    message.split_whitespace().nth(1).is_some()
        && message.chars().any(char::is_alphabetic)
        && !message.chars().any(char::is_lowercase)
}

/// `body` without surrounding whitespace or escaped line breaks (`"Cache contents:\n"`).
pub(super) fn trim_escapes(body: &str) -> &str {
    let mut text = body.trim();
    while let Some(rest) = ["\\n", "\\r", "\\t"].iter().find_map(|escape| {
        text.strip_suffix(escape)
            .or_else(|| text.strip_prefix(escape))
    }) {
        text = rest.trim();
    }
    text
}

/// The bodies of the `#[instrument]`ed functions of a Rust file.
fn instrumented(scan: &Scan<'_>) -> Vec<std::ops::Range<usize>> {
    let source = &scan.source;
    if source.language != crate::Language::Rust || !source.text.contains("instrument") {
        return Vec::new();
    }
    INSTRUMENTED
        .find_iter(source.text)
        .filter(|found| source.is_code(found.start()))
        .filter_map(|found| {
            super::items::next_block(source, super::items::attribute_end(source, found.start()))
        })
        .collect()
}

#[cfg(test)]
mod tests;
