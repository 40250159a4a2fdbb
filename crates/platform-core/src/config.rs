//! Typed settings from the environment, read through [`Env`] so tests can feed values.
//!
//! Each service names its variables as constants and reads them with the helpers on [`Env`];
//! the first bad value stops start-up: the binary prints the [`ConfigError`] and exits with
//! [`EXIT_CONFIG`]. Rules every helper shares:
//! - a variable set to the empty string counts as unset (compose passes `VAR=` for "no value");
//! - values are taken as written, without trimming: `PORT=" 80"` is refused, not guessed at;
//! - booleans are exactly `true` or `false`; `1`, `yes` or `TRUE` are refused, so a typo
//!   cannot silently flip a safety switch to its default;
//! - a [`ConfigError`] names the variable and what was expected, never the value, which may
//!   be a secret.

use std::collections::HashMap;
use std::str::FromStr;

/// Exit status of a binary whose configuration is refused (`EX_USAGE` in sysexits.h).
pub const EXIT_CONFIG: u8 = 64;

/// Why a setting was refused. The message names the variable, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A required variable is unset or empty.
    #[error("{name} is not set: a value is required")]
    Missing {
        /// The variable.
        name: &'static str,
    },
    /// A variable is set to something its type cannot hold.
    #[error("{name} is invalid: expected {expected}")]
    Invalid {
        /// The variable.
        name: &'static str,
        /// What a valid value looks like.
        expected: String,
    },
    /// A variable read through its type's own parser (a budget `<limit>/<period>`, say) is
    /// not what that parser takes.
    #[error("{name} is invalid: {reason}")]
    Unparsed {
        /// The variable.
        name: &'static str,
        /// What the parser refused (a parser of settings never quotes its input).
        reason: String,
    },
    /// The built-in default of such a variable does not parse: a bug in the service, not the
    /// operator's doing, named as such so nobody hunts for a variable they never set.
    #[error("built-in default of {name} is not valid: {reason}")]
    BadDefault {
        /// The variable whose default is wrong.
        name: &'static str,
        /// What the parser refused.
        reason: String,
    },
}

/// Where settings come from: [`ProcessEnv`] in a binary, [`MapEnv`] in tests.
///
/// Implementors provide [`Env::var`]; the typed helpers come with the trait.
pub trait Env {
    /// The raw value of `name`, or `None` when it is unset.
    fn var(&self, name: &str) -> Option<String>;

    /// The value of `name`, which must be set and non-empty.
    fn required(&self, name: &'static str) -> Result<String, ConfigError> {
        self.optional(name).ok_or(ConfigError::Missing { name })
    }

    /// The value of `name`, or `None` when it is unset or empty.
    fn optional(&self, name: &'static str) -> Option<String> {
        self.var(name).filter(|value| !value.is_empty())
    }

    /// `name` as a `u16` (a port, say), or `default` when unset.
    fn u16_or(&self, name: &'static str, default: u16) -> Result<u16, ConfigError> {
        unsigned(self, name, default, u64::from(u16::MAX))
    }

    /// `name` as a `usize` (a count or capacity), or `default` when unset.
    fn usize_or(&self, name: &'static str, default: usize) -> Result<usize, ConfigError> {
        unsigned(
            self,
            name,
            default,
            u64::try_from(usize::MAX).unwrap_or(u64::MAX),
        )
    }

    /// `name` as a `u64` (milliseconds, minutes, …), or `default` when unset.
    fn u64_or(&self, name: &'static str, default: u64) -> Result<u64, ConfigError> {
        unsigned(self, name, default, u64::MAX)
    }

    /// `name` as exactly `true` or `false`, or `default` when unset.
    fn bool_or(&self, name: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self.optional(name).as_deref() {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(_) => Err(ConfigError::Invalid {
                name,
                expected: "exactly true or false".to_owned(),
            }),
        }
    }
}

/// Reading a variable through its own type's parser, for every [`Env`] (`&dyn Env` included:
/// a generic method cannot sit on a trait used as `dyn`).
pub trait Parsed {
    /// `name` read by `T`'s own parser (a limiter budget `<limit>/<period>`, say), or
    /// `default` (written the same way) when unset. The parser's message must not quote the
    /// value, which may be a secret.
    fn parsed_or<T>(&self, name: &'static str, default: &str) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display;
}

impl<E: Env + ?Sized> Parsed for E {
    fn parsed_or<T>(&self, name: &'static str, default: &str) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        match self.optional(name) {
            Some(value) => value
                .parse()
                .map_err(|reason: T::Err| ConfigError::Unparsed {
                    name,
                    reason: reason.to_string(),
                }),
            None => default
                .parse()
                .map_err(|reason: T::Err| ConfigError::BadDefault {
                    name,
                    reason: reason.to_string(),
                }),
        }
    }
}

/// Reads an unsigned integer no larger than `max`; `max` only words the error.
fn unsigned<E, T>(env: &E, name: &'static str, default: T, max: u64) -> Result<T, ConfigError>
where
    E: Env + ?Sized,
    T: FromStr,
{
    match env.optional(name) {
        None => Ok(default),
        Some(value) => value.parse().map_err(|_| ConfigError::Invalid {
            name,
            expected: format!("an integer from 0 to {max}"),
        }),
    }
}

/// The environment of this process.
///
/// A value that is not valid UTF-8 is read lossily (its bad bytes become U+FFFD), so a typed
/// helper refuses it instead of treating the variable as unset.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|value| value.to_string_lossy().into_owned())
    }
}

/// A fixed set of variables, for tests: `[("PORT", "0")].into_iter().collect::<MapEnv>()`.
///
/// No `Debug`: the values may be secrets.
#[derive(Clone, Default)]
pub struct MapEnv {
    vars: HashMap<String, String>,
}

impl Env for MapEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for MapEnv {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let vars = pairs
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .collect();
        Self { vars }
    }
}

#[cfg(test)]
mod tests;
