use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::{Debug, Display, Formatter};
use std::hash::Hash;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{
    Arc, LazyLock, Mutex,
    atomic::{AtomicBool, AtomicU64, Ordering},
};
use tokio::sync::Mutex as TokioMutex;

use jiff::Timestamp;

use crate::args::{BackendArg, ToolVersionType, split_bracketed_opts};
use crate::cmd::CmdLineRunner;
use crate::config::config_file::config_root;
use crate::config::{Config, Settings, SettingsExt, global_config_path};
use crate::duration::parse_into_timestamp;
use crate::file::{
    canonicalize_cached, display_path, entry_exists, remove_all_with_progress,
    remove_all_with_warning,
};
use crate::install_before::{
    release_age_list_window, release_age_list_window_for_cutoff, resolve_before_date_for_tool,
};
use crate::install_context::InstallContext;
use crate::lockfile::{PlatformInfo, ProvenanceType};
use crate::path_env::PathEnv;
use crate::platform::Platform;
use crate::plugins::core::CORE_PLUGINS;
use crate::plugins::{PluginType, VERSION_REGEX, is_python_prerelease};
use crate::registry::{
    REGISTRY, RegistryIdiomaticFile, RegistryTool, full_to_url, normalize_remote, tool_enabled,
};
use crate::runtime_symlinks::is_runtime_symlink;
use crate::semver::semver_triplet;
use crate::tera::{contains_template_syntax, get_tera, render_str};
use crate::toolset::outdated_info::OutdatedInfo;
use crate::toolset::{
    ResolveOptions, ToolOptionSource, ToolRequest, ToolVersion, ToolVersionOptions, Toolset,
    install_state, is_outdated_version,
};
use crate::ui::progress_report::SingleReport;
use crate::versions_index::{self, IndexPick, IndexTool};
use crate::{
    cache::{CacheManager, CacheManagerBuilder},
    plugins::PluginEnum,
};
use crate::{dirs, env, file, hash, versions_host};
use async_trait::async_trait;
use backend_type::BackendType;
use eyre::{Result, WrapErr, bail, eyre};
use indexmap::{IndexMap, IndexSet};
use itertools::Itertools;
use platform_target::PlatformTarget;
use std::sync::LazyLock as Lazy;

use self::options::VersionOrder;

pub(crate) mod aqua;
pub(crate) mod asdf;
pub mod asset_matcher;
pub mod aube_host;
pub mod backend_type;
pub(crate) mod cargo;
pub(crate) mod conda;
pub(crate) mod dotnet;
mod external_plugin_cache;
pub(crate) mod gem;
pub(crate) mod github;
pub(crate) mod go;
pub(crate) mod http;
pub(crate) mod jq;
pub mod mise_bins;
pub(crate) mod npm;
pub(crate) mod npm_registry;
pub(crate) mod options;
pub mod packslip;
pub mod pipx;
pub mod platform_target;
mod platform_tokens;
pub(crate) mod s3;
pub(crate) mod spinel;
pub(crate) mod spm;
pub mod static_helpers;
pub(crate) mod ubi;
pub(crate) mod version_list;
pub(crate) mod vfox;

pub(crate) type ABackend = Arc<dyn Backend>;
pub(crate) type BackendMap = BTreeMap<String, ABackend>;
pub(crate) type BackendList = Vec<ABackend>;
pub(crate) type IdiomaticVersion = (String, Option<ToolVersionOptions>);
pub(crate) type VersionCacheManager = CacheManager<Vec<VersionInfo>>;

pub(crate) const MISE_BINS_DIR: &str = ".mise-bins";

/// How much older a cached remote-version list's contents can be than the file
/// holding them. mise-versions republishes its lists about every 30 minutes;
/// this leaves room for that and for the CDN in front of it.
pub(crate) const LISTED_SNAPSHOT_LAG: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// How old a cached remote version list may be for an install-time refresh
/// (which `latest` gets when nothing installed satisfies it) to reuse it
/// instead of fetching again.
///
/// The refresh exists so a list cached up to `fetch_remote_versions_cache`
/// (1h) ago does not hide a newer release. Resolution already skips it when the
/// release-age cutoff makes the cached list sufficient (the 24h default; see
/// `Backend::adopt_cached_remote_versions_for_cutoff`), so this applies to
/// short cutoffs such as `minimum_release_age = 0`. Even then, a list written
/// in the last few minutes cannot hide much: mise-versions itself republishes
/// about every 30 minutes, and the stable-latest shortcuts (`/releases/latest`,
/// dist tags) are already reused for the whole cache duration.
const REFRESH_REUSES_LISTS_NEWER_THAN: std::time::Duration = std::time::Duration::from_secs(5 * 60);

/// Why a backend's remote version listing failed.
///
/// Backends that degrade a failed fetch into an empty list (so a flaky network
/// doesn't hard-fail every command) record the cause here. `no versions found`
/// errors then cite the real reason instead of blaming whatever filter happened
/// to be applied to the empty list.
///
/// Keyed by `BackendArg::full()`, the same key `get_remote_version_cache` uses,
/// so two backends that share a short name but differ in backend or in
/// listing-relevant tool options (`foo` vs `foo[api_url=...]`) can't inherit
/// each other's failures.
///
/// An entry is never removed: it makes `list_remote_versions_with_refresh`
/// stop fetching for that key, so no later fetch can succeed and contradict it.
/// That is only sound while every recorder returns an empty list alongside the
/// record — a backend that recorded a failure but still returned some versions
/// would suppress its own later listings.
static VERSION_LISTING_FAILURES: Lazy<std::sync::Mutex<HashMap<String, String>>> =
    Lazy::new(Default::default);

/// Remember that listing remote versions for `ba` failed.
pub fn record_version_listing_failure(ba: &BackendArg, err: &eyre::Report) {
    VERSION_LISTING_FAILURES
        .lock()
        .unwrap()
        .insert(ba.full(), format!("{err:#}"));
}

/// The cause of the failed remote version listing for `ba`, if one was recorded.
pub fn version_listing_failure(ba: &BackendArg) -> Option<String> {
    VERSION_LISTING_FAILURES
        .lock()
        .unwrap()
        .get(&ba.full())
        .cloned()
}

/// The remote versions of a registry tool whose backends serve different
/// version ranges, each version taken from the backend that serves it, in the
/// tool's version order. With a `prefix`, only the backends whose range it
/// reaches are listed.
///
/// `None` when one backend serves every version: a tool with a single
/// backend, or a backend chosen other than
/// by the registry (an explicit backend, a `MISE_BACKENDS_*` override, an
/// alias, a custom plugin or a lockfile entry). Also `None` with
/// `--strict-metadata`, which builds the list mise-versions publishes for the
/// tool: clients read that list as the preferred backend's own (packslip takes
/// it as the releases that carry a packslip), so it must not hold other ranges.
pub async fn list_remote_versions_across_ranges(
    config: &Arc<Config>,
    ba: &BackendArg,
    prefix: Option<&str>,
) -> Result<Option<Vec<VersionInfo>>> {
    if ba.has_explicit_backend() || ba.has_env_backend_override() || strict_metadata() {
        return Ok(None);
    }
    let Some(tool) = ba.registry_tool() else {
        return Ok(None);
    };
    let Some(owners) = tool.version_range_owners() else {
        return Ok(None);
    };
    // An alias, a custom plugin or a lock picks the backend instead, and
    // installs only from it.
    if ba.full_without_opts() != owners[0].full {
        return Ok(None);
    }
    let owners = match prefix {
        Some(prefix) => tool.version_range_owners_for(owners, prefix),
        None => owners,
    };
    // Even a prefix inside one range goes through here: its backend may list
    // versions that match the prefix as a string but install from another.
    if owners.is_empty() {
        return Ok(None);
    }
    let mut versions = vec![];
    for owner in owners {
        // A version inside the entry's range selects its options when the
        // backend is listed more than once.
        let hint = owner.min_version.or(owner.max_version.map(|_| "0.0.0"));
        let mut owner_ba = BackendArg::new(ba.short.clone(), Some(owner.full.to_string()))
            .for_registry_version(hint);
        // Keep options given inline, such as `hk[prerelease=true]`.
        owner_ba.set_opts(ba.explicit_opts().cloned());
        let backend = owner_ba.backend()?;
        if let Some(plugin) = backend.plugin() {
            let mpr = crate::ui::multi_progress_report::MultiProgressReport::get();
            plugin.ensure_installed(config, &mpr, false, false).await?;
        }
        let listed = backend.list_remote_versions_with_info(config).await?;
        if let Some(cause) = version_listing_failure(&owner_ba) {
            bail!("unable to fetch versions for {}: {cause}", ba.short);
        }
        // Another backend may list versions outside its range, which would
        // route elsewhere when installed.
        versions.extend(listed.into_iter().filter(|v| {
            tool.version_owner(&v.version)
                .is_some_and(|serving| std::ptr::eq(serving, owner))
        }));
    }
    Ok(Some(
        tool.version_order
            .order_by(versions, |v| v.version.as_str()),
    ))
}

/// mise-versions publishes one version list per registry short name, generated by
/// `mise ls-remote --strict-metadata <short>` from the entry's first backend, even
/// when its backends serve different version ranges. Every other backend of the same
/// entry lists different versions: a `min_version` boundary routes older requests to a
/// later backend, and platform or settings filtering can select one too. Compare against the declared first backend
/// rather than the filtered `RegistryTool::backends()` list, so a client-side filter
/// promoting another backend does not make it inherit the published list.
pub(crate) fn backend_arg_is_preferred_registry_backend(ba: &BackendArg) -> bool {
    let full = ba.full_without_opts();
    REGISTRY
        .get(ba.short.as_str())
        .is_some_and(|rt| rt.backends.first().is_some_and(|b| b.full == full))
}

/// A backend as the registry spells it, so an explicit backend arg can be
/// matched with the registry tool that prefers it: a packslip project with its
/// forge host (`jdx/fnox` is `github.com/jdx/fnox`), an aqua alias as the
/// package it stands for, and a forge repository without case, which the forge
/// ignores too.
fn registry_backend_key(full: &str) -> String {
    match full.split_once(':') {
        Some(("packslip", project)) => packslip::project_name(project)
            .map(|project| format!("packslip:{project}"))
            .unwrap_or_else(|_| full.to_string()),
        Some(("aqua", id)) => format!(
            "aqua:{}",
            crate::aqua::standard_registry::canonical_package_id(id)
        ),
        Some(("github" | "gitlab" | "forgejo", _)) => full.to_ascii_lowercase(),
        _ => full.to_string(),
    }
}

/// The registry tool whose mise-versions list is `ba`'s remote version list.
///
/// A registry tool reads the list published under its own short name, when it
/// is on its preferred backend. A backend arg with no registry entry of its
/// own, like `aqua:jqlang/jq`, reads the list of the tool whose preferred
/// backend it names, since that list is generated from the same listing.
/// Not when several tools prefer that backend, which leaves no one list to
/// pick, and not when the registry sets options on it: the arg does not
/// inherit them, so a list generated with them (a `version_prefix`, a direct
/// `url` that keeps asset-less releases) need not describe the arg's own.
/// Nor for an aqua package while a custom aqua registry, searched before the
/// official one the list was generated from, may define it differently.
/// `registry_options_shape_listing = false` is for a caller whose use of the
/// list no registry option changes.
pub(crate) fn versions_host_tool(
    ba: &BackendArg,
    registry_options_shape_listing: bool,
) -> Option<&'static str> {
    if let Some(rt) = REGISTRY.get(ba.short.as_str()) {
        return backend_arg_is_preferred_registry_backend(ba).then_some(rt.short);
    }
    static PREFERRED_BY: Lazy<HashMap<String, Vec<&'static RegistryTool>>> = Lazy::new(|| {
        let mut map: HashMap<String, Vec<&'static RegistryTool>> = HashMap::new();
        // An alias is stored as a copy of its tool: index each tool once.
        for (_, rt) in REGISTRY.iter().filter(|(name, rt)| *name == rt.short) {
            if let Some(backend) = rt.backends.first() {
                map.entry(registry_backend_key(backend.full))
                    .or_default()
                    .push(rt);
            }
        }
        map
    });
    let full = ba.full_without_opts();
    if full.starts_with("aqua:")
        && !crate::aqua::aqua_registry_wrapper::searches_only_official_registries(&Settings::get())
    {
        return None;
    }
    let [rt] = PREFERRED_BY.get(&registry_backend_key(&full))?.as_slice() else {
        return None;
    };
    let options = rt.backends.first().map_or(&[][..], |b| b.options);
    (!registry_options_shape_listing || options.is_empty()).then_some(rt.short)
}

/// The tag in a release page URL, `<repo_web_url>/releases/tag/<tag>`, as the
/// version listings of the aqua and github backends write it. The repository
/// must match, ignoring case. The tag is taken as written: listings put it in
/// unencoded, slashes included (`kustomize/v5.8.1`).
pub(crate) fn release_tag_from_url(url: &str, repo_web_url: &str) -> Option<String> {
    let prefix = format!("{}/releases/tag/", repo_web_url.trim_end_matches('/'));
    let head = url.get(..prefix.len())?;
    let tag = &url[prefix.len()..];
    (head.eq_ignore_ascii_case(&prefix) && !tag.is_empty()).then(|| tag.to_string())
}

/// The tag in a release asset's download URL,
/// `<repo_web_url>/releases/download/<tag>/<asset>`, as GitHub serves it and
/// lockfiles record it. The repository must match, ignoring case; the tag may
/// hold slashes or be percent-encoded.
pub(crate) fn release_tag_from_download_url(url: &str, repo_web_url: &str) -> Option<String> {
    let prefix = format!("{}/releases/download/", repo_web_url.trim_end_matches('/'));
    let head = url.get(..prefix.len())?;
    if !head.eq_ignore_ascii_case(&prefix) {
        return None;
    }
    let (tag, asset) = url[prefix.len()..].rsplit_once('/')?;
    if tag.is_empty() || asset.is_empty() {
        return None;
    }
    urlencoding::decode(tag).ok().map(|tag| tag.into_owned())
}

pub(crate) fn toolset_semver_version(ts: &Toolset, tool: &str) -> Option<String> {
    let tvl = ts
        .versions
        .iter()
        .find(|(ba, _)| ba.short == tool)
        .map(|(_, tvl)| tvl)?;

    if let Some(version) = tvl.versions.iter().find_map(|tv| {
        let version = tv.version.trim().trim_start_matches(['v', 'V']);
        semver_triplet(version)?;
        Some(version.to_string())
    }) {
        return Some(version);
    }

    tvl.requests.iter().find_map(|tr| {
        let version = tr.version();
        let version = version.trim().trim_start_matches(['v', 'V']);
        semver_triplet(version)?;
        Some(version.to_string())
    })
}

pub(crate) async fn semver_version_from_toolsets_or_path(
    backend: &dyn Backend,
    config: &Arc<Config>,
    ts: &Toolset,
    tool: &str,
) -> Option<String> {
    if let Some(version) = toolset_semver_version(ts, tool) {
        return Some(version);
    }
    if let Ok(ts) = backend.dependency_toolset(config).await
        && let Some(version) = toolset_semver_version(&ts, tool)
    {
        return Some(version);
    }
    semver_version_from_path(backend, config, ts, tool).await
}

/// `ts` is threaded through only so the probe can resolve `tool` the same way the install
/// spawns it — a bare name would be looked up by `Command::new`, which on Windows appends
/// only `.exe` and so misses the `.cmd` shim the install itself would have used.
async fn semver_version_from_path(
    backend: &dyn Backend,
    config: &Arc<Config>,
    ts: &Toolset,
    tool: &str,
) -> Option<String> {
    let env = backend.dependency_env(config).await.ok()?;
    let program = backend.spawn_program(config, Some(ts), tool).await;
    let output = cmd!(program, "--version").full_env(env).read().ok()?;
    parse_cli_version_output(&output)
}

pub(crate) fn parse_cli_version_output(output: &str) -> Option<String> {
    let line = output.lines().next()?;
    let version = line.trim().trim_start_matches(['v', 'V']);
    if semver_triplet(version).is_some() {
        return Some(version.to_string());
    }
    line.split_whitespace().find_map(|version| {
        let version = version.trim().trim_start_matches(['v', 'V']);
        semver_triplet(version)?;
        Some(version.to_string())
    })
}

const VERSIONS_HOST_LOCAL_OPT_SOURCES: &[ToolOptionSource] = &[
    ToolOptionSource::InstallManifest,
    ToolOptionSource::BackendAlias,
    ToolOptionSource::Config,
    ToolOptionSource::InlineBackendArg,
];

fn has_local_version_listing_option_override(
    resolved_opts: &crate::toolset::ResolvedToolOptions,
    version_listing_opt_keys: &[&str],
) -> bool {
    resolved_opts
        .has_any_key_from_sources(version_listing_opt_keys, VERSIONS_HOST_LOCAL_OPT_SOURCES)
}

/// Digest of the listing-relevant tool options, used to partition the remote-version cache.
///
/// The cached list is *shaped* by these options — `version_prefix` decides which tags survive
/// and how they are spelled, `api_url` decides which host answered — so two different sets of
/// values must not share a cache entry. Collected into a `BTreeMap` so the digest depends on
/// the values rather than on the order the options were inserted, the same way asdf's
/// `version_listing_cache_context` does.
///
/// `get_string` rather than `get`: the latter yields `None` for any non-string TOML scalar,
/// which would quietly collapse two distinct values into one key.
fn listing_option_digest(opts: &ToolVersionOptions, version_listing_opt_keys: &[&str]) -> String {
    let values: BTreeMap<&str, String> = version_listing_opt_keys
        .iter()
        .filter_map(|key| {
            // A table such as `headers` has no scalar form but still shapes the list, and its
            // values can be credentials, so only the digest of it is kept. An array, such as
            // packslip's `workflow` list, shapes the list the same way.
            opts.get_string(key)
                .or_else(|| {
                    opts.opts
                        .get(*key)
                        .filter(|value| value.is_table() || value.is_array())
                        .map(ToString::to_string)
                })
                .map(|value| (*key, value))
        })
        .collect();
    hash::hash_to_str(&values)
}

/// Remaps a backend-discovered path from the concrete install dir to the
/// runtime path users put on PATH.
///
/// For fuzzy requests like `latest` or `1.46`, backends may discover bins under
/// the resolved version dir, but PATH-facing callers should use `runtime_path()`
/// for the same version. Remapping is limited to aliases in the same tool root;
/// paths outside the install dir or aliases in another install root are returned
/// unchanged.
pub(crate) fn runtime_path_for_install_path(tv: &ToolVersion, path: PathBuf) -> PathBuf {
    // install-into, system, and shared installs give the backend an explicit
    // destination. Remapping a path below it through a fuzzy runtime alias can
    // select an unrelated normal installation of the same requested version.
    if tv.install_path_is_exact || tv.install_path_is_explicit {
        return path;
    }
    let install_path = tv.install_path();
    let runtime_path = tv.runtime_path();
    // A re-resolved ToolVersion does not retain the transient destination flags
    // used by install-into/system/shared installs. Never cross from a discovered
    // shared/system install into a fuzzy alias in the primary user install root.
    // Under the identity layout the install is a hashed directory in the install
    // store and the runtime path is a link in the tool's own directory.
    let hashed_alias = crate::install_layout::resolver::is_primary_install(&install_path)
        && runtime_path.parent() == Some(tv.ba().installs_path());
    if install_path.parent() != runtime_path.parent() && !hashed_alias {
        return path;
    }
    if let Ok(relative_path) = path.strip_prefix(&install_path) {
        if relative_path.as_os_str().is_empty() {
            runtime_path
        } else {
            runtime_path.join(relative_path)
        }
    } else {
        path
    }
}

static STRICT_METADATA: AtomicBool = AtomicBool::new(false);

pub fn set_strict_metadata(strict: bool) {
    STRICT_METADATA.store(strict, Ordering::Relaxed);
}

pub(crate) fn strict_metadata() -> bool {
    STRICT_METADATA.load(Ordering::Relaxed)
}

/// Information about a GitHub/GitLab release for platform-specific tools
#[derive(Debug, Clone)]
pub struct GitHubReleaseInfo {
    pub asset_pattern: Option<String>,
    pub api_url: Option<String>,
}

/// Information about a tool version including optional metadata like creation time
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct VersionInfo {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub created_at: Option<String>,
    /// URL to the release page (e.g., GitHub/GitLab release page)
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub release_url: Option<String>,
    /// If true, this is a rolling release (like "nightly") that should always
    /// be considered potentially outdated for `mise up` purposes
    #[serde(default, skip_serializing_if = "is_false")]
    pub rolling: bool,
    /// Checksum of the release asset, used to detect changes in rolling releases
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checksum: Option<String>,
    /// Whether this is a pre-release. `Some(true)`/`Some(false)` come from
    /// sources that can actually tell (e.g. GitHub releases' `prerelease`
    /// flag, or semver/PEP 440 detection where the version grammar is total).
    /// `None` means the source has no pre-release signal at all, so consumers
    /// can distinguish "confirmed stable" from "unknown". Metadata-free
    /// listing backends can opt in to stamping `Some(true)` from mise's
    /// legacy pre-release pattern before caching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prerelease: Option<bool>,
}

fn is_false(v: &bool) -> bool {
    !v
}

impl VersionInfo {
    pub fn created_at_timestamp(&self) -> Option<Timestamp> {
        match &self.created_at {
            Some(ts) => {
                let created = parse_into_timestamp(ts);
                if created.is_err() {
                    trace!("Failed to parse timestamp: {}", ts);
                }
                created.ok()
            }
            None => None,
        }
    }

    pub(crate) fn hidden_by_date(&self, before: Timestamp) -> bool {
        self.created_at_timestamp()
            .is_some_and(|created| created >= before)
    }

    pub fn count_hidden_by_date(versions: &[Self], before: Timestamp) -> usize {
        versions.iter().filter(|v| v.hidden_by_date(before)).count()
    }

    /// Filter versions to only include those released before the given timestamp.
    /// Versions without a created_at timestamp are included by default.
    pub fn filter_by_date(versions: Vec<Self>, before: Timestamp) -> Vec<Self> {
        versions
            .into_iter()
            .filter(|v| {
                v.created_at_timestamp()
                    .is_none_or(|created| created < before)
            })
            .collect()
    }
}

/// Security feature information for a tool
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SecurityFeature {
    Checksum {
        #[serde(skip_serializing_if = "Option::is_none")]
        algorithm: Option<String>,
    },
    GithubAttestations {
        #[serde(skip_serializing_if = "Option::is_none")]
        signer_workflow: Option<String>,
    },
    Slsa {
        #[serde(skip_serializing_if = "Option::is_none")]
        level: Option<u8>,
    },
    Cosign,
    /// A packslip: the vendor's signed release manifest, verified against
    /// the identity or key the project name pins.
    Packslip,
    Minisign {
        #[serde(skip_serializing_if = "Option::is_none")]
        public_key: Option<String>,
    },
    Gpg,
}

static TOOLS: Mutex<Option<Arc<BackendMap>>> = Mutex::new(None);
/// Whether TOOLS has been extended with every installed tool. Enumerating the
/// installs dir costs a readdir per tool plus stats per version, so it only
/// happens when a caller genuinely needs the full list ([`list`]).
static TOOLS_INCLUDE_INSTALLED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);
/// The map [`load_tools`] seeded (core tools and registry entries with idiomatic
/// files). An installed tool takes precedence over these — it carries the
/// recorded install identity — but must not displace an entry [`get`] resolved
/// later, which may carry command-scoped options. Held as the seed map itself so
/// recording it costs one Arc clone rather than a copy of every short.
static TOOLS_SEEDED: Mutex<Option<Arc<BackendMap>>> = Mutex::new(None);

pub async fn load_tools() -> Result<Arc<BackendMap>> {
    if let Some(memo_tools) = TOOLS.lock().unwrap().clone() {
        return Ok(memo_tools);
    }
    let tools = build_tools().await?;
    // Two tasks can race past the memo check above and both build seed maps.
    // Committing unconditionally would let the loser replace a map list() may
    // already have extended with installed tools — and TOOLS_INCLUDE_INSTALLED
    // stays set, so those entries would never be restored. First publisher
    // wins; everyone else adopts the published map.
    {
        let mut cached = TOOLS.lock().unwrap();
        if let Some(existing) = cached.as_ref() {
            return Ok(existing.clone());
        }
        *TOOLS_SEEDED.lock().unwrap() = Some(tools.clone());
        *cached = Some(tools.clone());
    }
    time!("load_tools done");
    Ok(tools)
}

/// Build the seed map: core tools plus registry entries with idiomatic files.
async fn build_tools() -> Result<Arc<BackendMap>> {
    install_state::init().await?;
    time!("load_tools start");
    let core_tools = CORE_PLUGINS.values().cloned().collect::<Vec<ABackend>>();
    let mut tools = core_tools;
    // add tools with idiomatic files so they get parsed even if no versions are installed
    tools.extend(
        REGISTRY
            .values()
            .filter(|rt| !rt.idiomatic_files.is_empty() && rt.is_supported_os())
            .filter_map(|rt| arg_to_backend(rt.short.into())),
    );
    time!("load_tools core");
    let settings = Settings::get();
    let enable_tools = settings.enable_tools();
    let disable_tools = settings.disable_tools();
    tools.retain(|backend| {
        tool_enabled(
            enable_tools.as_ref(),
            &disable_tools,
            &backend.id().to_string(),
        )
    });
    tools.retain(|backend| !is_disabled_backend_type(&backend.get_type()));

    let tools: BackendMap = tools
        .into_iter()
        .map(|backend| (backend.ba().short.clone(), backend))
        .collect();
    Ok(Arc::new(tools))
}

/// Whether an installed tool should displace the TOOLS entry for `short`.
///
/// `load_tools` collected core tools, then registry entries with idiomatic
/// files, then installed tools into one map — so an installed tool sharing a
/// short with a core/registry entry won, keeping its recorded install identity
/// (e.g. an asdf/vfox `node` install over core node). Now that installed tools
/// are added later, preserve that precedence over seeds while leaving entries
/// [`get`] resolved afterwards alone: those can carry command-scoped options.
fn installed_replaces<V>(seeded: &BTreeMap<String, V>, short: &str) -> bool {
    seeded.contains_key(short)
}

/// Extend TOOLS with a backend for every installed tool and return the result.
/// Installed tools are otherwise loaded one at a time through [`get`];
/// enumerating callers need them all, which means a full installs-dir scan.
///
/// Returns the map read under the same lock that extended it, so a concurrent
/// [`reset`] cannot swap it out between the two. `None` means load_tools has
/// not run; the flag stays clear so a later call extends the map it publishes.
fn installed_tools() -> Option<Arc<BackendMap>> {
    let mut tools = TOOLS.lock().unwrap();
    let current = tools.clone()?;
    if TOOLS_INCLUDE_INSTALLED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Some(current);
    }
    let settings = Settings::get();
    let enable_tools = settings.enable_tools();
    let disable_tools = settings.disable_tools();
    let seeded = TOOLS_SEEDED.lock().unwrap().clone().unwrap_or_default();
    let mut next = current.deref().clone();
    for backend in install_state::list_tools()
        .values()
        .filter(|ist| ist.full.is_some())
        .flat_map(|ist| arg_to_backend(ist.clone().into()))
    {
        if !tool_enabled(
            enable_tools.as_ref(),
            &disable_tools,
            &backend.id().to_string(),
        ) || is_disabled_backend_type(&backend.get_type())
        {
            continue;
        }
        let short = backend.ba().short.clone();
        if installed_replaces(&seeded, &short) {
            next.insert(short, backend);
        } else {
            next.entry(short).or_insert(backend);
        }
    }
    let next = Arc::new(next);
    *tools = Some(next.clone());
    Some(next)
}

pub fn list() -> BackendList {
    installed_tools()
        .map(|tools| tools.values().cloned().collect())
        .unwrap_or_default()
}

/// Backends that can contribute version aliases.
///
/// Only core tools and asdf/vfox plugins override `get_aliases`; every other
/// backend returns the default empty map. Config loading calls this on every
/// invocation, so enumerating all installed tools here would put the full
/// installs-dir scan back on the hot path for entries that contribute nothing.
pub(crate) fn alias_backends() -> BackendList {
    // Reuse what load_tools already built rather than constructing backends:
    // building one is not cheap (registry lookup, path derivation), and this
    // runs during every config load. Core tools are already seeded there, so
    // only plugin-backed shorts that are absent need constructing.
    let seeded = TOOLS.lock().unwrap().clone().unwrap_or_default();
    let settings = Settings::get();
    let enable_tools = settings.enable_tools();
    let disable_tools = settings.disable_tools();
    seeded
        .values()
        .cloned()
        .chain(
            install_state::try_list_plugins()
                .unwrap_or_default()
                .keys()
                .filter(|short| !seeded.contains_key(*short))
                .filter_map(|short| arg_to_backend(short.as_str().into())),
        )
        .filter(|backend| {
            tool_enabled(
                enable_tools.as_ref(),
                &disable_tools,
                &backend.id().to_string(),
            ) && !is_disabled_backend_type(&backend.get_type())
        })
        .collect()
}

pub fn get(ba: &BackendArg) -> Option<ABackend> {
    // Inline opts are command-scoped, so a short-name cache hit must not drop
    // the caller's BackendArg options.
    if ba.has_registry_version() {
        return arg_to_backend(ba.clone());
    }
    if (ba.explicit_opts().is_some() || ba.has_explicit_backend())
        && let Some(backend) = arg_to_backend(ba.clone())
    {
        return Some(backend);
    }

    let mut tools = TOOLS.lock().unwrap();
    let Some(tools_) = tools.as_ref() else {
        // load_tools has not run. Caching here would publish a map that
        // load_tools then adopts in place of the seed map.
        return arg_to_backend(ba.clone());
    };
    if let Some(backend) = tools_.get(&ba.short) {
        Some(backend.clone())
    } else if let Some(backend) = arg_to_backend(ba.clone()) {
        let mut tools_ = tools_.deref().clone();
        tools_.insert(ba.short.clone(), backend.clone());
        *tools = Some(Arc::new(tools_));
        Some(backend)
    } else {
        None
    }
}

pub(crate) fn remove(short: &str) {
    let mut tools = TOOLS.lock().unwrap();
    if let Some(current) = tools.as_ref() {
        let mut tools_ = current.deref().clone();
        tools_.remove(short);
        *tools = Some(Arc::new(tools_));
    }
}

pub fn is_disabled_backend_type(backend_type: &BackendType) -> bool {
    if *backend_type == BackendType::Pipx {
        return is_disabled_backend_name("pypi") || is_disabled_backend_name("pipx");
    }
    backend_type
        .disable_key()
        .is_some_and(is_disabled_backend_name)
}

pub fn ensure_backend_enabled(backend_type: &BackendType) -> Result<()> {
    if is_disabled_backend_type(backend_type) {
        bail!("backend {backend_type} is disabled by disable_backends");
    }
    Ok(())
}

fn is_disabled_backend_name(backend: &str) -> bool {
    Settings::get()
        .disable_backends
        .iter()
        .any(|disabled| disabled == backend)
}

pub fn arg_to_backend(ba: BackendArg) -> Option<ABackend> {
    match ba.backend_type() {
        BackendType::Core => crate::plugins::core::get(&ba),
        BackendType::Aqua => Some(Arc::new(aqua::AquaBackend::from_arg(ba))),
        BackendType::Asdf => Some(Arc::new(asdf::AsdfBackend::from_arg(ba))),
        BackendType::Cargo => Some(Arc::new(cargo::CargoBackend::from_arg(ba))),
        BackendType::Conda => Some(Arc::new(conda::CondaBackend::from_arg(ba))),
        BackendType::Dotnet => Some(Arc::new(dotnet::DotnetBackend::from_arg(ba))),
        BackendType::Forgejo => Some(Arc::new(github::UnifiedGitBackend::from_arg(ba))),
        BackendType::Gem => Some(Arc::new(gem::GemBackend::from_arg(ba))),
        BackendType::Github => Some(Arc::new(github::UnifiedGitBackend::from_arg(ba))),
        BackendType::Gitlab => Some(Arc::new(github::UnifiedGitBackend::from_arg(ba))),
        BackendType::Go => Some(Arc::new(go::GoBackend::from_arg(ba))),
        BackendType::Npm => Some(Arc::new(npm::NPMBackend::from_arg(ba))),
        BackendType::Packslip => Some(Arc::new(packslip::PackslipBackend::from_arg(ba))),
        BackendType::Pipx => Some(Arc::new(pipx::PIPXBackend::from_arg(ba))),
        BackendType::Spinel => Some(Arc::new(spinel::SpinelBackend::from_arg(ba))),
        BackendType::Spm => Some(Arc::new(spm::SPMBackend::from_arg(ba))),
        BackendType::Http => Some(Arc::new(http::HttpBackend::from_arg(ba))),
        BackendType::S3 => Some(Arc::new(s3::S3Backend::from_arg(ba))),
        BackendType::Ubi => Some(Arc::new(ubi::UbiBackend::from_arg(ba))),
        BackendType::Vfox => Some(Arc::new(vfox::VfoxBackend::from_arg(ba, None))),
        BackendType::VfoxBackend(plugin_name) => {
            // The name is joined onto the plugins directory, where its Lua is loaded from.
            if !file::is_plain_file_name(&plugin_name) {
                warn_once!("{plugin_name} is not a valid plugin name");
                return None;
            }
            Some(Arc::new(vfox::VfoxBackend::from_arg(ba, Some(plugin_name))))
        }
        BackendType::Unknown => None,
    }
}

/// Returns backend option keys whose cached values should be replaced by current config.
///
/// Most keys affect installation/download identity, but backend-specific lists may also
/// include layout options that are stored in the install manifest and should not be
/// reused from stale cached options when config provides its own options.
pub(crate) fn install_time_option_keys_for_type(backend_type: &BackendType) -> Vec<String> {
    match backend_type {
        BackendType::Http => http::install_time_option_keys(),
        BackendType::S3 => s3::install_time_option_keys(),
        BackendType::Github | BackendType::Gitlab | BackendType::Forgejo => {
            github::install_time_option_keys()
        }
        BackendType::Ubi => ubi::install_time_option_keys(),
        BackendType::Cargo => cargo::install_time_option_keys(),
        BackendType::Go => go::install_time_option_keys(),
        BackendType::Npm => npm::install_time_option_keys(),
        BackendType::Packslip => packslip::install_time_option_keys(),
        BackendType::Pipx => pipx::install_time_option_keys(),
        BackendType::Aqua => aqua::install_time_option_keys(),
        BackendType::Spinel => spinel::install_time_option_keys(),
        BackendType::Spm => spm::install_time_option_keys(),
        _ => vec![],
    }
}

/// Returns true if a backend option's cached value should be replaced by current config.
pub(crate) fn is_install_time_option_key_for_type(backend_type: &BackendType, key: &str) -> bool {
    if matches!(backend_type, BackendType::Aqua) {
        return aqua::is_install_time_option_key(key);
    }

    let install_time_keys = install_time_option_keys_for_type(backend_type);
    install_time_keys.iter().any(|itk| itk == key)
        || install_time_keys
            .iter()
            .any(|itk| key.starts_with("platforms.") && key.ends_with(&format!(".{itk}")))
}

/// The options a backend reads, as documented by the named `schema/mise.json` definitions
/// (`schema_matches_parser` keeps those in step with the parser). Any other option is an
/// error, so only a backend whose options are a fixed set should declare one.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    schema_defs: &'static [&'static str],
    /// The schema definitions for the options a platform override may carry. A backend that
    /// has none accepts anything it knows at the top level.
    platform_defs: &'static [&'static str],
}

