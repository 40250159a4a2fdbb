//! What became of the code in a chat turn, as the response's `analysis` object and as the
//! sentences a locally assembled answer gives.

use crate::chat::blocks::MAX_ANALYZED_BLOCKS;
use ::analysis::{Cut, Finding, Truncation};
use serde_json::{Value, json};

/// The languages a block must be tagged with to be analyzed, for the messages.
const LANGUAGES: &str = "rust, java, python, javascript, typescript, go";

/// The outcome of a turn's code analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Analysis {
    /// The message has no fenced code block.
    NoCode,
    /// Fenced blocks, none tagged with a language the analyzer reads.
    NotAnalyzable {
        /// Fenced blocks in the message.
        blocks: usize,
    },
    /// The backend answered with findings.
    Done {
        /// Fenced blocks in the message.
        blocks: usize,
        /// Blocks sent for analysis.
        analyzed: usize,
        /// What the analyzer found: the first ones, when a bound cut the answer.
        findings: Vec<Finding>,
        /// Present when a bound (the analyzer's, the backend's or the turn's) cut the findings.
        truncation: Option<Truncation>,
    },
    /// The user's own EXPENSIVE budget at the backend is spent.
    RateLimited {
        /// Whole seconds until the backend takes another analysis from this user.
        retry_after_secs: u64,
    },
    /// The backend refused the code (too large, unreadable).
    Rejected {
        /// The backend's reason.
        message: String,
    },
    /// The backend did not answer usefully in time.
    Unavailable,
}

impl Analysis {
    /// The response's `analysis` object.
    pub fn to_json(&self) -> Value {
        match self {
            Self::NoCode => json!({ "status": "no_code" }),
            Self::NotAnalyzable { blocks } => {
                json!({ "status": "not_analyzable", "blocks": blocks, "message": self.sentence() })
            }
            Self::Done {
                blocks,
                analyzed,
                findings,
                truncation,
            } => {
                let mut done = json!({
                    "status": "done",
                    "blocks": blocks,
                    "analyzedBlocks": analyzed,
                    "findings": findings,
                });
                if let (Some(object), Ok(Value::Object(marker))) =
                    (done.as_object_mut(), serde_json::to_value(truncation))
                {
                    object.extend(marker);
                }
                done
            }
            Self::RateLimited { retry_after_secs } => json!({
                "status": "rate_limited",
                "retryAfter": retry_after_secs,
                "message": self.sentence(),
            }),
            Self::Rejected { .. } => json!({ "status": "rejected", "message": self.sentence() }),
            Self::Unavailable => json!({ "status": "unavailable", "message": self.sentence() }),
        }
    }

    /// True when the backend should have answered and did not.
    pub fn backend_unavailable(&self) -> bool {
        matches!(self, Self::Unavailable)
    }

    /// One or more sentences on what became of the code.
    pub fn sentence(&self) -> String {
        match self {
            Self::NoCode => format!(
                "To have code analyzed, put it in a fenced block tagged with its language \
                 (```python … ```); the analyzer reads {LANGUAGES}."
            ),
            Self::NotAnalyzable { blocks } => format!(
                "None of the {blocks} code block(s) is tagged with a language the analyzer \
                 reads ({LANGUAGES}), so nothing was analyzed."
            ),
            Self::Done {
                blocks,
                analyzed,
                findings,
                truncation,
            } => done_sentence(*blocks, *analyzed, findings, *truncation),
            Self::RateLimited { retry_after_secs } => format!(
                "Your analysis budget is spent; code can be analyzed again in \
                 {retry_after_secs} second(s)."
            ),
            Self::Rejected { message } => {
                format!("The analyzer could not take this code: {message}.")
            }
            Self::Unavailable => {
                "The analysis service is unavailable right now, so the code was not analyzed."
                    .to_owned()
            }
        }
    }
}

fn done_sentence(
    blocks: usize,
    analyzed: usize,
    findings: &[Finding],
    truncation: Option<Truncation>,
) -> String {
    let mut text = match truncation {
        None if findings.is_empty() => {
            format!("The analyzer found no problems in {analyzed} code block(s).")
        }
        None => format!(
            "The analyzer found {} problem(s) in {analyzed} code block(s):",
            findings.len()
        ),
        Some(Truncation {
            reason: Cut::Deadline,
            ..
        }) if findings.is_empty() => format!(
            "The analyzer stopped at its deadline before it found a problem in {analyzed} \
             code block(s)."
        ),
        Some(cut) => format!(
            "The analyzer found {} in {analyzed} code block(s); the first {} are listed:",
            found_words(cut),
            findings.len()
        ),
    };
    for finding in findings {
        text.push_str("\n- ");
        text.push_str(&describe(finding));
    }
    if blocks > analyzed {
        let left = blocks - analyzed;
        text.push_str(&format!(
            "\n{left} block(s) were not analyzed: untagged, in another language, or beyond the \
             first {MAX_ANALYZED_BLOCKS}."
        ));
    }
    text
}

/// How many problems a cut answer found: a floor when the analysis stopped at its deadline.
pub fn found_words(cut: Truncation) -> String {
    match cut.reason {
        Cut::Deadline => format!("at least {} problem(s) before its deadline", cut.found),
        Cut::MaxFindings | Cut::MaxAnswerBytes => format!("{} problem(s)", cut.found),
    }
}

/// `block-1.py:2:5 error sensitive-data: message Fix: …`
pub fn describe(finding: &Finding) -> String {
    let fix = finding
        .fix
        .as_deref()
        .map(|fix| format!(" Fix: {fix}"))
        .unwrap_or_default();
    format!(
        "{}:{}:{} {} {}: {}{fix}",
        finding.path,
        finding.line,
        finding.column,
        finding.severity,
        finding.rule_id,
        finding.message
    )
}
