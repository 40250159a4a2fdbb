//! Precision and recall on real code: every source file of the open-source corpus under
//! `realcode/` (its README says where each file comes from), analyzed with every built-in type,
//! against the findings judged by hand in each set's `verdicts.json` (path, line, rule,
//! verdict `tp` or `fp`, and the reason).
//!
//! The test fails when the analyzer reports something nobody judged (judge it, then rerun), or
//! falls below a floor of precision or of recall (over the findings judged true): per set and
//! rule, the figure measured when the floor was set, rounded down to the percent ([`FLOORS`]).
//! It prints, per set and rule, the findings reported, how many are true, the precision, its
//! floor and the recall, and each finding judged true that is no longer reported:
//! `cargo test -p logscan --test precision -- --nocapture`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use logscan::{Bounds, Language, SourceFile, analysis_types, analyze};
use serde_json::Value;

const SETS: [&str; 12] = [
    "tuning", "heldout", "fresh", "unseen", "blind", "blind2", "blind3", "blind4", "blind5",
    "blind6", "blind7", "blind8",
];
/// The lowest precision and recall each rule may have on each set, in percent: what it had
/// when the floor was set, rounded down (docs/analyzer.md has the figures). Recall is over the
/// findings judged true on the set by any version of the analyzer: the rules were narrowed to
/// report fewer and surer findings, and the true ones given up are printed. A rule with no
/// finding on a set has no floor.
const FLOORS: &[(&str, &str, usize, usize)] = &[
    ("tuning", "log-without-context", 100, 100),
    ("tuning", "print-debugging", 100, 100),
    ("tuning", "wrong-level-for-caught-error", 100, 100),
    ("heldout", "sensitive-data-in-logs", 100, 100),
    ("heldout", "wrong-level-for-caught-error", 0, 100),
    ("fresh", "log-without-context", 66, 100),
    ("fresh", "print-debugging", 100, 100),
    ("fresh", "sensitive-data-in-logs", 100, 100),
    ("fresh", "wrong-level-for-caught-error", 33, 100),
    ("unseen", "log-without-context", 100, 100),
    ("unseen", "print-debugging", 97, 100),
    ("unseen", "sensitive-data-in-logs", 75, 100),
    ("unseen", "wrong-level-for-caught-error", 100, 100),
    ("blind", "log-without-context", 100, 100),
    ("blind", "print-debugging", 94, 100),
    ("blind", "wrong-level-for-caught-error", 100, 100),
    ("blind2", "log-without-context", 100, 100),
    ("blind2", "print-debugging", 96, 96),
    ("blind2", "sensitive-data-in-logs", 100, 100),
    ("blind2", "wrong-level-for-caught-error", 33, 100),
    ("blind3", "log-without-context", 100, 100),
    ("blind3", "print-debugging", 100, 100),
    ("blind3", "sensitive-data-in-logs", 87, 97),
    ("blind3", "wrong-level-for-caught-error", 13, 100),
    ("blind4", "log-without-context", 36, 100),
    ("blind4", "print-debugging", 83, 45),
    ("blind4", "sensitive-data-in-logs", 78, 91),
    ("blind4", "wrong-level-for-caught-error", 12, 100),
    ("blind5", "log-without-context", 100, 100),
    ("blind5", "print-debugging", 100, 100),
    ("blind5", "sensitive-data-in-logs", 54, 100),
    ("blind5", "wrong-level-for-caught-error", 14, 100),
    ("blind6", "log-without-context", 71, 100),
    ("blind6", "print-debugging", 93, 100),
    ("blind6", "sensitive-data-in-logs", 75, 100),
    ("blind6", "wrong-level-for-caught-error", 16, 100),
    ("blind7", "log-without-context", 28, 100),
    ("blind7", "print-debugging", 84, 100),
    ("blind7", "sensitive-data-in-logs", 29, 100),
    ("blind7", "wrong-level-for-caught-error", 21, 100),
    ("blind8", "log-without-context", 18, 100),
    ("blind8", "print-debugging", 83, 100),
    ("blind8", "sensitive-data-in-logs", 33, 100),
    ("blind8", "wrong-level-for-caught-error", 21, 100),
];
const VERDICTS: &str = "verdicts.json";

/// (path, line, rule id): one finding, as judged.
type Key = (String, u32, String);

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../realcode")
}

/// Every source file under `dir`, by path relative to it (`/`-separated), in order.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut pending = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current).expect("a readable corpus directory") {
            let path = entry.expect("a readable directory entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(dir)
                .expect("under the corpus")
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            if Language::from_path(&relative).is_some() {
                let content = fs::read_to_string(&path).expect("a UTF-8 corpus file");
                files.push((relative, content));
            }
        }
    }
    files.sort();
    files
}