impl OptionSpec {
    pub const fn new(schema_defs: &'static [&'static str]) -> Self {
        Self {
            schema_defs,
            platform_defs: &[],
        }
    }

    pub const fn with_platforms(
        schema_defs: &'static [&'static str],
        platform_defs: &'static [&'static str],
    ) -> Self {
        Self {
            schema_defs,
            platform_defs,
        }
    }

    fn platform_schema_keys(def: &str) -> HashSet<String> {
        crate::config::schema::SCHEMA["$defs"][def]["additionalProperties"]["properties"]
            .as_object()
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn schema_keys(def: &str) -> HashSet<String> {
        crate::config::schema::SCHEMA["$defs"][def]["properties"]
            .as_object()
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The options every tool may carry, whatever its backend.
    fn shared_keys() -> HashSet<String> {
        Self::schema_keys("tool_options")
            .into_iter()
            .chain(
                crate::toolset::EPHEMERAL_OPT_KEYS
                    .iter()
                    .chain(&["lazy", "lazy_bins", "os", "depends", "install_env"])
                    .map(|k| k.to_string()),
            )
            .collect()
    }

    fn known_keys(&self, backend_type: &BackendType) -> HashSet<String> {
        self.schema_defs
            .iter()
            .flat_map(|def| Self::schema_keys(def))
            .chain(Self::shared_keys())
            .chain(install_time_option_keys_for_type(backend_type))
            .collect()
    }

    fn is_known(known: &HashSet<String>, key: &str) -> bool {
        known.contains(key) || Self::is_flat_platform(known, key)
    }

    /// The flat per-platform form of an option the backend reads in a platform override:
    /// `platform_<os>_<arch>_<key>`.
    fn is_flat_platform(platform_known: &HashSet<String>, key: &str) -> bool {
        key.strip_prefix("platforms_")
            .or_else(|| key.strip_prefix("platform_"))
            .is_some_and(|rest| {
                platform_known.iter().any(|k| {
                    rest.strip_suffix(k.as_str())
                        .and_then(|p| p.strip_suffix('_'))
                        .is_some_and(|platform| platform.contains(['_', '-']))
                })
            })
    }

    /// Returns the options that are not known, including those inside `platforms`.
    pub(crate) fn unknown_keys(
        &self,
        backend_type: &BackendType,
        opts: &ToolVersionOptions,
    ) -> Vec<String> {
        let known = self.known_keys(backend_type);
        // A backend that declares no platform options reads none from a platform override, so
        // only the options every tool shares are accepted there.
        let platform_known = if self.platform_defs.is_empty() {
            Self::shared_keys()
        } else {
            self.platform_defs
                .iter()
                .flat_map(|def| Self::platform_schema_keys(def))
                .collect()
        };
        let mut unknown = vec![];
        for (key, value) in &opts.opts {
            if key == "platforms" || key == "platform" {
                for platform in value.as_table().into_iter().flat_map(|t| t.values()) {
                    for inner in platform.as_table().into_iter().flat_map(|t| t.keys()) {
                        if !Self::is_known(&platform_known, inner) {
                            unknown.push(format!("{key}.{inner}"));
                        }
                    }
                }
            } else if !known.contains(key) && !Self::is_flat_platform(&platform_known, key) {
                unknown.push(key.clone());
            }
        }
        unknown.sort();
        unknown.dedup();
        unknown
    }

    /// Fails on the first unknown option, other than the `allowed` keys, such as the ones a
    /// tool stub file adds to a tool's options.
    pub(crate) fn check(
        &self,
        tool: &str,
        backend_type: &BackendType,
        opts: &ToolVersionOptions,
        allowed: &[&str],
    ) -> eyre::Result<()> {
        if let Some(key) = self.unknown_keys(backend_type, opts).iter().find(|key| {
            let name = key.rsplit('.').next().unwrap_or(key);
            !allowed.contains(&name)
        }) {
            bail!(
                "{tool}: option `{key}` is not used by the {backend_type} backend\n\
                hint: Remove it, or check the spelling against the backend's documented options"
            );
        }
        Ok(())
    }
}

/// Normalize idiomatic file contents by removing comments and empty lines.
/// Full-line and inline comments are supported by .python-version, .nvmrc, etc.
pub(crate) fn normalize_idiomatic_contents(contents: &str) -> String {
    // Dropping a byte-order mark is normalisation too, and this is the only place every
    // plain-text idiomatic reader passes through. `trim` below does not do it: U+FEFF does not
    // carry the Unicode `White_Space` property, so the mark would ride along into the version and
    // out into a download URL. See `file::strip_utf8_bom`.
    file::strip_utf8_bom(contents)
        .lines()
        .filter_map(|line| {
            let trimmed = line.trim();

            // Skip empty lines or lines that are entirely comments
            if trimmed.is_empty() || trimmed.starts_with('#') {
                return None;
            }

            // Find an inline comment marked by a `#` preceded by whitespace, preserving valid `#` chars in versions like `tool#tag`
            let comment_idx = trimmed.char_indices().find_map(|(i, c)| {
                if c == '#' && trimmed[..i].ends_with(char::is_whitespace) {
                    Some(i)
                } else {
                    None
                }
            });

            // Strip the inline comment if found, otherwise retain the whole trimmed string
            let without_inline = if let Some(idx) = comment_idx {
                trimmed[..idx].trim()
            } else {
                trimmed
            };

            // Double check the line hasn't become empty after stripping the comment
            if without_inline.is_empty() {
                None
            } else {
                Some(without_inline)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_registry_idiomatic_file(
    path: &Path,
    spec: &RegistryIdiomaticFile,
) -> Result<Option<Vec<String>>> {
    if !spec.has_parser() {
        return Ok(None);
    }
    let contents = file::read_to_string(path)?;
    // These parsers see the raw body rather than `normalize_idiomatic_contents`, so the mark has
    // to come off here: an anchored pattern such as `(?m)^\s*version\s*:` simply stops matching.
    let contents = file::strip_utf8_bom(&contents);
    version_list::parse_version_list(
        contents,
        spec.version_regex,
        spec.version_json_path,
        spec.version_expr,
    )
    .map(Some)
}

fn parse_matching_registry_idiomatic_file(
    path: &Path,
    specs: &[RegistryIdiomaticFile],
) -> Result<Option<Vec<String>>> {
    match specs
        .iter()
        .filter(|spec| path.ends_with(spec.path))
        .max_by_key(|spec| Path::new(spec.path).components().count())
        .filter(|spec| spec.has_parser())
    {
        Some(spec) => match spec.deprecated {
            // The file's only parser reads a value mise should not be installing from.
            // Opting in early means it yields nothing -- `Some(vec![])` rather than
            // `None`, so the backend's plain-text fallback doesn't read the whole file.
            Some(_) if Settings::get().idiomatic_version_file_ignore_minimum_versions => {
                Ok(Some(vec![]))
            }
            Some(reason) => {
                let versions = parse_registry_idiomatic_file(path, spec)?;
                // Only warn when the file actually resolved something, so a project
                // that merely has the file lying around stays quiet.
                if versions
                    .as_ref()
                    .is_some_and(|versions| !versions.is_empty())
                {
                    // The path is the id so two deprecated files can't silence each
                    // other, and it already names the file in the warning.
                    let id = spec.path;
                    deprecated_at!(
                        "2026.8.10",
                        "2026.11.0",
                        id,
                        "{reason} mise will stop reading it as an idiomatic version file; set the version in mise.toml instead."
                    );
                }
                Ok(versions)
            }
            None => parse_registry_idiomatic_file(path, spec),
        },
        None => Ok(None),
    }
}

/// Whether `path` is the running mise binary, including symlinks and hard links.
fn is_mise_binary(path: &Path) -> bool {
    same_file::is_same_file(path, env::MISE_BIN.as_path()).unwrap_or(false)
}

/// Internal commands must not re-enter mise through its dispatch directories or binary.
fn which_non_pristine_executable(bin: &str) -> Option<PathBuf> {
    which_non_pristine_executable_in(bin, &env::PATH_NON_PRISTINE)
}

fn which_non_pristine_executable_in(bin: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    file::executable_names(bin).into_iter().find_map(|name| {
        dirs.iter()
            .filter(|dir| !file::is_mise_dispatch_dir(dir))
            .filter_map(|dir| std::path::absolute(dir.join(&name)).ok())
            .find(|candidate| {
                candidate.is_file() && file::is_spawnable(candidate) && !is_mise_binary(candidate)
            })
    })
}

/// On macOS's default case-insensitive volume `dir/python` also opens `dir/Python`, so a
/// lookup for an interpreter can land on an unrelated file (aws-cli's embedded `Python`
/// dylib). A spawnable lookup is a statement about a program the tool ships under that
/// name, so require the directory entry to match the requested case exactly. Elsewhere
/// the filesystem already does this (Linux) or case-insensitivity is the intended
/// semantics (Windows `PATHEXT`).
fn has_exact_case_entry(path: &Path) -> bool {
    if !cfg!(target_os = "macos") {
        return true;
    }
    let Some(name) = path.file_name() else {
        return true;
    };
    // An empty PATH component joins to a bare name whose parent is `""`: the cwd.
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.any(|e| e.is_ok_and(|e| e.file_name() == name)),
        Err(_) => true,
    }
}

/// Resolve `bin` inside `dirs`, in the order the OS itself resolves: directory-major,
/// extension-minor.
///
/// `spawnable` picks the predicate, and the distinction is the whole point:
///
/// * `false` — the historical "looks executable" test. On Windows that deliberately
///   accepts a shebang-only script and a `.ps1`, because it answers *"does this tool
///   provide this bin"* for `mise which`, shims, auto-install and tool-stubs. Not to be
///   narrowed.
/// * `true` — [`is_spawnable`], i.e. *"can the OS launch this"*. Crucially it keeps
///   searching **past** a candidate it rejects, so `None` means "nothing spawnable
///   exists" rather than "the first thing I looked at was not spawnable".
///
/// Directory-major only matters on Windows, where [`file::executable_names`] yields several
/// candidates per directory. It is the order `CreateProcess`+`PATHEXT`, `cmd.exe` and the
/// `which` crate all use, and the order [`Backend::which`] has always used. It diverges
/// from [`which_non_pristine_executable`], which is *name-major* — the bare name is tried
/// across the whole PATH before any extension — and that one is left alone. Only
/// directory-major resolves the case this exists for: mise's own node install ships a
/// shebang `npm` and an `npm.cmd` side by side in one directory, with no `npm.exe`.
///
/// On unix `file::executable_names` returns exactly one name, so both orders are the same
/// traversal and this degenerates to `file::_which` with a different predicate.
fn which_in_dirs<I>(dirs: I, bin: &str, spawnable: bool) -> Option<PathBuf>
where
    I: IntoIterator<Item = PathBuf>,
{
    let names = file::executable_names(bin);
    dirs.into_iter().find_map(|dir| {
        names.iter().map(|name| dir.join(name)).find(|candidate| {
            // is_file() first: a directory has the x bit set, so a tool that ships a
            // `skills/` dir would otherwise shadow another tool's `skills` binary.
            candidate.is_file()
                && if spawnable {
                    file::is_spawnable(candidate) && has_exact_case_entry(candidate)
                } else {
                    file::is_executable(candidate)
                }
        })
    })
}

/// PATH-side counterpart of [`which_non_pristine_executable`], narrowed to what the OS can
/// actually spawn.
///
/// Non-pristine to match that function, which is what [`Backend::dependency_which`] uses.
/// The "a mise-managed tool beats a system one" contract that
/// `e2e/backend/test_pipx_direct_dependencies` asserts comes from consulting the toolset
/// first in [`Backend::spawnable_dependency`], not from the PATH flavor, so it is kept.
///
/// mise's shim directories are skipped on Windows. A shim re-enters mise, and once a
/// resolved absolute path is handed to `Command::new` the child PATH no longer gets a
/// vote, so a shim that the child PATH would have shadowed must not win —
/// [`file::which_no_shims`] exists for the same reason. Unlike internal command lookups,
/// unix dependency lookups still allow shim directories here.
///
/// The skip is not free for callers that treat `None` as fatal. Through
/// [`Backend::spawn_program`] a miss falls back to the bare name, i.e. today's code path.
/// Through [`Backend::spawnable_dependency`] it is a gate, so a tool reachable *only* via a
/// mise shim — installed by mise yet declared in no active config, so the dependency
/// toolset does not have it either — now reports its install instructions instead of
/// re-entering mise through the shim. That trade is deliberate: the alternative is
/// spawning our own shim from inside an install, and the instructions are correct advice
/// for a tool that is installed but unconfigured.
fn which_non_pristine_spawnable(bin: &str) -> Option<PathBuf> {
    let skip_shims = cfg!(windows);
    let dirs = env::PATH_NON_PRISTINE
        .iter()
        .filter(|p| !skip_shims || !file::is_mise_dispatch_dir(p))
        .cloned();
    which_in_dirs(dirs, bin, true)
}

pub(crate) fn which_no_shims_spawnable(bin: &str) -> Option<PathBuf> {
    let dirs = env::PATH_NON_PRISTINE
        .iter()
        .filter(|p| !file::is_mise_dispatch_dir(p))
        .cloned();
    which_in_dirs(dirs, bin, true)
}

/// [`which_no_shims_spawnable`] over an explicit PATH value instead of the inherited one.
pub(crate) fn which_in_path_value_no_shims_spawnable(
    bin: &str,
    path: &std::ffi::OsStr,
) -> Option<PathBuf> {
    let dirs = std::env::split_paths(path)
        .filter(|p| !file::is_mise_dispatch_dir(p))
        .collect::<Vec<_>>();
    which_in_dirs(dirs, bin, true)
}

pub(crate) async fn configured_toolset_or_path_which(
    config: &Arc<Config>,
    tools: impl IntoIterator<Item = String>,
    bin: &str,
) -> Result<Option<PathBuf>> {
    let filtered = config
        .get_tool_request_set()
        .await?
        .filter_by_tool(tools.into_iter().collect::<std::collections::HashSet<_>>());
    if !filtered.tools.is_empty() {
        let mut ts = filtered.into_toolset();
        Box::pin(ts.resolve(config)).await?;
        if let Some(bin) = ts.which_bin(config, bin).await {
            return Ok(Some(bin));
        }
    }
    Ok(which_non_pristine_executable(bin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{BackendArg, BackendResolution};
    use crate::toolset::{ToolRequest, ToolSource, ToolVersionList};
    use regex::Regex;
    use std::fs;
    use std::sync::Arc;
    use std::time::{SystemTime, UNIX_EPOCH};

    #[cfg(unix)]
    #[test]
    fn internal_lookup_skips_a_foreign_mise_shim() {
        let outer_shims = tempfile::tempdir().unwrap();
        let real_bin = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&*env::MISE_BIN, outer_shims.path().join("sops")).unwrap();
        let sops = real_bin.path().join("sops");
        fs::write(&sops, "#!/bin/sh\n").unwrap();
        file::make_executable(&sops).unwrap();
        let dirs = vec![
            outer_shims.path().to_path_buf(),
            real_bin.path().to_path_buf(),
        ];
        assert_eq!(which_non_pristine_executable_in("sops", &dirs), Some(sops));
    }

    #[cfg(unix)]
    #[test]
    fn internal_lookup_rejects_a_foreign_mise_shim_without_a_fallback() {
        let outer_shims = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&*env::MISE_BIN, outer_shims.path().join("sops")).unwrap();
        assert_eq!(
            which_non_pristine_executable_in("sops", &[outer_shims.path().to_path_buf()]),
            None
        );
    }

    #[test]
    fn internal_lookup_skips_a_foreign_mise_hard_link() {
        let dir = tempfile::tempdir_in(env::MISE_BIN.parent().unwrap()).unwrap();
        let outer_shims = dir.path().join("outer-shims");
        let real_bin = dir.path().join("real-bin");
        fs::create_dir_all(&outer_shims).unwrap();
        fs::create_dir_all(&real_bin).unwrap();
        let name = format!("sops{}", std::env::consts::EXE_SUFFIX);
        fs::hard_link(env::MISE_BIN.as_path(), outer_shims.join(&name)).unwrap();
        let sops = real_bin.join(&name);
        fs::write(&sops, "#!/bin/sh\n").unwrap();
        file::make_executable(&sops).unwrap();

        assert_eq!(
            which_non_pristine_executable_in("sops", &[outer_shims.clone(), real_bin]),
            Some(sops)
        );
        assert_eq!(
            which_non_pristine_executable_in("sops", &[outer_shims]),
            None
        );
    }

    #[cfg(windows)]
    #[test]
    fn internal_lookup_rejects_interpreter_only_extensions() {
        for name in ["sops.ps1", "sops.vbs"] {
            let dir = tempfile::tempdir().unwrap();
            let script = dir.path().join(name);
            fs::write(&script, "exit 42\n").unwrap();
            assert!(file::is_executable(&script));
            assert_eq!(
                which_non_pristine_executable_in("sops", &[dir.path().to_path_buf()]),
                None
            );
        }
    }

    #[cfg(windows)]
    #[test]
    fn internal_lookup_skips_a_bare_script_for_native_fallback() {
        let scripts = tempfile::tempdir().unwrap();
        let native = tempfile::tempdir().unwrap();
        fs::write(
            scripts.path().join("sops"),
            "#!/usr/bin/env bash\nexit 42\n",
        )
        .unwrap();
        let sops = native.path().join("sops.cmd");
        fs::write(&sops, "@echo off\r\n").unwrap();

        assert_eq!(
            which_non_pristine_executable_in(
                "sops",
                &[scripts.path().to_path_buf(), native.path().to_path_buf()]
            ),
            Some(sops)
        );
        assert_eq!(
            which_non_pristine_executable_in("sops", &[scripts.path().to_path_buf()]),
            None
        );
    }

    #[test]
    fn test_release_tag_from_url_reads_the_listed_tag() {
        let repo = "https://github.com/kubernetes-sigs/kustomize";
        assert_eq!(
            release_tag_from_url(
                "https://github.com/kubernetes-sigs/kustomize/releases/tag/kustomize/v5.8.1",
                repo
            )
            .as_deref(),
            Some("kustomize/v5.8.1")
        );
        // A transferred repository changes case; the tag is the same release.
        assert_eq!(
            release_tag_from_url(
                "https://github.com/mobile-dev-inc/Maestro/releases/tag/cli-2.6.0",
                "https://github.com/mobile-dev-inc/maestro"
            )
            .as_deref(),
            Some("cli-2.6.0")
        );
        // Another repository's release, or not a release page, names no tag here.
        for url in [
            "https://github.com/kubernetes-sigs/kustomize-other/releases/tag/v1",
            "https://github.com/someone/kustomize/releases/tag/v5.8.1",
            "https://github.com/kubernetes-sigs/kustomize/releases/tag/",
            "https://github.com/kubernetes-sigs/kustomize/releases/download/v1/a.tgz",
            "https://gitlab.com/kubernetes-sigs/kustomize/-/releases/v1",
        ] {
            assert_eq!(release_tag_from_url(url, repo), None, "{url}");
        }
    }

    #[test]
    fn test_installed_replaces_seed_but_not_later_entry() {
        // Only key presence matters, so this stands in for the seeded BackendMap.
        let seeded: BTreeMap<String, ()> = [("node".to_string(), ())].into_iter().collect();
        // A core/registry seed yields to the installed tool's recorded identity.
        assert!(installed_replaces(&seeded, "node"));
        // An entry `get` resolved after load_tools may carry command-scoped
        // options, so it is left alone.
        assert!(!installed_replaces(&seeded, "mytool"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn test_list_and_get_survive_concurrent_reset() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        const READERS: usize = 4;
        // reset() rebuilds the shared cache from the current settings.
        let _settings = crate::test::SettingsGuard::lock();
        load_tools().await.unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let reads = Arc::new(AtomicUsize::new(0));
        // Hold the resets until every reader is running, so the readers cannot
        // all start after the loop has finished and pass without reading.
        let ready = Arc::new(std::sync::Barrier::new(READERS + 1));
        let readers = (0..READERS)
            .map(|_| {
                let (stop, reads, ready) = (stop.clone(), reads.clone(), ready.clone());
                std::thread::spawn(move || {
                    let ba = BackendArg::from("node");
                    ready.wait();
                    while !stop.load(Ordering::SeqCst) {
                        list();
                        get(&ba);
                        reads.fetch_add(1, Ordering::SeqCst);
                    }
                })
            })
            .collect::<Vec<_>>();
        tokio::task::block_in_place(|| ready.wait());
        for _ in 0..200 {
            reset().await.unwrap();
        }
        let reads_during_reset = reads.load(Ordering::SeqCst);
        stop.store(true, Ordering::SeqCst);
        for reader in readers {
            reader.join().expect("reader panicked during reset");
        }
        assert!(reads_during_reset > 0, "no reader ran while resetting");
    }

    fn create_test_backend_arg(tool: &str) -> Arc<BackendArg> {
        Arc::new(BackendArg::new_raw(
            tool.to_string(),
            None,
            tool.to_string(),
            None,
            BackendResolution::new(true),
        ))
    }

    fn create_test_tool_request(ba: Arc<BackendArg>, version: &str) -> ToolRequest {
        ToolRequest::new(ba, version, ToolSource::Argument).unwrap()
    }

    #[test]
    fn test_normalize_idiomatic_contents() {
        assert_eq!(normalize_idiomatic_contents("tool # and a comment"), "tool");
        assert_eq!(normalize_idiomatic_contents("tool#tag"), "tool#tag");
        assert_eq!(
            normalize_idiomatic_contents("tool#tag # comment"),
            "tool#tag"
        );
        assert_eq!(normalize_idiomatic_contents("   # full line comment"), "");
        assert_eq!(
            normalize_idiomatic_contents("3.12.3\n3.11.11"),
            "3.12.3\n3.11.11"
        );
        assert_eq!(
            normalize_idiomatic_contents("3.12.3 # inline\n# comment\n3.11.11"),
            "3.12.3\n3.11.11"
        );
        assert_eq!(
            normalize_idiomatic_contents("# full line comment\n3.14.2 # inline comment\n   \n\n"),
            "3.14.2"
        );
        // A byte-order mark is what Notepad leaves at the front of a file. `trim` does not remove
        // it, so without the strip the version below carries the mark into a download URL.
        assert_eq!(normalize_idiomatic_contents("\u{feff}20.0.0"), "20.0.0");
        // Only a *leading* mark is a mark; anywhere else it is content and must survive.
        assert_eq!(
            normalize_idiomatic_contents("20.0.0\n\u{feff}18.0.0"),
            "20.0.0\n\u{feff}18.0.0"
        );
    }

    #[test]
    #[cfg(windows)]
    fn which_in_dirs_skips_shebang_script_for_node_npm_layout() {
        // The exact on-disk shape of installs\node\<version>: a bare `npm` that is a
        // `#!/usr/bin/env bash` script, an `npm.cmd`, an `npm.ps1`, and no `npm.exe`. On
        // Windows the node plugin puts that directory itself on PATH.
        //
        // The paired assertion is the point. The permissive predicate answers with the
        // bash script, because `executable_names` puts the bare name first and
        // `file::is_executable` accepts a shebang — and that is precisely why
        // `NPM_PROGRAM = "npm.cmd"` had to be hardcoded. The spawnable predicate walks
        // past it to `npm.cmd`, which is what makes the hardcode removable.
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("npm"), "#!/usr/bin/env bash\nexit 0\n").unwrap();
        fs::write(dir.path().join("npm.cmd"), "@echo off\n").unwrap();
        fs::write(dir.path().join("npm.ps1"), "exit 0\n").unwrap();
        fs::write(dir.path().join("node.exe"), "MZ").unwrap();

        let dirs = || vec![dir.path().to_path_buf()];
        assert_eq!(
            which_in_dirs(dirs(), "npm", false),
            Some(dir.path().join("npm")),
            "the permissive predicate still answers with the shebang script"
        );
        assert_eq!(
            which_in_dirs(dirs(), "npm", true),
            Some(dir.path().join("npm.cmd")),
            "the spawnable predicate has to walk past it to npm.cmd"
        );
    }

    #[test]
    #[cfg(windows)]
    fn which_in_dirs_rejects_interpreter_only_extensions() {
        // A .ps1 needs `pwsh -File` and a .vbs needs wscript/cscript, so neither can be
        // handed to Command::new — but both extensions are in the default
        // windows_executable_extensions list, so the permissive predicate accepts them.
        //
        // Casing is deliberately not exercised here: `which_in_dirs` builds its candidates
        // from `executable_names`, whose entries are always lowercase, so the guard would
        // never see an uppercase extension through this path however the file is named on a
        // case-insensitive filesystem. See
        // `is_spawnable_rejects_interpreter_only_extensions_case_insensitively`.
        for name in ["pipx.ps1", "pipx.vbs"] {
            let dir = tempfile::tempdir().unwrap();
            fs::write(dir.path().join(name), "exit 42\n").unwrap();
            let dirs = || vec![dir.path().to_path_buf()];
            assert!(
                which_in_dirs(dirs(), "pipx", false).is_some(),
                "{name} must still satisfy the permissive predicate"
            );
            assert_eq!(
                which_in_dirs(dirs(), "pipx", true),
                None,
                "{name} cannot be spawned directly"
            );
        }
    }

    #[test]
    #[cfg(windows)]
    fn which_in_dirs_prefers_exe_over_cmd_within_a_directory() {
        // `executable_names` orders by the settings list, where `exe` precedes `cmd`.
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("tool.cmd"), "@echo off\n").unwrap();
        fs::write(dir.path().join("tool.exe"), "MZ").unwrap();
        assert_eq!(
            which_in_dirs(vec![dir.path().to_path_buf()], "tool", true),
            Some(dir.path().join("tool.exe"))
        );
    }

    #[test]
    #[cfg(windows)]
    fn which_in_dirs_is_directory_major() {
        // Pins the ordering decision. `which_non_pristine_executable` is name-major and
        // would answer dir_b/tool.exe here, because it tries every directory for one name
        // before moving to the next name. This resolver is directory-major, like
        // CreateProcess+PATHEXT and like Backend::which, so the earlier directory wins even
        // though its candidate has a later extension.
        let dir_a = tempfile::tempdir().unwrap();
        let dir_b = tempfile::tempdir().unwrap();
        fs::write(dir_a.path().join("tool.cmd"), "@echo off\n").unwrap();
        fs::write(dir_b.path().join("tool.exe"), "MZ").unwrap();
        assert_eq!(
            which_in_dirs(
                vec![dir_a.path().to_path_buf(), dir_b.path().to_path_buf()],
                "tool",
                true
            ),
            Some(dir_a.path().join("tool.cmd"))
        );
    }

    #[test]
    #[cfg(windows)]
    fn is_spawnable_rejects_interpreter_only_extensions_case_insensitively() {
        // The casing guard inside `can_execute_directly`, exercised where it is actually
        // reachable: with a path read off disk rather than one built from
        // `executable_names`. `task::task_executor` hands it exactly such a path when
        // deciding whether a file task can be executed directly, so an uppercase `.PS1`
        // there must be rejected — Windows extensions are case-insensitive while the guard
        // compares strings.
        //
        // The paired `is_executable` assertion is the point: these files do look executable
        // (their extensions are in windows_executable_extensions), which is why the spawn
        // side needs a predicate of its own.
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.ps1", "b.PS1", "c.vbs", "d.VBS"] {
            let path = dir.path().join(name);
            fs::write(&path, "exit 0\n").unwrap();
            assert!(!file::is_spawnable(&path), "{name} must not be spawnable");
            assert!(
                file::is_executable(&path),
                "{name} should still satisfy the permissive predicate"
            );
        }
    }

    #[test]
    #[cfg(unix)]
    fn which_in_path_value_finds_a_binary_on_the_given_path() {
        use std::os::unix::fs::PermissionsExt;

        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("fnox-fixture");
        fs::write(&bin, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        let other = tempfile::tempdir().unwrap();
        let path = std::env::join_paths([other.path(), dir.path()]).unwrap();
        assert_eq!(
            which_in_path_value_no_shims_spawnable("fnox-fixture", &path),
            Some(bin)
        );
        assert_eq!(
            which_in_path_value_no_shims_spawnable("fnox-fixture", other.path().as_os_str()),
            None
        );
    }

    #[test]
    #[cfg(windows)]
    fn which_in_dirs_ignores_missing_candidates() {
        // Guards the is_file() composition in `is_spawnable`. `can_execute_directly` is
        // pure extension inspection on Windows, so without that guard the `tool.exe`
        // candidate answers true for a file that was never created. Removing the guard
        // breaks this test and the node-layout one above, both by returning a path to a
        // file that does not exist.
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            which_in_dirs(vec![dir.path().to_path_buf()], "tool", true),
            None
        );
        assert_eq!(
            which_in_dirs(vec![dir.path().to_path_buf()], "tool", false),
            None
        );
    }

    #[test]
    #[cfg(unix)]
    fn which_in_dirs_skips_directory_in_earlier_dir() {
        // A tool's bin dir can hold a mode-0755 directory named like another tool's
        // binary (hunk ships `skills/`). It passes the x-bit check, so the lookup must
        // reject it and keep walking instead of resolving to something unspawnable.
        use std::os::unix::fs::PermissionsExt;

        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        fs::create_dir(first.path().join("skills")).unwrap();
        let bin = second.path().join("skills");
        fs::write(&bin, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();

        for spawnable in [false, true] {
            assert_eq!(
                which_in_dirs(
                    vec![first.path().to_path_buf(), second.path().to_path_buf()],
                    "skills",
                    spawnable
                ),
                Some(bin.clone()),
                "spawnable={spawnable}"
            );
        }
    }

    #[test]
    #[cfg(unix)]
    fn is_spawnable_matches_is_executable_on_unix() {
        // "unix stays byte-identical" as a checked claim rather than a comment. The
        // directory case is the sharp one: `is_executable` answers true for a mode-0755
        // directory, so an ungated is_file() in `is_spawnable` would silently narrow every
        // unix lookup built on it.
        use std::os::unix::fs::PermissionsExt;

        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        fs::write(&tool, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.path().join("plain");
        fs::write(&plain, "not executable\n").unwrap();
        fs::set_permissions(&plain, fs::Permissions::from_mode(0o644)).unwrap();
        let subdir = dir.path().join("subdir");
        fs::create_dir(&subdir).unwrap();

        assert!(file::is_spawnable(&tool));
        assert!(!file::is_spawnable(&plain));
        assert_eq!(
            file::is_spawnable(&subdir),
            file::is_executable(&subdir),
            "a mode-0755 directory must be answered the same either way"
        );
        assert_eq!(
            which_in_dirs(vec![dir.path().to_path_buf()], "tool", true),
            which_in_dirs(vec![dir.path().to_path_buf()], "tool", false),
            "both predicates agree on unix"
        );
    }

    #[test]
    #[cfg(target_os = "macos")]
    fn which_in_dirs_spawnable_ignores_case_insensitive_match() {
        // aws-cli's pkg payload ships an executable-bit `Python` dylib; on a
        // case-insensitive volume a lookup for `python` must not resolve to it.
        use std::os::unix::fs::PermissionsExt;

        let dir = tempfile::tempdir().unwrap();
        let dylib = dir.path().join("Python");
        fs::write(&dylib, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&dylib, fs::Permissions::from_mode(0o755)).unwrap();
        let dirs = || vec![dir.path().to_path_buf()];
        assert_eq!(which_in_dirs(dirs(), "Python", true), Some(dylib));
        assert_eq!(which_in_dirs(dirs(), "python", true), None);
    }

    #[test]
    fn test_parse_registry_idiomatic_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tool.json");
        fs::write(
            &path,
            r#"{"releases":[{"channel":"beta","version":"2.0.0"},{"channel":"stable","version":"1.2.3"}]}"#,
        )
        .unwrap();
        let spec = RegistryIdiomaticFile {
            path: "tool.json",
            version_regex: None,
            version_json_path: Some(".releases[?channel=stable].version"),
            version_expr: None,
            deprecated: None,
        };

        assert_eq!(
            parse_registry_idiomatic_file(&path, &spec).unwrap(),
            Some(vec!["1.2.3".to_string()])
        );
    }

    #[test]
    fn test_parse_matching_registry_idiomatic_file_uses_relative_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("subdir/tool.json");
        fs::create_dir(path.parent().unwrap()).unwrap();
        fs::write(&path, r#"{"version":"1.2.3"}"#).unwrap();
        let specs = [RegistryIdiomaticFile {
            path: "subdir/tool.json",
            version_regex: None,
            version_json_path: Some(".version"),
            version_expr: None,
            deprecated: None,
        }];

        assert_eq!(
            parse_matching_registry_idiomatic_file(&path, &specs).unwrap(),
            Some(vec!["1.2.3".to_string()])
        );
    }

    #[test]
    fn test_parse_matching_registry_idiomatic_file_overrides_package_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("package.json");
        fs::write(&path, r#"{"tool":{"version":"4.5.6"}}"#).unwrap();
        let specs = [RegistryIdiomaticFile {
            path: "package.json",
            version_regex: None,
            version_json_path: Some(".tool.version"),
            version_expr: None,
            deprecated: None,
        }];

        assert_eq!(
            parse_matching_registry_idiomatic_file(&path, &specs).unwrap(),
            Some(vec!["4.5.6".to_string()])
        );
    }

    #[test]
    fn test_registry_idiomatic_file_without_parser_uses_backend_fallback() {
        let spec = RegistryIdiomaticFile {
            path: ".tool-version",
            version_regex: None,
            version_json_path: None,
            version_expr: None,
            deprecated: None,
        };

        assert_eq!(
            parse_registry_idiomatic_file(Path::new("does-not-need-to-exist"), &spec).unwrap(),
            None
        );
    }

    #[test]
    fn test_toolset_semver_version_prefers_resolved_version() {
        let ba = create_test_backend_arg("bun");
        let request = create_test_tool_request(ba.clone(), "1.2.0");
        let mut tvl = ToolVersionList::new(ba.clone(), ToolSource::Argument);
        tvl.requests.push(request.clone());
        tvl.versions
            .push(ToolVersion::new(request, "1.3.0".to_string()));

        let mut ts = Toolset::default();
        ts.versions.insert(ba, tvl);

        assert_eq!(
            toolset_semver_version(&ts, "bun"),
            Some("1.3.0".to_string())
        );
    }

    #[test]
    fn test_toolset_semver_version_uses_exact_request() {
        let ba = create_test_backend_arg("pnpm");
        let request = create_test_tool_request(ba.clone(), "10.15.0");
        let mut tvl = ToolVersionList::new(ba.clone(), ToolSource::Argument);
        tvl.requests.push(request);

        let mut ts = Toolset::default();
        ts.versions.insert(ba, tvl);

        assert_eq!(
            toolset_semver_version(&ts, "pnpm"),
            Some("10.15.0".to_string())
        );
    }

    #[test]
    fn test_toolset_semver_version_ignores_unresolved_request() {
        let ba = create_test_backend_arg("pnpm");
        let request = create_test_tool_request(ba.clone(), "10");
        let mut tvl = ToolVersionList::new(ba.clone(), ToolSource::Argument);
        tvl.requests.push(request);

        let mut ts = Toolset::default();
        ts.versions.insert(ba, tvl);

        assert_eq!(toolset_semver_version(&ts, "pnpm"), None);
    }

    #[test]
    fn test_toolset_semver_version_normalizes_v_prefix() {
        let ba = create_test_backend_arg("pnpm");
        let request = create_test_tool_request(ba.clone(), "v10.15.0");
        let mut tvl = ToolVersionList::new(ba.clone(), ToolSource::Argument);
        tvl.requests.push(request);

        let mut ts = Toolset::default();
        ts.versions.insert(ba, tvl);

        assert_eq!(
            toolset_semver_version(&ts, "pnpm"),
            Some("10.15.0".to_string())
        );
    }

    #[test]
    fn test_parse_cli_version_output() {
        assert_eq!(
            parse_cli_version_output("10.15.0\n"),
            Some("10.15.0".to_string())
        );
        assert_eq!(
            parse_cli_version_output("v1.3.0"),
            Some("1.3.0".to_string())
        );
        assert_eq!(
            parse_cli_version_output("uv 0.2.22"),
            Some("0.2.22".to_string())
        );
        assert_eq!(parse_cli_version_output("not-a-version"), None);
    }

    #[test]
    fn test_remote_version_listing_opts_are_backend_specific() {
        use crate::toolset::{ResolvedToolOptions, ToolOptionSource, ToolVersionOptions};

        let mut install_only_opts = ToolVersionOptions::default();
        install_only_opts.opts.insert(
            "asset_pattern".to_string(),
            toml::Value::String("tool-{{version}}.tar.gz".into()),
        );
        let mut resolved = ResolvedToolOptions::default();
        resolved.apply_overrides(&install_only_opts, ToolOptionSource::Config);

        assert!(!has_local_version_listing_option_override(
            &resolved,
            &["api_url", "version_prefix"],
        ));

        let mut listing_opts = ToolVersionOptions::default();
        listing_opts.opts.insert(
            "api_url".to_string(),
            toml::Value::String("https://github.example.com/api/v3".into()),
        );
        resolved.apply_overrides(&listing_opts, ToolOptionSource::Config);

        assert!(has_local_version_listing_option_override(
            &resolved,
            &["api_url", "version_prefix"],
        ));
    }

    #[test]
    fn test_remote_version_listing_opts_ignore_registry_sources() {
        use crate::toolset::{ResolvedToolOptions, ToolOptionSource, ToolVersionOptions};

        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("release-".into()),
        );
        let mut resolved = ResolvedToolOptions::default();
        resolved.apply_overrides(&opts, ToolOptionSource::Registry);

        assert!(!has_local_version_listing_option_override(
            &resolved,
            &["api_url", "version_prefix"],
        ));
    }

    #[test]
    fn test_remote_version_listing_opts_include_install_manifest_sources() {
        use crate::toolset::{ResolvedToolOptions, ToolOptionSource, ToolVersionOptions};

        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("release-".into()),
        );
        let mut resolved = ResolvedToolOptions::default();
        resolved.apply_overrides(&opts, ToolOptionSource::InstallManifest);

        assert!(has_local_version_listing_option_override(
            &resolved,
            &["api_url", "version_prefix"],
        ));
    }

    /// The digest keys a cache, so it has to depend on the values and not on the order the
    /// options happened to be inserted in — `opts` is insertion-ordered.
    #[test]
    fn test_listing_option_digest_is_stable_and_order_independent() {
        use crate::toolset::ToolVersionOptions;

        let keys = &["api_url", "version_prefix"];
        let api_url = || toml::Value::String("https://github.example.com/api/v3".into());
        let prefix = || toml::Value::String("release-".into());

        let mut forward = ToolVersionOptions::default();
        forward.opts.insert("api_url".to_string(), api_url());
        forward.opts.insert("version_prefix".to_string(), prefix());

        let mut reverse = ToolVersionOptions::default();
        reverse.opts.insert("version_prefix".to_string(), prefix());
        reverse.opts.insert("api_url".to_string(), api_url());

        assert_eq!(
            listing_option_digest(&forward, keys),
            listing_option_digest(&reverse, keys),
        );
        assert_eq!(
            listing_option_digest(&forward, keys),
            listing_option_digest(&forward, keys),
        );
    }

    #[test]
    fn test_listing_option_digest_tracks_array_values() {
        use crate::toolset::ToolVersionOptions;

        let with = |names: &[&str]| {
            let mut opts = ToolVersionOptions::default();
            opts.opts.insert(
                "workflow".to_string(),
                toml::Value::Array(
                    names
                        .iter()
                        .map(|n| toml::Value::String(n.to_string()))
                        .collect(),
                ),
            );
            opts
        };
        let keys = &["workflow"];
        assert_ne!(
            listing_option_digest(&with(&["a.yml", "b.yml"]), keys),
            listing_option_digest(&with(&["a.yml"]), keys),
        );
        assert_ne!(
            listing_option_digest(&with(&["a.yml"]), keys),
            listing_option_digest(&ToolVersionOptions::default(), keys),
        );
    }

    /// Every distinction the version listing depends on has to reach the digest, and nothing
    /// else may: an install-time option that cannot change the list must not split the cache.
    #[test]
    fn test_listing_option_digest_tracks_declared_keys_only() {
        use crate::toolset::ToolVersionOptions;

        let keys = &["api_url", "version_prefix"];
        let empty = ToolVersionOptions::default();

        let mut prefix_a = ToolVersionOptions::default();
        prefix_a.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("a-".into()),
        );

        let mut prefix_b = ToolVersionOptions::default();
        prefix_b.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("b-".into()),
        );

        // The defect this guards: two prefixes that produce different listings sharing an entry.
        assert_ne!(
            listing_option_digest(&prefix_a, keys),
            listing_option_digest(&prefix_b, keys),
        );
        assert_ne!(
            listing_option_digest(&empty, keys),
            listing_option_digest(&prefix_a, keys),
        );

        let mut with_install_opt = prefix_a.clone();
        with_install_opt.opts.insert(
            "asset_pattern".to_string(),
            toml::Value::String("tool-{{version}}.tar.gz".into()),
        );
        assert_eq!(
            listing_option_digest(&prefix_a, keys),
            listing_option_digest(&with_install_opt, keys),
        );
    }

    #[test]
    fn test_only_the_preferred_registry_backend_may_use_the_versions_host() {
        // mise-versions publishes one list per short name, built from the preferred
        // backend. A `min_version` boundary routes older requests to a later backend
        // whose versions that list does not describe.
        let preferred = BackendArg::new(
            "hk".to_string(),
            Some("packslip:github.com/jdx/hk".to_string()),
        );
        let fallback = BackendArg::new("hk".to_string(), Some("aqua:jdx/hk".to_string()));

        assert!(backend_arg_is_preferred_registry_backend(&preferred));
        assert!(!backend_arg_is_preferred_registry_backend(&fallback));

        // Inline options still describe the preferred backend.
        let with_opts = BackendArg::new(
            "hk".to_string(),
            Some("packslip:github.com/jdx/hk[bin=hk]".to_string()),
        );
        assert!(backend_arg_is_preferred_registry_backend(&with_opts));
    }

    #[test]
    fn test_explicit_backend_arg_reads_the_list_of_the_registry_tool_preferring_it() {
        let tool = |arg: &str| versions_host_tool(&BackendArg::from(arg), true);

        assert_eq!(tool("jq"), Some("jq"));
        assert_eq!(tool("aqua:jqlang/jq"), Some("jq"));
        // An aqua alias names the package it stands for.
        assert_eq!(tool("aqua:stedolan/jq"), Some("jq"));
        // Inline options are local options, which callers check themselves.
        assert_eq!(tool("aqua:jqlang/jq[symlink_bins=true]"), Some("jq"));
        // A tool's aliases are copies of it, not other tools preferring its backend.
        assert_eq!(
            tool("aqua:google-antigravity/antigravity-cli"),
            Some("antigravity-cli")
        );
        // GitHub ignores the case of a repository.
        assert_eq!(tool("github:allure-framework/allure2"), Some("allure"));
        assert_eq!(tool("github:Allure-Framework/Allure2"), Some("allure"));

        // A later backend of an entry lists other versions than the published list.
        assert_eq!(tool("asdf:mise-plugins/asdf-jq"), None);
        assert_eq!(tool("github:jdx/fnox"), None);
        // crane and go-containerregistry both prefer this backend: no one list to pick.
        assert_eq!(tool("aqua:google/go-containerregistry"), None);
        // The list was generated with `version_prefix = "libsql-server-v"`, which an
        // explicit arg does not inherit.
        assert_eq!(tool("github:tursodatabase/libsql"), None);
        assert_eq!(tool("aqua:example/not-in-the-registry"), None);
    }

    /// No backend type is excluded from the versions host: a registry tool on
    /// the package-registry backends, which an allowlist once skipped, reads
    /// its published list like any other.
    #[test]
    fn test_every_backend_type_may_use_the_versions_host() {
        for tool in [
            "cowsay",       // npm
            "ansible-core", // pipx
            "tokei",        // cargo
            "bashly",       // gem
            "ginkgo",       // go
            "clang-format", // conda
            "danger-swift", // spm
        ] {
            let backend = get(&BackendArg::from(tool)).unwrap();
            assert_eq!(
                backend.versions_host_tool(),
                Ok(tool.to_string()),
                "{tool} on {}",
                backend.get_type()
            );
            assert_eq!(backend.versions_host_skip_reason(), None);
        }
    }

    /// A registry or channel that settings or the environment redirect lists
    /// other versions than the published list, so it makes a cache context,
    /// which keeps the versions host out of the way.
    #[tokio::test]
    async fn test_redirected_sources_make_a_cache_context() {
        use confique::Layer;
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();

        // Conda's versions depend on the platform, which one shared list
        // cannot describe, so it always lists from its channel.
        let platform = rattler_conda_types::Subdir::current().unwrap();
        let conda = get(&BackendArg::from("clang-format")).unwrap();
        assert_eq!(
            conda.remote_version_cache_context(&config).await.unwrap(),
            Some(format!("conda-forge@{platform}"))
        );
        let mut partial = crate::config::settings::SettingsPartial::empty();
        partial.conda.channel = Some("bioconda".to_string());
        Settings::reset(Some(partial));
        assert_eq!(
            conda.remote_version_cache_context(&config).await.unwrap(),
            Some(format!("bioconda@{platform}"))
        );

        let pipx = get(&BackendArg::from("ansible-core")).unwrap();
        let mut partial = crate::config::settings::SettingsPartial::empty();
        partial.pypi.registry_url = Some("https://pypi.example.com/pypi/{}/json".to_string());
        Settings::reset(Some(partial));
        assert!(
            pipx.remote_version_cache_context(&config)
                .await
                .unwrap()
                .is_some()
        );
        Settings::reset(None);
        assert_eq!(
            pipx.remote_version_cache_context(&config).await.unwrap(),
            None
        );

        // The public npm registry is the default; no `.npmrc` here redirects it.
        let npm = get(&BackendArg::from("cowsay")).unwrap();
        assert_eq!(
            npm.remote_version_cache_context(&config).await.unwrap(),
            None
        );
    }

    #[test]
    fn test_explicit_packslip_arg_reads_the_catalog_of_the_registry_tool_preferring_it() {
        let tool = |arg: &str, shape: bool| versions_host_tool(&BackendArg::from(arg), shape);

        // The registry spells the project with its forge host; the arg need not.
        assert_eq!(tool("packslip:github.com/jdx/fnox", false), Some("fnox"));
        assert_eq!(tool("packslip:jdx/fnox", false), Some("fnox"));
        // fnox's preferred backend sets `workflow`, which shapes a generic listing.
        assert_eq!(tool("packslip:jdx/fnox", true), None);
        // The registry entry itself inherits that option, so it keeps its list.
        assert_eq!(tool("fnox", true), Some("fnox"));
    }

    #[test]
    fn test_runtime_path_for_install_path_remaps_install_subpath() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "runtime-remap-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut backend = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        backend.set_installs_path(temp_dir.path().join("installs").join(&short));
        fs::create_dir_all(backend.installs_path())?;

        let install_path = backend.installs_path().join("1.0.1");
        fs::create_dir_all(install_path.join("bin"))?;
        file::make_symlink_or_file(
            Path::new("./1.0.1"),
            &backend.installs_path().join("latest"),
        )?;

        let request = ToolRequest::new(Arc::new(backend), "latest", ToolSource::Argument).unwrap();
        let tv = ToolVersion::new(request, "1.0.1".into());

        assert_eq!(
            runtime_path_for_install_path(&tv, install_path.join("bin")),
            tv.runtime_path().join("bin")
        );

        let external_path = temp_dir.path().join("external").join("bin");
        assert_eq!(
            runtime_path_for_install_path(&tv, external_path.clone()),
            external_path
        );

        Ok(())
    }

    #[test]
    fn test_runtime_path_for_install_path_falls_back_without_symlink() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "runtime-remap-missing-symlink-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut backend = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        backend.set_installs_path(temp_dir.path().join("installs").join(&short));
        fs::create_dir_all(backend.installs_path())?;

        let install_path = backend.installs_path().join("1.0.1");
        fs::create_dir_all(install_path.join("bin"))?;

        let request = ToolRequest::new(Arc::new(backend), "latest", ToolSource::Argument).unwrap();
        let tv = ToolVersion::new(request, "1.0.1".into());

        assert_eq!(
            runtime_path_for_install_path(&tv, install_path.join("bin")),
            install_path.join("bin")
        );

        Ok(())
    }

    #[test]
    fn test_runtime_path_for_exact_install_path_skips_runtime_alias() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "runtime-remap-exact-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut backend = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        backend.set_installs_path(temp_dir.path().join("installs").join(&short));
        fs::create_dir_all(backend.installs_path())?;

        let normal_install = backend.installs_path().join("1.0.1");
        fs::create_dir_all(normal_install.join("bin"))?;
        file::make_symlink_or_file(
            Path::new("./1.0.1"),
            &backend.installs_path().join("latest"),
        )?;

        let request = ToolRequest::new(Arc::new(backend), "latest", ToolSource::Argument).unwrap();
        let exact_install = temp_dir.path().join("install-into");
        let mut tv = ToolVersion::new(request, "1.0.1".into());
        tv.install_path = Some(exact_install.clone());
        tv.install_path_is_exact = true;

        assert_eq!(
            runtime_path_for_install_path(&tv, exact_install.join("bin")),
            exact_install.join("bin")
        );

        Ok(())
    }

    #[test]
    fn test_runtime_path_for_explicit_install_path_skips_primary_runtime_alias() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "runtime-remap-explicit-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut backend = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        backend.set_installs_path(temp_dir.path().join("user/installs").join(&short));
        fs::create_dir_all(backend.installs_path())?;

        let normal_install = backend.installs_path().join("1.0.1");
        fs::create_dir_all(normal_install.join("bin"))?;
        file::make_symlink_or_file(
            Path::new("./1.0.1"),
            &backend.installs_path().join("latest"),
        )?;

        let request = ToolRequest::new(Arc::new(backend), "latest", ToolSource::Argument).unwrap();
        let explicit_install = temp_dir
            .path()
            .join("system/installs")
            .join(&short)
            .join("content-version");
        let mut tv = ToolVersion::new(request, "1.0.1".into());
        tv.install_path = Some(explicit_install.clone());
        tv.install_path_is_explicit = true;

        assert_eq!(
            runtime_path_for_install_path(&tv, explicit_install.join("bin")),
            explicit_install.join("bin")
        );

        Ok(())
    }

    #[test]
    fn test_runtime_path_for_reresolved_shared_install_skips_primary_runtime_alias() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "runtime-remap-reresolved-shared-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut backend = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        backend.set_installs_path(temp_dir.path().join("user/installs").join(&short));
        fs::create_dir_all(backend.installs_path())?;

        let normal_install = backend.installs_path().join("1.0.0");
        fs::create_dir_all(normal_install.join("bin"))?;
        file::make_symlink_or_file(
            Path::new("./1.0.0"),
            &backend.installs_path().join("latest"),
        )?;

        let request = ToolRequest::new(Arc::new(backend), "latest", ToolSource::Argument).unwrap();
        let shared_install = temp_dir
            .path()
            .join("shared/installs")
            .join(&short)
            .join("1.0.1");
        fs::create_dir_all(shared_install.join("bin"))?;
        let mut tv = ToolVersion::new(request, "1.0.1".into());
        // Re-resolution preserves the discovered path, but not the transient
        // install_path_is_explicit flag from the original install command.
        tv.install_path = Some(shared_install.clone());

        assert_eq!(
            runtime_path_for_install_path(&tv, shared_install.join("bin")),
            shared_install.join("bin")
        );

        Ok(())
    }

    /// The regex-based matcher [`fuzzy_version_matches`] replaced, kept to show
    /// the two agree. Returns a matcher for `query` so each regex compiles once.
    fn fuzzy_version_matcher_by_regex(query: &str) -> impl Fn(&str) -> bool {
        let escaped_query = regex::escape(query);
        let query_pattern = if query == "latest" {
            "v?[0-9].*".to_string()
        } else if query.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v?{escaped_query}")
        } else {
            escaped_query
        };
        let numeric_query = query
            .strip_prefix(['v', 'V'])
            .unwrap_or(query)
            .starts_with(|c: char| c.is_ascii_digit());
        let sep = if query == "latest" || numeric_query {
            "[+\\-.]"
        } else {
            "[\\-.]"
        };
        let query_regex = if query != "latest" && query.ends_with('-') {
            Regex::new(&format!("^{query_pattern}.*$")).unwrap()
        } else {
            Regex::new(&format!("^{query_pattern}({sep}.+)?$")).unwrap()
        };
        let without_v_regex = (query.starts_with('v') || query.starts_with('V')).then(|| {
            let without_v = regex::escape(&query[1..]);
            if query.ends_with('-') {
                Regex::new(&format!("^{without_v}.*$")).unwrap()
            } else {
                Regex::new(&format!("^{without_v}({sep}.+)?$")).unwrap()
            }
        });
        move |version| {
            query_regex.is_match(version)
                || without_v_regex
                    .as_ref()
                    .is_some_and(|re| re.is_match(version))
        }
    }

    #[test]
    fn test_fuzzy_version_matches_agrees_with_the_regexes_it_replaced() {
        let queries = [
            "latest",
            "1",
            "1.2",
            "1.2.3",
            "10",
            "v1",
            "v1.2",
            "V1.2",
            "vv1",
            "v",
            "V",
            "",
            "temurin",
            "temurin-",
            "temurin-21",
            "v-",
            "1-",
            "lts",
            "lts-iron",
            "truffleruby",
            "truffleruby+graalvm",
            "ref:main",
            "3.14.0a1",
            "1.2.",
            "1.2+",
            "a.b",
            "é",
            "1\n",
        ];
        let versions = [
            "",
            "1",
            "1.2",
            "1.2.3",
            "1.20",
            "1.2-rc1",
            "1.2+build",
            "1.2.",
            "1.2-",
            "1.2+",
            "1.2.\n",
            "1.2.x\ny",
            "v1.2",
            "v1.2.3",
            "V1.2",
            "vv1.2",
            "10",
            "10.0",
            "v10.1",
            "1\n",
            "1\nx",
            "temurin-21.0.1",
            "temurin",
            "temurin21",
            "temurin.1",
            "temurin+x",
            "lts",
            "lts-iron",
            "truffleruby-34.0.1",
            "truffleruby+graalvm-34.0.1",
            "latest",
            "x1.2",
            "v",
            "-",
            "1-rc",
            "1-",
            "v-1",
            "é-1",
            "3.14.0a1",
            "a.b.c",
            "v1\n",
            "1.2+b.4",
        ];
        for query in queries {
            let by_regex = fuzzy_version_matcher_by_regex(query);
            for version in versions {
                assert_eq!(
                    fuzzy_version_matches(query, version),
                    by_regex(version),
                    "query {query:?} version {version:?}"
                );
            }
        }
    }

    #[test]
    fn test_fuzzy_match_versions_filters_prereleases_by_default() {
        let versions = vec![
            "1.0.0".to_string(),
            "1.1.0-rc1".to_string(),
            "1.1.0".to_string(),
            "1.2.0-dev.5".to_string(),
        ];
        let got = fuzzy_match_versions(versions, "latest", true);
        assert_eq!(got, vec!["1.0.0".to_string(), "1.1.0".to_string()]);
    }

    #[test]
    fn test_fuzzy_match_versions_includes_prereleases_when_opted_in() {
        let versions = vec![
            "1.0.0".to_string(),
            "1.1.0-rc1".to_string(),
            "1.1.0".to_string(),
            "1.2.0-dev.5".to_string(),
            "0.1.2-dev.86".to_string(),
        ];
        let got = fuzzy_match_versions(versions.clone(), "latest", false);
        assert_eq!(got, versions);
    }

    #[test]
    fn test_fuzzy_match_versions_partial_query_respects_prerelease_flag() {
        let versions = vec![
            "1.2.0".to_string(),
            "1.2.1-rc1".to_string(),
            "1.2.1".to_string(),
        ];
        assert_eq!(
            fuzzy_match_versions(versions.clone(), "1.2", true),
            vec!["1.2.0".to_string(), "1.2.1".to_string()]
        );
        assert_eq!(
            fuzzy_match_versions(versions.clone(), "1.2", false),
            versions
        );
    }

    #[test]
    fn test_fuzzy_match_versions_numeric_query_accepts_v_prefix() {
        let versions = ["v10.34.5", "v10.99.0", "v11.11.0"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            fuzzy_match_versions(versions, "10", true),
            ["v10.34.5".to_string(), "v10.99.0".to_string()]
        );
    }

    #[test]
    fn test_fuzzy_match_versions_flavour_query_does_not_cross_a_plus() {
        // "truffleruby" and "truffleruby+graalvm" are distinct flavours, so a
        // bare flavour name must not select the other one.
        let versions = ["truffleruby-34.0.1", "truffleruby+graalvm-34.0.1"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            fuzzy_match_versions(versions.clone(), "truffleruby", true),
            ["truffleruby-34.0.1".to_string()]
        );
        assert_eq!(
            fuzzy_match_versions(versions, "truffleruby+graalvm", true),
            ["truffleruby+graalvm-34.0.1".to_string()]
        );
    }

    #[test]
    fn test_fuzzy_match_versions_numeric_query_still_matches_build_metadata() {
        // `+` remains a separator for numeric queries, where it introduces
        // semver build metadata rather than a different flavour.
        let versions = ["1.9.1", "v1.9.1+hotfix.2", "1.9.10"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            fuzzy_match_versions(versions, "1.9.1", true),
            ["1.9.1".to_string(), "v1.9.1+hotfix.2".to_string()]
        );
    }

    #[test]
    fn test_fuzzy_match_versions_pep440_drops_alphas_but_honors_exact_match() {
        let versions = vec![
            "3.13.0".to_string(),
            "3.14.0a1".to_string(),
            "3.14.0".to_string(),
            "3.15.0a8".to_string(),
        ];
        // `latest` resolution skips PEP 440 prereleases.
        assert_eq!(
            fuzzy_match_versions_pep440(versions.clone(), "latest", true),
            vec!["3.13.0".to_string(), "3.14.0".to_string()]
        );
        // Explicit prerelease request still resolves — preserves the
        // exact-match bypass that `fuzzy_match_versions` already provides for
        // generic prereleases like `1.0.0-rc1`.
        assert_eq!(
            fuzzy_match_versions_pep440(versions.clone(), "3.14.0a1", true),
            vec!["3.14.0a1".to_string()]
        );
        // Opting in to prereleases keeps the full list.
        assert_eq!(
            fuzzy_match_versions_pep440(versions.clone(), "latest", false),
            versions
        );
    }

    #[test]
    fn test_fuzzy_match_versions_pep440_ignores_local_label() {
        let versions = vec![
            "1.0".to_string(),
            "1.1+gpu.dev0".to_string(),
            "1.2.dev0".to_string(),
            "1.2-rc1+gpu".to_string(),
        ];
        // `.dev` in a local label does not make `1.1+gpu.dev0` a prerelease,
        // but the channel tags still apply to the public version.
        assert_eq!(
            fuzzy_match_versions_pep440(versions.clone(), "latest", true),
            vec!["1.0".to_string(), "1.1+gpu.dev0".to_string()]
        );
        assert_eq!(
            fuzzy_match_versions_pep440(versions.clone(), "1.1", true),
            vec!["1.1+gpu.dev0".to_string()]
        );
        // Other backends keep the shared filter on the full string.
        assert_eq!(
            fuzzy_match_versions(versions, "latest", true),
            vec!["1.0".to_string()]
        );
    }

    #[test]
    fn test_filter_cached_prereleases_drops_flagged_entries_by_default() {
        // The cache stores the pre-release superset; `prerelease = false` (the
        // default) must filter out entries flagged by the upstream so the user
        // sees the same list whether or not pre-releases were ever fetched.
        let cached = vec![
            VersionInfo {
                version: "1.0.0".into(),
                ..Default::default()
            },
            VersionInfo {
                version: "1.1.0-rc1".into(),
                prerelease: Some(true),
                ..Default::default()
            },
            VersionInfo {
                version: "1.1.0".into(),
                ..Default::default()
            },
        ];

        // Default opt: pre-releases dropped.
        let stable = filter_cached_prereleases(cached.clone(), false);
        let stable_versions: Vec<_> = stable.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(stable_versions, vec!["1.0.0", "1.1.0"]);

        // Opted in: same cache, full list returned without refetch.
        let all = filter_cached_prereleases(cached, true);
        let all_versions: Vec<_> = all.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(all_versions, vec!["1.0.0", "1.1.0-rc1", "1.1.0"]);
    }

    #[test]
    fn test_filter_cached_prereleases_leaves_unflagged_backends_alone() {
        // The cache-layer filter only trusts the metadata bit. Regex-shaped
        // versions are stamped before they enter the cache.
        let cached = vec![
            VersionInfo {
                version: "1.0.0".into(),
                ..Default::default()
            },
            VersionInfo {
                version: "1.1.0-rc1".into(),
                ..Default::default()
            },
        ];
        let filtered = filter_cached_prereleases(cached.clone(), false);
        let versions: Vec<_> = filtered.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(versions, vec!["1.0.0", "1.1.0-rc1"]);
    }

    #[test]
    fn test_version_info_prerelease_json_three_states() {
        // `ls-remote --json` consumers (e.g. mise-versions) rely on the
        // distinction: explicit true/false when the source can tell, key
        // absent when it cannot. A backend without a pre-release signal must
        // not serialize `prerelease: false` as if the version were confirmed
        // stable.
        let known_stable = VersionInfo {
            version: "1.0.0".into(),
            prerelease: Some(false),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&known_stable).unwrap(),
            r#"{"version":"1.0.0","prerelease":false}"#
        );

        let known_prerelease = VersionInfo {
            version: "1.1.0-rc1".into(),
            prerelease: Some(true),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&known_prerelease).unwrap(),
            r#"{"version":"1.1.0-rc1","prerelease":true}"#
        );

        let unknown = VersionInfo {
            version: "2.0.0".into(),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&unknown).unwrap(),
            r#"{"version":"2.0.0"}"#
        );
    }

    #[test]
    fn test_mark_prerelease_flags_regex_matches() {
        let stable = mark_prerelease(VersionInfo {
            version: "1.0.0".into(),
            ..Default::default()
        });
        assert_eq!(stable.prerelease, None);

        let rc = mark_prerelease(VersionInfo {
            version: "1.1.0-rc1".into(),
            ..Default::default()
        });
        assert_eq!(rc.prerelease, Some(true));

        let php_rc = mark_prerelease(VersionInfo {
            version: "8.5.9RC1".into(),
            ..Default::default()
        });
        assert_eq!(php_rc.prerelease, Some(true));

        let php_unnumbered_rc = mark_prerelease(VersionInfo {
            version: "4.0.1RC".into(),
            ..Default::default()
        });
        assert_eq!(php_unnumbered_rc.prerelease, Some(true));

        let php_qualified_rc = mark_prerelease(VersionInfo {
            version: "8.3.1RC1-clean".into(),
            ..Default::default()
        });
        assert_eq!(php_qualified_rc.prerelease, Some(true));

        let already_flagged = mark_prerelease(VersionInfo {
            version: "2.0.0".into(),
            prerelease: Some(true),
            ..Default::default()
        });
        assert_eq!(already_flagged.prerelease, Some(true));

        // An authoritative "stable" from the source survives a regex match.
        let confirmed_stable = mark_prerelease(VersionInfo {
            version: "1.1.0-rc1".into(),
            prerelease: Some(false),
            ..Default::default()
        });
        assert_eq!(confirmed_stable.prerelease, Some(false));

        // Go pseudo-version (`-DATE-HASH`) must not false-positive on the
        // `[abc][0-9]+` alternative — that pattern lives in
        // PEP440_PRERELEASE_REGEX (pipx-only), not the general regex.
        let go_pseudo = mark_prerelease(VersionInfo {
            version: "2.0.0-20260404020628-f149714c1d54".into(),
            ..Default::default()
        });
        assert_eq!(
            go_pseudo.prerelease, None,
            "Go pseudo-version must not be flagged by the general regex"
        );

        // PEP 440 separator-less alpha is similarly not the general regex's
        // concern — pipx applies that rule itself.
        let py_alpha = mark_prerelease(VersionInfo {
            version: "3.12.0a1".into(),
            ..Default::default()
        });
        assert_eq!(py_alpha.prerelease, None);
    }

    #[test]
    fn test_include_prereleases_accepts_bool_and_string_values() {
        use crate::toolset::ToolVersionOptions;

        let backend = TestBackend::default();
        let mut opts = ToolVersionOptions::default();
        assert!(!backend.include_prereleases(&opts));

        // Inline backend args normalize scalars to strings — cover that shape.
        opts.opts
            .insert("prerelease".to_string(), toml::Value::String("true".into()));
        assert!(backend.include_prereleases(&opts));

        opts.opts.insert(
            "prerelease".to_string(),
            toml::Value::String("FALSE".into()),
        );
        assert!(!backend.include_prereleases(&opts));

        opts.opts
            .insert("prerelease".to_string(), toml::Value::String("1".into()));
        assert!(backend.include_prereleases(&opts));

        opts.opts
            .insert("prerelease".to_string(), toml::Value::String("0".into()));
        assert!(!backend.include_prereleases(&opts));

        opts.opts
            .insert("prerelease".to_string(), toml::Value::String("00".into()));
        assert!(!backend.include_prereleases(&opts));

        // Defense-in-depth: also accept a native TOML boolean, in case a future
        // config path stores the value without string normalization.
        opts.opts
            .insert("prerelease".to_string(), toml::Value::Boolean(true));
        assert!(backend.include_prereleases(&opts));

        opts.opts
            .insert("prerelease".to_string(), toml::Value::Boolean(false));
        assert!(!backend.include_prereleases(&opts));
    }

    #[test]
    fn test_include_prereleases_global_setting_overrides_per_tool_default() {
        use crate::config::settings::SettingsPartial;
        use crate::toolset::ToolVersionOptions;
        use confique::Layer;

        let _settings = crate::test::SettingsGuard::lock();
        let backend = TestBackend::default();
        let opts = ToolVersionOptions::default();
        // Sanity: with no per-tool opt and no setting, prereleases stay filtered.
        assert!(!backend.include_prereleases(&opts));

        // Flipping the global setting takes effect without any per-tool config —
        // this is the path `MISE_PRERELEASES=1` and `mise ls-remote --prerelease`
        // both ride on.
        let mut partial = SettingsPartial::empty();
        partial.prereleases = Some(true);
        Settings::reset(Some(partial));
        let res = backend.include_prereleases(&opts);
        Settings::reset(None);
        assert!(res);
    }

    /// A backend with a fixed remote-version list. Overrides the listing hook
    /// rather than `_list_remote_versions` so the shared version cache stays
    /// out of the test.
    #[derive(Debug)]
    struct VersionListBackend {
        ba: Arc<BackendArg>,
        versions: Vec<VersionInfo>,
    }

    impl VersionListBackend {
        fn new(versions: &[(&str, &str)]) -> Self {
            Self {
                ba: Arc::new("test-hidden".into()),
                versions: versions
                    .iter()
                    .map(|(version, created_at)| VersionInfo {
                        version: (*version).to_string(),
                        created_at: Some((*created_at).to_string()),
                        ..Default::default()
                    })
                    .collect(),
            }
        }
    }

    #[async_trait]
    impl Backend for VersionListBackend {
        fn ba(&self) -> &Arc<BackendArg> {
            &self.ba
        }

        async fn _list_remote_versions(
            &self,
            _config: &Arc<Config>,
        ) -> eyre::Result<Vec<VersionInfo>> {
            Ok(self.versions.clone())
        }

        async fn list_remote_versions_with_info_and_options(
            &self,
            _config: &Arc<Config>,
            _listing_opts: &ToolVersionOptions,
            _selection_opts: &ToolVersionOptions,
            _refresh: bool,
            _has_local_version_listing_override: bool,
        ) -> eyre::Result<Vec<VersionInfo>> {
            Ok(self.versions.clone())
        }

        async fn install_version_(
            &self,
            _ctx: &InstallContext,
            tv: ToolVersion,
        ) -> Result<ToolVersion> {
            Ok(tv)
        }
    }

    async fn hidden_versions(backend: &VersionListBackend, query: &str) -> Vec<String> {
        let config = Config::get().await.unwrap();
        let before: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        backend
            .versions_hidden_by_before_date(&config, query, before)
            .await
            .unwrap()
            .into_iter()
            .map(|v| v.version)
            .collect()
    }

    /// `latest` resolution falls back to the unfiltered date-filtered list when
    /// its numeric pattern matches nothing, so the hidden set must too — a tool
    /// tagged only `nightly`/`edge` would otherwise lose the explanation of why
    /// the cutoff left it with nothing.
    #[tokio::test]
    async fn test_hidden_versions_fall_back_for_non_numeric_latest() {
        let backend = VersionListBackend::new(&[
            ("nightly", "2026-06-01T00:00:00Z"),
            ("edge", "2026-06-02T00:00:00Z"),
        ]);
        assert_eq!(
            hidden_versions(&backend, "latest").await,
            ["nightly", "edge"]
        );
    }

    #[tokio::test]
    async fn test_hidden_versions_exclude_releases_older_than_the_cutoff() {
        let backend = VersionListBackend::new(&[
            ("1.0.0", "2025-06-01T00:00:00Z"),
            ("2.0.0", "2026-06-01T00:00:00Z"),
        ]);
        assert_eq!(hidden_versions(&backend, "latest").await, ["2.0.0"]);
    }

    /// Only versions the failed request could have selected are reported.
    #[tokio::test]
    async fn test_hidden_versions_are_narrowed_by_the_query() {
        let backend = VersionListBackend::new(&[
            ("1.8.0", "2026-06-01T00:00:00Z"),
            ("1.9.0", "2026-06-02T00:00:00Z"),
        ]);
        assert_eq!(hidden_versions(&backend, "1.8").await, ["1.8.0"]);
        assert!(hidden_versions(&backend, "99").await.is_empty());
    }

    /// A check that takes no lock reads an install directory without an incomplete
    /// marker as complete, so the marker has to be there before the directory is.
    #[test]
    fn create_install_dirs_marks_incomplete_before_creating_the_install_dir() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "install-dirs-marker-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut ba = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        ba.set_installs_path(temp_dir.path().join("installs").join(&short));
        // A NUL in the downloads path makes the step after the install dir fail on every
        // platform.
        ba.set_downloads_path(temp_dir.path().join("downloads\0"));

        let backend = TestBackend { ba: Arc::new(ba) };
        let request = ToolRequest::new(backend.ba.clone(), "1.0.0", ToolSource::Argument).unwrap();
        let tv = ToolVersion::new(request, "1.0.0".into());

        assert!(backend.create_install_dirs(&tv).is_err());
        assert!(tv.install_path().exists());
        assert!(install_state::is_incomplete(tv.ba(), &tv.state_key()));
        install_state::clear_incomplete_marker(tv.ba(), &tv.state_key())?;
        Ok(())
    }

    /// A destination that cannot be created leaves no directory behind, so the marker the
    /// attempt wrote must not make an install elsewhere of the same version look unfinished.
    #[test]
    fn create_install_dirs_failing_without_a_directory_leaves_no_marker() -> Result<()> {
        let temp_dir = tempfile::tempdir()?;
        let short = format!(
            "install-dirs-no-dir-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let mut ba = BackendArg::new_raw(
            short.clone(),
            None,
            short.clone(),
            None,
            BackendResolution::new(false),
        );
        ba.set_installs_path(temp_dir.path().join("installs").join(&short));
        let backend = TestBackend { ba: Arc::new(ba) };
        let request = ToolRequest::new(backend.ba.clone(), "1.0.0", ToolSource::Argument).unwrap();
        let mut tv = ToolVersion::new(request, "1.0.0".into());
        tv.install_path = Some(temp_dir.path().join("dest\0"));

        assert!(backend.create_install_dirs(&tv).is_err());
        assert!(!tv.install_path().exists());
        assert!(!install_state::is_incomplete(tv.ba(), &tv.state_key()));
        Ok(())
    }

    #[derive(Debug)]
    struct TestBackend {
        ba: Arc<BackendArg>,
    }

    impl Default for TestBackend {
        fn default() -> Self {
            Self {
                ba: Arc::new("test".into()),
            }
        }
    }

    #[async_trait]
    impl Backend for TestBackend {
        fn ba(&self) -> &Arc<BackendArg> {
            &self.ba
        }

        async fn _list_remote_versions(
            &self,
            _config: &Arc<Config>,
        ) -> eyre::Result<Vec<VersionInfo>> {
            Ok(vec![])
        }

        async fn install_version_(
            &self,
            _ctx: &InstallContext,
            tv: ToolVersion,
        ) -> Result<ToolVersion> {
            Ok(tv)
        }
    }
}

