//! The body of `POST /analyze` (the estate's one [`analysis::AnalyzeRequest`], its rules
//! spelled as the engine's [`RuleSpec`]) and what one request may carry: at most
//! [`MAX_FILES`] files, paths of at most [`MAX_PATH_CHARS`] characters (every finding repeats
//! its path), and at most [`MAX_REQUEST_RULES`] rules of its own (each is a pass over every
//! line).

use crate::errors::ApiError;
use crate::state::AppState;
use analysis::AnalyzeFile;
use logscan::{CustomRule, Language, RuleSpec};

/// The most files one request may carry.
const MAX_FILES: usize = 2000;
/// The longest file path, in characters.
const MAX_PATH_CHARS: usize = 1024;
/// The most rules one request may carry.
const MAX_REQUEST_RULES: usize = 50;
/// The pseudo analysis type that selects custom rules.
const CUSTOM: &str = "custom";

/// The request body: files, types and rules of its own.
pub type AnalyzeRequest = analysis::AnalyzeRequest<RuleSpec>;

/// Each file's language: the one named, or the one its extension says.
pub(super) fn languages(request: &AnalyzeRequest) -> Result<Vec<Language>, ApiError> {
    let files = &request.files;
    if files.is_empty() || files.len() > MAX_FILES {
        return Err(invalid(format!(
            "files must hold between 1 and {MAX_FILES} entries"
        )));
    }
    if let Some(index) = files
        .iter()
        .position(|file| file.path.chars().count() > MAX_PATH_CHARS)
    {
        return Err(invalid(format!(
            "files[{index}].path must be at most {MAX_PATH_CHARS} characters"
        )));
    }
    files
        .iter()
        .enumerate()
        .map(|(index, file)| language(index, file))
        .collect()
}

/// The built-in types asked for (`custom` is not one).
pub(super) fn built_in_types(request: &AnalyzeRequest) -> Vec<String> {
    let types = request.analysis_types.iter().filter(|t| *t != CUSTOM);
    types.cloned().collect()
}

/// The request's own rules (validated) and, unless types exclude them, the stored ones.
pub(super) async fn rules(
    request: &AnalyzeRequest,
    state: &AppState,
) -> Result<Vec<CustomRule>, ApiError> {
    if request.rules.len() > MAX_REQUEST_RULES {
        return Err(invalid(format!(
            "rules must hold at most {MAX_REQUEST_RULES} entries"
        )));
    }
    let mut rules = request
        .rules
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            spec.validate().map_err(|error| ApiError::Invalid {
                code: "invalid_rule",
                message: format!("rules[{index}]: {error}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let types = &request.analysis_types;
    if types.is_empty() || types.iter().any(|t| t == CUSTOM) {
        rules.extend(state.rules.all().await);
    }
    Ok(rules)
}

fn language(index: usize, file: &AnalyzeFile) -> Result<Language, ApiError> {
    match &file.language {
        Some(name) => Language::from_name(name).ok_or_else(|| {
            unknown_language(format!(
                "files[{index}].language '{name}' is not supported; use one of {}",
                supported()
            ))
        }),
        None => Language::from_path(&file.path).ok_or_else(|| {
            unknown_language(format!(
                "files[{index}]: cannot tell the language of '{}'; set files[{index}].language",
                file.path
            ))
        }),
    }
}

fn supported() -> String {
    Language::ALL
        .iter()
        .map(|language| language.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn invalid(message: String) -> ApiError {
    ApiError::Invalid {
        code: "invalid_request",
        message,
    }
}

fn unknown_language(message: String) -> ApiError {
    ApiError::Invalid {
        code: "unknown_language",
        message,
    }
}
