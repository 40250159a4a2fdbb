//! The report as Markdown: a header with the date (UTC), the target and the commit, then one
//! table per check with an expected and an observed column, and under each table the report's
//! shorthand lines in a code block.

use crate::report::{Report, Row, Section, Verdict};
use std::fmt::Write;

/// The whole report.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let meta = &report.meta;
    let took = meta
        .finished
        .duration_since(meta.started)
        .map_or(0, |took| took.as_secs());
    let _ = writeln!(
        out,
        "Measured by `estate-probe` on {} (UTC; the run took {took} s) against {}, commit {}.",
        humantime::format_rfc3339_seconds(meta.started),
        meta.target,
        meta.commit
    );
    let _ = writeln!(
        out,
        "\n{} measurements agree with the contract, {} do not.",
        report.passes(),
        report.mismatches()
    );
    for section in &report.sections {
        out.push('\n');
        out.push_str(&section_markdown(section));
    }
    out
}

fn section_markdown(section: &Section) -> String {
    let mut out = format!("### {}\n\n", section.title);
    if let Some(reason) = &section.skipped {
        let _ = writeln!(out, "Not measured: {reason} (check `{}`).", section.check);
        return out;
    }
    let _ = writeln!(out, "{}\n", section.lead);
    out.push_str("| measurement | expected | observed | |\n|---|---|---|---|\n");
    for row in &section.rows {
        out.push_str(&row_markdown(row));
    }
    if !section.transcript.is_empty() {
        out.push_str("\n```text\n");
        for line in &section.transcript {
            let _ = writeln!(out, "{line}");
        }
        out.push_str("```\n");
    }
    out
}

fn row_markdown(row: &Row) -> String {
    let verdict = match &row.verdict {
        Verdict::Ok => "ok".to_owned(),
        Verdict::Mismatch => "**MISMATCH**".to_owned(),
        Verdict::Measured => "measured".to_owned(),
        Verdict::Skipped(reason) => format!("skipped: {}", cell(reason)),
    };
    format!(
        "| {} | {} | {} | {verdict} |\n",
        row.measurement.replace('|', "\\|"),
        cell(&row.expected),
        cell(&row.observed)
    )
}

/// A value in a table cell: JSON, header values and the like in a code span (so `*` and `_`
/// stay literal); `|` escaped.
fn cell(text: &str) -> String {
    let literal = !text.contains('`') && text.contains(['{', '"', '*', '_', '<', '>']);
    let text = text.replace('|', "\\|");
    if literal { format!("`{text}`") } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_goes_into_a_code_span_and_pipes_are_escaped() {
        assert_eq!(cell(r#"{"a":1}"#), r#"`{"a":1}`"#);
        assert_eq!(cell("a | b"), "a \\| b");
        assert_eq!(cell("502 `error code: 502`"), "502 `error code: 502`");
        assert_eq!(cell("5 × 401"), "5 × 401");
    }
}