fn make_install_dirs(tv: &ToolVersion) -> eyre::Result<()> {
    let _ = remove_all_with_warning(tv.install_path());
    if !Settings::get().always_keep_download {
        let download_path = tv.download_path();
        if let Err(err) = crate::http::cleanup_download_dir(&download_path) {
            debug!(
                "failed to clean download directory {}: {err:#}",
                display_path(&download_path)
            );
        }
    }
    let _ = remove_all_with_warning(tv.cache_path());
    let _ = file::remove_file(tv.install_path()); // removes if it is a symlink
    file::create_dir_all(tv.install_path())?;
    file::create_dir_all(tv.download_path())?;
    file::create_dir_all(tv.cache_path())?;
    Ok(())
}

#[async_trait]
pub trait Backend: Debug + Send + Sync {
    fn id(&self) -> &str {
        &self.ba().short
    }
    fn tool_name(&self) -> String {
        self.ba().tool_name()
    }
    fn get_type(&self) -> BackendType {
        BackendType::Core
    }
    fn ba(&self) -> &Arc<BackendArg>;

    /// Generates a platform key for lockfile storage.
    /// Default implementation uses the current platform key (os-arch or os-arch-qualifier),
    /// which includes the libc qualifier on musl systems.
    fn get_platform_key(&self) -> String {
        Platform::current().to_key()
    }

    /// [`Self::get_platform_key`] for one tool request, for a backend whose
    /// artifact depends on options the request sets, such as a `url` template in
    /// `mise.toml`. Callers that hold the tool version use this one.
    fn get_platform_key_for(&self, _tv: &ToolVersion) -> String {
        self.get_platform_key()
    }

    /// Resolves the lockfile options for a tool request on a target platform.
    /// These options affect artifact identity and must match exactly for lockfile lookup.
    ///
    /// For the current platform: resolves from Settings and ToolRequest options
    /// For other platforms (cross-platform mise lock): uses sensible defaults
    ///
    /// Backends should override this to return options that affect which artifact is downloaded.
    fn resolve_lockfile_options(
        &self,
        _request: &ToolRequest,
        _target: &PlatformTarget,
    ) -> Result<BTreeMap<String, String>> {
        Ok(BTreeMap::new()) // Default: no options affect artifact identity
    }

    /// [`Self::resolve_lockfile_options`] as a lock entry records them. Everything that
    /// writes, looks up or describes a lock entry goes through this, and options read from
    /// a lockfile get the same treatment, so both sides of a comparison agree.
    ///
    /// A lockfile is committed, and these values are already rendered: an index URL in
    /// `pipx_args` or `npm_args`, or an `api_url`, can carry a token that config only
    /// templates in from the environment. The options only select the lock entry; an
    /// install reads the request's own, so it still gets the credential.
    fn lockfile_options(
        &self,
        request: &ToolRequest,
        target: &PlatformTarget,
    ) -> Result<BTreeMap<String, String>> {
        Ok(crate::lockfile::strip_lock_options_credentials(
            self.resolve_lockfile_options(request, target)?,
        ))
    }

