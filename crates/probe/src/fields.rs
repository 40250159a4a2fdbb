//! The IETF draft rate-limit fields the estate sends, read as the structured field lists
//! they are (RFC 9651): `RateLimit: "group";r=<remaining>;t=<secs>` and
//! `RateLimit-Policy: "group";q=<limit>;w=<window secs>`, one item per group.

use crate::exchange::Exchange;
use sfv::{List, ListEntry, Parser};

/// One group's item: its name and integer parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The group's name.
    pub group: String,
    /// Its parameters, in order (`r`, `t` or `q`, `w`).
    pub params: Vec<(String, i64)>,
}

impl Item {
    /// The integer parameter `key`, when present and not negative.
    pub fn get(&self, key: &str) -> Option<u64> {
        self.params
            .iter()
            .find(|(name, _)| name == key)
            .and_then(|(_, value)| u64::try_from(*value).ok())
    }
}

/// The items of header `name` (empty when it is absent or not a list of named items).
pub fn items(exchange: &Exchange, name: &str) -> Vec<Item> {
    exchange
        .header(name)
        .and_then(|text| Parser::new(text).parse::<List>().ok())
        .map(|list| list.iter().filter_map(item).collect())
        .unwrap_or_default()
}

/// The `RateLimit` item of `group`.
pub fn state(exchange: &Exchange, group: &str) -> Option<Item> {
    items(exchange, "ratelimit")
        .into_iter()
        .find(|item| item.group == group)
}

fn item(entry: &ListEntry) -> Option<Item> {
    let ListEntry::Item(item) = entry else {
        return None;
    };
    let group = item.bare_item.as_string()?.as_str().to_owned();
    let params = item
        .params
        .iter()
        .filter_map(|(key, value)| {
            let value = i64::from(value.as_integer()?);
            Some((key.as_str().to_owned(), value))
        })
        .collect();
    Some(Item { group, params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Window;
    use reqwest::header::{HeaderMap, HeaderValue};
    use std::time::{Instant, SystemTime};

    fn answer(name: &'static str, value: &'static str) -> Exchange {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        let now = Instant::now();
        Exchange {
            status: Some(200),
            headers,
            body: String::new(),
            window: Window {
                sent: now,
                received: now,
            },
            sent_at: SystemTime::now(),
        }
    }

    #[test]
    fn reads_each_groups_parameters() {
        let both = answer(
            "ratelimit",
            r#""credential";r=299;t=12, "auth_credential";r=19;t=45"#,
        );
        let auth = state(&both, "auth_credential").expect("listed");
        assert_eq!((auth.get("r"), auth.get("t")), (Some(19), Some(45)));
        let policy = answer("ratelimit-policy", r#""read";q=600;w=60"#);
        let read = &items(&policy, "ratelimit-policy")[0];
        assert_eq!((read.group.as_str(), read.get("q")), ("read", Some(600)));
        assert!(items(&answer("ratelimit", "not a list ("), "ratelimit").is_empty());
    }
}
