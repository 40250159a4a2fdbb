//! A request path as the edge understands it: one canonical spelling that the origin receives
//! and one decoded form that `path:` rules match, so no other spelling of a blocked path
//! slips past its rule.
//!
//! What the origin receives is the path normalized as RFC 3986 §6.2.2 allows without changing
//! what it names: percent-encoded unreserved characters decoded (`%61` is `a`, `%2e` is `.`),
//! the other escapes in upper case, dot segments resolved (`/x/../a`, `/%2e/a` are `/a`), and
//! a leading run of slashes made one (`//a.test/x` is `/a.test/x`: an origin parsing the
//! target as a URL reference would read `a.test` as an authority). The query goes through as
//! sent. A rule matches that path decoded (as cloudflared matches `req.URL.Path`), with each
//! segment's matrix parameters cut (`/a;x/b` is `/a/b`, as servlet containers route it; dot
//! segments are resolved again, so `/a/..;/b` is `/b`) and empty segments merged (`//a` is
//! `/a`). An origin that routes on its decoded path (actix does) therefore reaches a handler
//! only for a path the rules have seen.
//!
//! Refused, because no origin agrees on what they mean: an encoded `/` or `\` (`%2f`, `%5c`),
//! a raw `\`, an escape of an escape (`%2561`), a broken escape (`%`, `%4`, `%zz`), a
//! control character (`%00`, `%0a`), bytes that do not decode to UTF-8 (`%ff`, the overlong
//! `%c1%a1`), and a path that does not start with `/` (`OPTIONS *` excepted).

use percent_encoding::percent_decode_str;

/// Why a path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadPath {
    /// `%2f`, `%5c` or a raw `\`.
    #[error("an encoded '/' or a '\\' in the path")]
    Separator,
    /// `%25` followed by two hex digits.
    #[error("an escaped escape in the path")]
    DoubleEncoding,
    /// `%` not followed by two hex digits.
    #[error("a broken escape in the path")]
    Escape,
    /// A control character, encoded.
    #[error("a control character in the path")]
    Control,
    /// Escapes that do not decode to UTF-8.
    #[error("a path that is not UTF-8")]
    NotUtf8,
    /// Not `/…` (nor the `*` of `OPTIONS *`).
    #[error("a path that does not start with '/'")]
    NotAbsolute,
}

/// A request's path (and query), normalized.
#[derive(Debug, Clone)]
pub struct RequestPath {
    forward: String,
    /// Where the path ends in `forward` (the query follows).
    path_len: usize,
    /// The matched form, when it is not the path itself (most paths are their own).
    matched: Option<String>,
}

impl RequestPath {
    /// Normalizes `path` (as the request line wrote it) followed by `query`.
    pub fn parse(path: &str, query: Option<&str>) -> Result<Self, BadPath> {
        let (mut forward, matched) = if path == "*" || is_plain(path) {
            let mut forward =
                String::with_capacity(path.len() + query.map_or(0, |query| query.len() + 1));
            forward.push_str(path);
            (forward, None)
        } else {
            let normal = canonical_path(path)?;
            let matched = matched_view(&normal)?;
            (normal, Some(matched))
        };
        let path_len = forward.len();
        if let Some(query) = query {
            forward.push('?');
            forward.push_str(query);
        }
        Ok(Self {
            forward,
            path_len,
            matched,
        })
    }

    /// What the origin receives: the normalized path and the query as sent.
    pub fn forward(&self) -> &str {
        &self.forward
    }

    /// [`Self::forward`], taken.
    pub fn into_forward(self) -> String {
        self.forward
    }

    /// What `path:` rules match: decoded, matrix parameters cut, empty segments merged.
    pub fn matched(&self) -> &str {
        self.matched
            .as_deref()
            .unwrap_or(&self.forward[..self.path_len])
    }
}

impl PartialEq for RequestPath {
    fn eq(&self, other: &Self) -> bool {
        self.forward == other.forward && self.matched() == other.matched()
    }
}

impl Eq for RequestPath {}

