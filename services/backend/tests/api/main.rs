//! The backend over HTTP: one test binary, the real app on port 0 per test.

#[path = "../support/analyzer.rs"]
mod analyzer_support;
mod auth;
mod auth_codes;
mod auth_magic;
mod auth_support;
mod bodies;
mod crash;
mod expensive;
mod expensive_bounds;
mod failures;
mod filters;
mod flood;
mod helpers;
mod keys;
mod mfa_user;
mod openapi;
mod oracles;
mod oracles_support;
mod request_id;
mod scans_gatekeeper;
mod scans_http;
mod scans_orphans;
mod scans_support;
mod sessions;
mod sessions_revoke;
mod sessions_support;
mod shell;
mod signup;
mod smtp;
mod spellings;
mod tenancy;
mod tenancy_roles;
mod tenancy_support;
mod tokens;
mod workspace_names;
