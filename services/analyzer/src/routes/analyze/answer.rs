//! The answer of `POST /analyze`, bounded: `{"findings":[…],"summary":{"files","findings"}}`,
//! plus `"truncated":true`, `"reason"` and `"found"` in the summary when a bound cut it
//! (`deadline` before `max_findings` when both did; `max_answer_bytes` when the findings kept
//! would not fit).

use actix_web::HttpResponse;
use analysis::{AnalyzeAnswer, Cut, Summary, Truncation, keep_within};
use logscan::Report;

/// Room left in the answer bound for everything but the findings array: the summary at its
/// longest and the object around both take under 200 bytes.
const SUMMARY_RESERVE_BYTES: usize = 256;

/// The 200 for `report` over `files` files, at most `max_answer_bytes` long.
pub fn respond(files: usize, report: Report, max_answer_bytes: usize) -> HttpResponse {
    let count = |length: usize| u64::try_from(length).unwrap_or(u64::MAX);
    let kept = count(report.findings.len());
    let reason = if report.stopped_at_deadline {
        Some(Cut::Deadline)
    } else {
        (report.found > kept).then_some(Cut::MaxFindings)
    };
    let mut summary = Summary {
        files: count(files),
        findings: kept,
        truncation: reason.map(|reason| Truncation::new(reason, report.found)),
    };
    let mut findings = report.findings;
    let array_bytes = max_answer_bytes.saturating_sub(SUMMARY_RESERVE_BYTES);
    keep_within(&mut findings, &mut summary, usize::MAX, array_bytes);
    HttpResponse::Ok().json(AnalyzeAnswer { findings, summary })
}
