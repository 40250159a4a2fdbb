//! Unit tests of message parsing: every malformed shape and the error it is owed.

use super::*;

fn rejected(body: &str) -> (Value, i64, String) {
    let rejected = parse(body.as_bytes()).expect_err(body);
    (rejected.id, rejected.error.code, rejected.error.message)
}

#[test]
fn requests_and_notifications_parse() {
    let request = parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#).unwrap();
    assert_eq!(
        request,
        Message::Request {
            id: json!(7),
            method: "tools/list".to_owned(),
            params: Map::new()
        }
    );
    let text_id = parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{"x":1}}"#);
    assert!(matches!(text_id, Ok(Message::Request { id, .. }) if id == json!("a")));
    let notification = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(
        notification.unwrap(),
        Message::Notification {
            method: "notifications/initialized".to_owned()
        }
    );
}

#[test]
fn each_malformed_shape_gets_its_code() {
    let null = Value::Null;
    let cases: [(&str, Value, i64); 14] = [
        ("{bad", null.clone(), PARSE_ERROR),
        ("", null.clone(), PARSE_ERROR),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            null.clone(),
            PARSE_ERROR,
        ),
        ("[]", null.clone(), INVALID_REQUEST),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            null.clone(),
            INVALID_REQUEST,
        ),
        ("42", null.clone(), INVALID_REQUEST),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            json!(1),
            INVALID_REQUEST,
        ),
        (r#"{"id":1,"method":"ping"}"#, json!(1), INVALID_REQUEST),
        (r#"{"jsonrpc":"2.0","id":1}"#, json!(1), INVALID_REQUEST),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            json!(1),
            INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            null.clone(),
            INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            null.clone(),
            INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#,
            json!(1),
            INVALID_REQUEST,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            json!(1),
            INVALID_PARAMS,
        ),
    ];
    for (body, id, code) in cases {
        let (got_id, got_code, _) = rejected(body);
        assert_eq!((got_id, got_code), (id, code), "{body}");
    }
}

#[test]
fn a_posted_response_is_refused_in_words() {
    let (_, code, message) = rejected(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    assert_eq!(code, INVALID_REQUEST);
    assert_eq!(
        message,
        "Invalid Request: this server sends no requests, so it takes no responses"
    );
}

#[test]
fn errors_travel_with_data_only_when_there_is_some() {
    let plain = failure(&json!(1), &RpcError::method_not_found("nope"));
    assert_eq!(
        plain.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: nope"}}"#
    );
    let detailed = RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "requested": "x" }));
    assert_eq!(
        failure(&Value::Null, &detailed).to_string(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"x"}}}"#
    );
}
