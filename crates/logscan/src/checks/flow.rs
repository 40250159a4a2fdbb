//! The one data flow `sensitive-data-in-logs` follows: a secret stored into a container under a
//! sensitive key (`headers["Authorization"] = …`, `headers[name] = …` after `name =
//! "Authorization"`, `headers.insert(AUTHORIZATION, …)`), then the container logged whole
//! further down the same function.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::words::{is_sensitive, split_words};
use crate::calls::Call;
use crate::names::Name;
use crate::source::Source;

/// How far below its store a container is followed, in lines.
const MAX_FLOW_LINES: usize = 100;

/// A sensitive value stored into `container` under `key`, at byte `at`.
#[derive(Debug, Clone)]
pub(super) struct Store {
    pub container: String,
    pub key: String,
    pub at: usize,
}

static STORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<container>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*",
        r"(?:\[\s*(?P<key>[\x22'][^\x22'\n]*[\x22']|[A-Za-z_$][\w$]*)\s*\]\s*=(?P<assigned>[^=])",
        r"|\.\s*(?:insert|set|put|append|add|Set|Add|setHeader|set_header|header)\s*\(\s*",
        r"(?P<argument>[\x22'][^\x22'\n]*[\x22']|[A-Za-z_$][\w$]*(?:::[A-Za-z_$][\w$]*)*)\s*,)",
    ))
    .expect("constant pattern compiles")
});
/// Words without which no key in the file can be sensitive: most files are skipped on them.
static SENSITIVE_HINT: LazyLock<Regex> = LazyLock::new(|| {
    // Literals in their three usual cases, not `(?i)`: a plain alternation is searched with SIMD.
    let words = [
        "authoriz",
        "token",
        "passw",
        "secret",
        "api_key",
        "apikey",
        "api-key",
        "bearer",
        "cookie",
        "credential",
    ];
    let spellings: Vec<String> = words
        .iter()
        .flat_map(|word| {
            let mut capital = word.to_string();
            capital[..1].make_ascii_uppercase();
            [word.to_string(), capital, word.to_ascii_uppercase()]
        })
        .chain(["apiKey".to_owned(), "ApiKey".to_owned()])
        .collect();
    Regex::new(&spellings.join("|")).expect("literal alternation compiles")
});
/// `name = "literal"`: what an identifier used as a key holds.
static CONSTANT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?-u:\b)(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=\s*["'](?P<value>[^"'\n]*)["']"#,
    )
    .expect("constant pattern compiles")
});
/// A line that starts a function: the end of what a store can flow to.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:pub\s+)?(?:async\s+)?(?:def|fn|func|function)\b")
        .expect("constant pattern compiles")
});

/// A sensitive literal an identifier is set to: `(name, value, offset)`.
type Constant = (String, String, usize);

/// Every store of a sensitive key in the file. Only the lines that can hold one are read: those
/// with a sensitive word, and those naming an identifier set to a sensitive literal.
pub(super) fn stores(scan: &Scan<'_>) -> Vec<Store> {
    let source = &scan.source;
    if scan.calls.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<usize> = SENSITIVE_HINT
        .find_iter(source.text)
        .map(|found| source.line_index(found.start()))
        .collect();
    lines.dedup();
    if lines.is_empty() {
        return Vec::new();
    }
    let constants = constants(source, &lines);
    for (name, _, _) in &constants {
        lines.extend(
            source
                .text
                .match_indices(name.as_str())
                .map(|(at, _)| source.line_index(at)),
        );
    }
    lines.sort_unstable();
    lines.dedup();
    let mut found = Vec::new();
    for line in lines {
        let bounds = source.line_bounds(source.line_starts()[line]);
        if !may_store(&source.text[bounds.clone()]) {
            continue;
        }
        for captures in STORE.captures_iter(&source.text[bounds.clone()]) {
            let (Some(container), Some(key)) = (
                captures.name("container"),
                captures.name("key").or_else(|| captures.name("argument")),
            ) else {
                continue;
            };
            let at = bounds.start + container.start();
            if !source.is_code(at) {
                continue;
            }
            let key = resolve(&constants, key.as_str(), at);
            let value_start = captures.name("assigned").map_or_else(
                || captures.get(0).map_or(0, |whole| whole.end()),
                |value| value.start(),
            );
            let value = &source.text[bounds.start + value_start..bounds.end];
            if is_sensitive(&key)
                && !names_a_token(&key)
                && !is_constant(value)
                && !MASKED.is_match(value)
            {
                found.push(Store {
                    container: container.as_str().to_owned(),
                    key,
                    at,
                });
            }
        }
    }
    found
}

