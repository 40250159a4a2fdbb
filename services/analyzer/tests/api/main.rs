//! The analyzer over HTTP: one test binary, the real app on port 0 per test.

mod admission;
mod corpus;
mod explain;
mod gate;
mod helpers;
mod limits;
mod rules;
mod spellings;
mod stop;
