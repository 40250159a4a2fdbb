//! `log-without-context`: a log call at info level or above (or Go's unleveled `log.Print*`)
//! whose only argument is a short constant message such as `"Error"` or `"done"`, with no
//! placeholder, interpolation, field or extra argument that would say what happened to what.
//! Not reported: trace and debug lines (step-by-step breadcrumbs, read next to their
//! neighbours), headings that end in `:` and blank lines (the lines after them carry the
//! content), a message that only names the code it is in (`Reporter.starting()`), code inside a tracing span (`#[instrument]`), tests and examples, and a call
//! already reported as a caught error's wrong level (one finding per problem).

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::caught::wrong_level;
use super::role::Role;
use crate::Severity;
use crate::args::{sole_literal, takes_values};
use crate::bounds::Kept;
use crate::calls::CallKind;
use crate::catalog::{LOG_WITHOUT_CONTEXT, WRONG_LEVEL_FOR_CAUGHT_ERROR};

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
/// Rust functions whose body runs in a span that carries their arguments.
static INSTRUMENTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"#\s*\[\s*(?:tracing\s*::\s*)?instrument\b").expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    let spans = instrumented(scan);
    let blocks = if scan.runs(WRONG_LEVEL_FOR_CAUGHT_ERROR) {
        scan.blocks()
    } else {
        &[]
    };
    for call in &scan.calls {
        // Python's `exception()` attaches the traceback: that is context.
        let CallKind::Log(level) = call.kind else {
            continue;
        };
        if level.is_verbose()
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
        if !short || trimmed.is_empty() || trimmed.ends_with(':') || BREADCRUMB.is_match(trimmed) {
            continue;
        }
        if takes_values(source.language, literal, body) || wrong_level(scan, call, blocks) {
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

/// `body` without surrounding whitespace or escaped line breaks (`"Cache contents:\n"`).
fn trim_escapes(body: &str) -> &str {
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
