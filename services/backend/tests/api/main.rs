//! The backend over HTTP: one test binary, the real app on port 0 per test.

mod auth;
mod auth_codes;
mod auth_magic;
mod auth_support;
mod bodies;
mod expensive;
mod expensive_bounds;
mod failures;
mod filters;
mod helpers;
mod mfa_user;
mod openapi;
mod scans_gatekeeper;
mod scans_http;
mod scans_orphans;
mod scans_support;
mod shell;
mod smtp;
mod tenancy;
mod tenancy_roles;
mod tenancy_support;
mod tokens;
