//! logscan, the analyzer's engine: static analysis of logging code in Rust, Java, Python,
//! JavaScript, TypeScript and Go.
//!
//! [`analyze`] reads [`SourceFile`]s and returns [`Finding`]s for the built-in
//! [`analysis_types`] (secrets or personal data in log calls, print debugging, log calls
//! without context, caught errors logged at a low level) and for custom regex rules
//! ([`RuleSpec`] validated into a [`CustomRule`]). Pure library: no I/O, no async.
//!
//! An analysis is bounded ([`Bounds`]): it keeps the first `max_findings` findings in report
//! order and counts the rest, and it stops when its deadline passes; its [`Report`] says both.
//! A custom rule reads each line once, with one leftmost search, so no pattern can make a
//! request super-linear in its lines.
//!
//! Each file is lexed once (so strings and comments never look like code), its log and print
//! calls are found with per-language patterns, and each selected check reads those calls.
//! This is pattern matching over lexed text, not parsing: the golden corpus under
//! `services/analyzer/tests/corpus` pins what it finds.
//!
//! # Layout
//! - [`Language`], [`SourceFile`]: the vocabulary of a request; [`Severity`] and [`Finding`]
//!   are the estate's analysis contract (`crates/analysis`), re-exported.
//! - [`Bounds`], [`Report`] (`bounds`): what one analysis may spend and what it found.
//! - [`analysis_types`] and the type ids (`catalog`); `checks`: one module per type, plus the
//!   error-block finder and the sensitive-name vocabulary.
//! - `lexer` and `source`: code, comment and literal bytes, brackets, line and column.
//! - `calls`: log and print calls per language; `args`: what their arguments mention.
//! - [`RuleSpec`], [`CustomRule`] (`rule`): custom rules; [`AnalyzeError`], [`RuleError`]
//!   (`error`): what clients are told when a request or a rule is refused.

mod args;
mod bounds;
mod calls;
mod catalog;
mod checks;
mod error;
mod finding;
mod language;
mod lexer;
mod names;
mod rule;
mod source;

pub use analysis::{Finding, Severity};
pub use bounds::{Bounds, Report};
pub use catalog::{
    AnalysisType, CUSTOM, LOG_WITHOUT_CONTEXT, PRINT_DEBUGGING, SENSITIVE_DATA,
    WRONG_LEVEL_FOR_CAUGHT_ERROR, analysis_types,
};
pub use error::{AnalyzeError, RuleError};
pub use finding::SourceFile;
pub use language::Language;
pub use rule::{
    CustomRule, MAX_MESSAGE_CHARS, MAX_PATTERN_CHARS, MAX_RULE_LINE_BYTES, REGEX_SIZE_LIMIT,
    RuleSpec,
};

/// Analyzes `files` with the analysis types named in `types` (all built-in types when empty;
/// `custom` is accepted and selects none) and with every rule in `rules`, within `bounds`. The
/// findings kept are sorted by path, line, column and rule id.
///
/// # Errors
/// [`AnalyzeError::UnknownAnalysisType`] for the first id in `types` that is neither a
/// built-in type nor `custom`; nothing is analyzed then.
pub fn analyze(
    files: &[SourceFile<'_>],
    types: &[String],
    rules: &[CustomRule],
    bounds: &Bounds<'_>,
) -> Result<Report, AnalyzeError> {
    let checks = checks::select(types)?;
    let mut kept = bounds::Kept::new(bounds.max_findings);
    let finished = files
        .iter()
        .all(|file| analyze_file(file, &checks, rules, bounds, &mut kept));
    Ok(kept.into_report(!finished))
}

/// One file's checks and rules; false when the deadline stopped them.
fn analyze_file(
    file: &SourceFile<'_>,
    checks: &[(&'static str, checks::Check)],
    rules: &[CustomRule],
    bounds: &Bounds<'_>,
    kept: &mut bounds::Kept,
) -> bool {
    let deadline_passed = bounds.deadline_passed;
    if deadline_passed() {
        return false;
    }
    if !checks.is_empty() {
        let scan = checks::Scan::new(file, checks);
        for (_, check) in checks {
            if deadline_passed() {
                return false;
            }
            check(&scan, kept);
        }
    }
    rules
        .iter()
        .all(|rule| !deadline_passed() && rule.find(file, kept, deadline_passed))
}

#[cfg(test)]
mod tests;
