//! The ai-service over HTTP: one test binary, the real app on port 0 per test; a real backend
//! and analyzer in-process where a chat turn reaches them, and a stand-in only for the paid
//! language model API.

mod auth;
mod chat;
mod chat_backend;
mod chat_bounds;
mod chat_llm;
mod helpers;
mod limits;
mod llm_stub;
mod logs;
mod request_id;
mod shared_window;
mod shell;
mod spellings;
mod stack;
