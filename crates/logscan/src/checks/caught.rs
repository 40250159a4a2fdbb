//! `wrong-level-for-caught-error`: inside an error-handling block, a log call at trace, debug
//! or info level (Go's unleveled `log.Print*` counts as info), which hides the failure from
//! anyone watching warnings and errors.

use std::ops::Range;

use super::Scan;
use super::blocks::error_blocks;
use crate::Severity;
use crate::bounds::Kept;
use crate::calls::{CallKind, Level};
use crate::catalog::WRONG_LEVEL_FOR_CAUGHT_ERROR;

const FIX: &str = "log caught errors at warn or error, with the error";

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    let covered = merge(error_blocks(source));
    for call in &scan.calls {
        let CallKind::Log(level) = call.kind else {
            continue;
        };
        let after = covered.partition_point(|range| range.start <= call.start);
        let inside = after > 0 && covered[after - 1].contains(&call.start);
        if level <= Level::Info && inside {
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
}

/// The union of `blocks` as sorted, disjoint ranges, so each call is one binary search.
fn merge(mut blocks: Vec<Range<usize>>) -> Vec<Range<usize>> {
    blocks.sort_by_key(|block| block.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        match merged.last_mut() {
            Some(last) if block.start <= last.end => last.end = last.end.max(block.end),
            _ => merged.push(block),
        }
    }
    merged
}

#[cfg(test)]
mod tests;
