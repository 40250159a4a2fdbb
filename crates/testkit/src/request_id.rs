//! What a test expects of a request id on an answer: the one it sent, or a freshly minted
//! one (32 lower-case hex digits, the shape the ingress and the services mint).

/// The `x-request-id` of an answer.
///
/// # Panics
/// When the answer has none, or more than one, or it is not text.
pub fn echoed(headers: &http::HeaderMap) -> String {
    let mut values = headers.get_all("x-request-id").iter();
    let first = values.next().expect("the answer carries x-request-id");
    assert!(values.next().is_none(), "one x-request-id: {headers:?}");
    first.to_str().expect("an ASCII id").to_owned()
}

/// Whether `id` has the shape of a minted id.
pub fn is_minted(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase())
}