/// What the analyzer reports on one set.
fn reported(dir: &Path) -> BTreeSet<Key> {
    let sources = sources(dir);
    let files: Vec<SourceFile<'_>> = sources
        .iter()
        .map(|(path, content)| SourceFile {
            path,
            content,
            language: Language::from_path(path).expect("filtered by language"),
        })
        .collect();
    let bounds = Bounds {
        max_findings: usize::MAX,
        deadline_passed: &|| false,
    };
    analyze(&files, &[], &[], &bounds)
        .expect("all built-in types")
        .findings
        .into_iter()
        .map(|finding| (finding.path, finding.line, finding.rule_id))
        .collect()
}

/// The hand-made verdicts of one set: true for a true positive.
fn verdicts(dir: &Path) -> BTreeMap<Key, bool> {
    let text = fs::read_to_string(dir.join(VERDICTS)).expect("each set has its verdicts");
    let entries: Vec<Value> = serde_json::from_str(&text).expect("a JSON array of verdicts");
    entries
        .iter()
        .map(|entry| {
            let field = |name: &str| entry[name].as_str().unwrap_or_default().to_owned();
            let line = entry["line"].as_u64().expect("a line number");
            let verdict = field("verdict");
            assert!(
                matches!(verdict.as_str(), "tp" | "fp") && !field("reason").is_empty(),
                "every verdict is tp or fp, with a reason: {entry}"
            );
            let key = (
                field("path"),
                u32::try_from(line).expect("a line"),
                field("rule"),
            );
            (key, verdict == "tp")
        })
        .collect()
}

/// One rule's figures on one set.
#[derive(Default)]
struct Tally {
    reported: usize,
    true_reported: usize,
    judged_true: usize,
}

fn ratio(part: usize, whole: usize) -> String {
    if whole == 0 {
        "—".to_owned()
    } else {
        format!("{:.0} %", 100.0 * part as f64 / whole as f64)
    }
}

#[test]
fn real_code_findings_are_judged_and_meet_their_floors() {
    let mut problems = Vec::new();
    for set in SETS {
        let dir = corpus_dir().join(set);
        let (reported, verdicts) = (reported(&dir), verdicts(&dir));
        let mut tallies: BTreeMap<&str, Tally> = analysis_types()
            .iter()
            .map(|kind| (kind.id, Tally::default()))
            .collect();
        for key in &reported {
            match verdicts.get(key) {
                None => problems.push(format!("{set}: unjudged finding {key:?}")),
                Some(&true_positive) => {
                    let tally = tallies.entry(rule_name(&key.2)).or_default();
                    tally.reported += 1;
                    tally.true_reported += usize::from(true_positive);
                }
            }
        }
        for (key, &true_positive) in &verdicts {
            if true_positive {
                tallies.entry(rule_name(&key.2)).or_default().judged_true += 1;
                if !reported.contains(key) {
                    println!("{set}: judged true, not reported {key:?}");
                }
            }
        }
        println!("{set}: {} findings judged", verdicts.len());
        println!("| rule | reported | true | precision | floor | recall |");
        for (rule, tally) in &tallies {
            let floor = FLOORS
                .iter()
                .find(|&&(wanted, id, _, _)| wanted == set && id == *rule)
                .map(|&(_, _, precision, recall)| (precision, recall));
            println!(
                "| {rule} | {} | {} | {} | {} | {} |",
                tally.reported,
                tally.true_reported,
                ratio(tally.true_reported, tally.reported),
                floor.map_or("—".to_owned(), |(precision, _)| format!("{precision} %")),
                ratio(tally.true_reported, tally.judged_true)
            );
            let Some((precision, recall)) = floor else {
                continue;
            };
            if 100 * tally.true_reported < precision * tally.reported {
                problems.push(format!(
                    "{set}: {rule} precision {} of {} is below its floor of {precision} %",
                    tally.true_reported, tally.reported
                ));
            }
            if 100 * tally.true_reported < recall * tally.judged_true {
                problems.push(format!(
                    "{set}: {rule} recall {} of {} is below its floor of {recall} %",
                    tally.true_reported, tally.judged_true
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The built-in rule id `rule` names, as a `'static` key of the tallies.
fn rule_name(rule: &str) -> &'static str {
    analysis_types()
        .iter()
        .map(|kind| kind.id)
        .find(|id| *id == rule)
        .unwrap_or("other")
}
