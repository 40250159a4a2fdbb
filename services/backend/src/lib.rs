//! The backend: users, workspaces, memberships, invitations, projects, CI keys, scan runs and
//! the abuse controls around them (docs/DESIGN.md, "The backend").
//!
//! # Layout
//! - [`auth`]: the auth domain: accounts, argon2id passwords, the login and one-time-code
//!   attempt ceilings, single-use tokens, the mail outbox.
//! - [`config`]: settings; [`application`]: build, bind, serve, drain; [`state`]: shared state.
//! - [`envelope`]: the response bodies, one builder each; [`errors`]: failures to envelopes.
//! - [`identity`]: the caller (a valid access token) and its workspace (from the token only).
//! - [`limits`]: the public and auth filters' groups, their allow-list, their keys.
//! - [`routes`]: one module per resource.
//! - [`scans`]: scan runs — the analyzer client and its retry policy, the run record with its
//!   progress frames and their live hub, and the scanner that drives a run to one terminal frame.
//! - [`store`]: one key-value API over an embedded database (redb under `DATA_DIR`, the
//!   default) or Redis (`REDIS_URL`, shared by replicas), with expiry, atomic counters and
//!   single-use records.
//! - [`tenancy`]: workspaces, members, invitations, projects and CI keys, with the tenant
//!   fences: scope from the token only, another tenant's id is 404 in the same words, ranked
//!   roles.

pub mod application;
pub mod auth;
pub mod config;
pub mod envelope;
pub mod errors;
pub mod identity;
pub mod limits;
pub mod routes;
pub mod scans;
pub mod state;
pub mod store;
pub mod tenancy;

pub use application::Application;
pub use config::BackendConfig;

/// The backend on the command line.
pub const SERVICE: platform::ServiceInfo = platform::ServiceInfo {
    name: "backend",
    default_port: config::DEFAULT_PORT,
    health_path: "/actuator/health",
    about: "auth, workspaces, projects and scans behind the estate's filters",
};
