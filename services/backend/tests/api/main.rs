//! The backend over HTTP: one test binary, the real app on port 0 per test.

mod auth;
mod filters;
mod helpers;
mod shell;
