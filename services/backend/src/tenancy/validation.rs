//! The shape rules for project and CI key names and project keys (workspace names have their
//! own, `workspace_names`), with the message each failure shows.

use super::error::TenancyError;

/// The longest project name, in characters.
pub const PROJECT_NAME_MAX: usize = 100;
/// The longest CI key name, in characters.
pub const CI_KEY_NAME_MAX: usize = 64;
/// The shortest and longest project key.
pub const PROJECT_KEY_LENGTH: std::ops::RangeInclusive<usize> = 2..=10;

/// `raw` trimmed, if it has 1 to `max` characters and no control characters.
pub(crate) fn name(raw: &str, max: usize) -> Result<String, TenancyError> {
    let trimmed = raw.trim();
    let length = trimmed.chars().count();
    if length == 0 || length > max {
        return Err(TenancyError::Invalid(format!(
            "name must be 1 to {max} characters"
        )));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(TenancyError::Invalid(
            "name must not contain control characters".to_owned(),
        ));
    }
    Ok(trimmed.to_owned())
}

/// `raw` trimmed and upper-cased, if it is then 2 to 10 characters of `[A-Z][A-Z0-9]*`.
/// Upper-casing first means `abc` and `ABC` are one key, so they cannot both exist.
pub(crate) fn project_key(raw: &str) -> Result<String, TenancyError> {
    let key = raw.trim().to_ascii_uppercase();
    let mut characters = key.chars();
    let starts_with_letter = characters
        .next()
        .is_some_and(|first| first.is_ascii_uppercase());
    let rest_alphanumeric =
        characters.all(|next| next.is_ascii_uppercase() || next.is_ascii_digit());
    if PROJECT_KEY_LENGTH.contains(&key.len()) && starts_with_letter && rest_alphanumeric {
        Ok(key)
    } else {
        Err(TenancyError::Invalid(
            "key must be 2 to 10 characters: a letter, then letters or digits".to_owned(),
        ))
    }
}
