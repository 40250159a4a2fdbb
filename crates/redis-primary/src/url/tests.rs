//! The sentinel URL's parts, and every malformed one refused with the setting named.

use super::SentinelUrl;

fn refusal(url: &str) -> String {
    match SentinelUrl::parse(url) {
        Ok(parsed) => panic!("{url} was accepted as {parsed:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn every_part_is_read() {
    let parsed = SentinelUrl::parse(
        "redis-sentinel://app:s%40cret@10.0.0.1:26379,sentinel-b:26380/3#estate",
    )
    .expect("a valid URL");
    assert_eq!(
        parsed,
        SentinelUrl {
            sentinels: vec![
                ("10.0.0.1".to_owned(), 26379),
                ("sentinel-b".to_owned(), 26380)
            ],
            primary_name: "estate".to_owned(),
            db: 3,
            username: Some("app".to_owned()),
            password: Some("s@cret".to_owned()),
        }
    );
}

#[test]
fn defaults_fill_the_optional_parts() {
    let parsed = SentinelUrl::parse("redis-sentinel://a,[::1],b:1/#primary").expect("valid");
    assert_eq!(
        parsed.sentinels,
        vec![
            ("a".to_owned(), 26379),
            ("::1".to_owned(), 26379),
            ("b".to_owned(), 1)
        ]
    );
    assert_eq!(
        (parsed.db, parsed.username, parsed.password),
        (0, None, None)
    );
}

#[test]
fn a_password_without_a_user_is_kept() {
    let parsed = SentinelUrl::parse("redis-sentinel://:pw@[::1]:5000#p").expect("valid");
    assert_eq!(parsed.sentinels, vec![("::1".to_owned(), 5000)]);
    assert_eq!(
        (parsed.username, parsed.password),
        (None, Some("pw".to_owned()))
    );
}

#[test]
fn malformed_urls_are_refused_naming_the_setting_and_the_part() {
    let cases = [
        ("redis://host:6379#p", "must start with the scheme"),
        ("redis-sentinel://host:26379", "needs the primary's name"),
        ("redis-sentinel://host:26379#", "needs the primary's name"),
        ("redis-sentinel://host:port#p", "port that is not a number"),
        ("redis-sentinel://host:0#p", "port that is not a number"),
        ("redis-sentinel://host:70000#p", "port that is not a number"),
        ("redis-sentinel://a,,b#p", "each Sentinel as host:port"),
        ("redis-sentinel://#p", "each Sentinel as host:port"),
        ("redis-sentinel://[::1#p", "without its ']'"),
        ("redis-sentinel://[::1]x#p", "not ':port'"),
        ("redis-sentinel://host/x#p", "database that is not a number"),
        (
            "redis-sentinel://host/-1#p",
            "database that is not a number",
        ),
        (
            "redis-sentinel://u:%ff@host#p",
            "password that is not UTF-8",
        ),
    ];
    for (url, reason) in cases {
        let message = refusal(url);
        assert!(message.starts_with("REDIS_URL: "), "{url}: {message}");
        assert!(message.contains(reason), "{url}: {message}");
    }
}

#[test]
fn a_refusal_never_repeats_the_password() {
    let message = refusal("redis-sentinel://user:hunter2@host:nope#p");
    assert!(!message.contains("hunter2"), "{message}");
}
