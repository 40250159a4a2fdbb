//! The values a piece of code passes on, as dotted paths (`user.email`, `self.token`,
//! `token.kind`), with what is known about how each is shown: a path read through a function
//! that reveals only its size or type (`len(tokens)`, `typeof token`), or sliced
//! (`token[:4]`, `&key[..4]`), shows none of its value and is left out, as is a member of an
//! enumeration of kinds (`Channel.EMAIL`).

use std::sync::LazyLock;

use regex::Regex;

/// One path and the component that says what its value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name {
    /// The path as written, components joined by `.`: `self.headers`.
    pub path: String,
    /// The last component that names the value rather than a generic accessor: `password`
    /// for `form.password.value`, `kind` for `token.kind`.
    pub value: String,
}

static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\s*(?:\?\.|\.|->)\s*[A-Za-z_$][A-Za-z0-9_$]*)*")
        .expect("constant pattern compiles")
});

/// Functions and operators that show a value's size, type or presence, never the value.
const SHAPE_ONLY: [&str; 14] = [
    "len",
    "type",
    "typeof",
    "sizeof",
    "count",
    "bool",
    "isinstance",
    "id",
    "hash",
    "size",
    "length",
    "is_some",
    "is_none",
    "instanceof",
];
/// Accessors that return the value they are called on (`password.value`, `token.as_str()`).
const GENERIC: [&str; 16] = [
    "value",
    "val",
    "get",
    "raw",
    "inner",
    "data",
    "text",
    "str",
    "string",
    "as_str",
    "to_string",
    "tostring",
    "unwrap",
    "clone",
    "as_ref",
    "expose_secret",
];

/// The paths in `code`, a run of code with no string or comment in it.
pub(crate) fn names_in(code: &str) -> Vec<Name> {
    let mut names = Vec::new();
    for found in PATH.find_iter(code) {
        let before = code[..found.start()].trim_end();
        let after = code[found.end()..].trim_start();
        if shape_only(before) || sliced(after) || condition_only(before, after) {
            continue;
        }
        let components: Vec<&str> = found
            .as_str()
            .split(['.', '-', '>', '?'])
            .map(str::trim)
            .filter(|component| !component.is_empty())
            .collect();
        if looked_up_by_key(&components, after)
            || enum_member(&components, after)
            || working_directory(&components, after)
        {
            continue;
        }
        let value = components
            .iter()
            .rev()
            .find(|component| !GENERIC.contains(&component.to_ascii_lowercase().as_str()))
            .or(components.first())
            .map_or("", |component| component);
        names.push(Name {
            path: components.join("."),
            value: value.to_owned(),
        });
    }
    names
}

/// Whether the code before a path reads it through a size/type function or operator.
pub(crate) fn shape_only(before: &str) -> bool {
    let before = before.strip_suffix('(').map_or(before, str::trim_end);
    let word = before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default();
    SHAPE_ONLY.contains(&word)
}

/// Whether a path is only the condition of Python's conditional expression, which shows
/// whether it is set, never its value: `"Refreshing" if self.access_token else "Setting"`.
fn condition_only(before: &str, after: &str) -> bool {
    let keyword = before
        .strip_suffix("if")
        .is_some_and(|rest| rest.is_empty() || rest.ends_with(|c: char| c.is_whitespace()));
    keyword
        && after.starts_with("else")
        && !after[4..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// Whether the path is only looked into by a string key (`api_key["id"]`, `token.get("eauth")`):
/// the code run ends where the key's literal begins, and in an interpolation the key is written
/// out (`{kwargs['max_tokens']}`). What is shown is the item, which the key names (the call's
/// reader takes the key as a name of its own), not the container.
fn looked_up_by_key(components: &[&str], after: &str) -> bool {
    let rest = after.trim();
    rest == "["
        || rest.starts_with("['")
        || rest.starts_with("[\"")
        || (rest == "(" && components.len() > 1 && components.last() == Some(&"get"))
}

/// Whether the path is a member of an enumeration of kinds (`PingramChannel.EMAIL`,
/// `AuthType.PASSWORD`): a one-word capital constant of a type, which names a kind, not a
/// value. As an index (`targets[Category.EMAIL]`) it says what the item looked up holds.
fn enum_member(components: &[&str], after: &str) -> bool {
    let [.., kind, member] = components else {
        return false;
    };
    let capital = member.len() > 1
        && member
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let type_name = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().any(|c| c.is_ascii_lowercase());
    capital && type_name && !after.starts_with(']')
}

/// Whether the path is a call of `pwd()` with no argument (`ftp.pwd()`): the working
/// directory, as the shell's command of that name prints it, not a password.
fn working_directory(components: &[&str], after: &str) -> bool {
    components.last() == Some(&"pwd") && after.starts_with("()")
}

/// Whether the code after a path slices it: `[:4]`, `[..4]`, `[0:8]`, `.slice(0, 4)`.
fn sliced(after: &str) -> bool {
    if let Some(index) = after.strip_prefix('[') {
        let inside = index.split(']').next().unwrap_or_default();
        return inside.contains(':') || inside.contains("..");
    }
    [".slice(", ".substring(", ".substr(", "[:"]
        .iter()
        .any(|prefix| after.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::names_in;

    fn values(code: &str) -> Vec<String> {
        names_in(code).into_iter().map(|name| name.value).collect()
    }

    #[test]
    fn paths_are_judged_by_what_they_end_in() {
        assert_eq!(values("user.email, token.kind"), ["email", "kind"]);
        assert_eq!(values("form.password.value"), ["password"]);
        assert_eq!(values("self . token"), ["token"]);
        assert_eq!(names_in("self.headers")[0].path, "self.headers");
    }

    #[test]
    fn sizes_types_and_slices_show_no_value() {
        assert_eq!(values("len(tokens)"), ["len"]);
        assert_eq!(values("typeof token"), ["typeof"]);
        assert_eq!(values("token[:4] + mask"), ["mask"]);
        assert!(values("&key[..4]").is_empty());
        assert_eq!(values("tokens[0]"), ["tokens"]);
        assert!(values("api_key[").is_empty());
        assert!(values("token.get(").is_empty());
        assert_eq!(values("token.get(name"), ["token", "name"]);
        assert_eq!(values(" if self.token else "), ["if", "else"]);
        assert_eq!(
            values("x if token else_value"),
            ["x", "if", "token", "else_value"]
        );
    }
}
