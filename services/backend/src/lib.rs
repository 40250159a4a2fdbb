//! The backend: users, workspaces, memberships, invitations, projects, CI keys, scan runs and
//! the abuse controls around them. For now it holds the persistence layer the domain code will
//! build its typed repositories on.
//!
//! # Layout
//! - [`store`]: one key-value API over an embedded database (redb under `DATA_DIR`, the
//!   default) or Redis (`REDIS_URL`, shared by replicas), with expiry, atomic counters and
//!   single-use records.

pub mod store;
