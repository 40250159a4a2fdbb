//! What the code says a value is, where its name alone would suggest a secret: a file path or
//! a number by its declared type (`private_key: PathBuf`, `api_key: u16`, `API_KEY = 18`), or a
//! number by the placeholders that format it (`"api=%d"`, `"{:08x}"`). No credential is either.

use std::sync::LazyLock;

use regex::Regex;

use crate::args::PLACEHOLDER;
use crate::source::Source;

/// The types of a path or a number, as a declaration writes them after the name (Rust,
/// Python's annotations, TypeScript) or before it (Java, C-like), or as Go writes them after.
macro_rules! not_text_types {
    () => {
        concat!(
            r"(?:(?:(?:std::)?path::)?(?:PathBuf|Path|OsString)|(?:pathlib\.)?(?:Pure)?Path|File|",
            r"u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64|bool|int|float|number|",
            r"long|short|Int(?:8|16|32|64)?|uint(?:8|16|32|64)?|int(?:8|16|32|64))"
        )
    };
}

/// After a name, its type: `: PathBuf`, `: &'a Path`, `: Option<u16>`, `: int`.
static TYPED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^\s*:\s*(?:&\s*(?:'\w+\s+)?)?(?:Option\s*<\s*)?",
        not_text_types!(),
        r"(?-u:\b)"
    ))
    .expect("constant pattern compiles")
});
/// Before a name, its type: `int apiKey`, `File key`.
static TYPED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(r"(?-u:\b)", not_text_types!(), r"\s+$")).expect("constant pattern compiles")
});
/// After a name, Go's type at the end of the line: `token int`.
static GO_TYPED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(r"^\s+", not_text_types!(), r"\s*$")).expect("constant pattern compiles")
});
/// After a name that starts its line, a number assigned: `API_KEY = 18`.
static NUMBER_ASSIGNED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*=\s*-?\d+\s*(?:#.*)?$").expect("constant pattern compiles"));
/// A numeric placeholder: printf's conversions and Rust's or Python's format specs.
static NUMERIC_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:%[-+# 0-9.]*[diouxXeEfFgG]|\{[^{}:]*:[^{}]*[xXobeEdf]\})$")
        .expect("constant pattern compiles")
});

/// Whether the code of `source` declares `name` (the last component of a path: `private_key`
/// for `cli.private_key`) with a path or number type, or assigns it a number literal. Words in
/// comments and strings declare nothing (`"a long password"` is no `long password`). Each
/// place the name stands in code is read on its line: one search of the file per name.
pub(super) fn declared_not_text(source: &Source<'_>, name: &str) -> bool {
    let text = source.text;
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    text.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        let bounded = (at == 0 || !is_word(text.as_bytes()[at - 1]))
            && text.as_bytes().get(end).is_none_or(|&byte| !is_word(byte));
        if !bounded || !source.is_code(at) {
            return false;
        }
        let line = source.line_bounds(at);
        let (before, after) = (&text[line.start..at], &text[end..line.end]);
        TYPED_AFTER.is_match(after)
            || TYPED_BEFORE.is_match(before)
            || GO_TYPED_AFTER.is_match(after)
            || (before.trim().is_empty() && NUMBER_ASSIGNED.is_match(after))
    })
}

/// How many lines above a log call its block is read for what it sets a name to.
const SET_WINDOW_LINES: usize = 12;

/// Whether the code at `at` stands in a block entered when `path` is unset (`if password is
/// None:`, `if not token:`, `if password == "" {`) and every assignment to it there, above
/// `at`, sets a constant, of which there is one (`password = 'password'`, then
/// `log.debug("password=%s", password)`): the value shown is the code's own default, no one's
/// secret. After such a block the name may hold either, and is read as a secret.
pub(super) fn set_to_constant(source: &Source<'_>, path: &str, at: usize) -> bool {
    let starts = source.line_starts();
    let line = source.line_index(at);
    let own = source.indent(at);
    let mut values = Vec::new();
    for index in (line.saturating_sub(SET_WINDOW_LINES)..line).rev() {
        let text = &source.text[source.line_bounds(starts[index])];
        if text.trim().is_empty() {
            continue;
        }
        if source.indent(starts[index]) < own {
            return tests_unset(text, path)
                && !values.is_empty()
                && values.into_iter().all(super::flow::is_constant);
        }
        values.extend(assigned(text, path));
    }
    false
}

/// What a line assigns to `path`, if it does: `path = v`, `let mut path = v`, `path := v`,
/// `path: &str = v`.
fn assigned<'t>(line: &'t str, path: &str) -> Option<&'t str> {
    let line = line.trim_start();
    let line = line.strip_prefix("let ").map_or(line, |rest| {
        let rest = rest.trim_start();
        rest.strip_prefix("mut ").unwrap_or(rest)
    });
    let rest = line.strip_prefix(path)?.trim_start();
    let rest = match rest.strip_prefix(':') {
        Some(typed) if !typed.starts_with('=') => &typed[typed.find('=')?..],
        Some(walrus) => walrus,
        None => rest,
    };
    let value = rest.strip_prefix('=')?;
    (!value.starts_with('=')).then_some(value)
}

/// How a condition compares a name to nothing: `password is None`, `token == nil`.
const UNSET_TESTS: [&str; 10] = [
    "is None",
    "== None",
    "== nil",
    "== null",
    "=== null",
    "=== undefined",
    "== \"\"",
    "== ''",
    "=== \"\"",
    "=== ''",
];

/// Whether a block's header is entered when `path` is unset: `if password is None:`, `if not
/// token:`, `if (!token) {`, `if password == "" {`.
fn tests_unset(header: &str, path: &str) -> bool {
    let Some(condition) = header.trim_start().strip_prefix("if") else {
        return false;
    };
    let condition = condition.trim_start().trim_start_matches('(').trim_start();
    let Some(rest) = condition
        .strip_prefix("not ")
        .or_else(|| condition.strip_prefix('!'))
        .map(str::trim_start)
        .and_then(|negated| negated.strip_prefix(path))
        .or_else(|| {
            let compared = condition.strip_prefix(path)?.trim_start();
            UNSET_TESTS
                .iter()
                .find_map(|test| compared.strip_prefix(test))
        })
    else {
        return false;
    };
    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
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
    use super::{assigned, declared_not_text, formats_numbers, tests_unset};
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

    #[test]
    fn unset_tests_and_assignments() {
        for (header, name) in [
            ("if password is None:", "password"),
            ("if not token:", "token"),
            ("if (!token) {", "token"),
            ("if token == nil {", "token"),
            ("if (token === undefined) {", "token"),
        ] {
            assert!(tests_unset(header, name), "{header}");
        }
        assert!(!tests_unset("if password_hash is None:", "password"));
        assert!(!tests_unset("if password:", "password"));
        assert_eq!(
            assigned("    let mut token = \"\";", "token"),
            Some(" \"\";")
        );
        assert_eq!(assigned("password: str = ''", "password"), Some(" ''"));
        assert_eq!(assigned("token := \"x\"", "token"), Some(" \"x\""));
        assert_eq!(assigned("if password == '':", "password"), None);
    }
}
