//! Other spellings of one path: the ways a client can write it that a guard matching the raw
//! text would not recognise, while a router, a proxy or a file system might still take them to
//! the same place.
//!
//! The classes, each applied at every position it can take: any character percent-encoded
//! (upper- and lower-case hex), every character encoded at once, double encoding (`%2561`),
//! overlong UTF-8 (`%C1%A1`), full-width look-alikes, letter case, dot segments (`/./`,
//! `/x/../`, `%2e` forms), doubled and trailing slashes, backslashes and encoded slashes
//! (`%2f`, `%5c`), matrix parameters (`;x`), trailing bytes (`%00`, `%20`, `.`, `~`), a query
//! or fragment, and the absolute form (`http://host/path`).

use std::collections::BTreeSet;

/// Every other spelling of `path` (which must start with `/`), without `path` itself.
pub fn spellings(path: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    encodings(path, &mut out);
    cases(path, &mut out);
    dot_segments(path, &mut out);
    separators(path, &mut out);
    suffixes(path, &mut out);
    out.remove(path);
    out.into_iter().collect()
}

/// Each non-slash byte replaced by `make(byte)`, one position at a time.
fn each_byte(path: &str, out: &mut BTreeSet<String>, make: impl Fn(u8) -> Option<String>) {
    for (index, byte) in path.bytes().enumerate() {
        if byte == b'/' {
            continue;
        }
        if let Some(replacement) = make(byte) {
            out.insert(format!(
                "{}{replacement}{}",
                &path[..index],
                &path[index + 1..]
            ));
        }
    }
}

fn encodings(path: &str, out: &mut BTreeSet<String>) {
    each_byte(path, out, |byte| Some(format!("%{byte:02X}")));
    each_byte(path, out, |byte| Some(format!("%{byte:02x}")));
    each_byte(path, out, |byte| Some(format!("%25{byte:02X}")));
    each_byte(path, out, |byte| {
        byte.is_ascii()
            .then(|| format!("%{:02X}%{:02X}", 0xC0 | (byte >> 6), 0x80 | (byte & 0x3F)))
    });
    each_byte(path, out, |byte| {
        let wide =
            char::from_u32(u32::from(byte) - 0x21 + 0xFF01).filter(|_| byte.is_ascii_graphic())?;
        let mut utf8 = [0u8; 4];
        let encoded = wide.encode_utf8(&mut utf8).bytes();
        Some(encoded.map(|b| format!("%{b:02X}")).collect())
    });
    let everything: String = path
        .bytes()
        .map(|byte| match byte {
            b'/' => "/".to_owned(),
            other => format!("%{other:02X}"),
        })
        .collect();
    out.insert(everything);
}

fn cases(path: &str, out: &mut BTreeSet<String>) {
    out.insert(path.to_ascii_uppercase());
    let segments: Vec<&str> = path.split('/').collect();
    for index in 1..segments.len() {
        let mut upper = segments.clone();
        let shouted = segments[index].to_ascii_uppercase();
        upper[index] = &shouted;
        out.insert(upper.join("/"));
        let mut chars = segments[index].chars();
        if let Some(first) = chars.next() {
            let capital = format!("{}{}", first.to_ascii_uppercase(), chars.as_str());
            let mut capitalised = segments.clone();
            capitalised[index] = &capital;
            out.insert(capitalised.join("/"));
        }
    }
}

/// Byte offsets of every `/` in `path`.
fn slashes(path: &str) -> Vec<usize> {
    path.match_indices('/').map(|(index, _)| index).collect()
}

fn dot_segments(path: &str, out: &mut BTreeSet<String>) {
    const INSERTS: [&str; 10] = [
        "/.",
        "/%2e",
        "/%2E",
        "/x/..",
        "/x/%2e%2e",
        "/x/.%2e",
        "/x/%2e.",
        "/x/%2E%2E",
        "/%2e/x/..",
        "/x/..%2f",
    ];
    for at in slashes(path) {
        for insert in INSERTS {
            out.insert(format!("{}{insert}{}", &path[..at], &path[at..]));
        }
    }
    for tail in ["/.", "/%2e", "/x/..", "/x/%2e%2e"] {
        out.insert(format!("{path}{tail}"));
    }
}

fn separators(path: &str, out: &mut BTreeSet<String>) {
    for at in slashes(path) {
        for replacement in [
            "//", "///", "\\", "%5c", "%5C", "%2f", "%2F", "/%2f", "%252f",
        ] {
            out.insert(format!("{}{replacement}{}", &path[..at], &path[at + 1..]));
        }
    }
    for at in slashes(path).into_iter().skip(1).chain([path.len()]) {
        for matrix in [";", ";x", ";x=1", "%3b", ";/.."] {
            out.insert(format!("{}{matrix}{}", &path[..at], &path[at..]));
        }
    }
}

fn suffixes(path: &str, out: &mut BTreeSet<String>) {
    for suffix in [
        "/", "//", "%00", "%20", "%09", "%0a", "%0d%0a", ".", "~", "*", "%3f", "%23", "%2f", "#x",
        "?", "?x=1", "%ff", "%", "%2",
    ] {
        out.insert(format!("{path}{suffix}"));
    }
    for prefix in ["http://localhost", "http://127.0.0.1:1", "HTTP://LOCALHOST"] {
        out.insert(format!("{prefix}{path}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_is_present() {
        let all = spellings("/api/v1/login");
        for expected in [
            "/%61pi/v1/login",
            "/api/v%31/login",
            "/api/v1/log%69n",
            "/api/v1/LOGIN",
            "/api/./v1/login",
            "/api/x/../v1/login",
            "/api/%2e/v1/login",
            "//api/v1/login",
            "/api\\v1/login",
            "/api%2fv1/login",
            "/api/v1/login;x",
            "/api;x/v1/login",
            "/%2561pi/v1/login",
            "/%C1%A1pi/v1/login",
            "/%EF%BD%81pi/v1/login",
            "/api/v1/login/",
            "/api/v1/login%00",
            "/api/v1/login?x=1",
            "http://localhost/api/v1/login",
        ] {
            assert!(
                all.iter().any(|spelling| spelling == expected),
                "{expected}"
            );
        }
        assert!(!all.iter().any(|spelling| spelling == "/api/v1/login"));
    }
}
