//! The one error of this crate: a Redis URL that cannot be used. Messages name the setting and
//! what is wrong with it, never the URL itself (it may carry a password).

/// Why a Redis URL was refused.
#[derive(Debug, thiserror::Error)]
pub enum PrimaryError {
    /// The URL is malformed; the reason says which part.
    #[error("REDIS_URL: {0}")]
    Url(String),
    /// redis-rs refused the URL or the connection settings.
    #[error("REDIS_URL: {0:?}")]
    Setup(redis::ErrorKind),
}

impl From<redis::RedisError> for PrimaryError {
    fn from(error: redis::RedisError) -> Self {
        Self::Setup(error.kind())
    }
}

/// For callers that keep redis-rs' error type: the setting and the reason, as a client
/// configuration error.
impl From<PrimaryError> for redis::RedisError {
    fn from(error: PrimaryError) -> Self {
        Self::from((
            redis::ErrorKind::InvalidClientConfig,
            "REDIS_URL refused",
            error.to_string(),
        ))
    }
}
