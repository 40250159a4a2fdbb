//! The vocabulary of sensitive names: splitting `apiKey`, `API_KEY` and `x-api-key` into words,
//! and deciding whether those words name a secret, personal data, or a redaction.

/// Words that on their own name a secret or personal data.
const SENSITIVE_WORDS: &[&str] = &[
    "password",
    "passwords",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "secrets",
    "token",
    "jwt",
    "bearer",
    "apikey",
    "authorization",
    "creditcard",
    "cardnumber",
    "cvv",
    "cvc",
    "ssn",
    "email",
    "emails",
    "privatekey",
];

/// Adjacent word pairs that name one: `api_key`, `privateKey`, `credit-card`, `e_mail`.
const SENSITIVE_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("private", "key"),
    ("credit", "card"),
    ("card", "number"),
    ("card", "no"),
    ("auth", "header"),
    ("social", "security"),
    ("e", "mail"),
];

/// Words that make a sensitive-sounding name describe the secret rather than hold it:
/// `password_policy`, `tokenCount`, `isEmailVerified`, `secretName`, `passwordHash`.
const DESCRIPTIVE_WORDS: &[&str] = &[
    "policy",
    "policies",
    "length",
    "len",
    "rule",
    "rules",
    "expiry",
    "expires",
    "expiration",
    "expired",
    "ttl",
    "count",
    "type",
    "limit",
    "max",
    "min",
    "num",
    "total",
    "usage",
    "valid",
    "invalid",
    "is",
    "has",
    "verified",
    "enabled",
    "required",
    "strength",
    "hash",
    "hashed",
    "digest",
    "sent",
    "template",
    "name",
    "field",
    "format",
    "pattern",
    "changed",
    "attempt",
    "attempts",
    "url",
    "path",
    "file",
    "provider",
    "domain",
    "state",
    "status",
    "kind",
    "kinds",
    "id",
    "ids",
    "bucket",
    "buckets",
    "refill",
    "permits",
    "available",
    "remaining",
    "index",
    "position",
    "span",
    "stream",
    "prefix",
    "endpoint",
];

/// Words of a call that redact what it logs: `mask(token)`, `sha256(password)`.
const REDACTING_WORDS: &[&str] = &[
    "mask",
    "masked",
    "redact",
    "redacted",
    "hash",
    "hashed",
    "sha",
    "digest",
    "fingerprint",
    "obfuscate",
    "obfuscated",
    "anonymize",
    "anonymized",
    "scrub",
    "sanitize",
    "sanitized",
    "obscure",
    "obscured",
    "hidden",
    "shadow",
    "censor",
    "censored",
    "describe",
    "summarize",
];

/// Whether `name` names a secret or personal data: its last word is one (`password`,
/// `user.email`, `resetToken`) or its last two are (`api_key`, `auth_header`). A compound
/// named for another last word names that thing, whatever secret it speaks of: `token_server`
/// is a server, `token_scopes` its scopes, `secret_arn` an identifier, `authorizationMode` a
/// mode, `grant_tokens` a list; RFC 8555's `key_authorization` is the public answer to an ACME
/// challenge.
pub(super) fn is_sensitive(name: &str) -> bool {
    let words = split_words(name);
    let [.., before, last] = words.as_slice() else {
        return words
            .first()
            .is_some_and(|only| SENSITIVE_WORDS.contains(&only.as_str()));
    };
    let key_authorization = before == "key" && last == "authorization";
    let named = (SENSITIVE_WORDS.contains(&last.as_str()) && !key_authorization)
        || SENSITIVE_PAIRS.contains(&(before.as_str(), last.as_str()));
    named
        && !words
            .iter()
            .any(|word| DESCRIPTIVE_WORDS.contains(&word.as_str()))
}

/// Whether `word` is one that describes a value rather than holds it (`status`, `length`).
pub(super) fn describes_a_value(word: &str) -> bool {
    DESCRIPTIVE_WORDS.contains(&word)
}

/// Words that make a name a verdict or a measure: `valid_resource_owner`, `token_count`.
const VERDICT_WORDS: &[&str] = &[
    "valid", "invalid", "is", "has", "verified", "enabled", "required", "count", "length", "len",
    "num", "total", "type", "kind", "uri", "url", "path", "id", "name",
];

/// Whether `name` is a verdict, a measure or a resource's locator rather than a value:
/// `valid_resource_owner`, `token_count`, `is_admin`, `authzr.uri` (a label before it,
/// `"authorization %s"`, names the resource it locates).
pub(super) fn describes(name: &str) -> bool {
    split_words(name)
        .iter()
        .any(|word| VERDICT_WORDS.contains(&word.as_str()))
}

/// Words of personal data (rather than a credential): a number formats them as well as text.
const PERSONAL_WORDS: &[&str] = &[
    "email",
    "emails",
    "creditcard",
    "cardnumber",
    "cvv",
    "cvc",
    "ssn",
    "card",
    "mail",
    "security",
];

/// Whether `name` names personal data (`card_number`, `user.email`), which a number can be.
pub(super) fn is_personal(name: &str) -> bool {
    split_words(name)
        .iter()
        .any(|word| PERSONAL_WORDS.contains(&word.as_str()))
}

/// Names of a caught error: `e`, `err`, `exc`, `refresh_error`.
const ERROR_WORDS: &[&str] = &[
    "e",
    "err",
    "error",
    "errors",
    "exc",
    "ex",
    "exception",
    "failure",
];

/// Whether `name` holds an error: a label before it (`"failed to refresh token: {}", e`)
/// names what failed, not the value shown.
pub(super) fn is_error_value(name: &str) -> bool {
    split_words(name)
        .last()
        .is_some_and(|word| ERROR_WORDS.contains(&word.as_str()))
}

/// Whether `name` is (part of) a redaction.
pub(super) fn is_redacting(name: &str) -> bool {
    split_words(name)
        .iter()
        .any(|word| REDACTING_WORDS.contains(&word.as_str()))
}

/// Splits an identifier or key into lowercase words at `_`, `-`, `.`, digits, lower-to-upper
/// changes and the end of an acronym (`APIKey` → `api`, `key`).
pub(super) fn split_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (index, &c) in chars.iter().enumerate() {
        if !c.is_alphabetic() {
            flush(&mut current, &mut words);
            continue;
        }
        let previous = index.checked_sub(1).map(|before| chars[before]);
        let next = chars.get(index + 1).copied();
        let after_lower = previous.is_some_and(char::is_lowercase);
        let acronym_end =
            previous.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase);
        if c.is_uppercase() && (after_lower || acronym_end) {
            flush(&mut current, &mut words);
        }
        current.extend(c.to_lowercase());
    }
    flush(&mut current, &mut words);
    words
}

fn flush(current: &mut String, words: &mut Vec<String>) {
    if !current.is_empty() {
        words.push(std::mem::take(current));
    }
}

#[cfg(test)]
mod tests;
