//! A small lexer per language: which bytes are code, comment or string literal, and where each
//! literal's body is. Not a parser: just enough that quoted text and comments never look like
//! calls, braces or blocks to the checks.

use std::ops::Range;

use crate::Language;

/// What a byte of a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Code,
    Comment,
    Literal,
}

/// Whether a literal's body can hold code, and how it marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LiteralKind {
    /// No interpolation of its own (Rust's format strings are the macro's business).
    Plain,
    /// A Python f-string: `{expression}`.
    Formatted,
    /// A JavaScript/TypeScript template literal: `${expression}`.
    Template,
}

/// One string (or char) literal: `span` includes prefix and quotes, `body` only the content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Literal {
    pub span: Range<usize>,
    pub body: Range<usize>,
    pub kind: LiteralKind,
}

/// A lexed file: one [`Class`] per byte, and the literals in order.
pub(crate) struct Lexed {
    pub classes: Vec<Class>,
    pub literals: Vec<Literal>,
}

/// Classifies every byte of `text` as read in `language`.
pub(crate) fn lex(text: &str, language: Language) -> Lexed {
    let bytes = text.as_bytes();
    let mut classes = vec![Class::Code; bytes.len()];
    let mut literals: Vec<Literal> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if let Some(end) = comment_end(bytes, at, language) {
            classes[at..end].fill(Class::Comment);
            at = end;
        } else if let Some(literal) = literal_at(text, at, language) {
            classes[literal.span.clone()].fill(Class::Literal);
            at = literal.span.end.max(at + 1);
            literals.push(literal);
        } else {
            at += 1;
        }
    }
    Lexed { classes, literals }
}

/// Where the comment starting at `at` ends, if one starts there.
fn comment_end(bytes: &[u8], at: usize, language: Language) -> Option<usize> {
    let rest = &bytes[at..];
    let line_end = || find(bytes, at, b"\n").unwrap_or(bytes.len());
    if language == Language::Python {
        return (rest[0] == b'#').then(line_end);
    }
    if rest.starts_with(b"//") {
        return Some(line_end());
    }
    if rest.starts_with(b"/*") {
        return Some(find(bytes, at + 2, b"*/").map_or(bytes.len(), |close| close + 2));
    }
    None
}

fn literal_at(text: &str, at: usize, language: Language) -> Option<Literal> {
    let bytes = text.as_bytes();
    let quote = bytes[at];
    match (language, quote) {
        (Language::Rust, b'"') => Some(rust_string(bytes, at)),
        (Language::Rust, b'\'') => rust_char(text, at),
        (Language::Python, b'"' | b'\'') => Some(python_string(bytes, at)),
        (Language::Java, b'"') if bytes[at..].starts_with(b"\"\"\"") => {
            Some(quoted(bytes, at, at, b"\"\"\"", true, false))
        }
        (Language::JavaScript | Language::TypeScript, b'`') => Some(template(bytes, at)),
        (Language::Go, b'`') => Some(quoted(bytes, at, at, b"`", false, false)),
        (_, b'"' | b'\'') => Some(quoted(bytes, at, at, &[quote], true, true)),
        _ => None,
    }
}

/// A literal whose body starts after `delimiter` at `open` and ends at the next unescaped
/// `delimiter` (or, when `one_line`, at the end of the line: an unterminated literal).
fn quoted(
    bytes: &[u8],
    start: usize,
    open: usize,
    delimiter: &[u8],
    escapes: bool,
    one_line: bool,
) -> Literal {
    let body_start = open + delimiter.len();
    let mut at = body_start;
    while at < bytes.len() {
        if escapes && bytes[at] == b'\\' {
            at += 2;
        } else if bytes[at..].starts_with(delimiter) {
            return literal(
                start,
                body_start,
                at,
                at + delimiter.len(),
                LiteralKind::Plain,
            );
        } else if one_line && bytes[at] == b'\n' {
            return literal(start, body_start, at, at, LiteralKind::Plain);
        } else {
            at += 1;
        }
    }
    literal(
        start,
        body_start,
        bytes.len(),
        bytes.len(),
        LiteralKind::Plain,
    )
}

