//! The sentinel form of `REDIS_URL`:
//! `redis-sentinel://[user:password@]host:port,host:port[/db]#primary-name`.
//!
//! The hosts are Sentinels (port 26379 when left out); the user and password, percent-encoded,
//! are those of the Redis nodes; the database defaults to 0; the name after `#` is the primary's
//! name as the Sentinels know it and is required.

use crate::PrimaryError;
use percent_encoding::percent_decode_str;

/// The scheme that selects Sentinel.
pub const SENTINEL_SCHEME: &str = "redis-sentinel://";

/// The port a Sentinel listens on when the URL does not say.
const DEFAULT_SENTINEL_PORT: u16 = 26379;

/// A parsed sentinel URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentinelUrl {
    /// Every Sentinel, as host and port, in the order given.
    pub sentinels: Vec<(String, u16)>,
    /// The primary's name as the Sentinels know it.
    pub primary_name: String,
    /// The database selected on the primary.
    pub db: i64,
    /// The Redis nodes' user, if any.
    pub username: Option<String>,
    /// The Redis nodes' password, if any.
    pub password: Option<String>,
}

fn refused(reason: &str) -> PrimaryError {
    PrimaryError::Url(format!("a sentinel URL ({SENTINEL_SCHEME}…) {reason}"))
}

impl SentinelUrl {
    /// Parses a `redis-sentinel://` URL; the error says which part is wrong, never the password.
    pub fn parse(url: &str) -> Result<Self, PrimaryError> {
        let rest = url
            .strip_prefix(SENTINEL_SCHEME)
            .ok_or_else(|| refused("must start with the scheme"))?;
        let (rest, primary_name) = rest
            .split_once('#')
            .ok_or_else(|| refused("needs the primary's name after '#'"))?;
        let primary_name = decode(primary_name, "primary name")?;
        if primary_name.is_empty() {
            return Err(refused("needs the primary's name after '#'"));
        }
        let (credentials, rest) = match rest.rsplit_once('@') {
            Some((credentials, hosts)) => (Some(credentials), hosts),
            None => (None, rest),
        };
        let (hosts, db) = match rest.split_once('/') {
            Some((hosts, "")) => (hosts, 0),
            Some((hosts, db)) => (
                hosts,
                db.parse::<i64>()
                    .ok()
                    .filter(|db| *db >= 0)
                    .ok_or_else(|| refused("has a database that is not a number"))?,
            ),
            None => (rest, 0),
        };
        let sentinels = hosts
            .split(',')
            .map(host_and_port)
            .collect::<Result<Vec<_>, _>>()?;
        let (username, password) = match credentials {
            None => (None, None),
            Some(credentials) => user_and_password(credentials)?,
        };
        Ok(Self {
            sentinels,
            primary_name,
            db,
            username,
            password,
        })
    }
}

fn decode(text: &str, part: &str) -> Result<String, PrimaryError> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| refused(&format!("has a {part} that is not UTF-8 once decoded")))
}

fn user_and_password(credentials: &str) -> Result<(Option<String>, Option<String>), PrimaryError> {
    let (user, password) = credentials.split_once(':').unwrap_or((credentials, ""));
    let user = decode(user, "user")?;
    let password = decode(password, "password")?;
    Ok((
        Some(user).filter(|user| !user.is_empty()),
        Some(password).filter(|password| !password.is_empty()),
    ))
}

fn host_and_port(entry: &str) -> Result<(String, u16), PrimaryError> {
    let (host, port) = if let Some(bracketed) = entry.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| refused("has an IPv6 Sentinel address without its ']'"))?;
        match after {
            "" => (host, None),
            _ => (
                host,
                Some(after.strip_prefix(':').ok_or_else(|| {
                    refused("has text after an IPv6 Sentinel address that is not ':port'")
                })?),
            ),
        }
    } else {
        match entry.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (entry, None),
        }
    };
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '/' || c == '@') {
        return Err(refused("needs each Sentinel as host:port, comma-separated"));
    }
    let port = match port {
        None => DEFAULT_SENTINEL_PORT,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|port| *port != 0)
            .ok_or_else(|| refused("has a Sentinel port that is not a number from 1 to 65535"))?,
    };
    Ok((host.to_owned(), port))
}

#[cfg(test)]
mod tests;
