use crate::args::BackendArg;
use crate::backend::backend_type::BackendType;
use crate::file::display_path;
use crate::git::Git;
use crate::lock_file::LockFile;
use crate::plugins::PluginType;
use crate::toolset::tool_version_options::strip_options_credentials;
use crate::toolset::{EPHEMERAL_OPT_KEYS, parse_tool_options};
use crate::{dirs, env, file, runtime_symlinks};
use eyre::{Ok, Result, WrapErr};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock as Lazy, Mutex};
use versions::Versioning;

/// Normalize a version string for sorting by stripping leading 'v' or 'V' prefix.
/// This ensures "v1.0.0" and "1.0.0" are sorted together correctly.
fn normalize_version_for_sort(v: &str) -> &str {
    v.strip_prefix('v')
        .or_else(|| v.strip_prefix('V'))
        .unwrap_or(v)
}

/// Order installed version names the way install state lists them (ascending).
/// Everything that merges versions from another source goes through this, so a
/// listing keeps one ordering rule.
pub(crate) fn sort_versions(versions: &mut [String]) {
    versions.sort_by_cached_key(|v| {
        let normalized = normalize_version_for_sort(v);
        (
            Versioning::new(normalized),
            build_metadata_key(normalized),
            v.to_string(),
        )
    });
}

/// Orders versions that `Versioning` treats as equal because they differ only
/// in the build metadata after a `+`, such as Java's `temurin-25.0.4+7.0.LTS`
/// and `temurin-25.0.4+101.0.LTS`. Numeric segments compare as numbers, so
/// build 101 follows build 7 instead of preceding it as text.
fn build_metadata_key(v: &str) -> Vec<(bool, u64, String)> {
    let Some((_, meta)) = v.split_once('+') else {
        return vec![];
    };
    meta.split('.')
        .map(|seg| match seg.parse::<u64>().ok() {
            Some(n) => (false, n, String::new()),
            None => (true, 0, seg.to_string()),
        })
        .collect()
}

type InstallStatePlugins = BTreeMap<String, PluginType>;
type InstallStateTools = BTreeMap<String, InstallStateTool>;
type MutexResult<T> = Result<Arc<T>>;

#[derive(Debug, Clone)]
pub struct InstallStateTool {
    pub short: String,
    pub full: Option<String>,
    pub versions: Vec<String>,
    pub explicit_backend: bool,
    pub opts: BTreeMap<String, toml::Value>,
    pub installs_path: Option<PathBuf>,
}

/// Entry in the consolidated manifest file (.mise-installs.toml).
/// Versions are NOT stored here — they come from the filesystem.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ManifestTool {
    /// Original short name (e.g. "github:jdx/mise-test-fixtures").
    /// May differ from the manifest key (which is the kebab-cased dir name).
    short: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    full: Option<String>,
    #[serde(default = "default_true")]
    explicit_backend: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    opts: BTreeMap<String, toml::Value>,
}

fn default_true() -> bool {
    true
}

/// The spelling install state records a tool under: `short` without the
/// credentials of a URL in it, its userinfo and the query parameters named
/// like a credential (`cargo:https://user:token@host/repo?token=x` is recorded
/// as `cargo:https://host/repo`). Other query parameters are kept, so two
/// tools that differ in what they select stay apart. Lookups take the configured spelling and go
/// through this too, so both meet. The credential is read from config when an
/// install needs it, never from install state.
pub fn state_short(short: &str) -> std::borrow::Cow<'_, str> {
    use mise_util::redactions::{strip_credential_query_params, strip_url_credentials_in_arg};
    match strip_url_credentials_in_arg(short) {
        std::borrow::Cow::Borrowed(short) => strip_credential_query_params(short),
        std::borrow::Cow::Owned(stripped) => {
            std::borrow::Cow::Owned(strip_credential_query_params(&stripped).into_owned())
        }
    }
}

impl ManifestTool {
    /// This entry as install state records it: `short` and `full` without URL
    /// credentials, and options without credentials.
    fn without_credentials(&self) -> ManifestTool {
        ManifestTool {
            short: state_short(&self.short).into_owned(),
            full: self.full.as_deref().map(|f| state_short(f).into_owned()),
            explicit_backend: self.explicit_backend,
            opts: strip_options_credentials(&self.opts).collect(),
        }
    }

    fn has_credentials(&self) -> bool {
        let stripped = self.without_credentials();
        stripped.short != self.short || stripped.full != self.full || stripped.opts != self.opts
    }
}

/// In-memory representation of the manifest keyed by short name.
type Manifest = BTreeMap<String, ManifestTool>;

static INSTALL_STATE_PLUGINS: Mutex<Option<Arc<InstallStatePlugins>>> = Mutex::new(None);
static INSTALL_STATE_TOOLS: Mutex<Option<Arc<InstallStateTools>>> = Mutex::new(None);
/// Per-tool results loaded without a full installs scan. `None` records a
/// known-absent tool so repeated lookups of uninstalled tools stay cheap.
/// Superseded by INSTALL_STATE_TOOLS once a full scan has run.
static INSTALL_STATE_TOOL_MEMO: Mutex<Option<HashMap<String, Option<InstallStateTool>>>> =
    Mutex::new(None);
/// Memoized read of the consolidated root manifest, for per-tool lookups.
static ROOT_MANIFEST_MEMO: Mutex<Option<Arc<Manifest>>> = Mutex::new(None);
static MANIFEST_LOCK: Mutex<()> = Mutex::new(());

fn shared_install_dirs_for_scan() -> Vec<PathBuf> {
    if crate::config::settings::is_loaded() {
        env::shared_install_dirs()
    } else {
        env::shared_install_dirs_early()
    }
}

fn manifest_path() -> PathBuf {
    dirs::INSTALLS.join(".mise-installs.toml")
}

fn tool_manifest_path(installs_dir: &Path, short: &str) -> PathBuf {
    installs_dir
        .join(crate::backend::tool_directory_name(short))
        .join(".mise.backend.toml")
}

/// The consolidated manifest at `path` as install state uses it: every entry
/// without credentials (see [`ManifestTool::without_credentials`]).
fn read_manifest_from(path: &Path) -> Manifest {
    read_raw_manifest_from(path)
        .iter()
        .map(|(dir, mt)| (dir.clone(), mt.without_credentials()))
        .collect()
}

/// The root manifest, with the files it describes brought in line with it:
/// credential-named install directories whose versions are installed under
/// the tool's own directory are removed, and when the file holds credentials
/// it is rewritten without them.
fn load_root_manifest() -> Manifest {
    let path = manifest_path();
    let raw = read_raw_manifest_from(&path);
    for (dir, mt) in &raw {
        if credential_named_dir(&mt.short).as_deref() == Some(dir.as_str()) {
            remove_credential_named_installs(&mt.short);
        }
    }
    let (manifest, changed) = clean_root_manifest(&raw);
    // Best effort, and never waiting on a writer that is mid-update: the next
    // write of this file leaves it without credentials anyway. The file is read
    // again under the lock, so an entry written since the read above is kept.
    if changed && let std::result::Result::Ok(_lock) = MANIFEST_LOCK.try_lock() {
        let (manifest, changed) = clean_root_manifest(&read_raw_manifest_from(&path));
        if changed && let Err(err) = write_manifest_to(&path, &manifest) {
            debug!("could not rewrite {}: {err:#}", display_path(&path));
        }
        return manifest;
    }
    manifest
}

/// `raw` without credentials and without the entries of credential-named
/// directories that no longer exist, and whether that changed anything.
fn clean_root_manifest(raw: &Manifest) -> (Manifest, bool) {
    let mut changed = false;
    let mut manifest = Manifest::new();
    for (dir, mt) in raw {
        if credential_named_dir(&mt.short).as_deref() == Some(dir.as_str())
            && dirs::INSTALLS.join(dir).symlink_metadata().is_err()
        {
            changed = true;
            continue;
        }
        changed |= mt.has_credentials();
        manifest.insert(dir.clone(), mt.without_credentials());
    }
    (manifest, changed)
}

fn read_raw_manifest_from(path: &Path) -> Manifest {
    match file::read_to_string(path) {
        std::result::Result::Ok(body) => match toml::from_str(&body) {
            std::result::Result::Ok(m) => m,
            Err(err) => {
                warn!(
                    "failed to parse manifest at {}: {err:#}",
                    display_path(path)
                );
                Default::default()
            }
        },
        Err(_) => Default::default(),
    }
}

/// Write the consolidated manifest file.
fn write_manifest(manifest: &Manifest) -> Result<()> {
    write_manifest_to(&manifest_path(), manifest)
}

fn write_manifest_to(path: &Path, manifest: &Manifest) -> Result<()> {
    // Every entry is written without credentials, whatever it was read with.
    let manifest: Manifest = manifest
        .iter()
        .map(|(dir, mt)| (dir.clone(), mt.without_credentials()))
        .collect();
    let body = toml::to_string_pretty(&manifest)?;
    file::write_atomic(path, body.trim())?;
    Ok(())
}

/// A tool's own manifest, without credentials. A file that holds them is
/// rewritten without them (best effort).
fn read_tool_manifest_from(path: &Path) -> Option<ManifestTool> {
    if !path.exists() {
        return None;
    }
    match file::read_to_string(path) {
        std::result::Result::Ok(body) if body.trim().is_empty() => None,
        std::result::Result::Ok(body) => match toml::from_str::<ManifestTool>(&body) {
            std::result::Result::Ok(m) if m.has_credentials() => {
                let m = m.without_credentials();
                if let Err(err) = write_tool_manifest_to(path, &m) {
                    debug!("could not rewrite {}: {err:#}", display_path(path));
                }
                Some(m)
            }
            std::result::Result::Ok(m) => Some(m),
            Err(err) => {
                warn!(
                    "failed to parse tool manifest at {}: {err:#}",
                    display_path(path)
                );
                None
            }
        },
        Err(_) => None,
    }
}

fn write_tool_manifest_to(path: &Path, tool: &ManifestTool) -> Result<()> {
    let body = toml::to_string_pretty(&tool.without_credentials())?;
    file::write_atomic(path, body.trim())?;
    Ok(())
}

/// Read a legacy `.mise.backend` file for migration purposes.
///
/// Returns `Some((short, full, explicit_backend))` if legacy metadata is found.
fn read_legacy_backend_meta(short: &str) -> Option<(String, Option<String>, bool)> {
    // Try .mise.backend.json first (oldest format)
    let json_path = dirs::INSTALLS.join(short).join(".mise.backend.json");
    if json_path.exists()
        && let std::result::Result::Ok(f) = file::open(&json_path)
        && let std::result::Result::Ok(json) = serde_json::from_reader::<_, serde_json::Value>(f)
    {
        let full = json.get("id").and_then(|id| id.as_str()).map(String::from);
        let s = json
            .get("short")
            .and_then(|s| s.as_str())
            .unwrap_or(short)
            .to_string();
        return Some((s, full, true));
    }

    // Try .mise.backend (text format)
    let path = dirs::INSTALLS
        .join(crate::backend::tool_directory_name(short))
        .join(".mise.backend");
    if !path.exists() {
        return None;
    }
    let body = match file::read_to_string(&path) {
        std::result::Result::Ok(body) => body,
        Err(err) => {
            warn!(
                "failed to read backend meta at {}: {err:?}",
                display_path(&path)
            );
            return None;
        }
    };
    let lines: Vec<&str> = body.lines().filter(|f| !f.is_empty()).collect();
    let s = lines.first().unwrap_or(&short).to_string();
    let full = lines.get(1).map(|f| f.to_string());
    let explicit_backend = lines.get(2).is_some_and(|v| *v == "1");
    Some((s, full, explicit_backend))
}

