//! The scans domain layer, proven where its callers see it: the analyzer client over real
//! HTTP against the real analyzer (port 0) and against a scripted stub for the failure
//! sequences the real one cannot be made to produce on demand; scans driven to their terminal
//! frame; the run hub's replay, close and persistence; a panic ending a run; the per-workspace
//! run index and the leases that end a run whose runner died.

#[path = "../support/analyzer.rs"]
mod analyzer_support;
mod bounds;
mod client;
mod failures;
mod hub;
mod index;
mod real;
mod stub;
mod support;