/// A path that is already its own normal and matched form (most are): no escape, no `;`, no
/// `\`, no empty or dot segment.
fn is_plain(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains("//")
        && !path.bytes().any(|byte| matches!(byte, b'%' | b';' | b'\\'))
        && path
            .split('/')
            .all(|segment| segment != "." && segment != "..")
}

/// The path with unreserved characters decoded, escapes upper-cased, dot segments resolved.
fn canonical_path(path: &str) -> Result<String, BadPath> {
    let rest = path.strip_prefix('/').ok_or(BadPath::NotAbsolute)?;
    if rest.contains('\\') {
        return Err(BadPath::Separator);
    }
    let segments = rest
        .split('/')
        .map(canonical_segment)
        .collect::<Result<Vec<_>, _>>()?;
    // A leading run of slashes is sent as one: `//host/x` reads as an authority and a path
    // to an origin that parses its target as a URL reference, not as the rule's `/host/x`.
    let joined = remove_dots(segments.iter().map(String::as_str)).join("/");
    Ok(format!("/{}", joined.trim_start_matches('/')))
}

/// One segment: unreserved characters decoded, every other escape kept in upper case.
fn canonical_segment(segment: &str) -> Result<String, BadPath> {
    let bytes = segment.as_bytes();
    let mut out = String::with_capacity(segment.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'%' {
            let next = segment[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&segment[at..at + next]);
            at += next;
            continue;
        }
        let byte = hex_pair(bytes.get(at + 1..at + 3)).ok_or(BadPath::Escape)?;
        match byte {
            b'/' | b'\\' => return Err(BadPath::Separator),
            0..=0x1f | 0x7f => return Err(BadPath::Control),
            b'%' if hex_pair(bytes.get(at + 3..at + 5)).is_some() => {
                return Err(BadPath::DoubleEncoding);
            }
            _ if is_unreserved(byte) => out.push(char::from(byte)),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
        at += 3;
    }
    Ok(out)
}

/// The byte two hex digits spell.
fn hex_pair(digits: Option<&[u8]>) -> Option<u8> {
    let [high, low] = digits? else {
        return None;
    };
    let value = |digit: u8| char::from(digit).to_digit(16);
    u8::try_from(value(*high)? * 16 + value(*low)?).ok()
}

/// RFC 3986 §2.3: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 §5.2.4 over segments (those after the leading `/`): `.` goes, `..` takes the
/// segment before it (never past the root), and one that ends the path leaves a trailing `/`.
fn remove_dots<'a>(segments: impl ExactSizeIterator<Item = &'a str>) -> Vec<&'a str> {
    let last = segments.len().saturating_sub(1);
    let mut out = Vec::with_capacity(segments.len());
    for (index, segment) in segments.enumerate() {
        match segment {
            "." => {}
            ".." => {
                out.pop();
            }
            other => {
                out.push(other);
                continue;
            }
        }
        if index == last {
            out.push("");
        }
    }
    out
}

/// What rules match: each segment decoded and cut at its first `;`, dot segments resolved
/// again (`..;x` is `..`), empty segments merged, a trailing `/` kept.
fn matched_view(normal: &str) -> Result<String, BadPath> {
    let Some(rest) = normal.strip_prefix('/') else {
        return Ok(normal.to_owned());
    };
    let decoded = rest
        .split('/')
        .map(|segment| {
            let text = percent_decode_str(segment)
                .decode_utf8()
                .map_err(|_| BadPath::NotUtf8)?;
            Ok(match text.find(';') {
                Some(cut) => text[..cut].to_owned(),
                None => text.into_owned(),
            })
        })
        .collect::<Result<Vec<String>, BadPath>>()?;
    let resolved = remove_dots(decoded.iter().map(String::as_str));
    let trailing = resolved.last().is_some_and(|last| last.is_empty());
    let kept: Vec<&str> = resolved.into_iter().filter(|s| !s.is_empty()).collect();
    let slash = if trailing && !kept.is_empty() {
        "/"
    } else {
        ""
    };
    Ok(format!("/{}{slash}", kept.join("/")))
}

#[cfg(test)]
mod tests;
