//! JSON-RPC 2.0 as MCP uses it: one message per POST (no batches), ids that are strings or
//! integers, params that are objects, and the error objects a client branches on.
//!
//! [`parse`] turns a body into a [`Message`] or into the error owed for it: -32700 when it is not
//! JSON, -32600 when it is JSON but not one request or notification (a batch, a response, a bad
//! `jsonrpc`, `method` or `id`), -32602 when `params` is present but not an object.

use serde_json::{Map, Value, json};

/// Not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON, but not one valid request or notification object.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method (in this protocol revision).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method exists; its params are wrong (an unknown tool included).
pub const INVALID_PARAMS: i64 = -32602;
/// Implementation-defined band (-32000..-32019): a budget refused the request.
pub const RATE_LIMITED: i64 = -32010;
/// Implementation-defined band: the bearer is not a valid access token.
pub const UNAUTHORIZED: i64 = -32011;
/// Implementation-defined band: the `Origin` is not allowed.
pub const ORIGIN_NOT_ALLOWED: i64 = -32012;
/// 2026-07-28: the routing headers disagree with the body, or are missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the requested protocol revision is not served.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// One of the codes above.
    pub code: i64,
    /// What is wrong, for a person.
    pub message: String,
    /// Machine-readable detail, when there is some.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data`.
    pub fn with_data(self, data: Value) -> Self {
        Self {
            data: Some(data),
            ..self
        }
    }

    /// `-32602` with `message`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// `-32601` naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// The error object as it travels.
    pub fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let (Some(data), Some(object)) = (&self.data, error.as_object_mut()) {
            object.insert("data".to_owned(), data.clone());
        }
        error
    }
}

/// One parsed message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request: it is owed a response.
    Request {
        /// A string or an integer.
        id: Value,
        /// The method.
        method: String,
        /// The params object (empty when absent).
        params: Map<String, Value>,
    },
    /// A notification: no response, ever.
    Notification {
        /// The method.
        method: String,
    },
}

/// A body that is not a message, with the id the error response carries (`null` unless the
/// body had a valid one).
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The request's id, or `null`.
    pub id: Value,
    /// Why.
    pub error: RpcError,
}

/// Parses one POST body.
pub fn parse(body: &[u8]) -> Result<Message, Box<Rejected>> {
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        Box::new(Rejected {
            id: Value::Null,
            error: RpcError::new(PARSE_ERROR, "Parse error: the body is not valid JSON"),
        })
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => return Err(invalid(Value::Null, "batches are not supported")),
        _ => return Err(invalid(Value::Null, "expected one JSON-RPC request object")),
    };
    let id = match object.get("id") {
        None => None,
        Some(id) if is_valid_id(id) => Some(id.clone()),
        Some(_) => return Err(invalid(Value::Null, "id must be a string or an integer")),
    };
    let echo = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(invalid(echo, "jsonrpc must be \"2.0\""));
    }
    let Some(Value::String(method)) = object.get("method") else {
        let what = if object.contains_key("result") || object.contains_key("error") {
            "this server sends no requests, so it takes no responses"
        } else {
            "method must be a string"
        };
        return Err(invalid(echo, what));
    };
    let params = match object.get("params") {
        None => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(Value::Array(_)) => {
            return Err(Box::new(Rejected {
                id: echo,
                error: RpcError::invalid_params("Invalid params: params must be an object"),
            }));
        }
        Some(_) => return Err(invalid(echo, "params must be an object")),
    };
    Ok(match id {
        Some(id) => Message::Request {
            id,
            method: method.clone(),
            params,
        },
        None => Message::Notification {
            method: method.clone(),
        },
    })
}

fn invalid(id: Value, why: &str) -> Box<Rejected> {
    Box::new(Rejected {
        id,
        error: RpcError::new(INVALID_REQUEST, format!("Invalid Request: {why}")),
    })
}

/// MCP ids are strings or integers (never `null`, fractions or structures).
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn success(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// `{"jsonrpc":"2.0","id":…,"error":{…}}`.
pub fn failure(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_json() })
}

#[cfg(test)]
mod tests;
