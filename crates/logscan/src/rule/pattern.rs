//! Compiling a custom rule's pattern within limits, so a hostile pattern is refused quickly.
//!
//! The regex crate matches in linear time, so what a pattern can cost is its compiled size:
//! compiling stops at [`REGEX_SIZE_LIMIT`] (`(a{1000}){1000}` is refused in milliseconds).
//! Repetitions nested in a large counted repetition (`((a|b)*){500}`) are refused as well:
//! they compile small enough but multiply the work of every search, and no log rule needs one.
//! So is a pattern that can match the empty string: a rule reports one leftmost match per
//! line, and an empty one would hide the match a line has.

use regex::{Regex, RegexBuilder};

use crate::RuleError;

/// The longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 1000;
/// The most memory a compiled pattern may take (one Unicode `\w+` takes about 50 KiB).
pub const REGEX_SIZE_LIMIT: usize = 256 * 1024;
/// The cache each lazy DFA search may fill before it falls back to a slower engine.
const DFA_SIZE_LIMIT: usize = 1024 * 1024;
/// The largest count a repetition that contains another repetition may have.
const MAX_NESTED_COUNT: u32 = 100;

/// Compiles `pattern`, or says why it is refused.
pub(super) fn compile(pattern: &str) -> Result<Regex, RuleError> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(RuleError::PatternTooLong);
    }
    let regex = RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map_err(|error| match error {
            regex::Error::CompiledTooBig(_) => RuleError::PatternTooComplex,
            // The parser's nesting guard is a complexity limit too, though reported as syntax.
            regex::Error::Syntax(text) if text.contains("nest limit") => {
                RuleError::PatternTooComplex
            }
            other => RuleError::InvalidPattern {
                reason: first_reason(&other.to_string()),
            },
        })?;
    if has_large_nested_repetition(pattern) {
        return Err(RuleError::PatternTooComplex);
    }
    if can_match_empty(pattern) {
        return Err(RuleError::PatternMatchesEmpty);
    }
    Ok(regex)
}

/// Whether the shortest match of `pattern` is empty, as the regex crate's own parser reads it
/// (with its default flags, as the compiled pattern has). Reads a pattern that already compiled.
fn can_match_empty(pattern: &str) -> bool {
    regex_syntax::Parser::new()
        .parse(pattern)
        .is_ok_and(|hir| hir.properties().minimum_len() == Some(0))
}

/// The one line of the regex crate's multi-line explanation that says what is wrong.
fn first_reason(explanation: &str) -> String {
    let reason = explanation
        .lines()
        .find_map(|line| line.strip_prefix("error: "));
    reason.unwrap_or(explanation).trim().to_owned()
}

/// Whether a group containing a repetition is itself repeated more than [`MAX_NESTED_COUNT`]
/// times. Reads a pattern that already compiled, so its syntax is known to be valid.
fn has_large_nested_repetition(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    // One entry per open group: whether it contains a repetition.
    let mut groups = vec![false];
    // Whether the atom just read is a group containing a repetition.
    let mut nested_atom = false;
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        let atom_before = std::mem::take(&mut nested_atom);
        at = match c {
            '\\' => skip_escape(&chars, at),
            '[' => skip_class(&chars, at),
            '(' => open_group(&chars, at, &mut groups),
            ')' => {
                let inner = groups.pop().unwrap_or(false);
                if let Some(outer) = groups.last_mut() {
                    *outer |= inner;
                } else {
                    groups.push(inner);
                }
                nested_atom = inner;
                at + 1
            }
            '*' | '+' | '?' | '{' => {
                let (count, next) = if c == '{' {
                    counted(&chars, at)
                } else {
                    (1, at + 1)
                };
                if atom_before && count > MAX_NESTED_COUNT {
                    return true;
                }
                if let Some(current) = groups.last_mut() {
                    *current = true;
                }
                next
            }
            _ => at + 1,
        };
    }
    false
}

/// Past `\x`, `\p{…}`, `\x{…}` and friends.
fn skip_escape(chars: &[char], at: usize) -> usize {
    let braced = matches!(chars.get(at + 1), Some('p' | 'P' | 'x' | 'u' | 'U'))
        && chars.get(at + 2) == Some(&'{');
    if braced {
        return chars[at..]
            .iter()
            .position(|&c| c == '}')
            .map_or(chars.len(), |close| at + close + 1);
    }
    at + 2
}

/// Past a class `[…]`, including nested classes, escapes and a leading literal `]`.
fn skip_class(chars: &[char], at: usize) -> usize {
    let mut depth = 0usize;
    let mut cursor = at;
    while let Some(&c) = chars.get(cursor) {
        match c {
            '\\' => cursor += 1,
            '[' => {
                depth += 1;
                cursor += usize::from(chars.get(cursor + 1) == Some(&'^'));
                cursor += usize::from(chars.get(cursor + 1) == Some(&']'));
            }
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return cursor + 1;
                }
            }
            _ => {}
        }
        cursor += 1;
    }
    chars.len()
}

/// Past `(`, `(?:`, `(?P<name>` or `(?<name>`, opening a group; past a whole flag setter such
/// as `(?i)`, which opens none.
fn open_group(chars: &[char], at: usize, groups: &mut Vec<bool>) -> usize {
    if chars.get(at + 1) != Some(&'?') {
        groups.push(false);
        return at + 1;
    }
    let Some(end) = chars[at..]
        .iter()
        .position(|&c| matches!(c, ':' | ')' | '>'))
    else {
        return chars.len();
    };
    if chars[at + end] != ')' {
        groups.push(false);
    }
    at + end + 1
}

/// The larger bound of the counted repetition `{n}`, `{n,}` or `{n,m}` at `at`, and the index
/// past it.
fn counted(chars: &[char], at: usize) -> (u32, usize) {
    let close = chars[at..]
        .iter()
        .position(|&c| c == '}')
        .map_or(chars.len(), |end| at + end);
    let inside: String = chars
        .get(at + 1..close)
        .unwrap_or_default()
        .iter()
        .collect();
    let bound = inside
        .split(',')
        .filter_map(|number| number.trim().parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    (bound, close + 1)
}

#[cfg(test)]
mod tests;
