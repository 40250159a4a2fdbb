//! Tests of the lexed source: positions in chars, bracket matching, literals in a range.

use super::Source;
use crate::{Language, SourceFile};

fn source(content: &str) -> Source<'_> {
    Source::new(&SourceFile {
        path: "a.rs",
        content,
        language: Language::Rust,
    })
}

#[test]
fn positions_are_one_based_and_counted_in_chars() {
    let file = source("ab\n\u{e9}\u{e9}x\n");
    assert_eq!(file.position(0), (1, 1));
    assert_eq!(file.position(3), (2, 1));
    assert_eq!(file.position("ab\n\u{e9}\u{e9}".len()), (2, 3));
    assert_eq!(file.line_bounds(4), 3..8);
}

#[test]
fn brackets_match_in_code_only() {
    let file = source("f(a, \"(\", g(b) /* ) */, [c])");
    assert_eq!(file.matching_close(1), Some(file.text.len() - 1));
    assert_eq!(source("f(a").matching_close(1), None);
}

#[test]
fn literals_in_a_range() {
    let file = source(r#"a("x") b("y") c("z")"#);
    let found: Vec<&str> = file
        .literals_in(7..13)
        .iter()
        .map(|literal| &file.text[literal.body.clone()])
        .collect();
    assert_eq!(found, ["y"]);
}
