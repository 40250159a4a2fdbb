//! Every source file under a directory, read whole, for the examples that analyze real code.

use std::fs;
use std::path::Path;

use logscan::{Language, SourceFile};

/// Appends every file under `dir` whose language the analyzer knows, as (path, content).
pub fn sources(dir: &Path, files: &mut Vec<(String, String)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, files);
        } else if let Some(name) = path.to_str()
            && Language::from_path(name).is_some()
            && let Ok(content) = fs::read_to_string(&path)
        {
            files.push((name.to_owned(), content));
        }
    }
}

/// The files of `owned` as the analyzer takes them.
pub fn source_files(owned: &[(String, String)]) -> Vec<SourceFile<'_>> {
    owned
        .iter()
        .filter_map(|(path, content)| {
            Some(SourceFile {
                path,
                content,
                language: Language::from_path(path)?,
            })
        })
        .collect()
}
