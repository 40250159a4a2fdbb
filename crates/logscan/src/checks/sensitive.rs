//! `sensitive-data-in-logs`: a log or print call whose arguments carry a secret or personal
//! data, by name (`password`, `user.email`, `apiKey`), as a field key (`"token", t`), behind a
//! labelled placeholder (`"password={}"`), or inside a container a secret was stored in just
//! before (`headers["Authorization"] = …` then `log.debug("%s", headers)`: `flow`). Words
//! inside a message are not data, and neither are a value's size, type, kind or a slice of it
//! (`len(tokens)`, `token.kind`, `token[:4] + "***"`), nor, in a lexer or parser, its tokens.

use std::sync::LazyLock;

use regex::Regex;

use super::role::Role;
use super::words::{is_redacting, is_sensitive};
use super::{Scan, flow};
use crate::Severity;
use crate::args::{literal_bodies, mentioned_names};
use crate::bounds::Kept;
use crate::calls::Call;
use crate::catalog::SENSITIVE_DATA;

const FIX: &str = "log a digest or drop the field";

/// A sensitive label right before a placeholder: `password={}`, `token: %s`, `Authorization:
/// Bearer %s`, `email {}`. A label followed by words (`password for user {}`) is not one, nor
/// is a named placeholder (`token {token_state}`): its name is judged as a name.
static LABELLED_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?P<label>password|passwd|pwd|passphrase|secret|token|api[ _-]?key|",
        r"authorization|bearer|ssn|cvv|cvc|card ?number|credit ?card|e-?mail|private ?key)",
        r"\s*[=:]?\s*(?:bearer\s+)?(?:\{\d*(?::[^{}]*)?\}|%[-+# 0-9.]*[a-zA-Z])",
    ))
    .expect("constant pattern compiles")
});

/// Code that tokenizes text: there, `token` names a piece of syntax.
static LEXICAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?:[Ll]exer|[Tt]okenizer|tokenize|TokenKind|TokenType|token_type|next_token|peek_token)(?-u:\b)")
        .expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let lexical = LEXICAL
        .find_iter(scan.source.text)
        .any(|found| scan.source.is_code(found.start()));
    let stores = flow::stores(scan);
    // A nested call's arguments were read with the call around it: reading them again would
    // make a file of nested calls quadratic.
    for call in scan.calls.iter().filter(|call| !call.nested) {
        if !checked(scan, call) {
            continue;
        }
        let Some(message) = mention(scan, call, lexical, &stores) else {
            continue;
        };
        scan.secret_calls.borrow_mut().push(call.start);
        findings.push(scan.source.finding(
            SENSITIVE_DATA,
            Severity::Error,
            call.start,
            message,
            FIX,
        ));
    }
}

/// Whether `call` is in code this check reads: everything but tests and suppressed lines.
fn checked(scan: &Scan<'_>, call: &Call) -> bool {
    scan.roles.at(call.start) != Role::Test && !scan.suppressions.silences(&scan.source, call.start)
}

/// The finding's message for the first sensitive thing `call` logs, unless it redacts.
fn mention(scan: &Scan<'_>, call: &Call, lexical: bool, stores: &[flow::Store]) -> Option<String> {
    let source = &scan.source;
    let names = mentioned_names(source, call.args.clone());
    let bodies = literal_bodies(source, call.args.clone());
    if names.iter().any(|name| is_redacting(&name.value)) || bodies.iter().any(|body| is_mask(body))
    {
        return None;
    }
    let sensitive = |name: &str| is_sensitive(name) && !(lexical && is_lexical(name));
    let named = names
        .iter()
        .map(|name| name.value.clone())
        .find(|name| sensitive(name))
        .or_else(|| {
            bodies.iter().find_map(|body| {
                LABELLED_PLACEHOLDER
                    .captures(body)
                    .and_then(|captures| captures.name("label"))
                    .map(|label| label.as_str().to_owned())
            })
        });
    let callee = &call.callee;
    if let Some(name) = named {
        return Some(format!(
            "`{callee}` logs `{name}`, which looks like a secret or personal data"
        ));
    }
    flow::held(source, call, &names, stores).map(|(container, store)| {
        format!(
            "`{callee}` logs `{container}`, which holds `{}` (stored at line {})",
            store.key,
            source.line_index(store.at) + 1
        )
    })
}

/// Whether a literal masks what it stands beside: `"***"`, `"…"`, `"xxxx"`.
fn is_mask(body: &str) -> bool {
    let body = body.trim();
    let all = |c: char, least: usize| body.chars().count() >= least && body.chars().all(|d| d == c);
    all('*', 3) || all('x', 4) || all('X', 4) || body == "…"
}

/// Whether the only sensitive word of `name` is `token(s)`.
fn is_lexical(name: &str) -> bool {
    let words = super::words::split_words(name);
    words.iter().any(|word| word == "token" || word == "tokens")
        && !words
            .iter()
            .filter(|word| *word != "token" && *word != "tokens")
            .any(|word| is_sensitive(word))
}

#[cfg(test)]
mod tests;
