//! How serious a finding is: `info`, `warning` or `error`, ordered from least to most.

use std::str::FromStr;

use serde::Serialize;

use crate::RuleError;

/// The severity of a finding; orders `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look; nothing is wrong yet.
    Info,
    /// Likely a defect or a maintenance cost.
    Warning,
    /// A defect to fix before shipping.
    Error,
}

impl Severity {
    /// The lowercase name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// Parses `info`, `warning` or `error`, case-insensitively. Severities reach the engine only in
/// custom rules, so a bad one is the rule's [`RuleError::InvalidSeverity`].
impl FromStr for Severity {
    type Err = RuleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "info" => Ok(Self::Info),
            "warning" => Ok(Self::Warning),
            "error" => Ok(Self::Error),
            _ => Err(RuleError::InvalidSeverity),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Severity;
    use crate::RuleError;

    #[test]
    fn parses_case_insensitively_and_round_trips() {
        assert_eq!("INFO".parse::<Severity>(), Ok(Severity::Info));
        assert_eq!("Warning".parse::<Severity>(), Ok(Severity::Warning));
        assert_eq!("error".parse::<Severity>(), Ok(Severity::Error));
        for severity in [Severity::Info, Severity::Warning, Severity::Error] {
            assert_eq!(severity.name().parse::<Severity>(), Ok(severity));
            let json = serde_json::to_string(&severity).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{}\"", severity.name()));
        }
    }

    #[test]
    fn refuses_other_words() {
        assert_eq!("warn".parse::<Severity>(), Err(RuleError::InvalidSeverity));
        assert_eq!("".parse::<Severity>(), Err(RuleError::InvalidSeverity));
    }

    #[test]
    fn orders_from_least_to_most_serious() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
    }
}
