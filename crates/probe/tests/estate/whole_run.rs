//! Every check against the real backend and analyzer: all agree, the tables have the
//! published shape; a second run within the budgets' period finds the per-address budgets
//! spent.

use crate::helpers::Estate;
use probe::checks::CHECKS;
use probe::report::{Report, Section, Verdict};

fn section<'a>(report: &'a Report, check: &str) -> &'a Section {
    report.section(check).expect("the check ran")
}

fn observed<'a>(section: &'a Section, measurement: &str) -> &'a str {
    section
        .rows
        .iter()
        .find(|row| row.measurement.starts_with(measurement))
        .map(|row| row.observed.as_str())
        .unwrap_or_else(|| panic!("no row {measurement:?} in {section:?}"))
}

#[actix_web::test]
async fn every_measurement_agrees_then_a_second_run_finds_the_budgets_spent() {
    let estate = Estate::start().await;
    let report = probe::run(estate.settings(&[]))
        .await
        .expect("the probe runs");
    let markdown = probe::render::markdown(&report);
    assert_eq!(report.mismatches(), 0, "{markdown}");
    let checks: Vec<&str> = report
        .sections
        .iter()
        .map(|section| section.check)
        .collect();
    assert_eq!(checks, CHECKS);
    assert!(
        section(&report, "edge").skipped.is_some(),
        "no ingress here"
    );
    assert!(
        section(&report, "restart").skipped.is_some(),
        "no restart command"
    );

    let limits = section(&report, "limits");
    assert_eq!(observed(limits, "backend"), r#""credential";q=300;w=3600"#);
    assert_eq!(observed(limits, "analyzer"), r#""read";q=600;w=60"#);
    let skipped = limits
        .rows
        .iter()
        .filter(|row| matches!(row.verdict, Verdict::Skipped(_)));
    assert_eq!(
        skipped.count(),
        2,
        "ai-service and mcp-server are not in this estate"
    );

    let attempts = section(&report, "attempts");
    let line = &attempts.transcript[0];
    let five = "1:401  2:401  3:401  4:401  5:401  6:429   retry-after:";
    assert!(
        *line == format!("{five} 599") || *line == format!("{five} 600"),
        "{line}"
    );
    assert_eq!(
        attempts.transcript[1],
        probe::checks::attempts::locked_body(10)
    );

    let logins = section(&report, "login-rate");
    let first = observed(logins, "the first refusal");
    let at: u32 = first
        .strip_prefix("429 at request ")
        .and_then(|n| n.parse().ok())
        .expect("a refusal");
    // 20 per 15 minutes per address, 6 spent by the attempt ceiling, one more every 45 s.
    assert!((15..=17).contains(&at), "{first}");

    let burst = section(&report, "burst");
    assert!(observed(burst, "126 sequential lookups").starts_with("0 × 429"));
    let served: u32 = observed(burst, "240 at 12 concurrent")
        .split(' ')
        .next()
        .and_then(|count| count.parse().ok())
        .expect("a count");
    // 300 per hour: 1 + 6 + 25 + 126 spent before the burst, one more every 12 s since.
    assert!((142..=160).contains(&served), "{served}");
    assert!(observed(burst, "after waiting").starts_with("served, then 429"));

    let analyzer = section(&report, "analyzer");
    assert!(observed(analyzer, "900 ×").contains(" × 429"));
    assert!(markdown.contains("### The attempt ceiling\n"), "{markdown}");
    assert!(markdown.contains("| measurement | expected | observed | |\n|---|---|---|---|\n"));

    let again = probe::run(estate.settings(&["per-ip"]))
        .await
        .expect("the probe runs");
    assert!(again.mismatches() > 0);
    let filters = observed(section(&again, "attempts"), "the filters");
    assert!(filters.contains("spent before this run"), "{filters}");
}
