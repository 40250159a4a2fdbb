//! Hostname rules, as cloudflared applies them: no port, at most one `*` and only in front,
//! the catch-all last and only last; and the match itself (`*.example.com` matches
//! `a.b.example.com`, not `example.com`).

use super::IngressError;

/// cloudflared's `validateHostname` for rule `index` (from 0) of `total`.
pub fn validate(
    hostname: &str,
    path: &str,
    index: usize,
    total: usize,
) -> Result<(), IngressError> {
    if split_host_port(hostname).is_some() {
        return Err(IngressError::HostnameContainsPort);
    }
    if hostname.rfind('*').is_some_and(|at| at > 0) {
        return Err(IngressError::BadWildcard);
    }
    let catch_all = is_catch_all(hostname, path);
    let last = index + 1 == total;
    if last && !catch_all {
        return Err(IngressError::LastRuleNotCatchAll);
    }
    if !last && catch_all {
        return Err(IngressError::CatchAllNotLast {
            index: index + 1,
            hostname: hostname.to_owned(),
        });
    }
    Ok(())
}

/// A rule with no hostname filter (absent or `*`) and no path.
pub fn is_catch_all(hostname: &str, path: &str) -> bool {
    (hostname.is_empty() || hostname == "*") && path.is_empty()
}

/// cloudflared's `matchHost`, ignoring ASCII case (hostnames are case-insensitive; cloudflared
/// compares bytes because the edge has already lower-cased them) and the one trailing dot of a
/// fully qualified name (`api.example.com.` is `api.example.com`, as nginx matches it), so no
/// spelling of a host meets another rule than the host itself (a rule written with the dot
/// means the same host).
pub fn matches(rule: &str, host: &str) -> bool {
    let (rule, host) = (without_root_dot(rule), without_root_dot(host));
    if rule.is_empty() || rule == "*" || rule.eq_ignore_ascii_case(host) {
        return true;
    }
    match rule.strip_prefix('*') {
        Some(suffix) if suffix.starts_with('.') => {
            let (host, suffix) = (host.as_bytes(), suffix.as_bytes());
            host.len() >= suffix.len()
                && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
        }
        _ => false,
    }
}

/// `name` without the trailing dot of its fully qualified spelling (a lone `.` stays: it is not
/// a host, and must not become the empty rule that matches every host).
fn without_root_dot(name: &str) -> &str {
    match name.strip_suffix('.') {
        Some(stripped) if !stripped.is_empty() => stripped,
        _ => name,
    }
}

/// The host of a `Host` header: without its port when it has one.
pub fn without_port(host: &str) -> &str {
    split_host_port(host).map_or(host, |(host, _)| host)
}

/// Go's `net.SplitHostPort`: `Some((host, port))` exactly when Go would succeed.
pub fn split_host_port(text: &str) -> Option<(&str, &str)> {
    let colon = text.rfind(':')?;
    let (host, before_host, after_host) = if text.starts_with('[') {
        let end = text.find(']')?;
        if end + 1 != colon {
            return None;
        }
        (&text[1..end], 1, end + 1)
    } else {
        let host = &text[..colon];
        if host.contains(':') {
            return None;
        }
        (host, 0, 0)
    };
    if text[before_host..].contains('[') || text[after_host..].contains(']') {
        return None;
    }
    Some((host, &text[colon + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_host_port_agrees_with_go() {
        assert_eq!(
            split_host_port("example.com:443"),
            Some(("example.com", "443"))
        );
        assert_eq!(split_host_port("example.com:"), Some(("example.com", "")));
        assert_eq!(split_host_port("[::1]:80"), Some(("::1", "80")));
        assert_eq!(split_host_port("example.com"), None);
        assert_eq!(split_host_port("::1"), None);
        assert_eq!(split_host_port("[::1]"), None);
        assert_eq!(split_host_port(""), None);
        assert_eq!(without_port("api.localhost:8080"), "api.localhost");
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        assert!(matches("*.example.com", "a.example.com"));
        assert!(matches("*.example.com", "a.b.example.com"));
        assert!(matches("*.example.com", "A.Example.COM"));
        assert!(!matches("*.example.com", "example.com"));
        assert!(!matches("*.example.com", "badexample.com"));
        assert!(matches("api.localhost", "API.localhost"));
        assert!(!matches("api.localhost", "ai.localhost"));
        assert!(matches("", "anything"));
        assert!(matches("*", "anything"));
        for (rule, host) in [
            ("api.localhost", "api.localhost."),
            ("api.localhost.", "api.localhost"),
            ("*.example.com", "a.example.com."),
            ("*.example.com.", "a.example.com"),
        ] {
            assert!(matches(rule, host), "{rule} {host}");
        }
        assert!(!matches("*.example.com", "example.com."));
        assert!(!matches(".", "anything"));
    }

    #[test]
    fn validation_follows_cloudflared() {
        assert!(validate("a.com", "", 0, 2).is_ok());
        assert!(validate("", "", 1, 2).is_ok());
        assert!(matches!(
            validate("a.com:80", "", 0, 2),
            Err(IngressError::HostnameContainsPort)
        ));
        assert!(matches!(
            validate("a.*.com", "", 0, 2),
            Err(IngressError::BadWildcard)
        ));
        assert!(matches!(
            validate("a.com", "", 1, 2),
            Err(IngressError::LastRuleNotCatchAll)
        ));
        assert!(matches!(
            validate("", "^/x", 1, 2),
            Err(IngressError::LastRuleNotCatchAll)
        ));
        assert!(matches!(
            validate("*", "", 0, 2),
            Err(IngressError::CatchAllNotLast { index: 1, .. })
        ));
    }
}
