//! The writable layer as the engine reports it: its size (measured, unmeasurable, or never
//! asked for — three different answers, never folded into one number) and `docker diff`'s list
//! of changed paths.

use std::fmt;

/// The size of a container's writable layer (`SizeRw` of `docker inspect --size`).
///
/// `Measured(0)` means "measured, empty". A size the engine could not measure is `Unknown`,
/// never 0: treating an unmeasured layer as empty is how a guard fails open. A size nobody
/// asked for (an inspection without `--size`) is `NotAsked`, so it is never mistaken for
/// either of the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerSize {
    /// The inspection was made without `--size`: nothing is known, and nothing was tried.
    NotAsked,
    /// `--size` was asked for and the engine gave no usable figure.
    Unknown,
    /// The engine measured this many bytes.
    Measured(u64),
}

impl LayerSize {
    /// Reads `SizeRw` from an inspection made with (`asked`) or without `--size`.
    pub fn from_inspect(asked: bool, size_rw: Option<&serde_json::Value>) -> Self {
        if !asked {
            return Self::NotAsked;
        }
        size_rw
            .and_then(serde_json::Value::as_u64)
            .map_or(Self::Unknown, Self::Measured)
    }
}

impl fmt::Display for LayerSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAsked => f.write_str("not measured (never asked)"),
            Self::Unknown => f.write_str("unknown (the engine could not measure it)"),
            Self::Measured(bytes) => write!(f, "{bytes} B"),
        }
    }
}

/// What `docker diff` says happened to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// `A`: the path was added.
    Added,
    /// `C`: the path was changed.
    Changed,
    /// `D`: the path was deleted.
    Deleted,
}

/// One line of `docker diff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Added, changed or deleted.
    pub kind: ChangeKind,
    /// The absolute path inside the container.
    pub path: String,
}

/// Parses `docker diff` output; a line that is not `A|C|D <absolute path>` is an error naming
/// the line, because a diff we cannot read accounts for nothing.
pub fn parse_diff(text: &str) -> Result<Vec<Change>, String> {
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (kind, path) = line
                .split_once(' ')
                .ok_or_else(|| format!("unreadable docker diff line: {line:?}"))?;
            let kind = match kind {
                "A" => ChangeKind::Added,
                "C" => ChangeKind::Changed,
                "D" => ChangeKind::Deleted,
                _ => return Err(format!("unreadable docker diff line: {line:?}")),
            };
            if !path.starts_with('/') {
                return Err(format!("unreadable docker diff line: {line:?}"));
            }
            Ok(Change {
                kind,
                path: path.to_owned(),
            })
        })
        .collect()
}

/// The added or changed paths that are not a parent of another listed path: the files and
/// directories that were actually written (a `C /var` above `A /var/lib/x` is only its parent).
pub fn written_leaves(changes: &[Change]) -> Vec<&str> {
    changes
        .iter()
        .filter(|change| change.kind != ChangeKind::Deleted)
        .map(|change| change.path.as_str())
        .filter(|path| {
            !changes
                .iter()
                .any(|other| crate::paths::is_strictly_under(&other.path, path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_size_is_measured_unknown_or_never_asked() {
        assert_eq!(
            LayerSize::from_inspect(true, Some(&json!(0))),
            LayerSize::Measured(0)
        );
        assert_eq!(
            LayerSize::from_inspect(true, Some(&json!(6))),
            LayerSize::Measured(6)
        );
        assert_eq!(LayerSize::from_inspect(true, None), LayerSize::Unknown);
        assert_eq!(
            LayerSize::from_inspect(true, Some(&json!(null))),
            LayerSize::Unknown
        );
        assert_eq!(
            LayerSize::from_inspect(true, Some(&json!(-1))),
            LayerSize::Unknown
        );
        assert_eq!(
            LayerSize::from_inspect(false, Some(&json!(0))),
            LayerSize::NotAsked
        );
        assert_eq!(LayerSize::from_inspect(false, None), LayerSize::NotAsked);
    }

    #[test]
    fn diff_lines_parse_and_bad_ones_are_named() {
        let changes = parse_diff("C /run\nA /run/ready\nD /etc/motd\n").expect("a diff");
        assert_eq!(changes.len(), 3);
        assert_eq!(changes[2].kind, ChangeKind::Deleted);
        let error = parse_diff("A /ok\nX /what\n").expect_err("an unknown kind");
        assert_eq!(error, "unreadable docker diff line: \"X /what\"");
        assert!(parse_diff("A relative").is_err());
        assert!(parse_diff("garbage").is_err());
    }

    #[test]
    fn only_leaves_count_as_written() {
        let changes = parse_diff("C /var\nC /var/lib\nA /var/lib/redis\nD /etc/motd\nC /etc\n")
            .expect("a diff");
        assert_eq!(written_leaves(&changes), vec!["/var/lib/redis"]);
    }
}
