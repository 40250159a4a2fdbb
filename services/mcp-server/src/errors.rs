//! The MCP server's two envelopes and the one place each is built.
//!
//! `/mcp` speaks JSON-RPC, so everything it answers with a non-2xx status — a refused origin,
//! an invalid bearer, a spent budget, a body it cannot take — is a JSON-RPC error object with
//! `id: null` (the request was refused before its id was read): the reference Python SDK
//! surfaces such a body to its caller as the error it is, where a bare status would reach the
//! agent as "Server returned an error response". Every other path answers in the service
//! envelope `{"error": code, "message": text}`; a 500 adds an `err-` reference that is logged.

use crate::mcp::MCP_PATH;
use crate::mcp::jsonrpc::{self, RpcError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, HttpResponseBuilder};
pub use platform::envelope::{envelope, internal_envelope};
use serde_json::Value;

/// A refusal before any handler ran, in the envelope of the path it was made on.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// The HTTP status.
    pub status: StatusCode,
    /// The service envelope's code (`unauthorized`, …).
    pub code: &'static str,
    /// The JSON-RPC error code for `/mcp`.
    pub rpc_code: i64,
    /// What is wrong.
    pub message: String,
    /// JSON-RPC `data`, for `/mcp` only.
    pub data: Option<Value>,
}

impl Refusal {
    /// The response for a request to `path`.
    pub fn respond(&self, path: &str) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        self.respond_with(&mut response, path)
    }

    /// The response for a request to `path`, on a builder the caller set headers on.
    pub fn respond_with(&self, response: &mut HttpResponseBuilder, path: &str) -> HttpResponse {
        if path == MCP_PATH {
            let mut error = RpcError::new(self.rpc_code, self.message.clone());
            if let Some(data) = &self.data {
                error = error.with_data(data.clone());
            }
            return response.json(jsonrpc::failure(&Value::Null, &error));
        }
        response.json(envelope(self.code, &self.message))
    }
}

/// The envelope response with `status`.
pub fn respond(status: StatusCode, code: &str, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(envelope(code, message))
}
