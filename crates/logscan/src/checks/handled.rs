//! Whether an error-handling block deals with its error on purpose, so that a low-level line in
//! it is a breadcrumb rather than the only trace of a failure: the error is passed on (Python's
//! `raise`; `throw e`, `return err`, `Err(e.into())`, a callback given it), kept or given to
//! other code outside the log and print calls (`first = Some(e)`), logged at warn or
//! error in the same block, dismissed by name (`Err(_)`, `_e`, a pattern for one specific
//! variant such as `Err(Error::Reset(..))`), dispatched on by kind (`match e {`), only looked
//! at (`match &result`: the result goes on), retried after a back-off or sleep, an optional import, or the line itself
//! says so ("ignoring …", "… not available", "falling back …").

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::blocks::Block;
use crate::Language;
use crate::args::literal_bodies;
use crate::calls::{Call, CallKind, Level};
use crate::source::Source;

/// How much of a block is read for what it does with the error: more than real handlers
/// hold, little enough that a file of unclosed blocks stays linear.
const MAX_BLOCK_BYTES: usize = 1024;
/// How far after a block a retry is looked for.
const RETRY_WINDOW_BYTES: usize = 200;

/// Statements that can hand an error on, in languages where a statement ends at its line.
static PASSES_ON_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:raise|return|throw|panic|reject|cb|callback|done|next)\b[^\n]*")
        .expect("constant pattern compiles")
});
/// The same where statements end at `;` (or a Rust tail expression at its block's end).
static PASSES_ON_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:return|throw|Err|reject|cb|callback|done|next)\b[^;]{0,240}",
        r"|\b(?:panic!|bail!)[^;]{0,240}",
    ))
    .expect("constant pattern compiles")
});
/// The name a block binds its error to, per opener.
static BOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bas\s+(?P<python>\w+)\s*:|\bcatch\s*\((?P<catch>[^)]*)\)",
        r"|\b(?P<go>\w*(?:err|Err)\w*)\s*!=\s*nil",
        r"|\bErr\s*\((?P<rust>(?:[^()]|\([^()]*\))*)\)",
        r"|^\.\s*\w+\s*\(\s*(?:move\s+)?\|\s*(?:mut\s+)?(?P<closure>\w+)",
    ))
    .expect("constant pattern compiles")
});
/// Openers that pass the error on by themselves (`map_err` returns the new error).
static PASSING_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\.\s*(?:map_err|inspect_err)\b").expect("constant pattern compiles")
});
static OPTIONAL_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*except\b[^:]*\b(?:ImportError|ModuleNotFoundError)\b")
        .expect("constant pattern compiles")
});
static RETRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b\w*(?:backoff|sleep)\w*\b").expect("constant pattern compiles")
});
/// Messages that say the failure is dealt with on purpose.
static DELIBERATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:ignor(?:e|es|ed|ing)|skip(?:s|ped|ping)?|discard(?:s|ed|ing)?|fall(?:s|ing)? back|",
        r"fallback|not available|unavailable|not supported|unsupported|retry(?:ing)?|will retry|",
        r"halt(?:s|ed|ing)?|disabl(?:e|es|ed|ing))\b",
    ))
    .expect("constant pattern compiles")
});

/// Whether the message of `call` says it deals with the failure on purpose.
pub(super) fn deliberate_message(source: &Source<'_>, call: &Call) -> bool {
    literal_bodies(source, call.args.clone())
        .iter()
        .any(|body| DELIBERATE.is_match(body))
}

/// Whether `block` does something deliberate with its error besides the low-level line.
pub(super) fn handled(scan: &Scan<'_>, block: &Block) -> bool {
    let source = &scan.source;
    let header = &source.text[block.header.clone()];
    let header_line = &source.text[source.line_bounds(block.header.start)];
    if PASSING_HEADER.is_match(header) || OPTIONAL_IMPORT.is_match(header_line) {
        return true;
    }
    let (error, bound_at) = bound_name(source, block).unzip();
    if error.as_deref().is_some_and(|name| name.starts_with('_')) {
        return true;
    }
    let body = block.range.start
        ..char_floor(
            source,
            block.range.end.min(block.range.start + MAX_BLOCK_BYTES),
        );
    let names_error = |span: Range<usize>| match error.as_deref() {
        Some(name) => names_in_code(source, span, name),
        None => true,
    };
    let logged_high = || {
        scan.calls_in(body.clone()).iter().any(|other| {
            matches!(other.kind, CallKind::Log(Level::Warn | Level::Error))
                && names_error(other.args.clone())
        })
    };
    // The few bytes after a braced block read whole: where a retry loop backs off and goes
    // round. (Past a Python suite come its sibling `except` clauses instead.)
    let retried = || {
        let after_end = if body.end == block.range.end && source.language != Language::Python {
            char_floor(source, source.text.len().min(body.end + RETRY_WINDOW_BYTES))
        } else {
            body.end
        };
        RETRY
            .find_iter(&source.text[body.start..after_end])
            .any(|found| source.is_code(body.start + found.start()))
    };
    // Cheapest first: most blocks are settled by one of the early answers.
    logged_high()
        || passes_on(source, body.clone(), error.as_deref())
        || used_beyond_calls(
            scan,
            bound_at.unwrap_or(0).max(body.start)..body.end,
            error.as_deref(),
        )
        || dispatched(source, body.clone(), error.as_deref())
        || retried()
        || inspected(source, block)
}