    /// Options that are not install-affecting: they only change how versions are
    /// listed or how installed files are used, so two requests that differ in
    /// them still share one installation. Everything else a request sets is part
    /// of its installation identity.
    fn identity_ignored_options(&self) -> &'static [&'static str] {
        &[]
    }

    /// The options that make one installation of a version different from another,
    /// for the identity layout (`installs/<name>-<hash>`).
    ///
    /// The base is [`Self::resolve_lockfile_options`], which is already the set of
    /// options that must match for a lockfile entry to apply. The rest of the
    /// request's options join it unless the backend lists them as
    /// [`Self::identity_ignored_options`], because leaving out a choice that does
    /// change the install would let two different installs share one directory,
    /// while including a harmless one only costs a second copy.
    fn install_identity_options(&self, tv: &ToolVersion) -> BTreeMap<String, String> {
        static_helpers::request_identity_options(self, tv)
    }

    /// Declares which tool options this backend reads, so an option it never reads can be
    /// reported instead of silently ignored. `None` (the default) leaves the options unchecked.
    fn option_spec(&self) -> Option<OptionSpec> {
        None
    }

    /// Returns all platform variants that should be locked for a given base platform.
    ///
    /// Some tools have compile-time variants (e.g., bun has baseline/musl variants)
    /// that result in different download URLs and checksums. This method allows
    /// backends to declare all variants so `mise lock` can fetch checksums for each.
    ///
    /// Default returns just the base platform. Backends should override this to
    /// return additional variants when applicable.
    ///
    /// Example: For bun on linux-x64, this might return:
    /// - linux-x64 (default, AVX2)
    /// - linux-x64-baseline (no AVX2)
    /// - linux-x64-musl (musl libc)
    /// - linux-x64-musl-baseline (musl + no AVX2)
    fn platform_variants(&self, platform: &Platform) -> Vec<Platform> {
        vec![platform.clone()] // Default: just the base platform
    }

    /// [`Self::platform_variants`] for one tool request, for a backend whose
    /// variants depend on options the request sets. Callers that hold the tool
    /// version use this one.
    fn platform_variants_for(&self, _tv: &ToolVersion, platform: &Platform) -> Vec<Platform> {
        self.platform_variants(platform)
    }

    /// Whether this backend supports URL-based locking in locked mode.
    /// Backends that use external installers (like rustup for Rust) should override
    /// this to return false, since they don't have downloadable artifacts with lockable URLs.
    fn supports_lockfile_url(&self) -> bool {
        true
    }

    /// Whether this backend's artifact-identity options describe the machine
    /// that wrote a lock entry rather than the tool request.
    ///
    /// Swift's Linux artifacts differ per distro, so its options record which
    /// distro an entry describes. An entry written before those options existed
    /// can't be attributed to a distro, and guessing the local one would apply
    /// a foreign artifact's checksum to a different tarball. Backends that
    /// return true keep such an entry's version pin but ignore its
    /// checksum/URL, and are excluded from legacy option rekeying.
    fn lockfile_options_are_host_specific(&self) -> bool {
        false
    }

    async fn description(&self) -> Option<String> {
        None
    }
    async fn security_info(&self) -> Vec<SecurityFeature> {
        vec![]
    }
    fn get_plugin_type(&self) -> Option<PluginType> {
        None
    }
    /// If any of these tools are installing in parallel, we should wait for them to finish
    /// before installing this tool.
    fn get_dependencies(&self) -> Result<Vec<&str>> {
        Ok(vec![])
    }

    /// Install-time dependencies for a specific tool request.
    ///
    /// Most backends have fixed dependencies and inherit the default implementation.
    /// Backends whose installer is selected by tool options can override this so the
    /// dependency graph matches the installer that will actually run.
    fn get_dependencies_for(&self, _opts: &ToolVersionOptions) -> Result<Vec<&str>> {
        self.get_dependencies()
    }

    /// Plugin-declared system prerequisites (build tools, libraries, ...) that
    /// must be present on the machine before this tool can install. Distinct
    /// from [`Backend::get_dependencies`], which returns other *mise tools*.
    /// Detection is the source of truth; the package hints attached to each dep
    /// only drive optional remediation. Infallible by design — a malformed
    /// declaration must never block an install, so overrides warn and skip.
    fn system_dependencies(&self) -> Vec<crate::system::deps::SystemDep> {
        vec![]
    }

    /// Whether this backend's version source lacks an upstream prerelease flag
    /// and should mark regex-shaped versions as prereleases before caching.
    fn mark_prereleases_from_version_pattern(&self) -> bool {
        false
    }

    /// Pre-releases this backend recognises beyond the shared `VERSION_REGEX`,
    /// which only knows channel tags (`-rc1`, `-beta`): a backend with strict
    /// semver versions also treats a bare numeric suffix (`1.3.1-3`) as one.
    fn is_backend_prerelease(&self, _version: &str) -> bool {
        false
    }

    /// Whether pre-release versions should be included for this backend and
    /// current tool options. Backends can override this only for compatibility
    /// with deprecated backend-specific prerelease settings.
    fn include_prereleases(&self, opts: &crate::toolset::ToolVersionOptions) -> bool {
        if Settings::get().prereleases {
            return true;
        }

        if let Some(value) = opts.opts.get("prerelease") {
            return tool_option_bool(value);
        }

        false
    }

    /// Tool option keys whose non-registry overrides change the backend's
    /// remote version list. When any of these keys come from a backend alias,
    /// config, or inline backend arg, the versions host must be skipped because
    /// its cache is keyed by the registry/default listing.
    fn remote_version_listing_tool_option_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// Opaque context that affects this backend's remote version listing.
    ///
    /// Backends should return a digest rather than raw values. A non-empty
    /// context partitions the remote-version cache and disables the shared
    /// versions host, whose response cannot account for local context.
    /// Like `_list_remote_versions`, plus whether the list is missing versions
    /// because a source was unreachable. Such a list is returned but not left
    /// in the cache, so the next call tries again.
    async fn _list_remote_versions_checked(
        &self,
        config: &Arc<Config>,
    ) -> eyre::Result<(Vec<VersionInfo>, bool)> {
        Ok((self._list_remote_versions(config).await?, false))
    }

    async fn remote_version_cache_context(&self, _config: &Arc<Config>) -> Result<Option<String>> {
        Ok(None)
    }

    /// dependencies which wait for install but do not warn, like cargo-binstall
    fn get_optional_dependencies(&self) -> Result<Vec<&str>> {
        Ok(vec![])
    }
    fn get_all_dependencies(&self, optional: bool) -> Result<IndexSet<BackendArg>> {
        self.get_all_dependencies_for(&self.ba().opts(), optional)
    }
    fn get_all_dependencies_for(
        &self,
        opts: &ToolVersionOptions,
        optional: bool,
    ) -> Result<IndexSet<BackendArg>> {
        let mut deps = self.get_direct_dependencies_for(opts, optional)?;
        // A lockfile or a tool alias decides which backend a dependency such as `pipx` or
        // `uv` resolves to, so two tools can end up depending on each other. Expanding each
        // tool once from a worklist, instead of recursing into it, ends the walk on a cycle.
        let mut next = 0;
        while let Some(ba) = deps.get_index(next).cloned() {
            next += 1;
            if let Ok(backend) = ba.backend() {
                let opts = backend.ba().opts();
                deps.extend(backend.get_direct_dependencies_for(&opts, optional)?);
            }
        }
        // A cycle leads back to this tool, which does not depend on itself.
        let all_fulls = self.ba().all_fulls();
        deps.retain(|ba| &**self.ba() != ba);
        deps.retain(|ba| !all_fulls.contains(&ba.full()));
        Ok(deps)
    }
    /// The dependencies this tool names itself, without those of its dependencies.
    fn get_direct_dependencies_for(
        &self,
        opts: &ToolVersionOptions,
        optional: bool,
    ) -> Result<IndexSet<BackendArg>> {
        let all_fulls = self.ba().all_fulls();
        if all_fulls.is_empty() {
            // this can happen on windows where we won't be able to install this os/arch so
            // the fact there might be dependencies is meaningless
            return Ok(Default::default());
        }
        let mut deps: Vec<&str> = self.get_dependencies_for(opts)?;
        if optional {
            deps.extend(self.get_optional_dependencies()?);
        }
        let mut deps: IndexSet<_> = deps.into_iter().map(BackendArg::from).collect();
        deps.retain(|ba| &**self.ba() != ba);
        deps.retain(|ba| !all_fulls.contains(&ba.full()));
        Ok(deps)
    }

    async fn list_remote_versions(&self, config: &Arc<Config>) -> eyre::Result<Vec<String>> {
        Ok(self
            .list_remote_versions_with_info(config)
            .await?
            .into_iter()
            .map(|v| v.version)
            .collect())
    }

    /// Like `list_remote_versions` but with explicit refresh control. Pass
    /// `refresh = true` to re-fetch the remote-versions list upstream unless
    /// the cached one was written within `REFRESH_REUSES_LISTS_NEWER_THAN`
    /// (5 minutes), or within `fetch_remote_versions_cache` when that is
    /// shorter, so `refresh` does not guarantee a request. Used by
    /// install-time resolution for selectors whose answer depends on the
    /// freshest upstream entry (e.g. `latest`).
    async fn list_remote_versions_with_refresh(
        &self,
        config: &Arc<Config>,
        refresh: bool,
    ) -> eyre::Result<Vec<String>> {
        Ok(self
            .list_remote_versions_with_info_with_refresh(config, refresh)
            .await?
            .into_iter()
            .map(|v| v.version)
            .collect())
    }

    /// List remote versions using the fully layered candidate-selection options
    /// from the request currently being resolved. By default, backend listing/source
    /// options still use the config-based path below because those affect fetching
    /// and cache provenance rather than selection from the fetched candidates.
    /// Cache-bypassing backends may instead use the active request's options when
    /// those options select the source itself.
    async fn list_remote_versions_with_selection_options(
        &self,
        config: &Arc<Config>,
        opts: &ToolVersionOptions,
        refresh: bool,
    ) -> eyre::Result<Vec<String>> {
        Ok(self
            .list_remote_versions_with_info_with_selection_options(config, opts, refresh)
            .await?
            .into_iter()
            .map(|v| v.version)
            .collect())
    }

    /// List remote versions with additional metadata like created_at timestamps.
    /// Results are cached. Backends can override `_list_remote_versions_with_info`
    /// to provide timestamp information.
    ///
    /// This method first tries the versions host (mise-versions.jdx.dev), which
    /// provides version info with created_at timestamps, and falls back to the
    /// backend's `_list_remote_versions_with_info` implementation on failure.
    /// The host is skipped when local options or a redirected source (see
    /// `remote_version_cache_context`) make the listing differ from the
    /// published one.
    ///
    /// In offline mode, this reads the existing remote-versions cache without
    /// fetching or writing. If no cache exists, it returns an empty list.
    /// The returned list applies the backend's configured `version_order`; the
    /// cached value remains in source order.
    async fn list_remote_versions_with_info(
        &self,
        config: &Arc<Config>,
    ) -> eyre::Result<Vec<VersionInfo>> {
        self.list_remote_versions_with_info_with_refresh(config, false)
            .await
    }

    async fn list_remote_versions_with_info_with_refresh(
        &self,
        config: &Arc<Config>,
        refresh: bool,
    ) -> eyre::Result<Vec<VersionInfo>> {
        let ba = self.ba().clone();
        let resolved_opts = config.resolve_tool_opts_with_overrides(&ba).await?;
        let has_local_version_listing_override = has_local_version_listing_option_override(
            &resolved_opts,
            self.remote_version_listing_tool_option_keys(),
        );
        let opts = resolved_opts.effective();
        let versions = self
            .list_remote_versions_with_info_and_options(
                config,
                opts,
                opts,
                refresh,
                has_local_version_listing_override,
            )
            .await?;
        Ok(self
            .version_order(opts)?
            .order_by(versions, |version| version.version.as_str()))
    }

    /// List remote versions while selecting candidates with the active request's options.
    /// The default implementation keeps listing/cache provenance config-based;
    /// cache-bypassing overrides may use request options to choose their source.
    async fn list_remote_versions_with_info_with_selection_options(
        &self,
        config: &Arc<Config>,
        opts: &ToolVersionOptions,
        refresh: bool,
    ) -> eyre::Result<Vec<VersionInfo>> {
        let ba = self.ba().clone();
        let resolved_opts = config.resolve_tool_opts_with_overrides(&ba).await?;
        let has_local_version_listing_override = has_local_version_listing_option_override(
            &resolved_opts,
            self.remote_version_listing_tool_option_keys(),
        );
        let versions = self
            .list_remote_versions_with_info_and_options(
                config,
                resolved_opts.effective(),
                opts,
                refresh,
                has_local_version_listing_override,
            )
            .await?;
        Ok(self
            .version_order(opts)?
            .order_by(versions, |version| version.version.as_str()))
    }

    /// Common remote-version listing hook for both config- and request-aware callers.
    /// Backends that bypass the shared remote-version cache should override this method.
    async fn list_remote_versions_with_info_and_options(
        &self,
        config: &Arc<Config>,
        listing_opts: &ToolVersionOptions,
        selection_opts: &ToolVersionOptions,
        refresh: bool,
        has_local_version_listing_override: bool,
    ) -> eyre::Result<Vec<VersionInfo>> {
        // The listing-relevant options shape the cached list, so they belong in its key.
        // Only local overrides count: a registry-supplied value is identical for everyone, so
        // one entry is correct for it, and leaving it out keeps the shared versions host
        // available for the default case.
        let cache_context = self
            .remote_version_cache_context_for(
                config,
                listing_opts,
                has_local_version_listing_override,
            )
            .await?;
        let remote_versions = match cache_context.as_deref() {
            Some(context) => self.get_remote_version_cache_with_context(Some(context)),
            None => self.get_remote_version_cache(),
        };
        let mut remote_versions = remote_versions.lock().await;
        let ba = self.ba().clone();
        let id = self.id();

        let versions_host_tool = if !Settings::get().use_versions_host {
            trace!(
                "Skipping versions host for {} because use_versions_host is off",
                ba.short
            );
            None
        } else if has_local_version_listing_override {
            // Checked before the context: an option override now also produces a cache
            // context, and this is the message that names the actual cause.
            trace!(
                "Skipping versions host for {} because local backend opts affect remote version listing",
                ba.short,
            );
            None
        } else if cache_context.is_some() {
            trace!(
                "Skipping versions host for {} because local context affects remote version listing",
                ba.short,
            );
            None
        } else {
            match self.versions_host_tool() {
                Ok(tool) => Some(tool),
                Err(reason) => {
                    trace!("Skipping versions host for {} because {reason}", ba.short);
                    None
                }
            }
        };

        // Read-time filter: cache stores the pre-release superset for backends
        // that honor `prerelease`. When the current opts don't opt in, drop
        // entries with `prerelease = true` before returning so flipping the
        // tool option takes effect without invalidating the cache.
        let want_prereleases = self.include_prereleases(selection_opts);

        if Settings::get().offline() {
            return Ok(filter_cached_prereleases(
                cached_remote_versions_offline(&ba, &remote_versions),
                want_prereleases,
            ));
        }

        let degraded = std::sync::atomic::AtomicBool::new(false);
        let fetch = || async {
            trace!("Listing remote versions for {}", ba.to_string());
            // Try versions host first (now returns VersionInfo with timestamps)
            if let Some(tool) = &versions_host_tool {
                match versions_host::list_versions(tool).await {
                    Ok(Some(versions)) => {
                        trace!(
                            "Got {} versions from versions host for {}",
                            versions.len(),
                            ba.to_string()
                        );
                        return Ok(versions);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        debug!("Error getting versions from versions host: {:#}", e);
                    }
                }
            }
            trace!(
                "Calling backend to list remote versions for {}",
                ba.to_string()
            );
            let (listed, listing_degraded) = crate::toolset::with_safe_mode_tool_scope(
                self.ba(),
                self._list_remote_versions_checked(config),
            )
            .await?;
            degraded.store(listing_degraded, std::sync::atomic::Ordering::Relaxed);
            let versions = listed
                .into_iter()
                .map(|v| match self.mark_prereleases_from_version_pattern() {
                    true => mark_prerelease(v),
                    false => v,
                })
                .filter(|v| match v.version.parse::<ToolVersionType>() {
                    Ok(ToolVersionType::Version(_)) => true,
                    _ => {
                        warn!("Invalid version: {id}@{}", v.version);
                        false
                    }
                })
                .collect_vec();
            if versions.is_empty()
                && self.get_type() != BackendType::Http
                && self.unresolved_latest_version().is_none()
                // A backend that just recorded a fetch failure already warned
                // with the actual cause; "No versions found" on top of it reads
                // like a second, unrelated problem.
                && version_listing_failure(&ba).is_none()
            {
                // warn_once: a single command resolves the same tool from
                // several call sites, and repeating this for each one buries
                // the actual error (usually a network failure) in spam.
                warn_once!("No versions found for {id}");
            }
            Ok(versions)
        };
        // An empty list is deliberately not written to the disk cache below, so
        // nothing memoizes a failed listing. Without this short-circuit a single
        // command re-runs the whole failing fetch — HTTP retries and backoff
        // included — once per call site that resolves this tool. This applies to
        // `refresh` too: the record is process-local, so honoring it discards no
        // cached data that `--refresh` is meant to bypass.
        let versions = if version_listing_failure(&ba).is_some() {
            trace!("Skipping remote version listing for {id} after an earlier failure");
            vec![]
        } else if refresh {
            // A list written moments ago (by this command's own first
            // resolution, or by `mise outdated` just before `mise install`) is
            // as fresh as refetching it would be.
            remote_versions
                .refresh_async_unless_newer_than(REFRESH_REUSES_LISTS_NEWER_THAN, fetch)
                .await?
        } else {
            adopt_cached_remote_versions_within_release_age(
                &ba,
                &mut remote_versions,
                [listing_opts, selection_opts],
            );
            remote_versions.get_or_try_init_async(fetch).await?.clone()
        };
        if versions.is_empty() || degraded.load(std::sync::atomic::Ordering::Relaxed) {
            remote_versions.clear()?;
        }
        Ok(filter_cached_prereleases(versions, want_prereleases))
    }

    /// Use the cached remote-version list in place of an install-time refresh,
    /// when it already holds every version a release-age cutoff of `before`
    /// admits. Read without fetching anything; on `true` the list is loaded
    /// into memory, so resolution uses exactly the copy that was checked.
    ///
    /// The list's contents can be older than the file: mise-versions serves
    /// snapshots it republishes periodically. So the file must be younger than
    /// the cutoff by `LISTED_SNAPSHOT_LAG`, which the 24h default is and a
    /// cutoff of minutes is not. It must also be fresh, and date every version
    /// in a form that parses: a backend that dates its listing dates new
    /// releases too, while a version without a usable date passes any cutoff.
    async fn adopt_cached_remote_versions_for_cutoff(
        &self,
        config: &Arc<Config>,
        before: Timestamp,
    ) -> bool {
        let Ok(cutoff_age) = std::time::Duration::try_from(Timestamp::now().duration_since(before))
        else {
            return false;
        };
        let Some(max_age) = cutoff_age.checked_sub(LISTED_SNAPSHOT_LAG) else {
            return false;
        };
        let Ok(resolved_opts) = config.resolve_tool_opts_with_overrides(self.ba()).await else {
            return false;
        };
        let has_local_version_listing_override = has_local_version_listing_option_override(
            &resolved_opts,
            self.remote_version_listing_tool_option_keys(),
        );
        let Ok(cache_context) = self
            .remote_version_cache_context_for(
                config,
                resolved_opts.effective(),
                has_local_version_listing_override,
            )
            .await
        else {
            return false;
        };
        let cache = match cache_context.as_deref() {
            Some(context) => self.get_remote_version_cache_with_context(Some(context)),
            None => self.get_remote_version_cache(),
        };
        // A command that only needs a matching version keeps a list for the
        // cutoff's release-age window, not just `fetch_remote_versions_cache`.
        let fresh = release_age_list_window_for_cutoff(before)
            .or_else(|| Settings::get().fetch_remote_versions_cache());
        cache
            .lock()
            .await
            .adopt_file_if_fresh_for(fresh, |age, versions| {
                age <= max_age && dates_every_version(versions)
            })
    }

    /// The `release_url` the remote version list gives `version`, when the
    /// versions host serves that list.
    ///
    /// Installing a version needs its release tag, which the version alone
    /// does not spell (`5.8.1` is tagged `kustomize/v5.8.1`, `4.210.0` has no
    /// `v`). The versions host already lists every registry tool with each
    /// release's URL, so reading the tag from there replaces fetching the
    /// release list from the GitHub mirror, or guessing spellings that 404.
    /// `None` whenever the versions host would not serve this backend's list,
    /// or doesn't have it: the caller then looks the tag up as it did before.
    async fn listed_release_url(&self, config: &Arc<Config>, version: &str) -> Option<String> {
        let settings = Settings::get();
        if !settings.use_versions_host || settings.offline() || settings.prefer_offline() {
            return None;
        }
        let ba = self.ba().clone();
        let resolved_opts = config.resolve_tool_opts_with_overrides(&ba).await.ok()?;
        if has_local_version_listing_option_override(
            &resolved_opts,
            self.remote_version_listing_tool_option_keys(),
        ) {
            return None;
        }
        let opts = resolved_opts.effective();
        let tool = self.versions_host_tool().ok()?;
        if self
            .remote_version_cache_context_for(config, opts, false)
            .await
            .ok()?
            .is_some()
        {
            return None;
        }
        // Resolving the version has usually just cached this same list, or an
        // earlier command did; the tag of a release does not go stale.
        let cached = self.get_remote_version_cache().lock().await.get_cached();
        if let Some(release_url) = cached
            .ok()
            .and_then(|versions| versions.into_iter().find(|v| v.version == version))
            .and_then(|v| v.release_url)
        {
            return Some(release_url);
        }
        // The versions host alone, never `list_remote_versions_with_info`: on a
        // miss that falls through to the backend's own listing, the paginated
        // release list this hint exists to avoid, and a failure there would be
        // recorded against the tool for the rest of the command.
        versions_host::list_versions(&tool)
            .await
            .ok()??
            .into_iter()
            .find(|v| v.version == version)?
            .release_url
    }

    /// Backend implementation for fetching remote versions with metadata.
    /// Override this to provide version listing with optional timestamp information.
    /// Return `VersionInfo` with `created_at: None` if timestamps are not available.
    async fn _list_remote_versions(&self, config: &Arc<Config>) -> eyre::Result<Vec<VersionInfo>>;

    /// Release date for a single version, for backends whose listing cannot
    /// afford to date every version it returns.
    ///
    /// A version listing carries release dates so a release-age cutoff can hide
    /// versions that are too new, and a version with no date counts as old
    /// enough to install. That default is right for a backend whose source has
    /// no dates at all, but it lets the cutoff lapse for one that dated only
    /// part of its listing — `go:`, where reading a private module's dates
    /// costs a VCS round trip apiece, dates only the newest few. Resolution
    /// calls this for candidates it may select that arrived undated, and
    /// searches for the newest one that passes, so a backend pays a handful
    /// of queries however many versions the cutoff hides.
    ///
    /// Returning `None`, the default, keeps the shared behavior.
    async fn fetch_version_created_at(
        &self,
        _config: &Arc<Config>,
        _version: &str,
    ) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// Backend-specific fast path for the absolute latest stable version.
    ///
    /// Do not call this from CLI/toolset code. Use `latest_version` instead so
    /// release-date cutoffs are handled around this fast path.
    ///
    /// Return `Ok(None)` when the backend does not have a fast path result.
    /// `latest_version` centrally falls back to the shared version-list path,
    /// which can use the remote versions cache in offline mode.
    async fn latest_stable_version(&self, _config: &Arc<Config>) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// Backend-specific fast path for the absolute latest stable version with
    /// metadata when the upstream endpoint already provides it.
    ///
    /// Backends may keep overriding `latest_stable_version` when they only have
    /// a version string. This metadata variant lets release-age filtering
    /// verify fast-path candidates even when the cached full version list is
    /// stale.
    async fn latest_stable_version_info(
        &self,
        _config: &Arc<Config>,
    ) -> eyre::Result<Option<VersionInfo>> {
        Ok(None)
    }

    /// [`Self::latest_stable_version_info`] for a resolution that applies the
    /// release-age cutoff `before`. A backend whose cached answer that cutoff
    /// keeps current for longer than `fetch_remote_versions_cache` overrides
    /// this to keep it for the cutoff's release-age window.
    async fn latest_stable_version_info_before(
        &self,
        config: &Arc<Config>,
        _before: Option<Timestamp>,
    ) -> eyre::Result<Option<VersionInfo>> {
        self.latest_stable_version_info(config).await
    }

    /// Backend-specific fast path for exact version requests.
    ///
    /// Return the normalized version when the backend can cheaply prove that
    /// `version` exists upstream or can defer authoritative validation to its
    /// installer. Return `Ok(None)` to fall back to normal prefix/latest
    /// resolution.
    async fn resolve_exact_version(
        &self,
        _config: &Arc<Config>,
        _version: &str,
    ) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// Whether an opaque version string should use [`Backend::resolve_exact_version`]
    /// even when it does not have the usual dotted release shape.
    fn is_exact_version(&self, _version: &str) -> bool {
        false
    }

    /// Whether `version` names a rolling release channel (e.g. zig's "master")
    /// rather than a concrete version. Cheap (no network). Channels are re-resolved
    /// to a concrete version like "latest" so `mise upgrade`/`outdated` can track
    /// new builds instead of pinning the channel name forever. (#10251)
    fn is_rolling_channel(&self, _version: &str) -> bool {
        false
    }

    /// The latest installed version that belongs to the rolling `channel` (see
    /// [`Backend::is_rolling_channel`]), or `None`. Lets `mise x` / hook-env reuse
    /// an installed channel build without a network round-trip, while never falling
    /// back to an unrelated release (e.g. a stable Zig for `zig@master`). Cheap --
    /// it filters already-installed versions, no network. (#10251)
    fn latest_installed_channel_version(&self, _channel: &str) -> Option<String> {
        None
    }

    /// Resolve a rolling channel (see [`Backend::is_rolling_channel`]) to the
    /// concrete version it currently points at. Returns `Ok(None)` when `version`
    /// is not a channel or cannot be resolved; callers fall back to normal
    /// resolution. May hit the network, so it is only called when re-resolving is
    /// wanted (install/upgrade or first-run exec), never on the prefer-offline
    /// hook-env path. (#10251)
    async fn resolve_channel_version(
        &self,
        _config: &Arc<Config>,
        _version: &str,
    ) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// The version to resolve in place of the moving channel `version` under an explicit
    /// release-age cutoff `before`, or `None` to resolve it as written. A channel has no
    /// release date of its own, so the cutoff cannot be applied to it as it is: a backend
    /// maps it to the concrete release the channel pointed at then, or errors when the
    /// channel's current build is too new and nothing older can stand in for it.
    /// `prefer_offline` asks a mapping that needs the network to leave the channel as written.
    async fn channel_for_cutoff(
        &self,
        _config: &Arc<Config>,
        _version: &str,
        _before: Timestamp,
        _prefer_offline: bool,
    ) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// Whether a rolling channel must be resolved to a concrete version before it
    /// can be used. Backends that opt in fail in offline mode when neither a lock
    /// entry nor a concrete installed channel build is available.
    fn requires_concrete_channel_version(&self, _version: &str) -> bool {
        false
    }

    /// Backend opt-in for installing an unresolved `latest` request.
    ///
    /// Most backends must resolve `latest` to a concrete version before install.
    /// Override this only when the backend can pass an unresolved selector through
    /// to its installer, and only for requests where the selector is meaningful.
    ///
    /// `ToolVersion::resolve_version` uses this as a last resort after normal
    /// latest resolution fails, and only when the backend's unfiltered remote
    /// version list is empty. If remote versions exist but are all filtered out by
    /// a release-date cutoff, this hook is not used.
    fn unresolved_latest_version(&self) -> Option<String> {
        None
    }
    /// Backend-specific validation for an install prefix that exists and is
    /// otherwise complete. Keep this check cheap: it runs anywhere mise asks
    /// whether a version is installed, including activation and doctor.
    fn is_install_path_healthy(&self, _install_path: &Path) -> bool {
        true
    }
    fn list_installed_versions(&self) -> Vec<String> {
        install_state::list_versions_for(self.ba())
    }
    fn is_version_installed(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        check_symlink: bool,
    ) -> bool {
        let check_path = |install_path: &Path, check_symlink: bool| {
            let is_installed = install_path.exists();
            let is_active_postinstall = is_active_postinstall_install(tv, install_path);
            let is_not_incomplete =
                !install_state::is_incomplete(tv.ba(), &tv.state_key()) || is_active_postinstall;
            let is_valid_symlink = !check_symlink || !is_runtime_symlink(install_path);
            let is_healthy = is_installed && self.is_install_path_healthy(install_path);
            // An identity-layout installation is complete once its receipt is there;
            // the receipt is written last.
            let has_receipt = is_active_postinstall
                || crate::install_layout::resolver::dir_name_of(install_path).is_none()
                || crate::install_layout::resolver::is_complete(install_path);

            let installed = is_healthy && is_not_incomplete && is_valid_symlink && has_receipt;
            if log::log_enabled!(log::Level::Trace) && !installed {
                let mut msg = format!(
                    "{} is not installed, path: {}",
                    self.ba(),
                    display_path(install_path)
                );
                if !is_installed {
                    msg += " (not installed)";
                }
                if !is_not_incomplete {
                    msg += " (incomplete)";
                }
                if !is_valid_symlink {
                    msg += " (runtime symlink)";
                }
                if is_installed && !is_healthy {
                    msg += " (unhealthy)";
                }
                trace!("{}", msg);
            }
            installed
        };
        match tv.request {
            ToolRequest::System { .. } => true,
            _ => {
                // Embedded-aube lock graphs are part of the physical install
                // identity. A version-only request path must never satisfy a
                // graph-locked request for the same top-level version.
                if tv.aube_lock.is_some() || tv.uv_lock.is_some() {
                    return check_path(&tv.install_path(), check_symlink);
                }
                // The identity layout resolves the exact installation for this
                // request. The request's version slot is a compatibility link that
                // can point at only one variant, so it is not consulted.
                if crate::install_layout::resolver::governs(tv) {
                    return check_path(&tv.install_path(), check_symlink);
                }
                if let Some(install_path) = tv.request.install_path(config)
                    && check_path(&install_path, true)
                {
                    // The request's install_path is derived from the REQUEST version
                    // (e.g., "latest" or prefix "1"), which may differ from the resolved
                    // concrete version. If they differ, the request path can refer to a
                    // stale install dir — for channel pins like `@latest` the dir is named
                    // after the channel (`installs/<id>/latest/`) from a prior install that
                    // never got a symlink (e.g., first install ran offline or remote resolution
                    // transiently returned None, leaving tv.version="latest"). We must check
                    // the RESOLVED path instead so that `mise upgrade` re-runs the backend's
                    // install hook and writes the new version to `installs/<id>/<new-version>/`.
                    if matches!(
                        &tv.request,
                        ToolRequest::Version { .. } | ToolRequest::Prefix { .. }
                    ) && install_path
                        .file_name()
                        .is_some_and(|f| f.to_string_lossy() != tv.version)
                    {
                        return check_path(&tv.install_path(), check_symlink);
                    }
                    return true;
                }
                check_path(&tv.install_path(), check_symlink)
            }
        }
    }

    /// Whether an explicit install request is already satisfied.
    ///
    /// Most backends are satisfied when the version's install path exists. Some
    /// backends have extra mutable install state outside mise's install path,
    /// such as rustup components and targets.
    async fn is_install_satisfied(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        check_symlink: bool,
    ) -> Result<bool> {
        Ok(self.is_version_installed(config, tv, check_symlink))
    }

    /// Bring an installed but unsatisfied version back in line with its
    /// request without reinstalling it. Returns `false` when the backend cannot
    /// repair in place, in which case mise reinstalls the version.
    async fn repair_install(&self, _ctx: &InstallContext, _tv: &ToolVersion) -> Result<bool> {
        Ok(false)
    }

    /// Confirm a repaired install now satisfies its request, after the
    /// tool-level `postinstall` script has run.
    async fn verify_repaired_install(
        &self,
        _ctx: &InstallContext,
        _tv: &ToolVersion,
    ) -> Result<()> {
        Ok(())
    }

    /// Confirm a newly installed version still satisfies its request after
    /// tool-level postinstall hooks have run.
    async fn verify_install(&self, _ctx: &InstallContext, _tv: &ToolVersion) -> Result<()> {
        Ok(())
    }

    async fn is_install_satisfied_or_false(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        check_symlink: bool,
    ) -> bool {
        self.is_install_satisfied(config, tv, check_symlink)
            .await
            .unwrap_or_else(|err| {
                debug!(
                    "is_install_satisfied check failed for {}: {err:#}",
                    tv.style()
                );
                false
            })
    }
    async fn is_version_outdated(&self, config: &Arc<Config>, tv: &ToolVersion) -> bool {
        let latest = match tv.latest_version(config).await {
            Ok(latest) => latest,
            Err(e) => {
                warn!(
                    "Error getting latest version for {}: {:#}",
                    self.ba().to_string(),
                    e
                );
                return false;
            }
        };
        !self.is_version_installed(config, tv, true) || is_outdated_version(&tv.version, &latest)
    }
    fn symlink_path(&self, tv: &ToolVersion) -> Option<PathBuf> {
        let path = tv.install_path();
        if !path.is_symlink() {
            return None;
        }
        // Only skip symlinks pointing within installs (user aliases, not backend-managed)
        if let Ok(Some(target)) = file::resolve_symlink(&path) {
            let target = if target.is_absolute() {
                target
            } else {
                path.parent().unwrap_or(&path).join(&target)
            };
            // Canonicalize to resolve any ".." components before checking.
            // If target doesn't exist (canonicalize fails), don't skip - treat as needing install
            let target = canonicalize_cached(&target)?;
            // Canonicalize INSTALLS too for consistent comparison (handles symlinked data
            // dirs), and the install store, where a version link points.
            for own in [*dirs::INSTALLS, *dirs::INSTALL_STORE] {
                let own = canonicalize_cached(own).unwrap_or(own.to_path_buf());
                if target.starts_with(&own) {
                    return Some(path);
                }
            }
            // Also check shared install directories
            for shared_dir in env::shared_install_dirs() {
                let shared = canonicalize_cached(&shared_dir).unwrap_or(shared_dir.to_path_buf());
                if target.starts_with(&shared) {
                    return Some(path);
                }
            }
        }
        None
    }
    fn list_installed_versions_matching(&self, query: &str) -> Vec<String> {
        let versions = self.list_installed_versions();
        // No async config lookup available here; fall back to inline/registry
        // opts, which is the best we have for a sync path.
        let filter = !self.include_prereleases(&self.ba().opts());
        self.fuzzy_match_filter(versions, query, filter)
    }
    async fn list_versions_matching(
        &self,
        config: &Arc<Config>,
        query: &str,
    ) -> eyre::Result<Vec<String>> {
        let opts = config.get_tool_opts_with_overrides(self.ba()).await?;
        self.list_versions_matching_with_selection_options(config, query, &opts, None, false)
            .await
    }

    /// List versions matching a query, optionally filtered by release date.
    /// Use this when you have a `before_date` from ResolveOptions.
    async fn list_versions_matching_with_opts(
        &self,
        config: &Arc<Config>,
        query: &str,
        before_date: Option<Timestamp>,
        refresh: bool,
    ) -> eyre::Result<Vec<String>> {
        let opts = config.get_tool_opts_with_overrides(self.ba()).await?;
        self.list_versions_matching_with_selection_options(
            config,
            query,
            &opts,
            before_date,
            refresh,
        )
        .await
    }
    /// List versions matching a query using the active request's selection options.
    async fn list_versions_matching_with_selection_options(
        &self,
        config: &Arc<Config>,
        query: &str,
        selection_opts: &ToolVersionOptions,
        before_date: Option<Timestamp>,
        refresh: bool,
    ) -> eyre::Result<Vec<String>> {
        let versions = match before_date {
            Some(before) => {
                // Use version info to filter by date
                let versions_with_info = self
                    .list_remote_versions_with_info_with_selection_options(
                        config,
                        selection_opts,
                        refresh,
                    )
                    .await?;
                let filtered = VersionInfo::filter_by_date(versions_with_info, before);
                // Warn if no versions have timestamps
                if filtered.iter().all(|v| v.created_at.is_none()) && !filtered.is_empty() {
                    debug!(
                        "Backend {} does not provide release dates; release-date filter may not work as expected",
                        self.id()
                    );
                }
                filtered.into_iter().map(|v| v.version).collect()
            }
            None => {
                self.list_remote_versions_with_selection_options(config, selection_opts, refresh)
                    .await?
            }
        };
        let filter = !self.include_prereleases(selection_opts);
        let versions = self.fuzzy_match_filter(versions, query, filter);
        let mut versions = self.version_order(selection_opts)?.order(versions);
        // Every caller that resolves a request — `latest`, a prefix, a partial
        // version — takes the last entry of this list, so the cutoff has to be
        // exact by the time it is returned.
        if let Some(before) = before_date {
            self.drop_matches_hidden_by_cutoff(
                config,
                &mut versions,
                before,
                selection_opts,
                query,
            )
            .await?;
        }
        Ok(versions)
    }

    /// Remote versions the release-age cutoff excluded, in listing order.
    ///
    /// Resolution calls this only after a filtered listing already failed to
    /// produce a match, so the remote-version cache is warm and this adds no
    /// fetch. `query` narrows the result exactly as the failed resolution did,
    /// so a prefix request never reports versions it would not have selected
    /// anyway.
    async fn versions_hidden_by_before_date(
        &self,
        config: &Arc<Config>,
        query: &str,
        before: Timestamp,
    ) -> eyre::Result<Vec<VersionInfo>> {
        let opts = config.get_tool_opts_with_overrides(self.ba()).await?;
        let backend = self.ba().full();
        let hidden: Vec<VersionInfo> = self
            .list_remote_versions_with_info_with_selection_options(config, &opts, false)
            .await?
            .into_iter()
            .map(|mut v| {
                // A version the listing could not afford to date may still have
                // been dated on demand while the cutoff was applied. Without
                // that, the versions this message exists to name are exactly the
                // ones it cannot see.
                if v.created_at.is_none()
                    && let Some(created_at) = on_demand_release_date(&backend, &v.version)
                {
                    v.created_at = Some(created_at);
                }
                v
            })
            .filter(|v| {
                v.created_at_timestamp()
                    .is_some_and(|created| created >= before)
            })
            .collect();
        let matched: HashSet<String> = self
            .fuzzy_match_filter(
                hidden.iter().map(|v| v.version.clone()).collect(),
                query,
                !self.include_prereleases(&opts),
            )
            .into_iter()
            .collect();
        // `latest` resolution falls back to the whole date-filtered list when
        // its numeric pattern matches nothing, so the hidden set has to as
        // well. Otherwise tools tagged `nightly`, `edge` and the like — the
        // ones least likely to make the cutoff obvious — drop back to the bare
        // message this exists to replace.
        let hidden = if matched.is_empty() && query == "latest" {
            hidden
        } else {
            hidden
                .into_iter()
                .filter(|v| matched.contains(&v.version))
                .collect()
        };
        Ok(self
            .version_order(&opts)?
            .order_by(hidden, |v: &VersionInfo| v.version.as_str()))
    }

    /// Select the latest query match using the active request's options.
    async fn latest_version_for_query_with_selection_options(
        &self,
        config: &Arc<Config>,
        query: &str,
        selection_opts: &ToolVersionOptions,
        before_date: Option<Timestamp>,
        refresh: bool,
    ) -> eyre::Result<Option<String>> {
        if let Some(version) = Box::pin(resolve_from_versions_index(
            self,
            config,
            query,
            IndexPick::Request,
            selection_opts,
            before_date,
            refresh,
        ))
        .await
        {
            return Ok(Some(version));
        }
        let mut matches = self
            .list_versions_matching_with_selection_options(
                config,
                query,
                selection_opts,
                before_date,
                refresh,
            )
            .await?;
        if matches.is_empty() && query == "latest" {
            // Fall back to all versions if no match
            matches = match before_date {
                Some(before) => {
                    let versions_with_info = self
                        .list_remote_versions_with_info_with_selection_options(
                            config,
                            selection_opts,
                            refresh,
                        )
                        .await?;
                    VersionInfo::filter_by_date(versions_with_info, before)
                        .into_iter()
                        .map(|v| v.version)
                        .collect()
                }
                None => {
                    self.list_remote_versions_with_selection_options(
                        config,
                        selection_opts,
                        refresh,
                    )
                    .await?
                }
            };
            matches = self.version_order(selection_opts)?.order(matches);
            // `list_versions_matching_with_selection_options` already did this
            // for the list above; this branch built its own.
            if let Some(before) = before_date {
                self.drop_matches_hidden_by_cutoff(
                    config,
                    &mut matches,
                    before,
                    selection_opts,
                    query,
                )
                .await?;
            }
        }
        Ok(find_match_in_list(&matches, query))
    }

    /// Drop the candidates a release-age cutoff hides but the listing left undated.
    ///
    /// `VersionInfo::filter_by_date` keeps an undated version, so a backend that
    /// could only afford to date part of its listing stops honoring the cutoff
    /// past that point. Ask [`Backend::fetch_version_created_at`] for the dates
    /// that decide the outcome: resolution takes the last entry of an ordered
    /// candidate list, so all it needs is where the hidden candidates at the
    /// end of that list begin.
    ///
    /// Each date can cost a network round trip, and how many versions sit
    /// past the cutoff is up to whoever publishes them (a Go tag on a commit
    /// dated in the future stays too new for good). So search for that point
    /// rather than walk to it: step back from the newest candidate, doubling
    /// the step, until one survives, then bisect the gap. That is a lookup per
    /// hidden version while the cutoff hides one or two, and logarithmic in
    /// the number of candidates when it hides hundreds or all of them.
    ///
    /// The check on what gets returned is exact; picking the *newest* eligible
    /// version is not. A backend whose version order is not chronological can
    /// land on an older version than it strictly had to, which is the safe
    /// direction for a supply-chain cutoff.
    async fn drop_matches_hidden_by_cutoff(
        &self,
        config: &Arc<Config>,
        matches: &mut Vec<String>,
        before: Timestamp,
        selection_opts: &ToolVersionOptions,
        query: &str,
    ) -> eyre::Result<()> {
        if matches.is_empty() {
            return Ok(());
        }
        // Cached from the listing this candidate set was built from.
        let dated: HashSet<String> = self
            .list_remote_versions_with_info_with_selection_options(config, selection_opts, false)
            .await?
            .into_iter()
            .filter(|v| v.created_at.is_some())
            .map(|v| v.version)
            .collect();
        // `filter_by_date` already checked the last dated candidate against
        // the cutoff, so only the undated ones after it are in question:
        // `lo..hi`, where everything from `hi` on is hidden.
        let mut lo = matches
            .iter()
            .rposition(|v| dated.contains(v))
            .map_or(0, |i| i + 1);
        let mut hi = matches.len();
        let mut bisecting = false;
        while lo < hi {
            let probe = if bisecting {
                lo + (hi - lo) / 2
            } else {
                // One more than the distance covered so far: 1, 2, 4, 8...
                hi.saturating_sub(matches.len() - hi + 1).max(lo)
            };
            let candidate = &matches[probe];
            let created_at = self
                // A version the request named in full is the user's own choice,
                // not one the cutoff picked, so it needs no warning. `latest` and
                // rolling channels are moving pointers, even when a backend lists
                // one as a literal version, so they are not pins.
                .release_date_for_cutoff(
                    config,
                    candidate,
                    before,
                    candidate != query || query == "latest" || self.is_rolling_channel(query),
                )
                .await;
            let info = VersionInfo {
                version: candidate.clone(),
                created_at,
                ..Default::default()
            };
            if info.hidden_by_date(before) {
                debug!(
                    "Dropping {}@{candidate}: released {:?}, after the {before} cutoff",
                    self.id(),
                    info.created_at
                );
                hi = probe;
            } else if info.created_at_timestamp().is_none() {
                // Allowed, and nothing to search by. Settle for it rather than
                // go on asking a source that may take the full timeout to fail.
                hi = probe + 1;
                break;
            } else {
                lo = probe + 1;
                bisecting = true;
            }
        }
        matches.truncate(hi);
        Ok(())
    }

    /// The release date of `candidate`, read on demand when the listing left it
    /// out, for checking it against `before`. `None` means no date could be
    /// found; the version is then allowed, and recorded for the install-time
    /// warning.
    async fn release_date_for_cutoff(
        &self,
        config: &Arc<Config>,
        candidate: &str,
        before: Timestamp,
        record_unchecked: bool,
    ) -> Option<String> {
        let backend = self.ba().full();
        let tool = self.ba().short.clone();
        // Reuse an answer this run already paid for; the error message
        // below asks for the same versions again.
        let created_at = match on_demand_release_date(&backend, candidate) {
            Some(created_at) => Some(created_at),
            None => match self.fetch_version_created_at(config, candidate).await {
                Ok(created_at) => {
                    remember_on_demand_release_date(&backend, candidate, created_at.as_deref());
                    if created_at.is_none() && record_unchecked {
                        note_undated_release(&tool, candidate, before, None);
                    }
                    created_at
                }
                Err(err) => {
                    // Allow a version whose date could not be read, the same as
                    // one from a backend that has no dates at all. These lookups
                    // reach the network one candidate at a time, so failing the
                    // resolution here would turn a slow proxy or VCS host into
                    // an install error for a request that resolved fine before
                    // the cutoff could be checked at all. Record it for the
                    // install-time warning, like an undated version: resolution
                    // also runs for `mise env` and `mise ls`.
                    debug!(
                        "{}@{candidate}: could not read its release date to check the {before} cutoff, allowing it: {err:#}",
                        self.id()
                    );
                    if record_unchecked {
                        note_undated_release(&tool, candidate, before, Some(format!("{err:#}")));
                    }
                    None
                }
            },
        };
        if created_at.is_some() {
            // A lookup that failed earlier may have left a record; this one
            // checked the cutoff, so the install must not say it could not.
            clear_undated_release(&tool, candidate);
        }
        created_at
    }

    /// Get the latest version, optionally filtered by release date.
    ///
    /// `latest_stable_version` may use backend-specific fast paths (dist tags,
    /// latest release endpoints, plugin scripts). If the fast path returns
    /// `None`, fall back to the shared version-list path here instead of
    /// duplicating that fallback in each backend. When a cutoff is active,
    /// accept the fast path result only when remote-version metadata verifies
    /// that the candidate is older than the cutoff.
    async fn latest_version(
        &self,
        config: &Arc<Config>,
        query: Option<String>,
        before_date: Option<Timestamp>,
    ) -> eyre::Result<Option<String>> {
        self.latest_version_with_refresh(config, query, before_date, false)
            .await
    }

    /// Get the latest version without applying release-date cutoffs.
    ///
    /// This is intended for diagnostics that compare a date-filtered result
    /// with the absolute latest result. Normal resolution should use
    /// `latest_version` so global, per-tool, and default release-age cutoffs are
    /// honored.
    async fn latest_version_unfiltered(
        &self,
        config: &Arc<Config>,
        query: Option<String>,
    ) -> eyre::Result<Option<String>> {
        let opts = config.get_tool_opts_with_overrides(self.ba()).await?;
        self.latest_version_unfiltered_with_selection_options(config, query, &opts)
            .await
    }

    /// Get the latest version for a request without applying release-age cutoffs.
    async fn latest_version_unfiltered_with_selection_options(
        &self,
        config: &Arc<Config>,
        query: Option<String>,
        selection_opts: &ToolVersionOptions,
    ) -> eyre::Result<Option<String>> {
        let resolved_query = query.as_deref().unwrap_or("latest");
        self.version_order(selection_opts)?;
        if self.should_use_latest_stable_fast_path(resolved_query, selection_opts) {
            if let Some(info) = self.latest_stable_version_info(config).await? {
                return Ok(Some(info.version));
            }
            if let Some(version) = self.latest_stable_version(config).await? {
                return Ok(Some(version));
            }
        }
        self.latest_version_for_query_with_selection_options(
            config,
            resolved_query,
            selection_opts,
            None,
            false,
        )
        .await
    }

    /// Like `latest_version` but with explicit refresh control. Pass
    /// `refresh = true` to re-fetch the remote-versions list (unless it was
    /// written within `REFRESH_REUSES_LISTS_NEWER_THAN`) when falling back to
    /// the full version-list path. The `latest_stable_version` fast
    /// path is still tried first — it queries canonical upstream endpoints
    /// (e.g. GitHub's `/releases/latest`, npm dist tags) which are
    /// authoritative and not subject to the local version-list cache, so
    /// skipping it would actually return *older* results than refreshing the
    /// list (which itself may go through a versions-host cache).
    async fn latest_version_with_refresh(
        &self,
        config: &Arc<Config>,
        query: Option<String>,
        before_date: Option<Timestamp>,
        refresh: bool,
    ) -> eyre::Result<Option<String>> {
        let opts = config.get_tool_opts_with_overrides(self.ba()).await?;
        self.latest_version_with_selection_options(config, query, &opts, before_date, refresh)
            .await
    }

    /// Whether the active request can use a backend's stable-latest shortcut.
    fn should_use_latest_stable_fast_path(
        &self,
        query: &str,
        selection_opts: &ToolVersionOptions,
    ) -> bool {
        query == "latest" && !self.include_prereleases(selection_opts)
    }

    /// Get the latest version using the active request's candidate-selection options.
    async fn latest_version_with_selection_options(
        &self,
        config: &Arc<Config>,
        query: Option<String>,
        selection_opts: &ToolVersionOptions,
        before_date: Option<Timestamp>,
        refresh: bool,
    ) -> eyre::Result<Option<String>> {
        let before_date = effective_latest_before_date(self, selection_opts, before_date)?;
        let resolved_query = query.as_deref().unwrap_or("latest");
        let mut fallback_refresh = refresh;
        self.version_order(selection_opts)?;
        let latest = if self.should_use_latest_stable_fast_path(resolved_query, selection_opts) {
            match self
                .latest_stable_version_info_before(config, before_date)
                .await?
            {
                Some(info) => Some(info),
                None => self
                    .latest_stable_version(config)
                    .await?
                    .map(|version| VersionInfo {
                        version,
                        ..Default::default()
                    }),
            }
        } else {
            None
        };
        if let Some(latest) = latest {
            let version = latest.version.clone();
            match before_date {
                Some(before) => {
                    let allowed = if latest.created_at.is_some() {
                        latest_stable_candidate_allowed_by_before_date(
                            &version,
                            Some(&latest),
                            before,
                        )
                    } else {
                        let versions = self
                            .list_remote_versions_with_info_with_selection_options(
                                config,
                                selection_opts,
                                refresh,
                            )
                            .await?;
                        fallback_refresh = false;
                        let info = versions.iter().find(|v| v.version == version);
                        if info.is_some_and(|v| v.created_at.is_none()) {
                            // The listing left it undated: ask for its date the way
                            // the list path does, so a backend that dates only part
                            // of a listing still holds back a too-new stable pick.
                            let dated = VersionInfo {
                                version: version.clone(),
                                created_at: self
                                    .release_date_for_cutoff(config, &version, before, true)
                                    .await,
                                ..Default::default()
                            };
                            latest_stable_candidate_allowed_by_before_date(
                                &version,
                                Some(&dated),
                                before,
                            )
                        } else {
                            latest_stable_candidate_allowed_by_before_date(&version, info, before)
                        }
                    };
                    if allowed {
                        return Ok(Some(version));
                    }
                }
                None => return Ok(Some(version)),
            }
        }
        self.latest_version_for_query_with_selection_options(
            config,
            resolved_query,
            selection_opts,
            before_date,
            fallback_refresh,
        )
        .await
    }
    fn latest_installed_version(&self, query: Option<String>) -> eyre::Result<Option<String>> {
        match query {
            Some(query) => {
                let matches = self.list_installed_versions_matching(&query);
                Ok(find_match_in_list(&matches, &query))
            }
            None => {
                // Lazy backend loading keeps the request's primary (user) install
                // path, even when the only installed versions live in a system or
                // shared directory. Install state has already applied that fallback
                // and records the directory that supplied the tool.
                let installs_path = install_state::get_tool(&self.ba().short)
                    .and_then(|tool| tool.installs_path)
                    .unwrap_or_else(|| self.ba().installs_path().to_path_buf());
                let filter = !self.include_prereleases(&self.ba().opts());
                let installed_symlink = installs_path.join("latest");
                if installed_symlink.exists()
                    && let Some(target) = file::resolve_symlink(&installed_symlink)?
                {
                    let version = target
                        .file_name()
                        .ok_or_else(|| eyre!("Invalid symlink target"))?
                        .to_string_lossy()
                        .to_string();
                    // A `latest` link written before the backend could tell this
                    // version is a pre-release must not keep winning, and neither
                    // may one left pointing into an interrupted install.
                    if (!filter || !self.is_backend_prerelease(&version))
                        && !install_state::is_incomplete(self.ba(), &version)
                    {
                        return Ok(Some(version));
                    }
                }
                let mut installed = file::dir_subdirs(&installs_path)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|v| !v.starts_with('.'))
                    .filter(|v| !is_runtime_symlink(&installs_path.join(v)))
                    .filter(|v| !install_state::is_incomplete(self.ba(), v))
                    .filter(|v| v != "latest")
                    .collect_vec();
                install_state::sort_versions(&mut installed);
                // Prefer a stable install, but a tool that only publishes
                // pre-releases (an npm package whose `latest` dist-tag is an rc)
                // must still resolve `latest` to what is installed.
                Ok(installed
                    .iter()
                    .rfind(|v| !filter || !self.is_backend_prerelease(v))
                    .or(installed.last())
                    .cloned())
            }
        }
    }

    /// Get version info for a specific version (including checksum for rolling releases)
    async fn get_version_info(&self, config: &Arc<Config>, version: &str) -> Option<VersionInfo> {
        let versions = match self.list_remote_versions_with_info(config).await {
            Ok(v) => v,
            Err(_) => return None,
        };
        versions.into_iter().find(|v| v.version == version)
    }

    /// Where to read about `version`, which `latest_version` just resolved
    /// for `query`.
    ///
    /// A plain `latest` without prereleases came from the stable-latest
    /// shortcut, which carries the release URL. The remote listing has not
    /// been read on that path, so fetching it first costs a request (for
    /// `github:` a page of releases) to learn what the shortcut already says,
    /// and it can trail the shortcut and miss the freshest release. A URL in a
    /// listing some earlier command cached is still read first, since that
    /// costs no request where asking the shortcut again might (`go:` does not
    /// cache it). Every other query was resolved from the listing, which is
    /// then cached, so that is asked first.
    async fn resolved_release_url(
        &self,
        config: &Arc<Config>,
        version: &str,
        query: &str,
        selection_opts: &ToolVersionOptions,
    ) -> Option<String> {
        let shortcut = async || {
            self.latest_stable_version_info(config)
                .await
                .ok()
                .flatten()
                // Only if it is describing the version actually being reported.
                .filter(|info| info.version == version)
                .map(|info| info.release_url)
        };
        let listed = async || {
            self.get_version_info(config, version)
                .await
                .map(|info| info.release_url)
        };
        if self.should_use_latest_stable_fast_path(query, selection_opts) {
            if let Some(release_url) = self
                .cached_version_info(config, version)
                .await
                .and_then(|info| info.release_url)
            {
                return Some(release_url);
            }
            match shortcut().await {
                Some(release_url) => release_url,
                None => listed().await.flatten(),
            }
        } else {
            match listed().await {
                Some(release_url) => release_url,
                None => shortcut().await.flatten(),
            }
        }
    }

    /// `version` from the remote listing as already cached, stale or not,
    /// without fetching anything.
    async fn cached_version_info(
        &self,
        config: &Arc<Config>,
        version: &str,
    ) -> Option<VersionInfo> {
        let resolved_opts = config
            .resolve_tool_opts_with_overrides(self.ba())
            .await
            .ok()?;
        let has_local_version_listing_override = has_local_version_listing_option_override(
            &resolved_opts,
            self.remote_version_listing_tool_option_keys(),
        );
        let cache_context = self
            .remote_version_cache_context_for(
                config,
                resolved_opts.effective(),
                has_local_version_listing_override,
            )
            .await
            .ok()?;
        let cache = match cache_context.as_deref() {
            Some(context) => self.get_remote_version_cache_with_context(Some(context)),
            None => self.get_remote_version_cache(),
        };
        let versions = cache.lock().await.get_cached().ok()?;
        versions.into_iter().find(|v| v.version == version)
    }

    /// Whether the backend's installer updates an already installed rolling
    /// version in place. When it does, a rolling reinstall skips the uninstall
    /// that would otherwise precede it, so a failed install leaves the old
    /// version usable (rustup shares one toolchain between projects).
    fn updates_rolling_version_in_place(&self) -> bool {
        false
    }

    /// Check if a rolling version has changed (by comparing checksums)
    /// Returns true if the version should be updated
    async fn is_rolling_version_outdated(&self, config: &Arc<Config>, tv: &ToolVersion) -> bool {
        use crate::toolset::install_state;

        let version = tv.request.version();

        // A rolling release keeps its name, so it resolves to itself (`nightly`
        // installs as `nightly`). A request that resolved to some other
        // version (`latest` to `1.8.2`) is not one: the checksum below would
        // compare `1.8.2`'s install against whatever `latest` names upstream.
        // Answer that without the listing, which a `latest` resolved by the
        // stable-latest shortcut has not otherwise fetched.
        if tv.version != version {
            return false;
        }

        // Get the latest version info
        let version_info = match self.get_version_info(config, &version).await {
            Some(v) if v.rolling => v,
            _ => return false, // Not rolling or not found
        };

        // The versions host carries the platform-independent rolling bit, but
        // not the checksum because release assets vary by OS and architecture.
        // Fetch direct backend metadata only for rolling entries that need it.
        let latest_checksum = match version_info.checksum {
            Some(checksum) => checksum,
            None if Settings::get().offline() => {
                trace!(
                    "No cached checksum available for rolling version {} while offline",
                    version
                );
                return false;
            }
            None => match crate::toolset::with_safe_mode_tool_scope(
                self.ba(),
                self._list_remote_versions(config),
            )
            .await
            {
                Ok(versions) => match versions
                    .into_iter()
                    .find(|info| info.version == version && info.rolling)
                    .and_then(|info| info.checksum)
                {
                    Some(checksum) => checksum,
                    None => {
                        trace!(
                            "No checksum available for rolling version {}, cannot detect updates",
                            version
                        );
                        return false;
                    }
                },
                Err(err) => {
                    debug!(
                        "Failed to fetch direct metadata for rolling version {}: {err:#}",
                        version
                    );
                    return false;
                }
            },
        };

        // Compare with stored checksum
        let stored_checksum = install_state::read_checksum(&tv.install_path());
        match stored_checksum {
            Some(stored) if stored == latest_checksum => {
                trace!("Rolling version {} checksum unchanged", version);
                false
            }
            Some(stored) => {
                trace!(
                    "Rolling version {} checksum changed: {} -> {}",
                    version, stored, latest_checksum
                );
                true
            }
            None => {
                trace!(
                    "No stored checksum for rolling version {}, assuming outdated",
                    version
                );
                true
            }
        }
    }

    fn purge(&self, pr: &dyn SingleReport) -> eyre::Result<()> {
        crate::install_layout::resolver::purge_installs(self.ba())?;
        remove_all_with_progress(self.ba().installs_path(), pr)?;
        remove_all_with_progress(self.ba().cache_path(), pr)?;
        remove_all_with_progress(self.ba().downloads_path(), pr)?;
        install_state::clear_incomplete_markers(self.ba())?;
        Ok(())
    }
    fn get_aliases(&self) -> eyre::Result<BTreeMap<String, String>> {
        Ok(BTreeMap::new())
    }

    /// Resolves a version alias that depends on remote data, such as an `lts`
    /// channel that moves with each release. `get_aliases` is synchronous and
    /// runs on every config load, so it can only hold fixed mappings.
    ///
    /// Config-defined and `get_aliases` entries win; this is asked last, and
    /// `None` leaves the version as written.
    async fn resolve_dynamic_alias(&self, _version: &str) -> eyre::Result<Option<String>> {
        Ok(None)
    }

    /// Returns a list of idiomatic filenames for this tool.
    ///
    /// This method is additive:
    /// 1. It calls `_idiomatic_filenames` to get backend-specific filenames.
    /// 2. It checks the Registry for any additional filenames defined there.
    async fn idiomatic_filenames(&self) -> Result<Vec<String>> {
        let mut filenames = self._idiomatic_filenames().await?;
        if let Some(rt) = REGISTRY.get(self.id()) {
            filenames.extend(rt.idiomatic_files.iter().map(|f| f.path.to_string()));
        }
        filenames = filenames.into_iter().unique().collect();
        Ok(filenames)
    }

    /// Backend-specific implementation for `idiomatic_filenames`.
    /// Override this to provide native idiomatic filenames for the backend.
    async fn _idiomatic_filenames(&self) -> Result<Vec<String>> {
        Ok(vec![])
    }

    /// Parses an idiomatic version file to extract the version.
    ///
    /// This handles special files like `package.json` which are parsed natively to avoid
    /// every backend needing to implement `package.json` support. For other files, it
    /// delegates to `_parse_idiomatic_file`.
    async fn parse_idiomatic_file(&self, path: &Path) -> eyre::Result<Vec<String>> {
        if let Some(versions) = REGISTRY
            .get(self.id())
            .map(|rt| parse_matching_registry_idiomatic_file(path, rt.idiomatic_files))
            .transpose()?
            .flatten()
        {
            return Ok(versions);
        }
        if crate::config::config_file::idiomatic_version::package_json::is_package_json(path) {
            return crate::config::config_file::idiomatic_version::package_json::parse(
                path,
                self.id(),
            );
        }
        self._parse_idiomatic_file(path).await
    }

    /// Parses an idiomatic version file to extract versions plus backend options
    /// implied by that file.
    async fn parse_idiomatic_file_with_options(
        &self,
        path: &Path,
    ) -> eyre::Result<Vec<(String, ToolVersionOptions)>> {
        let versions = if let Some(versions) = REGISTRY
            .get(self.id())
            .map(|rt| parse_matching_registry_idiomatic_file(path, rt.idiomatic_files))
            .transpose()?
            .flatten()
        {
            versions
                .into_iter()
                .map(|version| (version, None))
                .collect()
        } else if crate::config::config_file::idiomatic_version::package_json::is_package_json(path)
        {
            crate::config::config_file::idiomatic_version::package_json::parse_with_options(
                path,
                self.id(),
            )?
        } else {
            self._parse_idiomatic_file_with_options(path).await?
        };
        let options = self.ba().opts();
        versions
            .into_iter()
            .map(|(version, file_options)| {
                let mut options = options.clone();
                if let Some(file_options) = file_options {
                    // Idiomatic version files are read without trust, and
                    // `mise use` can copy these options into a mise.toml,
                    // which renders option values as templates once trusted.
                    if file_options
                        .opts_as_strings()
                        .values()
                        .any(|value| contains_template_syntax(value))
                    {
                        bail!(
                            "tool options from {} contain template syntax",
                            display_path(path)
                        );
                    }
                    options.apply_overrides(&file_options);
                }
                Ok((version, options))
            })
            .collect()
    }

    /// Backend-specific implementation for `parse_idiomatic_file_with_options`.
    /// Backends overriding this should only parse the file and return options
    /// implied by the file itself. Return `None` when a parsed version has no
    /// file-specific options. The public wrapper merges any returned options
    /// with `self.ba().opts()` so registry, alias, and backend defaults are
    /// preserved centrally.
    async fn _parse_idiomatic_file_with_options(
        &self,
        path: &Path,
    ) -> eyre::Result<Vec<IdiomaticVersion>> {
        Ok(self
            .parse_idiomatic_file(path)
            .await?
            .into_iter()
            .map(|version| (version, None))
            .collect())
    }

    /// Backend-specific implementation for `parse_idiomatic_file`.
    /// Default implementation reads the file and treats each whitespace-separated token as a version.
    /// Override to provide format-specific parsing; return `Err` on real failures so the plugin is skipped.
    async fn _parse_idiomatic_file(&self, path: &Path) -> eyre::Result<Vec<String>> {
        let contents = file::read_to_string(path)?;
        let normalized = normalize_idiomatic_contents(&contents);
        if normalized.is_empty() {
            return Ok(vec![]);
        }
        Ok(normalized
            .split_whitespace()
            .map(|s| s.to_string())
            .collect())
    }

    fn plugin(&self) -> Option<&PluginEnum> {
        None
    }

    async fn install_version(
        &self,
        ctx: InstallContext,
        tv: ToolVersion,
    ) -> eyre::Result<ToolVersion> {
        // Before anything is keyed by the version: it names the install directory, which plugin
        // hooks put into shell commands, and backends format it into download URLs.
        if tv.request.uses_resolved_version_as_pathname() {
            crate::toolset::tool_request::validate_installable_version(&tv.version)?;
        }
        // Read the entry through the BackendArg so a tool alias reaches it, and only warn
        // when the resolved backend is one of its own, so a plugin that overrides the
        // shorthand doesn't get a warning about a CLI it doesn't install.
        if let Some((rt, reason)) = self
            .ba()
            .registry_tool()
            .and_then(|rt| rt.deprecated.map(|reason| (rt, reason)))
            && rt.backends.iter().any(|rb| {
                split_bracketed_opts(rb.full).map_or(rb.full, |(name, _)| name)
                    == self.ba().full_without_opts()
            })
        {
            warn_once!("{} is deprecated: {reason}", rt.short);
        }
        let graph_install_is_current = !ctx.locked
            && !ctx.force
            && (tv.uv_lock.is_some() || tv.aube_lock.is_some())
            && self
                .is_install_satisfied_or_false(&ctx.config, &tv, true)
                .await;
        let mut tv = if graph_install_is_current {
            if let Some(graph) = &tv.uv_lock {
                graph.warn_if_missing();
            }
            if let Some(graph) = &tv.aube_lock {
                graph.warn_if_missing();
            }
            tv
        } else {
            self.prepare_install_version(&ctx, tv).await?
        };
        if let Some(spec) = self.option_spec() {
            // A tool stub file adds its own `bin` field to the tool's options.
            let stub_keys: &[&str] =
                if matches!(tv.request.source(), crate::toolset::ToolSource::ToolStub(_)) {
                    &["bin"]
                } else {
                    &[]
                };
            spec.check(
                &crate::install_layout::resolver::redact_credentials(&self.ba().short),
                &self.get_type(),
                &tv.request.options(),
                stub_keys,
            )?;
        }
        // Toolset installs preflight these options before doing any work, but
        // direct callers such as `install-into` must be protected here too.
        tv.request.ensure_safe_install_options()?;

        // Check for --locked mode: if enabled and no lockfile URL exists, fail early
        // Exempt tool stubs from lockfile requirements since they are ephemeral
        // Also exempt backends that don't support URL locking (e.g., Rust uses rustup)
        // This must run before the dry-run check so that --locked --dry-run still validates
        let settings = Settings::get();
        if ctx.locked && settings.lockfile == Some(false) {
            bail!(
                "locked mode requires lockfile to be enabled\n\
                hint: Remove `lockfile = false` or set `lockfile = true`, or disable locked mode"
            );
        }
        if ctx.locked && self.supports_lockfile_url() {
            let platform_key = self.get_platform_key_for(&tv);
            let has_lockfile_url = tv
                .lock_platforms
                .get(&platform_key)
                .and_then(|p| p.url.as_ref())
                .is_some();
            if !has_lockfile_url {
                bail!(
                    "No lockfile URL found for {} on platform {} (--locked mode)\n\
                    hint: Run `mise lock` to generate lockfile URLs, or disable locked mode",
                    tv.style(),
                    platform_key
                );
            }
        }

        // A rolling release (e.g. a `nightly` tag) keeps the same version string,
        // so its install dir already existing does NOT mean it's up-to-date.
        let rolling_reinstall = !ctx.force
            && self.is_version_installed(&ctx.config, &tv, true)
            && self.is_rolling_version_outdated(&ctx.config, &tv).await;

        // Handle dry-run mode early to avoid plugin installation
        if ctx.dry_run {
            use crate::ui::progress_report::ProgressIcon;
            let satisfied = !ctx.force
                && self
                    .is_install_satisfied_or_false(&ctx.config, &tv, true)
                    .await
                && !rolling_reinstall;
            tv.install_satisfied = Some(satisfied);
            if satisfied {
                ctx.pr
                    .finish_with_icon("already installed".into(), ProgressIcon::Skipped);
            } else {
                // Only when an install would actually happen. Asking whether an already-installed
                // tool *could* be installed is a different question, and answering it here would
                // start failing `--dry-run` on machines whose tools predate a registry
                // restriction -- for an install that is not going to be attempted.
                self.verify_install_feasible(&ctx, &tv).await?;
                ctx.pr
                    .finish_with_icon("would install".into(), ProgressIcon::Skipped);
            }
            return Ok(tv);
        }

        // Identity layout: choose (and reserve) the directory this install goes into
        // before anything is keyed by it. A legacy install, an explicit
        // destination, or a request the layout does not cover returns `None`
        // and keeps its legacy path.
        let allocated =
            crate::install_layout::resolver::allocate(&tv, ctx.force || rolling_reinstall)?;
        if let Some(allocated) = &allocated {
            tv.install_path = Some(allocated.dir.clone());
        } else if let Some(legacy) = crate::install_layout::resolver::legacy_in_place(&tv) {
            // A legacy install is refreshed where it is. Its path is fixed now: a
            // forced reinstall removes it first, and the path would otherwise
            // resolve to a hashed directory that nothing records.
            tv.install_path = Some(legacy);
        }

        #[cfg(unix)]
        if tv.install_path_is_explicit
            && env::install_path_category(&tv.install_path()) == env::InstallPathCategory::System
            && crate::system_install::needs_elevation(&tv.install_path())
            && (ctx.force
                || rolling_reinstall
                || !self
                    .is_install_satisfied_or_false(&ctx.config, &tv, true)
                    .await)
        {
            let mut ctx = ctx;
            ctx.force |= rolling_reinstall;
            return crate::system_install::install(self, ctx, tv).await;
        }

        if let Some(plugin) = self.plugin() {
            plugin.is_installed_err()?;
        }

        // Incomplete markers are keyed by logical tool/version rather than by
        // the physical install path. Use the same logical key as link and
        // uninstall so shared and system installs cannot have their marker
        // cleared while an install is still in progress.
        let state_version = tv.state_key();
        // An identity-layout installation is shared by every spelling of its tool, so
        // it is locked by its own directory as well as by this tool's state below.
        let mut _identity_lock = block_on_lock(|| {
            crate::install_layout::resolver::lock_install(&tv.install_path(), &|pid| {
                ctx.pr.set_message(install_lock_wait_message(pid));
            })
        })?;
        // Another mise may be installing this exact version. Say so while we
        // wait on it: a row that sits in "resolving" for a minute looks hung.
        let mut _state_lock = Some(block_on_lock(|| {
            install_state::lock_tool_version_with_notice(tv.ba(), &state_version, &|pid| {
                ctx.pr.set_message(install_lock_wait_message(pid));
            })
        })?);

        let mut install_satisfied = self
            .is_install_satisfied_or_false(&ctx.config, &tv, true)
            .await
            && !rolling_reinstall;

        // An identity-layout installation found in a read-only shared root, or a
        // variant standing in for a bare version, is used as it is; anything that
        // would write (a forced or incompatible install, or a postinstall hook that
        // runs even when nothing is installed) is allocated afresh in the primary
        // root first, before it can touch that directory.
        let mut allocated = allocated;
        let always_postinstall = tv
            .request
            .options()
            .postinstall()
            .is_some_and(|(_, always)| always);
        if allocated.as_ref().is_some_and(|a| a.read_only)
            && (ctx.force || rolling_reinstall || !install_satisfied || always_postinstall)
        {
            let mut bare = tv.clone();
            bare.install_path = None;
            allocated = crate::install_layout::resolver::allocate(&bare, true)?;
            tv.install_path = allocated.as_ref().map(|a| a.dir.clone());
            install_satisfied = false;
            // The destination is now the primary directory: lock that one before
            // anything is changed in it. Locks are always taken installation first,
            // then the tool's state, so the state lock is released and retaken
            // for the new destination. (A shared root is never locked.)
            _state_lock = None;
            _identity_lock = None;
            _identity_lock = block_on_lock(|| {
                crate::install_layout::resolver::lock_install(&tv.install_path(), &|pid| {
                    ctx.pr.set_message(install_lock_wait_message(pid));
                })
            })?;
            _state_lock = Some(block_on_lock(|| {
                install_state::lock_tool_version_with_notice(tv.ba(), &tv.state_key(), &|pid| {
                    ctx.pr.set_message(install_lock_wait_message(pid));
                })
            })?);
        }

        // If the install path resolved to a shared dir (but wasn't explicitly set via
        // --system/--shared), redirect forced or incompatible installs to the primary dir
        // to avoid modifying shared installs.
        if (ctx.force || !install_satisfied)
            && tv.install_path.is_none()
            && env::install_path_category(&tv.install_path()) != env::InstallPathCategory::Local
        {
            tv.install_path = Some(tv.ba().installs_path().join(tv.tv_pathname()));
            install_satisfied = false;
        }

        let will_uninstall = (ctx.force
            || (rolling_reinstall && !self.updates_rolling_version_in_place()))
            && self.is_version_installed(&ctx.config, &tv, true);

        if install_satisfied && !will_uninstall {
            // A satisfied identity-layout install is shared: make sure this tool
            // has its version link, and remember a lockfile pin that adopted it.
            if let Err(err) = crate::install_layout::resolver::note_reuse(&tv) {
                warn!("could not record the use of {}: {err:#}", tv.style());
            }
            if let Some((script, true)) = tv.request.options().postinstall() {
                tv.install_satisfied = Some(true);
                ctx.pr
                    .set_message("running custom postinstall hook".to_string());
                self.run_postinstall_hook(&ctx, &tv, script).await?;
                ctx.pr.finish_with_icon(
                    "postinstall complete".to_string(),
                    crate::ui::progress_report::ProgressIcon::Skipped,
                );
            } else {
                ctx.pr.finish_with_icon(
                    "already installed".into(),
                    crate::ui::progress_report::ProgressIcon::Skipped,
                );
            }
            return Ok(tv);
        }
        // The scheduler has released this tool only after its in-batch dependencies
        // succeeded. Validate configured dependencies before replacing the target or
        // creating any of its install directories, then reuse the stored context in
        // backend and tool-level hooks.
        ctx.dependency_context(&tv.request).await?;

        // From here the install writes into its directory: repairing it in place
        // or installing it afresh.
        if let Some(allocated) = &allocated {
            crate::install_layout::resolver::note_writing(allocated)?;
        }

        // Repair in place before anything below removes the working install.
        if !ctx.force
            && !rolling_reinstall
            && !will_uninstall
            && self.is_version_installed(&ctx.config, &tv, true)
            && self.repair_install(&ctx, &tv).await?
        {
            // The installation is complete as it stands; make sure its version link and
            // any lockfile pin are recorded.
            crate::install_layout::resolver::note_satisfied(&tv);
            self.finish_install_changes(&ctx, &tv).await?;
            self.verify_repaired_install(&ctx, &tv).await?;
            install_state::clear_incomplete_marker_best_effort(tv.ba(), &tv.state_key());
            ctx.pr.finish_with_message("updated".to_string());
            return Ok(tv);
        }

        // Query backend for its operation plan and set up progress tracking
        let mut weights = self.install_operation_weights(&tv, &ctx).await;
        if will_uninstall {
            // Removing the old install is bookkeeping next to fetching the new
            // one, so it leads the plan with a small share.
            weights.insert(0, UNINSTALL_OPERATION_WEIGHT);
        }
        ctx.pr.start_operations_weighted(&weights);

        if will_uninstall {
            self.uninstall_version_unlocked(&ctx.config, &tv, ctx.pr.as_ref(), false)
                .await?;
            ctx.pr.next_operation();
        }

        // Track the installation asynchronously (fire-and-forget)
        // Do this before install so the request has time to complete during installation
        versions_host::track_install(tv.short(), &tv.ba().full(), &tv.version);

        ctx.pr.set_message("install".into());

        let old_tv = tv.clone();
        // An in-place update leaves the installed version with the backend, so a
        // failed update must not also take away mise's link to it.
        let kept_symlink = (rolling_reinstall && self.updates_rolling_version_in_place())
            .then(|| file::resolve_symlink(&tv.install_path()).ok().flatten())
            .flatten();
        let restore_kept_symlink = |tv: &ToolVersion| -> bool {
            let Some(target) = kept_symlink.as_ref() else {
                return false;
            };
            let install_path = tv.install_path();
            // A failure partway through create_install_dirs can leave a directory.
            let _ = file::remove_all(&install_path);
            let restored = install_path
                .parent()
                .map_or(Ok(()), file::create_dir_all)
                .and_then(|()| file::make_symlink(target, &install_path));
            if let Err(err) = &restored {
                warn!("failed to restore the install of {tv}: {err:#}");
            }
            restored.is_ok()
        };
        if let Err(e) = self.create_install_dirs(&tv) {
            if restore_kept_symlink(&tv) {
                self.settle_restored_install(&ctx, &tv).await;
            }
            return Err(e);
        }
        let install_env = tv.install_env();
        let install =
            crate::toolset::with_safe_mode_tool_scope(self.ba(), self.install_version_(&ctx, tv));
        let tv = match crate::env::with_install_env(install_env, install).await {
            Ok(tv) => tv,
            Err(e) => {
                self.cleanup_install_dirs_on_error(&old_tv);
                if restore_kept_symlink(&old_tv) {
                    self.settle_restored_install(&ctx, &old_tv).await;
                }
                // Pass through the error - it will be wrapped at a higher level
                return Err(e);
            }
        };

        let install_path = tv.install_path();
        // Identity layout: the receipt (it marks the install complete), the version
        // link for the requesting tool and the unlocked selection. A failure after
        // the receipt is written withdraws the install, as below.
        if let Some(allocated) = &allocated
            && let Err(err) = crate::install_layout::resolver::finish(
                &tv,
                allocated,
                ctx.force || rolling_reinstall,
            )
        {
            crate::install_layout::resolver::unpublish(&install_path);
            return Err(err);
        }
        // Everything below that can fail runs with the install already published,
        // so a failure withdraws it again instead of leaving a receipt behind.
        let bookkeeping = (|| -> eyre::Result<()> {
            let mut update_install_state = false;
            if install_path.starts_with(*dirs::INSTALLS)
                || crate::install_layout::resolver::is_primary_install(&install_path)
            {
                install_state::write_backend_meta(self.ba())?;
                update_install_state = true;
            } else if env::install_path_category(&install_path) != env::InstallPathCategory::Local {
                // For --system/--shared installs, write manifest to the target installs dir
                if let Some(installs_dir) = install_path.parent().and_then(|p| p.parent()) {
                    let manifest = installs_dir.join(".mise-installs.toml");
                    install_state::write_backend_meta_to(self.ba(), &manifest)?;
                    update_install_state = true;
                }
            }
            if update_install_state {
                install_state::add_tool_version(self.ba(), &install_path, &tv.tv_pathname());
            }
            Ok(())
        })();
        if let Err(err) = bookkeeping {
            if allocated.is_some() {
                crate::install_layout::resolver::unpublish(&install_path);
            }
            return Err(err);
        }

        self.cleanup_install_dirs(&tv);
        let finished = match self.finish_install_changes(&ctx, &tv).await {
            Ok(()) => {
                // Keep the incomplete marker through the postinstall hook, so a
                // failed hook leaves a version no later resolution selects. A
                // verification failure is the backend's to track (packslip keeps
                // a usable binary and marks only its skills incomplete).
                install_state::clear_incomplete_marker_best_effort(tv.ba(), &tv.state_key());
                self.verify_install(&ctx, &tv).await
            }
            Err(err) => Err(err),
        };
        if let Err(err) = finished {
            // A failed postinstall or verification leaves a half-done install: take
            // it back out of the layout so it is not selected, linked, or taken for
            // complete, and the next install repairs it.
            if allocated.is_some() {
                crate::install_layout::resolver::unpublish(&install_path);
            }
            return Err(err);
        }
        // A refresh of an unlocked request changes what every project that makes the
        // same request selects; say so rather than leave it implied.
        let selection_note = (ctx.force && allocated.as_ref().is_some_and(|a| a.selects.is_some()))
            .then_some("installed (updated the shared selection for this version)");
        ctx.pr
            .finish_with_message(selection_note.unwrap_or("installed").to_string());
        Ok(tv)
    }

    /// Steps shared by a fresh install and an in-place repair once the tool's
    /// files have changed.
    async fn finish_install_changes(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
    ) -> eyre::Result<()> {
        // Touch the data directory to trigger updates in hook-env after PATH changes.
        if let Err(err) = file::touch_dir(&dirs::DATA) {
            trace!("error touching data directory: {:?}", err);
        }
        if let Some((script, _)) = tv.request.options().postinstall() {
            ctx.pr
                .set_message("running custom postinstall hook".to_string());
            self.run_postinstall_hook(ctx, tv, script).await?;
        }
        Ok(())
    }

    async fn run_postinstall_hook(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        script: &str,
    ) -> eyre::Result<()> {
        // Resolve the hook against the exact version just installed (locked) rather
        // than the request's runtime symlink: for a fuzzy request (e.g. `version = "3"`)
        // the runtime symlink (installs/python/3) still points at the previous version
        // until all installs finish and symlinks are rebuilt. Without this, both the
        // hook's env (exec_env, e.g. a backend deriving PYTHONHOME/JAVA_HOME from
        // runtime_path()) and its PATH (list_bin_paths, e.g. `pip`) would resolve to a
        // stale install (#10347).
        let tv_exact = tv.clone().with_locked();

        // Get pre-tools environment variables from config
        let mut env_vars = self.exec_env(&ctx.config, &ctx.ts, &tv_exact).await?;

        // Add pre-tools environment variables from config (#6418).
        //
        // This asked for the already-resolved env (`env_maybe`), which during an
        // install is populated only if some earlier step in the same process
        // happened to resolve it. asdf plugins do, to run their own scripts, so
        // the promise held for `dummy` in the e2e test and for nothing else:
        // every other backend reached here with an empty config env.
        //
        // `postinstall_config_env` rather than `Config::env`: hooks run one after
        // another within an install batch and an `[env]` value can read a file an
        // earlier hook just wrote, so the process-wide memo would hand every later
        // hook the first one's snapshot.
        //
        // Best-effort: a `[env]` that cannot resolve is reported by the command
        // that needs it, and should not be what fails an otherwise good install.
        match postinstall_config_env(&ctx.config).await {
            Ok(config_env) => {
                for (k, v) in config_env {
                    env_vars.entry(k).or_insert(v);
                }
            }
            Err(err) => debug!("postinstall: skipping config env: {err:#}"),
        }
        let mut install_env_removals = Vec::new();
        for (key, value) in tv.install_env() {
            match value.into_string() {
                Some(value) => {
                    env_vars.insert(key, value);
                }
                None => {
                    env_vars.remove(&key);
                    install_env_removals.push(key);
                }
            }
        }
        let dependencies = ctx.dependency_context(&tv_exact.request).await?;

        // Surface `tools = true` `[env]` *value* directives (e.g. `CLOUDSDK_PYTHON =
        // "{{ tools.python.path }}/bin/python3"`) for the tool-level `postinstall`
        // hook, resolved against this tool's already-installed dependencies. The
        // config env added above is resolved without tools (`NonToolsOnly`), so it
        // omits these; the install dependency context is fully resolved (offline) so
        // `{{ tools.<dep>.path }}` maps to a real install path — `ctx.ts` is the raw,
        // unresolved install toolset during a combined install. PATH stays owned by
        // `path_env` below. Best-effort: a `tools = true` value evaluation error
        // leaves the tool-less env untouched.
        //
        // Gated on the tool declaring dependencies. Only a `tools = true` value that
        // can reference a dependency (installed first, by depends ordering) is
        // meaningful at this tool's install time. Tools with NO dependencies keep the
        // prior contract — `tools = true` env stays unavailable in `postinstall`
        // (#6418, e2e/config/test_hooks_postinstall_env) — since a *static*
        // `tools = true` value (no `{{ tools.* }}` reference) would otherwise leak in.
        // (#10282, follow-up to #10432)
        if !dependencies.declarations.is_empty() {
            let base = env_vars.clone();
            let tool_vals = dependencies.toolset.tool_val_env(&ctx.config, &base).await;
            match tool_vals {
                Ok(vals) => {
                    for (k, v) in vals {
                        // PATH is owned by path_env; exclude any casing on Windows.
                        if !env::is_path_key(&k) {
                            env_vars.insert(k, v);
                        }
                    }
                }
                Err(e) => debug!("postinstall: skipping tools=true value directives: {e:#}"),
            }
        }

        // Use the backend's list_bin_paths to get the correct binary directories
        // instead of hardcoding install_path/bin, which may not match the actual
        // binary location for backends like aqua.
        let bin_paths = self.list_bin_paths(&ctx.config, &tv_exact).await?;
        let mut path_env = PathEnv::new();
        for p in bin_paths {
            path_env.add(p);
        }
        for p in &dependencies.paths {
            path_env.add(p.clone());
        }
        for p in env::PATH.iter() {
            path_env.add(p.clone());
        }

        // Render tera template variables (e.g. {{tools.ripgrep.path}})
        let rendered_script = if contains_template_syntax(script) {
            let tera_ctx = ctx.ts.tera_ctx(&ctx.config).await?;
            let dir = tv.request.source().path().and_then(|p| p.parent());
            let mut tera = get_tera(dir);
            render_str(&mut tera, script, tera_ctx)?
        } else {
            script.to_string()
        };

        let shell = Settings::get().default_inline_shell()?;
        let (program, shell_args) = shell.split_first().ok_or_else(|| {
            eyre!(
                "default inline shell is empty; check unix_default_inline_shell_args / windows_default_inline_shell_args"
            )
        })?;

        let token = install_state::PostinstallToken::start(tv.ba(), &tv.state_key())?;
        let mut runner = CmdLineRunner::new(program)
            .env(&*env::PATH_KEY, path_env.join())
            .env("MISE_TOOL_INSTALL_PATH", tv.install_path())
            .env("MISE_TOOL_NAME", tv.ba().short.clone())
            .env(env::MISE_TOOL_VERSION_ENV_VAR, tv.version.clone())
            .with_pr(ctx.pr.as_ref())
            .cmd_body_args(shell_args, &rendered_script)
            .envs(env_vars);
        for key in install_env_removals {
            runner = runner.env_remove(key);
        }
        // After `install_env`, which must not be able to replace or remove it.
        runner = runner.env(POSTINSTALL_TOKEN_ENV, &token.token);

        // Keep the declaring config and active project distinct. MISE_CONFIG_FILE is also a
        // legacy alias for the global config, so pin the actual global path for nested mise calls.
        if let Some(source_path) = tv.request.source().path() {
            let config_root = config_root::config_root(source_path);
            let project_root = ctx.config.project_root.as_ref().unwrap_or(&config_root);
            runner = runner
                .env("MISE_CONFIG_FILE", source_path)
                .env("MISE_GLOBAL_CONFIG_FILE", global_config_path())
                .env("MISE_CONFIG_ROOT", &config_root)
                .env("MISE_PROJECT_ROOT", project_root);
        }

        let result = runner
            .optimize_inline(
                &rendered_script,
                &[],
                Settings::get().implicit_inline_shell(),
            )
            .execute();
        // Whether or not it succeeded: it may have changed a file or command
        // output that an `[env]` value reads, and the hooks after it are entitled
        // to see that.
        invalidate_postinstall_env();
        drop(token);
        result?;
        Ok(())
    }

    /// Returns the number of operations for installation progress tracking.
    /// Override this if your backend has a different number of operations.
    /// Default is 3: download, checksum, extract
    async fn install_operation_count(&self, _tv: &ToolVersion, _ctx: &InstallContext) -> usize {
        3
    }

    /// Relative cost of each install operation, in the order they run.
    ///
    /// Only used to pace a progress display, so an estimate is fine and nothing
    /// may depend on it. The default assumes the shape almost every backend
    /// here has — fetch the artifact, then verify and unpack it — and weights
    /// the fetch accordingly. Override it where that does not hold, such as a
    /// backend that compiles from source.
    async fn install_operation_weights(&self, tv: &ToolVersion, ctx: &InstallContext) -> Vec<f64> {
        default_operation_weights(self.install_operation_count(tv, ctx).await)
    }

    /// Whether this version could install here at all, judged without downloading anything.
    ///
    /// `--dry-run` answers before `install_version_` runs, so a backend that would have refused
    /// the platform, the version or the package type never got asked, and the answer came back
    /// "would install" for something that cannot. Backends that can tell cheaply -- from data
    /// already on disk or already fetched -- override this.
    ///
    /// **The default is silence, not a claim of feasibility.** A backend that has not implemented
    /// this says nothing about whether the install would work, and `--dry-run` stays as optimistic
    /// for it as it was before.
    async fn verify_install_feasible(
        &self,
        _ctx: &InstallContext,
        _tv: &ToolVersion,
    ) -> Result<()> {
        Ok(())
    }

    /// Finalize backend-specific install identity before the generic installer
    /// acquires locks or creates paths derived from the tool version.
    async fn prepare_install_version(
        &self,
        _ctx: &InstallContext,
        tv: ToolVersion,
    ) -> Result<ToolVersion> {
        Ok(tv)
    }

    async fn install_version_(&self, ctx: &InstallContext, tv: ToolVersion) -> Result<ToolVersion>;
    async fn uninstall_version(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        pr: &dyn SingleReport,
        dryrun: bool,
    ) -> eyre::Result<()> {
        let state_version = tv.state_key();
        let _identity_lock = if dryrun {
            None
        } else {
            crate::install_layout::resolver::lock_install(&tv.install_path(), &|_| {})?
        };
        let _state_lock = if dryrun {
            None
        } else {
            Some(install_state::lock_tool_version(tv.ba(), &state_version)?)
        };
        self.uninstall_version_unlocked(config, tv, pr, dryrun)
            .await
    }
    async fn uninstall_version_unlocked(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        pr: &dyn SingleReport,
        dryrun: bool,
    ) -> eyre::Result<()> {
        pr.set_message("uninstall".into());

        if !dryrun {
            self.uninstall_version_impl(config, pr, tv).await?;
        }
        // A dry run reports once, after every path is known: each message on a live
        // progress row is drawn as a row of its own, so reporting per path repeated the row.
        let mut would_remove: Vec<String> = vec![];
        let mut rmdir = |dir: &Path| {
            if dryrun {
                // Not `exists()`, which resolves a link: a dry run has to name the entry the real
                // run would remove, and a link whose target is gone is one of them.
                if entry_exists(dir) {
                    would_remove.push(display_path(dir));
                }
                return Ok(());
            }
            remove_all_with_progress(dir, pr)
        };
        let install_path = tv.install_path();
        if !dryrun {
            crate::install_layout::resolver::guard_removal(&install_path)?;
        }
        if !dryrun {
            // A removal in progress leaves a directory that is not the install it was, which a
            // check that takes no lock must not read as complete; the marker is cleared below.
            install_state::mark_incomplete(tv.ba(), &tv.state_key())?;
        }
        rmdir(&install_path)?;
        if !dryrun {
            // Version links into the removed installation, from every tool that
            // linked it. The catalog record stays, so a reinstall lands on the
            // same path.
            crate::install_layout::resolver::unlink_installation(&install_path);
            // The install is gone. The marker is shared by every install of this version, so
            // it must not outlive the removal if the download or cache cleanup below fails.
            install_state::clear_incomplete_marker(tv.ba(), &tv.state_key())?;
        }
        if !Settings::get().always_keep_download {
            rmdir(&tv.download_path())?;
        }
        rmdir(&tv.cache_path())?;
        if dryrun {
            if !would_remove.is_empty() {
                pr.set_message(format!("remove {}", would_remove.join(", ")));
            }
        } else {
            self.cleanup_empty_installs_dir();
        }
        Ok(())
    }
    async fn uninstall_version_impl(
        &self,
        _config: &Arc<Config>,
        _pr: &dyn SingleReport,
        _tv: &ToolVersion,
    ) -> Result<()> {
        Ok(())
    }
    /// Return the candidate bin directories for this tool version.
    ///
    /// Return *candidates*: do NOT filter on whether they currently exist, and
    /// do NOT cache an existence-filtered result. Existence is checked live by
    /// the callers that need it (shim generation in `shims::list_tool_bins`, and
    /// `which`); PATH-building callers tolerate missing dirs. Caching a
    /// `.exists()`-filtered value computed mid-install is what dropped shims in
    /// <https://github.com/jdx/mise/discussions/6468>: the cached value should be
    /// a pure function of the tool definition, not of transient install state.
    async fn list_bin_paths(
        &self,
        _config: &Arc<Config>,
        tv: &ToolVersion,
    ) -> Result<Vec<PathBuf>> {
        match tv.request {
            ToolRequest::System { .. } => Ok(vec![]),
            _ => Ok(vec![tv.runtime_path().join("bin")]),
        }
    }

    async fn exec_env(
        &self,
        _config: &Arc<Config>,
        _ts: &Toolset,
        _tv: &ToolVersion,
    ) -> Result<BTreeMap<String, String>> {
        Ok(BTreeMap::new())
    }

    async fn which(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        bin_name: &str,
    ) -> eyre::Result<Option<PathBuf>> {
        Ok(which_in_dirs(
            self.list_bin_paths(config, tv)
                .await?
                .into_iter()
                .filter(|p| p.parent().is_some()),
            bin_name,
            false,
        ))
    }

    /// [`Self::which`] narrowed to a path the OS can spawn.
    ///
    /// Same bin paths, same directory-major traversal, stricter predicate: a shebang-only
    /// `npm` or an `npm.ps1` is skipped and the search *continues*, so an `npm.cmd` beside
    /// them wins. `None` here is a stronger statement than [`Self::which`]'s — "this tool
    /// provides nothing spawnable for `bin_name`" — which is what makes a gate built on it
    /// trustworthy.
    ///
    /// No backend overrides [`Self::which`], so the two can never disagree about which
    /// directories they searched.
    async fn which_spawnable(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        bin_name: &str,
    ) -> eyre::Result<Option<PathBuf>> {
        Ok(which_in_dirs(
            self.list_bin_paths(config, tv)
                .await?
                .into_iter()
                .filter(|p| p.parent().is_some()),
            bin_name,
            true,
        ))
    }

    fn create_install_dirs(&self, tv: &ToolVersion) -> eyre::Result<()> {
        // Mark first: a check that takes no lock (the work list `mise install` builds, which
        // drops what it finds installed) reads a directory without a marker as complete, and
        // would otherwise see one while it is being removed, created or filled in below.
        // `create_dir_all` can return Ok without having created anything for a version Windows
        // refuses as a path; the marker sits in a directory named for the same version, so its
        // write is what reports it, naming the path.
        let was_incomplete = install_state::is_incomplete(tv.ba(), &tv.state_key());
        install_state::mark_incomplete(tv.ba(), &tv.state_key())?;
        let made = make_install_dirs(tv);
        // The marker is shared by every install of this tool version, so a setup that failed
        // without leaving a directory (an explicit destination that cannot be created) must not
        // leave behind a marker that makes a working install elsewhere look unfinished.
        if made.is_err() && !was_incomplete && !tv.install_path().exists() {
            install_state::clear_incomplete_marker_best_effort(tv.ba(), &tv.state_key());
        }
        made
    }
    fn cleanup_install_dirs_on_error(&self, tv: &ToolVersion) {
        if !Settings::get().always_keep_install {
            let install_path = tv.install_path();
            let install_removed = remove_all_with_warning(&install_path).is_ok()
                && matches!(
                    std::fs::symlink_metadata(&install_path),
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound
                );
            if install_removed {
                install_state::clear_incomplete_marker_best_effort(tv.ba(), &tv.state_key());
            }
            // Remove parent installs dir if it's now empty (no other versions present)
            let installs_path = &self.ba().installs_path();
            if installs_path.exists()
                && let Ok(entries) = file::dir_subdirs(installs_path)
                && entries.is_empty()
            {
                let _ = remove_all_with_warning(installs_path);
            }
            self.cleanup_install_dirs(tv);
        }
    }
    fn cleanup_install_dirs(&self, tv: &ToolVersion) {
        if !Settings::get().always_keep_download {
            let download_path = tv.download_path();
            if let Err(err) = crate::http::cleanup_download_dir(&download_path) {
                debug!(
                    "failed to clean download directory {}: {err:#}",
                    display_path(&download_path)
                );
            }
        }
    }
    fn cleanup_empty_installs_dir(&self) {
        let installs_path = &self.ba().installs_path();
        if file::dir_subdirs(installs_path).is_ok_and(|entries| entries.is_empty()) {
            let _ = file::remove_file(installs_path.join(".mise.backend.toml"));
            if installs_path
                .read_dir()
                .is_ok_and(|mut entries| entries.next().is_none())
            {
                let _ = remove_all_with_warning(installs_path);
            }
        }
    }
    /// After a failed in-place update put the previous install's link back,
    /// drop the incomplete marker `create_install_dirs` wrote (`always_keep_install`
    /// leaves it behind), but only when the backend still considers the install
    /// satisfied and its verification passes. Otherwise keep it so the next
    /// install repairs the version.
    async fn settle_restored_install(&self, ctx: &InstallContext, tv: &ToolVersion) {
        install_state::clear_incomplete_marker_best_effort(tv.ba(), &tv.state_key());
        let usable = self
            .is_install_satisfied_or_false(&ctx.config, tv, true)
            .await
            && self.verify_repaired_install(ctx, tv).await.is_ok();
        if !usable {
            let _ = install_state::mark_incomplete(tv.ba(), &tv.state_key());
        }
    }

    async fn path_env_for_cmd(&self, config: &Arc<Config>, tv: &ToolVersion) -> Result<OsString> {
        let path = self
            .list_bin_paths(config, tv)
            .await?
            .into_iter()
            .chain(
                self.dependency_toolset(config)
                    .await?
                    .list_paths(config)
                    .await,
            )
            .chain(env::PATH.clone());
        Ok(env::join_paths(path)?)
    }

    async fn dependency_toolset(&self, config: &Arc<Config>) -> eyre::Result<Toolset> {
        self.dependency_toolset_of(config, None).await
    }

    /// [`Backend::dependency_toolset`] resolving only the dependency named `only`, when
    /// one is given, and none of the others.
    async fn dependency_toolset_of(
        &self,
        config: &Arc<Config>,
        only: Option<&str>,
    ) -> eyre::Result<Toolset> {
        let dependencies = self
            .get_all_dependencies(true)?
            .into_iter()
            .map(|ba| ba.short)
            .filter(|short| only.is_none_or(|only| short == only))
            .collect();
        let mut ts: Toolset = config
            .get_tool_request_set()
            .await?
            .filter_by_tool(dependencies)
            .into();
        // Dependency envs only need PATH entries for tools that are already
        // available. Resolving offline avoids applying global release-age
        // cutoffs to helper tools like node/npm while querying another backend.
        ts.resolve_with_opts(
            config,
            &ResolveOptions {
                offline: true,
                ..Default::default()
            },
        )
        .await?;
        Ok(ts)
    }

    async fn dependency_which(&self, config: &Arc<Config>, bin: &str) -> Option<PathBuf> {
        // Never resolve a dependency to a mise shim: a shim re-enters mise and fails
        // ("No version is set for shim") when the tool is installed but not active in
        // any config. The dependency toolset below resolves the real install instead.
        if let Some(bin) = file::executable_names(bin)
            .into_iter()
            .find_map(file::which_no_shims)
        {
            return Some(bin);
        }
        let Ok(ts) = self.dependency_toolset(config).await else {
            return None;
        };
        let (b, tv) = ts.which(config, bin).await?;
        b.which(config, &tv, bin).await.ok().flatten()
    }

    async fn dependency_path_for_install(
        &self,
        config: &Arc<Config>,
        ts: Option<&Toolset>,
        bin: &str,
    ) -> Option<PathBuf> {
        if let Some(ts) = ts
            && let Some(bin) = ts.which_bin(config, bin).await
        {
            return Some(bin);
        }
        self.dependency_which(config, bin).await
    }

    /// The spawnable path for a dependency program: the same three sources as
    /// [`Self::dependency_path_for_install`] — the install's own toolset, the dependency
    /// toolset, and PATH — except every candidate must be something the OS can launch.
    ///
    /// The preference order deliberately differs from `dependency_path_for_install`,
    /// which consults PATH before the dependency toolset. This resolver stands in for
    /// the search `Command::spawn` used to perform itself: every spawn site hands the
    /// child an environment whose PATH has the dependency toolset's dirs *prepended*
    /// (`dependency_env`/`prepend_path`), and std resolves a bare program against that
    /// child PATH — so the mise-managed tool won. Resolving host PATH first here would
    /// flip that, and a system npm would beat the node-bundled one for the `ts: None`
    /// metadata probes (`npm view`, `gem sources`, `go list`). Dependency toolset first
    /// preserves the old selection.
    ///
    /// Returns `None` only when *nothing spawnable* exists in any of them, which is
    /// strictly stronger than `dependency_path_for_install`'s `None`: a `pipx.ps1`, a
    /// `pipx.vbs` or a shebang-only `pipx.pyz` satisfies that one, while this one steps
    /// past it and keeps looking. Use this for gate and bail decisions so that "we found
    /// it" and "we can run it" stop being two different questions.
    ///
    /// On unix the predicate degenerates to today's: `executable_names` yields one name,
    /// `can_execute_directly` *is* `is_executable`, and both the `is_file()` and shim
    /// filters are `cfg!(windows)`-gated. (`spawn_program` additionally short-circuits
    /// on unix and never calls this at all.)
    async fn spawnable_dependency(
        &self,
        config: &Arc<Config>,
        ts: Option<&Toolset>,
        bin: &str,
    ) -> Option<PathBuf> {
        if let Some(ts) = ts
            && let Some(bin) = ts.which_bin_spawnable(config, bin).await
        {
            return Some(bin);
        }
        if let Ok(dts) = self.dependency_toolset(config).await
            && let Some(bin) = dts.which_bin_spawnable(config, bin).await
        {
            return Some(bin);
        }
        which_non_pristine_spawnable(bin)
    }

    /// The program to hand `CmdLineRunner::new` or `cmd!` for `bin`.
    ///
    /// On Windows: a resolved absolute path when one spawnable candidate was found. mise's
    /// own lookup is PATHEXT-aware — `executable_names` expands the
    /// `windows_executable_extensions` setting — but `Command::new` is not: std only ever
    /// appends `.exe` to a bare name and then reports "program not found". mise's node
    /// install ships `npm` (a `#!/usr/bin/env bash` script), `npm.cmd` and `npm.ps1` but no
    /// `npm.exe`, and on Windows the node plugin puts the install root itself on PATH;
    /// pipx from scoop or `pip install pipx` is only ever `pipx.cmd` (discussion #5333).
    /// Handing over the resolved path skips std's weaker second lookup — std routes
    /// `.cmd`/`.bat` through cmd.exe with escaped arguments, the same way the `pip.cmd`
    /// wrappers mise synthesizes for Windows python are already run.
    ///
    /// Falls back to the bare name — today's behavior on every platform — when nothing
    /// spawnable resolved. The child still receives a PATH built from the toolset, so the
    /// fallback *is* the old code path and a genuinely missing program produces exactly the
    /// error it produces today.
    ///
    /// Unix keeps the bare name on purpose, and `cfg!(windows)` short-circuits so it does
    /// no filesystem work to get there. The unix spawn already works, and it is the child
    /// PATH that decides between a mise-managed tool and a system one
    /// (`e2e/backend/test_pipx_direct_dependencies` asserts that preference). Resolving
    /// there would move that decision out of the child's PATH and into mise.
    ///
    /// Returns `OsString`, and that is load-bearing rather than cosmetic: duct implements
    /// `IntoExecutablePath for PathBuf` as `Path::new(".").join(path)`, so a `PathBuf` in a
    /// `cmd!` program position becomes `./npm` and stops being a PATH lookup at all. duct's
    /// `OsString` impl returns the value verbatim, and std's `Command::new` never dotifies.
    async fn spawn_program(
        &self,
        config: &Arc<Config>,
        ts: Option<&Toolset>,
        bin: &str,
    ) -> OsString {
        let resolved = if cfg!(windows) {
            self.spawnable_dependency(config, ts, bin).await
        } else {
            None
        };
        match resolved {
            Some(path) => path.into_os_string(),
            None => OsString::from(bin),
        }
    }

    /// Check if a required dependency is available and show a warning if not.
    /// `provided_by` lists tool names that are known to provide the `program` binary
    /// (e.g., "npm" is provided by &["node"]). If any of these tools are configured
    /// in the toolset (even if not yet installed), the warning is suppressed since
    /// mise will install them as dependencies first.
    async fn warn_if_dependency_missing(
        &self,
        config: &Arc<Config>,
        program: &str,
        provided_by: &[&str],
        install_instructions: &str,
    ) {
        let found = self.dependency_which(config, program).await.is_some();

        if !found {
            // Check if a tool that provides this program is configured in the toolset
            // (even if not yet installed). If so, mise will install it as a dependency
            // before this tool needs it, so the warning is spurious.
            if let Ok(ts) = self.dependency_toolset(config).await
                && ts
                    .versions
                    .keys()
                    .any(|ba| provided_by.contains(&ba.short.as_str()))
            {
                return;
            }
            warn!(
                "{} may be required but was not found.\n\n{}",
                program, install_instructions
            );
        }
    }

    async fn dependency_env(&self, config: &Arc<Config>) -> eyre::Result<BTreeMap<String, String>> {
        // Use full_env_without_tools to avoid triggering `tools = true` env module
        // hooks (e.g., MiseEnv Lua hooks). Those modules may depend on tools that
        // are not in the dependency toolset, causing "command not found" errors.
        // The dependency env only needs tool bin paths on PATH, not module outputs.
        let mut env = self
            .dependency_toolset(config)
            .await?
            .full_env_without_tools(config)
            .await?;

        // Remove mise shims from PATH to prevent infinite shim recursion when a
        // dependency tool (e.g., go) is configured but not installed. Without this,
        // the shim for the dependency would call `mise exec` which would call the
        // shim again infinitely.
        //
        // `is_mise_shims_dir` covers both the user shims dir (`dirs::SHIMS`) and
        // the system shims dir (`MISE_SYSTEM_DATA_DIR/shims`). Both are typically
        // on PATH in devcontainer/Docker setups built with `mise install --system`;
        // filtering only one used to leak recursion through the other (#8475
        // closed the user dir for `dependency_env`, this PR closes the system dir
        // and aligns with the dual-dir guard already in `which_shim` (#8816)).
        self.remove_dependency_shims(&mut env)?;

        Ok(env)
    }

    async fn dependency_env_for_install(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
    ) -> eyre::Result<BTreeMap<String, String>> {
        let dependencies = ctx.dependency_context(&tv.request).await?;
        let mut env = dependencies.base_env_for_install(&ctx.config).await?;
        self.remove_dependency_shims(&mut env)?;
        Ok(env)
    }

    fn remove_dependency_shims(&self, env: &mut BTreeMap<String, String>) -> eyre::Result<()> {
        if let Some(path_val) = env.get(&*env::PATH_KEY) {
            let paths: Vec<_> = env::split_paths(path_val).collect();
            let original_len = paths.len();
            let filtered: Vec<_> = paths
                .into_iter()
                .filter(|p| !file::is_mise_dispatch_dir(p))
                .collect();
            if filtered.len() != original_len {
                let joined = env::join_paths(&filtered)?;
                env.insert(
                    env::PATH_KEY.to_string(),
                    joined.to_string_lossy().into_owned(),
                );
            }
        }
        Ok(())
    }

    /// Default fuzzy-match. `filter_prereleases = true` applies the historical
    /// behavior of dropping versions that look like pre-releases
    /// (`1.0.0-rc1`, `1.0.0-dev.5`, ...). Callers that have opted into
    /// pre-releases pass `false` to keep those tags in the match set.
    fn fuzzy_match_filter(
        &self,
        versions: Vec<String>,
        query: &str,
        filter_prereleases: bool,
    ) -> Vec<String> {
        // Same exact-match bypass as `fuzzy_match_versions`, applied with the
        // backend's own notion of a pre-release rather than the channel-tag regex.
        let versions = versions
            .into_iter()
            .filter(|v| !filter_prereleases || v == query || !self.is_backend_prerelease(v))
            .collect();
        fuzzy_match_versions(versions, query, filter_prereleases)
    }

    /// Whether [`Self::fuzzy_match_filter`] selects, for any query but
    /// `latest`, only versions the shared `fuzzy_version_matches` selects too,
    /// apart from the query itself. The versions index guarantees its coverage
    /// of a prefix in terms of that matcher, so a broader override must return
    /// `false` here, which makes such queries read the full list.
    fn fuzzy_match_stays_within_shared_matcher(&self) -> bool {
        true
    }

    /// Select the ordering policy supported by this backend.
    ///
    /// Backends must opt in explicitly before `version_order` can affect remote
    /// version listing or resolution. This keeps opaque version schemes
    /// source-ordered by default.
    fn version_order(&self, opts: &ToolVersionOptions) -> eyre::Result<VersionOrder> {
        if opts.opts.contains_key("version_order") {
            bail!("{} backend does not support version_order", self.get_type())
        }
        Ok(VersionOrder::Source)
    }

    /// Why the versions host cannot serve this backend's remote version list,
    /// or `None` when it can. Ignores `use_versions_host` and cache contexts,
    /// which callers check themselves.
    fn versions_host_skip_reason(&self) -> Option<String> {
        self.versions_host_tool().err()
    }

    /// The tool whose list on the versions host is this backend's remote
    /// version list, or why the versions host cannot serve it. Ignores
    /// `use_versions_host` and cache contexts, which callers check themselves.
    fn versions_host_tool(&self) -> std::result::Result<String, String> {
        let ba = self.ba();
        let tool;
        if let Some(plugin) = self.plugin()
            && let Ok(Some(remote_url)) = plugin.get_remote_url()
        {
            // Check if remote matches the registry default
            let normalized_remote =
                normalize_remote(&remote_url).unwrap_or_else(|_| "INVALID_URL".into());
            let shorthand_remote = REGISTRY
                .get(plugin.name())
                .and_then(|rt| rt.backends().first().map(|b| full_to_url(b)))
                .unwrap_or_default();
            if normalized_remote != normalize_remote(&shorthand_remote).unwrap_or_default() {
                return Err("it has a non-default remote".to_string());
            }
            tool = ba.short.clone();
        } else if let Some(registry_tool) = versions_host_tool(ba, true) {
            tool = registry_tool.to_string();
        } else if !REGISTRY.contains_key(ba.short.as_str()) {
            return Err(format!(
                "it is not in the registry, and {} is not the option-free preferred backend of exactly one registry tool",
                ba.full_without_opts()
            ));
        } else {
            // For non-plugin backends (e.g. github:, cargo:), check if the backend is the
            // registry's preferred one. When a user aliases a tool to a different backend
            // (e.g. `php = "github:verzly/php"`), or a `min_version` boundary routes an
            // older request to a later backend, the versions host would return the
            // preferred backend's versions, which do not describe the resolved backend.
            return Err(format!("backend {} is not the registry default", ba.full()));
        }
        if !versions_host::lists_versions_for(&tool) {
            return Err("the versions host does not list it".to_string());
        }
        Ok(tool)
    }

    /// The key of the remote-version cache entry these listing options select.
    async fn remote_version_cache_context_for(
        &self,
        config: &Arc<Config>,
        listing_opts: &ToolVersionOptions,
        has_local_version_listing_override: bool,
    ) -> eyre::Result<Option<String>> {
        // The listing-relevant options shape the cached list, so they belong in its key.
        // Only local overrides count: a registry-supplied value is identical for everyone, so
        // one entry is correct for it, and leaving it out keeps the shared versions host
        // available for the default case. The exception is a backend the registry lists once
        // per version range with different listing options: each range's list needs its own
        // entry.
        let ba = self.ba();
        let registry_options_vary = ba.registry_tool().is_some_and(|tool| {
            tool.options_vary_by_version(
                &ba.full_without_opts(),
                self.remote_version_listing_tool_option_keys(),
            )
        });
        let opt_context =
            (has_local_version_listing_override || registry_options_vary).then(|| {
                listing_option_digest(listing_opts, self.remote_version_listing_tool_option_keys())
            });
        let context = match (
            self.remote_version_cache_context(config).await?,
            opt_context,
        ) {
            (Some(backend_context), Some(opt_context)) => {
                Some(hash::hash_to_str(&(backend_context, opt_context)))
            }
            (Some(context), None) | (None, Some(context)) => Some(context),
            (None, None) => None,
        };
        // A list fetched from the versions host lags new releases, so turning
        // the host off must not reuse it. Only the off state changes the key,
        // which keeps existing cache entries valid, and only for listings the
        // host would otherwise serve: a context already bypasses the host, and
        // the other listings are always direct, so their one entry is correct.
        if context.is_none()
            && !Settings::get().use_versions_host
            && self.versions_host_skip_reason().is_none()
        {
            return Ok(Some("direct".to_string()));
        }
        Ok(context)
    }

    /// The remote-version cache entry these listing options select. A backend
    /// that overrides listing to consult a live policy still needs this, so
    /// that offline it serves the same entry the shared path would.
    async fn remote_version_cache_for(
        &self,
        config: &Arc<Config>,
        listing_opts: &ToolVersionOptions,
        has_local_version_listing_override: bool,
    ) -> eyre::Result<Arc<TokioMutex<VersionCacheManager>>> {
        let context = self
            .remote_version_cache_context_for(
                config,
                listing_opts,
                has_local_version_listing_override,
            )
            .await?;
        Ok(match context.as_deref() {
            Some(context) => self.get_remote_version_cache_with_context(Some(context)),
            None => self.get_remote_version_cache(),
        })
    }

    fn get_remote_version_cache(&self) -> Arc<TokioMutex<VersionCacheManager>> {
        self.get_remote_version_cache_with_context(None)
    }

    fn get_remote_version_cache_with_context(
        &self,
        context: Option<&str>,
    ) -> Arc<TokioMutex<VersionCacheManager>> {
        // use a mutex to prevent deadlocks that occurs due to reentrant cache access
        static REMOTE_VERSION_CACHE: Lazy<
            Mutex<HashMap<String, Arc<TokioMutex<VersionCacheManager>>>>,
        > = Lazy::new(Default::default);

        let map_key = match context {
            Some(context) => format!("{}\0{context}", self.ba().full()),
            None => self.ba().full(),
        };
        REMOTE_VERSION_CACHE
            .lock()
            .unwrap()
            .entry(map_key)
            .or_insert_with(|| {
                let mut cm = CacheManagerBuilder::new(
                    self.ba().cache_path().join("remote_versions.msgpack.z"),
                )
                .with_cache_key(self.ba().full())
                .with_fresh_duration(Settings::get().fetch_remote_versions_cache());
                if let Some(context) = context {
                    cm = cm.with_cache_key(context.to_string());
                }
                if let Some(plugin_path) = self.plugin().map(|p| p.path()) {
                    cm = cm
                        .with_fresh_file(plugin_path.clone())
                        .with_fresh_file(plugin_path.join("bin/list-all"))
                }

                TokioMutex::new(cm.build()).into()
            })
            .clone()
    }

    fn verify_checksum(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        file: &Path,
    ) -> Result<()> {
        let settings = Settings::get();
        let filename = file.file_name().unwrap().to_string_lossy().to_string();
        let lockfile_enabled = settings.lockfile_enabled();

        // Get the platform key for this tool and platform
        let platform_key = self.get_platform_key_for(tv);

        // Get or create asset info for this platform
        let locked = tv
            .lock_platforms
            .entry(platform_key.clone())
            .or_default()
            .clone();

        if let Some(checksum) = &locked.checksum {
            ctx.pr.set_message(format!("checksum {filename}"));
            if let Some((algo, check)) = checksum.split_once(':') {
                hash::ensure_checksum(file, check, Some(ctx.pr.as_ref()), algo).wrap_err_with(
                    || {
                        // Name the lock entry the expectation came from: a mismatch
                        // usually means the entry describes a different artifact
                        // than the one this machine downloads (e.g. a Swift build
                        // for another Linux distro).
                        let entry = self.describe_lock_entry(tv, &platform_key);
                        match &locked.url {
                            Some(url) => format!("{entry} locks {url}"),
                            None => entry,
                        }
                    },
                )?;
            } else {
                bail!("Invalid checksum: {checksum}");
            }
        } else if lockfile_enabled {
            ctx.pr.set_message(format!("generate checksum {filename}"));
            let hash = hash::file_hash_blake3(file, Some(ctx.pr.as_ref()))?;
            tv.lock_platforms
                .entry(platform_key.clone())
                .or_default()
                .checksum = Some(format!("blake3:{hash}"));
        }

        // Handle size verification and generation
        if let Some(expected_size) = locked.size {
            ctx.pr.set_message(format!("verify size {filename}"));
            let actual_size = file.metadata()?.len();
            if actual_size != expected_size {
                bail!(
                    "Size mismatch for {}: expected {}, got {}",
                    filename,
                    expected_size,
                    actual_size
                );
            }
        } else if lockfile_enabled {
            tv.lock_platforms.entry(platform_key).or_default().size = Some(file.metadata()?.len());
        }
        Ok(())
    }

    /// Human-readable identity of the lock entry consulted for `tv` on
    /// `platform_key`, including the options that distinguish artifact variants.
    fn describe_lock_entry(&self, tv: &ToolVersion, platform_key: &str) -> String {
        let options = self
            .lockfile_options(&tv.request, &PlatformTarget::from_current())
            .unwrap_or_default();
        let entry = format!("lockfile entry for {} on {platform_key}", tv.style());
        if options.is_empty() {
            entry
        } else {
            let options = options.iter().map(|(k, v)| format!("{k}={v}")).join(", ");
            format!("{entry} [{options}]")
        }
    }

    async fn outdated_info(
        &self,
        _config: &Arc<Config>,
        _tv: &ToolVersion,
        _bump: bool,
        _opts: &ResolveOptions,
    ) -> Result<Option<OutdatedInfo>> {
        Ok(None)
    }

    /// Whether [`Backend::outdated_info`] fully replaces the generic outdated
    /// resolver rather than supplementing it.
    fn uses_custom_outdated_info(&self) -> bool {
        false
    }

    // ========== Lockfile Metadata Fetching Methods ==========

    /// Optional: Provide tarball URL for platform-specific tool installation
    /// Backends can implement this for simple tarball-based tools
    async fn get_tarball_url(
        &self,
        _tv: &ToolVersion,
        _target: &PlatformTarget,
    ) -> Result<Option<String>> {
        Ok(None) // Default: no tarball URL available
    }

    /// Optional: Provide GitHub/GitLab release info for platform-specific tool installation
    /// Backends can implement this for GitHub/GitLab release-based tools
    async fn get_github_release_info(
        &self,
        _tv: &ToolVersion,
        _target: &PlatformTarget,
    ) -> Result<Option<GitHubReleaseInfo>> {
        Ok(None) // Default: no GitHub release info available
    }

    /// Resolve platform-specific lock information without installation
    async fn resolve_lock_info(
        &self,
        tv: &ToolVersion,
        target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        // Try simple tarball approach first
        if let Some(tarball_url) = self.get_tarball_url(tv, target).await? {
            return self
                .resolve_lock_info_from_tarball(&tarball_url, tv, target)
                .await;
        }

        // Try GitHub/GitLab release approach second
        if let Some(release_info) = self.get_github_release_info(tv, target).await? {
            return self
                .resolve_lock_info_from_github_release(&release_info, tv, target)
                .await;
        }

        // Fall back to basic platform info without URLs/metadata
        self.resolve_lock_info_fallback(tv, target).await
    }

    /// Shared logic for processing tarball-based tools
    /// Downloads tarball headers, extracts size and URL info, and populates PlatformInfo
    async fn resolve_lock_info_from_tarball(
        &self,
        tarball_url: &str,
        _tv: &ToolVersion,
        _target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        // For now, just return basic info with the URL
        // In a full implementation, this would:
        // 1. Make HEAD request to get content-length
        // 2. Potentially download to get checksum
        // 3. Handle any URL-specific logic
        Ok(PlatformInfo {
            checksum: None, // TODO: Implement checksum fetching
            size: None,     // TODO: Implement size fetching via HEAD request
            url: Some(tarball_url.to_string()),
            url_api: None,
            conda_deps: None,
            ..Default::default()
        })
    }

    /// Shared logic for processing GitHub/GitLab release-based tools
    /// Queries release API, finds platform-specific assets, and populates PlatformInfo
    async fn resolve_lock_info_from_github_release(
        &self,
        release_info: &GitHubReleaseInfo,
        _tv: &ToolVersion,
        target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        // For now, just return basic info
        // In a full implementation, this would:
        // 1. Query GitHub/GitLab release API
        // 2. Find matching asset for the target platform
        // 3. Extract download URL, size, and checksums
        let asset_name = release_info.asset_pattern.as_ref().map(|pattern| {
            pattern
                .replace("{os}", target.os_name())
                .replace("{arch}", target.arch_name())
        });

        // Combine api_url (base URL) with asset_name to get full download URL
        let asset_url = match (&release_info.api_url, &asset_name) {
            (Some(base_url), Some(name)) => Some(format!("{}/{}", base_url, name)),
            _ => asset_name.clone(),
        };

        Ok(PlatformInfo {
            checksum: None, // TODO: Implement checksum fetching from releases
            size: None,     // TODO: Implement size fetching from GitHub API
            url: asset_url,
            url_api: None,
            conda_deps: None,
            ..Default::default()
        })
    }

    /// Fallback method when no specific metadata resolution is available
    /// Returns minimal PlatformInfo without external URLs
    async fn resolve_lock_info_fallback(
        &self,
        _tv: &ToolVersion,
        _target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        // This is the fallback - no external metadata available
        // The tool would need to be installed to generate platform info
        Ok(PlatformInfo {
            checksum: None,
            size: None,
            url: None,
            url_api: None,
            conda_deps: None,
            ..Default::default()
        })
    }
}

