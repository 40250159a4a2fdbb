//! How serious a finding is: `info`, `warning` or `error`, ordered from least to most.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The severity of a finding; orders `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A word that names no severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a severity is one of info, warning, error")]
pub struct UnknownSeverity;

/// Parses `info`, `warning` or `error`, case-insensitively and around white space (how a
/// custom rule may write it; the wire form is exactly the lowercase name).
impl FromStr for Severity {
    type Err = UnknownSeverity;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "info" => Ok(Self::Info),
            "warning" => Ok(Self::Warning),
            "error" => Ok(Self::Error),
            _ => Err(UnknownSeverity),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Severity, UnknownSeverity};

    #[test]
    fn parses_case_insensitively_and_round_trips() {
        assert_eq!("INFO".parse::<Severity>(), Ok(Severity::Info));
        assert_eq!("Warning".parse::<Severity>(), Ok(Severity::Warning));
        assert_eq!("error".parse::<Severity>(), Ok(Severity::Error));
        for severity in [Severity::Info, Severity::Warning, Severity::Error] {
            assert_eq!(severity.name().parse::<Severity>(), Ok(severity));
            assert_eq!(severity.to_string(), severity.name());
            let json = serde_json::to_string(&severity).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{}\"", severity.name()));
            let back: Severity = serde_json::from_str(&json).expect("and reads back");
            assert_eq!(back, severity);
        }
    }

    #[test]
    fn refuses_other_words() {
        assert_eq!("warn".parse::<Severity>(), Err(UnknownSeverity));
        assert_eq!("".parse::<Severity>(), Err(UnknownSeverity));
        assert!(serde_json::from_str::<Severity>("\"fatal\"").is_err());
    }

    #[test]
    fn orders_from_least_to_most_serious() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
    }
}
