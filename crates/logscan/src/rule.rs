//! Custom rules: a client's [`RuleSpec`] (rule id, regex, severity, message, languages),
//! validated into a [`CustomRule`] that matches line by line.
//!
//! Patterns compile within limits (see `pattern`), so a hostile one is refused quickly. A rule
//! reports at most one finding per line, its leftmost match, found with one search over at
//! most [`MAX_RULE_LINE_BYTES`] of the line: iterating every match restarts a search at each
//! one, and a pattern such as `a*z|a` makes each of those read to the end of the line, which is
//! quadratic in its length.

mod pattern;

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::bounds::Kept;
use crate::catalog::CUSTOM;
use crate::{Finding, Language, RuleError, Severity, SourceFile};

pub use pattern::{MAX_PATTERN_CHARS, REGEX_SIZE_LIMIT};

/// The longest rule message accepted, in characters (every finding repeats it).
pub const MAX_MESSAGE_CHARS: usize = 500;
/// The most bytes of one line a custom rule searches (cut back to a character boundary):
/// bounds the one search the deadline cannot interrupt. Lines of logging code are far shorter.
pub const MAX_RULE_LINE_BYTES: usize = 16 * 1024;

static RULE_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$").expect("constant pattern compiles")
});

/// A custom rule as a client sends it; every field is optional until [`RuleSpec::validate`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleSpec {
    /// 1-64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    /// A regular expression matched against each line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `info`, `warning` (the default) or `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// The message of every finding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The languages it applies to; absent or empty means all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
}

/// A validated rule: its compiled pattern and its normalised spec.
#[derive(Debug, Clone)]
pub struct CustomRule {
    spec: RuleSpec,
    regex: Regex,
    severity: Severity,
    languages: Vec<Language>,
}

impl RuleSpec {
    /// Checks every field in the order [`RuleError`] lists them and compiles the pattern.
    pub fn validate(&self) -> Result<CustomRule, RuleError> {
        let rule_id = validate_rule_id(self.rule_id.as_deref())?;
        let pattern = self
            .pattern
            .as_deref()
            .filter(|pattern| !pattern.is_empty());
        let pattern = pattern.ok_or(RuleError::MissingPattern)?;
        let regex = pattern::compile(pattern)?;
        let message = self
            .message
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty());
        let message = message.ok_or(RuleError::MissingMessage)?;
        if message.chars().count() > MAX_MESSAGE_CHARS {
            return Err(RuleError::MessageTooLong);
        }
        let severity = self
            .severity
            .as_deref()
            .map_or(Ok(Severity::Warning), str::parse)?;
        let languages = validate_languages(self.languages.as_deref().unwrap_or_default())?;
        let spec = Self {
            rule_id: Some(rule_id.to_owned()),
            pattern: Some(pattern.to_owned()),
            severity: Some(severity.name().to_owned()),
            message: Some(message.to_owned()),
            languages: Some(
                languages
                    .iter()
                    .map(|language| language.name().to_owned())
                    .collect(),
            ),
        };
        Ok(CustomRule {
            spec,
            regex,
            severity,
            languages,
        })
    }
}

impl CustomRule {
    /// The rule's `ruleId`.
    pub fn id(&self) -> &str {
        self.spec.rule_id.as_deref().unwrap_or_default()
    }

    /// The normalised spec: severity spelled out, message trimmed, languages by canonical name
    /// (all six when the client gave none).
    pub fn spec(&self) -> &RuleSpec {
        &self.spec
    }

    /// Hands `findings` the leftmost match of each line of `file`, if the rule applies to its
    /// language; false when `deadline_passed` stopped it before the last line.
    pub(crate) fn find(
        &self,
        file: &SourceFile<'_>,
        findings: &mut Kept,
        deadline_passed: &dyn Fn() -> bool,
    ) -> bool {
        if !self.languages.contains(&file.language) {
            return true;
        }
        let message = self.spec.message.as_deref().unwrap_or_default();
        for (index, line) in file.content.lines().enumerate() {
            if deadline_passed() {
                return false;
            }
            let searched = &line[..line.floor_char_boundary(MAX_RULE_LINE_BYTES)];
            // Validation refused patterns that match the empty string, so a match is a finding.
            let Some(found) = self.regex.find(searched) else {
                continue;
            };
            let column = searched[..found.start()].chars().count() + 1;
            findings.push(Finding {
                rule_id: self.id().to_owned(),
                analysis_type: CUSTOM.to_owned(),
                severity: self.severity,
                path: file.path.to_owned(),
                line: u32::try_from(index + 1).unwrap_or(u32::MAX),
                column: u32::try_from(column).unwrap_or(u32::MAX),
                message: message.to_owned(),
                fix: None,
            });
        }
        true
    }
}

fn validate_rule_id(rule_id: Option<&str>) -> Result<&str, RuleError> {
    let rule_id = rule_id
        .filter(|id| !id.trim().is_empty())
        .ok_or(RuleError::MissingRuleId)?;
    if RULE_ID.is_match(rule_id) {
        Ok(rule_id)
    } else {
        Err(RuleError::InvalidRuleId)
    }
}

fn validate_languages(names: &[String]) -> Result<Vec<Language>, RuleError> {
    if names.is_empty() {
        return Ok(Language::ALL.to_vec());
    }
    let mut languages = Vec::with_capacity(names.len());
    for name in names {
        let language =
            Language::from_name(name).ok_or_else(|| RuleError::UnknownLanguage(name.clone()))?;
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    Ok(languages)
}

#[cfg(test)]
mod tests;
