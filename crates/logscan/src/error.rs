//! The engine's two error types, both shown to API clients verbatim through `Display`.
//!
//! - [`AnalyzeError`]: a request to [`crate::analyze`] that cannot run as asked.
//! - [`RuleError`]: a custom rule that [`crate::RuleSpec::validate`] refuses. Each message names
//!   the offending field as `rule.<field>`; `rule.ruleId is mandatory` is a pinned contract.
//!
//! They stay separate because they reach clients through different routes (`POST /analyze`
//! and `POST /rules/validate`), and neither ever carries the other.

use thiserror::Error;

/// Why [`crate::analyze`] refused a request.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnalyzeError {
    /// An analysis type id that is neither built in nor `custom`.
    #[error("unknown analysis type '{0}'")]
    UnknownAnalysisType(String),
}

/// Why a custom rule was refused, in the order the fields are checked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// `ruleId` is absent or blank.
    #[error("rule.ruleId is mandatory")]
    MissingRuleId,
    /// `ruleId` has characters or a length outside `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.
    #[error("rule.ruleId must be 1-64 letters, digits, '.', '_' or '-'")]
    InvalidRuleId,
    /// `pattern` is absent or empty.
    #[error("rule.pattern is mandatory")]
    MissingPattern,
    /// `pattern` has more than [`crate::MAX_PATTERN_CHARS`] characters.
    #[error("rule.pattern is longer than 1000 characters")]
    PatternTooLong,
    /// `pattern` does not compile. `reason` is the regex parser's first line, for logs; the
    /// client-facing message stays fixed so clients can rely on it.
    #[error("rule.pattern is not a valid regular expression")]
    InvalidPattern {
        /// The first line of the regex parser's explanation.
        reason: String,
    },
    /// `pattern` compiles past the engine's size limits.
    #[error("rule.pattern is too complex")]
    PatternTooComplex,
    /// `pattern` can match the empty string (as `x*` or `a|` can): such a match marks nothing,
    /// and looking past it for a longer one would take a search per position.
    #[error("rule.pattern can match an empty string")]
    PatternMatchesEmpty,
    /// `message` is absent or blank.
    #[error("rule.message is mandatory")]
    MissingMessage,
    /// `message` has more than [`crate::MAX_MESSAGE_CHARS`] characters.
    #[error("rule.message is longer than 500 characters")]
    MessageTooLong,
    /// `severity` is not `info`, `warning` or `error`.
    #[error("rule.severity must be one of info, warning, error")]
    InvalidSeverity,
    /// `languages` names a language the engine does not know.
    #[error("rule.languages has an unknown language '{0}'")]
    UnknownLanguage(String),
}

/// A severity a rule spells wrong is the rule's error.
impl From<analysis::UnknownSeverity> for RuleError {
    fn from(_: analysis::UnknownSeverity) -> Self {
        Self::InvalidSeverity
    }
}
