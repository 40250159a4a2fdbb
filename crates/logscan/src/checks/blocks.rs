//! The error-handling blocks of a file, per language: `catch` blocks and `.catch(…)` handlers,
//! Go's `if err != nil {…}`, Python's `except:` suites, and Rust's `Err(e) =>` arms,
//! `if let Err(e)` blocks and error closures (`map_err(|e| …)`). Brace depth (indentation for
//! Python) over the lexed code is enough; this is not a parser.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::Language;
use crate::source::Source;

/// How a pattern's match leads to the block it opens.
#[derive(Debug, Clone, Copy)]
enum Opening {
    /// The block is inside the bracket matched by group `open`.
    Bracket,
    /// A match arm (guard allowed): the block is the expression after `=>` (the match's end).
    Arm,
    /// `if let Err(…) = …`: the block is the first `{…}` after the `Err(…)` pattern in `open`.
    IfLet,
    /// Python's `except`, at group `open`: its suite is the lines indented deeper.
    Suite,
}

const PATTERNS: &[(&[Language], Opening, &str)] = &[
    (
        RUST,
        Opening::Arm,
        r"\bErr\s*\((?:[^()]|\([^()]*\))*\)(?:\s+if\b[^\n]*?)?\s*=>",
    ),
    (RUST, Opening::IfLet, r"\bif\s+let\s+Err\s*(?P<open>\()"),
    (
        RUST,
        Opening::Bracket,
        r"\.\s*(?:map_err|inspect_err|or_else|unwrap_or_else)\s*(?P<open>\()\s*(?:move\s+)?\|\s*[^|\s]",
    ),
    (
        JAVA,
        Opening::Bracket,
        r"\bcatch\s*\([^)]*\)\s*(?P<open>\{)",
    ),
    (
        SCRIPT,
        Opening::Bracket,
        r"\bcatch\s*(?:\([^)]*\))?\s*(?P<open>\{)",
    ),
    (SCRIPT, Opening::Bracket, r"\.\s*catch\s*(?P<open>\()"),
    (
        GO,
        Opening::Bracket,
        r"\bif\b[^{\n]*\b\w*(?:err|Err)\w*\s*!=\s*nil\b[^{\n]*(?P<open>\{)",
    ),
    (PYTHON, Opening::Suite, r"(?m)^[ \t]*(?P<open>except)\b"),
];
/// How far an unbraced match arm, or the scrutinee of an `if let`, is read: further than any
/// real one, and short enough that a hostile file of open arms stays linear.
const MAX_EXPRESSION_BYTES: usize = 2048;

const RUST: &[Language] = &[Language::Rust];
const JAVA: &[Language] = &[Language::Java];
const PYTHON: &[Language] = &[Language::Python];
const SCRIPT: &[Language] = &[Language::JavaScript, Language::TypeScript];
const GO: &[Language] = &[Language::Go];

static COMPILED: LazyLock<Vec<(&[Language], Opening, Regex)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|&(languages, opening, pattern)| {
            (
                languages,
                opening,
                Regex::new(pattern).expect("the built-in block patterns compile"),
            )
        })
        .collect()
});

/// One error-handling block: where it is, and the code that opened it (`catch (E e)`,
/// `except ImportError`, `Err(_) =>`, `.map_err(|e|`).
#[derive(Debug, Clone)]
pub(super) struct Block {
    pub range: Range<usize>,
    pub header: Range<usize>,
}

/// Every error-handling block of `source` (they may nest), sorted by start.
pub(super) fn error_blocks(source: &Source<'_>) -> Vec<Block> {
    let mut blocks = Vec::new();
    let suite_ends = match source.language {
        Language::Python => suite_ends(source),
        _ => Vec::new(),
    };
    for (languages, opening, regex) in COMPILED.iter() {
        if !languages.contains(&source.language) {
            continue;
        }
        for captures in regex.captures_iter(source.text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let open = captures
                .name("open")
                .map_or(whole.start(), |open| open.start());
            if !source.is_code(whole.start()) || !source.is_code(open) {
                continue;
            }
            let block = match opening {
                Opening::Bracket => Some(bracketed(source, open)),
                Opening::Arm => Some(arm(source, whole.end())),
                Opening::IfLet => if_let(source, open),
                Opening::Suite => suite_ends
                    .get(source.line_index(open))
                    .map(|&end| open..end),
            };
            blocks.extend(block.map(|range| Block {
                range,
                header: whole.range(),
            }));
        }
    }
    blocks.sort_by_key(|block| block.range.start);
    blocks
}

/// From the bracket at `open` to its match (or the end of the file).
fn bracketed(source: &Source<'_>, open: usize) -> Range<usize> {
    open..source.matching_close(open).unwrap_or(source.text.len())
}

/// A match arm's expression: a `{…}` block, or up to the `,` (or closing brace) ending it.
fn arm(source: &Source<'_>, after_arrow: usize) -> Range<usize> {
    let text = source.text.as_bytes();
    let start = after_arrow
        + (source.text[after_arrow..].len() - source.text[after_arrow..].trim_start().len());
    if text.get(start) == Some(&b'{') {
        return bracketed(source, start);
    }
    let mut depth = 0usize;
    let limit = text.len().min(start + MAX_EXPRESSION_BYTES);
    for (offset, &byte) in text.iter().enumerate().take(limit).skip(start) {
        if !source.is_code(offset) {
            continue;
        }
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return start..offset,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => return start..offset,
            _ => {}
        }
    }
    start..limit
}

/// The `{…}` after `if let Err(…) = scrutinee`.
fn if_let(source: &Source<'_>, pattern_open: usize) -> Option<Range<usize>> {
    let pattern_close = source.matching_close(pattern_open)?;
    let limit = source.text.len().min(pattern_close + MAX_EXPRESSION_BYTES);
    let body_open = (pattern_close..limit)
        .find(|&offset| source.text.as_bytes()[offset] == b'{' && source.is_code(offset))?;
    Some(bracketed(source, body_open))
}

/// Python: for each line, where the suite of a header on it ends: at the next code line
/// indented no deeper. One backward pass with a stack of code lines, so linear in the file.
pub(super) fn suite_ends(source: &Source<'_>) -> Vec<usize> {
    let starts = source.line_starts();
    let mut ends = vec![source.text.len(); starts.len()];
    // (indent, start) of later code lines, each less indented than the one above it.
    let mut later: Vec<(usize, usize)> = Vec::new();
    for (index, &start) in starts.iter().enumerate().rev() {
        let line = &source.text[source.line_bounds(start)];
        let indent = line.len() - line.trim_start().len();
        if indent == line.len() || !source.is_code(start + indent) {
            continue;
        }
        while later
            .last()
            .is_some_and(|&(later_indent, _)| later_indent > indent)
        {
            later.pop();
        }
        if let Some(&(_, end)) = later.last() {
            ends[index] = end;
        }
        later.push((indent, start));
    }
    ends
}
