//! A lexed file with the queries every check needs: is this byte code, where does this
//! bracket close, which literals lie in a range, and which line and column an offset is at.

use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

use crate::lexer::{Class, Literal, lex};
use crate::{Finding, Language, Severity, SourceFile};

/// One file, lexed once and shared by every check.
pub(crate) struct Source<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub language: Language,
    classes: Vec<Class>,
    literals: Vec<Literal>,
    line_starts: Vec<usize>,
    /// Opening bracket offset → closing bracket offset, found in one pass so that every
    /// lookup is O(1) however many calls and blocks a (hostile) file has.
    closes: HashMap<usize, usize>,
    /// The last offset [`Source::position`] answered for, and its 0-based column.
    last_position: Cell<(usize, usize)>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(file: &SourceFile<'a>) -> Self {
        let lexed = lex(file.content, file.language);
        let line_starts = std::iter::once(0)
            .chain(file.content.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let closes = match_brackets(file.content, &lexed.classes);
        Self {
            path: file.path,
            text: file.content,
            language: file.language,
            classes: lexed.classes,
            literals: lexed.literals,
            line_starts,
            closes,
            last_position: Cell::new((0, 0)),
        }
    }

    /// Whether the byte at `offset` is code (not comment, not inside a literal).
    pub(crate) fn is_code(&self, offset: usize) -> bool {
        self.classes.get(offset) == Some(&Class::Code)
    }

    /// The maximal runs of code bytes in `range`.
    pub(crate) fn code_runs(&self, range: Range<usize>) -> Vec<Range<usize>> {
        self.runs_of(Class::Code, range)
    }

    /// The comments in `range`, each as the range of its bytes.
    pub(crate) fn comments_in(&self, range: Range<usize>) -> Vec<Range<usize>> {
        self.runs_of(Class::Comment, range)
    }

    /// The maximal runs of `class` bytes in `range`.
    fn runs_of(&self, class: Class, range: Range<usize>) -> Vec<Range<usize>> {
        let mut runs = Vec::new();
        let mut start = None;
        for offset in range.clone() {
            match (self.classes.get(offset) == Some(&class), start) {
                (true, None) => start = Some(offset),
                (false, Some(begun)) => {
                    runs.push(begun..offset);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(begun) = start {
            runs.push(begun..range.end.min(self.text.len()));
        }
        runs
    }

    /// The offset of the bracket closing the one at `open`, counting `(`, `[` and `{` alike and
    /// only in code. `None` when the file ends first.
    pub(crate) fn matching_close(&self, open: usize) -> Option<usize> {
        self.closes.get(&open).copied()
    }

    /// The literals that start inside `range`, in order.
    pub(crate) fn literals_in(&self, range: Range<usize>) -> &[Literal] {
        let first = self
            .literals
            .partition_point(|literal| literal.span.start < range.start);
        let end = self
            .literals
            .partition_point(|literal| literal.span.start < range.end);
        &self.literals[first..end.max(first)]
    }

    /// The 1-based line and 1-based column (in characters) of `offset`. Checks ask in file
    /// order, so counting resumes from the previous answer when it is on the same line: a
    /// long line with many findings is counted once, not once per finding.
    pub(crate) fn position(&self, offset: usize) -> (u32, u32) {
        let line_index = self.line_index(offset);
        let line_start = self.line_starts[line_index];
        let (known_offset, known_column) = self.last_position.get();
        let (from, column) = if (line_start..=offset).contains(&known_offset) {
            (known_offset, known_column)
        } else {
            (line_start, 0)
        };
        let column = column
            + self
                .text
                .get(from..offset)
                .map_or(0, |text| text.chars().count());
        self.last_position.set((offset, column));
        (saturate(line_index + 1), saturate(column + 1))
    }

    /// The 0-based index of the line `offset` is on.
    pub(crate) fn line_index(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset) - 1
    }

    /// The offset where each line starts, in order.
    pub(crate) fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    /// The start of the line `offset` is on, and the offset past its last character.
    pub(crate) fn line_bounds(&self, offset: usize) -> Range<usize> {
        let line_index = self.line_index(offset);
        let start = self.line_starts[line_index];
        let end = self
            .line_starts
            .get(line_index + 1)
            .map_or(self.text.len(), |&next| next - 1);
        start..end
    }

    /// How far the line `offset` is on is indented: the bytes of its leading whitespace.
    pub(crate) fn indent(&self, offset: usize) -> usize {
        let line = &self.text[self.line_bounds(offset)];
        line.len() - line.trim_start().len()
    }

    /// A built-in finding at `offset`: the rule id is the analysis type id.
    pub(crate) fn finding(
        &self,
        analysis_type: &'static str,
        severity: Severity,
        offset: usize,
        message: String,
        fix: &str,
    ) -> Finding {
        let (line, column) = self.position(offset);
        Finding {
            rule_id: analysis_type.to_owned(),
            analysis_type: analysis_type.to_owned(),
            severity,
            path: self.path.to_owned(),
            line,
            column,
            message,
            fix: Some(fix.to_owned()),
        }
    }
}

/// Pairs every code bracket with its closer, treating `(`, `[` and `{` alike; a closer with no
/// opener is ignored, an opener with no closer stays unpaired.
fn match_brackets(text: &str, classes: &[Class]) -> HashMap<usize, usize> {
    let mut open = Vec::new();
    let mut closes = HashMap::new();
    for (offset, byte) in text.bytes().enumerate() {
        if classes[offset] != Class::Code {
            continue;
        }
        match byte {
            b'(' | b'[' | b'{' => open.push(offset),
            b')' | b']' | b'}' => {
                if let Some(opener) = open.pop() {
                    closes.insert(opener, offset);
                }
            }
            _ => {}
        }
    }
    closes
}

/// A line or column as reported: files past `u32::MAX` lines are not a real case.
fn saturate(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
