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
use crate::args::{PLACEHOLDER, literal_bodies, mentioned_names};
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
/// What may stand between a label and its value: `x = `, `x: `, `x=%r, y=%r`, and the
/// backslash of an escape (`"x=%r\\n"`).
const LABEL_MARKS: &str = " =:,\\";
/// How many words a message of labels may have: `config error: {error}`.
const MAX_LABEL_WORDS: usize = 4;
/// A word marked as a label: `x =`, `x:`.
static LABELLED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\w+)\s*[=:]").expect("constant pattern compiles"));
/// A comment just above a print that says it is there to debug, or is to go (`# TODO remove`);
/// a `TODO` about something else (`// TODO: tmux popup for Nu`) says nothing of the print.
static DEBUG_COMMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:#|//)\s*(?:(?i:debug)|(?:TODO|FIXME|XXX)\b.*(?i:remove|delete|debug|temporar|logging|logger))")
        .expect("constant pattern compiles")
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
/// placeholders alone, a self-documenting f-string field, or labels that are the names of the
/// values printed, in a few words (`print("vendor =", self.vendor)`, `"id=" + id`,
/// `println!("order = {:?}", order)`, `"config error: {error}"`, `print("fdmap", fdmap)`). A
/// message without such a label (`"Pulling", ref`) is a sentence someone wrote for a reader.
fn shows_named_value(source: &Source<'_>, call: &Call) -> bool {
    let bodies = literal_bodies(source, call.args.clone());
    if bodies
        .iter()
        .any(|body| DEBUG_FORMAT_ONLY.is_match(body) || SELF_DOCUMENTING.is_match(body))
    {
        return true;
    }
    // A string looked up or passed to a call inside the arguments (`k["pool"]`, `_("Host")`)
    // is a key or a text, no label.
    let labels: Vec<&str> = source
        .literals_in(call.args.clone())
        .iter()
        .filter(|literal| {
            let before = source.text[call.args.start..literal.span.start].trim_end();
            !before.ends_with(['[', '('])
        })
        .map(|literal| &source.text[literal.body.clone()])
        .collect();
    let printed: Vec<String> = mentioned_names(source, call.args.clone())
        .iter()
        .filter_map(|name| name.path.rsplit('.').next().map(str::to_owned))
        .collect();
    if printed.is_empty() || labels.is_empty() {
        return false;
    }
    // Braced fields and placeholders are values, not labels: `{v:?}` labels nothing.
    let text = labels
        .iter()
        .map(|body| PLACEHOLDER.replace_all(body, " "))
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .collect();
    let plain = text
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || LABEL_MARKS.contains(c));
    let named = |word: &str| printed.iter().any(|name| name == word);
    plain
        && words.len() <= MAX_LABEL_WORDS
        && (matches!(words.as_slice(), [only] if named(only))
            || LABELLED.captures_iter(&text).any(|found| named(&found[1])))
}
