//! The deploy guard and the roll of one compose service (docs/DESIGN.md, "The ingress and the
//! cluster": deploys fail closed): a container may be removed and recreated only when everything it
//! wrote is known to live on a volume or bind mount. Unknown is unsafe: an unknown container, a
//! layer the engine cannot measure (an unmeasured size is "unknown", never 0), a data path that
//! cannot be resolved.
//!
//! # Layout
//! - [`layer`]: the writable layer's size (measured, unknown, never asked) and `docker diff`.
//! - [`paths`]: declared data paths (`DATA_DIR`, the `estate.data-paths` label) and resolution.
//! - [`inspect`]: `docker inspect` read into the facts the guard judges.
//! - [`verdict`]: the decision, a pure function of those facts.
//! - [`engine`]: the `docker` CLI behind a small trait.
//! - [`guard`]: the decision against a live engine; [`roll`]: the health-gated roll.
//! - [`cli`]: commands, options and exit codes.

pub mod cli;
pub mod engine;
pub mod guard;
pub mod inspect;
pub mod layer;
pub mod paths;
pub mod roll;
pub mod verdict;
