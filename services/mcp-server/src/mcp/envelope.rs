//! The 2026-07-28 per-request envelope: every request carries its protocol revision and the
//! client's capabilities in `params._meta`, and repeats its revision, method and (for
//! `tools/call`) tool name in headers so an intermediary can route without reading the body.
//! The checks run in the order the reference SDK runs them, the first failure answering:
//! a routing header given twice, then the envelope keys (-32602), then header against body
//! (-32020). The revision itself was settled by the transport from the header, which the
//! envelope must equal, so an unsupported one never reaches here.

use super::jsonrpc::{HEADER_MISMATCH, RpcError};
use actix_web::http::header::HeaderMap;
use base64::Engine;
use serde_json::{Map, Value, json};

/// The envelope key of the protocol revision.
pub const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The envelope key of the client's capabilities.
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The result `_meta` key naming the server.
pub const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// The header repeating the method.
pub const METHOD_HEADER: &str = "mcp-method";
/// The header repeating the tool name of `tools/call`.
pub const NAME_HEADER: &str = "mcp-name";
/// How long a client may cache `server/discover` and `tools/list` (the same for every caller).
pub const LIST_TTL_MS: u64 = 60_000;

const ROUTING_HEADERS: [&str; 3] = [super::PROTOCOL_VERSION_HEADER, METHOD_HEADER, NAME_HEADER];

/// Checks a modern request's envelope and routing headers.
pub fn check(
    headers: &HeaderMap,
    method: &str,
    params: &Map<String, Value>,
) -> Result<(), RpcError> {
    if let Some(name) = ROUTING_HEADERS
        .iter()
        .find(|name| headers.get_all(**name).count() > 1)
    {
        return Err(mismatch(format!("{name} header appears more than once")));
    }
    let meta = params
        .get("_meta")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            RpcError::invalid_params(format!(
                "params._meta must be an object carrying the '{PROTOCOL_VERSION_META_KEY}' and \
                 '{CLIENT_CAPABILITIES_META_KEY}' envelope keys"
            ))
        })?;
    let missing: Vec<&str> = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY]
        .into_iter()
        .filter(|key| !meta.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(RpcError::invalid_params(format!(
            "params._meta is missing the required envelope key(s): {}",
            missing.join(", ")
        )));
    }
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if header(super::PROTOCOL_VERSION_HEADER)
        .map(Value::from)
        .as_ref()
        != meta.get(PROTOCOL_VERSION_META_KEY)
    {
        return Err(mismatch(format!(
            "{} header does not match the request envelope's protocol version",
            super::PROTOCOL_VERSION_HEADER
        )));
    }
    if header(METHOD_HEADER) != Some(method) {
        return Err(mismatch(format!(
            "{METHOD_HEADER} header does not match the request body's method"
        )));
    }
    if let Some(Value::String(name)) = params.get("name").filter(|_| method == "tools/call")
        && header(NAME_HEADER).and_then(decode_header_value).as_deref() != Some(name.as_str())
    {
        return Err(mismatch(format!(
            "{NAME_HEADER} header does not match the request body's 'name' parameter"
        )));
    }
    Ok(())
}

fn mismatch(message: String) -> RpcError {
    RpcError::new(HEADER_MISMATCH, message)
}

/// A header value as sent: plain, or `=?base64?…?=` for text a header cannot carry.
fn decode_header_value(value: &str) -> Option<String> {
    let Some(payload) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// What a 2026-07-28 result carries besides its payload: `resultType`, the server's name in
/// `_meta`, and for lists that are the same for everyone, how long they may be cached.
pub fn decorate(result: &mut Value, cacheable: bool) {
    let Some(object) = result.as_object_mut() else {
        return;
    };
    object.insert("resultType".to_owned(), json!("complete"));
    if cacheable {
        object.insert("ttlMs".to_owned(), json!(LIST_TTL_MS));
        object.insert("cacheScope".to_owned(), json!("public"));
    }
    object.insert(
        "_meta".to_owned(),
        json!({ SERVER_INFO_META_KEY: super::server_info() }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        map
    }

    fn params(body: Value) -> Map<String, Value> {
        body.as_object().cloned().unwrap()
    }

    const META: &str = "2026-07-28";

    fn envelope() -> Value {
        json!({ "_meta": { PROTOCOL_VERSION_META_KEY: META, CLIENT_CAPABILITIES_META_KEY: {} } })
    }

    #[test]
    fn a_coherent_request_passes_and_a_sentinel_name_decodes() {
        let mut call = envelope();
        call["name"] = json!("analyze_snippet");
        let plain = headers(&[
            ("mcp-protocol-version", META),
            ("mcp-method", "tools/call"),
            ("mcp-name", "analyze_snippet"),
        ]);
        assert_eq!(check(&plain, "tools/call", &params(call.clone())), Ok(()));
        let encoded = headers(&[
            ("mcp-protocol-version", META),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?YW5hbHl6ZV9zbmlwcGV0?="),
        ]);
        assert_eq!(check(&encoded, "tools/call", &params(call)), Ok(()));
    }

    #[test]
    fn each_rung_answers_its_own_code() {
        let good = [("mcp-protocol-version", META), ("mcp-method", "tools/list")];
        let twice = headers(&[good[0], good[1], ("mcp-method", "tools/list")]);
        let no_meta = params(json!({}));
        let half_meta = params(json!({ "_meta": { PROTOCOL_VERSION_META_KEY: META } }));
        let other_method = headers(&[good[0], ("mcp-method", "tools/call")]);
        let other_version = headers(&[("mcp-protocol-version", "2025-11-25"), good[1]]);
        let cases = [
            (twice, params(envelope()), HEADER_MISMATCH),
            (
                headers(&good),
                no_meta,
                super::super::jsonrpc::INVALID_PARAMS,
            ),
            (
                headers(&good),
                half_meta,
                super::super::jsonrpc::INVALID_PARAMS,
            ),
            (other_method, params(envelope()), HEADER_MISMATCH),
            (other_version, params(envelope()), HEADER_MISMATCH),
        ];
        for (index, (headers, params, code)) in cases.into_iter().enumerate() {
            let error = check(&headers, "tools/list", &params).unwrap_err();
            assert_eq!(error.code, code, "case {index}: {}", error.message);
        }
        let mut call = envelope();
        call["name"] = json!("validate_rule");
        let wrong_name = headers(&[
            ("mcp-protocol-version", META),
            ("mcp-method", "tools/call"),
            ("mcp-name", "list_projects"),
        ]);
        let error = check(&wrong_name, "tools/call", &params(call)).unwrap_err();
        assert_eq!(
            error.message,
            "mcp-name header does not match the request body's 'name' parameter"
        );
    }
}
