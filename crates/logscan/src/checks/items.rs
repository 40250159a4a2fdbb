//! Where the code an attribute or a header opens ends: the `{…}` item after a Rust attribute,
//! past an attribute's own brackets, a top-level Python suite.

use std::ops::Range;

use crate::source::Source;

/// A top-level Python statement's suite: from its line to the next line that starts at the
/// left margin with code.
pub(super) fn top_level_suite(source: &Source<'_>, at: usize) -> Range<usize> {
    let starts = source.line_starts();
    let first = source.line_index(at);
    let end = starts[first + 1..]
        .iter()
        .find(|&&start| {
            source
                .text
                .as_bytes()
                .get(start)
                .is_some_and(|byte| !byte.is_ascii_whitespace())
                && source.is_code(start)
        })
        .map_or(source.text.len(), |&start| start);
    starts[first]..end
}

/// Where the attribute starting at `at` (`#[…]`) ends: past its closing bracket.
pub(super) fn attribute_end(source: &Source<'_>, at: usize) -> usize {
    source.text[at..]
        .find('[')
        .and_then(|open| source.matching_close(at + open))
        .map_or(at, |close| close + 1)
}

/// The `{…}` of the item that follows an attribute or a signature ending at `from`. A `;`, or
/// a `,` or `}` outside parentheses, before any brace ends the item: `#[cfg(test)] use …;` and
/// `#[cfg(test)] poll_count: 0,` mark nothing.
pub(super) fn next_block(source: &Source<'_>, from: usize) -> Option<Range<usize>> {
    let bytes = source.text.as_bytes();
    let limit = bytes.len().min(from + 4096);
    let mut depth = 0usize;
    for offset in from..limit {
        if !source.is_code(offset) {
            continue;
        }
        match bytes[offset] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' => return Some(offset..source.matching_close(offset).unwrap_or(bytes.len())),
            b';' | b'}' => return None,
            b',' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}