/// Initialize plugin state. Tool state is deliberately NOT loaded here: a full
/// scan of the installs dir costs a readdir per tool plus stats per version,
/// which dominated startup on machines with many tools installed. Per-tool
/// lookups load lazily via [`get_tool`]; enumerating callers get the full scan
/// on first use of [`list_tools`].
pub async fn init() -> Result<()> {
    measure!("init_plugins", { init_plugins().await })?;
    Ok(())
}

async fn init_plugins() -> MutexResult<InstallStatePlugins> {
    load_plugins()
}

fn load_plugins() -> MutexResult<InstallStatePlugins> {
    if let Some(plugins) = INSTALL_STATE_PLUGINS
        .lock()
        .expect("INSTALL_STATE_PLUGINS lock failed")
        .clone()
    {
        return Ok(plugins);
    }
    let dirs = file::dir_subdirs(&dirs::PLUGINS)?;
    let plugins: InstallStatePlugins = dirs
        .into_iter()
        .filter_map(|d| {
            time!("init_plugins {d}");
            let path = dirs::PLUGINS.join(&d);
            if is_banned_plugin(&path) {
                info!("removing banned plugin {d}");
                let _ = file::remove_all(&path);
                None
            } else {
                PluginType::from_plugin_path(&path).map(|plugin_type| (d, plugin_type))
            }
        })
        .collect();
    let plugins = Arc::new(plugins);
    *INSTALL_STATE_PLUGINS
        .lock()
        .expect("INSTALL_STATE_PLUGINS lock failed") = Some(plugins.clone());
    Ok(plugins)
}

/// Versions present in a tool's install dir, sorted. One readdir plus stats
/// per version.
///
/// An unreadable dir is an error, not an empty list: dropping the tool would
/// make an incomplete scan look like a complete one, and shim rebuilding
/// deletes every shim it cannot account for. Callers that are explicitly
/// best-effort (read-only shared dirs) downgrade this to a warning.
///
/// `tool_dir_name` keys the incomplete markers. Install writes them under the
/// tool's short name, which a manifest can map to a differently named dir.
fn scan_versions(dir: &Path, tool_dir_name: &str) -> Result<Vec<String>> {
    if !dir.exists() {
        return Ok(vec![]);
    }
    // One pass, deciding from the entry's own file type so a plain version
    // directory costs no syscalls beyond the incomplete-marker check. Only links
    // are resolved: a runtime symlink (`latest` -> `./1.2.3`) names another
    // version, and on Windows those are files, which are never kept anyway.
    let mut versions = vec![];
    for entry in dir.read_dir()? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type()?;
        if file_type.is_symlink()
            || (cfg!(windows) && crate::install_layout::resolver::is_dir_link(&entry.path()))
        {
            let path = entry.path();
            if runtime_symlinks::is_runtime_symlink(&path) {
                continue;
            }
            // A compatibility link names an installation elsewhere in the installs
            // root. It is a version only while that installation is complete, and
            // its incomplete marker is keyed by the installation, not the link.
            if let Some(install) = crate::install_layout::resolver::link_target(&path) {
                let key = install
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_else(|| name.clone());
                if !is_incomplete_in(tool_dir_name, &key) {
                    versions.push(name);
                }
                continue;
            }
            // A compatibility link whose installation is gone (pruned, or removed
            // by hand) is stale, not a broken `mise link`.
            if crate::install_layout::resolver::is_compat_link_shape(&path) {
                continue;
            }
            // Keeping the links that lead nowhere. `mise link` leaves one behind as soon as its
            // target is moved or deleted, and dropping it here is what made the version invisible
            // to `mise ls` and unreachable to `mise uninstall` — occupying a name nothing would
            // admit to. It is listed, not treated as installed: `is_version_installed` still
            // resolves the path and still says no.
            if !path.is_dir() && path.exists() {
                continue;
            }
        } else if !file_type.is_dir() {
            continue;
        }
        if is_incomplete_in(tool_dir_name, &name) {
            continue;
        }
        versions.push(name);
    }
    sort_versions(&mut versions);
    Ok(versions)
}

/// [`scan_versions`] for read-only shared install dirs, where a unreadable
/// entry is reported and skipped rather than failing the whole scan.
fn scan_versions_best_effort(dir: &Path, tool_dir_name: &str) -> Vec<String> {
    scan_versions(dir, tool_dir_name).unwrap_or_else(|err| {
        warn!("reading versions in {} failed: {err:?}", display_path(dir));
        Default::default()
    })
}

/// Identity and versions for one primary install dir: the sidecar wins, then
/// the consolidated manifest, then legacy `.mise.backend` metadata. Returns
/// `None` when the dir holds no complete versions.
///
/// Read-only: when a legacy format was parsed, the manifest entry the caller
/// may want to persist is returned as the second element. Only the full scan
/// writes it; per-tool lookups leave migration to the next full scan.
fn scan_tool_dir(
    dir_name: &str,
    dir: &Path,
    manifest: &Manifest,
) -> Result<Option<(InstallStateTool, Option<ManifestTool>)>> {
    // Nothing is installed here, so skip the sidecar read, the legacy probes and
    // the version scan. Per-tool lookups ask about tools that are usually *not*
    // installed (every short mentioned in a config or the registry), so this is
    // the common path for them; the full scan only passes dirs that exist.
    if !dir.is_dir() {
        return Ok(None);
    }
    let tool_manifest = read_tool_manifest_from(&dir.join(".mise.backend.toml"));
    let manifest_tool = tool_manifest.as_ref().or_else(|| manifest.get(dir_name));
    let legacy_meta = if manifest_tool.is_none() {
        read_legacy_backend_meta(dir_name)
    } else {
        None
    };
    let marker_short = manifest_tool
        .map(|mt| mt.short.as_str())
        .or(legacy_meta.as_ref().map(|(short, ..)| short.as_str()))
        .unwrap_or(dir_name);
    let versions = scan_versions(dir, &crate::backend::tool_directory_name(marker_short))?;
    if versions.is_empty() {
        return Ok(None);
    }

    let mut migrate = None;
    let (short, full, explicit_backend, opts) = if let Some(mt) = manifest_tool {
        let mut full = mt.full.clone();
        let mut opts = mt.opts.clone();
        // Backward compat: if opts is empty but full contains [...], extract opts
        if opts.is_empty()
            && let Some(ref f) = full
            && let Some((stripped_str, opts_str)) = crate::args::split_bracketed_opts(f)
        {
            let stripped = stripped_str.to_string();
            let parsed = parse_tool_options(opts_str);
            opts.extend(strip_options_credentials(
                parsed
                    .opts
                    .iter()
                    .filter(|(k, _)| !EPHEMERAL_OPT_KEYS.contains(&k.as_str())),
            ));
            full = Some(stripped);
            migrate = Some(ManifestTool {
                short: mt.short.clone(),
                full: full.clone(),
                explicit_backend: mt.explicit_backend,
                opts: opts.clone(),
            });
        }
        (mt.short.clone(), full, mt.explicit_backend, opts)
    } else if let Some((s, full, explicit)) = legacy_meta {
        migrate = Some(ManifestTool {
            short: s.clone(),
            full: full.clone(),
            explicit_backend: explicit,
            opts: BTreeMap::new(),
        });
        (s, full, explicit, BTreeMap::new())
    } else {
        (dir_name.to_string(), None, true, BTreeMap::new())
    };

    let tool = InstallStateTool {
        short: state_short(&short).into_owned(),
        full: full.map(|f| state_short(&f).into_owned()),
        versions,
        explicit_backend,
        opts,
        installs_path: Some(dir.to_path_buf()),
    };
    Ok(Some((tool, migrate.map(|mt| mt.without_credentials()))))
}

/// Merge the versions (and missing identity) of a shared-dir install into an
/// already-collected tool entry, creating it if absent.
fn merge_shared_tool(
    tools: &mut InstallStateTools,
    dir: &Path,
    dir_name: &str,
    shared_manifest: &Manifest,
) {
    let tool_manifest = read_tool_manifest_from(&dir.join(".mise.backend.toml"));
    let manifest_tool = tool_manifest
        .as_ref()
        .or_else(|| shared_manifest.get(dir_name));
    let marker_short = manifest_tool.map_or(dir_name, |mt| mt.short.as_str());
    let versions =
        scan_versions_best_effort(dir, &crate::backend::tool_directory_name(marker_short));
    if versions.is_empty() {
        return;
    }

    let (short, full, explicit_backend, opts) = if let Some(mt) = manifest_tool {
        (
            mt.short.clone(),
            mt.full.clone(),
            mt.explicit_backend,
            mt.opts.clone(),
        )
    } else {
        (dir_name.to_string(), None, true, BTreeMap::new())
    };

    let tool = tools
        .entry(short.clone())
        .or_insert_with(|| InstallStateTool {
            short: short.clone(),
            full: full.clone(),
            versions: Vec::new(),
            explicit_backend,
            opts: opts.clone(),
            installs_path: Some(dir.to_path_buf()),
        });
    for v in versions {
        if !tool.versions.contains(&v) {
            tool.versions.push(v);
        }
    }
    sort_versions(&mut tool.versions);
    if tool.full.is_none() {
        tool.full = full;
    }
}

/// Scan every install dir. Memoized; enumerating callers ([`list_tools`]) pay
/// for this once per process, per-tool callers never do.
fn full_scan_tools() -> MutexResult<InstallStateTools> {
    // The full-map lock is held from before the first directory read until the
    // map is published. get_tool serves this map ahead of the per-tool memo,
    // so a raw publish could hide an install that finished mid-scan: the scan
    // reads the tool's dir too early, add_tool_version records the version in
    // the memo, then the publish shadows it. add_tool_version takes this lock
    // too, so it either completes before the scan starts reading (its version
    // is on disk by then) or blocks until the publish and updates the
    // published map. Holding the lock also makes the scan single-flight.
    let mut published = INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed");
    if let Some(tools) = published.clone() {
        return Ok(tools);
    }
    measure!("install_state full_scan_tools", {
        // Shared with the per-tool path so the manifest is parsed once.
        let manifest = root_manifest();
        let subdirs = file::dir_subdirs(&dirs::INSTALLS)?;

        // Only clone the manifest for mutation if we actually need to migrate
        // legacy entries.
        let mut updated_manifest: Option<Manifest> = None;
        let mut tools = BTreeMap::new();
        crate::install_layout::resolver::adopt_unrecorded_installs(&subdirs);
        for dir_name in subdirs {
            // `.mise` holds the install catalog, and an identity-layout installation
            // is not a tool directory.
            if crate::install_layout::resolver::is_reserved_dir(&dirs::INSTALLS, &dir_name) {
                continue;
            }
            let dir = dirs::INSTALLS.join(&dir_name);
            let Some((tool, migrate)) = scan_tool_dir(&dir_name, &dir, manifest.as_ref())
                .wrap_err_with(|| format!("failed to scan {}", display_path(&dir)))?
            else {
                continue;
            };
            if let Some(mt) = migrate {
                updated_manifest
                    .get_or_insert_with(|| manifest.as_ref().clone())
                    .insert(dir_name.clone(), mt);
            }
            insert_scanned_tool(&mut tools, &dir_name, tool);
        }

        // Write updated manifest if we migrated any legacy entries
        if let Some(ref m) = updated_manifest {
            let _lock = MANIFEST_LOCK.lock().expect("MANIFEST_LOCK lock failed");
            if let Err(err) = write_manifest(m) {
                warn!("failed to write install manifest: {err:#}");
            }
        }

        // Scan shared install directories (read-only fallback directories)
        for shared_dir in shared_install_dirs_for_scan() {
            if !shared_dir.is_dir() {
                continue;
            }
            let shared_manifest = shared_manifest(&shared_dir);
            let shared_subdirs = match file::dir_subdirs(&shared_dir) {
                std::result::Result::Ok(d) => d,
                Err(err) => {
                    warn!(
                        "reading shared install dir {} failed: {err:?}",
                        display_path(&shared_dir)
                    );
                    continue;
                }
            };
            for dir_name in shared_subdirs {
                if crate::install_layout::resolver::is_reserved_dir(&shared_dir, &dir_name) {
                    continue;
                }
                let dir = shared_dir.join(&dir_name);
                merge_shared_tool(&mut tools, &dir, &dir_name, &shared_manifest);
            }
        }

        let plugins = load_plugins()?;
        merge_plugin_tools(&mut tools, plugins.as_ref());
        let tools = Arc::new(tools);
        *published = Some(tools.clone());
        Ok(tools)
    })
}

