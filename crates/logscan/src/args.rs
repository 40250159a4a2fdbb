//! Reads a call's arguments: the names they mention (in code, in interpolations, as field
//! keys), labelled placeholders in their strings, and whether they are one constant string.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::Language;
use crate::lexer::{Literal, LiteralKind};
use crate::names::{Name, names_in};
use crate::source::Source;

/// Python f-string fields; `{{` is an escaped brace, matched first so it is skipped.
static FORMATTED_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{|\{([^{}]*)\}").expect("constant pattern compiles"));
static TEMPLATE_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{([^{}]*)\}").expect("constant pattern compiles"));
/// Rust's inline format arguments: `{name}`, `{name:?}`; `{{` is skipped as above.
static RUST_INLINE_ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{|\{([A-Za-z_][A-Za-z0-9_]*)").expect("constant pattern compiles")
});
/// A string that is nothing but a key: `"password"`, `"X-Api-Key"`, `"user.email"`.
static WHOLE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$").expect("constant pattern compiles")
});
/// A format placeholder of any of the supported languages: `%s`, `%(name)r`, `%-20s`, `{}`,
/// `{v:?}`. The checks that read a message's placeholders share it.
pub(crate) const PLACEHOLDER_PATTERN: &str = r"%\(\w+\)[a-zA-Z]|%[-+# 0-9.*]*[a-zA-Z]|\{[^{}]*\}";
/// [`PLACEHOLDER_PATTERN`], compiled.
pub(crate) static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(PLACEHOLDER_PATTERN).expect("constant pattern compiles"));

/// The names the arguments in `args` mention: paths in code, the expressions interpolated
/// into strings, and strings that are a bare key used as one: followed by its value
/// (`zap.String("password", p)`) or looked up (`headers.get("Authorization")`). A string that
/// is the log call's own first argument, is followed by another string or continues one is a
/// message or a prefix (`log.info('token', 'getting list')`), not a key.
pub(crate) fn mentioned_names(source: &Source<'_>, args: Range<usize>) -> Vec<Name> {
    let mut names: Vec<Name> = source
        .code_runs(args.clone())
        .into_iter()
        .filter(|run| source.text.is_char_boundary(run.start))
        .flat_map(|run| names_in(&source.text[run]))
        .collect();
    let mut previous_end = None;
    for literal in source.literals_in(args.clone()) {
        let body = &source.text[literal.body.clone()];
        for expression in interpolations(source.language, literal.kind, body) {
            names.extend(names_in(expression));
        }
        if WHOLE_KEY.is_match(body) && used_as_key(source, &args, literal, previous_end) {
            names.push(Name {
                path: body.to_owned(),
                value: body.to_owned(),
            });
        }
        previous_end = Some(literal.span.end);
    }
    names
}

/// Whether a key-like literal is a key: followed by a value, or looked up. A literal that
/// continues the one before it (`'missing username and/or ' 'password', mechanism`, `"… " +
/// "password", x`) ends a message, and is no key; nor is one looked up inside a size call.
fn used_as_key(
    source: &Source<'_>,
    args: &Range<usize>,
    literal: &Literal,
    previous_end: Option<usize>,
) -> bool {
    let text = source.text;
    let before = text[args.start..literal.span.start].trim_end();
    let continues = before.ends_with('+') || previous_end == Some(args.start + before.len());
    if continues {
        return false;
    }
    let looked_up = before.ends_with('[') || (before.ends_with('(') && before.len() > 1);
    // A key looked up inside a size or type call shows no value: `len(response["accessToken"])`.
    if looked_up {
        let container = before
            .trim_end_matches(['[', '('])
            .trim_end_matches(|c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'));
        if crate::names::shape_only(container.trim_end()) {
            return false;
        }
    }
    let after = text[literal.span.end..args.end].trim_start();
    let valued = after
        .strip_prefix([',', ':', '='])
        .map(|rest| rest.trim_start_matches(['>', '=']).trim_start())
        .is_some_and(|value| {
            value
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '&')
        });
    !before.is_empty() && (looked_up || valued)
}

/// The bodies of the string literals in `args`.
pub(crate) fn literal_bodies<'s>(source: &'s Source<'_>, args: Range<usize>) -> Vec<&'s str> {
    source
        .literals_in(args)
        .iter()
        .map(|literal| &source.text[literal.body.clone()])
        .collect()
}

/// The one literal the arguments consist of, if they are exactly one string and nothing else.
pub(crate) fn sole_literal<'s>(source: &'s Source<'_>, args: Range<usize>) -> Option<&'s Literal> {
    let text = &source.text[args.clone()];
    let start = args.start + (text.len() - text.trim_start().len());
    let end = args.start + text.trim_end().len();
    match source.literals_in(args) {
        [literal] if literal.span == (start..end) => Some(literal),
        _ => None,
    }
}

/// Whether a literal's body takes values in, by interpolation or by placeholders.
pub(crate) fn takes_values(language: Language, literal: &Literal, body: &str) -> bool {
    !interpolations(language, literal.kind, body).is_empty() || PLACEHOLDER.is_match(body)
}

/// The expressions a literal interpolates: f-string and template fields, and Rust's inline
/// format arguments (every Rust literal the checks read is a format macro's).
fn interpolations(language: Language, kind: LiteralKind, body: &str) -> Vec<&str> {
    let pattern: &Regex = match (language, kind) {
        (_, LiteralKind::Formatted) => &FORMATTED_FIELD,
        (_, LiteralKind::Template) => &TEMPLATE_FIELD,
        (Language::Rust, LiteralKind::Plain) => &RUST_INLINE_ARG,
        (_, LiteralKind::Plain) => return Vec::new(),
    };
    pattern
        .captures_iter(body)
        .filter_map(|captures| captures.get(1).map(|field| field.as_str()))
        .collect()
}

#[cfg(test)]
mod tests;
