//! The MCP server over HTTP: one test binary, the real app on port 0 per test, the real
//! analyzer and backend started in-process where a tool needs them.

mod access;
mod estate;
mod helpers;
mod jsonrpc;
mod lifecycle;
mod limits;
mod modern;
mod python_sdk;
mod request_id;
mod shared_budgets;
mod skills_installer;
mod spellings;
mod tool_bounds;
mod tools;