/// short name -> manifest dir, for the manifest entries whose dir is not just
/// the kebab-cased short. Lets a per-tool lookup skip walking every entry.
static MANIFEST_BY_SHORT: Mutex<Option<Arc<HashMap<String, String>>>> = Mutex::new(None);

/// Consolidated manifests of shared install dirs, keyed by dir. Memoized like
/// the root manifest so a per-tool lookup costs one file read per shared dir
/// per process rather than one per resolved tool.
static SHARED_MANIFEST_MEMO: Mutex<Option<HashMap<PathBuf, Arc<Manifest>>>> = Mutex::new(None);

fn shared_manifest(shared_dir: &Path) -> Arc<Manifest> {
    let mut memo = SHARED_MANIFEST_MEMO
        .lock()
        .expect("SHARED_MANIFEST_MEMO lock failed");
    memo.get_or_insert_with(Default::default)
        .entry(shared_dir.to_path_buf())
        .or_insert_with(|| Arc::new(read_manifest_from(&shared_dir.join(".mise-installs.toml"))))
        .clone()
}

fn manifest_dir_for_short(short: &str) -> Option<String> {
    let mut memo = MANIFEST_BY_SHORT
        .lock()
        .expect("MANIFEST_BY_SHORT lock failed");
    memo.get_or_insert_with(|| {
        Arc::new(
            root_manifest()
                .iter()
                .filter(|(d, mt)| **d != crate::backend::tool_directory_name(&mt.short))
                .map(|(d, mt)| (mt.short.clone(), d.clone()))
                .collect(),
        )
    })
    .get(short)
    .cloned()
}

fn root_manifest() -> Arc<Manifest> {
    let mut memo = ROOT_MANIFEST_MEMO
        .lock()
        .expect("ROOT_MANIFEST_MEMO lock failed");
    memo.get_or_insert_with(|| Arc::new(load_root_manifest()))
        .clone()
}

/// Install state for one tool, loaded without scanning any other tool's
/// install dir.
///
/// mise creates install dirs as the kebab-cased short name, so that dir is
/// probed directly; the consolidated manifest (one memoized file read) covers
/// dirs recorded under a different name. A dir whose only identity is a
/// sidecar under a name that doesn't kebab-match its short is not found here —
/// that requires enumeration, which mise itself never produces, and full-scan
/// callers still see such dirs.
pub(crate) fn get_tool(short: &str) -> Option<InstallStateTool> {
    // Looked up by the spelling install state records; `raw` keeps the
    // configured one, which names any credential-named directory to clean up.
    let raw = short;
    let short = &*state_short(raw);
    // A completed full scan is authoritative (it includes plugin identities and
    // shared dirs), so serve from it when available.
    if let Some(tools) = INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed")
        .as_ref()
    {
        return tools.get(short).cloned();
    }
    {
        let memo = INSTALL_STATE_TOOL_MEMO
            .lock()
            .expect("INSTALL_STATE_TOOL_MEMO lock failed");
        if let Some(memo) = memo.as_ref()
            && let Some(hit) = memo.get(short)
        {
            return hit.clone();
        }
    }
    let tool = load_tool(raw);
    // The disk read above runs without the memo lock, so add_tool_version may
    // have landed meanwhile. Neither side is authoritative: this one scanned
    // every version on disk, that one knows about an install that may have
    // completed after the scan. Picking either loses versions, so merge.
    let mut memo = INSTALL_STATE_TOOL_MEMO
        .lock()
        .expect("INSTALL_STATE_TOOL_MEMO lock failed");
    match memo
        .get_or_insert_with(Default::default)
        .entry(short.to_string())
    {
        std::collections::hash_map::Entry::Vacant(v) => v.insert(tool).clone(),
        std::collections::hash_map::Entry::Occupied(mut o) => {
            match (o.get_mut(), tool) {
                (Some(recorded), Some(scanned)) => merge_scanned_into(recorded, scanned),
                (slot, Some(scanned)) if slot.is_none() => *slot = Some(scanned),
                // A scan that found nothing does not disprove an install that
                // was just recorded.
                _ => {}
            }
            o.get().clone()
        }
    }
}

/// Add the scan of directory `dir_name` to `tools`. Two directories can record
/// the same tool: its own and a credential-named one. The tool's own directory
/// is the one its versions are installed in, so it alone stands for the tool,
/// whichever is scanned first; a version left only in the credential-named one
/// is installed again under the tool's own name, and the old copy then goes.
fn insert_scanned_tool(tools: &mut InstallStateTools, dir_name: &str, tool: InstallStateTool) {
    match tools.entry(tool.short.clone()) {
        std::collections::btree_map::Entry::Vacant(v) => {
            v.insert(tool);
        }
        std::collections::btree_map::Entry::Occupied(mut o) => {
            if crate::backend::tool_directory_name(&tool.short) == dir_name {
                o.insert(tool);
            }
        }
    }
}

/// Fold a directory scan into an entry an installer already recorded. The
/// recorded identity wins — it was just written — and any version either side
/// saw is kept.
fn merge_scanned_into(recorded: &mut InstallStateTool, scanned: InstallStateTool) {
    for v in scanned.versions {
        if !recorded.versions.contains(&v) {
            recorded.versions.push(v);
        }
    }
    if recorded.full.is_none() {
        recorded.full = scanned.full;
    }
    if recorded.opts.is_empty() {
        recorded.opts = scanned.opts;
    }
    if recorded.installs_path.is_none() {
        recorded.installs_path = scanned.installs_path;
    }
}

fn load_tool(short: &str) -> Option<InstallStateTool> {
    remove_credential_named_installs(short);
    let short = &*state_short(short);
    let manifest = root_manifest();
    let dir_name = crate::backend::tool_directory_name(short);
    let scan_named = |dir_name: &str| {
        let dir = dirs::INSTALLS.join(dir_name);
        scan_tool_dir(dir_name, &dir, &manifest)
            .unwrap_or_else(|err| {
                // Enumerating callers get this as a hard error from the full
                // scan; a single lookup degrades to "not found" so one bad dir
                // cannot break resolution of unrelated tools.
                warn!("failed to scan {}: {err:#}", display_path(&dir));
                None
            })
            .map(|(tool, _migrate)| tool)
            .filter(|tool| tool.short == short)
    };
    let mut tool = scan_named(&dir_name);
    if tool.is_none() {
        // The manifest may record this short under a dir that doesn't
        // kebab-match it (e.g. a renamed or hand-migrated install).
        tool = manifest_dir_for_short(short).and_then(|d| scan_named(&d));
    }

    // Shared install directories can add versions or supply the whole tool.
    for shared_dir in shared_install_dirs_for_scan() {
        let shared_manifest = shared_manifest(&shared_dir);
        // Like the root manifest above, a shared manifest may record this
        // short under a dir that doesn't kebab-match it; the full scan finds
        // such dirs by enumeration, so the per-tool path has to probe them.
        let alt_dir = shared_manifest
            .iter()
            .find(|(d, mt)| mt.short == short && **d != dir_name)
            .map(|(d, _)| d.clone());
        for dir_name in std::iter::once(dir_name.clone()).chain(alt_dir) {
            let dir = shared_dir.join(&dir_name);
            if !dir.is_dir() {
                continue;
            }
            let mut tools: InstallStateTools = tool
                .take()
                .map(|t| BTreeMap::from([(t.short.clone(), t)]))
                .unwrap_or_default();
            merge_shared_tool(&mut tools, &dir, &dir_name, &shared_manifest);
            tool = tools.remove(short);
        }
    }

    // An asdf/vfox plugin supplies an identity even with nothing installed.
    if let Some(plugins) = try_list_plugins()
        && plugins.contains_key(short)
    {
        let mut tools: InstallStateTools = tool
            .take()
            .map(|t| BTreeMap::from([(t.short.clone(), t)]))
            .unwrap_or_default();
        merge_plugin_tools(
            &mut tools,
            &BTreeMap::from([(short.to_string(), plugins[short])]),
        );
        tool = tools.remove(short);
    }
    tool
}

fn merge_plugin_tools(tools: &mut InstallStateTools, plugins: &InstallStatePlugins) {
    for (short, pt) in plugins {
        let full = match pt {
            PluginType::Asdf => format!("asdf:{short}"),
            PluginType::Vfox => format!("vfox:{short}"),
            PluginType::VfoxBackend => short.clone(),
            PluginType::Package => continue,
        };
        let tool = tools
            .entry(short.clone())
            .or_insert_with(|| InstallStateTool {
                short: short.clone(),
                full: Some(full.clone()),
                versions: Default::default(),
                explicit_backend: true,
                opts: BTreeMap::new(),
                installs_path: None,
            });
        // Installed metadata describes the versions already on disk. Plugin
        // discovery should only supply an identity when no metadata exists.
        tool.full.get_or_insert(full);
    }
}

pub fn list_plugins() -> Arc<BTreeMap<String, PluginType>> {
    try_list_plugins().expect("INSTALL_STATE_PLUGINS is None")
}

pub(crate) fn try_list_plugins() -> Option<Arc<BTreeMap<String, PluginType>>> {
    INSTALL_STATE_PLUGINS
        .lock()
        .expect("INSTALL_STATE_PLUGINS lock failed")
        .as_ref()
        .cloned()
}

fn is_banned_plugin(path: &Path) -> bool {
    if path.ends_with("gradle") {
        let repo = Git::new(path);
        if let Some(url) = repo.get_remote_url() {
            return url == "https://github.com/rfrancis/asdf-gradle.git";
        }
    }
    false
}

/// Run `f` against one tool's state without cloning it.
///
/// The state lives behind a mutex, so a caller that only needs one field would
/// otherwise clone the whole entry — versions vec, opts map and paths — to read
/// it. Backend resolution and `list_installed_versions` do that per backend, so
/// the copies add up on enumerating commands.
fn with_tool<T>(short: &str, f: impl FnOnce(&InstallStateTool) -> T) -> Option<T> {
    let raw = short;
    let short = &*state_short(raw);
    if let Some(tools) = INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed")
        .as_ref()
    {
        return tools.get(short).map(f);
    }
    {
        let memo = INSTALL_STATE_TOOL_MEMO
            .lock()
            .expect("INSTALL_STATE_TOOL_MEMO lock failed");
        if let Some(hit) = memo.as_ref().and_then(|m| m.get(short)) {
            return hit.as_ref().map(f);
        }
    }
    get_tool(raw).as_ref().map(f)
}

pub(crate) fn get_tool_full(short: &str) -> Option<String> {
    with_tool(short, |t| t.full.clone())
        .flatten()
        .map(|full| with_request_credentials(short, full))
}

