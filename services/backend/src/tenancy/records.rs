//! Building blocks for store keys and records: ids, escaped key segments, JSON, timestamps.

pub(crate) use crate::store::now_ms;
use crate::store::{StoreError, StoreResult};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

/// The id minted here that `raw` names, in canonical form; `None` when `raw` is not a UUID,
/// which every caller treats exactly like an id that names nothing.
pub(crate) fn parse_id(raw: &str) -> Option<Uuid> {
    Uuid::parse_str(raw.trim()).ok()
}

/// `raw` made safe as one `:`-separated key segment: `%` and `:` are percent-escaped, so an
/// id minted elsewhere (a user id) can never reach into a neighbour's key prefix.
pub(crate) fn segment(raw: &str) -> String {
    raw.replace('%', "%25").replace(':', "%3A")
}

/// `value` as the JSON bytes of a record (for `insert_new`, which takes bytes).
pub(crate) fn encode<T: Serialize>(value: &T) -> StoreResult<Vec<u8>> {
    serde_json::to_vec(value).map_err(|error| StoreError::corrupt("json value", error))
}

/// A record read by `list` or `take`, decoded; [`StoreError::Corrupt`] when it does not.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> StoreResult<T> {
    serde_json::from_slice(bytes).map_err(|error| StoreError::corrupt("json record", error))
}
