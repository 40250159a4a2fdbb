//! Scans: what happens between `POST /api/v1/scan/initiate` answering 202 and the run's
//! terminal frame on `GET /api/v1/runs/{id}` and `/ws/runs/{id}`. This is the domain layer;
//! the HTTP layer mounts those routes on it.
//!
//! A scan never ends silently (docs/DESIGN.md, "The backend", "A 202 is never the end of the story"): every
//! path that gives up — bad input, the analyzer refusing or unreachable, the store failing, a
//! panic — ends the run with exactly one `ERROR: <stage>: <reason>` frame; success ends it
//! with `DONE`.
//!
//! # Layout
//! - [`analyzer_client`]: the analyzer client and its retry policy (5xx and connection errors
//!   with backoff, 429 after `Retry-After`, never another 4xx).
//! - [`runs`]: the run record and its repository, the frame grammar, and [`runs::RunHub`],
//!   which stores and broadcasts frames and replays them to late subscribers.
//! - [`scanner`]: [`scanner::Scanner`], which starts runs and drives their stages.

pub mod analyzer_client;
pub mod runs;
pub mod scanner;