/// `full` as a request spelled `short` uses it. Install state and lockfiles
/// record a URL-named tool without its credentials; when `full` is that record
/// of `short`, the request's own spelling, credentials included, is what
/// downloads and builds use.
pub(crate) fn with_request_credentials(short: &str, full: String) -> String {
    let stripped = state_short(short);
    if stripped != short && full == stripped {
        short.to_string()
    } else {
        full
    }
}

pub fn get_plugin_type(short: &str) -> Option<PluginType> {
    let plugins = if mise_util::testing::in_tests() {
        try_list_plugins()?
    } else {
        list_plugins()
    };
    plugins.get(short).cloned()
}

/// Every installed tool. This enumerates the whole installs dir (a readdir per
/// tool plus stats per version) — reach for [`get_tool`] instead when only
/// specific tools matter.
///
/// A failed scan is reported as an error rather than as an empty set: callers
/// that *remove* things treat "no tools installed" as authoritative (shim
/// rebuilding deletes every shim it cannot account for), so an unreadable
/// installs dir must not be indistinguishable from an empty one. Note a
/// missing installs dir is not an error — that reads as genuinely empty.
pub fn try_list_tools() -> Result<Arc<BTreeMap<String, InstallStateTool>>> {
    full_scan_tools()
}

/// [`try_list_tools`] for callers that only display or enumerate, where a
/// warning is a better outcome than aborting. Never use this to decide what to
/// delete.
pub fn list_tools() -> Arc<BTreeMap<String, InstallStateTool>> {
    try_list_tools().unwrap_or_else(|err| {
        warn!("failed to scan installed tools: {err:#}");
        Arc::new(Default::default())
    })
}

pub(crate) fn backend_type(short: &str) -> Result<Option<BackendType>> {
    let backend_type = with_tool(short, |ist| ist.full.clone())
        .flatten()
        .and_then(|full| {
            full.split_once(':')
                .map(|(backend, _)| BackendType::guess(backend))
        });
    if let Some(BackendType::Unknown) = backend_type
        && let Some((plugin_name, _)) = short.split_once(':')
        && let Some(PluginType::VfoxBackend) = get_plugin_type(plugin_name)
    {
        return Ok(Some(BackendType::VfoxBackend(plugin_name.to_string())));
    }
    Ok(backend_type)
}

pub(crate) fn list_versions(short: &str) -> Vec<String> {
    with_tool(short, |tool| tool.versions.clone()).unwrap_or_default()
}

/// The installed versions of `ba`: its tool directory's versions plus the
/// identity-layout installations of the same tool.
///
/// Identity-layout installs are shared between the spellings of a tool (`age`,
/// `aqua:FiloSottile/age`), so a version installed through one is listed for the
/// others before they have a version link of their own. The result keeps the
/// ordering rule everything here lists by.
pub(crate) fn list_versions_for(ba: &BackendArg) -> Vec<String> {
    let mut versions = list_versions(&ba.short);
    let layout = crate::install_layout::resolver::installs_of(ba);
    if layout.is_empty() {
        return versions;
    }
    for (name, _) in layout {
        if !versions.contains(&name) {
            versions.push(name);
        }
    }
    sort_versions(&mut versions);
    versions
}

/// Whether the legacy tool directory `<root>/<tool dir of short>` may be used for
/// `backend` (a canonical full backend identifier, no options).
///
/// Legacy metadata records one backend per tool directory. When it records a
/// different backend the directory holds another backend's payload and is not
/// claimed (the registry moved the tool, or a version-split tool changed backend):
/// the version is installed afresh instead of being reinterpreted. A directory
/// with no recorded backend at all is, as it always was, the tool directory of its
/// short.
pub(crate) fn legacy_backend_matches(root: &Path, short: &str, backend: &str) -> bool {
    let manifest = if root == &**dirs::INSTALLS {
        root_manifest()
    } else {
        shared_manifest(root)
    };
    let dir_name = crate::backend::tool_directory_name(short);
    let sidecar = read_tool_manifest_from(&tool_manifest_path(root, short));
    let recorded = sidecar
        .as_ref()
        .or_else(|| manifest.get(&dir_name))
        .and_then(|mt| mt.full.clone())
        .or_else(|| {
            (root == &**dirs::INSTALLS)
                .then(|| read_legacy_backend_meta(short))
                .flatten()
                .and_then(|(_, full, _)| full)
        });
    let Some(full) = recorded else {
        return true;
    };
    crate::install_layout::resolver::canonical_backend(&full) == backend
}

pub(crate) fn add_tool_version(ba: &BackendArg, install_path: &Path, version: &str) {
    // An identity-layout install sits in the installs root itself; the tool's own
    // directory (where its version links live) is what state tracks.
    let tool_dir = if crate::install_layout::resolver::dir_name_of(install_path).is_some() {
        Some(ba.installs_path().to_path_buf())
    } else {
        install_path.parent().map(Path::to_path_buf)
    };
    let short = state_short(&ba.short).into_owned();
    let full = state_short(&ba.full_without_opts()).into_owned();
    let explicit_backend = ba.records_explicit_backend();
    let opts = persistent_opts(ba);

    let update = |tool: &mut InstallStateTool| {
        if tool.full.is_none() {
            tool.full = Some(full.clone());
        }
        tool.explicit_backend = explicit_backend;
        if tool.opts.is_empty() {
            tool.opts = opts.clone();
        }
        if tool.installs_path.is_none() {
            tool.installs_path = tool_dir.clone();
        }
        if !tool.versions.iter().any(|v| v == version) {
            // Do not sort here: this version has just been resolved by the backend
            // for this install run, and offline dependency env resolution should
            // see that concrete result without adding another ordering rule.
            tool.versions.push(version.to_string());
        }
    };
    let new_tool = || {
        let mut tool = InstallStateTool {
            short: short.clone(),
            full: Some(full.clone()),
            versions: Vec::new(),
            explicit_backend,
            opts: opts.clone(),
            installs_path: tool_dir.clone(),
        };
        update(&mut tool);
        tool
    };

    // Same-run resolution reads through both memo layers, so the fresh install
    // has to land in whichever ones exist.
    {
        let mut tools = INSTALL_STATE_TOOLS
            .lock()
            .expect("INSTALL_STATE_TOOLS lock failed");
        if let Some(existing_tools) = tools.as_ref() {
            let mut next_tools = existing_tools.deref().clone();
            update(next_tools.entry(short.clone()).or_insert_with(new_tool));
            *tools = Some(Arc::new(next_tools));
        }
    }
    let mut memo = INSTALL_STATE_TOOL_MEMO
        .lock()
        .expect("INSTALL_STATE_TOOL_MEMO lock failed");
    let entry = memo
        .get_or_insert_with(Default::default)
        .entry(short.clone())
        .or_insert(None);
    match entry {
        Some(tool) => update(tool),
        None => *entry = Some(new_tool()),
    }
}

pub(crate) async fn add_plugin(short: &str, plugin_type: PluginType) -> Result<()> {
    let mut plugins = init_plugins().await?.deref().clone();
    plugins.insert(short.to_string(), plugin_type);
    *INSTALL_STATE_PLUGINS
        .lock()
        .expect("INSTALL_STATE_PLUGINS lock failed") = Some(Arc::new(plugins));
    // A plugin can supply this tool's identity, so state captured before the
    // plugin existed is stale. get_tool serves a completed full scan ahead of
    // the per-tool memo, so both layers have to learn about it.
    if let Some(memo) = INSTALL_STATE_TOOL_MEMO
        .lock()
        .expect("INSTALL_STATE_TOOL_MEMO lock failed")
        .as_mut()
    {
        memo.remove(short);
    }
    let mut tools = INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed");
    if let Some(existing) = tools.as_ref() {
        let mut next = existing.deref().clone();
        merge_plugin_tools(
            &mut next,
            &BTreeMap::from([(short.to_string(), plugin_type)]),
        );
        *tools = Some(Arc::new(next));
    }
    Ok(())
}

/// Writes backend metadata to the consolidated manifest file.
/// Uses the primary installs dir manifest by default.
pub(crate) fn write_backend_meta(ba: &BackendArg) -> Result<()> {
    write_backend_meta_to(ba, &manifest_path())
}

/// Writes backend metadata to a manifest at a specific install path.
pub(crate) fn write_backend_meta_to(ba: &BackendArg, path: &Path) -> Result<()> {
    let full = state_short(&ba.full_without_opts()).into_owned();
    let explicit = ba.records_explicit_backend();
    let opts_map = persistent_opts(ba);

    let _lock = MANIFEST_LOCK.lock().expect("MANIFEST_LOCK lock failed");
    let mut manifest = read_manifest_from(path);
    let manifest_tool = ManifestTool {
        short: state_short(&ba.short).into_owned(),
        full: Some(full),
        explicit_backend: explicit,
        opts: opts_map,
    };
    manifest.insert(
        crate::backend::tool_directory_name(&ba.short),
        manifest_tool.clone(),
    );
    if let Some(named) = credential_named_dir(&ba.short)
        && let Some(installs_dir) = path.parent()
        && installs_dir.join(&named).symlink_metadata().is_err()
    {
        manifest.remove(&named);
    }
    write_manifest_to(path, &manifest)?;
    if let Some(installs_dir) = path.parent() {
        let tool_manifest = tool_manifest_path(installs_dir, &ba.short);
        if tool_manifest.parent().is_some_and(|p| p.exists()) {
            write_tool_manifest_to(&tool_manifest, &manifest_tool)?;
        }
    }
    Ok(())
}

/// The installs directory named after `short` with its URL credentials spelled
/// out, when that differs from [`crate::backend::tool_directory_name`].
fn credential_named_dir(short: &str) -> Option<String> {
    use heck::ToKebabCase;
    // Cheap test first: this runs for every tool lookup.
    if !(short.contains("://") && (short.contains('@') || short.contains('?'))) {
        return None;
    }
    let named = short.to_kebab_case();
    (named != crate::backend::tool_directory_name(short)).then_some(named)
}

/// Remove each version under the credential-named installs directory of
/// `short` that is also installed under the tool's own directory, with the
/// runtime symlinks and shims that point into it. The directory name spells the
/// credentials of the tool's URL, and the path reaches logs, errors and `PATH`.
///
/// Only that one directory directly under the installs directory is touched,
/// symlinks are removed rather than followed, and a removal that fails is a
/// warning: the install under the tool's own directory is what gets used.
pub(crate) fn remove_credential_named_installs(short: &str) {
    let Some(named) = credential_named_dir(short) else {
        return;
    };
    let clean = crate::backend::tool_directory_name(short);
    let clean_dir = dirs::INSTALLS.join(&clean);
    remove_credential_named_installs_in(
        &dirs::INSTALLS,
        &named,
        &clean,
        &[mise_util::dirs::shims(), mise_util::dirs::system_shims()],
        &|version| claim_complete_install(&clean, &clean_dir.join(version), version),
    );
}

/// Locks for the install of `version` under the tool's own directory, held
/// while its credential-named copy is removed, once that install is complete:
/// no incomplete marker, and no other process holding its install lock. An
/// identity-layout install is also checked under its own directory's name,
/// which is the key its marker and lock use. `None` leaves the copy alone.
fn claim_complete_install(
    clean: &str,
    path: &Path,
    version: &str,
) -> Option<Vec<fslock::LockFile>> {
    let mut keys = vec![version.to_string()];
    if let Some(target) = std::fs::read_link(path).ok()
        && let Some(name) = target.file_name()
    {
        keys.push(name.to_string_lossy().into_owned());
    }
    let mut locks = vec![];
    for key in &keys {
        let identity = dirs::CACHE.join(clean).join(key).join("incomplete");
        locks.push(LockFile::new(&identity).with_pid().try_lock().ok()??);
    }
    // Checked under the locks, so an install cannot start in between.
    keys.iter()
        .all(|key| !is_incomplete_in(clean, key))
        .then_some(locks)
}

