//! Reading an upstream's answer with a size bound: a relay never buffers more than it means to,
//! whether it takes the answer whole ([`read_body`]) or as it arrives ([`body_stream`], a
//! language model's server-sent events). The bound on an analysis answer, and how its findings
//! are kept, are the analysis contract's (`analysis::bounds`).

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};
use http_body_util::{BodyExt, Limited};

/// Why an upstream's answer could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The answer is longer than the bound (by its `Content-Length` or as it streamed in).
    #[error("the answer is larger than {limit} bytes")]
    TooLarge {
        /// The bound.
        limit: usize,
    },
    /// The connection failed or timed out while the answer was read.
    #[error(transparent)]
    Transport(#[from] reqwest::Error),
}

/// The whole body of `response`, or [`BodyError::TooLarge`] as soon as it passes `limit` bytes.
pub async fn read_body(response: reqwest::Response, limit: usize) -> Result<Bytes, BodyError> {
    let body = Limited::new(reqwest::Body::from(response), limit);
    match body.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) => Err(classify(error, limit)),
    }
}

/// The body of `response` as it arrives; the stream's last item is [`BodyError::TooLarge`]
/// once more than `limit` bytes have come, so a reader that buffers it (an event parser
/// waiting for an event's end) holds at most `limit` bytes.
pub fn body_stream(
    response: reqwest::Response,
    limit: usize,
) -> impl Stream<Item = Result<Bytes, BodyError>> + Send + 'static {
    Limited::new(reqwest::Body::from(response), limit)
        .into_data_stream()
        .map_err(move |error| classify(error, limit))
}

/// `Limited` fails with the inner body's error (reqwest's) or its own length error.
fn classify(error: Box<dyn std::error::Error + Send + Sync>, limit: usize) -> BodyError {
    match error.downcast::<reqwest::Error>() {
        Ok(transport) => BodyError::Transport(*transport),
        Err(_) => BodyError::TooLarge { limit },
    }
}
