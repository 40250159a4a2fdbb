//! The marker's JSON and what `keep_within` keeps.

use super::{Cut, Summary, Truncation, keep_within};
use serde_json::json;

fn summary(findings: u64) -> Summary {
    Summary {
        files: 1,
        findings,
        truncation: None,
    }
}

#[test]
fn a_whole_answer_keeps_its_old_summary_and_a_cut_one_adds_the_marker() {
    assert_eq!(
        serde_json::to_string(&summary(2)).unwrap(),
        r#"{"files":1,"findings":2}"#
    );
    let cut = Summary {
        truncation: Some(Truncation::new(Cut::MaxAnswerBytes, 9)),
        ..summary(2)
    };
    let text = serde_json::to_string(&cut).unwrap();
    assert_eq!(
        text,
        r#"{"files":1,"findings":2,"truncated":true,"reason":"max_answer_bytes","found":9}"#
    );
    assert_eq!(serde_json::from_str::<Summary>(&text).unwrap(), cut);
    let old: Summary = serde_json::from_str(r#"{"files":1,"findings":2}"#).unwrap();
    assert_eq!(old, summary(2));
}

#[test]
fn the_cap_keeps_the_first_findings_and_says_how_many_were_found() {
    let mut findings: Vec<u32> = (1..=10).collect();
    let mut counts = summary(10);
    keep_within(&mut findings, &mut counts, 3, 1024);
    assert_eq!(findings, [1, 2, 3]);
    assert_eq!(
        counts.truncation,
        Some(Truncation::new(Cut::MaxFindings, 10))
    );
    assert_eq!((counts.findings, counts.found()), (3, 10));
}

#[test]
fn the_byte_bound_counts_the_whole_array() {
    // `["aaaa","aaaa"]` is 15 bytes: 2 brackets, 6 per entry, one comma.
    let mut findings = vec!["aaaa"; 5];
    let mut counts = summary(5);
    keep_within(&mut findings, &mut counts, 100, 15);
    assert_eq!(findings.len(), 2);
    assert_eq!(
        serde_json::to_vec(&findings).unwrap().len(),
        15,
        "exactly at the bound"
    );
    assert_eq!(
        counts.truncation,
        Some(Truncation::new(Cut::MaxAnswerBytes, 5))
    );
}

#[test]
fn within_both_bounds_nothing_changes_and_an_earlier_cut_stands() {
    let mut findings = vec![1, 2];
    let mut counts = summary(2);
    keep_within(&mut findings, &mut counts, 2, 1024);
    assert_eq!((findings.len(), counts), (2, summary(2)));

    let upstream = Truncation::new(Cut::Deadline, 40);
    let mut findings: Vec<u32> = (0..30).collect();
    let mut counts = Summary {
        truncation: Some(upstream),
        ..summary(30)
    };
    keep_within(&mut findings, &mut counts, 5, 1024);
    assert_eq!(findings.len(), 5);
    assert_eq!(
        serde_json::to_value(counts).unwrap(),
        json!({ "files": 1, "findings": 5, "truncated": true, "reason": "deadline", "found": 40 })
    );
}