fn remove_credential_named_installs_in<G>(
    installs: &Path,
    named: &str,
    clean: &str,
    shims_dirs: &[PathBuf],
    claim: &dyn Fn(&str) -> Option<G>,
) {
    let named_dir = installs.join(named);
    // A real directory, not a link that would lead out of the installs dir.
    if !named_dir.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        return;
    }
    let clean_dir = installs.join(clean);
    let Some(entries) = std::fs::read_dir(&named_dir).ok() else {
        return;
    };
    let mut removed: Vec<PathBuf> = vec![];
    let mut kept_versions = false;
    let mut links = vec![];
    for entry in entries.flatten() {
        // `file_type` does not follow symlinks.
        let Some(file_type) = entry.file_type().ok() else {
            continue;
        };
        let path = entry.path();
        if file_type.is_symlink() {
            links.push(path);
            continue;
        }
        if !file_type.is_dir() {
            continue;
        }
        let version = entry.file_name().to_string_lossy().into_owned();
        // Only once the version is installed under the tool's own directory,
        // and that install is complete and not being changed right now.
        let claimed = clean_dir
            .join(&version)
            .symlink_metadata()
            .is_ok()
            .then(|| claim(&version))
            .flatten();
        let Some(_claimed) = claimed else {
            kept_versions = true;
            continue;
        };
        for shims in shims_dirs {
            remove_links_into(shims, &path);
        }
        match file::remove_all(&path) {
            std::result::Result::Ok(()) => removed.push(path),
            Err(err) => {
                kept_versions = true;
                warn!("could not remove {}: {err:#}", display_path(&path));
            }
        }
    }
    if removed.is_empty() {
        return;
    }
    // Runtime symlinks (`latest`, `1`, ...) that pointed at a removed version.
    for link in links {
        let Some(target) = std::fs::read_link(&link).ok() else {
            continue;
        };
        let target = named_dir.join(target);
        if removed.iter().any(|r| target.starts_with(r)) || !target.exists() {
            let _ = file::remove_all(&link);
        }
    }
    if !kept_versions && let Err(err) = file::remove_all(&named_dir) {
        warn!("could not remove {}: {err:#}", display_path(&named_dir));
    }
}

/// Remove the symlinks directly in `dir` whose target lies inside `inside`.
fn remove_links_into(dir: &Path, inside: &Path) {
    let Some(entries) = std::fs::read_dir(dir).ok() else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        let path = entry.path();
        if std::fs::read_link(&path).is_ok_and(|target| dir.join(target).starts_with(inside))
            && let Err(err) = file::remove_all(&path)
        {
            warn!("could not remove {}: {err:#}", display_path(&path));
        }
    }
}

fn persistent_opts(ba: &BackendArg) -> BTreeMap<String, toml::Value> {
    // Store opts as native TOML values, filtering out ephemeral keys.
    //
    // These manifests are written under the data directory, which gets backed
    // up, synced between machines and left group-readable, so a live credential
    // must not reach them. It can: a registry URL authenticates as basic-auth
    // userinfo (mise's gem `source` option, for one), the http backend's
    // `headers` carry a bearer token, and templating the token in from the
    // environment does not help, because rendering happens before the value is
    // stored. The rest of a URL is kept, since it is genuine identity: which
    // registry a tool came from is worth recording.
    match ba.opts.as_ref() {
        Some(o) => strip_options_credentials(
            o.opts
                .iter()
                .filter(|(k, _)| !EPHEMERAL_OPT_KEYS.contains(&k.as_str())),
        )
        .collect(),
        None => BTreeMap::new(),
    }
}

/// Marks `v` of the tool whose directory is `tool_dir_name` as mid-install.
/// It lives in the state dir rather than the cache, so `mise cache clear` and
/// cache pruning cannot turn an install that never finished into a complete
/// one. Keyed by the tool's directory name, which install, uninstall and link
/// share across local, shared and system install paths.
///
/// The version is a directory rather than the marker's own name: on Windows a
/// file named for a reserved device (`nul`) opens that device, while a
/// directory of that name makes the marker write fail and name the path.
fn incomplete_marker(tool_dir_name: impl AsRef<Path>, v: &str) -> PathBuf {
    incomplete_markers_dir(tool_dir_name)
        .join(v)
        .join("incomplete")
}

fn incomplete_markers_dir(tool_dir_name: impl AsRef<Path>) -> PathBuf {
    dirs::STATE.join("incomplete-installs").join(tool_dir_name)
}

// mise 2026.10.3 and earlier marked an install incomplete in the cache. Until
// every such marker has been migrated, one there still counts, so an install an
// older mise never finished is not taken for complete after an upgrade.
remove_by!("2027.1.0", "legacy-incomplete-markers");

fn legacy_incomplete_marker(tool_dir_name: impl AsRef<Path>, v: &str) -> PathBuf {
    dirs::CACHE.join(tool_dir_name).join(v).join("incomplete")
}

/// Written once [`migrate_legacy_incomplete_markers`] has moved every marker.
pub(crate) fn legacy_incomplete_markers_migrated_path() -> PathBuf {
    dirs::STATE.join("incomplete-installs").join(".migrated")
}

/// Whether a marker may still be in the cache. Checked once per process: the
/// migration runs at startup, after the first scan of installed versions.
static LEGACY_INCOMPLETE_MARKERS_REMAIN: Lazy<bool> =
    Lazy::new(|| !legacy_incomplete_markers_migrated_path().exists());

/// Moves the incomplete markers an older mise left in the cache to the state
/// dir. Returns false when an install in progress holds a version's lock: that
/// marker stays where it is, still honored, and a later run moves it.
pub(crate) fn migrate_legacy_incomplete_markers() -> Result<bool> {
    let mut all_moved = true;
    for tool_dir_name in file::dir_subdirs(&dirs::CACHE)? {
        // One unreadable entry must not keep the rest from moving; it is left
        // in place, still honored, for a later run.
        let versions = match file::dir_subdirs(&dirs::CACHE.join(&tool_dir_name)) {
            std::result::Result::Ok(versions) => versions,
            Err(err) => {
                debug!("migrate: reading {tool_dir_name} in the cache failed: {err:?}");
                all_moved = false;
                continue;
            }
        };
        for v in versions {
            let legacy = legacy_incomplete_marker(&tool_dir_name, &v);
            if !legacy.is_file() {
                continue;
            }
            // The legacy path is also the version's lock identity.
            let Some(_lock) = LockFile::new(&legacy).try_lock().unwrap_or_else(|err| {
                debug!("migrate: locking {}: {err:?}", display_path(&legacy));
                None
            }) else {
                all_moved = false;
                continue;
            };
            // The install that held the lock may have finished and cleared it.
            if !legacy.is_file() {
                continue;
            }
            let marker = incomplete_marker(&tool_dir_name, &v);
            if let Some(parent) = marker.parent() {
                file::create_dir_all(parent)?;
            }
            file::create(&marker)?;
            remove_marker(&legacy)?;
        }
    }
    Ok(all_moved)
}

/// `cache/<tool dir>` and the incomplete markers share the tool's directory name.
fn marker_dir_name(ba: &BackendArg) -> &std::ffi::OsStr {
    ba.cache_path()
        .file_name()
        .expect("a tool's cache path names its directory")
}

fn is_incomplete_in(tool_dir_name: impl AsRef<Path>, v: &str) -> bool {
    let tool_dir_name = tool_dir_name.as_ref();
    incomplete_marker(tool_dir_name, v).exists()
        || (*LEGACY_INCOMPLETE_MARKERS_REMAIN
            && legacy_incomplete_marker(tool_dir_name, v).exists())
}

/// Whether an install of `v` of `ba` started and never finished.
pub(crate) fn is_incomplete(ba: &BackendArg, v: &str) -> bool {
    is_incomplete_in(marker_dir_name(ba), v)
}

/// Marks `v` of `ba` as mid-install until [`clear_incomplete_marker`].
pub(crate) fn mark_incomplete(ba: &BackendArg, v: &str) -> Result<()> {
    let path = incomplete_marker(marker_dir_name(ba), v);
    if let Some(parent) = path.parent() {
        file::create_dir_all(parent)?;
    }
    // `file::create` rather than `File::create`: it names the path in the error,
    // and `create_dir_all` can return Ok without having created anything --
    // `std::fs::create_dir_all` does that for a path Windows refuses, such as
    // one ending in `nul`. Unwrapped it was a bare `The system cannot find the
    // path specified. (os error 3)` naming neither the file nor the operation.
    file::create(&path)?;
    Ok(())
}

/// The lock is keyed by where the incomplete marker used to live, which is
/// what older mise processes still lock: moving the marker must not let an old
/// and a new mise install the same version at once.
fn tool_version_lock(ba: &BackendArg, v: &str) -> LockFile {
    LockFile::new(&tool_version_lock_identity(ba, v)).with_pid()
}

fn tool_version_lock_identity(ba: &BackendArg, v: &str) -> PathBuf {
    ba.cache_path().join(v).join("incomplete")
}

/// Acquires the transaction lock for one logical tool version.
///
/// The incomplete marker is shared by local, shared, and system install paths,
/// so install, uninstall, and link use this logical identity while mutating the
/// marker and install path. The lock's identity is the marker's former cache
/// path (see `tool_version_lock`); the lock itself remains a separate stable
/// file under the lockfiles cache.
pub fn lock_tool_version(ba: &BackendArg, v: &str) -> Result<fslock::LockFile> {
    lock_tool_version_with_notice(ba, v, &|_| {})
}

/// Proof that a process belongs to the tool-level postinstall hook an install
/// is running right now. The install writes a fresh token beside the
/// incomplete marker and passes it to the hook; the file is removed when the
/// hook ends, and a retried install writes a new one. A process the hook left
/// running keeps its environment but no longer matches.
pub(crate) struct PostinstallToken {
    path: PathBuf,
    pub(crate) token: String,
}

impl PostinstallToken {
    pub(crate) fn start(ba: &BackendArg, v: &str) -> Result<Self> {
        let path = postinstall_token_path(ba, v);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let token = format!("{}-{nanos}", std::process::id());
        if let Some(dir) = path.parent() {
            file::create_dir_all(dir)?;
        }
        file::write_atomic(&path, &token)?;
        Ok(Self { path, token })
    }

    /// Whether `token` is the one the running hook of this version was given.
    /// The install must also still hold the version's lock: an installer that
    /// was killed mid-hook never removed its token.
    pub(crate) fn matches(ba: &BackendArg, v: &str, token: &str) -> bool {
        file::read_to_string(postinstall_token_path(ba, v)).is_ok_and(|current| current == token)
            && LockFile::new(&tool_version_lock_identity(ba, v))
                .try_lock()
                .is_ok_and(|lock| lock.is_none())
    }
}

impl Drop for PostinstallToken {
    fn drop(&mut self) {
        let _ = file::remove_file(&self.path);
    }
}

fn postinstall_token_path(ba: &BackendArg, v: &str) -> PathBuf {
    ba.cache_path().join(v).join("postinstall-token")
}

/// [`lock_tool_version`] that also tells the caller when it is actually
/// waiting, so an install can report the pause instead of looking hung.
/// `on_wait` receives the PID of the process holding the lock when known:
/// that process is usually a shim, whose command line looks like the tool
/// it is installing rather than mise.
pub(crate) fn lock_tool_version_with_notice(
    ba: &BackendArg,
    v: &str,
    on_wait: &dyn Fn(Option<u32>),
) -> Result<fslock::LockFile> {
    let lock = tool_version_lock(ba, v)
        .with_callback(|lock| {
            debug!("waiting for tool-version lock on {}", display_path(lock));
        })
        .lock_with_notice(on_wait)?;
    // A postinstall token is valid only while its own install holds this lock.
    // One still here belonged to an installer that was killed; drop it before
    // anything else happens under the lock.
    let _ = file::remove_file(postinstall_token_path(ba, v));
    Ok(lock)
}

