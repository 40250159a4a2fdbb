//! The guard's decision: may this container be removed and replaced by a new one without
//! losing data? Safe only when every fact needed is known and accounts for every written
//! path; anything unknown is unsafe.

use crate::inspect::{Inspection, Keeps};
use crate::layer::{Change, LayerSize, written_leaves};
use crate::paths;
use std::fmt;

/// How many unaccounted paths a message lists before it says "and N more".
const LISTED_PATHS: usize = 10;

/// One reason a container is unsafe to recreate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The engine does not know the container (or could not be asked).
    UnknownContainer(String),
    /// The layer's size was never asked for: a caller bug, reported as such.
    LayerNotAsked,
    /// The engine could not measure the layer.
    LayerUnknown,
    /// `docker diff` failed or could not be read.
    DiffUnavailable(String),
    /// A declared data path cannot be resolved.
    Unresolvable {
        /// `DATA_DIR` or the label.
        origin: String,
        /// The entry as written.
        entry: String,
        /// Why.
        why: String,
    },
    /// A declared data path lives in the writable layer.
    DataInLayer {
        /// `DATA_DIR` or the label.
        origin: String,
        /// The resolved path.
        path: String,
    },
    /// A declared data path is on a mount that a new container does not get back.
    DataOnEphemeralMount {
        /// `DATA_DIR` or the label.
        origin: String,
        /// The resolved path.
        path: String,
        /// Which mount.
        mount: String,
    },
    /// Paths written in the writable layer, outside every mount and scratch directory.
    UnaccountedWrites {
        /// The first few, in `docker diff` order.
        paths: Vec<String>,
        /// How many more there are.
        more: usize,
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownContainer(why) => write!(f, "unknown container: {why}"),
            Self::LayerNotAsked => f.write_str(
                "the writable layer was never measured (inspected without --size): a bug in the caller",
            ),
            Self::LayerUnknown => f.write_str(
                "the engine could not measure the writable layer: its contents are unknown",
            ),
            Self::DiffUnavailable(why) => write!(f, "cannot list the writable layer: {why}"),
            Self::Unresolvable { origin, entry, why } => {
                write!(f, "data path {entry:?} ({origin}) cannot be resolved: {why}")
            }
            Self::DataInLayer { origin, path } => write!(
                f,
                "data path {path} ({origin}) is in the writable layer, not on a volume or bind mount"
            ),
            Self::DataOnEphemeralMount { origin, path, mount } => write!(
                f,
                "data path {path} ({origin}) is on {mount}, which a new container does not get back"
            ),
            Self::UnaccountedWrites { paths, more } => {
                write!(f, "written in the writable layer: {}", paths.join(", "))?;
                if *more > 0 {
                    write!(f, " and {more} more")?;
                }
                Ok(())
            }
        }
    }
}

/// The guard's answer for one container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The container's name (or the id asked about, when the engine does not know it).
    pub container: String,
    /// Why it is unsafe; empty means safe.
    pub findings: Vec<Finding>,
    /// What was checked, for the operator: the layer size and where each data path lives.
    pub notes: Vec<String>,
}

impl Verdict {
    /// Safe to remove and recreate: nothing unsafe was found.
    pub fn is_safe(&self) -> bool {
        self.findings.is_empty()
    }

    /// The verdict for a container the engine could not describe.
    pub fn unknown(container: &str, why: &str) -> Self {
        Self {
            container: container.to_owned(),
            findings: vec![Finding::UnknownContainer(why.to_owned())],
            notes: Vec::new(),
        }
    }
}

/// Judges one container from its inspection (made with `--size`) and its `docker diff`.
pub fn assess(inspection: &Inspection, diff: &Result<Vec<Change>, String>) -> Verdict {
    let mut verdict = Verdict {
        container: inspection.name.clone(),
        findings: Vec::new(),
        notes: vec![format!("writable layer: {}", inspection.layer)],
    };
    match inspection.layer {
        LayerSize::NotAsked => verdict.findings.push(Finding::LayerNotAsked),
        LayerSize::Unknown => verdict.findings.push(Finding::LayerUnknown),
        LayerSize::Measured(_) => {}
    }
    judge_data_paths(inspection, &mut verdict);
    match diff {
        Ok(changes) => judge_writes(inspection, changes, &mut verdict),
        Err(why) => verdict.findings.push(Finding::DiffUnavailable(why.clone())),
    }
    verdict
}

/// Each declared data path must resolve and sit on a durable mount.
fn judge_data_paths(inspection: &Inspection, verdict: &mut Verdict) {
    for declared in paths::declared(&inspection.env, &inspection.labels) {
        let origin = declared.origin;
        let path = match paths::resolve(&declared.entry, &inspection.env, &inspection.working_dir) {
            Ok(path) => path,
            Err(why) => {
                let entry = declared.entry;
                verdict
                    .findings
                    .push(Finding::Unresolvable { origin, entry, why });
                continue;
            }
        };
        match inspection.mount_holding(&path).map(|mount| &mount.keeps) {
            None => verdict.findings.push(Finding::DataInLayer { origin, path }),
            Some(Keeps::Ephemeral(mount)) => {
                let mount = mount.clone();
                verdict.findings.push(Finding::DataOnEphemeralMount {
                    origin,
                    path,
                    mount,
                });
            }
            Some(Keeps::Durable(mount)) => {
                verdict
                    .notes
                    .push(format!("data path {path} ({origin}) is on {mount}"));
            }
        }
    }
}

/// Every path written in the layer must be a mount point, under a mount, or scratch.
fn judge_writes(inspection: &Inspection, changes: &[Change], verdict: &mut Verdict) {
    let unaccounted: Vec<&str> = written_leaves(changes)
        .into_iter()
        .filter(|path| inspection.mount_holding(path).is_none() && !paths::is_scratch(path))
        .collect();
    if unaccounted.is_empty() {
        return;
    }
    let more = unaccounted.len().saturating_sub(LISTED_PATHS);
    let paths = unaccounted
        .into_iter()
        .take(LISTED_PATHS)
        .map(str::to_owned)
        .collect();
    verdict
        .findings
        .push(Finding::UnaccountedWrites { paths, more });
}

#[cfg(test)]
mod tests;
