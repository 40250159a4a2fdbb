//! `sensitive-data-in-logs`: a log or print call whose arguments carry a secret or personal
//! data, by name (`password`, `user.email`, `apiKey`), as a field key (`"token"`), or behind a
//! labelled placeholder (`"password={}"`). Words inside a message are not data.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::words::{is_redacting, is_sensitive};
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

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    // A nested call's arguments were read with the call around it: reading them again would
    // make a file of nested calls quadratic.
    for call in scan.calls.iter().filter(|call| !call.nested) {
        if let Some(name) = sensitive_mention(scan, call) {
            let message = format!(
                "`{}` logs `{name}`, which looks like a secret or personal data",
                call.callee
            );
            findings.push(scan.source.finding(
                SENSITIVE_DATA,
                Severity::Error,
                call.start,
                message,
                FIX,
            ));
        }
    }
}

/// The first sensitive thing `call` logs, unless it redacts.
fn sensitive_mention(scan: &Scan<'_>, call: &Call) -> Option<String> {
    let names = mentioned_names(&scan.source, call.args.clone());
    if names.iter().any(|name| is_redacting(name)) {
        return None;
    }
    let labelled = || {
        literal_bodies(&scan.source, call.args.clone())
            .into_iter()
            .find_map(|body| {
                LABELLED_PLACEHOLDER
                    .captures(body)
                    .and_then(|captures| captures.name("label"))
                    .map(|label| label.as_str().to_owned())
            })
    };
    names
        .into_iter()
        .find(|name| is_sensitive(name))
        .or_else(labelled)
}

#[cfg(test)]
mod tests;
