//! What a token is, by its name: a bare `token`, one that says its kind (`access_token`), one
//! that marks a position, a request or a handle rather than a credential (`next_token`,
//! `first_token`, `acquire_token`), or a piece of syntax in code that tokenizes text.

use super::words::{is_sensitive, split_words};

/// Whether `name` is just `token` or `tokens`, with no word saying which kind.
pub(super) fn is_bare_token(name: &str) -> bool {
    matches!(split_words(name).as_slice(), [word] if word == "token" || word == "tokens")
}

/// Whether `name` says which kind of token it is: `resetToken`, `access_token`.
pub(super) fn kind_of_token(name: &str) -> bool {
    let words = split_words(name);
    words.len() > 1 && words.iter().any(|word| word == "token" || word == "tokens")
}

/// Whether `name` is a token that marks a position, a request or a handle, not a credential:
/// a paginator's `starting_token`, `next_token`, `continuation_token`, a `cancel_token`, a
/// partitioner's `first_token` or `token_range`, a map from tokens (`token_to_host_owner`), a
/// semaphore's `acquire_token`, a lock's, a lease's, a reservation's or a slot's token, a reply
/// inbox's, a captcha's (`captcha_token`: a one-time proof, no account's), a device's (a push
/// service's address of a phone), a version's (`prerelease_token`, `rc`).
pub(super) fn is_position_token(name: &str) -> bool {
    let words = split_words(name);
    let token = |word: &String| word == "token" || word == "tokens";
    let mapped = words
        .windows(2)
        .any(|pair| token(&pair[0]) && pair[1] == "to");
    words.iter().any(token)
        && (mapped
            || words.iter().any(|word| {
                matches!(
                    word.as_str(),
                    "starting"
                        | "start"
                        | "prev"
                        | "previous"
                        | "batch"
                        | "acquire"
                        | "lock"
                        | "lease"
                        | "semaphore"
                        | "permit"
                        | "inbox"
                        | "reply"
                        | "reservation"
                        | "slot"
                        | "captcha"
                        | "device"
                        | "prerelease"
                        | "next"
                        | "continuation"
                        | "page"
                        | "pagination"
                        | "cursor"
                        | "cancel"
                        | "cancellation"
                        | "resume"
                        | "sync"
                        | "first"
                        | "last"
                        | "end"
                        | "ending"
                        | "lower"
                        | "upper"
                        | "range"
                        | "ranges"
                        | "ring"
                        | "partition"
                        | "partitioner"
                        | "replica"
                        | "replicas"
                        | "tablet"
                        | "vnode"
                )
            }))
}

/// Whether the only sensitive word of `name` is `token(s)`.
pub(super) fn is_lexical(name: &str) -> bool {
    let words = split_words(name);
    words.iter().any(|word| word == "token" || word == "tokens")
        && !words
            .iter()
            .filter(|word| *word != "token" && *word != "tokens")
            .any(|word| is_sensitive(word))
}
