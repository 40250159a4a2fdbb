//! Reads a call's arguments: the names they mention (in code, in interpolations, as field
//! keys), labelled placeholders in their strings, and whether they are one constant string.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::Language;
use crate::lexer::{Literal, LiteralKind};
use crate::source::Source;

static IDENTIFIER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z_$][A-Za-z0-9_$]*").expect("constant pattern compiles"));
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
/// A format placeholder of any of the supported languages.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"%\(\w+\)[a-zA-Z]|%[-+# 0-9.*]*[a-zA-Z]|\{[^{}]*\}")
        .expect("constant pattern compiles")
});

/// The names the arguments in `args` mention: identifiers in code, the expressions
/// interpolated into strings, and strings that are a bare key (`"password"` in
/// `zap.String("password", p)` or `headers.get("Authorization")`).
pub(crate) fn mentioned_names(source: &Source<'_>, args: Range<usize>) -> Vec<String> {
    let mut names: Vec<String> = code_runs(source, args.clone())
        .flat_map(|run| {
            IDENTIFIER
                .find_iter(&source.text[run])
                .map(|name| name.as_str().to_owned())
        })
        .collect();
    for literal in source.literals_in(args) {
        let body = &source.text[literal.body.clone()];
        for expression in interpolations(source.language, literal.kind, body) {
            names.extend(
                IDENTIFIER
                    .find_iter(expression)
                    .map(|name| name.as_str().to_owned()),
            );
        }
        if WHOLE_KEY.is_match(body) {
            names.push(body.to_owned());
        }
    }
    names
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

/// The maximal runs of code bytes in `range`.
fn code_runs(source: &Source<'_>, range: Range<usize>) -> impl Iterator<Item = Range<usize>> {
    let mut runs = Vec::new();
    let mut run_start = None;
    for offset in range.clone() {
        match (source.is_code(offset), run_start) {
            (true, None) => run_start = Some(offset),
            (false, Some(start)) => {
                runs.push(start..offset);
                run_start = None;
            }
            _ => {}
        }
    }
    if let Some(start) = run_start {
        runs.push(start..range.end);
    }
    runs.into_iter()
        .filter(|run| source.text.is_char_boundary(run.start))
}

#[cfg(test)]
mod tests;
