//! What the origin receives and what rules match, spelling by spelling.

use super::*;

fn both(path: &str) -> (String, String) {
    let parsed = RequestPath::parse(path, None).expect(path);
    (parsed.forward().to_owned(), parsed.matched().to_owned())
}

#[test]
fn unreserved_escapes_decode_and_dot_segments_resolve() {
    for (spelling, forward, matched) in [
        ("/", "/", "/"),
        ("/a/b", "/a/b", "/a/b"),
        ("/%61pi/v%31", "/api/v1", "/api/v1"),
        ("/a%2db%5f%7e", "/a-b_~", "/a-b_~"),
        ("/x/../blocked", "/blocked", "/blocked"),
        ("/%2e/blocked", "/blocked", "/blocked"),
        ("/x/%2E%2E/blocked", "/blocked", "/blocked"),
        ("/x/.%2e/blocked", "/blocked", "/blocked"),
        ("/../../blocked", "/blocked", "/blocked"),
        ("/a/b/..", "/a/", "/a/"),
        ("/a/.", "/a/", "/a/"),
        ("/..", "/", "/"),
        ("/a//b", "/a//b", "/a/b"),
        ("//blocked", "/blocked", "/blocked"),
        ("//a.test/blocked", "/a.test/blocked", "/a.test/blocked"),
        ("/a/", "/a/", "/a/"),
        ("/caf%c3%a9", "/caf%C3%A9", "/café"),
        ("/a%20b", "/a%20b", "/a b"),
        ("/a%3f%c3%A9", "/a%3F%C3%A9", "/a?é"),
    ] {
        assert_eq!(
            both(spelling),
            (forward.to_owned(), matched.to_owned()),
            "{spelling}"
        );
    }
}

#[test]
fn matrix_parameters_are_cut_for_rules_only() {
    for (spelling, forward, matched) in [
        ("/blocked;x", "/blocked;x", "/blocked"),
        ("/blocked;x/inner", "/blocked;x/inner", "/blocked/inner"),
        ("/blocked%3bx/inner", "/blocked%3Bx/inner", "/blocked/inner"),
        ("/;x/blocked", "/;x/blocked", "/blocked"),
        ("/a/..;/blocked", "/a/..;/blocked", "/blocked"),
        ("/blocked;/../x", "/x", "/x"),
    ] {
        assert_eq!(
            both(spelling),
            (forward.to_owned(), matched.to_owned()),
            "{spelling}"
        );
    }
}

#[test]
fn what_no_origin_agrees_on_is_refused() {
    for (spelling, why) in [
        ("/a%2fb", BadPath::Separator),
        ("/a%2Fb", BadPath::Separator),
        ("/a%5cb", BadPath::Separator),
        ("/a\\b", BadPath::Separator),
        ("/%2561", BadPath::DoubleEncoding),
        ("/a%252f", BadPath::DoubleEncoding),
        ("/a%", BadPath::Escape),
        ("/a%4", BadPath::Escape),
        ("/a%zz", BadPath::Escape),
        ("/a%00", BadPath::Control),
        ("/a%0d%0a", BadPath::Control),
        ("/a%7f", BadPath::Control),
        ("/a%ff", BadPath::NotUtf8),
        ("/%c1%a1", BadPath::NotUtf8),
        ("a", BadPath::NotAbsolute),
        ("", BadPath::NotAbsolute),
    ] {
        assert_eq!(RequestPath::parse(spelling, None), Err(why), "{spelling}");
    }
}

#[test]
fn the_query_goes_through_as_sent_and_options_star_stays() {
    let parsed = RequestPath::parse("/x/../a", Some("q=%2e%2f&b=..")).expect("valid");
    assert_eq!(parsed.forward(), "/a?q=%2e%2f&b=..");
    assert_eq!(parsed.matched(), "/a");
    let plain = RequestPath::parse("/a/b", Some("q=1")).expect("valid");
    assert_eq!((plain.forward(), plain.matched()), ("/a/b?q=1", "/a/b"));
    assert_eq!(plain.clone().into_forward(), "/a/b?q=1");
    let star = RequestPath::parse("*", None).expect("OPTIONS *");
    assert_eq!((star.forward(), star.matched()), ("*", "*"));
    assert!(
        RequestPath::parse("/%25zz", None).is_ok(),
        "a lone %25 is a percent sign"
    );
}

#[test]
fn a_plain_path_is_its_own_normal_form() {
    for plain in [
        "/",
        "/a",
        "/a/",
        "/api/v1/login",
        "/a.b/..c/.d",
        "/café",
        "/a+b/~x",
    ] {
        assert!(is_plain(plain), "{plain}");
        let slow = canonical_path(plain).expect(plain);
        assert_eq!(slow, plain);
        assert_eq!(matched_view(&slow).expect(plain), plain);
    }
    for not_plain in ["//a", "/a/./b", "/a/..", "/a;b", "/%61", "/a\\b", "a"] {
        assert!(!is_plain(not_plain), "{not_plain}");
    }
}
