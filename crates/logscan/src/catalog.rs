//! The built-in analysis types, as `GET /analysis-types` lists them, and their ids.

use serde::Serialize;

/// Secrets or personal data passed to a log or print call.
pub const SENSITIVE_DATA: &str = "sensitive-data-in-logs";
/// Prints left in code instead of log calls.
pub const PRINT_DEBUGGING: &str = "print-debugging";
/// Log calls whose message says nothing about what happened to what.
pub const LOG_WITHOUT_CONTEXT: &str = "log-without-context";
/// Errors caught and logged at trace, debug or info level.
pub const WRONG_LEVEL_FOR_CAUGHT_ERROR: &str = "wrong-level-for-caught-error";
/// The analysis type of every custom rule's findings. Accepted in a request's types (it selects
/// no built-in check); custom rules run whenever a request has some.
pub const CUSTOM: &str = "custom";

/// One built-in analysis type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnalysisType {
    /// The id requests name it by, and the `ruleId` of its findings.
    pub id: &'static str,
    /// A short human name.
    pub name: &'static str,
    /// What it finds, in one or two sentences.
    pub description: &'static str,
    /// The [`crate::Language::name`]s it reads.
    pub languages: &'static [&'static str],
}

const ALL_LANGUAGES: &[&str] = &["rust", "java", "python", "javascript", "typescript", "go"];

static ANALYSIS_TYPES: [AnalysisType; 4] = [
    AnalysisType {
        id: SENSITIVE_DATA,
        name: "Sensitive data in logs",
        description: "Log and print calls whose arguments carry secrets or personal data: \
                      passwords, tokens, API keys, authorization headers, card numbers, \
                      SSNs, email addresses, private keys.",
        languages: ALL_LANGUAGES,
    },
    AnalysisType {
        id: PRINT_DEBUGGING,
        name: "Print debugging",
        description: "Prints left in library code that look like debugging: `dbg!`, \
                      `printStackTrace`, a value shown under its own name, a print under a \
                      debug switch or a TODO, or one that says it is debugging.",
        languages: ALL_LANGUAGES,
    },
    AnalysisType {
        id: LOG_WITHOUT_CONTEXT,
        name: "Log without context",
        description: "Warn and error log calls whose only argument is a short constant \
                      message saying something failed, with no placeholder, field or value \
                      that says what happened to what.",
        languages: ALL_LANGUAGES,
    },
    AnalysisType {
        id: WRONG_LEVEL_FOR_CAUGHT_ERROR,
        name: "Wrong level for caught error",
        description: "Errors caught in catch, except, `if err != nil` or `Err(e) =>` blocks \
                      and logged only at debug level, with a message saying something failed.",
        languages: ALL_LANGUAGES,
    },
];

/// Every built-in analysis type, in the order checks run.
pub fn analysis_types() -> &'static [AnalysisType] {
    &ANALYSIS_TYPES
}

#[cfg(test)]
mod tests {
    use super::{ALL_LANGUAGES, analysis_types};
    use crate::Language;
    use crate::checks::CHECKS;

    #[test]
    fn every_type_has_a_check_in_the_same_order() {
        let type_ids: Vec<&str> = analysis_types().iter().map(|kind| kind.id).collect();
        let check_ids: Vec<&str> = CHECKS.iter().map(|&(id, _)| id).collect();
        assert_eq!(type_ids, check_ids);
    }

    #[test]
    fn every_type_reads_every_language() {
        let names: Vec<&str> = Language::ALL
            .iter()
            .map(|language| language.name())
            .collect();
        assert_eq!(ALL_LANGUAGES, names.as_slice());
        let json = serde_json::to_value(&analysis_types()[0]).expect("serializes");
        assert_eq!(json["id"], "sensitive-data-in-logs");
        assert_eq!(json["languages"].as_array().map(Vec::len), Some(6));
    }
}
