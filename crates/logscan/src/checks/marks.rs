//! Whether a print looks like debugging rather than a sentence someone meant to show: it says
//! so (`dbg!`, `console.debug`, `printStackTrace`, a message opening with "debug" or "here",
//! a `TODO`/`FIXME`/`XXX` on its line, a comment saying debug just above it, a debug switch
//! around it), or it shows a value under nothing but its own name (`print("x =", x)`,
//! `println!("{:?}", v)`, `eprint!(" key={:?}", self.key)`, Python's `f"{x=}"`). A print of a
//! sentence, or of a bare value (`print(name)`), cannot be told apart from output a library
//! writes on purpose, and is not reported.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::output::behind_debug_switch;
use crate::args::{literal_bodies, mentioned_names};
use crate::calls::Call;
use crate::source::Source;

/// A message that opens by saying it is a debugging line.
static DEBUG_OPENER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(?:debug|here\b|got here\b|xxx\b)").expect("constant pattern compiles")
});
/// A message made only of debug-format placeholders: `{:?}`, `{p:?}`, `{:#?}`.
static DEBUG_FORMAT_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\{[\w.]*:#?\?\}\s*)+$").expect("constant pattern compiles")
});
/// Python's self-documenting f-string field: `{x=}`, `{self.state=!r}`.
static SELF_DOCUMENTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\s*[A-Za-z_][\w.]*\s*=\s*(?:![rsa])?(?::[^{}]*)?\}")
        .expect("constant pattern compiles")
});
/// A label in a message: an identifier followed by `=` or `:`, or standing alone.
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(?P<alone>[A-Za-z_]\w*)\W*$|(?P<label>[A-Za-z_]\w*)\s*[=:]")
        .expect("constant pattern compiles")
});
/// A braced format field: `{}`, `{v:?}`, `{0}`.
static FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{[^{}]*\}").expect("constant pattern compiles"));
/// A comment just above a print that says it is there to debug.
static DEBUG_COMMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:#|//)\s*(?:(?i:debug)|TODO|FIXME|XXX)").expect("constant pattern compiles")
});

/// How far after a print its line is read for a `TODO` comment.
const NOTE_WINDOW_BYTES: usize = 200;

/// Whether the print `call` says it is debugging, or shows a value under its own name.
pub(super) fn looks_like_debugging(scan: &Scan<'_>, call: &Call) -> bool {
    marked_as_debugging(scan, call) || shows_named_value(&scan.source, call)
}

/// Whether the print `call` says it is debugging: `dbg!`, `console.debug`, `printStackTrace`,
/// a message opening with "debug" or "here", a `TODO`/`FIXME`/`XXX` on its line or in a
/// comment just above, or a debug switch around it. Such a print is debugging even in a
/// program's own output code.
pub(super) fn marked_as_debugging(scan: &Scan<'_>, call: &Call) -> bool {
    let source = &scan.source;
    let callee = call.callee.as_str();
    if matches!(callee, "dbg!" | "console.debug") || callee.ends_with("printStackTrace") {
        return true;
    }
    let message = || {
        literal_bodies(source, call.args.clone())
            .first()
            .is_some_and(|body| DEBUG_OPENER.is_match(body))
    };
    let bounds = source.line_bounds(call.start);
    // Only the rest of the line after the call is read, so that a line of many prints stays
    // linear.
    let mut note_end = bounds.end.min(call.args.end + NOTE_WINDOW_BYTES);
    while !source.text.is_char_boundary(note_end) {
        note_end -= 1;
    }
    let from = call.args.end.min(note_end);
    let noted = || {
        ["TODO", "FIXME", "XXX"].iter().any(|note| {
            source.text[from..note_end]
                .match_indices(note)
                .any(|(at, _)| !source.is_code(from + at))
        })
    };
    message()
        || noted()
        || commented_above(source, bounds.start)
        || behind_debug_switch(source, call.start)
}

/// Whether the line just above `line_start` is a comment saying debug, `TODO` or `FIXME`.
fn commented_above(source: &Source<'_>, line_start: usize) -> bool {
    let Some(previous_end) = line_start.checked_sub(1) else {
        return false;
    };
    let previous = source.text[source.line_bounds(previous_end)].trim();
    DEBUG_COMMENT.is_match(previous)
}

/// Whether the print shows values under nothing but their own names: debug-format
/// placeholders alone, a self-documenting f-string field, or a label that is the name of the
/// value printed (`print("vendor =", self.vendor)`, `print("fdmap", fdmap)`).
fn shows_named_value(source: &Source<'_>, call: &Call) -> bool {
    let bodies = literal_bodies(source, call.args.clone());
    if bodies
        .iter()
        .any(|body| DEBUG_FORMAT_ONLY.is_match(body) || SELF_DOCUMENTING.is_match(body))
    {
        return true;
    }
    // Braced fields are values, not labels: `{v:?}` labels nothing.
    let texts: Vec<String> = bodies
        .iter()
        .map(|body| FIELD.replace_all(body, " ").into_owned())
        .collect();
    let labels: Vec<&str> = texts
        .iter()
        .flat_map(|text| LABEL.captures_iter(text))
        .filter_map(|captures| captures.name("alone").or_else(|| captures.name("label")))
        .map(|label| label.as_str())
        .collect();
    if labels.is_empty() {
        return false;
    }
    mentioned_names(source, call.args.clone())
        .iter()
        .filter_map(|name| name.path.rsplit('.').next().map(str::to_owned))
        .any(|last| labels.contains(&last.as_str()))
}
