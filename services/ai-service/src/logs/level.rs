//! Log levels, normalised: the many spellings loggers use, mapped onto six.

use serde::Serialize;

/// A normalised level, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// TRACE, FINEST, FINER.
    Trace,
    /// DEBUG, FINE, DBG.
    Debug,
    /// INFO, INFORMATION, NOTICE.
    Info,
    /// WARN, WARNING.
    Warn,
    /// ERROR, ERR, SEVERE.
    Error,
    /// FATAL, CRITICAL, CRIT, PANIC, EMERG, ALERT.
    Fatal,
}

impl Level {
    /// Every level, least severe first.
    pub const ALL: [Self; 6] = [
        Self::Trace,
        Self::Debug,
        Self::Info,
        Self::Warn,
        Self::Error,
        Self::Fatal,
    ];

    /// The level a word names, in any case (`ERROR`, `Warning`, `crit`).
    pub fn from_word(word: &str) -> Option<Self> {
        let level = match word.to_ascii_lowercase().as_str() {
            "trace" | "finest" | "finer" => Self::Trace,
            "debug" | "fine" | "dbg" => Self::Debug,
            "info" | "information" | "notice" => Self::Info,
            "warn" | "warning" => Self::Warn,
            "error" | "err" | "severe" => Self::Error,
            "fatal" | "critical" | "crit" | "panic" | "emerg" | "emergency" | "alert" => {
                Self::Fatal
            }
            _ => return None,
        };
        Some(level)
    }

    /// A level field's value in structured logs: a word, or one letter (`E`, `W`).
    pub fn from_field(value: &str) -> Option<Self> {
        let letter = match value {
            "T" | "t" => Self::Trace,
            "D" | "d" => Self::Debug,
            "I" | "i" => Self::Info,
            "W" | "w" => Self::Warn,
            "E" | "e" => Self::Error,
            "F" | "f" | "C" | "c" => Self::Fatal,
            _ => return Self::from_word(value),
        };
        Some(letter)
    }

    /// bunyan's and pino's numeric levels (10 trace … 60 fatal).
    pub fn from_number(value: i64) -> Option<Self> {
        let level = match value {
            10 => Self::Trace,
            20 => Self::Debug,
            30 => Self::Info,
            40 => Self::Warn,
            50 => Self::Error,
            60 => Self::Fatal,
            _ => return None,
        };
        Some(level)
    }

    /// The lower-case name, as reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Trace => "trace",
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
            Self::Fatal => "fatal",
        }
    }

    /// Error or worse: what counts as a failure.
    pub fn is_failure(self) -> bool {
        self >= Self::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_map_onto_six_levels() {
        let cases = [
            ("ERROR", Some(Level::Error)),
            ("Warning", Some(Level::Warn)),
            ("crit", Some(Level::Fatal)),
            ("SEVERE", Some(Level::Error)),
            ("notice", Some(Level::Info)),
            ("errors", None),
            ("E", None),
        ];
        for (word, level) in cases {
            assert_eq!(Level::from_word(word), level, "{word}");
        }
        assert_eq!(Level::from_field("E"), Some(Level::Error));
        assert_eq!(Level::from_number(50), Some(Level::Error));
        assert_eq!(Level::from_number(35), None);
        assert!(Level::Fatal.is_failure() && !Level::Warn.is_failure());
    }
}
