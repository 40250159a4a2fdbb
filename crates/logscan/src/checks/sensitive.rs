//! `sensitive-data-in-logs`: a log or print call whose arguments carry a secret or personal
//! data, by a name whose last word names one (`password`, `user.email`, `resetToken`,
//! `api_key`), as a field key (`"token", t`), behind a labelled placeholder (`"password={}"`),
//! or inside a container a credential was stored in just before (`headers["Authorization"] =
//! …` then `log.debug("%s", headers)`: `flow`). Words inside a message are not data, and
//! neither are a compound named for another last word (`token_scopes`, `secret_arn`), a
//! container looked into by a key (`api_key["id"]`), a value's size, type, kind or a slice of
//! it (`len(tokens)`, `token.kind`, `token[:4] + "***"`), values the message calls descriptors
//! (`"Authorization status {:?}"`), a label after a negation (`"no password for %s"`) or before
//! a place named by two placeholders (`"secret %s/%s"`), a kind named by an enumeration
//! (`Channel.EMAIL`), a container whose credential was masked where it was stored, the code's
//! own default for a secret nobody gave (`if password is None: password = ''`), nor, in
//! a lexer or parser or in code that never speaks of credentials, its tokens, nor a token that
//! marks a position, a place on a ring or a handle (`next_token`, `first_token`,
//! `acquire_token`: `tokens.rs`), nor what its declaration or its placeholder says is a path
//! or a number (`private_key: PathBuf`, `"api=%d"`), nor a program's output to the person
//! running it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::declared::{declared_not_text, formats_numbers, set_to_constant};
use super::role::Role;
use super::tokens::{is_bare_token, is_lexical, is_position_token, kind_of_token};
use super::words::{describes, is_error_value, is_personal, is_redacting, is_sensitive};
use super::{Scan, flow};
use crate::Severity;
use crate::args::{PLACEHOLDER, PLACEHOLDER_PATTERN, literal_bodies, mentioned_names};
use crate::bounds::Kept;
use crate::calls::{Call, CallKind};
use crate::catalog::SENSITIVE_DATA;
use crate::source::Source;

const FIX: &str = "log a digest or drop the field";

/// How many distinct names a file's declarations are searched for: each search reads the
/// whole file, so a file of thousands of distinct names stays linear.
const DECLARATION_LOOKUPS: usize = 64;

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

/// A placeholder joined to the one before it by `/` or `.` (`"Saving secret %s/%s"`, `"token
/// {}.{}"`): together they name a place, a path or a key, not the secret's value.
static JOINED_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^[/.](?:{PLACEHOLDER_PATTERN})")).expect("constant pattern compiles")
});

/// A message saying the secret is not there (`"userinfo does not have username or email %s"`,
/// `"no password for %s"`): its label names what is missing, not the value shown.
static NEGATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:no|not|without|missing|lacks?|none)\b[^.;:,]{0,40}$")
        .expect("constant pattern compiles")
});
/// The word right before a placeholder: what the message calls the value it shows.
static PLACEHOLDER_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(\w+)[\s:=]*(?:{PLACEHOLDER_PATTERN})"))
        .expect("constant pattern compiles")
});

/// Functions that format what they are given: a value passed through them is what is shown.
const FORMATTING: [&str; 8] = [
    "format",
    "str",
    "repr",
    "to_string",
    "String",
    "join",
    "sprintf",
    "Sprintf",
];

/// Words of code that deals with credentials. A file with none of them that says `token`
/// means something else by it: mio's event `Token`, a server's slot token, a parser's tokens,
/// a QUIC path challenge (whose file speaks of authenticated packets and crypto sessions, which
/// are no credentials).
static CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?-u:\b)(?:authori[sz]ation|auth_?token|credentials?|passw(?:or)?d|bearer|log_?in|",
        r"oauth\w*|jwt|api_?key|access_?token|refresh_?token)(?-u:\b)",
    ))
    .expect("constant pattern compiles")
});

