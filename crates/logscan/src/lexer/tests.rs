//! Tests of the lexer: comments, every language's literal forms, and what stays code.

use super::{Class, LiteralKind, lex};
use crate::Language;

/// The bodies of the literals `lex` finds, with their kinds.
fn bodies(text: &str, language: Language) -> Vec<(&str, LiteralKind)> {
    lex(text, language)
        .literals
        .into_iter()
        .map(|literal| (&text[literal.body], literal.kind))
        .collect()
}

/// The text `lex` classifies as `class`, joined.
fn text_of(text: &str, language: Language, class: Class) -> String {
    let lexed = lex(text, language);
    text.char_indices()
        .filter(|&(at, _)| lexed.classes[at] == class)
        .map(|(_, c)| c)
        .collect()
}

#[test]
fn comments_are_not_code() {
    let rust = "let a = 1; // b(\"c\")\n/* d { */ e";
    assert_eq!(
        text_of(rust, Language::Rust, Class::Comment),
        "// b(\"c\")/* d { */"
    );
    let python = "x = 1  # print('y')\nz";
    assert_eq!(
        text_of(python, Language::Python, Class::Comment),
        "# print('y')"
    );
    assert_eq!(text_of("a // b", Language::Python, Class::Comment), "");
}

#[test]
fn rust_strings_raw_strings_chars_and_lifetimes() {
    let text = r###"f(&'a x, "q\"{}", r#"raw "quoted""#, 'c', '\n', 'é')"###;
    let found = bodies(text, Language::Rust);
    let texts: Vec<&str> = found.iter().map(|(body, _)| *body).collect();
    assert_eq!(texts, ["q\\\"{}", "raw \"quoted\"", "c", "\\n", "é"]);
    assert!(text_of(text, Language::Rust, Class::Code).contains("&'a x"));
}

#[test]
fn python_prefixes_and_triple_quotes() {
    let text = "a(f\"x {y}\", rb'z', '''t\n'u'\n''', \"unterminated\nnext)";
    let found = bodies(text, Language::Python);
    assert_eq!(
        found,
        [
            ("x {y}", LiteralKind::Formatted),
            ("z", LiteralKind::Plain),
            ("t\n'u'\n", LiteralKind::Plain),
            ("unterminated", LiteralKind::Plain),
        ]
    );
    assert!(text_of(text, Language::Python, Class::Code).ends_with("\nnext)"));
}

#[test]
fn template_literals_keep_nested_backticks() {
    let text = "log(`a ${b ? `c` : 'd'} e`, 'f')";
    let found = bodies(text, Language::TypeScript);
    assert_eq!(
        found,
        [
            ("a ${b ? `c` : 'd'} e", LiteralKind::Template),
            ("f", LiteralKind::Plain)
        ]
    );
}

#[test]
fn java_text_blocks_and_go_raw_strings() {
    let java = "s = \"\"\"\n  a \"b\"\n\"\"\"; c = 'x';";
    let texts: Vec<&str> = bodies(java, Language::Java)
        .iter()
        .map(|(body, _)| *body)
        .collect();
    assert_eq!(texts, ["\n  a \"b\"\n", "x"]);
    let go = "q := `a\\n\"b\"\nc` + \"d\"";
    let texts: Vec<&str> = bodies(go, Language::Go)
        .iter()
        .map(|(body, _)| *body)
        .collect();
    assert_eq!(texts, ["a\\n\"b\"\nc", "d"]);
}