pub fn clear_incomplete_marker(ba: &BackendArg, v: &str) -> Result<()> {
    let tool_dir_name = marker_dir_name(ba);
    let marker = incomplete_marker(tool_dir_name, v);
    remove_marker(&marker)?;
    if let Some(dir) = marker.parent() {
        // Only empty; anything else in it is not ours to remove.
        let _ = std::fs::remove_dir(dir);
    }
    remove_marker(&legacy_incomplete_marker(tool_dir_name, v))
}

/// Drops every incomplete marker of `ba`, for a purge that removes all its versions.
pub(crate) fn clear_incomplete_markers(ba: &BackendArg) -> Result<()> {
    file::remove_all(incomplete_markers_dir(marker_dir_name(ba)))
}

fn remove_marker(path: &Path) -> Result<()> {
    match file::remove_file(path) {
        std::result::Result::Ok(()) => {
            if let Some(parent) = path.parent()
                && let Err(err) = file::sync_dir(parent)
            {
                debug!("error syncing incomplete marker parent: {:?}", err);
            }
            Ok(())
        }
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|err| err.kind() == std::io::ErrorKind::NotFound) =>
        {
            Ok(())
        }
        Err(err) => Err(err),
    }
}

pub(crate) fn clear_incomplete_marker_best_effort(ba: &BackendArg, v: &str) {
    if let Err(err) = clear_incomplete_marker(ba, v) {
        debug!("error clearing incomplete marker: {:?}", err);
    }
}

/// Path to the checksum file for a specific tool version.
/// Used to track changes in rolling releases (like "nightly").
fn checksum_file_path(install_path: &Path) -> PathBuf {
    install_path.join(".mise.checksum")
}

/// Store the checksum for a tool version (used for rolling release tracking)
pub(crate) fn write_checksum(install_path: &Path, checksum: &str) -> Result<()> {
    let path = checksum_file_path(install_path);
    file::write(&path, checksum)?;
    Ok(())
}

/// Read the stored checksum for a tool version
pub(crate) fn read_checksum(install_path: &Path) -> Option<String> {
    let path = checksum_file_path(install_path);
    if path.exists() {
        file::read_to_string(&path).ok()
    } else {
        None
    }
}

pub(crate) fn reset() {
    *INSTALL_STATE_PLUGINS
        .lock()
        .expect("INSTALL_STATE_PLUGINS lock failed") = None;
    *INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed") = None;
    *INSTALL_STATE_TOOL_MEMO
        .lock()
        .expect("INSTALL_STATE_TOOL_MEMO lock failed") = None;
    *ROOT_MANIFEST_MEMO
        .lock()
        .expect("ROOT_MANIFEST_MEMO lock failed") = None;
    *MANIFEST_BY_SHORT
        .lock()
        .expect("MANIFEST_BY_SHORT lock failed") = None;
    *SHARED_MANIFEST_MEMO
        .lock()
        .expect("SHARED_MANIFEST_MEMO lock failed") = None;
    super::tool_version::reset_install_path_cache();
}

pub fn reset_tools() {
    *INSTALL_STATE_TOOLS
        .lock()
        .expect("INSTALL_STATE_TOOLS lock failed") = None;
    *INSTALL_STATE_TOOL_MEMO
        .lock()
        .expect("INSTALL_STATE_TOOL_MEMO lock failed") = None;
    *ROOT_MANIFEST_MEMO
        .lock()
        .expect("ROOT_MANIFEST_MEMO lock failed") = None;
    *MANIFEST_BY_SHORT
        .lock()
        .expect("MANIFEST_BY_SHORT lock failed") = None;
    *SHARED_MANIFEST_MEMO
        .lock()
        .expect("SHARED_MANIFEST_MEMO lock failed") = None;
    super::tool_version::reset_install_path_cache();
}

#[cfg(test)]
mod tests {
    use super::{
        InstallStateTool, PostinstallToken, clear_incomplete_marker, incomplete_marker,
        is_incomplete, legacy_incomplete_marker, lock_tool_version, mark_incomplete,
        marker_dir_name, merge_plugin_tools, migrate_legacy_incomplete_markers,
        normalize_version_for_sort, read_tool_manifest_from, scan_versions, tool_version_lock,
    };
    use crate::args::BackendArg;
    use crate::plugins::PluginType;
    use itertools::Itertools;
    use std::collections::BTreeMap;
    use std::sync::mpsc;
    use std::time::Duration;
    use versions::Versioning;

    #[test]
    fn sort_versions_orders_build_metadata_numerically() {
        let mut versions = vec![
            "temurin-25.0.4+7.0.LTS".to_string(),
            "temurin-25.0.4+101.0.LTS".to_string(),
            "temurin-25.0.4+36.0.LTS".to_string(),
        ];
        super::sort_versions(&mut versions);
        assert_eq!(
            versions,
            [
                "temurin-25.0.4+7.0.LTS",
                "temurin-25.0.4+36.0.LTS",
                "temurin-25.0.4+101.0.LTS"
            ]
        );
    }

    #[test]
    fn empty_tool_manifest_is_ignored() {
        let tempdir = tempfile::tempdir().unwrap();
        let path = tempdir.path().join(".mise.backend.toml");
        std::fs::write(&path, "").unwrap();

        assert!(read_tool_manifest_from(&path).is_none());
    }

    #[test]
    fn plugin_discovery_preserves_installed_backend_metadata() {
        let mut tools = BTreeMap::from([(
            "babashka".to_string(),
            InstallStateTool {
                short: "babashka".to_string(),
                full: Some("github:babashka/babashka".to_string()),
                versions: vec!["1.13.219".to_string()],
                explicit_backend: false,
                opts: BTreeMap::new(),
                installs_path: None,
            },
        )]);
        let plugins = BTreeMap::from([("babashka".to_string(), PluginType::Asdf)]);

        merge_plugin_tools(&mut tools, &plugins);

        assert_eq!(
            tools["babashka"].full.as_deref(),
            Some("github:babashka/babashka")
        );
    }

    #[test]
    fn plugin_discovery_adds_missing_tool_metadata() {
        let installs_path = std::path::PathBuf::from("installs/babashka");
        let mut tools = BTreeMap::from([(
            "babashka".to_string(),
            InstallStateTool {
                short: "babashka".to_string(),
                full: None,
                versions: vec!["1.13.219".to_string()],
                explicit_backend: false,
                opts: BTreeMap::new(),
                installs_path: Some(installs_path.clone()),
            },
        )]);
        let plugins = BTreeMap::from([("babashka".to_string(), PluginType::Asdf)]);

        merge_plugin_tools(&mut tools, &plugins);

        assert_eq!(tools["babashka"].full.as_deref(), Some("asdf:babashka"));
        assert_eq!(tools["babashka"].versions, ["1.13.219"]);
        assert_eq!(
            tools["babashka"].installs_path.as_ref(),
            Some(&installs_path)
        );
        assert!(!tools["babashka"].explicit_backend);
    }

