//! Tests of the nested-repetition guard: what it refuses and the ordinary patterns it lets through.

use super::has_large_nested_repetition;

#[test]
fn large_counts_of_groups_with_repetitions_are_found() {
    for pattern in [
        "((a|b)*){500}",
        "(a{1000}){1000}",
        "(?:x+){101}",
        "(?P<n>(?i)a?){200,}",
        "((x)*){0,150}",
        r"(\w+\s*){101}",
    ] {
        assert!(has_large_nested_repetition(pattern), "{pattern}");
    }
}

#[test]
fn ordinary_patterns_are_not() {
    for pattern in [
        r"(\w+\s*){10}",
        "(?:x+){100}",
        "((?i)ab){500}",
        "(a|b){500}",
        "[a-z]{1000}",
        r"[(*]{500}",
        r"[]*(]{500}",
        r"\({500}",
        r"\p{L}+{1}",
        r"[[:alpha:]*]{200}",
        r"(?i)\b(log|logger)\.(info|debug)\(.*TODO",
    ] {
        assert!(!has_large_nested_repetition(pattern), "{pattern}");
    }
}
