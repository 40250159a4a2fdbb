//! What the suites of near misses and true forms share: the tests over a suite's cases. The
//! near misses must give no finding, and each true form beside them exactly its one.

/// The tests of a suite: `$quiet`, (path, code) cases that give no finding, and, when given,
/// `$reported`, (path, code, rule, line) cases that give exactly that finding.
macro_rules! near_misses_and_true_forms {
    ($quiet:expr) => {
        #[test]
        fn near_misses_are_not_reported() {
            let reported: Vec<String> = $quiet
                .iter()
                .filter_map(|&(path, code): &(&str, &str)| {
                    let found = common::findings(path, code);
                    (!found.is_empty()).then(|| format!("{path}: {found:?}"))
                })
                .collect();
            assert!(reported.is_empty(), "{}", reported.join("\n"));
        }
    };
    ($quiet:expr, $reported:expr) => {
        forms::near_misses_and_true_forms!($quiet);

        #[test]
        fn the_true_forms_beside_them_are_still_reported() {
            let missed: Vec<String> = $reported
                .iter()
                .filter_map(|&(path, code, rule, line): &(&str, &str, &str, u32)| {
                    let found = common::findings(path, code);
                    (found != [(rule.to_owned(), line)]).then(|| format!("{path}: {found:?}"))
                })
                .collect();
            assert!(missed.is_empty(), "{}", missed.join("\n"));
        }
    };
}

pub(crate) use near_misses_and_true_forms;