    #[test]
    fn lock_notice_fires_only_when_contended() {
        let short = BackendArg::from(format!("lock_notice_test_{}", std::process::id()));
        let noticed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = || noticed.load(std::sync::atomic::Ordering::SeqCst);
        // Uncontended: no notice.
        let first = {
            let noticed = noticed.clone();
            super::lock_tool_version_with_notice(&short, "1.0.0", &|_| {
                noticed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
            .unwrap()
        };
        assert_eq!(count(), 0);
        // Contended from another thread: exactly one notice, then it acquires
        // once the first holder lets go.
        let (noticed_tx, noticed_rx) = mpsc::channel();
        let (acquired_tx, acquired_rx) = mpsc::channel();
        let waiter = {
            let short = short.clone();
            let noticed = noticed.clone();
            std::thread::spawn(move || {
                let lock = super::lock_tool_version_with_notice(&short, "1.0.0", &|pid| {
                    noticed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    noticed_tx.send(pid).unwrap();
                })
                .unwrap();
                acquired_tx.send(()).unwrap();
                drop(lock);
            })
        };
        let holder = noticed_rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the waiter should have reported the wait");
        // Windows may refuse to read a locked file, so only Unix must name the holder.
        #[cfg(unix)]
        assert_eq!(holder, Some(std::process::id()));
        #[cfg(windows)]
        let _ = holder;
        assert_eq!(count(), 1);
        assert!(
            acquired_rx.try_recv().is_err(),
            "must not acquire while held"
        );
        drop(first);
        acquired_rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("waiter acquires after release");
        waiter.join().unwrap();
        assert_eq!(count(), 1);
    }

    #[test]
    fn postinstall_token_matches_only_the_running_hook() {
        let ba = BackendArg::from(format!("token_test_{}", std::process::id()).as_str());
        let install = lock_tool_version(&ba, "1.0.0").unwrap();
        let first = PostinstallToken::start(&ba, "1.0.0").unwrap();
        let first_token = first.token.clone();
        assert!(PostinstallToken::matches(&ba, "1.0.0", &first_token));
        drop(first);
        assert!(!PostinstallToken::matches(&ba, "1.0.0", &first_token));
        // A retried install's hook gets a new token; the old one stays invalid.
        std::thread::sleep(std::time::Duration::from_millis(1));
        let retry = PostinstallToken::start(&ba, "1.0.0").unwrap();
        assert!(!PostinstallToken::matches(&ba, "1.0.0", &first_token));
        assert!(PostinstallToken::matches(&ba, "1.0.0", &retry.token));
        // An installer killed mid-hook leaves its token but not its lock.
        drop(install);
        assert!(!PostinstallToken::matches(&ba, "1.0.0", &retry.token));
        // The next install to take the lock discards the leftover token.
        let leftover = retry.token.clone();
        std::mem::forget(retry);
        let _next = lock_tool_version(&ba, "1.0.0").unwrap();
        assert!(!PostinstallToken::matches(&ba, "1.0.0", &leftover));
    }

    #[test]
    fn tool_version_locks_serialize_logical_versions() {
        let short = format!("lock_test_{}", std::process::id());
        let ba = BackendArg::from(&short);
        let first = lock_tool_version(&ba, "1.0.0").unwrap();
        let (waiting_tx, waiting_rx) = mpsc::channel();
        let (acquired_tx, acquired_rx) = mpsc::channel();
        // Spellings that kebab-case to the same tool dir share one lock.
        let thread_ba = BackendArg::from(short.replace('_', "-"));
        let waiter = std::thread::spawn(move || {
            let lock = tool_version_lock(&thread_ba, "1.0.0")
                .with_callback(move |_| waiting_tx.send(()).unwrap())
                .lock()
                .unwrap();
            acquired_tx.send(()).unwrap();
            drop(lock);
        });

        // The callback proves the second lock reached the contended lock rather
        // than merely losing a scheduling race with this assertion.
        waiting_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(matches!(
            acquired_rx.try_recv(),
            Err(mpsc::TryRecvError::Empty)
        ));

        // A different logical version is independent even while the first is held.
        let other = lock_tool_version(&ba, "2.0.0").unwrap();
        drop(other);
        drop(first);

        acquired_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        waiter.join().unwrap();
    }

    #[test]
    fn test_normalize_version_for_sort() {
        assert_eq!(normalize_version_for_sort("v1.0.0"), "1.0.0");
        assert_eq!(normalize_version_for_sort("V1.0.0"), "1.0.0");
        assert_eq!(normalize_version_for_sort("1.0.0"), "1.0.0");
        assert_eq!(normalize_version_for_sort("latest"), "latest");
    }

    #[test]
    fn test_version_sorting_with_v_prefix() {
        // Test that mixed v-prefix and non-v-prefix versions sort correctly
        let versions = ["v2.0.51", "2.0.35", "2.0.52"];

        // Without normalization - demonstrates the problem
        let sorted_without_norm: Vec<_> = versions
            .iter()
            .sorted_by_cached_key(|v| (Versioning::new(v), v.to_string()))
            .collect();
        println!("Without normalization: {:?}", sorted_without_norm);

        // With normalization - the fix
        let sorted_with_norm: Vec<_> = versions
            .iter()
            .sorted_by_cached_key(|v| {
                let normalized = normalize_version_for_sort(v);
                (Versioning::new(normalized), v.to_string())
            })
            .collect();
        println!("With normalization: {:?}", sorted_with_norm);

        // With the fix, v2.0.51 should sort between 2.0.35 and 2.0.52
        // The highest version should be 2.0.52
        assert_eq!(**sorted_with_norm.last().unwrap(), "2.0.52");

        // v2.0.51 should be second to last
        assert_eq!(**sorted_with_norm.get(1).unwrap(), "v2.0.51");

        // 2.0.35 should be first
        assert_eq!(**sorted_with_norm.first().unwrap(), "2.0.35");
    }

    #[test]
    fn test_manifest_roundtrip() {
        use super::{Manifest, ManifestTool};

        let mut manifest = Manifest::new();
        manifest.insert(
            "node".to_string(),
            ManifestTool {
                short: "node".to_string(),
                full: Some("core:node".to_string()),
                explicit_backend: true,
                opts: BTreeMap::new(),
            },
        );
        manifest.insert(
            "bun".to_string(),
            ManifestTool {
                short: "bun".to_string(),
                full: Some("aqua:oven-sh/bun".to_string()),
                explicit_backend: false,
                opts: BTreeMap::new(),
            },
        );
        manifest.insert(
            "tiny".to_string(),
            ManifestTool {
                short: "tiny".to_string(),
                full: None,
                explicit_backend: true,
                opts: BTreeMap::new(),
            },
        );

        let serialized = toml::to_string_pretty(&manifest).unwrap();
        let deserialized: Manifest = toml::from_str(&serialized).unwrap();

        assert_eq!(deserialized.len(), 3);
        assert_eq!(deserialized["node"].full.as_deref(), Some("core:node"));
        assert!(deserialized["node"].explicit_backend);
        assert_eq!(
            deserialized["bun"].full.as_deref(),
            Some("aqua:oven-sh/bun")
        );
        assert!(!deserialized["bun"].explicit_backend);
        assert!(deserialized["tiny"].full.is_none());
        assert!(deserialized["tiny"].explicit_backend);
    }

    #[test]
    fn test_manifest_with_opts_roundtrip() {
        use super::{Manifest, ManifestTool};

        let mut opts = BTreeMap::new();
        opts.insert(
            "url".to_string(),
            toml::Value::String("https://example.com/tool.tar.gz".to_string()),
        );
        opts.insert(
            "bin_path".to_string(),
            toml::Value::String("bin".to_string()),
        );

        // Nested table for platforms
        let mut platforms = toml::map::Map::new();
        let mut linux = toml::map::Map::new();
        linux.insert(
            "url".to_string(),
            toml::Value::String("https://example.com/linux.tar.gz".to_string()),
        );
        platforms.insert("linux-x64".to_string(), toml::Value::Table(linux));
        opts.insert("platforms".to_string(), toml::Value::Table(platforms));

        let mut manifest = Manifest::new();
        manifest.insert(
            "hello".to_string(),
            ManifestTool {
                short: "hello".to_string(),
                full: Some("http:hello".to_string()),
                explicit_backend: true,
                opts,
            },
        );

        let serialized = toml::to_string_pretty(&manifest).unwrap();
        let deserialized: Manifest = toml::from_str(&serialized).unwrap();

        assert_eq!(deserialized["hello"].full.as_deref(), Some("http:hello"));
        assert_eq!(
            deserialized["hello"].opts.get("url"),
            Some(&toml::Value::String(
                "https://example.com/tool.tar.gz".to_string()
            ))
        );
        assert_eq!(
            deserialized["hello"].opts.get("bin_path"),
            Some(&toml::Value::String("bin".to_string()))
        );
        // Verify nested platforms table survived round-trip
        let platforms = deserialized["hello"].opts.get("platforms").unwrap();
        assert!(platforms.is_table());
        let linux = platforms.get("linux-x64").unwrap();
        assert_eq!(
            linux.get("url").unwrap().as_str(),
            Some("https://example.com/linux.tar.gz")
        );
    }

    #[test]
    fn test_manifest_backward_compat_bracketed_full() {
        use super::Manifest;

        // Old format: full contains bracketed opts
        let toml_str = r#"
[hello]
short = "hello"
full = "http:hello[url = \"https://example.com/tool.tar.gz\", bin_path = \"bin\"]"
explicit_backend = true
"#;
        let manifest: Manifest = toml::from_str(toml_str).unwrap();
        let mt = &manifest["hello"];
        // Old format should deserialize with opts empty and brackets in full
        assert!(mt.opts.is_empty());
        assert!(mt.full.as_ref().unwrap().contains('['));
    }
    #[test]
    fn pipx_manifest_retains_its_configured_directory() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("pipx-black");
        std::fs::create_dir_all(dir.join("24.10.0")).unwrap();
        let manifest: super::Manifest = toml::from_str(
            r#"
["pipx-black"]
short = "pipx:black"
full = "pipx:black"
explicit_backend = true
"#,
        )
        .unwrap();
        let (tool, _) = super::scan_tool_dir("pipx-black", &dir, &manifest)
            .unwrap()
            .unwrap();
        assert_eq!(tool.short, "pipx:black");
        assert_eq!(tool.full.as_deref(), Some("pipx:black"));
        assert_eq!(tool.installs_path, Some(dir.clone()));
        assert_eq!(tool.versions, ["24.10.0"]);
        assert!(dir.join("24.10.0").is_dir());
        assert!(!temp.path().join("pypi-black").exists());
    }

    /// A manifest can map a tool to a dir named differently from its short;
    /// the scan must find the marker install wrote under the short's name.
    #[test]
    fn scan_versions_honors_markers_keyed_by_tool_name() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("renamed-dir");
        std::fs::create_dir_all(dir.join("1.0.0")).unwrap();
        std::fs::create_dir_all(dir.join("2.0.0")).unwrap();
        let tool_dir_name = format!(
            "scan-marker{}",
            temp.path().file_name().unwrap().to_string_lossy()
        );
        let marker = incomplete_marker(&tool_dir_name, "2.0.0");
        std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
        std::fs::write(&marker, "").unwrap();

        let versions = scan_versions(&dir, &tool_dir_name).unwrap();
        let _ = std::fs::remove_dir_all(marker.parent().unwrap().parent().unwrap());

        assert_eq!(versions, ["1.0.0"]);
    }

    /// Clearing the cache must not make an unfinished install look complete,
    /// and a marker an older mise left in the cache still counts.
    #[test]
    fn incomplete_markers_live_outside_the_cache_and_honor_legacy_ones() {
        let ba = BackendArg::from(format!("marker_test_{}", std::process::id()).as_str());
        let tool_dir_name = marker_dir_name(&ba).to_owned();
        let marker = incomplete_marker(&tool_dir_name, "1.0.0");
        assert!(!marker.starts_with(*crate::dirs::CACHE));

        mark_incomplete(&ba, "1.0.0").unwrap();
        let _ = std::fs::remove_dir_all(ba.cache_path());
        assert!(is_incomplete(&ba, "1.0.0"));
        clear_incomplete_marker(&ba, "1.0.0").unwrap();
        assert!(!is_incomplete(&ba, "1.0.0"));
        assert!(!marker.parent().unwrap().exists());

        let legacy = legacy_incomplete_marker(&tool_dir_name, "2.0.0");
        std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        std::fs::write(&legacy, "").unwrap();
        assert!(is_incomplete(&ba, "2.0.0"));
        clear_incomplete_marker(&ba, "2.0.0").unwrap();
        assert!(!is_incomplete(&ba, "2.0.0"));
        let _ = std::fs::remove_dir_all(ba.cache_path());
    }

    /// The migration moves a cache marker to the state dir, but leaves one
    /// whose version an install in progress has locked.
    #[test]
    fn migration_moves_legacy_markers_except_locked_ones() {
        let ba = BackendArg::from(format!("migrate_test_{}", std::process::id()).as_str());
        let tool_dir_name = marker_dir_name(&ba).to_owned();
        for v in ["1.0.0", "2.0.0"] {
            let legacy = legacy_incomplete_marker(&tool_dir_name, v);
            std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
            std::fs::write(&legacy, "").unwrap();
        }
        let installing = lock_tool_version(&ba, "2.0.0").unwrap();

        assert!(!migrate_legacy_incomplete_markers().unwrap());
        assert!(incomplete_marker(&tool_dir_name, "1.0.0").is_file());
        assert!(!legacy_incomplete_marker(&tool_dir_name, "1.0.0").exists());
        assert!(legacy_incomplete_marker(&tool_dir_name, "2.0.0").is_file());
        assert!(!incomplete_marker(&tool_dir_name, "2.0.0").exists());

        drop(installing);
        migrate_legacy_incomplete_markers().unwrap();
        assert!(incomplete_marker(&tool_dir_name, "2.0.0").is_file());
        assert!(!legacy_incomplete_marker(&tool_dir_name, "2.0.0").exists());

        for v in ["1.0.0", "2.0.0"] {
            clear_incomplete_marker(&ba, v).unwrap();
        }
        let _ = std::fs::remove_dir_all(ba.cache_path());
    }

    /// Also pins that `DirEntry::file_type()` reports a Windows junction as a symlink, which is
    /// what the scan keys on. `make_symlink` writes a junction there, so if that were not so,
    /// `broken` would be dropped below — and the *live* junction would never have been listed
    /// either, which is how `mise ls` has been showing linked versions on Windows all along.
    #[test]
    fn scan_versions_keeps_links_that_lead_nowhere_but_not_runtime_symlinks() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("tool");
        std::fs::create_dir_all(dir.join("1.0.0")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        std::fs::write(dir.join("notes.txt"), "x").unwrap();
        let external = temp.path().join("external");
        std::fs::create_dir_all(&external).unwrap();
        crate::file::make_symlink(&external, &dir.join("linked")).unwrap();
        crate::file::make_symlink(&temp.path().join("nowhere"), &dir.join("broken")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("./1.0.0", dir.join("1")).unwrap();

        let tool_dir_name = format!(
            "scan-links{}",
            temp.path().file_name().unwrap().to_string_lossy()
        );
        let mut versions = scan_versions(&dir, &tool_dir_name).unwrap();
        versions.sort();

        assert_eq!(versions, ["1.0.0", "broken", "linked"]);
        assert!(
            scan_versions(&temp.path().join("missing"), &tool_dir_name)
                .unwrap()
                .is_empty()
        );
    }
}

#[cfg(test)]
mod credential_tests {
    use super::{credential_named_dir, persistent_opts};
    use crate::args::BackendArg;
    use crate::toolset::ToolVersionOptions;
    use crate::toolset::tool_version_options::strip_option_credentials as strip_url_credentials;

