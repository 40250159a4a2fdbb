//! Data paths: the directories a service declares as its data (`DATA_DIR`, or the
//! `estate.data-paths` label), resolved the way the container's process would resolve them,
//! and compared with its mounts. A path that cannot be resolved with certainty is an error,
//! never a guess.

use std::collections::BTreeMap;

/// The label listing a service's data paths, comma-separated: an absolute path, a path
/// relative to the container's working directory, or `env:NAME` (the value of `NAME` in the
/// container's environment).
pub const DATA_PATHS_LABEL: &str = "estate.data-paths";

/// The variable every estate service that keeps data reads its data directory from; a
/// container that sets it declares that path without any label.
pub const DATA_DIR_VARIABLE: &str = "DATA_DIR";

/// Where a process keeps scratch files that nobody expects to survive a restart.
pub const SCRATCH_DIRS: [&str; 2] = ["/tmp", "/run"];

/// One declared data path, as written, before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// What declared it: `DATA_DIR` or the label.
    pub origin: String,
    /// The entry as written (`env:DATA_DIR`, `/var/lib/redis`, `./data`).
    pub entry: String,
}

/// The data paths a container declares: `env:DATA_DIR` when its environment sets `DATA_DIR`,
/// then each entry of the `estate.data-paths` label (an empty entry is kept: it cannot be
/// resolved and so makes the container unsafe).
pub fn declared(
    env: &BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
) -> Vec<Declared> {
    let mut paths = Vec::new();
    if env.contains_key(DATA_DIR_VARIABLE) {
        paths.push(Declared {
            origin: DATA_DIR_VARIABLE.to_owned(),
            entry: format!("env:{DATA_DIR_VARIABLE}"),
        });
    }
    if let Some(list) = labels.get(DATA_PATHS_LABEL) {
        paths.extend(list.split(',').map(|entry| Declared {
            origin: format!("label {DATA_PATHS_LABEL}"),
            entry: entry.trim().to_owned(),
        }));
    }
    paths
}

/// Resolves a declared entry to a normalised absolute path inside the container, or says why
/// it cannot be resolved.
pub fn resolve(
    entry: &str,
    env: &BTreeMap<String, String>,
    working_dir: &str,
) -> Result<String, String> {
    let path = match entry.strip_prefix("env:") {
        Some(name) => match env.get(name).filter(|value| !value.is_empty()) {
            Some(value) => value.as_str(),
            None => return Err(format!("{name} is not set in the container's environment")),
        },
        None => entry,
    };
    if path.is_empty() {
        return Err("the path is empty".to_owned());
    }
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else if working_dir.starts_with('/') {
        format!("{working_dir}/{path}")
    } else {
        return Err(format!(
            "{path:?} is relative and the container has no working directory"
        ));
    };
    normalise(&joined)
}

/// Collapses `//` and `.` components; refuses `..`, which only the container's own file system
/// (with its symbolic links) could resolve.
fn normalise(path: &str) -> Result<String, String> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(format!("{path:?} contains '..'")),
            part => parts.push(part),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// Whether `path` is `dir` or lies below it (component-wise: `/data2` is not under `/data`).
pub fn is_under(path: &str, dir: &str) -> bool {
    path == dir || is_strictly_under(path, dir)
}

/// Whether `path` lies below `dir` and is not `dir` itself.
pub fn is_strictly_under(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
}

/// Whether `path` is in a scratch directory (`/tmp`, `/run`).
pub fn is_scratch(path: &str) -> bool {
    SCRATCH_DIRS.iter().any(|dir| is_under(path, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn entries_resolve_like_the_process_would() {
        let vars = env(&[
            ("DATA_DIR", "./data"),
            ("ABS", "/var/lib/x/"),
            ("EMPTY", ""),
        ]);
        assert_eq!(
            resolve("env:DATA_DIR", &vars, "/srv"),
            Ok("/srv/data".to_owned())
        );
        assert_eq!(resolve("env:ABS", &vars, ""), Ok("/var/lib/x".to_owned()));
        assert_eq!(resolve("/a//b/./c", &vars, ""), Ok("/a/b/c".to_owned()));
        assert_eq!(resolve("/", &vars, ""), Ok("/".to_owned()));
    }

    #[test]
    fn what_cannot_be_resolved_says_why() {
        let vars = env(&[("EMPTY", ""), ("DATA_DIR", "data")]);
        let unset = resolve("env:STATE_DIR", &vars, "/srv").expect_err("unset");
        assert_eq!(unset, "STATE_DIR is not set in the container's environment");
        assert!(resolve("env:EMPTY", &vars, "/").is_err());
        assert_eq!(resolve("", &vars, "/"), Err("the path is empty".to_owned()));
        assert_eq!(
            resolve("env:DATA_DIR", &vars, ""),
            Err("\"data\" is relative and the container has no working directory".to_owned())
        );
        assert_eq!(
            resolve("/srv/../etc", &vars, ""),
            Err("\"/srv/../etc\" contains '..'".to_owned())
        );
    }

    #[test]
    fn under_is_component_wise() {
        assert!(is_under("/data", "/data"));
        assert!(is_under("/data/f", "/data"));
        assert!(is_under("/data/f", "/data/"));
        assert!(!is_under("/data2", "/data"));
        assert!(is_under("/anything", "/"));
        assert!(!is_strictly_under("/data", "/data"));
        assert!(is_scratch("/run/ready") && is_scratch("/tmp") && !is_scratch("/tmpfoo"));
    }

    #[test]
    fn data_dir_and_the_label_both_declare() {
        let labels = env(&[(DATA_PATHS_LABEL, "/var/lib/redis, env:X,")]);
        let declared = declared(&env(&[("DATA_DIR", "/data")]), &labels);
        let entries: Vec<&str> = declared.iter().map(|d| d.entry.as_str()).collect();
        assert_eq!(entries, ["env:DATA_DIR", "/var/lib/redis", "env:X", ""]);
    }
}
