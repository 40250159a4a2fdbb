//! Reading an upstream's answer with a size bound: a relay never buffers more than it means to
//! (the bound on an analysis answer, and how its findings are kept, are the analysis contract's:
//! `analysis::bounds`).

use bytes::Bytes;
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
        Err(error) => match error.downcast::<reqwest::Error>() {
            Ok(transport) => Err(BodyError::Transport(*transport)),
            // `Limited` fails with the inner body's error (reqwest's) or its own length error.
            Err(_) => Err(BodyError::TooLarge { limit }),
        },
    }
}