    #[test]
    fn credential_named_dir_only_for_urls_with_credentials() {
        assert_eq!(
            credential_named_dir("cargo:https://bot:t0ken@host/r.git").as_deref(),
            Some("cargo-https-bot-t0ken-host-r-git")
        );
        assert_eq!(credential_named_dir("cargo:https://host/r.git"), None);
        assert_eq!(
            credential_named_dir("cargo:https://host/r.git?token=t0ken").as_deref(),
            Some("cargo-https-host-r-git-token-t0ken")
        );
        assert_eq!(
            credential_named_dir("cargo:https://host/r.git?ref=main"),
            None
        );
        assert_eq!(credential_named_dir("cargo:ssh://git@host/r.git"), None);
        assert_eq!(credential_named_dir("npm:@antfu/ni"), None);
    }

    /// The credential-named copy of a version goes once the tool's own
    /// directory has it, with the links into it; nothing is followed out.
    #[cfg(unix)]
    #[test]
    fn credential_named_installs_are_removed_once_installed_cleanly() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let installs = tmp.path().join("installs");
        let shims = tmp.path().join("shims");
        let outside = tmp.path().join("outside");
        let named = installs.join("named");
        for dir in [
            named.join("1.0.0/bin"),
            named.join("2.0.0"),
            installs.join("clean/1.0.0"),
            shims.clone(),
            outside.clone(),
        ] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(named.join("1.0.0/bin/tool"), "").unwrap();
        std::fs::write(named.join(".mise.backend.toml"), "").unwrap();
        std::fs::write(outside.join("keep"), "").unwrap();
        symlink(&outside, named.join("1.0.0/escape")).unwrap();
        symlink("./1.0.0", named.join("latest")).unwrap();
        symlink("./2.0.0", named.join("2")).unwrap();
        symlink(named.join("1.0.0/bin/tool"), shims.join("tool")).unwrap();
        symlink(outside.join("keep"), shims.join("other")).unwrap();

        super::remove_credential_named_installs_in(
            &installs,
            "named",
            "clean",
            std::slice::from_ref(&shims),
            &|_: &str| Some(()),
        );

        assert!(!named.join("1.0.0").exists());
        assert!(named.join("latest").symlink_metadata().is_err());
        assert!(named.join("2.0.0").is_dir(), "not installed cleanly yet");
        assert!(named.join("2").symlink_metadata().is_ok());
        assert!(shims.join("tool").symlink_metadata().is_err());
        assert!(shims.join("other").symlink_metadata().is_ok());
        assert!(outside.join("keep").exists(), "a symlink was followed");

        // An install under the tool's own name that is not complete (or is in
        // progress) does not stand in for the copy yet.
        std::fs::create_dir_all(installs.join("clean/2.0.0")).unwrap();
        super::remove_credential_named_installs_in(
            &installs,
            "named",
            "clean",
            std::slice::from_ref(&shims),
            &|_: &str| None::<()>,
        );
        assert!(
            named.join("2.0.0").is_dir(),
            "removed for an incomplete install"
        );

        super::remove_credential_named_installs_in(
            &installs,
            "named",
            "clean",
            std::slice::from_ref(&shims),
            &|_: &str| Some(()),
        );
        assert!(named.symlink_metadata().is_err());
        assert!(installs.join("clean/2.0.0").is_dir());
    }

    /// The tool's own directory and a credential-named one record the same
    /// tool; a full scan takes the tool's own directory, in either order, so
    /// every version it lists exists under the tool's install path.
    #[test]
    fn the_tools_own_directory_stands_for_it() {
        let short = "cargo:https://host/acme/tool.git";
        let tool = |dir: &str, versions: &[&str]| super::InstallStateTool {
            short: short.to_string(),
            full: Some(short.to_string()),
            versions: versions.iter().map(|v| v.to_string()).collect(),
            explicit_backend: true,
            opts: Default::default(),
            installs_path: Some(std::path::PathBuf::from(dir)),
        };
        let own = crate::backend::tool_directory_name(short);
        let named = "cargo-https-bot-t0ken-host-acme-tool-git";
        for order in [[named, own.as_str()], [own.as_str(), named]] {
            let mut tools = super::InstallStateTools::new();
            for dir in order {
                let versions: &[&str] = if dir == named { &["1.0.0"] } else { &["2.0.0"] };
                super::insert_scanned_tool(&mut tools, dir, tool(dir, versions));
            }
            let found = &tools[short];
            assert_eq!(found.versions, ["2.0.0"], "{order:?}");
            assert_eq!(
                found.installs_path.as_deref(),
                Some(std::path::Path::new(&own)),
                "{order:?}"
            );
        }
        // Alone, the credential-named directory still lists what it holds.
        let mut tools = super::InstallStateTools::new();
        super::insert_scanned_tool(&mut tools, named, tool(named, &["1.0.0"]));
        assert_eq!(tools[short].versions, ["1.0.0"]);
    }

    /// What install state and lockfiles record is credential-free; a request
    /// spelled with credentials still downloads and builds with them.
    #[test]
    fn a_request_keeps_its_own_credentials() {
        use super::with_request_credentials;
        let short = "cargo:https://ci:t0ken@host/r.git";
        let clean = "cargo:https://host/r.git";
        assert_eq!(with_request_credentials(short, clean.into()), short);
        assert_eq!(with_request_credentials(clean, clean.into()), clean);
        assert_eq!(
            with_request_credentials(short, "cargo:other".into()),
            "cargo:other"
        );
        assert_eq!(BackendArg::from(short).stored_full(), clean);
    }

    /// An install that is incomplete, or locked by an install in progress, is
    /// not taken as the replacement of a credential-named copy.
    #[test]
    fn an_incomplete_or_locked_install_is_not_claimed() {
        let ba = BackendArg::from("cargo:https://host/acme/claim-test.git");
        let clean = crate::backend::tool_directory_name(&ba.short);
        let path = std::path::Path::new("/nonexistent/claim-test");
        super::mark_incomplete(&ba, "9.9.9").unwrap();
        assert!(super::claim_complete_install(&clean, path, "9.9.9").is_none());
        super::clear_incomplete_marker(&ba, "9.9.9").unwrap();
        assert!(super::claim_complete_install(&clean, path, "9.9.9").is_some());
        let _lock = super::lock_tool_version(&ba, "9.9.9").unwrap();
        assert!(super::claim_complete_install(&clean, path, "9.9.9").is_none());
    }

    /// A manifest that records a tool's URL with its credentials is read
    /// without them, so the configured spelling still finds the tool, and the
    /// files are rewritten without them.
    #[test]
    fn manifests_with_credentials_are_read_and_rewritten_without_them() {
        use super::{
            ManifestTool, read_manifest_from, read_tool_manifest_from, state_short,
            write_manifest_to,
        };
        let tmp = tempfile::tempdir().unwrap();
        let short = "cargo:https://bot:t0ken@host/acme/tool.git";
        let raw =
            format!("[cargo-https-host-acme-tool-git]\nshort = \"{short}\"\nfull = \"{short}\"\n");
        let root = tmp.path().join(".mise-installs.toml");
        std::fs::write(&root, &raw).unwrap();
        let manifest = read_manifest_from(&root);
        let mt = &manifest["cargo-https-host-acme-tool-git"];
        assert_eq!(mt.short, "cargo:https://host/acme/tool.git");
        assert_eq!(mt.full.as_deref(), Some("cargo:https://host/acme/tool.git"));
        assert_eq!(mt.short, state_short(short));
        write_manifest_to(&root, &manifest).unwrap();
        assert!(!std::fs::read_to_string(&root).unwrap().contains("t0ken"));

        let sidecar = tmp.path().join(".mise.backend.toml");
        std::fs::write(
            &sidecar,
            format!("short = \"{short}\"\nfull = \"{short}\"\n"),
        )
        .unwrap();
        let mt: ManifestTool = read_tool_manifest_from(&sidecar).unwrap();
        assert_eq!(mt.short, "cargo:https://host/acme/tool.git");
        assert!(!std::fs::read_to_string(&sidecar).unwrap().contains("t0ken"));
    }

    #[test]
    fn written_identity_has_no_credentials() {
        let mut ba = BackendArg::from("cargo:https://bot:t0ken@host/acme/tool.git");
        ba.set_opts(None);
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".mise-installs.toml");
        super::write_backend_meta_to(&ba, &root).unwrap();
        let body = std::fs::read_to_string(&root).unwrap();
        assert!(!body.contains("t0ken"), "{body}");
        assert!(body.contains("cargo:https://host/acme/tool.git"), "{body}");
    }

    /// A credential-named entry that is a symlink is not followed.
    #[cfg(unix)]
    #[test]
    fn credential_named_symlink_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let installs = tmp.path().join("installs");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("1.0.0")).unwrap();
        std::fs::create_dir_all(installs.join("clean/1.0.0")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, installs.join("named")).unwrap();

        super::remove_credential_named_installs_in(&installs, "named", "clean", &[], &|_: &str| {
            Some(())
        });

        assert!(elsewhere.join("1.0.0").is_dir());
    }

    /// These manifests live under the data directory, which is backed up and
    /// synced, so a registry URL must not carry its token onto disk. Templating
    /// the token in from the environment does not help: rendering happens
    /// before the value is stored.
    #[test]
    fn credentials_are_stripped_before_a_manifest_is_written() {
        let stripped = |raw: &str| {
            strip_url_credentials(&toml::Value::String(raw.to_string()))
                .as_str()
                .unwrap()
                .to_string()
        };

        assert_eq!(
            stripped("https://ghp_tok3n@rubygems.pkg.github.com/acme"),
            "https://rubygems.pkg.github.com/acme"
        );
        assert_eq!(
            stripped("https://user:s3cret@gems.example.com/"),
            "https://gems.example.com/"
        );
        // A value that is one URL may hold a raw space in its password.
        assert_eq!(
            stripped("https://user:my s3cret@gems.example.com/"),
            "https://gems.example.com/"
        );
        // Identity worth keeping is kept, and non-URL options are untouched.
        assert_eq!(
            stripped("https://gems.example.com/acme"),
            "https://gems.example.com/acme"
        );
        assert_eq!(stripped("not a url"), "not a url");
        assert_eq!(
            strip_url_credentials(&toml::Value::Integer(7)),
            toml::Value::Integer(7)
        );
    }

    /// Options are TOML values, and the ones that are tables carry credentials
    /// too: `platforms.<platform>` holds the same options one level down, and
    /// `headers` holds nothing else.
    #[test]
    fn credentials_in_table_options_are_stripped() {
        let mut ba = BackendArg::from("http:hello");
        ba.set_opts(Some(ToolVersionOptions {
            opts: toml::from_str(
                r#"
                url = "https://ci:s3cret@example.com/hello.tar.gz"
                mirrors = ["https://ci:s3cret@mirror.example.com/hello.tar.gz"]
                headers = { Authorization = "Bearer s3cret" }
                headers_forward = { Authorization = "cdn.example.com" }
                platforms_macos_arm64_headers = { X-Api-Key = "s3cret" }

                [platforms.linux-x64]
                url = "https://ci:s3cret@example.com/hello-linux.tar.gz"
                headers = { Authorization = "Bearer s3cret" }
                bin_path = "bin"
                "#,
            )
            .unwrap(),
            ..Default::default()
        }));

        let expected: toml::Table = toml::from_str(
            r#"
            url = "https://example.com/hello.tar.gz"
            mirrors = ["https://mirror.example.com/hello.tar.gz"]

            [platforms.linux-x64]
            url = "https://example.com/hello-linux.tar.gz"
            bin_path = "bin"
            "#,
        )
        .unwrap();
        assert_eq!(toml::Table::from_iter(persistent_opts(&ba)), expected);
    }
}
