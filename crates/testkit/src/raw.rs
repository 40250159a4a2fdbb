//! One HTTP/1.1 exchange over a raw TCP socket, the request target written byte for byte.
//!
//! Client libraries normalise what they send (`url` resolves `/./` and `%2e`, refuses a
//! backslash), which is exactly what a test of a guard must not have happen: an attacker's
//! client sends what it likes. The answer is read to the end (`Connection: close`) and parsed
//! with `httparse`.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long one exchange may take before the test fails.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// A request as it goes on the wire.
#[derive(Clone, Debug, Default)]
pub struct RawRequest {
    /// The method token, as written (`post` is not `POST`).
    pub method: String,
    /// The request target, as written.
    pub target: String,
    /// Header lines besides `Host`, `Connection` and `Content-Length`.
    pub headers: Vec<(String, String)>,
    /// The body (`Content-Length` is set from it).
    pub body: Vec<u8>,
}

impl RawRequest {
    /// `method target` with no headers and no body.
    pub fn new(method: &str, target: &str) -> Self {
        Self {
            method: method.to_owned(),
            target: target.to_owned(),
            ..Self::default()
        }
    }

    /// Adds a header line.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sets a JSON body.
    #[must_use]
    pub fn json(self, body: &str) -> Self {
        let mut request = self.header("content-type", "application/json");
        request.body = body.as_bytes().to_vec();
        request
    }

    /// The same request to another target.
    #[must_use]
    pub fn to(&self, method: &str, target: &str) -> Self {
        Self {
            method: method.to_owned(),
            target: target.to_owned(),
            ..self.clone()
        }
    }
}

/// What came back.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The status code.
    pub status: u16,
    /// Header names lower-cased, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body, as text (lossy).
    pub body: String,
}

impl Exchange {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Sends `request` to `address` (`127.0.0.1:port`) and reads the whole answer.
///
/// # Panics
/// When the server cannot be reached, does not answer within [`EXCHANGE_TIMEOUT`], or answers
/// something that is not HTTP/1.1: the test fails with the reason.
pub async fn send(address: &str, request: &RawRequest) -> Exchange {
    let label = format!("{} {}", request.method, request.target);
    send_bytes(address, &wire(address, request), &label).await
}

/// Sends `bytes` as they are (a request head the test wrote whole: two `Host` lines, a
/// chunked body, no `Host` at all) to `address` and reads the whole answer; `label` names the
/// request in a failure.
///
/// # Panics
/// As [`send`].
pub async fn send_bytes(address: &str, bytes: &[u8], label: &str) -> Exchange {
    let exchange = async {
        let mut stream = TcpStream::connect(address)
            .await
            .expect("the server accepts");
        stream
            .write_all(bytes)
            .await
            .expect("the request is written");
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .await
            .expect("the answer is read");
        answer
    };
    let answer = tokio::time::timeout(EXCHANGE_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| panic!("{label} got no answer in time"));
    parse(&answer).unwrap_or_else(|| {
        panic!(
            "{label}: not an HTTP answer: {:?}",
            String::from_utf8_lossy(&answer)
        )
    })
}

fn wire(address: &str, request: &RawRequest) -> Vec<u8> {
    let mut head = format!(
        "{} {} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\ncontent-length: {}\r\n",
        request.method,
        request.target,
        request.body.len()
    );
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&request.body);
    bytes
}

fn parse(answer: &[u8]) -> Option<Exchange> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let httparse::Status::Complete(head_len) = response.parse(answer).ok()? else {
        return None;
    };
    let headers: Vec<(String, String)> = response
        .headers
        .iter()
        .map(|header| {
            let value = String::from_utf8_lossy(header.value).into_owned();
            (header.name.to_ascii_lowercase(), value)
        })
        .collect();
    let rest = &answer[head_len..];
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Some(Exchange {
        status: response.code?,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let httparse::Status::Complete((start, size)) = httparse::parse_chunk_size(rest).ok()?
        else {
            return None;
        };
        let size = usize::try_from(size).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(rest.get(start..start + size)?);
        rest = rest.get(start + size + 2..)?;
    }
}
