//! Bounded analysis answers, the same way on every path that can reach the analyzer: how many
//! findings an answer keeps, how many bytes they take, and how much of an upstream's answer a
//! relay reads before it gives up (the reading itself is `platform::bounds::read_body`).
//!
//! An answer that kept every finding has the summary it always had, `{"files","findings"}`.
//! One that a bound cut adds the [`Truncation`] marker beside those counts:
//! `"truncated": true`, the `reason` (the first bound that cut: [`Cut`]) and how many findings
//! were `found`; `findings` is then how many the answer kept, the first ones in the answer's
//! order. A relay that cuts an answer its upstream had already cut keeps the upstream's reason
//! and count, which were the first.

use serde::{Deserialize, Serialize};

/// The most bytes a relay reads of one analysis answer (the analyzer's own answer bound is
/// half of it by default); a larger answer is refused as unreadable, never buffered.
pub const MAX_ANALYSIS_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Why an answer holds fewer findings than were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cut {
    /// More findings than the findings cap.
    MaxFindings,
    /// The findings kept would have made the answer larger than its size bound.
    MaxAnswerBytes,
    /// The analysis stopped at its deadline: `found` counts what was found until then.
    Deadline,
}

/// The marker of a cut answer, flattened into its summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// Always `true`: the key a client tests.
    pub truncated: bool,
    /// The first bound that cut the answer.
    pub reason: Cut,
    /// Findings found (until the deadline, for [`Cut::Deadline`]), kept or not.
    pub found: u64,
}

impl Truncation {
    /// The marker for an answer cut by `reason` out of `found` findings.
    pub fn new(reason: Cut, found: u64) -> Self {
        Self {
            truncated: true,
            reason,
            found,
        }
    }
}

/// The summary of an answer that carries findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Files analyzed.
    pub files: u64,
    /// Findings in the answer.
    pub findings: u64,
    /// Present only when a bound cut the answer.
    #[serde(flatten)]
    pub truncation: Option<Truncation>,
}

impl Summary {
    /// Whether a bound cut the answer.
    pub fn is_truncated(&self) -> bool {
        self.truncation.is_some()
    }

    /// Findings found, kept or not.
    pub fn found(&self) -> u64 {
        self.truncation.map_or(self.findings, |cut| cut.found)
    }
}

/// Keeps the longest prefix of `findings` with at most `max_findings` entries whose JSON
/// array takes at most `max_bytes`, and makes `summary` say what was kept (and, when this cut
/// first, why and out of how many).
pub fn keep_within<T: Serialize>(
    findings: &mut Vec<T>,
    summary: &mut Summary,
    max_findings: usize,
    max_bytes: usize,
) {
    let found = summary.found().max(count(findings.len()));
    let mut reason = (findings.len() > max_findings).then_some(Cut::MaxFindings);
    let mut kept = findings.len().min(max_findings);
    // The array's brackets, then each entry and the comma before all but the first.
    let mut bytes = 2;
    for (index, finding) in findings.iter().take(kept).enumerate() {
        bytes += serialized_len(finding) + usize::from(index > 0);
        if bytes > max_bytes {
            (kept, reason) = (index, Some(Cut::MaxAnswerBytes));
            break;
        }
    }
    findings.truncate(kept);
    summary.findings = count(kept);
    if let (None, Some(reason)) = (summary.truncation, reason) {
        summary.truncation = Some(Truncation::new(reason, found));
    }
}

fn serialized_len<T: Serialize>(value: &T) -> usize {
    // Serializing a finding (strings and numbers) cannot fail; an error would count as huge.
    serde_json::to_vec(value).map_or(usize::MAX / 2, |json| json.len())
}

fn count(length: usize) -> u64 {
    u64::try_from(length).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
