//! Prints whose output is the point, wherever they are: a blank line (`print()`), a line of
//! a protocol that stdout carries (a build script's `cargo:` directives, a CGI handler's
//! `Content-Type:` header), and a print to stdout inside a function named for printing
//! (`pprint`, `print_commands`, `show_help`) unless its name says it is for debugging. Also
//! whether a print stands under a debug switch (`if DEBUG:`), which makes it debugging even in
//! a program's own code.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::items::next_block;
use crate::Language;
use crate::calls::Call;
use crate::source::Source;

/// What a line of stdout's protocol opens with: cargo's build-script directives and the
/// headers of a CGI response.
static PROTOCOL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:cargo::?[a-z]|(?i:content-type|content-length|status|location):)")
        .expect("constant pattern compiles")
});
/// A function or method definition, its name in group `name`.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+|export[ \t]+)?(?:async[ \t]+)?(?:def|fn|function|func(?:[ \t]*\([^)\n]*\))?)[ \t]+(?P<name>\w+)",
    )
    .expect("constant pattern compiles")
});
/// An `if` whose condition names a debug switch.
static DEBUG_SWITCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\}\s*else\s+)?(?:el)?if\b.*(?i:debug)").expect("constant pattern compiles")
});
/// A condition on a log level (`if _console_log_level() == "debug":`): a logger's own console
/// output, chosen by whoever set the level.
static LOG_LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)log_?level|\blevel\s*[!=]=\s*['\x22]|isEnabledFor")
        .expect("constant pattern compiles")
});
/// A condition that turns on output for the person running the program.
static OUTPUT_SWITCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\}\s*else\s+)?(?:el)?if\b.*(?i:verbose|show_|progress|quiet|echo)")
        .expect("constant pattern compiles")
});
/// How far above a print its debug switch may be, in lines.
const MAX_LINES_UNDER_SWITCH: usize = 20;
/// How the names of functions that print for their caller begin.
const PRINTING_NAMES: [&str; 6] = ["print", "pprint", "pretty", "show", "display", "dump"];

/// Whether the print `call` writes output someone asked for rather than debugging.
pub(super) fn is_output(
    source: &Source<'_>,
    call: &Call,
    printing: &[Range<usize>],
    stderr: bool,
) -> bool {
    let args = source.text[call.args.clone()].trim();
    let bodies = crate::args::literal_bodies(source, call.args.clone());
    // `printStackTrace()` and `dbg!()` print something with no argument.
    let shows_state = call.callee.ends_with("printStackTrace") || call.callee == "dbg!";
    let blank = !stderr
        && !shows_state
        && (args.is_empty()
            || crate::args::sole_literal(source, call.args.clone())
                .is_some_and(|literal| literal.body.is_empty()));
    let protocol = bodies
        .first()
        .is_some_and(|body| PROTOCOL_LINE.is_match(body.trim_start()));
    // The bodies are disjoint and sorted: the one that may hold the call is the last to start
    // before it.
    let before = printing.partition_point(|body| body.start <= call.start);
    let in_printer = !stderr
        && before
            .checked_sub(1)
            .is_some_and(|last| printing[last].contains(&call.start));
    blank || protocol || in_printer
}

/// Whether the print at `at` is the first statements under an `if` whose condition names a
/// debug switch (`if DEBUG:`, `if self.debug {`): output someone turns on to debug.
pub(super) fn behind_debug_switch(source: &Source<'_>, at: usize) -> bool {
    switch_above(source, at)
        .is_some_and(|header| DEBUG_SWITCH.is_match(header) && !LOG_LEVEL.is_match(header))
}

/// Whether the print at `at` is under an `if` whose condition names an output switch
/// (`if verbose:`, `elif show_jid:`, `if self.progress`): output its user turned on.
pub(super) fn behind_output_switch(source: &Source<'_>, at: usize) -> bool {
    switch_above(source, at).is_some_and(|header| OUTPUT_SWITCH.is_match(header))
}

/// The line of the block the code at `at` stands in, if it is within
/// [`MAX_LINES_UNDER_SWITCH`] lines above.
fn switch_above<'s>(source: &'s Source<'_>, at: usize) -> Option<&'s str> {
    let starts = source.line_starts();
    let line = source.line_index(at);
    let indent = |index: usize| {
        let text = &source.text[source.line_bounds(starts[index])];
        (source.indent(starts[index]), text.trim())
    };
    let own = source.indent(at);
    (line.saturating_sub(MAX_LINES_UNDER_SWITCH)..line)
        .rev()
        .map(indent)
        .find(|&(depth, text)| depth < own && !text.is_empty())
        .map(|(_, header)| header)
}

/// The bodies of the functions and methods of `source` named for printing (Python's and
/// Rust's, Go's `func (e *Entry) PrettyPrint()`, JavaScript's `function printTree(`), merged
/// where they nest or touch, in order.
pub(super) fn printing_functions(source: &Source<'_>) -> Vec<Range<usize>> {
    if source.language == Language::Java {
        return Vec::new();
    }
    let suite_ends = match source.language {
        Language::Python => super::blocks::suite_ends(source),
        _ => Vec::new(),
    };
    DEFINITION
        .captures_iter(source.text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            let name = captures.name("name")?.as_str().to_ascii_lowercase();
            let name = name.trim_start_matches('_');
            let printing = PRINTING_NAMES.iter().any(|prefix| name.starts_with(prefix))
                && !name.contains("debug");
            if !printing || !source.is_code(whole.end() - 1) {
                return None;
            }
            match source.language {
                Language::Python => suite_ends
                    .get(source.line_index(whole.end()))
                    .map(|&end| whole.start()..end),
                _ => next_block(source, whole.end()),
            }
        })
        .fold(Vec::new(), |mut merged: Vec<Range<usize>>, body| {
            match merged.last_mut() {
                Some(last) if body.start <= last.end => last.end = last.end.max(body.end),
                _ => merged.push(body),
            }
            merged
        })
}
