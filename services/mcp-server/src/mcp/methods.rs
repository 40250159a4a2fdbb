//! What each method answers, per era. Unknown methods are -32601; a method of the other era
//! is unknown too (`ping` and `initialize` were removed in 2026-07-28; `server/discover` does
//! not exist before it).

use super::jsonrpc::RpcError;
use super::{Era, HANDSHAKE_VERSIONS, INSTRUCTIONS, LATEST_HANDSHAKE_VERSION, envelope};
use crate::identity::Caller;
use crate::state::AppState;
use crate::tools;
use actix_web::http::header::HeaderMap;
use serde_json::{Map, Value, json};

/// One request to answer.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The era the transport routed it to.
    pub era: &'a Era,
    /// The method.
    pub method: &'a str,
    /// Its params.
    pub params: &'a Map<String, Value>,
    /// The request's headers (the 2026-07-28 envelope is checked against them).
    pub headers: &'a HeaderMap,
}

/// The result of `request`, or the error it is owed.
pub async fn answer(
    state: &AppState,
    caller: &Caller,
    request: Request<'_>,
) -> Result<Value, RpcError> {
    let Request {
        era,
        method,
        params,
        headers,
    } = request;
    match era {
        Era::Handshake => match method {
            "initialize" => initialize(params),
            "ping" => Ok(json!({})),
            "tools/list" => tools_list(params),
            "tools/call" => tools_call(state, caller, params).await,
            other => Err(RpcError::method_not_found(other)),
        },
        Era::Modern(_) => {
            envelope::check(headers, method, params)?;
            let (mut result, cacheable) = match method {
                "server/discover" => (discover(), true),
                "tools/list" => (tools_list(params)?, true),
                "tools/call" => (tools_call(state, caller, params).await?, false),
                other => return Err(RpcError::method_not_found(other)),
            };
            envelope::decorate(&mut result, cacheable);
            Ok(result)
        }
    }
}

/// The handshake: the client's revision when it is one of ours, else our latest.
fn initialize(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let requested = params.get("protocolVersion").and_then(Value::as_str);
    let shaped = params.get("capabilities").is_some_and(Value::is_object)
        && params.get("clientInfo").is_some_and(Value::is_object);
    let (Some(requested), true) = (requested, shaped) else {
        return Err(RpcError::invalid_params(
            "Invalid params: initialize needs protocolVersion (a string), capabilities and \
             clientInfo (objects)",
        ));
    };
    let version = HANDSHAKE_VERSIONS
        .iter()
        .find(|version| **version == requested)
        .copied()
        .unwrap_or(LATEST_HANDSHAKE_VERSION);
    Ok(json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": super::server_info(),
        "instructions": INSTRUCTIONS,
    }))
}

/// `server/discover` (2026-07-28): what `initialize` told, without a handshake.
fn discover() -> Value {
    json!({
        "supportedVersions": super::supported_versions(),
        "capabilities": capabilities(),
        "instructions": INSTRUCTIONS,
    })
}

fn capabilities() -> Value {
    json!({ "tools": { "listChanged": false } })
}

/// Every tool on one page: a cursor can only be one this server never issued.
fn tools_list(params: &Map<String, Value>) -> Result<Value, RpcError> {
    if params.contains_key("cursor") {
        return Err(RpcError::invalid_params(
            "Invalid params: unknown cursor (every tool is on the first page)",
        ));
    }
    Ok(json!({ "tools": tools::catalog::tools() }))
}

async fn tools_call(
    state: &AppState,
    caller: &Caller,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let Some(Value::String(name)) = params.get("name") else {
        return Err(RpcError::invalid_params(
            "Invalid params: name must be a string naming a tool",
        ));
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: arguments must be an object",
            ));
        }
    };
    match tools::call(state, caller, name, arguments).await {
        Some(result) => Ok(result.to_json()),
        None => Err(RpcError::invalid_params(format!("Unknown tool: {name}"))),
    }
}
