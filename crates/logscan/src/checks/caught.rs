//! `wrong-level-for-caught-error`: inside an error-handling block, a log call at trace, debug
//! or info level, when that line is all the caught error gets: the block neither passes the
//! error itself on (re-raised, `throw e`, `return err`, `Err(e.into())`, a callback given it,
//! `map_err`), nor logs it at warn or error too, nor is an optional import (`except
//! ImportError`) or a Rust `Err(_)` arm that dismisses the error by name. Returning some other
//! error (`return Err(StatusCode::INTERNAL_SERVER_ERROR)`) drops this one: that is reported.
//! Go's standard `log.Print*` has no level, so it hides nothing.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::blocks::{Block, error_blocks};
use super::role::Role;
use crate::Severity;
use crate::bounds::Kept;
use crate::calls::{Call, CallKind, Level};
use crate::catalog::WRONG_LEVEL_FOR_CAUGHT_ERROR;

const FIX: &str = "log caught errors at warn or error, with the error";
/// How much of a block is read for what it does with the error: more than real handlers
/// hold, little enough that a file of unclosed blocks stays linear.
const MAX_BLOCK_BYTES: usize = 2048;

/// Statements that can hand an error on; each counts when it names the caught error (Python's
/// `raise` always does: the new exception carries the one being handled).
static PASSES_ON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:raise|return|throw|Err|reject|cb|callback|done|next)\b[^;\n]*",
        r"|\b(?:panic!?|bail!)[^;\n]*",
    ))
    .expect("constant pattern compiles")
});
/// The name a block binds its error to, per opener; `_` dismisses it.
static BOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bas\s+(?P<python>\w+)\s*:|\bcatch\s*\((?P<catch>[^)]*)\)|\b(?P<go>\w*(?:err|Err)\w*)\s*!=\s*nil",
        r"|\bErr\s*\((?P<rust>(?:[^()]|\([^()]*\))*)\)",
    ))
    .expect("constant pattern compiles")
});
/// Block openers that are deliberate by themselves: the error goes on through `map_err`.
static PASSING_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\.\s*(?:map_err|inspect_err)\b").expect("constant pattern compiles")
});
static OPTIONAL_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*except\b[^:]*\b(?:ImportError|ModuleNotFoundError)\b")
        .expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    let blocks = error_blocks(source);
    let mut deliberate: Vec<Option<bool>> = vec![None; blocks.len()];
    for call in &scan.calls {
        if !wrong_level(scan, call, &blocks, &mut deliberate) {
            continue;
        }
        let CallKind::Log(level) = call.kind else {
            continue;
        };
        let message = format!(
            "caught error logged at {} level by `{}`",
            level.name(),
            call.callee
        );
        findings.push(source.finding(
            WRONG_LEVEL_FOR_CAUGHT_ERROR,
            Severity::Warning,
            call.start,
            message,
            FIX,
        ));
    }
}

/// Whether `call` is a caught error's only, low-level trace. `deliberate` memoizes, per block,
/// whether the block handles the error on purpose.
pub(super) fn wrong_level(
    scan: &Scan<'_>,
    call: &Call,
    blocks: &[Block],
    deliberate: &mut [Option<bool>],
) -> bool {
    let CallKind::Log(level) = call.kind else {
        return false;
    };
    if !level.is_low()
        || matches!(scan.roles.at(call.start), Role::Test | Role::Example)
        || scan.suppressions.silences(&scan.source, call.start)
    {
        return false;
    }
    // Blocks come sorted by start: the innermost block holding the call is the latest-starting
    // one that holds it.
    let before = blocks.partition_point(|block| block.range.start <= call.start);
    let innermost = blocks[..before]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, block)| block.range.contains(&call.start));
    let Some((index, block)) = innermost else {
        return false;
    };
    !*deliberate[index].get_or_insert_with(|| handled(scan, block))
}

/// Whether `block` does something deliberate with its error besides the low-level line.
fn handled(scan: &Scan<'_>, block: &Block) -> bool {
    let source = &scan.source;
    let header = &source.text[block.header.clone()];
    let header_line = &source.text[source.line_bounds(block.header.start)];
    if PASSING_HEADER.is_match(header) || OPTIONAL_IMPORT.is_match(header_line) {
        return true;
    }
    let error = bound_name(source, block);
    if error.as_deref() == Some("_") {
        return true;
    }
    let mut end = block.range.end.min(block.range.start + MAX_BLOCK_BYTES);
    while !source.text.is_char_boundary(end) {
        end -= 1;
    }
    let body = &source.text[block.range.start..end];
    let names_error = |span: std::ops::Range<usize>| {
        error
            .as_deref()
            .is_some_and(|name| names_in_code(source, span, name))
    };
    let passes_on = PASSES_ON.find_iter(body).any(|statement| {
        source.is_code(block.range.start + statement.start())
            && (statement.as_str().starts_with("raise")
                || names_error(
                    block.range.start + statement.start()..block.range.start + statement.end(),
                ))
    });
    let first = scan
        .calls
        .partition_point(|other| other.start < block.range.start);
    passes_on
        || scan.calls[first..]
            .iter()
            .take_while(|other| other.start < end)
            .any(|other| {
                matches!(other.kind, CallKind::Log(Level::Warn | Level::Error))
                    && names_error(other.args.clone())
            })
}

/// The name the error is bound to in `block`'s opener, if it has one.
fn bound_name(source: &crate::source::Source<'_>, block: &Block) -> Option<String> {
    let line = source.line_bounds(block.header.start);
    // The opener's line, and for `if let Err(…)` the pattern that follows the parenthesis.
    let end = source.text.len().min(line.end.max(block.header.end + 256));
    let mut end = end;
    while !source.text.is_char_boundary(end) {
        end -= 1;
    }
    let captures = BOUND.captures(&source.text[block.header.start.min(line.start)..end])?;
    let last_word = |text: &str| {
        let text = text.split(':').next().unwrap_or_default();
        text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .rfind(|word| !word.is_empty() && *word != "ref" && *word != "mut")
            .map(str::to_owned)
    };
    if let Some(name) = captures.name("python").or(captures.name("go")) {
        return Some(name.as_str().to_owned());
    }
    captures
        .name("catch")
        .or(captures.name("rust"))
        .and_then(|pattern| last_word(pattern.as_str()))
}

/// Whether `word` occurs as a whole identifier in the code (not the strings) of `span`.
fn names_in_code(
    source: &crate::source::Source<'_>,
    span: std::ops::Range<usize>,
    word: &str,
) -> bool {
    let text = &source.text[span.clone()];
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        source.is_code(span.start + at)
            && !before.is_some_and(is_ident)
            && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests;