/// A postinstall hook may invoke mise for the exact installation it is
/// finishing. That process is entitled to use the path supplied by its parent,
/// even though the generic incomplete marker remains in place until the hook
/// succeeds. Other processes never receive this environment, so they keep
/// treating the install as incomplete. The hook's token must also still be the
/// current one: a process the hook left running inherits the environment, but
/// once that hook ends (or another install retries the version), the half-done
/// version is not its to use.
pub(crate) fn is_active_postinstall_install(tv: &ToolVersion, install_path: &Path) -> bool {
    std::env::var_os("MISE_TOOL_INSTALL_PATH")
        .as_deref()
        .is_some_and(|path| Path::new(path) == install_path)
        && std::env::var("MISE_TOOL_NAME").ok().as_deref() == Some(tv.ba().short.as_str())
        && std::env::var(env::MISE_TOOL_VERSION_ENV_VAR)
            .ok()
            .as_deref()
            == Some(tv.version.as_str())
        && std::env::var(POSTINSTALL_TOKEN_ENV).is_ok_and(|token| {
            install_state::PostinstallToken::matches(tv.ba(), &tv.state_key(), &token)
        })
}

/// The token a tool-level postinstall hook receives; see
/// [`install_state::PostinstallToken`].
const POSTINSTALL_TOKEN_ENV: &str = "MISE_TOOL_INSTALL_TOKEN";