fn literal(
    start: usize,
    body_start: usize,
    body_end: usize,
    end: usize,
    kind: LiteralKind,
) -> Literal {
    Literal {
        span: start..end,
        body: body_start..body_end,
        kind,
    }
}

/// `"…"` with escapes, or a raw `r#"…"#` (the `r` and hashes were already passed as code).
fn rust_string(bytes: &[u8], at: usize) -> Literal {
    let hashes = bytes[..at]
        .iter()
        .rev()
        .take_while(|&&byte| byte == b'#')
        .count();
    let r_at = at - hashes;
    let is_raw = r_at > 0
        && bytes[r_at - 1] == b'r'
        && (r_at < 2 || !is_ident(bytes[r_at - 2]) || bytes[r_at - 2] == b'b');
    if !is_raw {
        return quoted(bytes, at, at, b"\"", true, false);
    }
    let mut closing = vec![b'"'];
    closing.extend(std::iter::repeat_n(b'#', hashes));
    // The opening `#…#"` is as long as the closing `"#…#`, so the body starts after the quote.
    quoted(bytes, r_at - 1, r_at, &closing, false, false)
}

/// `'x'` or `'\n'` is a char literal; `'a` in `&'a str` is a lifetime, left as code.
fn rust_char(text: &str, at: usize) -> Option<Literal> {
    let bytes = text.as_bytes();
    let next = text.get(at + 1..)?.chars().next()?;
    if next == '\\' {
        let close = find(bytes, at + 2, b"'").filter(|&close| close <= at + 12)?;
        return Some(literal(at, at + 1, close, close + 1, LiteralKind::Plain));
    }
    let close = at + 1 + next.len_utf8();
    (bytes.get(close) == Some(&b'\''))
        .then(|| literal(at, at + 1, close, close + 1, LiteralKind::Plain))
}

/// A Python string: prefixes (`f`, `r`, `b`, `u`, in any case and order) and triple quotes.
fn python_string(bytes: &[u8], at: usize) -> Literal {
    let prefix_len = bytes[..at]
        .iter()
        .rev()
        .take_while(|byte| b"rRbBfFuU".contains(byte))
        .count()
        .min(3);
    let start = at - prefix_len;
    let prefixed = prefix_len > 0 && (start == 0 || !is_ident(bytes[start - 1]));
    let quote = bytes[at];
    let triple = [quote; 3];
    let mut found = if bytes[at..].starts_with(&triple) {
        quoted(bytes, at, at, &triple, true, false)
    } else {
        quoted(bytes, at, at, &[quote], true, true)
    };
    if prefixed {
        found.span.start = start;
        if bytes[start..at]
            .iter()
            .any(|byte| byte.eq_ignore_ascii_case(&b'f'))
        {
            found.kind = LiteralKind::Formatted;
        }
    }
    found
}

/// A template literal, skipping over `${…}` so a backtick inside one does not end it early.
fn template(bytes: &[u8], at: usize) -> Literal {
    let mut depth = 0usize;
    let mut cursor = at + 1;
    while cursor < bytes.len() {
        match bytes[cursor] {
            b'\\' => cursor += 1,
            b'$' if depth == 0 && bytes.get(cursor + 1) == Some(&b'{') => {
                depth = 1;
                cursor += 1;
            }
            b'{' if depth > 0 => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b'`' if depth == 0 => {
                return literal(at, at + 1, cursor, cursor + 1, LiteralKind::Template);
            }
            _ => {}
        }
        cursor += 1;
    }
    literal(at, at + 1, bytes.len(), bytes.len(), LiteralKind::Template)
}

/// The first occurrence of `needle` at or after `from`.
pub(crate) fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|position| from + position)
}

/// Whether `byte` can be part of an identifier (any non-ASCII byte counts).
pub(crate) fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

#[cfg(test)]
mod tests;
