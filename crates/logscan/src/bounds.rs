//! What one analysis may spend ([`Bounds`]) and what it reports within them ([`Report`]).
//!
//! Findings past the cap are counted, not kept: a heap holds the first `max_findings` in
//! report order (path, line, column, rule id, then the order they were found), so memory stays
//! at the cap however many findings a request produces, and the findings kept are the ones an
//! unbounded analysis would have listed first. The deadline is asked before each file, check
//! and rule, and before each line a custom rule reads.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::Finding;

/// The bounds of one call to [`crate::analyze`].
#[derive(Clone, Copy)]
pub struct Bounds<'a> {
    /// Findings kept in the report; more are counted in [`Report::found`].
    pub max_findings: usize,
    /// Whether the analysis must stop now (its deadline has passed).
    pub deadline_passed: &'a dyn Fn() -> bool,
}

/// What an analysis found within its [`Bounds`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The first findings in report order, at most `max_findings` of them.
    pub findings: Vec<Finding>,
    /// Every finding produced, kept or not.
    pub found: u64,
    /// True when the deadline stopped the analysis before every file, check and rule ran.
    pub stopped_at_deadline: bool,
}

/// A finding and when it was found: equal report positions keep the order they were found in.
#[derive(Debug)]
struct Ranked {
    finding: Finding,
    order: u64,
}

impl Ranked {
    fn key(&self) -> ((&str, u32, u32, &str), u64) {
        (crate::finding::sort_key(&self.finding), self.order)
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The findings kept so far (the first `max` in report order) and how many were found.
#[derive(Debug)]
pub(crate) struct Kept {
    // A max-heap: its top is the last finding kept, the first to go when an earlier one comes.
    heap: BinaryHeap<Ranked>,
    max: usize,
    found: u64,
}

impl Kept {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            heap: BinaryHeap::new(),
            max,
            found: 0,
        }
    }

    /// Counts `finding`, and keeps it if it is among the first `max` so far.
    pub(crate) fn push(&mut self, finding: Finding) {
        let ranked = Ranked {
            finding,
            order: self.found,
        };
        self.found += 1;
        if self.heap.len() < self.max {
            self.heap.push(ranked);
        } else if let Some(mut last) = self.heap.peek_mut()
            && ranked < *last
        {
            *last = ranked;
        }
    }

    pub(crate) fn into_report(self, stopped_at_deadline: bool) -> Report {
        let findings = self.heap.into_sorted_vec();
        Report {
            findings: findings.into_iter().map(|ranked| ranked.finding).collect(),
            found: self.found,
            stopped_at_deadline,
        }
    }
}

#[cfg(test)]
mod tests;