/// Resolve `query` from the versions index, so resolving many tools takes
/// one request instead of one version list each. `None` means resolve from
/// the full list as before: the index cannot prove its answer, or the full
/// list would not come from the versions host, or it costs no request.
///
/// Selection is the full-list path's own: the same prerelease and
/// release-date filters and the same `fuzzy_match_filter`, run over the
/// index's subset of the list. See [`versions_index`] for when the index
/// is fetched.
pub(crate) async fn resolve_from_versions_index<B: Backend + ?Sized>(
    backend: &B,
    config: &Arc<Config>,
    query: &str,
    pick: IndexPick,
    selection_opts: &ToolVersionOptions,
    before_date: Option<Timestamp>,
    refresh: bool,
) -> Option<String> {
    let tool = match versions_index_tool(backend, config, query, selection_opts, refresh).await {
        Ok(tool) => tool,
        Err(reason) => {
            trace!(
                "versions index: not used for {}@{query}: {reason}",
                backend.id()
            );
            return None;
        }
    };
    // The index stands in for this tool's own list, so it is kept as long.
    let window = before_date.and_then(release_age_list_window_for_cutoff);
    let index = versions_index::get(&tool, refresh, window).await?;
    let Some(entry) = index.tool(&tool) else {
        trace!("versions index: {tool} is not listed");
        return None;
    };
    let version =
        resolve_in_versions_index(backend, entry, query, pick, selection_opts, before_date);
    match &version {
        Some(version) => trace!("versions index: {tool}@{query} is {version}"),
        None => trace!("versions index: {tool}@{query} needs the full list"),
    }
    version
}

