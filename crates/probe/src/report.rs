//! What a run found: sections (one per check, each one of the tables of
//! docs/edge-rate-limits-and-safety.md) of rows that hold an expected and an observed value, plus
//! the raw lines printed under a table.

use std::time::SystemTime;

/// How a row came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Observed what was expected.
    Ok,
    /// Observed something else: the run fails.
    Mismatch,
    /// Not measured, with the reason.
    Skipped(String),
    /// Measured, with no expected value to hold it to (the restart window's length).
    Measured,
}

/// One measurement.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was measured.
    pub measurement: String,
    /// What the contract says.
    pub expected: String,
    /// What the estate answered.
    pub observed: String,
    /// Whether they agree.
    pub verdict: Verdict,
}

/// One check's table.
#[derive(Clone, Debug)]
pub struct Section {
    /// The check's name on the command line.
    pub check: &'static str,
    /// The table's title.
    pub title: String,
    /// One or two sentences: what was sent.
    pub lead: String,
    /// The measurements.
    pub rows: Vec<Row>,
    /// The shorthand lines (`1:401  2:401 …`), printed under the table.
    pub transcript: Vec<String>,
    /// Why the whole check did not run.
    pub skipped: Option<String>,
}

impl Section {
    /// An empty section.
    pub fn new(check: &'static str, title: &str, lead: impl Into<String>) -> Self {
        Self {
            check,
            title: title.to_owned(),
            lead: lead.into(),
            rows: Vec::new(),
            transcript: Vec::new(),
            skipped: None,
        }
    }

    /// A section that did not run.
    pub fn skipped(check: &'static str, title: &str, reason: impl Into<String>) -> Self {
        let mut section = Self::new(check, title, "");
        section.skipped = Some(reason.into());
        section
    }

    /// A row that passes when `observed` reads exactly as `expected`.
    pub fn compare(
        &mut self,
        measurement: &str,
        expected: impl Into<String>,
        observed: impl Into<String>,
    ) {
        let (expected, observed) = (expected.into(), observed.into());
        let ok = expected == observed;
        self.row(measurement, expected, observed, ok);
    }

    /// A row whose agreement the check decided.
    pub fn row(
        &mut self,
        measurement: &str,
        expected: impl Into<String>,
        observed: impl Into<String>,
        ok: bool,
    ) {
        let verdict = if ok { Verdict::Ok } else { Verdict::Mismatch };
        self.push(measurement, expected.into(), observed.into(), verdict);
    }

    /// A row with no verdict of its own.
    pub fn push(
        &mut self,
        measurement: &str,
        expected: String,
        observed: String,
        verdict: Verdict,
    ) {
        self.rows.push(Row {
            measurement: measurement.to_owned(),
            expected,
            observed,
            verdict,
        });
    }

    /// A line under the table.
    pub fn line(&mut self, line: impl Into<String>) {
        self.transcript.push(line.into());
    }

    /// Rows that did not match.
    pub fn mismatches(&self) -> usize {
        self.rows
            .iter()
            .filter(|row| row.verdict == Verdict::Mismatch)
            .count()
    }
}

/// When, against what, at which commit.
#[derive(Clone, Debug)]
pub struct Meta {
    /// When the run started.
    pub started: SystemTime,
    /// When it ended.
    pub finished: SystemTime,
    /// The commit the estate was built from, as given or as `git` says.
    pub commit: String,
    /// Where the estate was reached.
    pub target: String,
}

/// A whole run.
#[derive(Clone, Debug)]
pub struct Report {
    /// Date, commit, target.
    pub meta: Meta,
    /// One section per check, in the order they ran.
    pub sections: Vec<Section>,
}

impl Report {
    /// Rows that did not match, over all sections.
    pub fn mismatches(&self) -> usize {
        self.sections.iter().map(Section::mismatches).sum()
    }

    /// Rows that matched.
    pub fn passes(&self) -> usize {
        self.sections
            .iter()
            .flat_map(|section| &section.rows)
            .filter(|row| row.verdict == Verdict::Ok)
            .count()
    }

    /// The section of `check`, if it ran.
    pub fn section(&self, check: &str) -> Option<&Section> {
        self.sections.iter().find(|section| section.check == check)
    }
}
