//! What the code says a value is, where its name alone would suggest a secret: a file path or
//! a number by its declared type (`private_key: PathBuf`, `api_key: u16`, `API_KEY = 18`), or a
//! number by the placeholders that format it (`"api=%d"`, `"{:08x}"`). No credential is either.

use std::sync::LazyLock;

use regex::Regex;

use crate::source::Source;

/// The types of a path or a number, as a declaration writes them after the name (Rust,
/// Python's annotations, TypeScript) or before it (Java, C-like), or as Go writes them after.
const NOT_TEXT_TYPES: &str = concat!(
    r"(?:(?:std::)?path::)?(?:PathBuf|Path|OsString)|(?:pathlib\.)?(?:Pure)?Path|File|",
    r"u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64|bool|int|float|number|long|",
    r"short|Int(?:8|16|32|64)?|uint(?:8|16|32|64)?|int(?:8|16|32|64)"
);

/// A numeric placeholder: printf's conversions and Rust's or Python's format specs.
static NUMERIC_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:%[-+# 0-9.]*[diouxXeEfFgG]|\{[^{}:]*:[^{}]*[xXobeEdf]\})$")
        .expect("constant pattern compiles")
});
/// Any placeholder, to read each one of a message.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"%\(\w+\)[a-zA-Z]|%[-+# 0-9.*]*[a-zA-Z]|\{[^{}]*\}")
        .expect("constant pattern compiles")
});

/// Whether the code of `source` declares `name` (the last component of a path: `private_key`
/// for `cli.private_key`) with a path or number type, or assigns it a number literal. Words in
/// comments and strings declare nothing (`"a long password"` is no `long password`).
pub(super) fn declared_not_text(source: &Source<'_>, name: &str) -> bool {
    let name = regex::escape(name);
    let pattern = format!(
        concat!(
            r"(?m)(?-u:\b){name}\s*:\s*(?:&\s*(?:'\w+\s+)?)?(?:Option\s*<\s*)?(?:{types})(?-u:\b)",
            r"|(?-u:\b)(?:{types})\s+{name}(?-u:\b)",
            r"|(?-u:\b){name}\s+(?:{types})\s*$",
            r"|^\s*{name}\s*=\s*-?\d+\s*(?:#.*)?$",
        ),
        name = name,
        types = NOT_TEXT_TYPES,
    );
    Regex::new(&pattern).is_ok_and(|declaration| {
        declaration.find_iter(source.text).any(|found| {
            let code = found.as_str().trim_end();
            let end = found.start() + code.len().max(1) - 1;
            source.is_code(found.start() + (code.len() - code.trim_start().len()))
                && source.is_code(end)
        })
    })
}

/// Whether the placeholders of a call's strings format numbers only (and there is at least
/// one): `"Unable to find ResponseType for api=%d version=%d"`.
pub(super) fn formats_numbers(bodies: &[&str]) -> bool {
    let mut placeholders = bodies
        .iter()
        .flat_map(|body| PLACEHOLDER.find_iter(body))
        .map(|found| found.as_str())
        .filter(|found| *found != "%%")
        .peekable();
    placeholders.peek().is_some()
        && placeholders.all(|placeholder| NUMERIC_PLACEHOLDER.is_match(placeholder))
}

#[cfg(test)]
mod tests {
    use super::{declared_not_text, formats_numbers};
    use crate::source::Source;
    use crate::{Language, SourceFile};

    fn declared(path: &str, code: &str, name: &str) -> bool {
        let file = SourceFile {
            path,
            content: code,
            language: Language::from_path(path).expect("a known extension"),
        };
        declared_not_text(&Source::new(&file), name)
    }

    #[test]
    fn paths_and_numbers_by_declaration() {
        assert!(declared(
            "a.rs",
            "struct Cli {\n    private_key: PathBuf,\n}\n",
            "private_key"
        ));
        assert!(declared("a.rs", "fn f(key: &Path) {}", "key"));
        assert!(declared("a.py", "    API_KEY = 18\n", "API_KEY"));
        assert!(declared("A.java", "int apiKey = 3;", "apiKey"));
        assert!(!declared("a.rs", "    api_key: String,\n", "api_key"));
        assert!(!declared("a.py", "password = input()\n", "password"));
        assert!(!declared("a.rs", "token_count: usize", "token"));
    }

    #[test]
    fn words_in_comments_and_strings_declare_nothing() {
        assert!(!declared("a.py", "# needs a long password\n", "password"));
        assert!(!declared(
            "a.py",
            "help = \"a short password\"\n",
            "password"
        ));
        assert!(!declared("a.go", "// token int\n", "token"));
    }

    #[test]
    fn numbers_by_placeholder() {
        assert!(formats_numbers(&["api=%d version=%d"]));
        assert!(formats_numbers(&["PATH_CHALLENGE {:08x}"]));
        assert!(!formats_numbers(&["token=%s"]));
        assert!(!formats_numbers(&["api=%d key=%s"]));
        assert!(!formats_numbers(&["no placeholder"]));
        assert!(!formats_numbers(&["{}"]));
    }
}
