//! The backend over HTTP: one test binary, the real app on port 0 per test.

mod auth;
mod auth_codes;
mod auth_magic;
mod auth_support;
mod bodies;
mod expensive;
mod failures;
mod filters;
mod helpers;
mod keys;
mod mfa_user;
mod openapi;
mod scans_gatekeeper;
mod scans_http;
mod scans_orphans;
mod scans_support;
mod sessions;
mod sessions_revoke;
mod sessions_support;
mod shell;
mod smtp;
mod spellings;
mod tenancy;
mod tenancy_roles;
mod tenancy_support;
mod tokens;