/// The versions-host name of this backend's list, when the versions index
/// may stand in for it in resolving `query`. The gates are the full-list
/// path's for reading the versions host, plus the index's own: source
/// order, a matcher the index's coverage applies to, and no list that is
/// already available without a request.
async fn versions_index_tool<B: Backend + ?Sized>(
    backend: &B,
    config: &Arc<Config>,
    query: &str,
    selection_opts: &ToolVersionOptions,
    refresh: bool,
) -> Result<String, &'static str> {
    let settings = Settings::get();
    if !settings.use_versions_host || settings.offline() || settings.prefer_offline() {
        return Err("the versions host is off");
    }
    // Another order reorders matches, so "later in the list" stops meaning newer.
    if !matches!(
        backend.version_order(selection_opts),
        Ok(VersionOrder::Source)
    ) {
        return Err("it is not in source order");
    }
    if query != "latest" && !backend.fuzzy_match_stays_within_shared_matcher() {
        return Err("its matcher selects more than the shared one");
    }
    let ba = backend.ba();
    // The full list would be empty after a failure, and resolution fail with it.
    if version_listing_failure(ba).is_some() {
        return Err("listing its versions failed");
    }
    let unavailable = "the versions host does not serve its list";
    let resolved_opts = config
        .resolve_tool_opts_with_overrides(ba)
        .await
        .map_err(|_| unavailable)?;
    if has_local_version_listing_option_override(
        &resolved_opts,
        backend.remote_version_listing_tool_option_keys(),
    ) {
        return Err(unavailable);
    }
    let listing_opts = resolved_opts.effective();
    let tool = backend.versions_host_tool().map_err(|_| unavailable)?;
    if !matches!(
        backend
            .remote_version_cache_context_for(config, listing_opts, false)
            .await,
        Ok(None)
    ) {
        return Err(unavailable);
    }
    // A list that costs no request is the whole list: use it.
    if !refresh
        && backend
            .get_remote_version_cache()
            .lock()
            .await
            .has_fresh_value()
    {
        return Err("its full list is cached");
    }
    Ok(tool)
}

/// [`IndexTool::resolve`] over this backend's own selection from `entry`'s
/// subset, filtered as `list_versions_matching_with_selection_options`
/// filters the full list.
pub(crate) fn resolve_in_versions_index<B: Backend + ?Sized>(
    backend: &B,
    entry: &IndexTool,
    query: &str,
    pick: IndexPick,
    selection_opts: &ToolVersionOptions,
    before_date: Option<Timestamp>,
) -> Option<String> {
    let want_prereleases = backend.include_prereleases(selection_opts);
    let mut versions = filter_cached_prereleases(entry.version_infos(), want_prereleases);
    if let Some(before) = before_date {
        versions = VersionInfo::filter_by_date(versions, before);
    }
    let matches = backend.fuzzy_match_filter(
        versions.into_iter().map(|v| v.version).collect(),
        query,
        !want_prereleases,
    );
    entry.resolve(query, pick, &matches)
}

/// Whether a remote-version list gives every version a release date in a form
/// that parses. A release-age cutoff admits a version without one, so only
/// such a list shows what the cutoff would hide.
fn dates_every_version(versions: &[VersionInfo]) -> bool {
    !versions.is_empty()
        && versions.iter().all(|v| {
            v.created_at
                .as_deref()
                .is_some_and(|created_at| parse_into_timestamp(created_at).is_ok())
        })
}

/// Load a cached remote-version list that is past `fetch_remote_versions_cache`
/// but within the tool's release-age window (`release_age_list_window`), so a
/// command that only needs a matching version does not fetch it again. Only a
/// list that dates every version qualifies: the cutoff keeps a release newer
/// than such a list out of reach for the window anyway, while an undated
/// release would be picked as soon as it is listed.
///
/// Both option sets count, and the shorter window wins: the configured
/// options shape the list, and the request's may shorten the cutoff. A list
/// already in memory, adopted for an earlier request with a longer window, is
/// dropped when it is too old for this one.
fn adopt_cached_remote_versions_within_release_age(
    ba: &BackendArg,
    cache: &mut VersionCacheManager,
    opts: [&ToolVersionOptions; 2],
) {
    let window = opts
        .iter()
        .map(|opts| release_age_list_window(ba, opts.minimum_release_age()))
        .min()
        .flatten();
    let Some(allowed) = window.or_else(|| Settings::get().fetch_remote_versions_cache()) else {
        return;
    };
    cache.forget_memory_older_than(allowed);
    let Some(window) = window else {
        return;
    };
    if cache.has_fresh_value() {
        return;
    }
    if cache.adopt_file_if_fresh_for(Some(window), |_, versions| dates_every_version(versions)) {
        debug!(
            "Using the cached version list for {ba}, within its {}m release-age window",
            window.as_secs() / 60
        );
    }
}

fn effective_latest_before_date<B: Backend + ?Sized>(
    backend: &B,
    opts: &ToolVersionOptions,
    before_date: Option<Timestamp>,
) -> eyre::Result<Option<Timestamp>> {
    if before_date.is_some() {
        return Ok(before_date);
    }

    resolve_before_date_for_tool(backend.ba(), None, opts.minimum_release_age())
}

fn latest_stable_candidate_allowed_by_before_date(
    version: &str,
    info: Option<&VersionInfo>,
    before: Timestamp,
) -> bool {
    let Some(info) = info else {
        if before > crate::duration::process_now() {
            debug!(
                "Latest stable version {version} is missing from remote version metadata, but the cutoff is in the future"
            );
            return true;
        }
        debug!(
            "Latest stable version {version} is missing from remote version metadata; falling back to full version list"
        );
        return false;
    };
    let Some(created_at) = info.created_at.as_deref() else {
        // The same rule as `VersionInfo::filter_by_date`: a version the backend
        // cannot date is allowed, so a plugin's own stable choice is kept
        // rather than replaced by whatever the full list ends with.
        debug!("Latest stable version {version} has no release date metadata, allowing it");
        return true;
    };
    match parse_into_timestamp(created_at) {
        Ok(created) => created < before,
        Err(err) => {
            debug!(
                "Failed to parse release date for latest stable version {version}: {created_at}: {err:#}"
            );
            false
        }
    }
}

#[cfg(test)]
mod latest_version_tests {
    use super::*;
    use crate::args::BackendResolution;
    use crate::config::settings::SettingsPartial;
    use crate::toolset::{ResolvedToolOptions, ToolSource};
    use confique::Layer;
    use pretty_assertions::assert_eq;
    use std::fs;

    /// These tests exercise the latest-stable fast path, which a release-age
    /// cutoff bypasses; every backend now gets the 24h default, so switch it off.
    fn without_default_release_age() {
        let mut partial = SettingsPartial::empty();
        partial.minimum_release_age = Some("0s".to_string());
        Settings::reset(Some(partial));
    }
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Debug)]
    struct LatestBackend {
        ba: Arc<BackendArg>,
        stable_result: Option<String>,
        stable_info: Option<VersionInfo>,
        remote_versions: Vec<VersionInfo>,
        listing_keys: &'static [&'static str],
        /// Dates this backend will only hand over one version at a time, the
        /// way `go:` does for a module it has to reach over VCS.
        lazy_dates: BTreeMap<String, String>,
        /// Make every date lookup fail, the way an unreachable proxy or VCS host does.
        lazy_dates_fail: bool,
        stable_calls: AtomicUsize,
        stable_info_calls: AtomicUsize,
        list_calls: AtomicUsize,
        lazy_date_calls: AtomicUsize,
    }

    impl LatestBackend {
        fn new(name: &str) -> Self {
            Self {
                ba: Arc::new(name.into()),
                stable_result: Some("9.9.9".to_string()),
                stable_info: None,
                remote_versions: vec![
                    VersionInfo {
                        version: "1.0.0".to_string(),
                        created_at: Some("2024-01-01".to_string()),
                        ..Default::default()
                    },
                    VersionInfo {
                        version: "2.0.0".to_string(),
                        created_at: Some("2025-01-01".to_string()),
                        ..Default::default()
                    },
                ],
                listing_keys: &[],
                lazy_dates: BTreeMap::new(),
                lazy_dates_fail: false,
                stable_calls: AtomicUsize::new(0),
                stable_info_calls: AtomicUsize::new(0),
                list_calls: AtomicUsize::new(0),
                lazy_date_calls: AtomicUsize::new(0),
            }
        }

        fn with_lazy_dates(mut self, lazy_dates: &[(&str, &str)]) -> Self {
            self.lazy_dates = lazy_dates
                .iter()
                .map(|(version, date)| (version.to_string(), date.to_string()))
                .collect();
            self
        }

        fn with_failing_lazy_dates(mut self) -> Self {
            self.lazy_dates_fail = true;
            self
        }

        fn lazy_date_calls(&self) -> usize {
            self.lazy_date_calls.load(Ordering::SeqCst)
        }

        fn with_stable_result(mut self, stable_result: Option<&str>) -> Self {
            self.stable_result = stable_result.map(str::to_string);
            self
        }

        fn with_stable_info(mut self, stable_info: VersionInfo) -> Self {
            self.stable_info = Some(stable_info);
            self
        }

        fn with_remote_versions(mut self, remote_versions: Vec<VersionInfo>) -> Self {
            self.remote_versions = remote_versions;
            self
        }

        /// Declare tool options that shape this backend's version listing, the way the real
        /// github/spm/ubi/http/s3 backends do.
        fn with_listing_keys(mut self, listing_keys: &'static [&'static str]) -> Self {
            self.listing_keys = listing_keys;
            self
        }

        fn stable_calls(&self) -> usize {
            self.stable_calls.load(Ordering::SeqCst)
        }

        fn stable_info_calls(&self) -> usize {
            self.stable_info_calls.load(Ordering::SeqCst)
        }

        fn list_calls(&self) -> usize {
            self.list_calls.load(Ordering::SeqCst)
        }
    }

    #[async_trait]
    impl Backend for LatestBackend {
        fn version_order(&self, opts: &ToolVersionOptions) -> eyre::Result<VersionOrder> {
            VersionOrder::from_options(opts)
        }

        fn ba(&self) -> &Arc<BackendArg> {
            &self.ba
        }

        fn remote_version_listing_tool_option_keys(&self) -> &'static [&'static str] {
            self.listing_keys
        }

        async fn _list_remote_versions(
            &self,
            _config: &Arc<Config>,
        ) -> eyre::Result<Vec<VersionInfo>> {
            self.list_calls.fetch_add(1, Ordering::SeqCst);
            Ok(self.remote_versions.clone())
        }

        async fn fetch_version_created_at(
            &self,
            _config: &Arc<Config>,
            version: &str,
        ) -> eyre::Result<Option<String>> {
            self.lazy_date_calls.fetch_add(1, Ordering::SeqCst);
            if self.lazy_dates_fail {
                bail!("simulated release-date lookup failure");
            }
            Ok(self.lazy_dates.get(version).cloned())
        }

        async fn latest_stable_version(
            &self,
            _config: &Arc<Config>,
        ) -> eyre::Result<Option<String>> {
            self.stable_calls.fetch_add(1, Ordering::SeqCst);
            Ok(self.stable_result.clone())
        }

        async fn latest_stable_version_info(
            &self,
            _config: &Arc<Config>,
        ) -> eyre::Result<Option<VersionInfo>> {
            self.stable_info_calls.fetch_add(1, Ordering::SeqCst);
            Ok(self.stable_info.clone())
        }

        async fn install_version_(
            &self,
            _ctx: &InstallContext,
            _tv: ToolVersion,
        ) -> Result<ToolVersion> {
            unreachable!()
        }
    }

    /// A listing that dates only part of what it returns, the shape `go:`
    /// produces for a module it has to reach over VCS.
    fn partially_dated_backend(name: &str) -> LatestBackend {
        LatestBackend::new(name)
            .with_stable_result(None)
            .with_remote_versions(vec![
                VersionInfo {
                    version: "1.0.0".to_string(),
                    created_at: Some("2024-01-01".to_string()),
                    ..Default::default()
                },
                VersionInfo {
                    version: "2.0.0".to_string(),
                    ..Default::default()
                },
                VersionInfo {
                    version: "3.0.0".to_string(),
                    ..Default::default()
                },
            ])
    }

    #[tokio::test]
    async fn test_cutoff_resolves_dates_the_listing_left_out() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = partially_dated_backend("test-lazy-dates")
            .with_lazy_dates(&[("3.0.0", "2025-12-01"), ("2.0.0", "2025-01-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // 3.0.0 is undated in the listing, so the shared filter keeps it; asking
        // for its date shows it is past the cutoff and 2.0.0 is not.
        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("2.0.0")
        );
        // One query per version the cutoff hid, and the walk stops at 2.0.0
        // rather than dating 1.0.0, which the listing already dated.
        assert_eq!(backend.lazy_date_calls(), 2);
    }

    #[tokio::test]
    async fn test_cutoff_dates_an_undated_stable_pick_on_demand() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // The stable fast path names 3.0.0, which the listing left undated; a
        // lookup shows it is too new, so resolution falls back to 2.0.0.
        let backend = partially_dated_backend("test-stable-lazy-date")
            .with_stable_result(Some("3.0.0"))
            .with_lazy_dates(&[("3.0.0", "2025-12-01"), ("2.0.0", "2025-01-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("2.0.0")
        );
    }

    #[tokio::test]
    async fn test_cutoff_resolves_dates_for_a_prefix_request() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-cutoff-prefix-path")
            .with_stable_result(None)
            .with_remote_versions(vec![
                VersionInfo {
                    version: "1.0.0".to_string(),
                    created_at: Some("2024-01-01".to_string()),
                    ..Default::default()
                },
                VersionInfo {
                    version: "1.0.1".to_string(),
                    ..Default::default()
                },
                VersionInfo {
                    version: "1.0.2".to_string(),
                    ..Default::default()
                },
            ])
            .with_lazy_dates(&[("1.0.2", "2025-12-01"), ("1.0.1", "2025-01-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // A prefix request resolves through `list_versions_matching_with_opts`
        // and takes the last match, so the cutoff has to be exact there too.
        assert_eq!(
            backend
                .list_versions_matching_with_opts(&config, "1.0", Some(before), false)
                .await
                .unwrap(),
            vec!["1.0.0".to_string(), "1.0.1".to_string()]
        );
    }

    #[tokio::test]
    async fn test_cutoff_reads_each_release_date_once() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = partially_dated_backend("test-lazy-dates-memo")
            .with_lazy_dates(&[("3.0.0", "2025-12-01"), ("2.0.0", "2025-01-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        for _ in 0..2 {
            assert_eq!(
                backend
                    .latest_version(&config, Some("latest".to_string()), Some(before))
                    .await
                    .unwrap()
                    .as_deref(),
                Some("2.0.0")
            );
        }
        // Each date costs a network round trip, and the second resolution — or
        // the error message explaining the cutoff — must not pay for it again.
        assert_eq!(backend.lazy_date_calls(), 2);
    }

    /// `count` versions the listing left undated, the newest `hidden` of them
    /// released after a 2025-06-01 cutoff.
    fn undated_backend(name: &str, count: usize, hidden: usize) -> LatestBackend {
        let versions: Vec<String> = (0..count).map(|i| format!("1.0.{i}")).collect();
        let dates: Vec<(&str, &str)> = versions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let date = if i + hidden < count {
                    "2025-01-01"
                } else {
                    "2025-12-01"
                };
                (v.as_str(), date)
            })
            .collect();
        LatestBackend::new(name)
            .with_stable_result(None)
            .with_remote_versions(
                versions
                    .iter()
                    .map(|version| VersionInfo {
                        version: version.clone(),
                        ..Default::default()
                    })
                    .collect(),
            )
            .with_lazy_dates(&dates)
    }

    #[tokio::test]
    async fn test_cutoff_does_not_date_every_version_it_hides() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // Whoever publishes the versions decides how many are past the
        // cutoff, so a round trip for each would let them stall resolution.
        let backend = undated_backend("test-lazy-dates-all-hidden", 1000, 1000);
        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap(),
            None
        );
        assert!(
            backend.lazy_date_calls() <= 20,
            "{} lookups",
            backend.lazy_date_calls()
        );

        // A deep cutoff still lands on the newest version it allows.
        for hidden in [1, 2, 3, 300, 999] {
            let backend =
                undated_backend(&format!("test-lazy-dates-{hidden}-hidden"), 1000, hidden);
            assert_eq!(
                backend
                    .latest_version(&config, Some("latest".to_string()), Some(before))
                    .await
                    .unwrap(),
                Some(format!("1.0.{}", 999 - hidden))
            );
            assert!(
                backend.lazy_date_calls() <= 40,
                "{hidden} hidden: {} lookups",
                backend.lazy_date_calls()
            );
        }
    }

    #[tokio::test]
    async fn test_cutoff_stops_at_a_version_it_cannot_date() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = undated_backend("test-lazy-dates-run-out", 100, 0)
            .with_lazy_dates(&[("1.0.99", "2025-12-01"), ("1.0.97", "2025-12-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // A lookup that fails can take the whole fetch timeout to do so, so
        // the first undatable one ends the search, as it ended the walk.
        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.93")
        );
        assert_eq!(backend.lazy_date_calls(), 3);
    }

    #[test]
    fn remembered_release_dates_evict_oldest_first() {
        let _settings = crate::test::SettingsGuard::lock();
        let mut dates: OnDemandReleaseDates = (0..5)
            .map(|i| {
                (
                    ("go:tool".to_string(), format!("1.0.{i}")),
                    "2025-01-01".to_string(),
                )
            })
            .collect();

        evict_oldest_release_dates(&mut dates, 3);

        // Room for one more, and what went is the oldest — a resolution still
        // explaining its cutoff keeps the dates it just stored.
        assert_eq!(dates.len(), 2);
        assert!(dates.contains_key(&("go:tool".to_string(), "1.0.4".to_string())));
        assert!(!dates.contains_key(&("go:tool".to_string(), "1.0.0".to_string())));
    }

    #[tokio::test]
    async fn test_cutoff_retries_a_version_it_could_not_date() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // No date for 3.0.0: offline, an unreachable source and unparseable
        // metadata all look like this. Holding onto that answer would leave the
        // version unchecked for the rest of the process.
        let backend = partially_dated_backend("test-lazy-dates-inconclusive");
        let before = parse_into_timestamp("2025-06-01").unwrap();

        for _ in 0..2 {
            assert_eq!(
                backend
                    .latest_version(&config, Some("latest".to_string()), Some(before))
                    .await
                    .unwrap()
                    .as_deref(),
                Some("3.0.0")
            );
        }
        assert_eq!(backend.lazy_date_calls(), 2);
    }

    #[tokio::test]
    async fn test_cutoff_allows_a_version_whose_date_lookup_fails() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // An unreachable proxy or VCS host must not turn into a resolution
        // error for a request that resolved before the cutoff was checkable.
        let backend = partially_dated_backend("test-lazy-dates-unreachable")
            .with_lazy_dates(&[("3.0.0", "2025-12-01")])
            .with_failing_lazy_dates();
        let before = parse_into_timestamp("2025-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        assert_eq!(backend.lazy_date_calls(), 1);
        // The failure is recorded for the install-time warning, not logged at
        // resolution, and it keeps the reason apart from "no date".
        let (recorded, err) = unchecked_release(&backend.ba().short, "3.0.0").unwrap();
        assert_eq!(recorded, before);
        assert!(err.is_some());
    }

    #[tokio::test]
    async fn test_an_exactly_named_undated_version_is_not_recorded() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = partially_dated_backend("test-exact-pin-unrecorded");
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // 3.0.0 is undated, but the request names it in full: the user chose
        // it, so there is nothing to warn about at install.
        assert_eq!(
            backend
                .latest_version(&config, Some("3.0.0".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        assert_eq!(unchecked_release(&backend.ba().short, "3.0.0"), None);
    }

    #[tokio::test]
    async fn test_a_version_literally_named_latest_is_still_recorded() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // The listing ends on a version actually called `latest`; the request
        // `latest` is a moving pointer, not a pin on it.
        let backend = LatestBackend::new("test-literal-latest")
            .with_stable_result(None)
            .with_remote_versions(vec![
                VersionInfo {
                    version: "1.0.0".to_string(),
                    created_at: Some("2024-01-01".to_string()),
                    ..Default::default()
                },
                VersionInfo {
                    version: "latest".to_string(),
                    ..Default::default()
                },
            ]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        let picked = backend
            .latest_version(&config, Some("latest".to_string()), Some(before))
            .await
            .unwrap();
        assert_eq!(picked.as_deref(), Some("latest"));
        assert_eq!(
            unchecked_release_cutoff(&backend.ba().short, "latest"),
            Some(before)
        );
    }

    #[tokio::test]
    async fn test_a_successful_date_lookup_clears_an_earlier_failure_record() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = partially_dated_backend("test-lookup-retry")
            .with_lazy_dates(&[("3.0.0", "2025-01-01")]);
        let before = parse_into_timestamp("2025-06-01").unwrap();
        // An earlier resolution failed to read 3.0.0's date.
        note_undated_release(
            &backend.ba().short,
            "3.0.0",
            before,
            Some("timed out".to_string()),
        );

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        // This lookup read a date, so the install has nothing to warn about.
        assert_eq!(unchecked_release(&backend.ba().short, "3.0.0"), None);
    }

    #[tokio::test]
    async fn test_undated_version_picked_under_a_cutoff_is_recorded_for_install() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = partially_dated_backend("test-undated-recorded");
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // Resolving only records the gap; the warning belongs to install.
        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        let id = backend.ba().short.clone();
        assert_eq!(unchecked_release_cutoff(&id, "3.0.0"), Some(before));
        assert_eq!(unchecked_release_cutoff(&id, "2.0.0"), None);
    }

    #[tokio::test]
    async fn test_cutoff_keeps_a_plugins_undated_stable_choice() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // Neither version has a date, and the plugin deliberately calls the
        // older one stable (the way an asdf `bin/latest-stable` can).
        let backend = LatestBackend::new("test-undated-stable")
            .with_stable_result(Some("1.0.0"))
            .with_remote_versions(vec![
                VersionInfo {
                    version: "1.0.0".to_string(),
                    ..Default::default()
                },
                VersionInfo {
                    version: "2.0.0".to_string(),
                    ..Default::default()
                },
            ]);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(
            unchecked_release_cutoff(&backend.ba().short, "1.0.0"),
            Some(before)
        );
    }

    #[tokio::test]
    async fn test_cutoff_keeps_versions_a_backend_cannot_date() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // No lazy dates: the default `fetch_version_created_at` returns None,
        // which has to leave the "undated versions are eligible" rule alone.
        let backend = partially_dated_backend("test-undatable");
        let before = parse_into_timestamp("2025-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
    }

    #[tokio::test]
    async fn test_cutoff_does_not_redate_versions_the_listing_dated() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-already-dated").with_stable_result(None);
        let before = parse_into_timestamp("2025-06-01").unwrap();

        // 2.0.0 (2025-01-01) is dated and older than the cutoff, so nothing
        // needs a second look.
        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("2.0.0")
        );
        assert_eq!(backend.lazy_date_calls(), 0);
    }

    #[tokio::test]
    async fn test_explicit_latest_uses_latest_stable_version() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-latest-stable");
        without_default_release_age();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), None)
                .await
                .unwrap()
                .as_deref(),
            Some("9.9.9")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);

        assert_eq!(
            backend
                .latest_version(&config, None, None)
                .await
                .unwrap()
                .as_deref(),
            Some("9.9.9")
        );
        assert_eq!(backend.stable_calls(), 2);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_semver_order_preserves_latest_fast_path() {
        let _settings = crate::test::SettingsGuard::lock();
        without_default_release_age();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-semver-order[version_order=semver]")
            .with_remote_versions(vec![
                VersionInfo {
                    version: "11.11.0".to_string(),
                    ..Default::default()
                },
                VersionInfo {
                    version: "10.34.5".to_string(),
                    ..Default::default()
                },
            ]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), None)
                .await
                .unwrap()
                .as_deref(),
            Some("9.9.9")
        );
        assert_eq!(backend.stable_info_calls(), 1);
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_semver_order_applies_to_latest_fallback() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-semver-fallback")
            .with_stable_result(None)
            .with_remote_versions(vec![
                VersionInfo {
                    version: "V11.11.0".to_string(),
                    ..Default::default()
                },
                VersionInfo {
                    version: "V10.34.5".to_string(),
                    ..Default::default()
                },
            ]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let mut selection_opts = ToolVersionOptions::default();
        selection_opts.opts.insert(
            "version_order".to_string(),
            toml::Value::String("semver".to_string()),
        );

        assert_eq!(
            backend
                .latest_version_with_selection_options(
                    &config,
                    Some("latest".to_string()),
                    &selection_opts,
                    None,
                    false,
                )
                .await
                .unwrap()
                .as_deref(),
            Some("V11.11.0")
        );
        assert_eq!(backend.stable_info_calls(), 1);
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_prerelease_selection_skips_latest_stable_fast_path() {
        let _settings = crate::test::SettingsGuard::lock();
        without_default_release_age();
        let config = Config::get().await.unwrap();
        let mut backend =
            LatestBackend::new("test-prerelease-latest").with_stable_result(Some("1.0.0"));
        backend.remote_versions = vec![
            VersionInfo {
                version: "1.0.0".to_string(),
                ..Default::default()
            },
            VersionInfo {
                version: "1.1.0-rc.1".to_string(),
                prerelease: Some(true),
                ..Default::default()
            },
        ];
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .latest_version_with_selection_options(
                    &config,
                    None,
                    &ToolVersionOptions::default(),
                    None,
                    false,
                )
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);

        let mut prerelease_opts = ToolVersionOptions::default();
        prerelease_opts
            .opts
            .insert("prerelease".to_string(), toml::Value::Boolean(true));
        assert_eq!(
            backend
                .latest_version_with_selection_options(
                    &config,
                    None,
                    &prerelease_opts,
                    None,
                    false,
                )
                .await
                .unwrap()
                .as_deref(),
            Some("1.1.0-rc.1")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_date_filtered_latest_uses_stable_when_not_newer() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-latest-before-date-allowed").with_stable_result(Some("1.0.0"));
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let before = crate::duration::parse_into_timestamp("2024-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_date_filtered_latest_falls_back_when_stable_is_newer() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-latest-before-date-newer").with_stable_result(Some("2.0.0"));
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let before = crate::duration::parse_into_timestamp("2024-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_date_filtered_latest_falls_back_when_stable_metadata_is_missing() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-latest-before-date-missing-metadata")
            .with_stable_result(Some("3.0.0"));
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let before = crate::duration::parse_into_timestamp("2024-06-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_date_filtered_latest_uses_stable_info_when_version_list_is_stale() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-latest-before-date-stale-metadata")
            .with_stable_info(VersionInfo {
                version: "3.0.0".to_string(),
                created_at: Some("2026-01-01".to_string()),
                ..Default::default()
            });
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let before = crate::duration::parse_into_timestamp("2099-01-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        assert_eq!(backend.stable_calls(), 0);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_unfiltered_latest_uses_stable_info_when_version_list_is_stale() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-unfiltered-latest-stale-metadata").with_stable_info(
            VersionInfo {
                version: "3.0.0".to_string(),
                created_at: Some("2026-01-01".to_string()),
                ..Default::default()
            },
        );
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .latest_version_unfiltered(&config, Some("latest".to_string()))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        assert_eq!(backend.stable_info_calls(), 1);
        assert_eq!(backend.stable_calls(), 0);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_permissive_cutoff_keeps_canonical_latest_missing_from_metadata() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-latest-before-date-permissive")
            .with_stable_result(Some("3.0.0"));
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();
        let before = crate::duration::parse_into_timestamp("2099-01-01").unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), Some(before))
                .await
                .unwrap()
                .as_deref(),
            Some("3.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }

    #[test]
    fn test_latest_stable_candidate_allows_undated_but_rejects_unverifiable_metadata() {
        let _settings = crate::test::SettingsGuard::lock();
        let before = crate::duration::parse_into_timestamp("2024-06-01").unwrap();

        assert!(!latest_stable_candidate_allowed_by_before_date(
            "1.0.0", None, before
        ));
        // The listing itself has no date for it: allowed, like every other
        // undated version, so a plugin's own stable choice survives the cutoff.
        assert!(latest_stable_candidate_allowed_by_before_date(
            "1.0.0",
            Some(&VersionInfo {
                version: "1.0.0".to_string(),
                created_at: None,
                ..Default::default()
            }),
            before
        ));
        assert!(!latest_stable_candidate_allowed_by_before_date(
            "1.0.0",
            Some(&VersionInfo {
                version: "1.0.0".to_string(),
                created_at: Some("not-a-date".to_string()),
                ..Default::default()
            }),
            before
        ));
    }

    #[tokio::test]
    async fn test_offline_remote_versions_use_cache_without_fetching() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-offline-cache");
        let cache = backend.get_remote_version_cache();
        {
            let cache = cache.lock().await;
            cache
                .write(&vec![
                    VersionInfo {
                        version: "1.0.0".to_string(),
                        ..Default::default()
                    },
                    VersionInfo {
                        version: "2.0.0".to_string(),
                        ..Default::default()
                    },
                ])
                .unwrap();
        }

        let mut partial = SettingsPartial::empty();
        partial.offline = Some(true);
        Settings::reset(Some(partial));
        let versions = backend.list_remote_versions(&config).await.unwrap();
        Settings::reset(None);

        assert_eq!(versions, vec!["1.0.0".to_string(), "2.0.0".to_string()]);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_offline_rolling_check_does_not_fetch_missing_checksum() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-offline-rolling-check");
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "nightly".to_string(),
                rolling: true,
                ..Default::default()
            }])
            .unwrap();
        let request = ToolRequest::Version {
            backend: backend.ba.clone(),
            version: "nightly".to_string(),
            options: ResolvedToolOptions::default(),
            source: ToolSource::Argument,
            lockfile_scope: Default::default(),
        };
        let tv = ToolVersion::new(request, "nightly".to_string());

        let mut partial = SettingsPartial::empty();
        partial.offline = Some(true);
        Settings::reset(Some(partial));
        let outdated = backend.is_rolling_version_outdated(&config, &tv).await;
        Settings::reset(None);

        assert!(!outdated);
        assert_eq!(backend.list_calls(), 0);
    }

    fn release_url(version: &str) -> Option<String> {
        Some(format!("https://example.com/releases/tag/v{version}"))
    }

    /// `outdated` reports where to read about a plain `latest`. The shortcut
    /// that resolved it already says, so the listing is not fetched for it.
    #[tokio::test]
    async fn test_release_url_for_latest_comes_from_the_shortcut() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-release-url-shortcut").with_stable_info(VersionInfo {
                version: "3.0.0".to_string(),
                release_url: release_url("3.0.0"),
                ..Default::default()
            });
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .resolved_release_url(&config, "3.0.0", "latest", &Default::default())
                .await,
            release_url("3.0.0")
        );
        assert_eq!(backend.list_calls(), 0);
    }

    /// A shortcut that names some other version (the cutoff hid it, so the
    /// listing picked an older one) does not answer, and the listing does.
    #[tokio::test]
    async fn test_release_url_for_latest_falls_back_to_the_listing() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-release-url-shortcut-miss")
            .with_stable_info(VersionInfo {
                version: "3.0.0".to_string(),
                release_url: release_url("3.0.0"),
                ..Default::default()
            })
            .with_remote_versions(vec![VersionInfo {
                version: "2.0.0".to_string(),
                release_url: release_url("2.0.0"),
                ..Default::default()
            }]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .resolved_release_url(&config, "2.0.0", "latest", &Default::default())
                .await,
            release_url("2.0.0")
        );
        assert_eq!(backend.list_calls(), 1);
    }

    /// A listing an earlier command cached answers for free, so the shortcut
    /// (which `go:` does not cache) is not asked again.
    #[tokio::test]
    async fn test_release_url_for_latest_prefers_a_cached_listing() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-release-url-cached-listing").with_stable_info(VersionInfo {
                version: "3.0.0".to_string(),
                release_url: release_url("3.0.0"),
                ..Default::default()
            });
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "3.0.0".to_string(),
                release_url: release_url("3.0.0"),
                ..Default::default()
            }])
            .unwrap();

        assert_eq!(
            backend
                .resolved_release_url(&config, "3.0.0", "latest", &Default::default())
                .await,
            release_url("3.0.0")
        );
        assert_eq!(backend.stable_info_calls(), 0);
        assert_eq!(backend.list_calls(), 0);
    }

    /// A cached entry without a URL does not hide the one the shortcut has.
    #[tokio::test]
    async fn test_release_url_for_latest_skips_a_cached_entry_without_one() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-release-url-cached-without-url").with_stable_info(
            VersionInfo {
                version: "3.0.0".to_string(),
                release_url: release_url("3.0.0"),
                ..Default::default()
            },
        );
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "3.0.0".to_string(),
                ..Default::default()
            }])
            .unwrap();

        assert_eq!(
            backend
                .resolved_release_url(&config, "3.0.0", "latest", &Default::default())
                .await,
            release_url("3.0.0")
        );
        assert_eq!(backend.stable_info_calls(), 1);
        assert_eq!(backend.list_calls(), 0);
    }

    /// Any other query was resolved from the listing, so that is read first
    /// and the shortcut is not asked.
    #[tokio::test]
    async fn test_release_url_for_a_prefix_comes_from_the_listing() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-release-url-prefix").with_remote_versions(vec![VersionInfo {
                version: "2.0.0".to_string(),
                release_url: release_url("2.0.0"),
                ..Default::default()
            }]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .resolved_release_url(&config, "2.0.0", "2", &Default::default())
                .await,
            release_url("2.0.0")
        );
        assert_eq!(backend.list_calls(), 1);
        assert_eq!(backend.stable_info_calls(), 0);
    }

    fn tool_version_for(backend: &LatestBackend, request: &str, version: &str) -> ToolVersion {
        let request = ToolRequest::Version {
            backend: backend.ba.clone(),
            version: request.to_string(),
            options: ResolvedToolOptions::default(),
            source: ToolSource::Argument,
            lockfile_scope: Default::default(),
        };
        ToolVersion::new(request, version.to_string())
    }

    /// `latest` resolved to `2.0.0` is not a rolling release, so checking
    /// whether one changed does not list versions to find out.
    #[tokio::test]
    async fn test_rolling_check_skips_a_resolved_request() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-rolling-check-resolved");
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        let tv = tool_version_for(&backend, "latest", "2.0.0");
        assert!(!backend.is_rolling_version_outdated(&config, &tv).await);
        assert_eq!(backend.list_calls(), 0);
    }

    /// A rolling release resolves to its own name and is still checked.
    #[tokio::test]
    async fn test_rolling_check_reads_a_rolling_release() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-rolling-check-nightly").with_remote_versions(vec![
            VersionInfo {
                version: "nightly".to_string(),
                rolling: true,
                checksum: Some("sha256:new".to_string()),
                ..Default::default()
            },
        ]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        let tv = tool_version_for(&backend, "nightly", "nightly");
        // Nothing records a checksum for this install, so it counts as changed.
        assert!(backend.is_rolling_version_outdated(&config, &tv).await);
        assert_eq!(backend.list_calls(), 1);
    }

    #[tokio::test]
    async fn test_remote_version_cache_contexts_are_isolated() {
        let _settings = crate::test::SettingsGuard::lock();
        let _config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-context-cache");
        let first = backend.get_remote_version_cache_with_context(Some("first"));
        let second = backend.get_remote_version_cache_with_context(Some("second"));

        first
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "1.0.0".to_string(),
                ..Default::default()
            }])
            .unwrap();
        second
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "2.0.0".to_string(),
                ..Default::default()
            }])
            .unwrap();

        assert_eq!(first.lock().await.get_cached().unwrap()[0].version, "1.0.0");
        assert_eq!(
            second.lock().await.get_cached().unwrap()[0].version,
            "2.0.0"
        );
    }

    /// An install-time refresh of `latest` reuses a list written moments ago
    /// (by this command's own first resolution, or by `mise outdated` just
    /// before) instead of fetching it again.
    #[tokio::test]
    async fn test_refresh_reuses_a_list_written_moments_ago() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-refresh-reuses-recent-list");
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        backend.list_remote_versions(&config).await.unwrap();
        backend
            .list_remote_versions_with_refresh(&config, true)
            .await
            .unwrap();
        assert_eq!(backend.list_calls(), 1);
    }

    /// The refresh still fetches a list that is older than that, even while it
    /// is within `fetch_remote_versions_cache`.
    #[tokio::test]
    async fn test_refresh_refetches_an_older_list() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-refresh-refetches-older-list");
        let cache = backend.get_remote_version_cache();
        {
            let mut cache = cache.lock().await;
            cache.clear().unwrap();
            cache
                .write(&vec![VersionInfo {
                    version: "1.0.0".to_string(),
                    ..Default::default()
                }])
                .unwrap();
        }
        let ten_minutes_ago = filetime::FileTime::from_system_time(
            std::time::SystemTime::now() - std::time::Duration::from_secs(600),
        );
        for entry in fs::read_dir(backend.ba().cache_path()).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().contains("remote_versions-") {
                filetime::set_file_mtime(&path, ten_minutes_ago).unwrap();
            }
        }
        // A separate backend, as in a later command, so nothing is in memory.
        let backend = LatestBackend::new("test-refresh-refetches-older-list");

        assert_eq!(
            backend
                .list_remote_versions_with_refresh(&config, true)
                .await
                .unwrap(),
            vec!["1.0.0".to_string(), "2.0.0".to_string()]
        );
        assert_eq!(backend.list_calls(), 1);
    }

    /// Set the modified time of `backend`'s cached remote-version lists to
    /// `secs` ago.
    fn backdate_remote_versions(backend: &LatestBackend, secs: u64) {
        let then = filetime::FileTime::from_system_time(
            std::time::SystemTime::now() - std::time::Duration::from_secs(secs),
        );
        for entry in fs::read_dir(backend.ba().cache_path()).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().contains("remote_versions-") {
                filetime::set_file_mtime(&path, then).unwrap();
            }
        }
    }

    /// A cached list that dates every version and was written 2h ago, read by
    /// a later command, as `name`.
    async fn backend_with_two_hour_old_list(name: &str, dated: bool) -> LatestBackend {
        let backend = LatestBackend::new(name);
        let cache = backend.get_remote_version_cache();
        {
            let mut cache = cache.lock().await;
            cache.clear().unwrap();
            cache
                .write(&vec![VersionInfo {
                    version: "1.0.0".to_string(),
                    created_at: dated.then(|| "2024-01-01".to_string()),
                    ..Default::default()
                }])
                .unwrap();
        }
        backdate_remote_versions(&backend, 2 * 60 * 60);
        LatestBackend::new(name)
    }

    /// Past `fetch_remote_versions_cache`, a command that only needs a matching
    /// version keeps a dated list for the tool's release-age window.
    #[tokio::test]
    async fn test_list_within_release_age_window_is_reused() {
        let _settings = crate::test::SettingsGuard::lock();
        let mut partial = SettingsPartial::empty();
        partial.minimum_release_age = Some("24h".to_string());
        Settings::reset(Some(partial.clone()));
        let config = Config::get().await.unwrap();

        let backend = backend_with_two_hour_old_list("test-release-age-window", true).await;
        assert_eq!(
            backend.list_remote_versions(&config).await.unwrap(),
            vec!["1.0.0".to_string()]
        );
        assert_eq!(backend.list_calls(), 0);

        // A later request with a shorter cutoff does not reuse the list
        // adopted for the longer one.
        let no_cutoff = crate::toolset::parse_tool_options("minimum_release_age=0s");
        assert_eq!(
            backend
                .list_remote_versions_with_selection_options(&config, &no_cutoff, false)
                .await
                .unwrap(),
            vec!["1.0.0".to_string(), "2.0.0".to_string()]
        );
        assert_eq!(backend.list_calls(), 1);

        // A version without a date passes the cutoff the moment it is listed.
        let backend =
            backend_with_two_hour_old_list("test-release-age-window-undated", false).await;
        assert_eq!(
            backend.list_remote_versions(&config).await.unwrap(),
            vec!["1.0.0".to_string(), "2.0.0".to_string()]
        );
        assert_eq!(backend.list_calls(), 1);

        // A shorter cutoff, a shorter window.
        let mut short = partial.clone();
        short.minimum_release_age = Some("90m".to_string());
        Settings::reset(Some(short));
        let backend = backend_with_two_hour_old_list("test-release-age-window-short", true).await;
        backend.list_remote_versions(&config).await.unwrap();
        assert_eq!(backend.list_calls(), 1);

        // `fetch_remote_versions_cache` applies as set when the user sets it.
        partial.fetch_remote_versions_cache = Some("1h".to_string());
        Settings::reset(Some(partial));
        let backend =
            backend_with_two_hour_old_list("test-release-age-window-explicit", true).await;
        backend.list_remote_versions(&config).await.unwrap();
        assert_eq!(backend.list_calls(), 1);
    }

    /// A release-age cutoff can stand in for an install-time refresh only when
    /// the cached list is younger than the cutoff by the snapshot lag and
    /// dates every version: an undated (or unparseable) one passes any cutoff.
    #[tokio::test]
    async fn test_adopt_cached_remote_versions_for_cutoff() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-adopt-cached-remote-versions");
        let cache = backend.get_remote_version_cache();
        let now = Timestamp::now();
        let ago = |secs: i64| {
            now.checked_sub(jiff::SignedDuration::from_secs(secs))
                .unwrap()
        };
        let day_ago = ago(24 * 60 * 60);
        cache.lock().await.clear().unwrap();
        assert!(
            !backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );

        let dated = |version: &str, created_at: Option<&str>| VersionInfo {
            version: version.to_string(),
            created_at: created_at.map(str::to_string),
            ..Default::default()
        };
        let write = async |versions: Vec<VersionInfo>| {
            cache.lock().await.write(&versions).unwrap();
        };

        write(vec![
            dated("1.0.0", Some("2024-01-01")),
            dated("2.0.0", Some("2025-01-01")),
        ])
        .await;
        assert!(
            backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );
        // A just-written list can still hold a snapshot too old for a short
        // cutoff.
        assert!(
            !backend
                .adopt_cached_remote_versions_for_cutoff(&config, ago(10 * 60))
                .await
        );

        // Past `fetch_remote_versions_cache`, a list is still used within the
        // cutoff's release-age window, but not past a value the user set.
        backdate_remote_versions(&backend, 2 * 60 * 60);
        assert!(
            backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );
        let mut partial = SettingsPartial::empty();
        partial.fetch_remote_versions_cache = Some("1h".to_string());
        Settings::reset(Some(partial));
        assert!(
            !backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );
        Settings::reset(None);

        write(vec![
            dated("1.0.0", Some("2024-01-01")),
            dated("2.0.0", None),
        ])
        .await;
        assert!(
            !backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );

        write(vec![
            dated("1.0.0", Some("2024-01-01")),
            dated("2.0.0", Some("not-a-date")),
        ])
        .await;
        assert!(
            !backend
                .adopt_cached_remote_versions_for_cutoff(&config, day_ago)
                .await
        );

        cache.lock().await.clear().unwrap();
        assert_eq!(backend.list_calls(), 0);
    }

    /// Installing a registry tool looks up its release tag in the versions
    /// host's list. Resolution has usually just cached that list, so the tag
    /// is read from there instead of downloading the list again. The version
    /// is one the versions host does not list, so only the cache can answer.
    #[tokio::test]
    async fn test_listed_release_url_reads_the_cached_list() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = aqua::AquaBackend::from_arg(BackendArg::new(
            "act".to_string(),
            Some("aqua:nektos/act".to_string()),
        ));
        let url = "https://github.com/nektos/act/releases/tag/v0.0.0-cached";
        let cache = backend.get_remote_version_cache();
        cache
            .lock()
            .await
            .write(&vec![VersionInfo {
                version: "0.0.0-cached".to_string(),
                release_url: Some(url.to_string()),
                ..Default::default()
            }])
            .unwrap();

        let listed = backend.listed_release_url(&config, "0.0.0-cached").await;
        cache.lock().await.clear().unwrap();
        assert_eq!(listed.as_deref(), Some(url));
    }

    #[tokio::test]
    async fn registry_min_version_partitions_persisted_backend_lists() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let make_backend = |full: &str, version: &str| {
            let mut backend = LatestBackend::new("test-registry-min-version-cache")
                .with_remote_versions(vec![VersionInfo {
                    version: version.to_string(),
                    ..Default::default()
                }]);
            backend.ba = Arc::new(BackendArg::new(
                "test-registry-min-version-cache".to_string(),
                Some(full.to_string()),
            ));
            backend
        };
        let older = make_backend("aqua:example/tool", "1.0.0");
        let newer = make_backend("packslip:github.com/example/tool", "2.0.0");
        assert_eq!(older.ba().cache_path(), newer.ba().cache_path());
        let _ = fs::remove_dir_all(older.ba().cache_path());
        assert_eq!(
            older.list_remote_versions(&config).await.unwrap(),
            ["1.0.0"]
        );
        // Separate in-memory entries must also have separate files on disk.
        assert_eq!(
            newer.list_remote_versions(&config).await.unwrap(),
            ["2.0.0"]
        );
        assert_eq!(newer.list_calls(), 1);
    }

    /// Two option values that produce different listings must not share a cache
    /// entry, even though inline options are stripped from the cache directory.
    #[tokio::test]
    async fn test_remote_versions_cache_is_partitioned_by_listing_options() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let version = |v: &str| VersionInfo {
            version: v.to_string(),
            ..Default::default()
        };

        let alpha = LatestBackend::new("test-listing-opts-partition[version_prefix=a-]")
            .with_listing_keys(&["version_prefix"])
            .with_remote_versions(vec![version("1.0.0")]);
        let beta = LatestBackend::new("test-listing-opts-partition[version_prefix=b-]")
            .with_listing_keys(&["version_prefix"])
            .with_remote_versions(vec![version("2.0.0")]);
        // Same value as `alpha`, different canned list: it must never be asked for it.
        let alpha_again = LatestBackend::new("test-listing-opts-partition[version_prefix=a-]")
            .with_listing_keys(&["version_prefix"])
            .with_remote_versions(vec![version("3.0.0")]);
        assert_eq!(alpha.ba().cache_path(), beta.ba().cache_path());
        let _ = fs::remove_dir_all(alpha.ba().cache_path());

        assert_eq!(
            alpha.list_remote_versions(&config).await.unwrap(),
            vec!["1.0.0".to_string()]
        );
        // The defect: this read back the list `alpha` had cached under the shared key.
        assert_eq!(
            beta.list_remote_versions(&config).await.unwrap(),
            vec!["2.0.0".to_string()]
        );
        // Same option value, same entry — which is what shows the key follows the value rather
        // than the instance, and that the fix did not trade staleness for a refetch every time.
        assert_eq!(
            alpha_again.list_remote_versions(&config).await.unwrap(),
            vec!["1.0.0".to_string()]
        );
        assert_eq!(alpha_again.list_calls(), 0);
    }

    /// The other half of it: declaring listing options must not partition anything on its own.
    /// With no local override there is no context, so the list has to land on the contextless
    /// entry — that is the state in which the shared versions host stays available, and a
    /// context here would take it away from every default installation of the tool.
    #[tokio::test]
    async fn test_declared_listing_keys_without_override_use_the_default_cache_entry() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-listing-opts-shared")
            .with_listing_keys(&["api_url", "version_prefix"])
            .with_remote_versions(vec![VersionInfo {
                version: "1.0.0".to_string(),
                ..Default::default()
            }]);
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend.list_remote_versions(&config).await.unwrap(),
            vec!["1.0.0".to_string()]
        );

        // `get_remote_version_cache()` is the `context: None` handle. Had a context been
        // produced, the list would have been written somewhere else and this would be empty.
        let cached = backend
            .get_remote_version_cache()
            .lock()
            .await
            .get_cached()
            .unwrap();
        assert_eq!(cached.len(), 1);
        assert_eq!(cached[0].version, "1.0.0");
    }

    #[tokio::test]
    async fn test_offline_latest_uses_fast_path_when_available() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-offline-latest-cache");

        let mut partial = SettingsPartial::empty();
        partial.offline = Some(true);
        partial.minimum_release_age = Some("0s".to_string());
        Settings::reset(Some(partial));
        let latest = backend.latest_version(&config, None, None).await.unwrap();
        Settings::reset(None);

        assert_eq!(latest.as_deref(), Some("9.9.9"));
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_offline_latest_falls_back_to_cached_versions_when_fast_path_has_no_result() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        let backend =
            LatestBackend::new("test-offline-latest-cache-fallback").with_stable_result(None);
        let cache = backend.get_remote_version_cache();
        {
            let cache = cache.lock().await;
            cache
                .write(&vec![
                    VersionInfo {
                        version: "1.0.0".to_string(),
                        ..Default::default()
                    },
                    VersionInfo {
                        version: "2.0.0".to_string(),
                        ..Default::default()
                    },
                ])
                .unwrap();
        }

        let mut partial = SettingsPartial::empty();
        partial.offline = Some(true);
        Settings::reset(Some(partial));
        let latest = backend.latest_version(&config, None, None).await.unwrap();
        Settings::reset(None);

        assert_eq!(latest.as_deref(), Some("2.0.0"));
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);
    }

    #[tokio::test]
    async fn test_latest_falls_back_to_cached_versions_when_fast_path_has_no_result() {
        let _settings = crate::test::SettingsGuard::lock();
        Settings::reset(None);
        let config = Config::get().await.unwrap();
        let backend = LatestBackend::new("test-latest-fast-path-none").with_stable_result(None);
        let cache = backend.get_remote_version_cache();
        {
            let cache = cache.lock().await;
            cache
                .write(&vec![
                    VersionInfo {
                        version: "1.0.0".to_string(),
                        ..Default::default()
                    },
                    VersionInfo {
                        version: "2.0.0".to_string(),
                        ..Default::default()
                    },
                ])
                .unwrap();
        }

        let latest = backend.latest_version(&config, None, None).await.unwrap();

        assert_eq!(latest.as_deref(), Some("2.0.0"));
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 0);
    }

    #[test]
    fn test_latest_installed_version_ignores_real_latest_dir() {
        let _settings = crate::test::SettingsGuard::lock();
        let temp_dir = tempfile::tempdir().unwrap();
        let mut ba = BackendArg::new_raw(
            "latest-real-dir".into(),
            None,
            "latest-real-dir".into(),
            None,
            BackendResolution::new(false),
        );
        ba.set_installs_path(temp_dir.path().join("installs").join("latest-real-dir"));
        fs::create_dir_all(ba.installs_path().join("2.0.0")).unwrap();
        fs::create_dir_all(ba.installs_path().join("latest")).unwrap();

        let backend = LatestBackend {
            ba: Arc::new(ba),
            stable_result: Some("9.9.9".to_string()),
            stable_info: None,
            remote_versions: vec![],
            listing_keys: &[],
            lazy_dates: BTreeMap::new(),
            lazy_dates_fail: false,
            stable_calls: AtomicUsize::new(0),
            stable_info_calls: AtomicUsize::new(0),
            list_calls: AtomicUsize::new(0),
            lazy_date_calls: AtomicUsize::new(0),
        };

        assert_eq!(
            backend.latest_installed_version(None).unwrap(),
            Some("2.0.0".into())
        );
    }

    #[test]
    fn test_latest_installed_version_orders_build_metadata_numerically() {
        let _settings = crate::test::SettingsGuard::lock();
        let temp_dir = tempfile::tempdir().unwrap();
        let mut ba = BackendArg::new_raw(
            "latest-build-meta".into(),
            None,
            "latest-build-meta".into(),
            None,
            BackendResolution::new(false),
        );
        ba.set_installs_path(temp_dir.path().join("installs").join("latest-build-meta"));
        fs::create_dir_all(ba.installs_path().join("temurin-25.0.4+101.0.LTS")).unwrap();
        fs::create_dir_all(ba.installs_path().join("temurin-25.0.4+7.0.LTS")).unwrap();

        let backend = LatestBackend {
            ba: Arc::new(ba),
            stable_result: None,
            stable_info: None,
            remote_versions: vec![],
            listing_keys: &[],
            lazy_dates: BTreeMap::new(),
            lazy_dates_fail: false,
            stable_calls: AtomicUsize::new(0),
            stable_info_calls: AtomicUsize::new(0),
            list_calls: AtomicUsize::new(0),
            lazy_date_calls: AtomicUsize::new(0),
        };

        assert_eq!(
            backend.latest_installed_version(None).unwrap(),
            Some("temurin-25.0.4+101.0.LTS".into())
        );
    }

    #[tokio::test]
    async fn test_inline_install_before_wins_over_config_entry() {
        let _settings = crate::test::SettingsGuard::lock();
        let config = Config::get().await.unwrap();
        // The test fixture has a `tiny` config entry without install_before.
        // Inline backend opts must still win when a config entry exists.
        let backend =
            LatestBackend::new("tiny[install_before=2024-06-01]").with_stable_result(Some("2.0.0"));
        backend
            .get_remote_version_cache()
            .lock()
            .await
            .clear()
            .unwrap();

        assert_eq!(
            backend
                .latest_version(&config, Some("latest".to_string()), None)
                .await
                .unwrap()
                .as_deref(),
            Some("1.0.0")
        );
        assert_eq!(backend.stable_calls(), 1);
        assert_eq!(backend.list_calls(), 1);
    }
}