/// Whether the block dispatches on the error's kinds (`match e {`, `switch (err)`, `switch
/// err.(type)`): each kind is then handled on purpose.
fn dispatched(source: &Source<'_>, body: Range<usize>, error: Option<&str>) -> bool {
    let Some(name) = error else {
        return false;
    };
    let text = &source.text[body.clone()];
    ["match ", "switch (", "switch "].iter().any(|keyword| {
        text.match_indices(keyword).any(|(at, _)| {
            let rest = text[at + keyword.len()..].trim_start();
            source.is_code(body.start + at)
                && rest.starts_with(name)
                && !rest[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    })
}

/// Whether a Rust arm belongs to a `match &result` (or `if let Err(e) = &result`): the result
/// is only looked at, and goes on to whoever holds it.
fn inspected(source: &Source<'_>, block: &Block) -> bool {
    if source.language != Language::Rust {
        return false;
    }
    let header = &source.text[block.header.clone()];
    if header.starts_with("if") {
        let line = &source.text[source.line_bounds(block.header.start)];
        return line
            .split_once('=')
            .is_some_and(|(_, scrutinee)| scrutinee.trim_start().starts_with('&'));
    }
    // The brace that opens the arm's `match`: the nearest unclosed one before the arm.
    let bytes = source.text.as_bytes();
    let floor = block.header.start.saturating_sub(MAX_BLOCK_BYTES);
    let mut depth = 0usize;
    for offset in (floor..block.header.start).rev() {
        if !source.is_code(offset) {
            continue;
        }
        match bytes[offset] {
            b'}' => depth += 1,
            b'{' if depth > 0 => depth -= 1,
            b'{' => {
                let line = &source.text[source.line_bounds(offset).start..offset];
                return line
                    .rsplit_once("match")
                    .is_some_and(|(_, scrutinee)| scrutinee.trim_start().starts_with('&'));
            }
            _ => {}
        }
    }
    false
}

/// Whether a statement in `body` hands the error named `error` on (any `raise` does).
fn passes_on(source: &Source<'_>, body: Range<usize>, error: Option<&str>) -> bool {
    let statements: &Regex = match source.language {
        Language::Python | Language::Go => &PASSES_ON_LINE,
        _ => &PASSES_ON_STATEMENT,
    };
    statements
        .find_iter(&source.text[body.clone()])
        .any(|statement| {
            let span = body.start + statement.start()..body.start + statement.end();
            source.is_code(span.start)
                && (statement.as_str().starts_with("raise")
                    || error.is_some_and(|name| names_in_code(source, span, name)))
        })
}

/// Whether the error named `error` is used in `body` outside every log and print call: stored
/// (`err = Some(e)`, `*this.error = Some(err.into())`), wrapped into what the block returns
/// (`ready(Err(err))`, `Error::tx(err)`), or given to other code; then the line is a breadcrumb.
fn used_beyond_calls(scan: &Scan<'_>, body: Range<usize>, error: Option<&str>) -> bool {
    let Some(name) = error else {
        return false;
    };
    if body.is_empty() {
        return false;
    }
    let source = &scan.source;
    let first = scan.calls.partition_point(|call| call.start < body.start);
    let in_call = |at: usize| {
        scan.calls[first..]
            .iter()
            .take_while(|call| call.start <= at)
            .any(|call| (call.start..call.args.end).contains(&at))
    };
    // A condition only looks at the error (`if err instanceof Timeout`): the branch it opens
    // is read for itself, and the code after it still has the error to deal with.
    let in_condition = |at: usize| {
        let statement = source.text[source.line_bounds(at).start..at]
            .trim_start()
            .trim_start_matches(['}', ' ']);
        ["if ", "if(", "elif ", "else if", "while ", "while("]
            .iter()
            .any(|keyword| statement.starts_with(keyword))
    };
    let text = &source.text[body.clone()];
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        source.is_code(body.start + at)
            && !before.is_some_and(|c| is_ident(c) || c == '.')
            && !after.is_some_and(is_ident)
            && !in_call(body.start + at)
            && !in_condition(body.start + at)
    })
}

/// The name the error is bound to by `block`'s opener, and where the binding ends; `_` for a
/// pattern that names one specific variant (`Err(Error::Reset(..))`,
/// `Err(httparse::Error::Version)`).
fn bound_name(source: &Source<'_>, block: &Block) -> Option<(String, usize)> {
    let line = source.line_bounds(block.header.start);
    // The opener's line, and for `if let Err(…)` the pattern that follows the parenthesis.
    let end = char_floor(
        source,
        source.text.len().min(line.end.max(block.header.end + 256)),
    );
    let captures = BOUND.captures(&source.text[block.header.start..end])?;
    let bound_at = block.header.start + captures.get(0)?.end();
    let plain = captures
        .name("python")
        .or(captures.name("go"))
        .or(captures.name("closure"));
    if let Some(name) = plain {
        return Some((name.as_str().to_owned(), bound_at));
    }
    if let Some(pattern) = captures.name("rust") {
        let pattern = pattern.as_str().trim();
        if pattern.contains("::") || pattern.starts_with(char::is_uppercase) {
            return Some(("_".to_owned(), bound_at));
        }
    }
    let pattern = captures.name("catch").or(captures.name("rust"))?.as_str();
    let pattern = pattern.split(':').next().unwrap_or_default();
    pattern
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .rfind(|word| !word.is_empty() && *word != "ref" && *word != "mut")
        .map(|name| (name.to_owned(), bound_at))
}

/// Whether `word` occurs as a whole identifier in the code (not the strings) of `span`.
fn names_in_code(source: &Source<'_>, span: Range<usize>, word: &str) -> bool {
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

/// `offset`, moved back to a character boundary.
fn char_floor(source: &Source<'_>, mut offset: usize) -> usize {
    while !source.text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
