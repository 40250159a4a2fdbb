//! The URL people reach this server at, as the installer script writes it.
//!
//! People pipe `GET /install.sh` to `sh`, so nothing a request says (its `Host`, say) goes into
//! the script: the URL comes from `MCP_PUBLIC_URL`, or is loopback on the bound port. Even the
//! configured value is held to a strict alphabet (letters, digits and `:/.-_~[]`), so it can sit
//! inside single quotes in the script with nothing able to end them.

use std::fmt;

/// What a valid public URL looks like (the message of a refused one).
pub const EXPECTED: &str = "an http:// or https:// base URL such as https://mcp.example.com \
     (host, optional port and path; no user, query, fragment or characters beyond \
     letters, digits and :/.-_~[])";

/// A validated base URL, without a trailing slash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    /// Parses and checks `text`; `Err` carries what was expected.
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let url = reqwest::Url::parse(text).map_err(|_| EXPECTED)?;
        let plain = matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some()
            && url.username().is_empty()
            && url.password().is_none()
            && url.query().is_none()
            && url.fragment().is_none();
        let normalised = url.as_str().trim_end_matches('/');
        if !plain || !normalised.chars().all(is_safe) {
            return Err(EXPECTED);
        }
        Ok(Self(normalised.to_owned()))
    }

    /// The address this server listens on (loopback for an unspecified bind address): the
    /// default, right when the server runs on the machine that installs.
    pub fn local(address: std::net::SocketAddr) -> Self {
        Self(format!("http://{address}"))
    }

    /// The MCP endpoint under this URL.
    pub fn endpoint(&self) -> String {
        format!("{}/mcp", self.0)
    }

    /// The base URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

fn is_safe(character: char) -> bool {
    character.is_ascii_alphanumeric() || ":/.-_~[]".contains(character)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_urls_are_kept_without_their_trailing_slash() {
        let cases = [
            ("https://mcp.example.com", "https://mcp.example.com"),
            ("https://MCP.Example.com/", "https://mcp.example.com"),
            ("http://mcp.localhost:8080", "http://mcp.localhost:8080"),
            ("http://[::1]:9500/", "http://[::1]:9500"),
            (
                "https://example.com/tools/estate/",
                "https://example.com/tools/estate",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(PublicUrl::parse(text).unwrap().as_str(), expected, "{text}");
        }
        let url = PublicUrl::parse("https://mcp.example.com/").unwrap();
        assert_eq!(url.endpoint(), "https://mcp.example.com/mcp");
    }

    #[test]
    fn anything_that_could_leave_its_quotes_is_refused() {
        for text in [
            "mcp.example.com",
            "ftp://mcp.example.com",
            "https://user:pw@mcp.example.com",
            "https://mcp.example.com/?x=1",
            "https://mcp.example.com/#top",
            "https://mcp.example.com/a'b",
            "https://mcp.example.com/$(id)",
            "https://mcp.example.com/`id`",
            "https://mcp.example.com/a b",
            "https://mcp.example.com/a;b",
            "https://mcp.example.com/%27",
            "file:///etc/passwd",
        ] {
            assert_eq!(PublicUrl::parse(text), Err(EXPECTED), "{text}");
        }
    }
}
