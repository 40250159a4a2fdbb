//! The estate's agent skills, packaged: `services/mcp-server/skills/<name>/SKILL.md` files,
//! compiled into the binary and served by `GET /skills/package` as one `.tar.gz` whose entries
//! are `<name>/SKILL.md` (unpack it into a client's skills directory, e.g.
//! `tar -xzf estate-skills.tar.gz -C ~/.claude/skills`).
//!
//! The archive is built once at start-up and is byte-for-byte reproducible (fixed owner, mode
//! and time on every entry), so its digest identifies the skills' version.

use flate2::Compression;
use flate2::write::GzEncoder;

/// The file name a download is offered under.
pub const ARCHIVE_NAME: &str = "estate-skills.tar.gz";

/// Every skill file: (path inside the archive, contents). A unit test checks this list
/// against the `skills/` directory, so a file added there and not here fails the build's tests.
pub const FILES: [(&str, &str); 4] = [
    (
        "estate-logging-review/SKILL.md",
        include_str!("../skills/estate-logging-review/SKILL.md"),
    ),
    (
        "estate-custom-rules/SKILL.md",
        include_str!("../skills/estate-custom-rules/SKILL.md"),
    ),
    (
        "estate-rate-limits/SKILL.md",
        include_str!("../skills/estate-rate-limits/SKILL.md"),
    ),
    (
        "estate-projects/SKILL.md",
        include_str!("../skills/estate-projects/SKILL.md"),
    ),
];

/// The modification time written on every entry: 2026-01-01T00:00:00Z (a fixed time keeps
/// the archive reproducible; zero would read as 1970 in listings).
const ENTRY_MTIME: u64 = 1_767_225_600;

/// The gzip-compressed tar archive of [`FILES`].
pub fn package() -> std::io::Result<Vec<u8>> {
    let mut archive = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::best()));
    for (path, contents) in FILES {
        let mut header = tar::Header::new_ustar();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(u64::try_from(contents.len()).unwrap_or(u64::MAX));
        header.set_mode(0o644);
        header.set_mtime(ENTRY_MTIME);
        header.set_uid(0);
        header.set_gid(0);
        archive.append_data(&mut header, path, contents.as_bytes())?;
    }
    archive.into_inner()?.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::path::Path;

    #[test]
    fn the_list_is_the_directory() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let mut on_disk: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .flat_map(|skill| std::fs::read_dir(skill.unwrap().path()).unwrap())
            .map(|file| {
                let path = file.unwrap().path();
                path.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        on_disk.sort();
        let mut listed: Vec<&str> = FILES.iter().map(|(path, _)| *path).collect();
        listed.sort_unstable();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn every_skill_names_itself_and_says_when_to_use_it() {
        for (path, contents) in FILES {
            let directory = path.split('/').next().unwrap();
            let front = contents
                .strip_prefix("---\n")
                .and_then(|rest| rest.split_once("\n---\n"))
                .map(|(front, _)| front)
                .unwrap_or_else(|| panic!("{path} opens with front matter"));
            assert!(
                front
                    .lines()
                    .any(|line| line == format!("name: {directory}")),
                "{path}"
            );
            let description = front
                .lines()
                .find_map(|line| line.strip_prefix("description: "))
                .unwrap_or_else(|| panic!("{path} has a description"));
            assert!(description.contains("Use when"), "{path}");
        }
    }

    #[test]
    fn the_archive_holds_every_file_and_is_reproducible() {
        let bytes = package().unwrap();
        assert_eq!(bytes, package().unwrap());
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
        let mut found = Vec::new();
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let mut contents = String::new();
            entry.read_to_string(&mut contents).unwrap();
            assert_eq!(entry.header().mode().unwrap(), 0o644);
            found.push((path, contents));
        }
        let expected: Vec<(String, String)> = FILES
            .iter()
            .map(|(path, contents)| ((*path).to_owned(), (*contents).to_owned()))
            .collect();
        assert_eq!(found, expected);
    }
}
