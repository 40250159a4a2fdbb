//! `log-without-context`: a log call whose only argument is a short constant message such as
//! `"Error"` or `"done"`, with no placeholder, interpolation, field or extra argument that would
//! say what happened to what.

use super::Scan;
use crate::Severity;
use crate::args::{sole_literal, takes_values};
use crate::bounds::Kept;
use crate::calls::CallKind;
use crate::catalog::LOG_WITHOUT_CONTEXT;

const FIX: &str = "say what failed and add the ids, values or error needed to act on it";
/// Longer messages usually say something; these limits catch "Error", "here", "request failed".
const MAX_WORDS: usize = 3;
const MAX_CHARS: usize = 40;

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    for call in &scan.calls {
        // Python's `exception()` attaches the traceback: that is context.
        if !matches!(call.kind, CallKind::Log(_)) || call.callee.ends_with(".exception") {
            continue;
        }
        let Some(literal) = sole_literal(source, call.args.clone()) else {
            continue;
        };
        let body = &source.text[literal.body.clone()];
        let short =
            body.split_whitespace().count() <= MAX_WORDS && body.chars().count() <= MAX_CHARS;
        if short && !takes_values(source.language, literal, body) {
            let message = format!("log message \"{body}\" carries no context");
            findings.push(source.finding(
                LOG_WITHOUT_CONTEXT,
                Severity::Info,
                call.start,
                message,
                FIX,
            ));
        }
    }
}

#[cfg(test)]
mod tests;