/// Helper function for calculating install operation count in HTTP/S3-style backends.
/// Used by HttpBackend and S3Backend to avoid code duplication.
/// Share of an install the initial fetch is assumed to take when a backend has
/// not said otherwise. Downloading is normally the long pole; verification and
/// extraction split what is left.
const DOWNLOAD_OPERATION_WEIGHT: f64 = 0.7;

/// Replacing an existing install before the new one is fetched.
const UNINSTALL_OPERATION_WEIGHT: f64 = 0.05;

/// Run a blocking lock acquisition without starving the async runtime. The
/// holder of an install lock is often another install in this same process
/// (parallel tasks sharing a tool); if the waiter blocks its worker thread, the
/// holder's tasks queued on that worker never run and neither side finishes.
/// `block_in_place` hands the worker's queued tasks to other workers first.
fn block_on_lock<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// What an install says while another process holds its tool-version lock.
/// Naming the PID matters: the holder is usually a shim auto-installing the
/// tool, and a shim's command line reads like the tool (`node app.js`), not
/// like mise.
pub(crate) fn install_lock_wait_message(holder_pid: Option<u32>) -> String {
    match holder_pid {
        Some(pid) => format!("waiting for install lock held by pid {pid}"),
        None => "waiting for install lock".to_string(),
    }
}

/// Weight the first operation as the fetch and split the remainder evenly over
/// whatever verification and unpacking steps the backend declared.
pub(crate) fn default_operation_weights(count: usize) -> Vec<f64> {
    match count {
        0 => vec![],
        1 => vec![1.0],
        n => {
            let rest = (1.0 - DOWNLOAD_OPERATION_WEIGHT) / (n - 1) as f64;
            std::iter::once(DOWNLOAD_OPERATION_WEIGHT)
                .chain(std::iter::repeat_n(rest, n - 1))
                .collect()
        }
    }
}

pub(crate) fn http_install_operation_count(
    has_checksum_opt: bool,
    platform_key: &str,
    tv: &ToolVersion,
) -> usize {
    let settings = Settings::get();
    let mut count = 2; // download + extraction
    if has_checksum_opt {
        count += 1;
    }
    let lockfile_enabled = settings.lockfile_enabled();
    let has_lockfile_checksum = tv
        .lock_platforms
        .get(platform_key)
        .and_then(|p| p.checksum.as_ref())
        .is_some();
    if lockfile_enabled || has_lockfile_checksum {
        count += 1;
    }
    count
}

/// Check that the provenance type recorded in the lockfile is still enabled in settings.
/// `is_disabled` receives the provenance type and returns `Ok(true)` when the corresponding
/// setting is off, or `Err` for provenance types unexpected in the calling backend.
pub(crate) fn ensure_provenance_setting_enabled(
    tv: &ToolVersion,
    platform_key: &str,
    is_disabled: impl FnOnce(&ProvenanceType) -> Result<bool>,
) -> Result<()> {
    let provenance = tv
        .lock_platforms
        .get(platform_key)
        .and_then(|pi| pi.provenance.as_ref());
    let Some(provenance) = provenance else {
        return Ok(());
    };
    if is_disabled(provenance)? {
        return Err(eyre!(
            "Lockfile requires {provenance} provenance for {tv} but the corresponding \
             verification setting is disabled. This may indicate a downgrade attack. \
             Enable the setting or update the lockfile."
        ));
    }
    Ok(())
}

fn find_match_in_list(list: &[String], query: &str) -> Option<String> {
    match list.contains(&query.to_string()) {
        true => Some(query.to_string()),
        false => list.last().map(|s| s.to_string()),
    }
}

/// Apply the read-time `prerelease` filter to the cached remote-versions
/// superset. Backends cache the full list and stamp `VersionInfo.prerelease`
/// either from upstream metadata or, for metadata-free listing backends, mise's
/// legacy pre-release pattern. This helper drops pre-release entries when the
/// current tool opts don't opt in.
/// What a backend may report while offline: whatever the cache holds, and
/// otherwise nothing. Never the network, whatever the backend would rather
/// recheck.
pub(crate) fn cached_remote_versions_offline(
    ba: &BackendArg,
    cache: &VersionCacheManager,
) -> Vec<VersionInfo> {
    trace!(
        "Skipping remote version listing for {} due to offline mode",
        ba.to_string()
    );
    match cache.get_cached() {
        Ok(versions) => versions,
        Err(err) => {
            debug!(
                "No cached remote versions available for {} while offline: {:#}",
                ba.to_string(),
                err
            );
            vec![]
        }
    }
}

pub(crate) fn filter_cached_prereleases(
    versions: Vec<VersionInfo>,
    want_prereleases: bool,
) -> Vec<VersionInfo> {
    if want_prereleases {
        versions
    } else {
        versions
            .into_iter()
            .filter(|v| v.prerelease != Some(true))
            .collect()
    }
}

pub(crate) fn mark_prerelease(mut version: VersionInfo) -> VersionInfo {
    // Only fill in unknowns: an authoritative Some(false) from the source
    // (e.g. a GitHub release explicitly published as a full release) must not
    // be overridden by pattern detection.
    if version.prerelease.is_none() && VERSION_REGEX.is_match(&version.version) {
        version.prerelease = Some(true);
    }
    version
}

fn tool_option_bool(value: &toml::Value) -> bool {
    crate::backend::options::bool_value_or_default("prerelease", value, false)
}

/// Fuzzy-match `versions` against `query` with Python pre-release detection
/// ([`is_python_prerelease`]) in place of the shared filter. Used by
/// Python-flavored backends (`pipx`, the `python` core plugin) so
/// `3.15.0a8`-style versions are dropped from `latest` resolution and
/// partial-prefix queries when the user hasn't opted in to prereleases, while
/// a local label such as `1.1+gpu.dev0` does not make a release a prerelease.
pub(crate) fn fuzzy_match_versions_pep440(
    versions: Vec<String>,
    query: &str,
    filter_prereleases: bool,
) -> Vec<String> {
    fuzzy_match_versions_by(versions, query, |v| {
        filter_prereleases && is_python_prerelease(v)
    })
}

/// Fuzzy-match `versions` against `query`. When `filter_prereleases` is true,
/// drop strings matching [`VERSION_REGEX`] (e.g. `1.0.0-rc1`, `1.0.0-dev`) —
/// the historical behavior. Backends opting into pre-releases call this with
/// `false` to keep those tags in the match set.
pub(crate) fn fuzzy_match_versions(
    versions: Vec<String>,
    query: &str,
    filter_prereleases: bool,
) -> Vec<String> {
    fuzzy_match_versions_by(versions, query, |v| {
        filter_prereleases && VERSION_REGEX.is_match(v)
    })
}

/// Fuzzy-match `versions` against `query`, dropping versions for which
/// `is_filtered_prerelease` returns true unless they equal `query` exactly, so
/// an explicit prerelease request (`python@3.14.0a1`) still resolves.
fn fuzzy_match_versions_by(
    versions: Vec<String>,
    query: &str,
    is_filtered_prerelease: impl Fn(&str) -> bool,
) -> Vec<String> {
    versions
        .into_iter()
        .filter(|v| {
            if query == v {
                return true;
            }
            if is_filtered_prerelease(v) {
                return false;
            }
            fuzzy_version_matches(query, v)
        })
        .collect()
}

/// Whether `version` belongs to the fuzzy `query`. Resolution runs this for
/// every tool, so these rules are written as string comparisons; they match the
/// regexes they replaced, which cost more to compile than resolving the tool:
///
/// - `latest` matches a version starting with a digit, after an optional `v`.
/// - A query ending in `-` (a vendor prefix like `temurin-`) matches any version
///   it prefixes.
/// - Otherwise the version must equal the query or continue it with a
///   separator and at least one more character. For numeric queries like `1.2`
///   the separators are `+`, `-` and `.`, so `1.2` matches `1.2.3` and
///   `1.2+build` but not `1.20`. For names they are `-` and `.`, so
///   `truffleruby` does not select `truffleruby+graalvm`.
///
/// A query starting with a digit also matches a `v`-prefixed version, and a
/// query starting with `v` or `V` also matches the version without it. None of
/// the text matched after the query may contain a newline.
pub(crate) fn fuzzy_version_matches(query: &str, version: &str) -> bool {
    let starts_with_digit = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    if query == "latest" {
        let version = version.strip_prefix('v').unwrap_or(version);
        return starts_with_digit(version) && !version.contains('\n');
    }
    let without_v = query.strip_prefix(['v', 'V']);
    let separators: &[char] = if starts_with_digit(without_v.unwrap_or(query)) {
        &['+', '-', '.']
    } else {
        &['-', '.']
    };
    let continues = |literal: &str, version: &str| {
        let Some(rest) = version.strip_prefix(literal) else {
            return false;
        };
        if query.ends_with('-') {
            return !rest.contains('\n');
        }
        rest.is_empty()
            || rest
                .strip_prefix(separators)
                .is_some_and(|tail| !tail.is_empty() && !tail.contains('\n'))
    };
    if continues(query, version) {
        return true;
    }
    if starts_with_digit(query)
        && let Some(version) = version.strip_prefix('v')
        && continues(query, version)
    {
        return true;
    }
    without_v.is_some_and(|without_v| continues(without_v, version))
}

/// Derive the directory namespace from the configured tool spelling.
///
/// A tool named by a URL can carry credentials
/// (`cargo:https://user:token@host/repo.git`). They are left out of the name:
/// kebab-casing keeps them readable, no redaction recognizes them there, and
/// these paths reach logs, error messages and `PATH`. A spelling without
/// credentials, including `ssh://git@host` URLs, keeps the name it always had.
pub fn tool_directory_name(short: &str) -> String {
    use heck::ToKebabCase;
    crate::toolset::install_state::state_short(short).to_kebab_case()
}

pub(crate) fn canonical_backend_full(backend: &str) -> std::borrow::Cow<'_, str> {
    match backend.strip_prefix("pipx:") {
        Some(name) => format!("pypi:{name}").into(),
        None => backend.into(),
    }
}

pub fn unalias_backend(backend: &str) -> std::borrow::Cow<'_, str> {
    match backend {
        "dotnet-core" => "dotnet",
        "nodejs" => "node",
        "golang" => "go",
        _ => backend.trim_start_matches("core:"),
    }
    .into()
}

#[test]
fn test_unalias_backend() {
    assert_eq!(unalias_backend("pipx:black"), "pipx:black");
    assert_eq!(unalias_backend("pypi:black"), "pypi:black");
    assert_eq!(unalias_backend("node"), "node");
    assert_eq!(unalias_backend("nodejs"), "node");
    assert_eq!(unalias_backend("core:node"), "node");
    assert_eq!(unalias_backend("golang"), "go");
    assert_eq!(unalias_backend("dotnet-core"), "dotnet");
}

#[test]
fn test_tool_directory_name_omits_url_credentials() {
    assert_eq!(tool_directory_name("npm:@antfu/ni"), "npm-antfu-ni");
    assert_eq!(
        tool_directory_name("cargo:https://host/acme/tool.git"),
        "cargo-https-host-acme-tool-git"
    );
    // The user of an ssh URL is an account name, and the directory keeps it.
    assert_eq!(
        tool_directory_name("cargo:ssh://git@host/acme/tool.git"),
        "cargo-ssh-git-host-acme-tool-git"
    );
    for short in [
        "cargo:https://bot:t0ken@host/acme/tool.git",
        "cargo:https://t0ken@host/acme/tool.git",
        "cargo:https://bot:my t0ken@host/acme/tool.git",
        "cargo:https://host/acme/tool.git?token=t0ken",
        "cargo:https://host/acme/tool.git?private_token=t0ken",
    ] {
        assert_eq!(
            tool_directory_name(short),
            "cargo-https-host-acme-tool-git",
            "{short}"
        );
    }
}

impl Display for dyn Backend {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.id())
    }
}

impl Eq for dyn Backend {}

impl PartialEq for dyn Backend {
    fn eq(&self, other: &Self) -> bool {
        self.get_plugin_type() == other.get_plugin_type() && self.id() == other.id()
    }
}

impl Hash for dyn Backend {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id().hash(state)
    }
}

impl PartialOrd for dyn Backend {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for dyn Backend {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id().cmp(other.id())
    }
}

/// The config `[env]` a tool's `postinstall` hook runs with.
///
/// A hook has to see an env input that a hook before it changed, which rules out
/// the process-wide memo behind [`Config::env`]. Resolving unconditionally for
/// every hook goes too far the other way: it re-runs each executable directive —
/// an `_.source` script, an `exec()` value — once per hook, and with parallel
/// installs runs them against each other at the same time.
///
/// So one resolution is shared by every hook that starts without a hook having
/// completed in between, and two never resolve at once. A completed hook is the
/// only thing during an install that can change an env input, so this is as few
/// resolutions as freshness allows.
struct SharedHookEnv {
    /// What [`POSTINSTALL_ENV_GENERATION`] read when this was resolved. A hook
    /// completing since then makes it stale.
    generation: u64,
    env: IndexMap<String, String>,
}

/// Release dates read one version at a time during this run, keyed by resolved
/// backend and version.
///
/// The key is `BackendArg::full()`, not the short name: a registry entry can
/// offer several backends under one short name, and a date read for one of
/// them says nothing about the same version of another.
///
/// `Backend::fetch_version_created_at` goes to the network, and two separate
/// things need each answer: the walk that applies a release-age cutoff, and the
/// error message that explains which versions the cutoff hid. Without a shared
/// record the message re-reads the cached listing, where those versions are
/// still undated, and falls back to a bare "no versions found" — dropping the
/// remedy that tells the user which version to pin or how to lower the cutoff.
///
/// Only an answer is kept, never the absence of one. "No date" is what a
/// backend reports for an offline run, a source that could not be reached and
/// metadata it could not parse, and holding onto that would keep a version
/// unchecked for the rest of the process. A release date that was read, on the
/// other hand, describes a release that already happened and cannot change.
type OnDemandReleaseDates = IndexMap<(String, String), String>;
static ON_DEMAND_RELEASE_DATES: LazyLock<Mutex<OnDemandReleaseDates>> =
    LazyLock::new(Default::default);

/// How many dates to keep. Reaching this needs a cutoff deep enough to walk
/// past a listing's dated versions, repeated across hundreds of tools, so a CLI
/// run never comes close; the bound is here so a long-lived process (a daemon,
/// an embedded use) cannot grow this without end.
const ON_DEMAND_RELEASE_DATE_LIMIT: usize = 1024;

fn remember_on_demand_release_date(backend: &str, version: &str, created_at: Option<&str>) {
    let Some(created_at) = created_at else {
        return;
    };
    if let Ok(mut dates) = ON_DEMAND_RELEASE_DATES.lock() {
        evict_oldest_release_dates(&mut dates, ON_DEMAND_RELEASE_DATE_LIMIT);
        dates.insert(
            (backend.to_string(), version.to_string()),
            created_at.to_string(),
        );
    }
}

/// Make room for one more date by dropping the oldest.
///
/// The oldest rather than the whole map: another resolution may still be
/// relying on a date it stored to say which versions its cutoff hid. Losing one
/// costs a repeated lookup, nothing more.
fn evict_oldest_release_dates<V>(dates: &mut IndexMap<(String, String), V>, limit: usize) {
    while dates.len() >= limit {
        dates.shift_remove_index(0);
    }
}

/// Versions a release-age cutoff let through because no date could be found,
/// keyed by the tool's short name and version, with the cutoff that went
/// unchecked.
///
/// The short name rather than the full backend: a registry entry that routes by
/// version (`nub` on GitHub from 0.9.5, on npm below it) lists a version through
/// one backend and installs it through another, but both carry the short name.
///
/// Resolution only records them. Resolution also runs for `mise env`, `mise ls`
/// and `mise outdated`, which a shell prompt can trigger on every command, so
/// the warning waits until the version is about to be installed
/// ([`warn_if_release_date_unchecked`]).
/// The value is the cutoff and, when the date lookup failed rather than came
/// back empty, why.
type UndatedReleases = IndexMap<(String, String), (Timestamp, Option<String>)>;
static UNDATED_RELEASES: LazyLock<Mutex<UndatedReleases>> = LazyLock::new(Default::default);

fn note_undated_release(
    tool: &str,
    version: &str,
    before: Timestamp,
    lookup_error: Option<String>,
) {
    if let Ok(mut undated) = UNDATED_RELEASES.lock() {
        evict_oldest_release_dates(&mut undated, ON_DEMAND_RELEASE_DATE_LIMIT);
        undated.insert(
            (tool.to_string(), version.to_string()),
            (before, lookup_error),
        );
    }
}

fn clear_undated_release(tool: &str, version: &str) {
    if let Ok(mut undated) = UNDATED_RELEASES.lock() {
        undated.shift_remove(&(tool.to_string(), version.to_string()));
    }
}

/// What went unchecked for `version`, if resolution picked it without a
/// release date: the cutoff, and the lookup error if one was raised.
fn unchecked_release(tool: &str, version: &str) -> Option<(Timestamp, Option<String>)> {
    UNDATED_RELEASES
        .lock()
        .ok()?
        .get(&(tool.to_string(), version.to_string()))
        .cloned()
}

/// The cutoff that went unchecked for `version`, if resolution picked it
/// without a release date.
#[cfg(test)]
fn unchecked_release_cutoff(tool: &str, version: &str) -> Option<Timestamp> {
    unchecked_release(tool, version).map(|(before, _)| before)
}

/// Warn that `version` is about to be installed although the release-age cutoff
/// could not check it, because its backend returned no release date for it.
/// Silent for a version resolution did not pick under a cutoff.
pub(crate) fn warn_if_release_date_unchecked(ba: &BackendArg, version: &str) {
    let backend = ba.full();
    match unchecked_release(&ba.short, version) {
        Some((before, Some(err))) => warn_once!(
            "{backend}@{version}: could not read its release date to check the {before} cutoff, allowing it: {err} (exclude it with minimum_release_age_excludes to silence this)"
        ),
        Some((before, None)) => warn_once!(
            "{backend}@{version} has no release date, so the {before} cutoff cannot be checked and it is allowed (exclude it with minimum_release_age_excludes to silence this)"
        ),
        None => {}
    }
}

fn on_demand_release_date(backend: &str, version: &str) -> Option<String> {
    ON_DEMAND_RELEASE_DATES
        .lock()
        .ok()?
        .get(&(backend.to_string(), version.to_string()))
        .cloned()
}

static POSTINSTALL_ENV: LazyLock<TokioMutex<Option<SharedHookEnv>>> =
    LazyLock::new(Default::default);
static POSTINSTALL_ENV_GENERATION: AtomicU64 = AtomicU64::new(0);

async fn postinstall_config_env(config: &Arc<Config>) -> Result<IndexMap<String, String>> {
    let mut shared = POSTINSTALL_ENV.lock().await;
    let generation = POSTINSTALL_ENV_GENERATION.load(Ordering::SeqCst);
    if let Some(shared) = shared.as_ref()
        && shared.generation == generation
    {
        return Ok(shared.env.clone());
    }
    let env = config.env_uncached().await?;
    *shared = Some(SharedHookEnv {
        generation,
        env: env.clone(),
    });
    Ok(env)
}

/// Drop the shared resolution. Called after every hook, which may have changed a
/// file or command output an `[env]` value reads, and on [`reset`], where the
/// config it was resolved from is gone.
fn invalidate_postinstall_env() {
    POSTINSTALL_ENV_GENERATION.fetch_add(1, Ordering::SeqCst);
}

pub async fn reset() -> Result<()> {
    install_state::reset();
    invalidate_postinstall_env();
    // Build the new map before replacing the old one. Clearing TOOLS first left
    // a window, while the rebuild ran, in which a concurrent list() or get()
    // found no map at all and panicked (#14238).
    let tools = build_tools().await?;
    let mut cached = TOOLS.lock().unwrap();
    *TOOLS_SEEDED.lock().unwrap() = Some(tools.clone());
    TOOLS_INCLUDE_INSTALLED.store(false, std::sync::atomic::Ordering::SeqCst);
    *cached = Some(tools);
    Ok(())
}

#[cfg(test)]
mod option_spec_tests {
    use super::*;

    fn opts(toml: &str) -> ToolVersionOptions {
        crate::toolset::parse_tool_options(toml)
    }

    #[test]
    fn reports_options_the_backend_does_not_read() {
        let spec = OptionSpec::new(&["tool_cargo_options"]);
        let o = opts("bin=x,asset_pattern=y,rename_exe=z");
        assert_eq!(
            spec.unknown_keys(&BackendType::Cargo, &o),
            vec!["asset_pattern"]
        );
    }

    #[test]
    fn reports_unknown_options_inside_platforms() {
        let spec = OptionSpec::with_platforms(&["tool_cargo_options"], &["tool_cargo_platforms"]);
        let mut o = ToolVersionOptions::default();
        let platform: toml::Table =
            toml::from_str("[linux-x64]\nasset_pattern = \"x\"\nbin = \"y\"").unwrap();
        o.opts
            .insert("platforms".into(), toml::Value::Table(platform));
        assert_eq!(
            spec.unknown_keys(&BackendType::Cargo, &o),
            vec!["platforms.asset_pattern"]
        );
    }

    #[test]
    fn accepts_shared_and_flat_platform_options() {
        let spec = OptionSpec::with_platforms(&["tool_http_options"], &["tool_http_platforms"]);
        let o = opts(
            "postinstall=x,minimum_release_age=7d,install_before=1d,version_order=semver,prerelease=true,platform_linux_x64_url=u,platforms_macos_arm64_checksum=c",
        );
        assert_eq!(
            spec.unknown_keys(&BackendType::Http, &o),
            Vec::<String>::new()
        );
        assert_eq!(
            spec.unknown_keys(&BackendType::Http, &opts("platform_linux_x64_nonsense=u")),
            vec!["platform_linux_x64_nonsense"]
        );
        // A platform with no arch is not a spelling the install path reads.
        assert_eq!(
            spec.unknown_keys(&BackendType::Http, &opts("platform_linux_url=u")),
            vec!["platform_linux_url"]
        );
    }

    #[test]
    fn platform_overrides_are_checked_against_the_platform_options() {
        let spec = OptionSpec::with_platforms(&["tool_cargo_options"], &["tool_cargo_platforms"]);
        // `features` is a cargo option, but cargo reads it only at the top level.
        let mut o = opts("platform_linux_x64_features=x,platform_linux_x64_bin=b");
        let platform: toml::Table =
            toml::from_str("[linux-x64]\nfeatures = \"x\"\nbin = \"y\"").unwrap();
        o.opts
            .insert("platforms".into(), toml::Value::Table(platform));
        assert_eq!(
            spec.unknown_keys(&BackendType::Cargo, &o),
            vec!["platform_linux_x64_features", "platforms.features"]
        );
    }

    #[test]
    fn http_platform_overrides_accept_headers() {
        let spec = OptionSpec::with_platforms(&["tool_http_options"], &["tool_http_platforms"]);
        let o = opts("platform_linux_x64_headers=x,platform_linux_x64_headers_forward=y");
        assert_eq!(
            spec.unknown_keys(&BackendType::Http, &o),
            Vec::<String>::new()
        );
    }

    #[test]
    fn backends_without_platform_options_reject_them_in_overrides() {
        let spec = OptionSpec::new(&["tool_cargo_options"]);
        let mut o = ToolVersionOptions::default();
        let platform: toml::Table =
            toml::from_str("[linux-x64]\nbin = \"y\"\npostinstall = \"z\"").unwrap();
        o.opts
            .insert("platforms".into(), toml::Value::Table(platform));
        assert_eq!(
            spec.unknown_keys(&BackendType::Cargo, &o),
            vec!["platforms.bin"]
        );
    }

    #[test]
    fn stub_keys_are_allowed_inside_platform_overrides_too() {
        let spec = OptionSpec::new(&["tool_cargo_options"]);
        let mut o = ToolVersionOptions::default();
        let platform: toml::Table = toml::from_str("[linux-x64]\nbin = \"y\"").unwrap();
        o.opts
            .insert("platforms".into(), toml::Value::Table(platform));
        assert!(
            spec.check("cargo:x", &BackendType::Cargo, &o, &["bin"])
                .is_ok()
        );
    }

    #[test]
    fn check_fails_on_an_unknown_option() {
        let o = opts("nonsense=1");
        let err = OptionSpec::new(&["tool_cargo_options"])
            .check("cargo:x", &BackendType::Cargo, &o, &[])
            .unwrap_err();
        assert!(err.to_string().contains("option `nonsense` is not used"));
    }

    #[test]
    fn every_schema_documented_option_is_accepted() {
        for (backend_type, defs) in [
            (BackendType::Cargo, &["tool_cargo_options"][..]),
            (BackendType::Conda, &["tool_conda_options"]),
            (BackendType::Gem, &["tool_gem_options"]),
            (
                BackendType::Github,
                &["tool_github_options", "tool_forge_options"],
            ),
            (
                BackendType::Gitlab,
                &["tool_gitlab_options", "tool_forge_options"],
            ),
            (
                BackendType::Forgejo,
                &["tool_forgejo_options", "tool_forge_options"],
            ),
            (BackendType::Go, &["tool_go_options"]),
            (BackendType::Http, &["tool_http_options"]),
            (BackendType::Npm, &["tool_npm_options"]),
            (BackendType::Packslip, &["tool_packslip_options"]),
            (BackendType::Pipx, &["tool_pypi_options"]),
            (BackendType::S3, &["tool_s3_options"]),
            (BackendType::Spinel, &["tool_spinel_options"]),
            (BackendType::Spm, &["tool_spm_options"]),
            (BackendType::Ubi, &["tool_ubi_options"]),
        ] {
            let documented: Vec<String> = defs
                .iter()
                .flat_map(|d| OptionSpec::schema_keys(d))
                .collect();
            assert!(
                !documented.is_empty(),
                "{backend_type:?}: no schema options"
            );
            let mut o = ToolVersionOptions::default();
            for key in documented {
                o.opts.insert(key, toml::Value::Boolean(true));
            }
            assert_eq!(
                OptionSpec::new(defs).unknown_keys(&backend_type, &o),
                Vec::<String>::new(),
                "{backend_type:?}"
            );
        }
    }
}
