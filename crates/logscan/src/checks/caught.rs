//! `wrong-level-for-caught-error`: inside an error-handling block, a log call at debug level,
//! when that line is all the caught error gets: the block neither passes the
//! error itself on (re-raised, `throw e`, `return err`, `Err(e.into())`, a callback given it,
//! `map_err`), nor logs it at warn or error too, nor is an optional import (`except
//! ImportError`) or a Rust `Err(_)` arm that dismisses the error by name. Returning some other
//! error (`return Err(StatusCode::INTERNAL_SERVER_ERROR)`) drops this one: that is reported.
//! Go's standard `log.Print*` has no level, so it hides nothing.
//!
//! The rule is narrow, because real code logs most caught errors low on purpose: only a
//! debug line, which production never shows, whose message says something failed (`"chmod
//! failed: %s"`, `"Can not set up profiler"`) is reported. An info line is told where it runs;
//! a trace line is protocol tracing (a peer's malformed packet dropped); a message about a peer, a connection or teardown (`"client disconnected"`,
//! `"error while closing socket"`), of accepting, binding, upgrading or connecting (a server
//! going on to the next client or address), of resolving something optional, or of
//! loading JSON that is passed on as it came tells an event of the other side or of best-effort cleanup;
//! a handler inside another handler deals with a second failure while the first goes on;
//! a message that says no failure (`"No entry found"`, `"card declined"`) tells an expected
//! outcome; a handler its author commented (`# best effort: a failure here is harmless`)
//! says why it is quiet; a message about authentication the peer refused, about waiting or
//! polling, listening or enabling something optional tells an alternative tried in turn; a
//! debug line right after the failure was told at info or above, however many lines that call
//! took, only adds its details.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use super::blocks::Block;
use super::handled::{deliberate_message, handled};
use super::role::Role;
use crate::Severity;
use crate::args::literal_bodies;
use crate::bounds::Kept;
use crate::calls::{Call, CallKind, Level};
use crate::catalog::WRONG_LEVEL_FOR_CAUGHT_ERROR;
use crate::source::Source;

/// A message that says something failed.
static FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:fail\w*|errors?|exceptions?|raised|cannot|can ?not|can't|could ?n[o']t|",
        r"unable)\b",
    ))
    .expect("constant pattern compiles")
});
/// A message about something other than a failure of the code's own work: the other side of
/// a conversation, teardown, input that did not validate, a probe for something absent.
static NOT_OWN_FAILURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:connections?|client|peer|socket|stream|packet|frame|handshake|protocol|",
        r"https?\S*|tls|ssl|websocket|clos(?:e|ed|ing)|shut(?:down|ting)|stop(?:ping)?|",
        r"clean ?up|disconnect\w*|reconnect\w*|cancel\w*|kill\w*|send(?:ing)?|sent|receiv\w*|",
        r"read|decod\w*|pars\w*|validat\w*|invalid|find|found|missing|checking|prob\w*|",
        r"accept\w*|bind|upgrad\w*|unpaus\w*|maintain\w*|connect\w*|resolv\w*|",
        r"watch\w*|metadata|json|authenticat\w*|denied|refused|rejected|wait\w*|poll\w*|",
        r"listen\w*|enabl\w*)\b",
    ))
    .expect("constant pattern compiles")
});

const FIX: &str = "log caught errors at warn or error, with the error";

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    let blocks = scan.blocks();
    for call in &scan.calls {
        if !wrong_level(scan, call, blocks) {
            continue;
        }
        let CallKind::Log(level) = call.kind else {
            continue;
        };
        let message = format!(
            "caught error logged at {} level by `{}`",
            level.name(),
            call.callee
        );
        findings.push(source.finding(
            WRONG_LEVEL_FOR_CAUGHT_ERROR,
            Severity::Warning,
            call.start,
            message,
            FIX,
        ));
    }
}

/// Whether `call` is a caught error's only, low-level trace. Whether each block handles its
/// error on purpose is worked out once per file, for this check and the context check alike.
pub(super) fn wrong_level(scan: &Scan<'_>, call: &Call, blocks: &[Block]) -> bool {
    let CallKind::Log(level) = call.kind else {
        return false;
    };
    if level != Level::Debug
        || matches!(scan.roles.at(call.start), Role::Test | Role::Example)
        || scan.suppressions.silences(&scan.source, call.start)
    {
        return false;
    }
    // Blocks come sorted by start: the innermost block holding the call is the latest-starting
    // one that holds it.
    let before = blocks.partition_point(|block| block.range.start <= call.start);
    let innermost = blocks[..before]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, block)| block.range.contains(&call.start));
    let Some((index, block)) = innermost else {
        return false;
    };
    // Read after the cheaper tests: a file of nested calls would make it quadratic.
    if call.nested || !says_it_failed(&scan.source, call) {
        return false;
    }
    // A failure while handling another one (cleanup before the first is raised) is secondary.
    if blocks[..index]
        .iter()
        .any(|outer| outer.range.contains(&block.range.start))
    {
        return false;
    }
    // A nested call's arguments were read with the call around it.
    if !call.nested && deliberate_message(&scan.source, call) {
        return false;
    }
    // A comment in the handler says why it is quiet, unless it says the handling is owed.
    if explained(&scan.source, block) || details_a_told_failure(scan, call, block) {
        return false;
    }
    let known = scan.deliberate.borrow().get(index).copied().flatten();
    let on_purpose = known.unwrap_or_else(|| {
        let answer = handled(scan, block);
        let mut memo = scan.deliberate.borrow_mut();
        if memo.len() < blocks.len() {
            memo.resize(blocks.len(), None);
        }
        memo[index] = Some(answer);
        answer
    });
    !on_purpose
}

/// Whether the call just before `call`, in the same handler and ending at most two lines
/// above it, told the failure at info or above, so that the debug line only adds its details:
/// `logger.warning("Unable to change owner")` then `logger.debug("Error was: %s", e)`.
fn details_a_told_failure(scan: &Scan<'_>, call: &Call, block: &Block) -> bool {
    let index = scan.calls.partition_point(|other| other.start < call.start);
    let Some(previous) = index.checked_sub(1).map(|before| &scan.calls[before]) else {
        return false;
    };
    let source = &scan.source;
    block.range.contains(&previous.start)
        && source.line_index(previous.args.end) + 2 >= source.line_index(call.start)
        && matches!(
            previous.kind,
            CallKind::Log(Level::Info | Level::Warn | Level::Error)
        )
}

/// Whether a comment in `block` explains it: any comment but a `TODO`, `FIXME`, `XXX` or
/// `HACK`, which says the handling is still owed.
fn explained(source: &Source<'_>, block: &Block) -> bool {
    source
        .comments_in(block.range.clone())
        .iter()
        .any(|comment| {
            let text = source.text.get(comment.clone()).unwrap_or_default();
            !["TODO", "FIXME", "XXX", "HACK"]
                .iter()
                .any(|owed| text.contains(owed))
        })
}

/// Whether the message of `call` says something of its own failed: a failure word, and no
/// word about a peer, teardown, invalid input or a probe.
fn says_it_failed(source: &Source<'_>, call: &Call) -> bool {
    let bodies = literal_bodies(source, call.args.clone());
    bodies.iter().any(|body| FAILED.is_match(body))
        && !bodies.iter().any(|body| NOT_OWN_FAILURE.is_match(body))
}

#[cfg(test)]
mod tests;
