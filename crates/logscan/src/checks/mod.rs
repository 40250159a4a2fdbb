//! The built-in checks, one module per analysis type, and how a request's type ids select them.

mod blocks;
mod caught;
mod context;
mod declared;
mod flow;
mod handled;
mod items;
mod marks;
mod output;
mod print;
mod role;
mod sensitive;
mod suppress;
#[cfg(test)]
pub(crate) mod testing;
mod tokens;
mod words;

use std::cell::{OnceCell, RefCell};

use crate::bounds::Kept;
use crate::calls::{Call, find_calls};
use crate::catalog::{
    CUSTOM, LOG_WITHOUT_CONTEXT, PRINT_DEBUGGING, SENSITIVE_DATA, WRONG_LEVEL_FOR_CAUGHT_ERROR,
};
use crate::source::Source;
use crate::{AnalyzeError, SourceFile};
use blocks::Block;
use role::Roles;
use suppress::Suppressions;

/// A file lexed and with its calls found, shared by every check that runs on it: what its
/// code is for, what it suppresses, and which checks run (so that one problem is reported by
/// one of them).
pub(crate) struct Scan<'a> {
    pub source: Source<'a>,
    pub calls: Vec<Call>,
    pub roles: Roles,
    pub suppressions: Suppressions,
    selected: Vec<&'static str>,
    /// The error-handling blocks, found once for the checks that read them.
    blocks: OnceCell<Vec<Block>>,
    /// Per block, once asked: whether it handles its error on purpose.
    deliberate: RefCell<Vec<Option<bool>>>,
    /// Where the calls reported as sensitive data start, in order: a print among them is that
    /// one problem, not a second.
    secret_calls: RefCell<Vec<usize>>,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(file: &SourceFile<'a>, checks: &[(&'static str, Check)]) -> Self {
        let source = Source::new(file);
        let calls = find_calls(&source);
        // A file with no log or print call has nothing for roles or suppressions to qualify.
        let (roles, suppressions) = if calls.is_empty() {
            (Roles::library(), Suppressions::default())
        } else {
            (Roles::new(&source), Suppressions::new(&source))
        };
        Self {
            source,
            calls,
            roles,
            suppressions,
            selected: checks.iter().map(|&(id, _)| id).collect(),
            blocks: OnceCell::new(),
            deliberate: RefCell::new(Vec::new()),
            secret_calls: RefCell::new(Vec::new()),
        }
    }

    /// The file's error-handling blocks, sorted by start.
    fn blocks(&self) -> &[Block] {
        self.blocks
            .get_or_init(|| blocks::error_blocks(&self.source))
    }

    /// The calls that start in `range`: they come sorted by start, so a search finds them
    /// without reading the others (a file of many calls stays linear).
    fn calls_in(&self, range: std::ops::Range<usize>) -> &[Call] {
        let first = self.calls.partition_point(|call| call.start < range.start);
        let end = first + self.calls[first..].partition_point(|call| call.start < range.end);
        &self.calls[first..end]
    }

    /// Whether the analysis type `id` runs on this file.
    pub(crate) fn runs(&self, id: &str) -> bool {
        self.selected.contains(&id)
    }
}

/// A check hands its findings for one file to the bounded collection.
pub(crate) type Check = fn(&Scan<'_>, &mut Kept);

/// Every built-in check, by analysis type id, in the order of [`crate::analysis_types`].
pub(crate) const CHECKS: [(&str, Check); 4] = [
    (SENSITIVE_DATA, sensitive::check),
    (PRINT_DEBUGGING, print::check),
    (LOG_WITHOUT_CONTEXT, context::check),
    (WRONG_LEVEL_FOR_CAUGHT_ERROR, caught::check),
];

/// The checks a request's type ids select: all of them for an empty list; `custom` selects
/// none (custom rules run whenever the request has some).
pub(crate) fn select(types: &[String]) -> Result<Vec<(&'static str, Check)>, AnalyzeError> {
    if types.is_empty() {
        return Ok(CHECKS.to_vec());
    }
    let mut selected = Vec::new();
    for (id, check) in CHECKS {
        if types.iter().any(|wanted| wanted == id) {
            selected.push((id, check));
        }
    }
    let known = |wanted: &String| wanted == CUSTOM || CHECKS.iter().any(|&(id, _)| wanted == id);
    match types.iter().find(|wanted| !known(wanted)) {
        Some(unknown) => Err(AnalyzeError::UnknownAnalysisType(unknown.clone())),
        None => Ok(selected),
    }
}
