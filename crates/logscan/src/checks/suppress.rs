//! The suppression comments and attributes each ecosystem already uses, honoured as its own
//! linters honour them: `# noqa` (bare, or naming flake8-print's `T201`/`T203` for prints),
//! `// eslint-disable-line` / `// eslint-disable-next-line` (bare, or naming `no-console`),
//! `/* eslint-disable no-console */` for the rest of a file, Go's `//nolint` (bare, or naming
//! `forbidigo`), and Rust's `allow` attribute naming `clippy::print_stdout` (`print_stderr`,
//! `dbg_macro`), outer on an item or inner on a whole module. A suppression that names another
//! lint (`# noqa: E501`) suppresses nothing here.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::source::Source;

/// Comment suppressions: `scope` says which lines, `names` which lints (empty: all).
static COMMENTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:#\s*(?P<noqa>noqa)|//\s*(?P<nolint>nolint)|(?://|/\*)\s*eslint-disable(?P<scope>-next-line|-line)?)",
        r"(?P<names>[ \t]*:?[ \t]*[\w\-/]+(?:[ \t]*,[ \t]*[\w\-/]+)*)?",
    ))
    .expect("constant pattern compiles")
});
/// Rust's attributes allowing clippy's print lints, outer or inner.
static ATTRIBUTES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"#\s*(?P<inner>!)?\s*\[\s*allow\s*\([^\]]*clippy::(?:print_stdout|print_stderr|dbg_macro)",
    )
    .expect("constant pattern compiles")
});

/// Lint names that mean "this print is intended".
const PRINT_LINTS: [&str; 6] = ["T201", "T203", "T20", "no-console", "forbidigo", "print"];

/// What a file suppresses: whole lines for every rule, and ranges for prints only.
#[derive(Default)]
pub(crate) struct Suppressions {
    /// 0-based lines on which no built-in rule reports.
    all: Vec<usize>,
    /// 0-based lines on which prints are intended.
    print_lines: Vec<usize>,
    /// Byte ranges in which prints are intended.
    print_ranges: Vec<Range<usize>>,
}

impl Suppressions {
    pub(crate) fn new(source: &Source<'_>) -> Self {
        let mut found = Self::default();
        let text = source.text;
        // Most files suppress nothing: look for the words before reading the comments.
        let comments = ["noqa", "nolint", "eslint-disable"]
            .iter()
            .any(|word| text.contains(word));
        let attributes = text.contains("clippy::");
        if comments {
            found.read_comments(source);
        }
        if attributes {
            found.read_attributes(source);
        }
        found
    }

    /// The comment suppressions of `source`.
    fn read_comments(&mut self, source: &Source<'_>) {
        let found = self;
        for captures in COMMENTS.captures_iter(source.text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            if source.is_code(whole.start()) {
                continue;
            }
            let names = captures.name("names").map_or("", |names| names.as_str());
            let names: Vec<&str> = names
                .split(|c: char| c == ',' || c == ':' || c.is_whitespace())
                .filter(|name| !name.is_empty())
                .collect();
            let line = source.line_index(whole.start());
            let scope = captures.name("scope").map(|scope| scope.as_str());
            if captures.name("noqa").is_none()
                && captures.name("nolint").is_none()
                && scope.is_none()
            {
                // `/* eslint-disable no-console */`: the rest of the file.
                if names.contains(&"no-console") {
                    found.print_ranges.push(whole.start()..source.text.len());
                }
                continue;
            }
            let line = if scope == Some("-next-line") {
                line + 1
            } else {
                line
            };
            if names.is_empty() {
                found.all.push(line);
            } else if names.iter().any(|name| PRINT_LINTS.contains(name)) {
                found.print_lines.push(line);
            }
        }
    }

    /// The attribute suppressions of a Rust `source`.
    fn read_attributes(&mut self, source: &Source<'_>) {
        let found = self;
        for captures in ATTRIBUTES.captures_iter(source.text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            if !source.is_code(whole.start()) {
                continue;
            }
            let range = if captures.name("inner").is_some() {
                whole.start()..source.text.len()
            } else {
                item_after(source, whole.end())
            };
            found.print_ranges.push(range);
        }
    }

    /// Whether every built-in rule is silenced at `offset`.
    pub(crate) fn silences(&self, source: &Source<'_>, offset: usize) -> bool {
        self.all.contains(&source.line_index(offset))
    }

    /// Whether a print at `offset` is marked as intended.
    pub(crate) fn intends_print(&self, source: &Source<'_>, offset: usize) -> bool {
        self.silences(source, offset)
            || self.print_lines.contains(&source.line_index(offset))
            || self
                .print_ranges
                .iter()
                .any(|range| range.contains(&offset))
    }
}

/// The item an outer attribute ending at `from` applies to: up to its `{…}` body's end, or the
/// statement's `;` when one comes first.
fn item_after(source: &Source<'_>, from: usize) -> Range<usize> {
    let bytes = source.text.as_bytes();
    let limit = bytes.len().min(from + 4096);
    let end = (from..limit)
        .find(|&offset| source.is_code(offset) && matches!(bytes[offset], b'{' | b';'))
        .map_or(limit, |at| match bytes[at] {
            b'{' => source.matching_close(at).unwrap_or(bytes.len()),
            _ => at,
        });
    from..end
}
