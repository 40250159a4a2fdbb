//! The rule for "this message carries code": a fenced code block (CommonMark, read by
//! `pulldown-cmark`: backticks or tildes, any fence length, an unclosed fence runs to the end).
//!
//! A block is analyzed when its info string names a language the analyzer reads, by name or
//! by file extension (`rust`/`rs`, `python`/`py`, `javascript`/`js`/`jsx`/`mjs`,
//! `typescript`/`ts`/`tsx`, `java`, `go`/`golang`). Untagged blocks and other languages are
//! counted, not guessed at: a wrong guess would spend the user's EXPENSIVE budget on an
//! analysis that finds nothing. Indented code blocks are prose to most people pasting them.

use logscan::Language;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

/// The most blocks one turn sends to the backend (one call carries them all).
pub const MAX_ANALYZED_BLOCKS: usize = 10;

/// One fenced block of the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeBlock {
    /// The language, when the info string names one the analyzer reads.
    pub language: Option<Language>,
    /// The block's text.
    pub code: String,
}

/// Every fenced block, in order.
pub fn extract(message: &str) -> Vec<CodeBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<CodeBlock> = None;
    for event in Parser::new(message) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = Some(CodeBlock {
                    language: language(&info),
                    code: String::new(),
                });
            }
            Event::Text(text) => {
                if let Some(block) = open.as_mut() {
                    block.code.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(open.take()),
            _ => {}
        }
    }
    blocks
}

/// The language an info string names (its first word), if the analyzer reads it.
fn language(info: &str) -> Option<Language> {
    let tag = info.split_whitespace().next()?;
    let tag = tag.trim_matches(['{', '}', '.']);
    Language::from_name(tag).or_else(|| Language::from_path(&format!("block.{tag}")))
}

/// The file extension a block of `language` is sent under.
pub fn extension(language: Language) -> &'static str {
    match language {
        Language::Rust => "rs",
        Language::Java => "java",
        Language::Python => "py",
        Language::JavaScript => "js",
        Language::TypeScript => "ts",
        Language::Go => "go",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn languages(message: &str) -> Vec<Option<&'static str>> {
        extract(message)
            .iter()
            .map(|block| block.language.map(Language::name))
            .collect()
    }

    #[test]
    fn fenced_blocks_with_a_known_tag_are_code() {
        let message = "Why?\n```py\nprint(1)\n```\nand\n~~~~rust title=\"x\"\nfn f() {}\n~~~~\n";
        let blocks = extract(message);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].code, "print(1)\n");
        assert_eq!(blocks[1].code, "fn f() {}\n");
        assert_eq!(languages(message), [Some("python"), Some("rust")]);
    }

    #[test]
    fn tags_by_name_or_extension_and_the_rest_unknown() {
        let tags = [
            ("rust", Some("rust")),
            ("RS", Some("rust")),
            ("tsx", Some("typescript")),
            ("mjs", Some("javascript")),
            ("golang", Some("go")),
            ("{.java}", Some("java")),
            ("cobol", None),
            ("", None),
        ];
        for (tag, expected) in tags {
            let message = format!("```{tag}\nx\n```\n");
            assert_eq!(languages(&message), [expected], "{tag:?}");
        }
    }

    #[test]
    fn prose_inline_code_and_indented_code_are_not_blocks() {
        assert!(extract("use `println!` sparingly").is_empty());
        assert!(extract("    let x = 1;\n    println!(\"{x}\");\n").is_empty());
        assert!(extract("no code at all").is_empty());
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let blocks = extract("look:\n```go\nfmt.Println(x)\n");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].code, "fmt.Println(x)\n");
    }
}
