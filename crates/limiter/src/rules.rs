//! The allow-list: which (method, path) pairs are metered, and by which groups.
//!
//! A request that matches no rule is never metered. The inverse design (meter everything,
//! carve out exceptions) puts the cost of a forgotten carve-out on a live platform; here a
//! path that cannot survive a budget is unreachable by any future edit to a limit.
//!
//! Patterns: literal segments, `*` for exactly one segment, and a trailing `/**` for the
//! path itself and everything below it (Spring's AntPathMatcher meaning).

use smallvec::SmallVec;
use std::fmt;

/// One path pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPattern {
    segments: Vec<String>,
    subtree: bool,
}

impl PathPattern {
    /// Parses `/api/v1/auth/login`, `/rules/*`, `/user/password/**`.
    pub fn new(pattern: &str) -> Self {
        let (base, subtree) = match pattern.strip_suffix("/**") {
            Some(base) => (base, true),
            None => (pattern, false),
        };
        let segments = base
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        Self { segments, subtree }
    }

    /// True when `path` (no query string) matches.
    pub fn matches(&self, path: &str) -> bool {
        self.matches_segments(&Segments::of(path))
    }

    fn matches_segments(&self, parts: &Segments<'_>) -> bool {
        let parts = parts.0.as_slice();
        if parts.len() < self.segments.len() || (!self.subtree && parts.len() > self.segments.len())
        {
            return false;
        }
        self.segments
            .iter()
            .zip(parts)
            .all(|(segment, part)| segment == "*" || segment == part)
    }
}

impl fmt::Display for PathPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.segments {
            write!(f, "/{segment}")?;
        }
        if self.subtree {
            f.write_str("/**")?;
        }
        Ok(())
    }
}

/// A path's non-empty segments, split once per request and matched against every rule (on
/// the stack for the paths the estate routes).
struct Segments<'a>(SmallVec<[&'a str; 16]>);

impl<'a> Segments<'a> {
    fn of(path: &'a str) -> Self {
        Self(path.split('/').filter(|part| !part.is_empty()).collect())
    }
}

/// Methods a rule applies to: `None` means any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    methods: Option<Vec<String>>,
    pattern: PathPattern,
    groups: Vec<String>,
}

impl Rule {
    /// The groups that meter a matching request, in the order they are asked.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// The path first: its segment count alone turns most rules of a table away.
    fn matches(&self, method: &str, path: &Segments<'_>) -> bool {
        self.pattern.matches_segments(path)
            && self
                .methods
                .as_ref()
                .is_none_or(|methods| methods.iter().any(|m| m.eq_ignore_ascii_case(method)))
    }
}

/// A service's rule table: data, printed at start-up, first match wins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleTable {
    rules: Vec<Rule>,
}

impl RuleTable {
    /// An empty table: nothing is metered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Meters `methods` (empty: any) on `pattern` with `groups`.
    pub fn rule(mut self, methods: &[&str], pattern: &str, groups: &[&str]) -> Self {
        self.rules.push(Rule {
            methods: (!methods.is_empty())
                .then(|| methods.iter().map(|m| m.to_ascii_uppercase()).collect()),
            pattern: PathPattern::new(pattern),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        });
        self
    }

    /// The rule that meters this request, if any (`should_not_filter` is `None`).
    pub fn matching(&self, method: &str, path: &str) -> Option<&Rule> {
        self.position(method, path).map(|index| &self.rules[index])
    }

    /// The index of the rule that meters this request, if any.
    pub fn position(&self, method: &str, path: &str) -> Option<usize> {
        let segments = Segments::of(path);
        self.rules
            .iter()
            .position(|rule| rule.matches(method, &segments))
    }

    /// Every rule, in order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }
}

impl fmt::Display for RuleTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rule in &self.rules {
            let methods = rule
                .methods
                .as_ref()
                .map_or("*".to_owned(), |m| m.join(","));
            writeln!(
                f,
                "{methods:<12} {:<40} -> {}",
                rule.pattern,
                rule.groups.join(" + ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