/// Whether a key names a token: stored into a container, a token is as often a lock's, a
/// page's or a request's as a credential (`lock["token"] = token`, OAuth 1's public
/// `oauth_token` in an authorization URL's parameters), so only keys that name a credential
/// of their own (`Authorization`, `password`, `api_key`) are followed.
fn names_a_token(key: &str) -> bool {
    split_words(key).last().is_some_and(|word| word == "token")
}

/// A value masked where it is stored: a repeated mask character or a slice of the secret
/// (`"*" * 36 + self._api_key[-4:]`, `&key[..4]`).
static MASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"["'][*xX#•]["']\s*\*|"#,
        r"\[\s*-?\d+\s*(?::|\.\.=?)\s*-?\d*\s*\]|\[\s*(?::|\.\.=?)\s*-?\d+\s*\]",
    ))
    .expect("constant pattern compiles")
});

/// Whether what a store assigns is a constant (`kwargs["passwd"] = "<hidden>"`,
/// `opts["keep_acl_in_token"] = False`): a literal alone replaces the secret, it holds none.
pub(super) fn is_constant(assigned: &str) -> bool {
    let value = assigned.trim().trim_end_matches([';', ')', ',']).trim();
    let quoted = [('"', '"'), ('\'', '\'')].iter().any(|&(open, close)| {
        value.len() >= 2
            && value.starts_with(open)
            && value.ends_with(close)
            && !value[1..value.len() - 1].contains(open)
    });
    quoted
        || matches!(
            value,
            "True" | "False" | "None" | "true" | "false" | "null" | "nil" | "undefined"
        )
        || (!value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-'))
}

/// Whether a line can hold a store at all (most lines with a sensitive word are log calls):
/// an indexed assignment, or one of the setter calls.
fn may_store(line: &str) -> bool {
    (line.contains('[') && line.contains('='))
        || [
            ".insert", ".set", ".put", ".append", ".add", ".Set", ".Add", ".header",
        ]
        .iter()
        .any(|setter| line.contains(setter))
}

/// The identifiers set to a sensitive literal on `lines`.
fn constants(source: &Source<'_>, lines: &[usize]) -> Vec<Constant> {
    let mut found = Vec::new();
    for &line in lines {
        let bounds = source.line_bounds(source.line_starts()[line]);
        let text = &source.text[bounds.clone()];
        if !text.contains('=') || !(text.contains('"') || text.contains('\'')) {
            continue;
        }
        for captures in CONSTANT.captures_iter(text) {
            let (Some(name), Some(value)) = (captures.name("name"), captures.name("value")) else {
                continue;
            };
            let at = bounds.start + name.start();
            if source.is_code(at) && is_sensitive(value.as_str()) {
                found.push((name.as_str().to_owned(), value.as_str().to_owned(), at));
            }
        }
    }
    found
}

/// A key as written: a literal's body, or the sensitive literal an identifier was last set to
/// above `before`.
fn resolve(constants: &[Constant], key: &str, before: usize) -> String {
    if let Some(body) = key.strip_prefix(['"', '\'']) {
        return body.trim_end_matches(['"', '\'']).to_owned();
    }
    constants
        .iter()
        .rev()
        .find(|(name, _, at)| name == key && *at < before)
        .map_or_else(|| key.to_owned(), |(_, value, _)| value.clone())
}

/// The container among `names` that `call` logs after a sensitive store into it, in the same
/// function and at most [`MAX_FLOW_LINES`] below it.
pub(super) fn held<'s>(
    source: &Source<'_>,
    call: &Call,
    names: &[Name],
    stores: &'s [Store],
) -> Option<(String, &'s Store)> {
    let call_line = source.line_index(call.start);
    stores
        .iter()
        .filter(|store| store.at < call.start)
        .filter(|store| call_line - source.line_index(store.at) <= MAX_FLOW_LINES)
        .find(|store| {
            names.iter().any(|name| name.path == store.container)
                && same_function(source, store.at..call.start)
        })
        .map(|store| (store.container.clone(), store))
}

/// Whether no function starts, at the store's indentation or less, between its two ends.
fn same_function(source: &Source<'_>, span: Range<usize>) -> bool {
    let store_indent = source.indent(span.start);
    let first = source.line_index(span.start) + 1;
    let last = source.line_index(span.end);
    (first..last).all(|index| {
        let start = source.line_starts()[index];
        let line = &source.text[source.line_bounds(start)];
        !(DEFINITION.is_match(line) && source.indent(start) <= store_indent)
    })
}
