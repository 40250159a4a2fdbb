//! The languages the engine reads, and how a request names them (by name or by file path).

use serde::Serialize;

/// A source language the engine understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Rust (`.rs`).
    Rust,
    /// Java (`.java`).
    Java,
    /// Python (`.py`).
    Python,
    /// JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// TypeScript (`.ts`, `.tsx`).
    TypeScript,
    /// Go (`.go`).
    Go,
}

impl Language {
    /// Every language, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::Rust,
        Self::Java,
        Self::Python,
        Self::JavaScript,
        Self::TypeScript,
        Self::Go,
    ];

    /// The language a client names, case-insensitively; accepts the short forms `js`, `ts`
    /// and `golang` besides the canonical [`Language::name`]s.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "rust" => Some(Self::Rust),
            "java" => Some(Self::Java),
            "python" => Some(Self::Python),
            "javascript" | "js" => Some(Self::JavaScript),
            "typescript" | "ts" => Some(Self::TypeScript),
            "go" | "golang" => Some(Self::Go),
            _ => None,
        }
    }

    /// The language of a file, by the extension of its path (case-insensitive).
    pub fn from_path(path: &str) -> Option<Self> {
        let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (_, extension) = file_name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "rs" => Some(Self::Rust),
            "java" => Some(Self::Java),
            "py" => Some(Self::Python),
            "js" | "mjs" | "cjs" | "jsx" => Some(Self::JavaScript),
            "ts" | "tsx" => Some(Self::TypeScript),
            "go" => Some(Self::Go),
            _ => None,
        }
    }

    /// The canonical lowercase name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Java => "java",
            Self::Python => "python",
            Self::JavaScript => "javascript",
            Self::TypeScript => "typescript",
            Self::Go => "go",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Language;

    #[test]
    fn names_and_aliases_are_case_insensitive() {
        assert_eq!(Language::from_name("Rust"), Some(Language::Rust));
        assert_eq!(Language::from_name("JAVA"), Some(Language::Java));
        assert_eq!(Language::from_name("python"), Some(Language::Python));
        assert_eq!(Language::from_name("JS"), Some(Language::JavaScript));
        assert_eq!(
            Language::from_name("JavaScript"),
            Some(Language::JavaScript)
        );
        assert_eq!(Language::from_name("ts"), Some(Language::TypeScript));
        assert_eq!(
            Language::from_name("TypeScript"),
            Some(Language::TypeScript)
        );
        assert_eq!(Language::from_name("golang"), Some(Language::Go));
        assert_eq!(Language::from_name("Go"), Some(Language::Go));
        assert_eq!(Language::from_name("cobol"), None);
        assert_eq!(Language::from_name(""), None);
    }

    #[test]
    fn every_name_round_trips() {
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.name()), Some(language));
            let json = serde_json::to_string(&language).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{}\"", language.name()));
        }
    }

    #[test]
    fn paths_are_recognised_by_extension() {
        let cases = [
            ("src/main.rs", Some(Language::Rust)),
            ("com/acme/OrderService.java", Some(Language::Java)),
            ("tools/export.py", Some(Language::Python)),
            ("web/app.js", Some(Language::JavaScript)),
            ("web/app.mjs", Some(Language::JavaScript)),
            ("web/app.cjs", Some(Language::JavaScript)),
            ("web/View.jsx", Some(Language::JavaScript)),
            ("web/api.ts", Some(Language::TypeScript)),
            ("web/View.TSX", Some(Language::TypeScript)),
            ("cmd/server/main.go", Some(Language::Go)),
            ("README.md", None),
            ("Makefile", None),
            ("dir.rs/file", None),
            ("C:\\src\\lib.rs", Some(Language::Rust)),
        ];
        for (path, expected) in cases {
            assert_eq!(Language::from_path(path), expected, "{path}");
        }
    }
}