/// Code that tokenizes text, or meters with a token bucket: there, `token` names a piece of
/// syntax or a permit.
static LEXICAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u:\b)(?:[Ll]exer|[Tt]okenizer|tokenize|TokenKind|TokenType|token_type|next_token|",
        r"peek_token|[Tt]oken_?[Bb]ucket|TOKEN_BUCKET)(?-u:\b)",
    ))
    .expect("constant pattern compiles")
});

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let text = scan.source.text;
    let lexical = LEXICAL
        .find_iter(text)
        .any(|found| scan.source.is_code(found.start()));
    // Read only when a bare `token` is met: most files have none.
    let uncredentialed = std::cell::OnceCell::new();
    let stores = flow::stores(scan);
    let declared = RefCell::new(HashMap::new());
    // A nested call's arguments were read with the call around it: reading them again would
    // make a file of nested calls quadratic.
    for call in scan.calls.iter().filter(|call| !call.nested) {
        if !checked(scan, call) {
            continue;
        }
        let not_secret = |name: &str| {
            (lexical && is_lexical(name))
                || is_position_token(name)
                || (is_bare_token(name)
                    && *uncredentialed.get_or_init(|| !CREDENTIALS.is_match(text)))
                || not_text(&scan.source, name, &mut declared.borrow_mut())
        };
        let Some(message) = mention(scan, call, &not_secret, &stores) else {
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

/// Whether `call` is in code this check reads: everything but tests, suppressed lines and a
/// program's output: an example or an entry point printing what its user typed or asked for
/// (`println!("Secret is {passwd}")` in a demo of password input) writes to that person, not
/// to a log. Its log calls are read.
fn checked(scan: &Scan<'_>, call: &Call) -> bool {
    let role = scan.roles.at(call.start);
    // A print into a file it was given (`print(SETTINGS, file=f)`) writes data, not a log.
    let output = call.kind == CallKind::Print
        && (matches!(role, Role::Example | Role::Cli)
            || super::print::writes_to_given_stream(&scan.source, call));
    role != Role::Test && !output && !scan.suppressions.silences(&scan.source, call.start)
}

/// Whether the file declares `name` a path or a number, asked once per name and at most
/// [`DECLARATION_LOOKUPS`] names per file.
fn not_text(source: &Source<'_>, name: &str, known: &mut HashMap<String, bool>) -> bool {
    if let Some(&answer) = known.get(name) {
        return answer;
    }
    if known.len() >= DECLARATION_LOOKUPS {
        return false;
    }
    let answer = declared_not_text(source, name);
    known.insert(name.to_owned(), answer);
    answer
}

/// The finding's message for the first sensitive thing `call` logs, unless it redacts.
fn mention(
    scan: &Scan<'_>,
    call: &Call,
    not_secret: &dyn Fn(&str) -> bool,
    stores: &[flow::Store],
) -> Option<String> {
    let source = &scan.source;
    let names = mentioned_names(source, call.args.clone());
    let bodies = literal_bodies(source, call.args.clone());
    if names.iter().any(|name| is_redacting(&name.value))
        || bodies.iter().any(|body| is_mask(body))
        || repeats_a_mask(source, call)
    {
        return None;
    }
    // Numbers only: a credential is text, though a card number is a number.
    let numeric = formats_numbers(&bodies);
    let shown = |name: &str| !numeric || is_personal(name);
    let sensitive = |name: &str| is_sensitive(name) && !not_secret(name) && shown(name);
    let named = names
        .iter()
        .find(|name| sensitive(&name.value) && !set_to_constant(source, &name.path, call.start))
        .map(|name| name.value.clone())
        .or_else(|| {
            // A label before a value whose name describes (`"Valid token: %s",
            // valid_resource_owner`) labels a verdict, not the secret; before an error
            // (`"failed to refresh OAuth token: {}", e`), what failed; before a value the code
            // set to a constant just above (`password = ''`), that default. Formatting calls
            // (`.format(str(e))`) show what they are given and are passed over. Read only once
            // a label is found.
            let describing = || {
                let mut shown = names
                    .iter()
                    .filter(|name| !FORMATTING.contains(&name.value.as_str()))
                    .peekable();
                shown.peek().is_some()
                    && shown.all(|name| {
                        describes(&name.value)
                            || is_error_value(&name.value)
                            || set_to_constant(source, &name.path, call.start)
                    })
            };
            let label = bodies.iter().find_map(|body| {
                LABELLED_PLACEHOLDER
                    .captures(body)
                    .filter(|captures| {
                        let end = captures.get(0).map_or(0, |whole| whole.end());
                        !JOINED_PLACEHOLDER.is_match(&body[end..])
                    })
                    .and_then(|captures| captures.name("label"))
                    .filter(|label| !NEGATED.is_match(&body[..label.start()]))
                    .map(|label| label.as_str().to_owned())
                    .filter(|label| shown(label) && !answered(label, &names))
                    .filter(|label| {
                        !not_secret(label)
                            || names.iter().any(|name| {
                                kind_of_token(&name.value)
                                    && is_sensitive(&name.value)
                                    && !is_position_token(&name.value)
                            })
                    })
            });
            label.filter(|_| !describing())
        });
    let callee = &call.callee;
    let message = match named {
        Some(name) => {
            format!("`{callee}` logs `{name}`, which looks like a secret or personal data")
        }
        None => {
            let (container, store) = flow::held(source, call, &names, stores)?;
            format!(
                "`{callee}` logs `{container}`, which holds `{}` (stored at line {})",
                store.key,
                source.line_index(store.at) + 1
            )
        }
    };
    // Read last, for the few calls that get this far.
    (!shows_descriptors(&bodies)).then_some(message)
}

/// Whether a value the call names was already judged for the label's word, and not found a
/// secret: `"Verified Logout Token: {}".format(logout_token.to_dict())` labels the token's
/// claims, read as `to_dict`.
fn answered(label: &str, names: &[crate::names::Name]) -> bool {
    let Some(word) = super::words::split_words(label).pop() else {
        return false;
    };
    names.iter().any(|name| {
        !is_sensitive(&name.value) && super::words::split_words(&name.path).contains(&word)
    })
}

/// Whether every placeholder of the messages is called a descriptor by the word before it
/// (`"Authorization status {:?}"`, `"token length %d"`): the values shown describe a secret.
fn shows_descriptors(bodies: &[&str]) -> bool {
    let placeholders: usize = bodies
        .iter()
        .map(|body| PLACEHOLDER.find_iter(body).count())
        .sum();
    let described = bodies
        .iter()
        .flat_map(|body| PLACEHOLDER_NOUN.captures_iter(body))
        .filter(|captures| super::words::describes_a_value(&captures[1].to_ascii_lowercase()))
        .count();
    placeholders > 0 && described == placeholders
}

/// Whether a literal masks what it stands beside: `"***"`, `"…"`, `"xxxx"`.
fn is_mask(body: &str) -> bool {
    let body = body.trim();
    let all = |c: char, least: usize| body.chars().count() >= least && body.chars().all(|d| d == c);
    all('*', 3) || all('x', 4) || all('X', 4) || body == "…"
}

/// Whether the arguments repeat a one-character mask by a length: `'*' * len(password)`.
fn repeats_a_mask(source: &Source<'_>, call: &Call) -> bool {
    source.literals_in(call.args.clone()).iter().any(|literal| {
        let body = &source.text[literal.body.clone()];
        matches!(body, "*" | "x" | "X" | "#" | "•")
            && source.text[literal.span.end..call.args.end]
                .trim_start()
                .starts_with('*')
    })
}

#[cfg(test)]
mod tests;
