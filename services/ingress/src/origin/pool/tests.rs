//! Round-robin order, and membership across re-resolutions.

use super::*;

fn pool(written: &[&str]) -> Pool {
    let written = written.iter().map(|dial| (*dial).to_owned()).collect();
    Pool::new("http://x".to_owned(), written, None, &Known::default(), 1)
}

fn dials(pool: &Pool) -> Vec<String> {
    pool.candidates()
        .iter()
        .map(|o| o.dial().to_owned())
        .collect()
}

#[test]
fn round_robin_offers_up_origins_first() {
    let pool = pool(&["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]);
    assert_eq!(dials(&pool), ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]);
    assert_eq!(dials(&pool), ["127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:1"]);
    pool.origins()[2].set_healthy(false);
    assert_eq!(dials(&pool), ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]);
    assert_eq!(dials(&pool), ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]);
    assert_eq!(dials(&pool), ["127.0.0.1:2", "127.0.0.1:1", "127.0.0.1:3"]);
}

#[test]
fn a_name_becomes_one_origin_per_address_and_keeps_their_state() {
    let pool = pool(&["backend:9800", "10.0.0.9:9800"]);
    assert!(pool.has_names());
    let names = |pool: &Pool| -> Vec<String> {
        pool.origins().iter().map(|o| o.dial().to_owned()).collect()
    };
    assert_eq!(
        names(&pool),
        ["backend:9800", "10.0.0.9:9800"],
        "unresolved: the name itself"
    );
    let answer = |addresses: &[&str]| {
        vec![
            (
                "backend:9800".to_owned(),
                addresses.iter().map(|a| (*a).to_owned()).collect(),
            ),
            ("10.0.0.9:9800".to_owned(), Vec::new()),
        ]
    };
    pool.update(answer(&["172.30.80.2:9800", "172.30.80.3:9800"]));
    assert_eq!(
        names(&pool),
        ["172.30.80.2:9800", "172.30.80.3:9800", "10.0.0.9:9800"]
    );
    let replica = pool.origins()[1].clone();
    replica.set_healthy(false);
    pool.update(answer(&["172.30.80.3:9800", "172.30.80.4:9800"]));
    assert_eq!(
        names(&pool),
        ["172.30.80.3:9800", "172.30.80.4:9800", "10.0.0.9:9800"]
    );
    assert!(
        Arc::ptr_eq(&pool.origins()[0], &replica),
        "a known address keeps its origin"
    );
    assert!(!pool.origins()[0].is_up(), "and its state");
    pool.update(answer(&[]));
    assert_eq!(
        names(&pool),
        ["backend:9800", "10.0.0.9:9800"],
        "no answer: the name again"
    );
    assert!(!is_address("backend:9800"));
    assert!(is_address("[::1]:80") && is_address("127.0.0.1:80"));
}
