//! `wrong-level-for-caught-error`: inside an error-handling block, a log call at trace, debug
//! or info level, when that line is all the caught error gets: the block neither passes the
//! error itself on (re-raised, `throw e`, `return err`, `Err(e.into())`, a callback given it,
//! `map_err`), nor logs it at warn or error too, nor is an optional import (`except
//! ImportError`) or a Rust `Err(_)` arm that dismisses the error by name. Returning some other
//! error (`return Err(StatusCode::INTERNAL_SERVER_ERROR)`) drops this one: that is reported.
//! Go's standard `log.Print*` has no level, so it hides nothing.

use super::Scan;
use super::blocks::Block;
use super::handled::{deliberate_message, handled};
use super::role::Role;
use crate::Severity;
use crate::bounds::Kept;
use crate::calls::{Call, CallKind};
use crate::catalog::WRONG_LEVEL_FOR_CAUGHT_ERROR;

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
    if !level.is_low()
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
    // A nested call's arguments were read with the call around it.
    if !call.nested && deliberate_message(&scan.source, call) {
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

#[cfg(test)]
mod tests;
