//! The analyzer over HTTP: one test binary, the real app on port 0 per test.

mod admission;
mod bounds;
mod corpus;
mod explain;
mod gate;
mod helpers;
mod limits;
mod request_id;
mod rule_work;
mod rules;
mod shared_rules;
mod spellings;
mod stop;
