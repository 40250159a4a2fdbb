//! One line of a pasted log: a JSON object, logfmt pairs, or text with a level word near the
//! start (`LEVEL timestamp message`, `timestamp LEVEL message`, `[ts] [LEVEL] …`,
//! `ts - logger - LEVEL - message`, syslog's `Mon dd hh:mm:ss host app[pid]: LEVEL …`).
//!
//! In text, a level word counts when it is among the first [`LEVEL_SCAN_TOKENS`] words and is
//! written in capitals (`ERROR`), in brackets (`[error]`, `[core:error]`, `<warn>`) or with a
//! colon (`error:`): a lower-case "error" inside a sentence is not a level.

use crate::logs::level::Level;
use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// How far into a text line the level word may stand.
const LEVEL_SCAN_TOKENS: usize = 6;

/// JSON keys that hold the level, the message and an error, in order of preference.
const LEVEL_KEYS: [&str; 6] = [
    "level",
    "severity",
    "lvl",
    "loglevel",
    "levelname",
    "log.level",
];
const MESSAGE_KEYS: [&str; 5] = ["msg", "message", "event", "@message", "text"];
const ERROR_KEYS: [&str; 4] = ["error", "err", "exception", "exc_info"];

/// Spring Boot's `<pid> --- [app] [thread] logger : message` after the level.
static SPRING_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d+\s+---\s+(?:\[[^\]]*\]\s*)+\S+\s*:\s+").expect("a valid pattern")
});

static EXCEPTION_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_][\w.$]*(?:Error|Exception|Exit|Interrupt)(?::|$)")
        .expect("a valid pattern")
});

/// How a line was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A JSON object.
    Json,
    /// `key=value` pairs.
    Logfmt,
    /// Free text.
    Plain,
}

/// A line that starts an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// How it was written.
    pub format: Format,
    /// Its level, when it names one.
    pub level: Option<Level>,
    /// The message (and error text) the signature is made from.
    pub message: String,
}

/// Reads one line (never blank: the caller skips those).
pub fn parse(line: &str) -> Entry {
    let trimmed = line.trim();
    if trimmed.starts_with('{')
        && let Ok(object) = serde_json::from_str::<Map<String, Value>>(trimmed)
    {
        return json_entry(&object, trimmed);
    }
    if let Some(entry) = logfmt_pairs(trimmed).and_then(|pairs| logfmt_entry(&pairs)) {
        return entry;
    }
    plain_entry(trimmed)
}

fn json_entry(object: &Map<String, Value>, line: &str) -> Entry {
    let level = LEVEL_KEYS
        .iter()
        .filter_map(|key| field(object, key))
        .find_map(|value| match value {
            Value::String(text) => Level::from_field(text.trim()),
            Value::Number(number) => number.as_i64().and_then(Level::from_number),
            _ => None,
        });
    let message = MESSAGE_KEYS
        .iter()
        .find_map(|key| field(object, key).and_then(Value::as_str))
        .unwrap_or(line);
    let error = ERROR_KEYS
        .iter()
        .find_map(|key| field(object, key).and_then(error_text));
    Entry {
        format: Format::Json,
        level,
        message: with_error(message, error.as_deref()),
    }
}

/// `key` at the top level, or a dotted path into nested objects (`log.level`).
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).or_else(|| {
        let (head, rest) = key.split_once('.')?;
        field(object.get(head)?.as_object()?, rest)
    })
}

fn error_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Object(error) => ["message", "msg", "type", "kind"]
            .iter()
            .find_map(|key| error.get(*key).and_then(Value::as_str))
            .map(str::to_owned),
        _ => None,
    }
}

fn with_error(message: &str, error: Option<&str>) -> String {
    match error {
        Some(error) if !message.contains(error) => format!("{message}: {error}"),
        _ => message.to_owned(),
    }
}

