//! The analysis of a whole pasted log: entries (a line and its continuation lines), levels
//! counted, error signatures grouped, the first failure pointed at.

use crate::logs::level::Level;
use crate::logs::line::{self, Entry, Format};
use crate::logs::signature::signature;
use serde::Serialize;
use std::collections::HashMap;

/// The most groups a report lists (the most frequent first).
pub const MAX_GROUPS: usize = 20;
/// The longest line or message a report quotes, in characters.
pub const MAX_QUOTED_CHARS: usize = 300;

/// Entries per format.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Formats {
    /// JSON objects.
    pub json: usize,
    /// logfmt pairs.
    pub logfmt: usize,
    /// Text.
    pub plain: usize,
}

/// One error signature and where it occurs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// The message with what varies masked.
    pub signature: String,
    /// The most severe level it was logged at.
    pub level: Level,
    /// Occurrences.
    pub count: usize,
    /// 1-based line of the first occurrence.
    pub first_line: usize,
    /// 1-based line of the last occurrence.
    pub last_line: usize,
    /// The first occurrence's message, as written.
    pub example: String,
}

/// The first entry at error level or worse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// 1-based line number.
    pub line: usize,
    /// Its level.
    pub level: Level,
    /// The line as written.
    pub text: String,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Lines in the log, blank ones included.
    pub lines: usize,
    /// Entries (continuation lines belong to the entry above them).
    pub entries: usize,
    /// Entries per format.
    pub formats: Formats,
    /// Entries per level, `unknown` for those naming none (always every key, in order).
    pub levels: serde_json::Map<String, serde_json::Value>,
    /// Error signatures, most frequent first, at most [`MAX_GROUPS`].
    pub error_groups: Vec<Group>,
    /// Distinct error signatures in all.
    pub distinct_errors: usize,
    /// The first failure, if any.
    pub first_failure: Option<Failure>,
}

#[derive(Default)]
struct Tally {
    lines: usize,
    entries: usize,
    formats: Formats,
    levels: [usize; 6],
    unknown: usize,
    groups: Vec<Group>,
    group_index: HashMap<String, usize>,
    first_failure: Option<Failure>,
}

/// An entry read but not yet counted: the lines after it may still name its cause.
struct Pending {
    line_number: usize,
    text: String,
    entry: Entry,
    has_cause: bool,
}

/// Reads the whole log.
pub fn analyze(log: &str) -> Report {
    let mut tally = Tally::default();
    let mut pending: Option<Pending> = None;
    let mut after_continuation = false;
    for (index, text) in log.lines().enumerate() {
        tally.lines += 1;
        if text.trim().is_empty() {
            after_continuation = false;
            continue;
        }
        if pending.is_some() && line::is_continuation(text) {
            after_continuation = true;
            continue;
        }
        if let Some(failure) = pending.as_mut().filter(|p| p.is_failure())
            && line::is_exception_tail(text)
        {
            failure.add_cause(text);
            after_continuation = true;
            continue;
        }
        if after_continuation && line::is_exception_tail(text) {
            continue;
        }
        after_continuation = false;
        let entry = line::parse(text);
        let next = Pending {
            line_number: index + 1,
            text: text.to_owned(),
            entry,
            has_cause: false,
        };
        if let Some(done) = pending.replace(next) {
            tally.record(done);
        }
    }
    if let Some(done) = pending {
        tally.record(done);
    }
    tally.report()
}

impl Pending {
    fn is_failure(&self) -> bool {
        self.entry.level.is_some_and(Level::is_failure)
    }

    /// The first exception line after a failure (Java prints it first, Python last) says
    /// what failed: it joins the message, so different causes group apart.
    fn add_cause(&mut self, text: &str) {
        if !self.has_cause {
            self.entry.message = format!("{}: {}", self.entry.message, text.trim());
            self.has_cause = true;
        }
    }
}

impl Tally {
    fn record(&mut self, pending: Pending) {
        let Pending {
            line_number,
            text,
            entry,
            ..
        } = pending;
        self.entries += 1;
        match entry.format {
            Format::Json => self.formats.json += 1,
            Format::Logfmt => self.formats.logfmt += 1,
            Format::Plain => self.formats.plain += 1,
        }
        let Some(level) = entry.level else {
            self.unknown += 1;
            return;
        };
        self.levels[level as usize] += 1;
        if !level.is_failure() {
            return;
        }
        if self.first_failure.is_none() {
            self.first_failure = Some(Failure {
                line: line_number,
                level,
                text: quoted(text.trim_end()),
            });
        }
        self.group(line_number, level, &entry.message);
    }

    fn group(&mut self, line_number: usize, level: Level, message: &str) {
        let key = signature(message);
        if let Some(&position) = self.group_index.get(&key) {
            let group = &mut self.groups[position];
            group.count += 1;
            group.last_line = line_number;
            group.level = group.level.max(level);
            return;
        }
        self.group_index.insert(key.clone(), self.groups.len());
        self.groups.push(Group {
            signature: quoted(&key),
            level,
            count: 1,
            first_line: line_number,
            last_line: line_number,
            example: quoted(message),
        });
    }

    fn report(mut self) -> Report {
        let distinct_errors = self.groups.len();
        self.groups
            .sort_by(|a, b| b.count.cmp(&a.count).then(a.first_line.cmp(&b.first_line)));
        self.groups.truncate(MAX_GROUPS);
        let mut levels = serde_json::Map::new();
        for level in Level::ALL {
            levels.insert(level.name().to_owned(), self.levels[level as usize].into());
        }
        levels.insert("unknown".to_owned(), self.unknown.into());
        Report {
            lines: self.lines,
            entries: self.entries,
            formats: self.formats,
            levels,
            error_groups: self.groups,
            distinct_errors,
            first_failure: self.first_failure,
        }
    }
}

/// `text`, cut at [`MAX_QUOTED_CHARS`] with `…`.
fn quoted(text: &str) -> String {
    let mut chars = text.chars();
    let mut shown: String = chars.by_ref().take(MAX_QUOTED_CHARS).collect();
    if chars.next().is_some() {
        shown.push('…');
    }
    shown
}
