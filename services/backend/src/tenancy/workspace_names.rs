//! Workspace names as people see them: one name however it is spelled in Unicode.
//!
//! A name is NFKC-normalized (full-width `Ａｃｍｅ`, the long `ſ`, ligatures and the other
//! compatibility forms become the letters they look like), its runs of white space become one
//! space, and it is trimmed; that is the name stored and shown. A name holding a character
//! that renders as nothing or reorders the text around it is refused: controls, format
//! characters (zero-width space and joiners, bidirectional overrides and isolates, the byte
//! order mark, soft hyphen, tags), line and paragraph separators, private-use and unassigned
//! code points, and every other default-ignorable code point (fillers, variation selectors).
//! Uniqueness and the public lookup compare the lower-cased normalized name, so a look-alike
//! can neither be created beside a name nor be looked up as a different workspace.

use super::error::TenancyError;
use regex::Regex;
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;

/// The longest workspace name, in characters, once normalized.
pub const WORKSPACE_NAME_MAX: usize = 64;

/// The longest input looked at: normalization can lengthen text, so it runs on bounded input.
const RAW_MAX_CHARS: usize = 4 * WORKSPACE_NAME_MAX;

/// Why a name with an invisible character is refused.
pub const INVISIBLE_IN_NAME: &str =
    "name must not contain control, invisible or bidirectional characters";

/// The characters no name may hold (see the module's list).
static INVISIBLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]")
        .expect("a valid pattern")
});

/// Why a name cannot be a workspace's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRefusal {
    /// Empty, or longer than [`WORKSPACE_NAME_MAX`] once normalized.
    Length,
    /// It holds a character from the module's list.
    Invisible,
}

impl From<NameRefusal> for TenancyError {
    fn from(refusal: NameRefusal) -> Self {
        Self::Invalid(match refusal {
            NameRefusal::Length => format!("name must be 1 to {WORKSPACE_NAME_MAX} characters"),
            NameRefusal::Invisible => INVISIBLE_IN_NAME.to_owned(),
        })
    }
}

/// `raw` as it is stored and shown: NFKC, white space collapsed, trimmed; refused when it holds
/// an invisible character or is not 1 to [`WORKSPACE_NAME_MAX`] characters.
pub(crate) fn canonical(raw: &str) -> Result<String, NameRefusal> {
    if raw.chars().nth(RAW_MAX_CHARS).is_some() {
        return Err(NameRefusal::Length);
    }
    let normalized: String = raw.nfkc().collect();
    if INVISIBLE.is_match(&normalized) {
        return Err(NameRefusal::Invisible);
    }
    let name = normalized.split_whitespace().collect::<Vec<_>>().join(" ");
    let length = name.chars().count();
    if length == 0 || length > WORKSPACE_NAME_MAX {
        return Err(NameRefusal::Length);
    }
    Ok(name)
}

/// What two names that must not both exist share: the canonical name lower-cased (and
/// normalized again, since lower-casing can leave a non-NFKC sequence).
pub(crate) fn uniqueness_key(canonical: &str) -> String {
    canonical.to_lowercase().nfkc().collect()
}

#[cfg(test)]
mod tests {
    use super::{canonical, uniqueness_key};

    #[test]
    fn compatibility_forms_are_one_name_and_invisible_ones_are_refused() {
        let key = |raw: &str| canonical(raw).map(|name| uniqueness_key(&name)).ok();
        assert_eq!(key("\u{ff21}cme  Corp"), Some("acme corp".to_owned()));
        assert_eq!(key("Bo\u{17f}\u{17f}"), Some("boss".to_owned()));
        for invisible in [
            "\u{200b}",
            "\u{202e}",
            "\u{2066}",
            "\u{feff}",
            "\u{ad}",
            "\u{3164}",
            "\u{e0041}",
            "\u{7}",
        ] {
            assert!(
                canonical(&format!("Ac{invisible}me")).is_err(),
                "{invisible:?}"
            );
        }
    }
}