/// The `key=value` pairs of a logfmt line (quoted values unescaped), or `None` when any word
/// is not a pair or there are fewer than two.
fn logfmt_pairs(line: &str) -> Option<Vec<(&str, String)>> {
    let mut pairs = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        if key.is_empty() || key.contains(char::is_whitespace) || key.contains('"') {
            return None;
        }
        let (value, after) = logfmt_value(after)?;
        pairs.push((key, value));
        rest = after.trim_start();
    }
    (pairs.len() >= 2).then_some(pairs)
}

/// One value and what follows it: `"quoted \" text"` or a bare word.
fn logfmt_value(text: &str) -> Option<(String, &str)> {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text.find(char::is_whitespace).unwrap_or(text.len());
        return Some((text[..end].to_owned(), &text[end..]));
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            '\\' => value.extend(chars.next().map(|(_, escaped)| escaped)),
            '"' => return Some((value, &quoted[index + 1..])),
            other => value.push(other),
        }
    }
    None
}

fn logfmt_entry(pairs: &[(&str, String)]) -> Option<Entry> {
    let value = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| pairs.iter().find(|(name, _)| name == key))
            .map(|(_, value)| value.as_str())
    };
    let level_text = value(&["level", "lvl", "severity"]);
    let message = value(&["msg", "message"]);
    if level_text.is_none() && message.is_none() {
        return None;
    }
    let error = value(&["error", "err"]).filter(|error| !error.is_empty());
    Some(Entry {
        format: Format::Logfmt,
        level: level_text.and_then(Level::from_field),
        message: with_error(message.unwrap_or_default(), error),
    })
}

fn plain_entry(line: &str) -> Entry {
    let mut offset = 0;
    for token in line.split_whitespace().take(LEVEL_SCAN_TOKENS) {
        let start = offset + line[offset..].find(token).unwrap_or(0);
        offset = start + token.len();
        if let Some(level) = level_token(token) {
            let rest = line[offset..].trim_start_matches([' ', '\t', '-', ':', '|', ']']);
            let rest = SPRING_PREFIX
                .find(rest)
                .map_or(rest, |prefix| &rest[prefix.end()..]);
            return Entry {
                format: Format::Plain,
                level: Some(level),
                message: rest.trim().to_owned(),
            };
        }
    }
    Entry {
        format: Format::Plain,
        level: failure_marker(line),
        message: line.to_owned(),
    }
}

/// A level written as one: `ERROR`, `[error]`, `[core:error]`, `<warn>`, `error:`, `ERROR]`.
fn level_token(token: &str) -> Option<Level> {
    let bracketed = (token.starts_with('[') && token.ends_with(']'))
        || (token.starts_with('<') && token.ends_with('>'));
    let colon = token.ends_with(':');
    let word = token.trim_matches(|c| matches!(c, '[' | ']' | '<' | '>' | ':' | ','));
    let word = if bracketed {
        word.rsplit(':').next().unwrap_or(word)
    } else {
        word
    };
    let capitals = word.len() > 1 && word.bytes().all(|byte| byte.is_ascii_uppercase());
    (bracketed || colon || capitals)
        .then(|| Level::from_word(word))
        .flatten()
}

/// A line with no level that is a failure all the same (a panic, an uncaught exception).
fn failure_marker(line: &str) -> Option<Level> {
    if line.contains("panicked at") || line.starts_with("panic: ") {
        Some(Level::Fatal)
    } else if line.starts_with("Exception in thread")
        || line.starts_with("Traceback (most recent call last)")
        || is_exception_tail(line)
    {
        Some(Level::Error)
    } else {
        None
    }
}

/// The last line of a Python traceback (`ValueError: …` at column 0), which belongs to the
/// frames above it.
pub fn is_exception_tail(line: &str) -> bool {
    EXCEPTION_TAIL.is_match(line)
}

/// A line that continues the entry before it: indented (stack frames, wrapped text) or one of
/// the lines exception printers start at column 0.
pub fn is_continuation(line: &str) -> bool {
    line.starts_with([' ', '\t'])
        || line.starts_with("Caused by:")
        || line.starts_with("Traceback (most recent call last)")
        || (line.starts_with("...") && line.trim_end().ends_with("more"))
}

#[cfg(test)]
mod tests;
