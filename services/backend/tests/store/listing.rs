//! Listing by prefix: sorted, live records only, the prefix taken literally.

use backend::store::{Space, Store};
use std::time::Duration;

both!(
    list_returns_the_prefix_sorted_and_live,
    list_prefix_glob_characters_are_literal
);

fn keys(listed: &[(String, Vec<u8>)]) -> Vec<&str> {
    listed.iter().map(|(key, _)| key.as_str()).collect()
}

async fn list_returns_the_prefix_sorted_and_live(store: Store) {
    let space = Space::Members;
    for key in ["ws1:c", "ws1:a", "ws10:a", "ws2:a", "ws1:b"] {
        store
            .put(space, key, key.as_bytes(), None)
            .await
            .expect("put");
    }
    store
        .put(
            space,
            "ws1:expiring",
            b"x",
            Some(Duration::from_millis(200)),
        )
        .await
        .expect("put");
    store
        .put(Space::Projects, "ws1:other", b"x", None)
        .await
        .expect("put");

    let listed = store.list(space, "ws1:").await.expect("list");
    assert_eq!(keys(&listed), ["ws1:a", "ws1:b", "ws1:c", "ws1:expiring"]);
    assert_eq!(listed[0].1, b"ws1:a");

    tokio::time::sleep(Duration::from_millis(300)).await;
    let listed = store.list(space, "ws1:").await.expect("list");
    assert_eq!(
        keys(&listed),
        ["ws1:a", "ws1:b", "ws1:c"],
        "expired records are skipped"
    );
    // Byte order, as Redis and redb both sort: '0' comes before ':'.
    let everything = store.list(space, "").await.expect("list");
    assert_eq!(
        keys(&everything),
        ["ws10:a", "ws1:a", "ws1:b", "ws1:c", "ws2:a"]
    );
    assert!(store.list(space, "ws3:").await.expect("list").is_empty());
}

async fn list_prefix_glob_characters_are_literal(store: Store) {
    let space = Space::Runs;
    let stored = ["a*b", "a?b", "a[x]b", "a\\b", "axb", "aab", "a]b"];
    for key in stored {
        store.put(space, key, b"v", None).await.expect("put");
    }
    for (prefix, expected) in [
        ("a*", "a*b"),
        ("a?", "a?b"),
        ("a[x]", "a[x]b"),
        ("a\\", "a\\b"),
        ("a]", "a]b"),
    ] {
        let listed = store.list(space, prefix).await.expect("list");
        assert_eq!(keys(&listed), [expected], "prefix {prefix:?}");
    }
    assert_eq!(
        store.list(space, "a").await.expect("list").len(),
        stored.len()
    );
}
