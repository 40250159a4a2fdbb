//! The backend over HTTP: one test binary, the real app on port 0 per test.

mod auth;
mod auth_codes;
mod auth_magic;
mod auth_support;
mod bodies;
mod crash;
mod expensive;
mod failures;
mod filters;
mod helpers;
mod mfa_user;
mod openapi;
mod oracles;
mod oracles_support;
mod scans_gatekeeper;
mod scans_http;
mod scans_orphans;
mod scans_support;
mod shell;
mod signup;
mod smtp;
mod tenancy;
mod tenancy_roles;
mod tenancy_support;
mod tokens;
mod workspace_names;
