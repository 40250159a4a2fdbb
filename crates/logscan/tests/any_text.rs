//! Any text is analyzed without a panic: snippets built from the pieces the rules read (log
//! and print calls, keys, labels, handlers, defaults, indentation) mixed with any characters,
//! in every language, non-ASCII text next to strings and brackets included.

mod common;

use proptest::prelude::*;

/// Pieces of code the rules look at closely, and characters that are more than one byte.
const PIECES: &[&str] = &[
    "log.debug(",
    "logger.error(",
    "print(",
    "println!(",
    "console.log(",
    "log.Printf(",
    "\"password\"",
    "'token'",
    "\"%s\"",
    "\"{}\"",
    "f\"{x}\"",
    "`${t}`",
    "\"secret %s/%s\"",
    "len(",
    "str(e)",
    ".format(",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    " + ",
    ":",
    "=",
    "\n",
    "    ",
    "\t",
    "except Exception as e:",
    "catch (e) {",
    "if err != nil {",
    "Err(e) =>",
    "if password is None:",
    "password = ''",
    "let mut token = \"\";",
    "return Err(e)",
    "break Err(",
    "raise",
    "# noqa",
    "// TODO",
    "é",
    "ü",
    "—",
    "字",
    "🙂",
    "\\",
    "'",
    "\"",
];

fn snippet() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..200).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn any_text_is_analyzed_in_every_language(code in snippet()) {
        for path in ["a.py", "src/a.rs", "a.js", "a.ts", "a.go", "A.java"] {
            // A panic fails the test; the findings themselves are not asserted.
            let _ = common::findings(path, &code);
        }
    }
}
