use crate::daemons::glue::DaemonSetExt;
use crate::task::TaskToolValueExt;
use dashmap::DashMap;
use eyre::{Context, Result, bail, eyre};
use indexmap::{IndexMap, IndexSet};
use itertools::{Either, Itertools};
use path_absolutize::Absolutize;
pub use settings::{CompilePurpose, Settings, SettingsExt};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::env::join_paths;
use std::fmt::{Debug, Formatter};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock as Lazy;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};
use tokio::{sync::OnceCell, task::JoinSet};
use walkdir::WalkDir;

use crate::args::{BackendArg, split_bracketed_opts};
use crate::backend::ABackend;
use crate::config::config_file::idiomatic_version::IdiomaticVersionFile;
use crate::config::config_file::min_version::MinVersionSpec;
use crate::config::config_file::mise_toml::{MiseToml, MonorepoConfig, Tasks};
use crate::config::config_file::{
    ConfigFile, TaskConfig, config_trust_root, is_path_trusted, trust_check,
};
use crate::config::env_directive::{EnvDirective, EnvResolveOptions, EnvResults, ToolsFilter};
use crate::config::tracking::Tracker;
use crate::env::{MISE_DEFAULT_CONFIG_FILENAME, MISE_DEFAULT_TOOL_VERSIONS_FILENAME};
use crate::file::display_path;
use crate::remote_source::RemoteSource;
use crate::shorthands::{Shorthands, get_shorthands};
use crate::task::task_file_providers::{
    OCI_INCLUDE_PREFIX, TaskFileArtifact, TaskFileProvidersBuilder, validate_remote_git_path,
};
use crate::task::task_sources::TaskOutputs;
use crate::task::{
    RunEntry, Task, TaskCacheConfig, TaskRustCacheConfig, TaskTemplate, monorepo_scope,
    strip_extension,
};
use crate::tera::{
    DryRunRender, contains_template_syntax, get_empty_tera, render_str, take_tera_accessed_files,
};
use crate::toolset::env_cache::{CachedNonToolEnv, compute_settings_hash, get_file_mtime};
use crate::toolset::{
    ResolveOptions, ResolvedToolOptions, ToolOptions, ToolRequest, ToolRequestSet,
    ToolRequestSetBuilder, ToolSource, ToolVersion, ToolVersionOptions, Toolset, install_state,
};
use crate::ui::style;
use crate::version;
use crate::{backend, dirs, env, file, lockfile, registry, runtime_symlinks, shims, timeout};

pub(crate) mod command_wrapper;
pub mod config_file;
pub mod doctor;
pub mod edit;
pub mod env_directive;
pub mod miserc;
pub mod project;
pub(crate) mod provenance;
mod remote_include;
pub mod schema;
pub mod settings;
pub mod tracking;

use crate::env_diff::EnvMap;
use crate::hook_env::WatchFilePattern;
use crate::hooks::Hook;
use crate::plugins::PluginType;
use crate::tera::BASE_CONTEXT;
use crate::watch_files::WatchFile;
use crate::wildcard::Wildcard;
pub use command_wrapper::{CommandWrapper, CommandWrapperOptions};

type AliasMap = IndexMap<String, Alias>;
pub type ConfigMap = IndexMap<PathBuf, Arc<dyn ConfigFile>>;
pub(crate) type EnvWithSources = IndexMap<String, (String, PathBuf)>;
type RemoteTaskIncludeKey = (String, Option<String>);
type RemoteTaskIncludeArtifacts = DashMap<RemoteTaskIncludeKey, Arc<OnceCell<TaskFileArtifact>>>;
static REMOTE_TASK_INCLUDE_ARTIFACTS: Lazy<RemoteTaskIncludeArtifacts> = Lazy::new(DashMap::new);

pub(crate) fn take_remote_task_include_artifacts() -> Vec<Arc<OnceCell<TaskFileArtifact>>> {
    let keys = REMOTE_TASK_INCLUDE_ARTIFACTS
        .iter()
        .map(|entry| entry.key().clone())
        .collect_vec();
    keys.into_iter()
        .filter_map(|key| {
            REMOTE_TASK_INCLUDE_ARTIFACTS
                .remove(&key)
                .map(|(_, artifact)| artifact)
        })
        .collect()
}

#[cfg(test)]
mod remote_task_include_tests {
    use super::*;

    #[test]
    fn take_remote_task_include_artifacts_drains_cache() {
        drop(take_remote_task_include_artifacts());
        REMOTE_TASK_INCLUDE_ARTIFACTS.insert(
            ("https://example.test/repo.git".into(), None),
            Arc::new(OnceCell::new()),
        );

        let artifacts = take_remote_task_include_artifacts();

        assert!(REMOTE_TASK_INCLUDE_ARTIFACTS.is_empty());
        assert_eq!(artifacts.len(), 1);
    }
}
pub struct MonorepoUnion {
    pub config_files: ConfigMap,
    pub tool_request_set: ToolRequestSet,
    pub repo_urls: HashMap<String, String>,
}

fn extend_monorepo_tool_request_set(union: &mut ToolRequestSet, requests: &ToolRequestSet) {
    union
        .unknown_tools
        .extend(requests.unknown_tools.iter().cloned());
    for (_ba, tool_requests, source) in requests.iter() {
        for request in tool_requests {
            let already_present = union.tools.get(request.ba()).is_some_and(|existing| {
                existing.iter().any(|existing| {
                    existing.version() == request.version()
                        && existing.options() == request.options()
                })
            });
            if !already_present {
                union.add_version(request.clone(), source);
            }
        }
    }
}

/// One independently composed bootstrap hierarchy and its scoped template context.
#[derive(Clone)]
struct BootstrapConfigMap {
    config_files: ConfigMap,
    tera_ctx: tera::Context,
    config_root: Option<PathBuf>,
    vars_results: EnvResults,
    dry_run_unresolved_vars: IndexSet<String>,
}

pub struct Config {
    pub config_files: ConfigMap,
    bootstrap_config_maps: Vec<BootstrapConfigMap>,
    /// Vars a bootstrap dry run leaves out of `tera_ctx` because resolving them
    /// needs something a dry run must not do, such as running `exec()`.
    bootstrap_dry_run_unresolved_vars: IndexSet<String>,
    pub project_root: Option<PathBuf>,
    pub all_aliases: AliasMap,
    pub repo_urls: HashMap<String, String>,
    pub vars: IndexMap<String, String>,
    pub tera_ctx: tera::Context,
    pub shorthands: Shorthands,
    pub shell_aliases: EnvWithSources,
    /// Files accessed by tera template functions (read_file, hash_file, etc.)
    /// during shell alias template rendering, used to watch for changes in hook-env.
    pub tera_files: Vec<PathBuf>,
    aliases: AliasMap,
    env: OnceCell<EnvResults>,
    env_with_sources: OnceCell<EnvWithSources>,
    hooks: OnceCell<Vec<(PathBuf, Option<PathBuf>, Hook)>>,
    tasks_cache: Arc<DashMap<crate::task::TaskLoadContext, Arc<BTreeMap<String, Task>>>>,
    /// Lenient graph shared across task-loading and strict inspection contexts.
    /// Provider errors remain on the graph so strict consumers can reject it.
    workspace_project_graph_cache:
        Mutex<Option<Arc<crate::task::workspace::WorkspaceProjectGraph>>>,
    daemons: once_cell::sync::OnceCell<crate::daemons::DaemonSet>,
    tool_request_set: OnceCell<ToolRequestSet>,
    toolset: OnceCell<Toolset>,
    vars_results: OnceCell<EnvResults>,
    /// The lockfile paths this config resolves to (which key the shared
    /// lockfile cache) plus the monorepo discovery behind them. Deriving them
    /// walks every config path and dedups the results, and backend-identity
    /// lookups ask for them hundreds of times per invocation, so derive once
    /// per config.
    lockfile_discovery: std::sync::OnceLock<Arc<crate::lockfile::LockfileDiscovery>>,
}

pub use mise_config::alias::Alias;

static _CONFIG: RwLock<Option<Arc<Config>>> = RwLock::new(None);
use mise_util::redactions::GLOBAL_REDACTOR as _REDACTOR;
use mise_util::redactions::secret_patterns;
/// Set when a `redact` entry from config or task env registered a non-empty value.
static CONFIG_REDACTIONS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// See `Config::add_secret_redactions`.
pub(crate) fn add_secret_redactions(values: impl IntoIterator<Item = String>) {
    let mut r = _REDACTOR.lock().unwrap();
    *r = r.with_additional(values);
}

/// Whether any configured (not secret-grant) redaction exists in this process.
pub(crate) fn has_config_redactions() -> bool {
    CONFIG_REDACTIONS.load(std::sync::atomic::Ordering::Relaxed)
}
const BOOTSTRAP_CONFIG_ROOTS_WARN_AT: &str = "2026.9.3";
const BOOTSTRAP_CONFIG_ROOTS_REMOVE_AT: &str = "2027.3.3";
const MONOREPO_LOCKFILE_WARN_AT: &str = "2026.12.0";
const MONOREPO_LOCKFILE_DEFAULT_AT: &str = "2027.6.0";

pub(crate) fn is_loaded() -> bool {
    _CONFIG.read().unwrap().is_some()
}

impl Config {
    /// Whether invocation-wide locked mode applies to a tool's config scope.
    /// Sources outside configuration files remain locked because they have no
    /// scope that can be excluded.
    pub(crate) fn invocation_locked_for(
        &self,
        source: &ToolSource,
        invocation_locked: bool,
    ) -> bool {
        if !invocation_locked {
            return false;
        }
        let Some(path) = source.path() else {
            return true;
        };
        // A tool the global override file declares is the user's own choice and shadows
        // whatever the project locked, so invocation-wide locking does not apply to it.
        // Every other tool is still enforced.
        if is_override_config(path) {
            return false;
        }
        let scope = match provenance::ConfigProvenance::from_path(path).scope() {
            provenance::ConfigFileScope::System => "system",
            provenance::ConfigFileScope::User => "global",
            provenance::ConfigFileScope::Project => "project",
        };
        Settings::get().locked_scopes.contains(scope)
    }

    /// Whether the config root that owns this tool request opted it into strict
    /// lockfile enforcement. Non-config sources remain governed only by the
    /// invocation-wide `locked` setting/flag.
    pub(crate) fn tool_config_locked(&self, source: &ToolSource) -> bool {
        let (ToolSource::MiseToml(path) | ToolSource::MiseTomlDaemon(path)) = source else {
            return false;
        };
        if is_override_config(path) {
            return false;
        }
        let Some(root) = self.config_files.get(path).map(|cf| cf.config_root()) else {
            return false;
        };
        // The global config root defaults to $HOME, which can also be the
        // config_root of a local config stored directly in $HOME. Keep those
        // conceptual roots separate even when their path values coincide.
        let is_global = is_global_config(path);
        self.config_files.values().any(|cf| {
            is_global_config(cf.get_path()) == is_global
                && cf.config_root() == root
                && cf.tool_config().locked
        })
    }

    pub async fn get() -> Result<Arc<Self>> {
        if let Some(config) = &*_CONFIG.read().unwrap() {
            return Ok(config.clone());
        }
        measure!("load config", { Self::load().await })
    }
    pub(crate) fn maybe_get() -> Option<Arc<Self>> {
        _CONFIG.read().unwrap().as_ref().cloned()
    }
    pub(crate) fn get_() -> Arc<Self> {
        (*_CONFIG.read().unwrap()).clone().unwrap()
    }
    pub async fn reset() -> Result<Arc<Self>> {
        backend::reset().await?;
        timeout::run_with_timeout_async(
            async || {
                _CONFIG.write().unwrap().take();
                *GLOBAL_CONFIG_FILES.lock().unwrap() = None;
                *OVERRIDE_CONFIG_FILES.lock().unwrap() = None;
                *SYSTEM_CONFIG_FILES.lock().unwrap() = None;
                // Global-config membership follows symlinks, which may have
                // been retargeted since the last load.
                file::clear_desymlink_cache();
                GLOB_RESULTS.lock().unwrap().clear();
                crate::lockfile::invalidate_caches();
                MONOREPO_LOCKFILE_DIRS.lock().unwrap().clear();
                crate::task::reset();
                for hook in RESET_HOOKS
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .iter()
                {
                    hook();
                }
                Ok(())
            },
            Duration::from_secs(5),
        )
        .await?;
        Settings::reload()?;
        Config::load().await
    }

    pub fn with_config_files(&self, config_files: ConfigMap) -> Arc<Self> {
        let project_root = get_project_root(&config_files).or_else(|| self.project_root.clone());
        let repo_urls = load_plugins(&config_files).unwrap_or_else(|_| self.repo_urls.clone());
        Arc::new(Self {
            tera_ctx: self.tera_ctx.clone(),
            config_files,
            bootstrap_config_maps: self.bootstrap_config_maps.clone(),
            bootstrap_dry_run_unresolved_vars: self.bootstrap_dry_run_unresolved_vars.clone(),
            env: OnceCell::new(),
            env_with_sources: OnceCell::new(),
            shorthands: self.shorthands.clone(),
            hooks: OnceCell::new(),
            tasks_cache: Arc::new(DashMap::new()),
            workspace_project_graph_cache: Mutex::new(None),
            daemons: Default::default(),
            tool_request_set: OnceCell::new(),
            toolset: OnceCell::new(),
            all_aliases: self.all_aliases.clone(),
            aliases: self.aliases.clone(),
            project_root,
            repo_urls,
            shell_aliases: self.shell_aliases.clone(),
            tera_files: self.tera_files.clone(),
            vars: self.vars.clone(),
            vars_results: OnceCell::new(),
            lockfile_discovery: Default::default(),
        })
    }

    /// Lockfile paths and monorepo discovery this config resolves to, derived
    /// once. See [`Self::lockfile_discovery`]'s field docs.
    pub(crate) fn lockfile_discovery(
        &self,
        derive: impl FnOnce() -> crate::lockfile::LockfileDiscovery,
    ) -> Arc<crate::lockfile::LockfileDiscovery> {
        self.lockfile_discovery
            .get_or_init(|| Arc::new(derive()))
            .clone()
    }

    pub fn with_tool_request_set(&self, tool_request_set: ToolRequestSet) -> Arc<Self> {
        let config = self.with_config_files(self.config_files.clone());
        config.tool_request_set.set(tool_request_set).unwrap();
        config
    }

    #[async_backtrace::framed]
    pub async fn load() -> Result<Arc<Self>> {
        backend::load_tools().await?;
        let idiomatic_files = measure!("config::load idiomatic_files", {
            load_idiomatic_filenames().await
        });
        let config_filenames = idiomatic_files
            .keys()
            .chain(DEFAULT_CONFIG_FILENAMES.iter())
            .cloned()
            .collect_vec();
        let config_paths = measure!("config::load config_paths", {
            load_config_paths(&config_filenames, false)
        });
        trace!("config_paths: {config_paths:?}");
        let config_files = measure!("config::load config_files", {
            load_all_config_files(&config_paths, &idiomatic_files).await?
        });

        let config = Self::load_from_config_files(config_files, false).await?;
        *_CONFIG.write().unwrap() = Some(config.clone());
        Ok(config)
    }

    pub(crate) async fn load_from_config_files(
        config_files: ConfigMap,
        global_only: bool,
    ) -> Result<Arc<Self>> {
        let mut config = Self {
            tera_ctx: BASE_CONTEXT.clone(),
            config_files,
            bootstrap_config_maps: vec![],
            bootstrap_dry_run_unresolved_vars: Default::default(),
            env: OnceCell::new(),
            env_with_sources: OnceCell::new(),
            shorthands: get_shorthands(&Settings::get()),
            hooks: OnceCell::new(),
            tasks_cache: Arc::new(DashMap::new()),
            workspace_project_graph_cache: Mutex::new(None),
            daemons: Default::default(),
            tool_request_set: OnceCell::new(),
            toolset: OnceCell::new(),
            all_aliases: Default::default(),
            aliases: Default::default(),
            project_root: Default::default(),
            repo_urls: Default::default(),
            shell_aliases: Default::default(),
            tera_files: Default::default(),
            vars: Default::default(),
            vars_results: OnceCell::new(),
            lockfile_discovery: Default::default(),
        };
        let vars_config = Arc::new(Self {
            tera_ctx: config.tera_ctx.clone(),
            config_files: config.config_files.clone(),
            bootstrap_config_maps: vec![],
            bootstrap_dry_run_unresolved_vars: Default::default(),
            env: OnceCell::new(),
            env_with_sources: OnceCell::new(),
            shorthands: config.shorthands.clone(),
            hooks: OnceCell::new(),
            tasks_cache: Arc::new(DashMap::new()),
            workspace_project_graph_cache: Mutex::new(None),
            daemons: Default::default(),
            tool_request_set: OnceCell::new(),
            toolset: OnceCell::new(),
            all_aliases: config.all_aliases.clone(),
            aliases: config.aliases.clone(),
            project_root: config.project_root.clone(),
            repo_urls: config.repo_urls.clone(),
            shell_aliases: config.shell_aliases.clone(),
            tera_files: config.tera_files.clone(),
            vars: config.vars.clone(),
            vars_results: OnceCell::new(),
            lockfile_discovery: Default::default(),
        });
        let vars_results = measure!("config::load vars_results", {
            let results = load_vars(&vars_config).await?;
            config.vars_results.set(results.clone()).ok();
            results
        });
        let vars: IndexMap<String, String> = vars_results
            .vars
            .iter()
            .map(|(k, (v, _))| (k.clone(), v.clone()))
            .collect();
        config.tera_ctx.insert("vars", &vars);

        config.vars = vars;
        config.aliases = load_aliases(&config.config_files)?;
        // Clear any previously tracked files before loading shell aliases
        let _ = take_tera_accessed_files();
        config.shell_aliases = load_shell_aliases(&config.config_files)?;
        config.tera_files = take_tera_accessed_files();
        config.project_root = get_project_root(&config.config_files);
        config.repo_urls = load_plugins(&config.config_files)?;
        measure!("config::load validate", {
            config.validate()?;
        });
        config.bootstrap_config_maps = load_bootstrap_config_maps(&config).await?;

        config.all_aliases = measure!("config::load all_aliases", { config.load_all_aliases() });

        measure!("config::load redactions", {
            config.add_redactions_excluding(
                config
                    .redaction_keys()
                    .into_iter()
                    .chain(vars_results.redactions.iter().cloned()),
                &config.vars.clone().into_iter().collect(),
                &vars_results.redaction_exclusions,
            );
        });

        if log::log_enabled!(log::Level::Trace) {
            trace!("config: {config:#?}");
        } else if log::log_enabled!(log::Level::Debug) {
            for p in config.config_files.keys() {
                debug!("config: {}", display_path(p));
            }
        }

        if !global_only {
            warn_if_auto_env_files_exist();
            warn_if_monorepo_lockfile_default_changes(&config);
        }

        time!("load done");

        measure!("config::load install_state", {
            for (plugin, url) in &config.repo_urls {
                let (plugin_type, plugin) = PluginType::from_plugin_entry(plugin, url);
                install_state::add_plugin(plugin, plugin_type).await?;
            }
        });

        measure!("config::load remove_aliased_tools", {
            for short in config
                .all_aliases
                .iter()
                .filter(|(_, a)| a.backend.is_some())
                .map(|(s, _)| s)
                .chain(config.repo_urls.keys())
            {
                // we need to remove aliased tools so they get re-added with updated "full" values
                backend::remove(short);
            }
        });

        let config = Arc::new(config);
        config.env_results().await?;
        Ok(config)
    }

    /// Build the config view that remains when `environments` are deselected.
    ///
    /// Comparing the desired state with and without an environment is what lets
    /// `mise bootstrap unapply` remove a module's resources without recording
    /// what an earlier run applied, and keeps a resource the base configuration
    /// or another selected environment still declares.
    pub(crate) fn without_environments(&self, environments: &[String]) -> Arc<Self> {
        let declared_by_environment = |path: &Path| {
            environments_for_config_path(path)
                .iter()
                .any(|environment| environments.iter().any(|name| name == environment))
        };
        let mut config_files = self.config_files.clone();
        config_files.retain(|path, _| !declared_by_environment(path));
        let mut config = self.with_config_files(config_files);
        let config_mut = Arc::get_mut(&mut config).expect("new config Arc is uniquely owned");
        for map in &mut config_mut.bootstrap_config_maps {
            map.config_files
                .retain(|path, _| !declared_by_environment(path));
        }
        config
    }

    /// Build the config view used to preview hooks introduced by dotfiles.
    ///
    /// This deliberately avoids the normal config loader: resolving vars or env can execute
    /// templates, source scripts, or modules, which a dry-run must not do. Literal vars are
    /// folded with normal config precedence; already-resolved dynamic vars are retained only
    /// when their declaring config file is unchanged.
    pub fn with_bootstrap_dry_run_config_files(
        &self,
        config_files: ConfigMap,
    ) -> Result<Arc<Self>> {
        let mut config = self.with_config_files(config_files);
        let bootstrap_roots = self
            .bootstrap_config_maps
            .iter()
            .filter_map(|map| map.config_root.as_deref())
            .collect_vec();
        let mut main_config_files = config.config_files.clone();
        main_config_files
            .retain(|path, _| !bootstrap_roots.iter().any(|root| path.starts_with(root)));
        let (vars, unresolved) = bootstrap_dry_run_vars(
            Some(&self.config_files),
            self.vars_results_cached(),
            &main_config_files,
            DryRunVars::default(),
            false,
        )?;
        let main_vars_changed = vars != self.vars;
        let config_mut = Arc::get_mut(&mut config).expect("new config Arc is uniquely owned");
        config_mut.vars = vars.clone();
        config_mut.tera_ctx.insert("vars", &vars);
        config_mut.bootstrap_dry_run_unresolved_vars = unresolved.clone();
        for map in &mut config_mut.bootstrap_config_maps {
            let original_config_files = map.config_files.clone();
            for (path, simulated) in &config_mut.config_files {
                let belongs_to_map = match &map.config_root {
                    Some(root) => path.starts_with(root),
                    None => !bootstrap_roots.iter().any(|root| path.starts_with(root)),
                };
                if belongs_to_map {
                    insert_bootstrap_dry_run_config_file(
                        &mut map.config_files,
                        path.clone(),
                        simulated.clone(),
                    );
                }
            }
            if map.config_root.is_some() {
                let (map_vars, map_unresolved) = bootstrap_dry_run_vars(
                    Some(&original_config_files),
                    Some(&map.vars_results),
                    &map.config_files,
                    (vars.clone(), unresolved.clone()),
                    main_vars_changed,
                )?;
                map.tera_ctx.insert("vars", &map_vars);
                map.dry_run_unresolved_vars = map_unresolved;
            } else {
                // The base map's context is the main config context. Re-folding its files
                // would lose cached dynamic vars that the normal loader already resolved.
                map.tera_ctx.insert("vars", &vars);
                map.dry_run_unresolved_vars = unresolved.clone();
            }
        }
        Ok(config)
    }
    pub(crate) fn env_maybe(&self) -> Option<IndexMap<String, String>> {
        self.env_with_sources.get().map(|env| {
            env.iter()
                .map(|(k, (v, _))| (k.clone(), v.clone()))
                .collect()
        })
    }

    /// Returns the independent config hierarchies that contribute bootstrap resources.
    pub(crate) fn bootstrap_config_maps(&self) -> impl Iterator<Item = &ConfigMap> {
        if self.bootstrap_config_maps.is_empty() {
            Either::Left(std::iter::once(&self.config_files))
        } else {
            Either::Right(
                self.bootstrap_config_maps
                    .iter()
                    .map(|config| &config.config_files),
            )
        }
    }

    /// Returns the independently selected bootstrap roots with their active config files.
    pub fn selected_bootstrap_config_maps(&self) -> impl Iterator<Item = (&Path, &ConfigMap)> {
        self.bootstrap_config_maps.iter().filter_map(|config| {
            config
                .config_root
                .as_deref()
                .map(|root| (root, &config.config_files))
        })
    }

    /// Returns the root-scoped template context for a bootstrap resource declaration.
    pub(crate) fn bootstrap_tera_ctx(&self, config_path: &Path) -> &tera::Context {
        self.bootstrap_config_maps
            .iter()
            .find(|config| config.config_files.contains_key(config_path))
            .map(|config| &config.tera_ctx)
            .unwrap_or(&self.tera_ctx)
    }

    /// Returns the vars a bootstrap dry run could not resolve without running
    /// anything, for the hierarchy that declares `config_path`.
    pub(crate) fn bootstrap_dry_run_unresolved_vars(
        &self,
        config_path: &Path,
    ) -> &IndexSet<String> {
        self.bootstrap_config_maps
            .iter()
            .find(|config| config.config_files.contains_key(config_path))
            .map(|config| &config.dry_run_unresolved_vars)
            .unwrap_or(&self.bootstrap_dry_run_unresolved_vars)
    }
    pub async fn env(self: &Arc<Self>) -> eyre::Result<IndexMap<String, String>> {
        Ok(self
            .env_with_sources()
            .await?
            .iter()
            .map(|(k, (v, _))| (k.clone(), v.clone()))
            .collect())
    }
    /// The tools-independent config env resolved now, bypassing every cache.
    ///
    /// [`Self::env`] memoizes into a process-wide `OnceCell`, which is right for
    /// a command that resolves the env once and then runs. It is wrong for a
    /// tool's `postinstall` hook: hooks run one after another inside a single
    /// install batch, an `[env]` value can read a file or command output that an
    /// earlier hook just changed, and the memo would hand every later hook the
    /// first one's snapshot. Which hook fills that memo is not even fixed —
    /// installs run in parallel, so it comes down to a race.
    ///
    /// So a hook resolves its own env and leaves the shared caches alone: it
    /// neither reads nor writes the memo or the on-disk `CachedNonToolEnv`, and
    /// a hook that changes an env input is visible to the hooks ordered after
    /// it. The cost is one resolution per tool that declares a hook.
    pub async fn env_uncached(self: &Arc<Self>) -> eyre::Result<IndexMap<String, String>> {
        Ok(self
            .load_env(false)
            .await?
            .env
            .into_iter()
            .map(|(k, (v, _))| (k, v))
            .collect())
    }

    pub async fn env_with_sources(self: &Arc<Self>) -> eyre::Result<&EnvWithSources> {
        self.env_with_sources
            .get_or_try_init(async || Ok(self.env_results().await?.env.clone()))
            .await
    }
    pub async fn env_results(self: &Arc<Self>) -> Result<&EnvResults> {
        self.env
            .get_or_try_init(|| async { self.load_env(true).await })
            .await
    }

    pub(crate) fn env_results_cached(&self) -> Option<&EnvResults> {
        self.env.get()
    }
    pub fn vars_results_cached(&self) -> Option<&EnvResults> {
        self.vars_results.get()
    }
    pub async fn path_dirs(self: &Arc<Self>) -> eyre::Result<&Vec<PathBuf>> {
        Ok(&self.env_results().await?.env_paths)
    }

    /// `_.path` entries declared with `position = "append"`
    pub async fn path_dirs_append(self: &Arc<Self>) -> eyre::Result<&Vec<PathBuf>> {
        Ok(&self.env_results().await?.env_paths_append)
    }
    pub fn daemons(&self) -> Result<&crate::daemons::DaemonSet> {
        self.daemons
            .get_or_try_init(|| crate::daemons::glue::load(&self.config_files))
    }

    /// Use `set` as this config's daemons instead of loading them from its files.
    /// A configuration reloaded for one project root still sees a daemon name a
    /// nearer project has taken over, so a caller that already resolved ownership
    /// seeds the answer here, keeping tool requests and exported environment to
    /// the daemons that project will actually register. Seeding after the daemons
    /// have been read does nothing, which is why callers seed on a fresh config.
    pub fn seed_daemons(&self, set: crate::daemons::DaemonSet) {
        let _ = self.daemons.set(set);
    }

    pub async fn get_tool_request_set(self: &Arc<Self>) -> eyre::Result<&ToolRequestSet> {
        self.tool_request_set
            .get_or_try_init(async || ToolRequestSetBuilder::new().build(self).await)
            .await
    }

    pub async fn get_toolset(self: &Arc<Self>) -> Result<&Toolset> {
        self.get_toolset_with_opts(&ResolveOptions::default()).await
    }

    pub async fn get_toolset_with_opts(
        self: &Arc<Self>,
        opts: &ResolveOptions,
    ) -> Result<&Toolset> {
        let opts = opts.clone();
        self.toolset
            .get_or_try_init(|| async {
                let mut ts = Toolset::from(self.get_tool_request_set().await?.clone());
                ts.resolve_with_opts(self, &opts).await?;
                Ok(ts)
            })
            .await
    }

    fn has_tool_alias(&self, short: &str) -> bool {
        self.all_aliases
            .get(short)
            .is_some_and(|alias| alias.backend.is_some())
            || self.repo_urls.contains_key(short)
    }

    pub(crate) async fn get_tool_opts_with_overrides(
        self: &Arc<Self>,
        backend_arg: &Arc<BackendArg>,
    ) -> Result<ToolOptions> {
        Ok(self
            .resolve_tool_opts_with_overrides(backend_arg)
            .await?
            .into_effective())
    }

    /// [`Self::get_tool_opts_with_overrides`] for one version: the config
    /// layer is the entry for that version rather than the tool's first entry,
    /// so a later entry of a multi-entry tool does not inherit options it
    /// leaves out.
    pub(crate) async fn get_tool_opts_for_request(
        self: &Arc<Self>,
        backend_arg: &Arc<BackendArg>,
        request: &ToolRequest,
    ) -> Result<ToolOptions> {
        Ok(self
            .resolve_tool_opts_for(backend_arg, Some(request))
            .await?
            .into_effective())
    }

    pub(crate) async fn resolve_tool_opts_with_overrides(
        self: &Arc<Self>,
        backend_arg: &Arc<BackendArg>,
    ) -> Result<ResolvedToolOptions> {
        self.resolve_tool_opts_for(backend_arg, None).await
    }

    async fn resolve_tool_opts_for(
        self: &Arc<Self>,
        backend_arg: &Arc<BackendArg>,
        request: Option<&ToolRequest>,
    ) -> Result<ResolvedToolOptions> {
        let trs = self.get_tool_request_set().await?;
        let short_match = trs.iter().find(|tr| tr.0.short == backend_arg.short);
        let tool_request = short_match.or_else(|| {
            if !self.has_tool_alias(&backend_arg.short) {
                return None;
            }

            let resolved_ba = BackendArg::new(backend_arg.full(), None);
            trs.iter().find(|tr| tr.0.short == resolved_ba.short)
        });
        let config_opts = tool_request.and_then(|tr| {
            request
                .and_then(|request| {
                    crate::toolset::configured_options_for_runtime_request(tr.1, request)
                })
                .or_else(|| tr.1.first().map(|req| req.options()))
        });
        let alias_opts = self.get_backend_alias_opts(backend_arg);
        Ok(backend_arg.resolve_opts_with_layers(alias_opts, config_opts, None))
    }

    fn get_backend_alias_opts(&self, backend_arg: &BackendArg) -> Option<ToolVersionOptions> {
        if backend_arg.has_env_backend_override() {
            return None;
        }
        let short = backend::unalias_backend(&backend_arg.short);
        let short = short.as_ref();
        self.all_aliases
            .get(short)
            .and_then(|alias| alias.backend.as_deref())
            .and_then(|backend| split_bracketed_opts(backend).map(|(_, opts)| opts))
            .map(crate::toolset::parse_tool_options)
    }

    pub(crate) fn get_configured_plugin_type(&self, plugin_name: &str) -> Option<PluginType> {
        self.repo_urls.keys().find_map(|key| {
            let (plugin_type, name) = PluginType::from_plugin_config(key);
            (key != name && name == plugin_name).then_some(plugin_type)
        })
    }

    /// The source a `[plugins]` entry names for `plugin_name`, if any.
    ///
    /// Unlike [`Self::get_repo_url`], this ignores registry shorthands, so it
    /// only returns a source the user configured explicitly.
    pub fn configured_plugin_url(&self, plugin_name: &str) -> Option<String> {
        let url = self.repo_urls.get(plugin_name).or_else(|| {
            self.repo_urls
                .iter()
                .find(|(key, _)| {
                    key.split_once(':')
                        .is_some_and(|(_, name)| name == plugin_name)
                })
                .map(|(_, url)| url)
        })?;
        Some(
            if Path::new(url).is_absolute() || url.starts_with("file://") {
                url.clone()
            } else {
                plugin_entry_to_url(url)
            },
        )
    }

    pub fn get_repo_url(&self, plugin_name: &str) -> Option<String> {
        if let Some(url) = self.repo_urls.get(plugin_name)
            && (Path::new(url).is_absolute()
                || url.starts_with("file://")
                || url.starts_with("packslip:"))
        {
            return Some(url.clone());
        }

        let plugin_name = self
            .all_aliases
            .get(plugin_name)
            .and_then(|a| a.backend.clone())
            .or_else(|| self.repo_urls.get(plugin_name).cloned())
            .unwrap_or(plugin_name.to_string());
        let plugin_name = plugin_name.strip_prefix("asdf:").unwrap_or(&plugin_name);
        let plugin_name = plugin_name.strip_prefix("vfox:").unwrap_or(plugin_name);

        if let Some(url) = self
            .repo_urls
            .keys()
            .find(|k| k.ends_with(&format!(":{plugin_name}")))
            .and_then(|k| self.repo_urls.get(k))
        {
            return Some(
                if Path::new(url).is_absolute()
                    || url.starts_with("file://")
                    || url.starts_with("packslip:")
                {
                    url.clone()
                } else {
                    plugin_entry_to_url(url)
                },
            );
        }

        self.shorthands
            .get(plugin_name)
            .map(|full| registry::full_to_url(&full[0]))
            .or_else(|| {
                if registry::url_like(plugin_name) || plugin_name.split('/').count() == 2 {
                    Some(plugin_entry_to_url(plugin_name))
                } else {
                    None
                }
            })
    }

    pub(crate) fn is_monorepo(&self) -> bool {
        find_monorepo_root(&self.config_files).is_some()
    }

    pub fn monorepo_root(&self) -> Option<PathBuf> {
        find_monorepo_root(&self.config_files)
    }

    fn monorepo_path_aliases(&self) -> Result<BTreeMap<String, String>> {
        let Some(config) = find_monorepo_config(&self.config_files) else {
            return Ok(BTreeMap::new());
        };
        if config.monorepo.path_aliases.is_empty() {
            return Ok(BTreeMap::new());
        }

        let roots = config.monorepo.config_roots.as_deref().ok_or_else(|| {
            eyre!("[monorepo].config_roots is required for [monorepo.path_aliases]")
        })?;
        let root_dirs = expand_config_root_dirs(&config.root, roots, None)?;
        let canonical_root = config.root.canonicalize()?;
        let mut aliases = BTreeMap::new();
        for (alias, target) in &config.monorepo.path_aliases {
            if alias.is_empty()
                || alias == "."
                || alias == ".."
                || alias.contains("...")
                || !alias
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'))
            {
                bail!("[monorepo.path_aliases]: {alias:?} must be a single path segment");
            }
            let target_path = Path::new(target);
            if target.contains('\\')
                || target_path.components().next().is_none()
                || !target_path
                    .components()
                    .all(|component| matches!(component, Component::Normal(_)))
            {
                bail!("[monorepo.path_aliases]: {target:?} must be a relative config root");
            }
            let target_dir = config.root.join(target_path).canonicalize().map_err(|_| {
                eyre!("[monorepo.path_aliases]: {alias:?} points to missing config root {target:?}")
            })?;
            if !target_dir.starts_with(&canonical_root) {
                bail!("[monorepo.path_aliases]: {alias:?} points outside the monorepo root");
            }
            let relative = |root: &Path| {
                root.strip_prefix(&config.root).map(|path| {
                    path.components()
                        .filter(|component| !matches!(component, Component::CurDir))
                        .map(|component| component.as_os_str().to_string_lossy())
                        .join("/")
                })
            };
            let target = target_path
                .components()
                .map(|component| component.as_os_str().to_string_lossy())
                .join("/");
            let selected_root = root_dirs
                .iter()
                .find(|root| relative(root).is_ok_and(|path| path == target));
            let Some(selected_root) = selected_root else {
                bail!(
                    "[monorepo.path_aliases]: {alias:?} must point to a root in [monorepo].config_roots"
                );
            };
            if root_dirs.iter().any(|root| {
                relative(root)
                    .is_ok_and(|path| path == *alias || path.starts_with(&format!("{alias}/")))
            }) {
                bail!("[monorepo.path_aliases]: {alias:?} conflicts with a config root path");
            }
            aliases.insert(alias.clone(), relative(selected_root)?);
        }
        Ok(aliases)
    }

    pub(crate) fn monorepo_lockfile_discovery_key(
        &self,
    ) -> Option<(PathBuf, Option<bool>, Vec<String>)> {
        let config = find_monorepo_config(&self.config_files)?;
        Some((
            config.monorepo_source.get_path().to_path_buf(),
            config.monorepo.lockfile,
            config.monorepo.config_roots.unwrap_or_default(),
        ))
    }

    /// Discovers the provider-neutral workspace project graph and applies the
    /// explicit overrides from the active monorepo root.
    pub fn workspace_project_graph(
        &self,
    ) -> Result<Arc<crate::task::workspace::WorkspaceProjectGraph>> {
        let graph = self.workspace_project_graph_for_task_loading()?;
        if let Some(error) = graph.provider_discovery_error() {
            bail!("failed to discover workspace providers: {error}");
        }
        Ok(graph)
    }

    /// Resolves workspace-global task inputs using the active monorepo root context.
    pub async fn monorepo_global_task_inputs(self: &Arc<Self>) -> Result<Vec<String>> {
        let monorepo_config = find_monorepo_config(&self.config_files)
            .ok_or_else(|| eyre!("no config file in scope sets monorepo_root = true"))?;
        let monorepo_root = monorepo_config.root;
        let configs = self
            .config_files
            .values()
            .filter(|cf| cf.config_root() == monorepo_root)
            .collect::<Vec<_>>();
        let task_inputs = ResolvedTaskInputs::from_configs(&configs);
        let mut task = Task {
            name: "affected".to_string(),
            cf: Some(monorepo_config.root_config),
            config_root: Some(monorepo_root),
            ..Default::default()
        };
        apply_task_config_inputs(&mut task, self, &task_inputs).await?;
        Ok(task.sources)
    }

    fn workspace_project_graph_for_task_loading(
        &self,
    ) -> Result<Arc<crate::task::workspace::WorkspaceProjectGraph>> {
        if let Some(graph) = self.workspace_project_graph_cache.lock().unwrap().clone() {
            return Ok(graph);
        }
        let graph = Arc::new(self.discover_workspace_project_graph()?);
        *self.workspace_project_graph_cache.lock().unwrap() = Some(graph.clone());
        Ok(graph)
    }

    fn discover_workspace_project_graph(
        &self,
    ) -> Result<crate::task::workspace::WorkspaceProjectGraph> {
        discover_workspace_project_graph(&self.config_files)
    }

    /// Returns the root lockfile directory when unified monorepo lockfiles are active.
    ///
    /// Lockfile discovery is intentionally lenient: it only requires
    /// `[monorepo].config_roots` to match directories, because legacy lockfiles
    /// can exist in roots whose live config is idiomatic-only or was removed.
    pub fn monorepo_lockfile_root(&self) -> Option<PathBuf> {
        monorepo_lockfile_root_for(&self.config_files)
    }

    /// Returns true when lockfile creation is enabled by a TOML settings file.
    ///
    /// `MISE_LOCKFILE=1` predates automatic creation and continues to mean
    /// "read and maintain existing lockfiles" for backwards compatibility.
    pub fn lockfile_creation_enabled(&self) -> bool {
        Settings::get().lockfile_creation_enabled()
            && self.config_files.values().any(|cf| {
                cf.settings()
                    .is_some_and(|settings| settings.lockfile == Some(true))
            })
    }

    pub(crate) fn monorepo_config_root_dirs_for_lockfiles(&self) -> Result<Vec<PathBuf>> {
        self.monorepo_config_root_dirs(None)
    }

    fn monorepo_config_root_dirs_with_filenames(
        &self,
        filenames: &[String],
    ) -> Result<Vec<PathBuf>> {
        self.monorepo_config_root_dirs(Some(filenames))
    }

    /// Resolve `[monorepo].config_roots`.
    ///
    /// `None` matches any existing directory and is used for lockfile migration
    /// and routing. `Some(filenames)` requires a recognized config or idiomatic
    /// version file and is used for full monorepo union/task loading.
    pub(crate) fn monorepo_config_root_dirs(
        &self,
        filenames: Option<&[String]>,
    ) -> Result<Vec<PathBuf>> {
        monorepo_config_root_dirs_for(&self.config_files, filenames)
    }

    pub async fn monorepo_union_tool_request_set(self: &Arc<Self>) -> Result<ToolRequestSet> {
        Ok(self.monorepo_union().await?.tool_request_set)
    }

    /// Loads the union plus the monorepo root directory's own effective
    /// requests, for lockfile maintenance of the shared root lockfile.
    ///
    /// `monorepo_union` merges the root's configs underneath each declared
    /// config root, so a sibling's request for a short shadows the monorepo
    /// root's own request for it. Treating the union as the set of live
    /// requests for the root lockfile would then drop the root's request:
    /// `mise lock --upgrade` migrated a v0 monorepo lockfile without binding
    /// the root's request and pruned its locked version.
    pub async fn monorepo_lockfile_union(self: &Arc<Self>) -> Result<MonorepoUnion> {
        self.monorepo_union_with_root_toolset(true).await
    }

    pub async fn monorepo_union(self: &Arc<Self>) -> Result<MonorepoUnion> {
        self.monorepo_union_with_root_toolset(false).await
    }

    async fn monorepo_union_with_root_toolset(
        self: &Arc<Self>,
        include_root_toolset: bool,
    ) -> Result<MonorepoUnion> {
        let idiomatic_filenames = load_idiomatic_filenames().await;
        let config_filenames = idiomatic_filenames
            .keys()
            .chain(DEFAULT_CONFIG_FILENAMES.iter())
            .cloned()
            .collect_vec();
        let roots = self.monorepo_config_root_dirs_with_filenames(&config_filenames)?;
        let mut config_files = self.config_files.clone();
        let mut base_config_files = self.config_files.clone();
        base_config_files.retain(|path, _| {
            is_global_config(path) || !roots.iter().any(|root| path.starts_with(root))
        });

        let mut union = ToolRequestSet::new();
        for root in roots {
            let root_idiomatic_filenames =
                idiomatic_filenames_for_root(&root, &idiomatic_filenames).await?;
            let root_config_filenames = root_idiomatic_filenames
                .keys()
                .chain(DEFAULT_CONFIG_FILENAMES.iter())
                .cloned()
                .collect_vec();
            // The root's full hierarchy (ancestors up to the filesystem
            // ceiling, then global and system config), as if mise ran there.
            // Siblings are never ancestors, so their overrides cannot leak.
            let root_paths = load_config_paths_from(&root, &root_config_filenames, false);
            let root_config_files =
                load_config_files_from_paths(&root_paths, &root_idiomatic_filenames).await?;
            for (path, cf) in root_config_files.clone() {
                config_files.entry(path).or_insert(cf);
            }

            let root_trs = ToolRequestSetBuilder::new()
                .with_config_files(root_config_files)
                .without_runtime_args()
                .build(self)
                .await?;
            extend_monorepo_tool_request_set(&mut union, &root_trs);
        }

        if include_root_toolset {
            // Each declared root overlays base_config_files, so its request
            // for a short can shadow the monorepo root's own request. Lockfile
            // maintenance needs the root directory as an additional effective
            // hierarchy so its requests stay live.
            let root_trs = ToolRequestSetBuilder::new()
                .with_config_files(base_config_files)
                .without_runtime_args()
                .build(self)
                .await?;
            extend_monorepo_tool_request_set(&mut union, &root_trs);
        }

        union.unknown_tools = union.unknown_tools.into_iter().unique().collect();
        let repo_urls = load_plugins(&config_files)?;
        Ok(MonorepoUnion {
            config_files,
            tool_request_set: union,
            repo_urls,
        })
    }

    pub async fn tasks(&self) -> Result<Arc<BTreeMap<String, Task>>> {
        self.tasks_with_context(None).await
    }

    pub async fn tasks_with_context(
        &self,
        ctx: Option<&crate::task::TaskLoadContext>,
    ) -> Result<Arc<BTreeMap<String, Task>>> {
        let path_aliases = self.monorepo_path_aliases()?;
        let expanded_ctx = ctx.map(|ctx| {
            let mut ctx = ctx.clone();
            for hint in &mut ctx.path_hints {
                *hint = expand_monorepo_path_alias(hint, &path_aliases);
            }
            ctx
        });
        // Use the entire context as cache key
        // Default context (None) becomes TaskLoadContext::default()
        let cache_key = expanded_ctx.clone().unwrap_or_default();

        // Check if already cached
        if let Some(cached) = self.tasks_cache.get(&cache_key) {
            return Ok(cached.value().clone());
        }

        // Not cached, load tasks
        let tasks = measure!("config::load_all_tasks_with_context", {
            self.load_all_tasks_with_context(expanded_ctx.as_ref())
                .await?
        });
        let tasks_arc = Arc::new(tasks);

        // Insert into cache
        self.tasks_cache.insert(cache_key, tasks_arc.clone());

        Ok(tasks_arc)
    }

    pub(crate) async fn reload_tasks_with_context(
        &self,
        ctx: Option<&crate::task::TaskLoadContext>,
    ) -> Result<Arc<BTreeMap<String, Task>>> {
        let path_aliases = self.monorepo_path_aliases()?;
        let mut cache_key = ctx.cloned().unwrap_or_default();
        for hint in &mut cache_key.path_hints {
            *hint = expand_monorepo_path_alias(hint, &path_aliases);
        }
        self.tasks_cache.remove(&cache_key);
        self.tasks_with_context(ctx).await
    }

    /// Every task the config scopes define, highest precedence first, including the ones a
    /// task of the same name shadows in [`Config::tasks`]. Inferred workspace tasks are not
    /// included, since they are derived rather than defined.
    pub async fn tasks_with_shadowed(&self) -> Result<Vec<Task>> {
        let config = Config::get().await?;
        let workspace_graph = config
            .monorepo_root()
            .is_some()
            .then(|| config.workspace_project_graph_for_task_loading());
        let task_definitions = collect_task_definitions(
            &config.config_files,
            workspace_graph
                .as_ref()
                .and_then(|graph| graph.as_ref().ok())
                .map(Arc::as_ref),
        );
        load_scoped_tasks(&config, None, &task_definitions).await
    }

    /// Tasks keyed by both their name and their aliases. A task's own name
    /// always wins over another task's alias, so a `tests` task aliased to
    /// `test` in a parent config cannot shadow a `test` task defined closer to
    /// the current directory (#13219).
    pub async fn tasks_with_aliases(&self) -> Result<BTreeMap<String, Task>> {
        let tasks = self.tasks().await?;
        let mut map: BTreeMap<String, Task> = tasks
            .values()
            .flat_map(|t| t.aliases.iter().map(|a| (a.to_string(), t.clone())))
            .collect();
        for t in tasks.values() {
            map.insert(t.name.clone(), t.clone());
        }
        Ok(map)
    }

    pub async fn resolve_alias(&self, backend: &ABackend, v: &str) -> Result<String> {
        if let Some(plugin_aliases) = self.all_aliases.get(&backend.ba().short)
            && let Some(alias) = plugin_aliases.versions.get(v)
        {
            return Ok(alias.clone());
        }
        if let Some(alias) = backend.get_aliases()?.get(v) {
            return Ok(alias.clone());
        }
        if let Some(alias) = backend.resolve_dynamic_alias(v).await? {
            return Ok(alias);
        }
        Ok(v.to_string())
    }

    fn load_all_aliases(&self) -> AliasMap {
        let mut aliases: AliasMap = self.aliases.clone();
        let plugin_aliases: Vec<_> = backend::alias_backends()
            .into_iter()
            .map(|backend| {
                let aliases = backend.get_aliases().unwrap_or_else(|err| {
                    warn!("get_aliases: {err}");
                    BTreeMap::new()
                });
                (backend.ba().clone(), aliases)
            })
            .collect();
        for (ba, plugin_aliases) in plugin_aliases {
            for (from, to) in plugin_aliases {
                aliases
                    .entry(ba.short.to_string())
                    .or_default()
                    .versions
                    .insert(from, to);
            }
        }

        for (short, plugin_aliases) in &self.aliases {
            let alias = aliases.entry(short.clone()).or_default();
            if let Some(full) = &plugin_aliases.backend {
                alias.backend = Some(full.clone());
            }
            for (from, to) in &plugin_aliases.versions {
                alias.versions.insert(from.clone(), to.clone());
            }
        }

        aliases
    }

    async fn load_all_tasks_with_context(
        &self,
        ctx: Option<&crate::task::TaskLoadContext>,
    ) -> Result<BTreeMap<String, Task>> {
        let config = Config::get().await?;
        time!("load_all_tasks");

        let workspace_graph = config
            .monorepo_root()
            .is_some()
            .then(|| config.workspace_project_graph_for_task_loading());
        let task_definitions = collect_task_definitions(
            &config.config_files,
            workspace_graph
                .as_ref()
                .and_then(|graph| graph.as_ref().ok())
                .map(Arc::as_ref),
        );

        // Highest precedence first; the reversed collect lets the last insert win.
        let mut tasks: BTreeMap<String, Task> = load_scoped_tasks(&config, ctx, &task_definitions)
            .await?
            .into_iter()
            .rev()
            .inspect(|t| {
                trace!(
                    "loaded task {} – {}",
                    &t.name,
                    display_path(&t.config_source)
                )
            })
            .map(|t| (t.name.clone(), t))
            .collect();
        let settings = Settings::get();
        if !settings.task.auto_infer.is_empty() {
            let inferred_tasks = match workspace_graph.as_ref() {
                Some(Ok(graph)) => {
                    inferred_workspace_tasks(
                        &config,
                        &task_definitions,
                        graph,
                        &settings.task.auto_infer,
                    )
                    .await
                }
                Some(Err(err)) => {
                    warn!(
                        "failed to load workspace project graph; inferred tasks and root task \
                         defaults are unavailable: {err:#}"
                    );
                    Vec::new()
                }
                None => Vec::new(),
            };
            for task in inferred_tasks {
                // Explicit project tasks replace provider inference. Preserve the provider-scoped
                // name as an alias, but never merge provider fields into the explicit definition.
                if tasks.contains_key(&task.name) {
                    let available_aliases = task
                        .aliases
                        .into_iter()
                        .filter(|alias| {
                            !tasks.contains_key(alias)
                                && !tasks
                                    .values()
                                    .any(|explicit| explicit.aliases.contains(alias))
                        })
                        .collect::<Vec<_>>();
                    tasks
                        .get_mut(&task.name)
                        .expect("explicit task name was just found")
                        .aliases
                        .extend(available_aliases);
                    continue;
                }
                let explicit_name = task
                    .aliases
                    .iter()
                    .find(|alias| tasks.contains_key(*alias))
                    .cloned()
                    .or_else(|| {
                        task.aliases.iter().find_map(|alias| {
                            tasks.iter().find_map(|(name, explicit)| {
                                (explicit.file.is_some() && strip_task_extension(name) == alias)
                                    .then(|| name.clone())
                            })
                        })
                    })
                    .or_else(|| {
                        task.aliases.iter().find_map(|alias| {
                            tasks.iter().find_map(|(name, explicit)| {
                                explicit.aliases.contains(alias).then(|| name.clone())
                            })
                        })
                    });
                if let Some(explicit_name) = explicit_name {
                    let explicit = tasks
                        .get_mut(&explicit_name)
                        .expect("explicit task name was just found");
                    if !explicit.aliases.contains(&task.name) {
                        explicit.aliases.push(task.name);
                    }
                    continue;
                }
                if tasks
                    .values()
                    .any(|explicit| explicit.aliases.contains(&task.name))
                {
                    continue;
                }
                tasks.insert(task.name.clone(), task);
            }
        }
        if let Some(monorepo_root) = config.monorepo_root() {
            match workspace_graph.as_ref() {
                Some(Ok(graph)) => {
                    let mut project_ids_by_root = BTreeMap::new();
                    for project in graph.projects() {
                        project_ids_by_root
                            .entry(file::desymlink_path(&monorepo_root.join(&project.root)))
                            .or_insert_with(BTreeSet::new)
                            .insert(project.id.clone());
                    }
                    for task in tasks.values_mut() {
                        task.resolve_workspace_task_dependencies(graph, &project_ids_by_root)?;
                    }
                }
                Some(Err(err)) => {
                    for task in tasks.values_mut() {
                        task.set_workspace_task_dependency_error(err);
                    }
                }
                _ => {}
            }
        }
        let path_aliases = self.monorepo_path_aliases()?;
        for task in tasks.values_mut() {
            let paths = std::iter::once(task.name.as_str())
                .chain(task.aliases.iter().map(String::as_str))
                .filter_map(|name| name.strip_prefix("//")?.split_once(':'))
                .collect_vec();
            let mut aliases = Vec::new();
            for (path, name) in paths {
                for (alias, target) in &path_aliases {
                    let suffix = if path == target {
                        Some("")
                    } else {
                        path.strip_prefix(target)
                            .filter(|suffix| suffix.starts_with('/'))
                    };
                    if let Some(suffix) = suffix {
                        aliases.push(format!("//{alias}{suffix}:{name}"));
                    }
                }
            }
            for alias in aliases {
                if !task.aliases.contains(&alias) {
                    task.aliases.push(alias);
                }
            }
        }
        let all_tasks = tasks.clone();
        for task in tasks.values_mut() {
            task.display_name = task.display_name(&all_tasks);
        }
        time!("load_all_tasks {count}", count = tasks.len(),);
        Ok(tasks)
    }

    pub async fn get_tracked_config_files(&self) -> Result<ConfigMap> {
        config_file::with_global_ignored_config_paths(self.load_tracked_config_files()).await
    }

    async fn load_tracked_config_files(&self) -> Result<ConfigMap> {
        let mut config_files: ConfigMap = ConfigMap::default();
        let mut idiomatic_settings_by_root =
            BTreeMap::<PathBuf, settings::IdiomaticVersionFileSettings>::new();
        let require_trust_before_detection =
            Settings::get().paranoid.config() && !Settings::safe_mode();
        for path in Tracker::list_all()?.into_iter() {
            if config_path_is_ignored(&path, false) {
                debug!("skipping ignored tracked config: {}", display_path(&path));
                continue;
            }
            let trust_root = config_file::config_trust_root(&path);
            // Paranoid mode must not inspect an untrusted owner's settings before
            // classification. Safe mode intentionally loads configs inertly without trust.
            if require_trust_before_detection
                && !is_global_config(&path)
                && !config_file::is_trusted(&trust_root)
            {
                debug!("skipping untrusted tracked config: {}", display_path(&path));
                continue;
            }
            // A tracked file keeps its original type even when the current
            // command overrides the tool-versions filenames, so a plain
            // `.tool-versions` is never reported as unknown.
            let detected = config_file::detect_config_file_type_by_filename(&path).or_else(|| {
                (path.file_name().and_then(|f| f.to_str()) == Some(".tool-versions"))
                    .then_some(config_file::ConfigFileType::ToolVersions)
            });
            let detection = match detected {
                Some(config_type) => config_file::ConfigFileDetection::Recognized(config_type),
                None => {
                    let config_root = config_file::config_root::config_root(&path);
                    let idiomatic_settings = match idiomatic_settings_by_root.get(&config_root) {
                        Some(settings) => settings.clone(),
                        None => {
                            let settings = settings::IdiomaticVersionFileSettings::resolve_from(
                                &config_root,
                                settings::SettingsLoadPolicy::TRUSTED_HIERARCHY,
                            )?;
                            idiomatic_settings_by_root.insert(config_root, settings.clone());
                            settings
                        }
                    };
                    config_file::detect_config_file_with_settings(&path, &idiomatic_settings).await
                }
            };
            // Pre-check trust for config files that require it so tracked
            // config loading (e.g., during `mise upgrade`) never prompts.
            // Plain .tool-versions and idiomatic version files are safe to
            // parse without trust and must still protect their tool versions.
            if config_file::detection_requires_trust(&path, &detection).await
                && !is_global_config(&path)
                && !config_file::is_trusted(&trust_root)
            {
                debug!("skipping untrusted tracked config: {}", display_path(&path));
                continue;
            }
            if matches!(
                &detection,
                config_file::ConfigFileDetection::DisabledIdiomatic
            ) {
                debug!(
                    "skipping disabled idiomatic tracked config: {}",
                    display_path(&path)
                );
                continue;
            }
            match config_file::parse_detected(&path, detection).await {
                Ok(cf) => {
                    config_files.insert(path, cf);
                }
                Err(err) => {
                    warn!(
                        "error loading tracked config file {}: {err:#}",
                        display_path(&path)
                    );
                }
            }
        }
        Ok(config_files)
    }

    pub fn global_config(&self) -> Result<MiseToml> {
        let settings_path = global_config_path();
        match settings_path.exists() {
            false => {
                trace!("settings does not exist {:?}", settings_path);
                Ok(MiseToml::init(&settings_path))
            }
            true => MiseToml::from_file(&settings_path)
                .wrap_err_with(|| eyre!("Error parsing {}", display_path(&settings_path))),
        }
    }

    fn validate(&self) -> eyre::Result<()> {
        self.validate_versions()?;
        Ok(())
    }

    fn validate_versions(&self) -> eyre::Result<()> {
        for cf in self.config_files.values() {
            if let Some(spec) = cf.min_version() {
                Self::enforce_min_version_spec(spec)?;
            }
        }
        Ok(())
    }

    pub(crate) fn enforce_min_version_spec(spec: &MinVersionSpec) -> eyre::Result<()> {
        let cur = &*version::V;
        if let Some(required) = spec.hard_violation(cur) {
            let min = style::eyellow(required);
            let cur = style::eyellow(cur);
            let msg = format!("mise version {min} is required, but you are using {cur}");
            bail!(crate::upgrade_hint::append_self_update_instructions(msg));
        } else if let Some(recommended) = spec.soft_violation(cur) {
            let min = style::eyellow(recommended);
            let cur = style::eyellow(cur);
            let msg = format!("mise version {min} is recommended, but you are using {cur}");
            warn!(
                "{}",
                crate::upgrade_hint::append_self_update_instructions(msg)
            );
        }
        Ok(())
    }

    /// Resolve the tools-independent config env.
    ///
    /// `use_cache` is false for a caller that needs the env as it is *now*
    /// rather than as it was when something else first asked — see
    /// [`Self::env_uncached`]. It suppresses both the process-wide memo (the
    /// caller reaches this directly, not through the `OnceCell`) and the
    /// on-disk `CachedNonToolEnv`, in either direction.
    async fn load_env(self: &Arc<Self>, use_cache: bool) -> Result<EnvResults> {
        if Settings::no_env() || Settings::get().no_env.unwrap_or(false) {
            return Ok(EnvResults::default());
        }
        time!("load_env start");
        // `mise oci` lets `[oci.env]` satisfy `required`, so what it resolves must not
        // be cached for a command that enforces it.
        // `{{ vars.X }}` renders vars into the env, so a var that is decrypted or redacted
        // (see `EnvResults::has_uncacheable`) taints every env value that may use it. Vars
        // are loaded with the config, so a missing result is not expected; if it is, assume
        // the worst.
        let vars_uncacheable = self
            .vars_results_cached()
            .is_none_or(|vars| vars.has_uncacheable);
        let cache_enabled = use_cache
            && CachedNonToolEnv::is_enabled()
            && !vars_uncacheable
            && !env_directive::is_oci_env_satisfying_required();
        let cache_key = if cache_enabled {
            // Included fragments are inputs too: editing one changes the env
            // without touching the file that includes it.
            let config_files: Vec<(PathBuf, u64)> = self
                .config_files
                .iter()
                .flat_map(|(p, cf)| std::iter::once(p.clone()).chain(cf.included_paths()))
                .map(|p| {
                    let mtime = get_file_mtime(&p).unwrap_or(0);
                    (p, mtime)
                })
                .collect();
            let settings_hash = compute_settings_hash();
            let base_path = join_paths(env::PATH.iter())
                .map(|p| p.to_string_lossy().to_string())
                .unwrap_or_default();
            Some(CachedNonToolEnv::compute_cache_key(
                &config_files,
                &settings_hash,
                &base_path,
            ))
        } else {
            None
        };
        if let Some(cache_key) = cache_key.as_ref()
            && let Some(cached) = CachedNonToolEnv::load(cache_key)?
        {
            let mut env_results = EnvResults {
                env: cached.env.clone(),
                vars: Default::default(),
                env_remove: cached.env_remove.clone(),
                env_files: cached.env_files.clone(),
                env_paths: cached.env_paths.clone(),
                env_paths_append: cached.env_paths_append.clone(),
                env_scripts: cached.env_scripts.clone(),
                redactions: cached.redactions.clone(),
                redaction_exclusions: cached.redaction_exclusions.clone(),
                caller_env_keys: cached.caller_env_keys.clone(),
                rendered_defaults: Default::default(),
                tool_add_paths: Vec::new(),
                watch_files: cached.watch_files.clone(),
                has_uncacheable: false,
            };
            // Keep only explicit wrappers in the non-tool environment. Tool-derived
            // wrappers are selected later, after sourced env and tool templates resolve.
            env_results
                .env_paths
                .retain(|path| path != &*dirs::COMMAND_WRAPPERS);
            if !load_command_wrappers(&self.config_files, std::iter::empty())?.is_empty() {
                env_results
                    .env_paths
                    .insert(0, dirs::COMMAND_WRAPPERS.clone());
            }
            let redact_keys = self
                .redaction_keys()
                .into_iter()
                .chain(env_results.redactions.clone())
                .collect_vec();
            self.add_redactions_excluding(
                redact_keys,
                &env_results.redactable_env(&env::PRISTINE_ENV),
                &env_results.redaction_exclusions,
            );
            if log::log_enabled!(log::Level::Trace) {
                trace!("{env_results:#?}");
            } else if !env_results.is_empty() {
                debug!("{env_results:?}");
            }
            trace!("env_cache: using cached non-tool env results");
            return Ok(env_results);
        }
        let mut entries = self.daemons()?.env_entries();
        let explicit_entries: Vec<_> = self
            .config_files
            .iter()
            .rev()
            .map(|(source, cf)| {
                cf.env_entries()
                    .map(|ee| ee.into_iter().map(|e| (e, source.clone())))
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        entries.extend(explicit_entries);
        // trace!("load_env: entries: {:#?}", entries);
        let mut env_results = EnvResults::resolve(
            self,
            self.tera_ctx.clone(),
            &env::PRISTINE_ENV,
            entries,
            EnvResolveOptions {
                vars: false,
                tools: ToolsFilter::NonToolsOnly,
                warn_on_missing_required: *env::WARN_ON_MISSING_REQUIRED_ENV,
            },
        )
        .await?;
        if !load_command_wrappers(&self.config_files, std::iter::empty())?.is_empty() {
            env_results
                .env_paths
                .insert(0, dirs::COMMAND_WRAPPERS.clone());
        }
        for env_file in Settings::get().env_files() {
            if env_results.env_files.contains(&env_file) {
                continue;
            }
            if !config_file::env_file_trust_check(&env_file)? {
                // Trusting the file later changes nothing the cache key sees. A file that is not
                // there has nothing to trust.
                if env_file.exists() {
                    env_results.has_uncacheable = true;
                }
                continue;
            }
            debug!("env_file: {}", display_path(&env_file));
            match std::fs::read(&env_file) {
                Ok(bytes) => {
                    env_results.env_files.push(env_file.clone());
                    match file::decode_text(&bytes) {
                        Ok(content) => {
                            // Keep the assignments that precede a syntax error, like a
                            // line-by-line loader would, and name the file cut short.
                            let (items, err) = mise_dotenv::parse_partial(
                                &content,
                                true,
                                mise_util::env::vars_without_inherited_secrets(),
                            );
                            for (k, v) in items {
                                env_results.env.insert(k, (v, env_file.clone()));
                            }
                            if let Some(err) = err {
                                warn!(
                                    "env_file: stopped reading {}: {err}",
                                    display_path(&env_file)
                                );
                            }
                        }
                        Err(err) => {
                            warn!("env_file: ignoring {}: {err:#}", display_path(&env_file))
                        }
                    }
                }
                Err(err) => trace!("env_file: {err}"),
            }
        }
        let redact_keys = self
            .redaction_keys()
            .into_iter()
            .chain(env_results.redactions.clone())
            .collect_vec();
        self.add_redactions_excluding(
            redact_keys,
            &env_results.redactable_env(&env::PRISTINE_ENV),
            &env_results.redaction_exclusions,
        );
        env_results.has_uncacheable |= vars_uncacheable;
        if cache_enabled && env_results.has_uncacheable {
            debug!(
                "env_cache: not caching the non-tool env: it has decrypted or redacted values \
                 (see env_cache_redacted) or a directive that is not cacheable"
            );
        }
        if cache_enabled
            && !env_results.has_uncacheable
            && let Some(cache_key) = cache_key
        {
            let mut watch_files = env_results.watch_files.clone();
            watch_files.extend(env_results.env_files.clone());
            watch_files.extend(env_results.env_scripts.clone());
            let watch_file_mtimes: Vec<u64> = watch_files
                .iter()
                .map(|p| get_file_mtime(p).unwrap_or(0))
                .collect();
            let now = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs();
            let cached = CachedNonToolEnv {
                env: env_results.env.clone(),
                env_remove: env_results.env_remove.clone(),
                env_files: env_results.env_files.clone(),
                env_paths: env_results.env_paths.clone(),
                env_paths_append: env_results.env_paths_append.clone(),
                env_scripts: env_results.env_scripts.clone(),
                redactions: env_results.redactions.clone(),
                redaction_exclusions: env_results.redaction_exclusions.clone(),
                caller_env_keys: env_results.caller_env_keys.clone(),
                watch_files,
                watch_file_mtimes,
                created_at: now,
                mise_version: env!("CARGO_PKG_VERSION").to_string(),
                cache_key_debug: cache_key.clone(),
            };
            if let Err(e) = cached.save(&cache_key) {
                debug!("env_cache: failed to save non-tool env cache: {}", e);
            }
        }
        if log::log_enabled!(log::Level::Trace) {
            trace!("{env_results:#?}");
        } else if !env_results.is_empty() {
            debug!("{env_results:?}");
        }
        Ok(env_results)
    }

    pub(crate) async fn hooks(&self) -> Result<&Vec<(PathBuf, Option<PathBuf>, Hook)>> {
        self.hooks
            .get_or_try_init(|| async {
                self.config_files
                    .values()
                    .map(|cf| {
                        let project_root = cf.project_root();
                        let is_global = project_root.is_none();
                        let config_root = cf.config_root();
                        let mut hooks = cf.hooks()?;
                        if is_global {
                            for h in &mut hooks {
                                h.global = true;
                            }
                        }
                        Ok((config_root, project_root, hooks))
                    })
                    .map_ok(|(config_root, project_root, hooks)| {
                        hooks
                            .into_iter()
                            .map(|h| (config_root.clone(), project_root.clone(), h))
                            .collect::<Vec<_>>()
                    })
                    .flatten_ok()
                    .collect()
            })
            .await
    }

    pub(crate) fn watch_file_hooks(&self) -> Result<IndexSet<(PathBuf, WatchFile)>> {
        Ok(self
            .config_files
            .values()
            // Idiomatic watches invalidate the environment; they are not executable hooks.
            .filter(|cf| !matches!(cf.source(), ToolSource::IdiomaticVersionFile(_)))
            .map(|cf| Ok((cf.project_root(), cf.watch_files()?)))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .filter_map(|(root, watch_files)| root.map(|r| (r.to_path_buf(), watch_files)))
            .flat_map(|(root, watch_files)| {
                watch_files
                    .iter()
                    .map(|wf| (root.clone(), wf.clone()))
                    .collect::<Vec<_>>()
            })
            .collect())
    }

    pub async fn watch_files(self: &Arc<Self>) -> Result<BTreeSet<WatchFilePattern>> {
        let env_results = self.env_results().await?;
        Ok(self
            .config_files
            .iter()
            .map(|(p, cf)| {
                let mut watch_files: Vec<WatchFilePattern> = vec![p.as_path().into()];
                if let Some(parent) = p.parent() {
                    let lockfile = parent.join("mise.lock");

                    // Only watch lockfiles that currently exist to prevent missing optional
                    // mise.lock files from keeping hook-env from stabilizing. If one is created
                    // later, should_exit_early_fast() will notice the parent directory mtime
                    // change, force a slow-path run, and this watch set will then include the new
                    // lockfile on that recomputation.
                    if lockfile.exists() {
                        watch_files.push(lockfile.into());
                    }
                }
                watch_files.extend(cf.watch_files()?.iter().map(|wf| WatchFilePattern {
                    root: cf.project_root().map(|pr| pr.to_path_buf()),
                    patterns: wf.patterns.clone(),
                }));
                Ok(watch_files)
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .chain(env_results.env_files.iter().map(|p| p.as_path().into()))
            .chain(env_results.env_scripts.iter().map(|p| p.as_path().into()))
            .chain(env_results.watch_files.iter().map(|p| p.as_path().into()))
            .chain(
                Settings::get()
                    .env_files()
                    .iter()
                    .map(|p| p.as_path().into()),
            )
            .chain(self.tera_files.iter().map(|p| p.as_path().into()))
            .collect())
    }

    pub fn redaction_keys(&self) -> Vec<String> {
        self.config_files
            .values()
            .flat_map(|cf| cf.redactions().0.iter())
            .cloned()
            .collect()
    }
    /// Register values that must never reach a log line.
    ///
    /// Every log record is redacted through this (see `src/logger.rs`), so a
    /// secret registered here is scrubbed from the terminal, `MISE_LOG_FILE`,
    /// and the command lines `CmdLineRunner` debug-logs, without each call site
    /// having to remember.
    ///
    /// Append-only for the same reason as `add_redactions_excluding`: removing a
    /// value could expose a different key that happens to share it.
    pub(crate) fn add_redactions(&self, values: impl IntoIterator<Item = String>) {
        let values: Vec<String> = values
            .into_iter()
            .flat_map(|v| secret_patterns(&v))
            .collect();
        if values.iter().any(|v| !v.is_empty()) {
            CONFIG_REDACTIONS.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let mut r = _REDACTOR.lock().unwrap();
        *r = r.with_additional(values);
    }

    pub(crate) fn add_redactions_excluding(
        &self,
        redactions: impl IntoIterator<Item = String>,
        env: &EnvMap,
        exclusions: &BTreeSet<String>,
    ) {
        let mut r = _REDACTOR.lock().unwrap();
        // Redactions are intentionally append-only. An exclusion prevents this key from
        // contributing its value, but removing an already registered value could expose a
        // different secret key (or concurrent task) that uses the same value.
        let new_redactions: Vec<String> = redactions
            .into_iter()
            .flat_map(|pattern| {
                let matcher = Wildcard::new(vec![pattern]);
                env.iter()
                    .filter(|(k, _)| !exclusions.contains(*k) && matcher.match_any(k))
                    .flat_map(|(_, v)| secret_patterns(v))
                    .collect::<Vec<_>>()
            })
            .collect();
        if new_redactions.iter().any(|v| !v.is_empty()) {
            CONFIG_REDACTIONS.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        *r = r.with_additional(new_redactions);
    }

    /// Get the current redaction patterns.
    pub(crate) fn redactions(&self) -> Arc<IndexSet<String>> {
        _REDACTOR.lock().unwrap().patterns_arc()
    }

    /// Redact sensitive values from a string using Aho-Corasick for efficiency.
    pub fn redact(&self, input: &str) -> String {
        _REDACTOR.lock().unwrap().redact(input)
    }
}

/// Insert a simulated config alongside configs from the same directory while preserving the
/// highest-precedence-first order produced by `config_paths_in_dir_with_filenames`.
fn insert_bootstrap_dry_run_config_file(
    config_files: &mut ConfigMap,
    path: PathBuf,
    config_file: Arc<dyn ConfigFile>,
) {
    if config_files.contains_key(&path) {
        config_files.insert(path, config_file);
        return;
    }

    let precedence = bootstrap_config_filename_precedence(&path);
    let sibling_indices = config_files
        .keys()
        .enumerate()
        .filter(|(_, existing)| existing.parent() == path.parent())
        .map(|(index, _)| index)
        .collect_vec();
    let index = sibling_indices
        .iter()
        .copied()
        .find(|index| {
            bootstrap_config_filename_precedence(
                config_files
                    .get_index(*index)
                    .expect("config index exists")
                    .0,
            ) < precedence
        })
        .or_else(|| sibling_indices.last().map(|index| index + 1))
        .unwrap_or(config_files.len());
    config_files.shift_insert(index, path, config_file);
}

fn bootstrap_config_filename_precedence(path: &Path) -> Option<usize> {
    DEFAULT_CONFIG_FILENAMES.iter().position(|candidate| {
        !is_glob_pattern(candidate) && Path::new(candidate).file_name() == path.file_name()
    })
}

fn configs_at_root<'a>(dir: &Path, config_files: &'a ConfigMap) -> Vec<&'a Arc<dyn ConfigFile>> {
    // Highest precedence config files are returned first.
    let mut configs: Vec<&'a Arc<dyn ConfigFile>> = DEFAULT_CONFIG_FILENAMES
        .iter()
        .rev()
        .flat_map(|f| {
            if is_glob_pattern(f) {
                // Handle glob patterns by matching against actual config file paths
                load_config_glob(dir, f)
                    .into_iter()
                    .rev()
                    .filter_map(|path| config_files.get(&path))
                    .collect::<Vec<_>>()
            } else {
                // Handle regular filenames
                config_files
                    .get(&dir.join(f))
                    .into_iter()
                    .collect::<Vec<_>>()
            }
        })
        .collect();
    // Remove duplicates while preserving order
    let mut seen = std::collections::HashSet::new();
    configs.retain(|cf| seen.insert(cf.get_path().to_path_buf()));
    configs
}

fn get_project_root(config_files: &ConfigMap) -> Option<PathBuf> {
    let project_root = config_files
        .values()
        .find_map(|cf| cf.project_root())
        .map(|pr| pr.to_path_buf());
    trace!("project_root: {project_root:?}");
    project_root
}

fn find_monorepo_root(config_files: &ConfigMap) -> Option<PathBuf> {
    find_monorepo_config(config_files).map(|config| config.root)
}

#[derive(Clone)]
struct ResolvedMonorepoConfig {
    root: PathBuf,
    root_config: Arc<dyn ConfigFile>,
    monorepo_source: Arc<dyn ConfigFile>,
    monorepo: MonorepoConfig,
    task_defaults: IndexMap<String, SourcedTaskTemplate>,
}

/// Find the nearest directory whose effective layered config has `monorepo_root = true`.
///
/// `ConfigMap` is ordered nearest-first — [`load_config_paths`] builds it from
/// [`file::all_dirs`], which walks from the cwd upward. Within one directory,
/// `configs_at_root` returns config layers from highest to lowest precedence, so an
/// environment overlay can override `monorepo_root` without becoming a separate root.
/// This preserves nearest-root behavior for nested monorepos while resolving sibling
/// overlays as one logical root configuration.
fn monorepo_lockfile_root_for(config_files: &ConfigMap) -> Option<PathBuf> {
    let config = find_monorepo_config(config_files)?;
    let setting = config.monorepo.lockfile;
    if !monorepo_lockfile_enabled_for_version(&version::V, setting) {
        return None;
    }
    let monorepo_root = config.root;
    // An explicit opt-in always routes descendant configs to the root
    // lockfile, even when config_roots cannot be resolved. Avoid expanding
    // config_roots here because this method is called for every tool during
    // lockfile resolution, including on every shim invocation. Commands
    // that migrate legacy lockfiles validate config_roots separately.
    if setting == Some(true) {
        return Some(monorepo_root);
    }

    match monorepo_config_root_dirs_for(config_files, None) {
        Ok(config_roots) if !config_roots.is_empty() => Some(monorepo_root),
        Ok(_) | Err(_) => None,
    }
}

static MONOREPO_LOCKFILE_DIRS: Lazy<Mutex<HashMap<PathBuf, PathBuf>>> = Lazy::new(Default::default);

/// The directory holding the shared lockfile of the monorepo rooted at `root`:
/// the `.config/` directory when the root's own base config lives in
/// `.config/mise.toml`, otherwise the root itself. It depends only on the files in `root`,
/// not on which config views are loaded, so every lookup agrees.
pub fn monorepo_lockfile_dir(root: &Path) -> PathBuf {
    if let Some(dir) = MONOREPO_LOCKFILE_DIRS.lock().unwrap().get(root) {
        return dir.clone();
    }
    let base_configs = config_paths_in_dir(root)
        .into_iter()
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "toml")
                && !lockfile::is_local_config(path)
                && lockfile::extract_env_from_config_path(path).is_none()
                && !is_conf_d_folder_file(path)
        })
        .collect_vec();
    // Prefer the base config that declares the root (read statically, nothing
    // evaluated); otherwise the first base config.
    let declares_root = |path: &PathBuf| {
        file::read_config_to_string(path)
            .ok()
            .and_then(|body| MiseToml::for_monorepo_inspection(&body, path).ok())
            .is_some_and(|cf| cf.monorepo_root() == Some(true))
    };
    let dir = base_configs
        .iter()
        .find(|path| declares_root(path))
        .or(base_configs.first())
        // Only `.config/` moves the shared lockfile; `mise/` and `.mise/` roots
        // keep it at the root as before.
        .filter(|path| path.parent().is_some_and(|dir| dir.ends_with(".config")))
        .and_then(|path| {
            let (lockfile, _) = lockfile::lockfile_path_for_config(path, None);
            lockfile.parent().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| root.to_path_buf());
    MONOREPO_LOCKFILE_DIRS
        .lock()
        .unwrap()
        .insert(root.to_path_buf(), dir.clone());
    dir
}

fn monorepo_config_root_dirs_for(
    config_files: &ConfigMap,
    filenames: Option<&[String]>,
) -> Result<Vec<PathBuf>> {
    let monorepo_config = find_monorepo_config(config_files)
        .ok_or_else(|| eyre!("no config file in scope sets monorepo_root = true"))?;
    let monorepo_root = monorepo_config.root;
    let patterns = monorepo_config
        .monorepo
        .config_roots
        .ok_or_else(|| eyre!("[monorepo].config_roots is required for monorepo operations"))?;
    if patterns.is_empty() {
        bail!("[monorepo].config_roots is required for monorepo operations");
    }
    let roots = match filenames {
        Some(filenames) => {
            expand_config_roots_with_filenames(&monorepo_root, &patterns, None, filenames)?
        }
        None => expand_config_root_dirs(&monorepo_root, &patterns, None)?,
    };
    if roots.is_empty() {
        bail!("[monorepo].config_roots did not match any config roots");
    }
    Ok(roots)
}

static MONOREPO_LOCKFILE_ROOT_FROM_DIR: Lazy<Mutex<HashMap<PathBuf, Option<PathBuf>>>> =
    Lazy::new(Default::default);

/// The monorepo lockfile root that applies to `dir`, from the project configs
/// in it and its ancestors rather than from the current directory's config.
/// A tool stub uses this so its lockfile does not depend on where it is run.
pub(crate) fn monorepo_lockfile_root_from_dir(dir: &Path) -> Option<PathBuf> {
    if let Some(root) = MONOREPO_LOCKFILE_ROOT_FROM_DIR.lock().unwrap().get(dir) {
        return root.clone();
    }
    let paranoid = Settings::try_get().is_ok_and(|settings| settings.paranoid.config());
    let mut config_files = ConfigMap::new();
    for ancestor in all_dirs_from(dir).unwrap_or_default() {
        for path in config_paths_in_dir(&ancestor) {
            // The same committed layers the stub's lockfile is chosen from.
            if path.extension().is_none_or(|ext| ext != "toml")
                || lockfile::is_local_config(&path)
                || lockfile::extract_env_from_config_path(&path).is_some()
                || is_global_config(&path)
                || (paranoid && !config_file::is_path_trusted(&path))
            {
                continue;
            }
            // Only the static monorepo declarations are read, so the config
            // is decoded without a trust check: nothing in it is evaluated,
            // and a stub run must not prompt for or record trust. An
            // unreadable config just cannot declare a root.
            let Ok(body) = file::read_config_to_string(&path) else {
                continue;
            };
            if let Ok(cf) = MiseToml::for_monorepo_inspection(&body, &path) {
                config_files.insert(path, Arc::new(cf));
            }
        }
    }
    let root = monorepo_lockfile_root_for(&config_files);
    MONOREPO_LOCKFILE_ROOT_FROM_DIR
        .lock()
        .unwrap()
        .insert(dir.to_path_buf(), root.clone());
    root
}

/// The workspace projects of the monorepo `config_files` are in, as the workspace providers
/// discover them, with the root config's project overrides applied.
fn discover_workspace_project_graph(
    config_files: &ConfigMap,
) -> Result<crate::task::workspace::WorkspaceProjectGraph> {
    let monorepo_config = find_monorepo_config(config_files)
        .ok_or_else(|| eyre!("no config file in scope sets monorepo_root = true"))?;
    let monorepo_root = monorepo_config.root;
    let overrides = monorepo_config.monorepo.projects;
    let cargo = crate::task::workspace::cargo::CargoWorkspaceProvider;
    let go = crate::task::workspace::go::GoWorkspaceProvider;
    let gradle = crate::task::workspace::gradle::GradleWorkspaceProvider;
    let node = crate::task::workspace::node::NodeWorkspaceProvider;
    let uv = crate::task::workspace::uv::UvWorkspaceProvider;

    crate::task::workspace::WorkspaceProjectGraph::discover_all_with_overrides_lenient(
        &[&cargo, &go, &gradle, &node, &uv],
        &monorepo_root,
        &overrides,
    )
}

fn find_monorepo_config(config_files: &ConfigMap) -> Option<ResolvedMonorepoConfig> {
    config_files
        .values()
        .filter_map(|cf| cf.project_root())
        .unique()
        .find_map(|root| resolve_monorepo_config_at_root(&root, config_files))
}

fn expand_monorepo_path_alias(path: &str, aliases: &BTreeMap<String, String>) -> String {
    let (first, rest) = path.split_once('/').unwrap_or((path, ""));
    match aliases.get(first) {
        Some(target) if rest.is_empty() => target.clone(),
        Some(target) => format!("{target}/{rest}"),
        None => path.to_string(),
    }
}

fn resolve_monorepo_config_at_root(
    root: &Path,
    config_files: &ConfigMap,
) -> Option<ResolvedMonorepoConfig> {
    let configs = configs_at_root(root, config_files);
    let (root_config, enabled) = configs
        .iter()
        .find_map(|cf| cf.monorepo_root().map(|enabled| ((*cf).clone(), enabled)))?;
    if !enabled {
        return None;
    }

    let mut monorepo = MonorepoConfig::default();
    let mut monorepo_source = root_config.clone();
    let mut task_defaults = IndexMap::new();
    for cf in configs.into_iter().rev() {
        let Some(layer) = cf.monorepo() else {
            continue;
        };
        monorepo_source = cf.clone();
        if layer.config_roots.is_some() {
            monorepo.config_roots.clone_from(&layer.config_roots);
        }
        monorepo.path_aliases.extend(layer.path_aliases.clone());
        if layer.lockfile.is_some() {
            monorepo.lockfile = layer.lockfile;
        }
        monorepo.projects.extend(layer.projects.clone());
        monorepo.task_defaults.extend(layer.task_defaults.clone());
        task_defaults.extend(layer.task_defaults.iter().map(|(name, template)| {
            (
                name.clone(),
                SourcedTaskTemplate {
                    template: template.clone(),
                    source: cf.get_path().to_path_buf(),
                },
            )
        }));
    }

    Some(ResolvedMonorepoConfig {
        root: root.to_path_buf(),
        root_config,
        monorepo_source,
        monorepo,
        task_defaults,
    })
}

/// Loads each selected bootstrap root as an independent hierarchy with scoped variables.
async fn load_bootstrap_config_maps(config: &Config) -> Result<Vec<BootstrapConfigMap>> {
    GLOBAL_BOOTSTRAP_ROOT_CONFIG_FILES.lock().unwrap().clear();
    let Some((declaring_config, patterns)) = config.config_files.iter().find_map(|(path, cf)| {
        cf.bootstrap_config()
            .and_then(|bootstrap| bootstrap.config_roots.map(|patterns| (path, patterns)))
    }) else {
        return Ok(vec![]);
    };
    deprecated_at!(
        BOOTSTRAP_CONFIG_ROOTS_WARN_AT,
        BOOTSTRAP_CONFIG_ROOTS_REMOVE_AT,
        "bootstrap.config_roots",
        "`[bootstrap].config_roots` in {} is deprecated. Move each selected root into a conf.d folder instead (or symlink it): bundles/git becomes mise/conf.d/git in the same project, or {} when config_roots is set in global config. A conf.d folder reads only mise.toml, mise.local.toml, mise.<env>.toml, and mise.<env>.local.toml (rename other config filenames) and is their config root, so relative paths and `{{{{ config_root }}}}` still resolve inside it. See https://mise.jdx.dev/configuration.html#conf-d-folders for details.",
        display_path(declaring_config),
        display_path(dirs::CONFIG.join("conf.d").join("git"))
    );
    if patterns.is_empty() {
        return Ok(vec![]);
    }

    let declaring_root = config
        .config_files
        .get(declaring_config)
        .expect("declaring bootstrap config is loaded")
        .config_root();
    let mut roots = expand_bootstrap_config_roots(&declaring_root, &patterns)?;
    roots.sort();
    roots.dedup();
    if roots.is_empty() {
        bail!("[bootstrap].config_roots did not match any config roots");
    }

    let mut base = config.config_files.clone();
    base.retain(|path, _| {
        is_global_config(path)
            || !path
                .canonicalize()
                .is_ok_and(|path| roots.iter().any(|root| path.starts_with(root)))
    });
    let mut maps = vec![BootstrapConfigMap {
        config_files: base,
        tera_ctx: config.tera_ctx.clone(),
        config_root: None,
        vars_results: config.vars_results_cached().cloned().unwrap_or_default(),
        dry_run_unresolved_vars: Default::default(),
    }];
    let idiomatic_filenames = BTreeMap::new();
    let declared_globally = is_global_config(declaring_config);
    for root in roots {
        let paths = config_paths_in_dir_with_filenames(&root, &DEFAULT_CONFIG_FILENAMES);
        if declared_globally {
            GLOBAL_BOOTSTRAP_ROOT_CONFIG_FILES
                .lock()
                .unwrap()
                .extend(paths.iter().cloned());
        }
        let config_files = load_config_files_from_paths(&paths, &idiomatic_filenames).await?;
        let vars_config = config.with_config_files(config_files.clone());
        let vars_results = load_vars(&vars_config).await?;
        let mut vars = config.vars.clone();
        vars.extend(
            vars_results
                .vars
                .iter()
                .map(|(key, (value, _))| (key.clone(), value.clone())),
        );
        let mut tera_ctx = config.tera_ctx.clone();
        tera_ctx.insert("vars", &vars);
        tera_ctx.insert("config_root", &root.to_string_lossy());
        maps.push(BootstrapConfigMap {
            config_files,
            tera_ctx,
            config_root: Some(root),
            vars_results,
            dry_run_unresolved_vars: Default::default(),
        });
    }
    Ok(maps)
}

/// The filenames `mise trust` looks for. Idiomatic version files need trust
/// only in paranoid mode, so only then are they listed.
///
/// Finding the idiomatic filenames loads the tool backends. If that fails,
/// this falls back to the default filenames with a warning rather than failing
/// the trust command: it only widens what a pathless `mise trust` looks for.
pub async fn trust_config_filenames() -> Vec<String> {
    if !Settings::get().paranoid.config() {
        return DEFAULT_CONFIG_FILENAMES.clone();
    }
    if let Err(err) = backend::load_tools().await {
        warn!("could not look for idiomatic version files: {err:#}");
        return DEFAULT_CONFIG_FILENAMES.clone();
    }
    load_idiomatic_filenames()
        .await
        .into_keys()
        .chain(DEFAULT_CONFIG_FILENAMES.iter().cloned())
        .unique()
        .collect()
}

async fn load_idiomatic_filenames() -> BTreeMap<String, Vec<String>> {
    let settings = Settings::get();
    let enable_tools = settings.idiomatic_version_file_enable_tools.clone();
    let disable_files = settings.idiomatic_version_file_disable_files.clone();
    if !settings.idiomatic_version_file_disable_tools.is_empty() {
        deprecated!(
            "idiomatic_version_file_disable_tools",
            "is deprecated, use idiomatic_version_file_enable_tools instead"
        );
    }
    load_idiomatic_filenames_for_tools(&enable_tools, &disable_files).await
}

/// Same as [`load_idiomatic_filenames`] but for explicit `enable_tools`/`disable_files` rather
/// than the process-wide `Settings::get()` snapshot. Used by monorepo union resolution, where a
/// config root's own `idiomatic_version_file_enable_tools` can differ from the settings
/// resolved from the invocation directory (see [`idiomatic_filenames_for_root`]).
async fn load_idiomatic_filenames_for_tools(
    enable_tools: &BTreeSet<String>,
    disable_files: &BTreeSet<String>,
) -> BTreeMap<String, Vec<String>> {
    if enable_tools.is_empty() {
        return BTreeMap::new();
    }
    let mut jset = JoinSet::new();
    for tool in backend::list() {
        let enable_tools = enable_tools.clone();
        let disable_files = disable_files.clone();
        jset.spawn(async move {
            if !enable_tools.contains(tool.id()) {
                return vec![];
            }
            match tool.idiomatic_filenames().await {
                Ok(filenames) => filenames
                    .iter()
                    .filter(|filename| {
                        !idiomatic_version_file_disabled(&disable_files, tool.id(), filename)
                    })
                    .map(|f| (f.to_string(), tool.id().to_string()))
                    .collect::<Vec<_>>(),
                Err(err) => {
                    eprintln!("Error: {err}");
                    vec![]
                }
            }
        });
    }
    let idiomatic = jset
        .join_all()
        .await
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();

    let mut idiomatic_filenames = BTreeMap::new();
    for (filename, plugin) in idiomatic {
        idiomatic_filenames
            .entry(filename)
            .or_insert_with(Vec::new)
            .push(plugin);
    }
    idiomatic_filenames
}

fn idiomatic_version_file_disabled(
    disable_files: &BTreeSet<String>,
    tool: &str,
    filename: &str,
) -> bool {
    disable_files.iter().any(|entry| {
        entry
            .rsplit_once(':')
            .is_some_and(|(disabled_tool, disabled_filename)| {
                disabled_tool == tool && disabled_filename == filename
            })
    })
}

/// Resolves idiomatic version filenames for a single monorepo config root through the
/// canonical settings loader.
///
/// `Settings::get()` is a process-wide snapshot rooted at the invocation directory. Resolving
/// from the monorepo config root keeps normal environment, hierarchy, global/system, safe-mode,
/// and `--no-config` behavior without maintaining a second precedence implementation.
/// Like the main settings load, it skips the `[settings]` of untrusted project configs, so
/// a subproject cannot turn on idiomatic version files for itself before it is trusted.
async fn idiomatic_filenames_for_root(
    root: &Path,
    default_idiomatic_filenames: &BTreeMap<String, Vec<String>>,
) -> Result<BTreeMap<String, Vec<String>>> {
    let rooted = settings::IdiomaticVersionFileSettings::resolve_from(
        root,
        settings::SettingsLoadPolicy::TRUSTED_HIERARCHY,
    )?;
    if rooted == settings::IdiomaticVersionFileSettings::current() {
        return Ok(default_idiomatic_filenames.clone());
    }
    Ok(load_idiomatic_filenames_for_tools(&rooted.enable_tools, &rooted.disable_files).await)
}

/// Shared (non-`.local`) config filenames for one directory, lowest precedence first.
/// `DEFAULT_CONFIG_FILENAMES` places the environment files and then the `.local`
/// overrides above these.
static SHARED_CONFIG_FILENAMES: Lazy<IndexSet<String>> = Lazy::new(|| {
    shared_config_filenames(
        env::MISE_OVERRIDE_TOOL_VERSIONS_FILENAMES.as_ref(),
        &env::MISE_OVERRIDE_CONFIG_FILENAMES,
    )
});

/// `SHARED_CONFIG_FILENAMES` with the override lists injected, so tests can
/// cover them without touching global state.
///
/// Every entry is expanded as a glob pattern in each directory on the way up to
/// the root. The configured names are filenames, not patterns, and a project
/// `.miserc.toml` sets the overrides before anything is trusted: unescaped, `**`
/// would walk the whole filesystem and `*` would load every file in every
/// ancestor directory as a config.
fn shared_config_filenames(
    override_tool_versions_filenames: Option<&IndexSet<String>>,
    override_config_filenames: &IndexSet<String>,
) -> IndexSet<String> {
    let escape = |s: &String| glob::Pattern::escape(s);
    let mut paths: IndexSet<String> = IndexSet::new();
    if let Some(o) = override_tool_versions_filenames {
        paths.extend(o.iter().map(escape));
    } else {
        paths.extend([
            ".tool-versions".to_string(),
            escape(&env::MISE_DEFAULT_TOOL_VERSIONS_FILENAME), // .tool-versions
        ]);
    }
    if !override_config_filenames.is_empty() {
        paths.extend(override_config_filenames.iter().map(escape))
    } else {
        paths.extend(
            [
                ".config/mise/conf.d/*.toml",
                ".config/mise/conf.d/*/mise.toml",
                ".config/mise/config.toml",
                ".config/mise/mise.toml",
                ".config/mise.toml",
                ".mise/conf.d/*.toml",
                ".mise/conf.d/*/mise.toml",
                ".mise/config.toml",
                "mise/conf.d/*.toml",
                "mise/conf.d/*/mise.toml",
                "mise/config.toml",
                "mise.toml",
                &escape(&env::MISE_DEFAULT_CONFIG_FILENAME), // mise.toml
                ".mise.toml",
            ]
            .map(String::from),
        );
    }

    paths
}
/// `.local` override filenames for one directory, lowest precedence first. They
/// outrank every shared and environment file in the same directory, except the
/// environment-specific `.local` files. `MISE_OVERRIDE_CONFIG_FILENAMES` replaces
/// these together with the shared filenames.
static LOCAL_OVERRIDE_CONFIG_FILENAMES: Lazy<Vec<&'static str>> = Lazy::new(|| {
    if !env::MISE_OVERRIDE_CONFIG_FILENAMES.is_empty() {
        return vec![];
    }
    vec![
        ".config/mise/conf.d/*/mise.local.toml",
        ".config/mise/config.local.toml",
        ".config/mise/mise.local.toml",
        ".config/mise.local.toml",
        ".mise/conf.d/*/mise.local.toml",
        ".mise/config.local.toml",
        "mise/conf.d/*/mise.local.toml",
        "mise/config.local.toml",
        "mise.local.toml",
        ".mise.local.toml",
    ]
});
/// Config filename patterns for a single MISE_ENV environment, in precedence order
/// (later wins). `local` selects the `mise.{env}.local.toml` family instead of
/// `mise.{env}.toml`.
fn env_config_patterns(env: &str, local: bool) -> Vec<String> {
    env_config_patterns_with_conf_d(env, local, env::env_conf_d())
}

/// `env_config_patterns` with the `env_conf_d` decision injected, so tests can
/// cover both sides of the migration without touching global state.
fn env_config_patterns_with_conf_d(env: &str, local: bool, env_conf_d: bool) -> Vec<String> {
    let env = glob::Pattern::escape(env);
    let env = if local { format!("{env}.local") } else { env };
    let mut patterns = vec![];
    for dir in [".config/mise", "mise", ".mise"] {
        if env_conf_d {
            patterns.push(format!("{dir}/conf.d/*.{env}.toml"));
        }
        patterns.extend([
            format!("{dir}/conf.d/*/mise.{env}.toml"),
            format!("{dir}/config.{env}.toml"),
            format!("{dir}.{env}.toml"),
        ]);
    }
    patterns
}

pub static DEFAULT_CONFIG_FILENAMES: Lazy<Vec<String>> = Lazy::new(|| {
    layer_config_filenames(
        SHARED_CONFIG_FILENAMES.iter().map(String::as_str),
        LOCAL_OVERRIDE_CONFIG_FILENAMES.iter().copied(),
        &env::MISE_ENV_WITH_AUTO,
    )
});

/// Config filename patterns for one directory, lowest precedence first:
/// `mise.toml` < `mise.{env}.toml` < `mise.local.toml` < `mise.{env}.local.toml`.
/// The global config directory uses the same order (`config_files_with_incoming`),
/// so a directory's files rank the same way whether it is found by walking up from
/// the cwd or as the global config.
fn layer_config_filenames<'a>(
    shared: impl IntoIterator<Item = &'a str>,
    local: impl IntoIterator<Item = &'a str>,
    envs: &[String],
) -> Vec<String> {
    let shared = shared.into_iter().map(String::from);
    let env_shared = envs.iter().flat_map(|env| env_config_patterns(env, false));
    let local = local.into_iter().map(String::from);
    let env_local = envs.iter().flat_map(|env| env_config_patterns(env, true));
    shared
        .chain(env_shared)
        .chain(local)
        .chain(env_local)
        .collect()
}
static TOML_CONFIG_FILENAMES: Lazy<Vec<String>> = Lazy::new(|| {
    DEFAULT_CONFIG_FILENAMES
        .iter()
        .filter(|s| s.ends_with(".toml"))
        .map(|s| s.to_string())
        .collect()
});
static TOML_CONFIG_MATCHERS: Lazy<Vec<globset::GlobMatcher>> = Lazy::new(|| {
    TOML_CONFIG_FILENAMES
        .iter()
        .filter_map(|pattern| {
            globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| warn!("failed to compile config glob pattern {pattern}: {e}"))
                .ok()
                .map(|glob| glob.compile_matcher())
        })
        .collect()
});
/// Every loaded config file except the global override files, which are never a
/// default target: `mise trust` and `mise untrust` pick `.first()` of this set.
pub static ALL_CONFIG_FILES: Lazy<IndexSet<PathBuf>> = Lazy::new(|| {
    load_config_paths(&DEFAULT_CONFIG_FILENAMES, false)
        .into_iter()
        .filter(|p| !is_override_config(p))
        .collect()
});
pub static IGNORED_CONFIG_FILES: Lazy<IndexSet<PathBuf>> = Lazy::new(|| {
    load_config_paths(&DEFAULT_CONFIG_FILENAMES, true)
        .into_iter()
        .filter(|p| {
            let ctr = config_trust_root(p);
            // The `ignored_config_paths` setting is a hard block; the persisted
            // ignore list is overridden by `trusted_config_paths`, matching
            // is_trusted so a settings-trusted config is not reported as ignored.
            if config_file::is_config_ignored_via_setting(p) {
                return true;
            }
            (config_file::is_persisted_ignored(&ctr) || config_file::is_persisted_ignored(p))
                && !config_file::is_trusted_via_config_paths(p)
        })
        .collect()
});
// pub static LOCAL_CONFIG_FILES: Lazy<Vec<PathBuf>> = Lazy::new(|| {
//     ALL_CONFIG_FILES
//         .iter()
//         .filter(|cf| !is_global_config(cf))
//         .cloned()
//         .collect()
// });

type GlobResults = HashMap<(PathBuf, String), Vec<PathBuf>>;
/// Work to do whenever the configuration is reloaded, registered by modules above the config
/// layer (such as the dotfiles declarations) that cache what they read from it.
static RESET_HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());

/// Run `hook` on every configuration reload.
pub fn register_reset_hook(hook: fn()) {
    RESET_HOOKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(hook);
}

static GLOB_RESULTS: Lazy<Mutex<GlobResults>> = Lazy::new(Default::default);

pub(crate) fn glob(dir: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    let mut results = GLOB_RESULTS.lock().unwrap();
    let key = (dir.to_path_buf(), pattern.to_string());
    if let Some(glob) = results.get(&key) {
        return Ok(glob.clone());
    }
    // `dir` is a literal directory, so escape any glob metacharacters in it:
    // only `pattern` is meant to match.
    let full_pattern = Path::new(&glob::Pattern::escape(&dir.to_string_lossy())).join(pattern);
    let full_pattern = full_pattern.to_string_lossy();
    let paths = if glob_parent_exists(dir, pattern) {
        glob::glob(full_pattern.as_ref())?
            .filter_map(|p| p.ok())
            .collect_vec()
    } else {
        // Still reject a malformed pattern, as `glob::glob` would, so callers
        // can report it.
        glob::Pattern::new(full_pattern.as_ref())?;
        vec![]
    };
    results.insert(key, paths.clone());
    Ok(paths)
}

/// Whether the directory spelled out by `pattern` before its first wildcard
/// exists under `dir`. Nothing can match below a missing directory, and config
/// discovery globs about a dozen `conf.d` patterns in every ancestor directory,
/// where those directories almost never exist: one lookup here replaces
/// compiling and walking each pattern. A component with any glob metacharacter,
/// escaped ones included, ends the literal part, so this never skips a pattern
/// that could match.
fn glob_parent_exists(dir: &Path, pattern: &str) -> bool {
    let components = Path::new(pattern).components().collect_vec();
    let literal = components
        .iter()
        .take(components.len().saturating_sub(1))
        .take_while(|c| {
            !c.as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', ']'])
        })
        .collect::<PathBuf>();
    literal.as_os_str().is_empty() || dir.join(literal).is_dir()
}

fn config_glob(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    // Match global/system conf.d discovery: editor backups and other hidden
    // files are not configuration fragments.
    glob(dir, pattern)
        .unwrap_or_default()
        .into_iter()
        // Only regular files are config. A checkout can ship a config name
        // that links to a device or is a pipe, and reading one of those whole
        // never ends. `is_file` follows symlinks, so a link to a real file
        // still loads.
        .filter(|path| path.is_file())
        .filter(|path| {
            if path.parent().is_some_and(is_conf_d_file) {
                return is_conf_d_folder_file(path);
            }
            !is_conf_d_file(path)
                || !path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with('.'))
        })
        .collect()
}

fn is_unconditional_conf_d_pattern(pattern: &str) -> bool {
    pattern.ends_with("conf.d/*.toml")
}

/// Whether a conf.d fragment reserves a filename component for an environment.
///
/// `name.toml` and `name.local.toml` are unconditional. `name.dev.toml` and
/// `name.dev.local.toml` are environment-specific. Environment names themselves
/// may contain dots; active files are selected by exact glob patterns.
fn conf_d_file_environment(path: &Path) -> Option<(&str, bool)> {
    if !is_conf_d_file(path) {
        return None;
    }
    let filename = path.file_name()?.to_str()?;
    let stem = filename.strip_suffix(".toml")?;
    let (stem, local) = stem
        .strip_suffix(".local")
        .map_or((stem, false), |stem| (stem, true));
    let (name, environment) = stem.split_once('.')?;
    (!name.is_empty() && !environment.is_empty()).then_some((environment, local))
}

fn is_environment_conf_d_file(path: &Path) -> bool {
    conf_d_file_environment(path).is_some()
}

/// Warn about a dotted `conf.d` fragment whose name will become an environment
/// selector once `env_conf_d` defaults to on. Only fires inside the migration
/// window: the setting is unset (so the meaning is still going to change) and
/// the version default is still legacy (so it hasn't changed yet).
fn warn_on_dotted_conf_d_file(path: &Path) {
    if settings::is_loaded()
        && !settings::is_bootstrapping()
        && env::env_conf_d_setting().is_none()
        && !env::env_conf_d()
        && is_environment_conf_d_file(path)
    {
        deprecated_at!(
            "2026.8.10",
            "2027.8.10",
            "dotted_conf_d_filename",
            "dots in unconditional conf.d filenames are deprecated because the suffix will become an environment selector; rename fragments such as `node.tools.toml` to `node-tools.toml`, or set `env_conf_d = true` in a miserc.toml file to opt in now"
        );
    }
}

fn load_config_glob(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let paths = config_glob(dir, pattern);
    if !env::env_conf_d() {
        for path in &paths {
            warn_on_dotted_conf_d_file(path);
        }
        return paths;
    }
    paths
        .into_iter()
        .filter(|path| {
            if is_unconditional_conf_d_pattern(pattern) {
                !is_environment_conf_d_file(path)
            } else if let Some((environment, _)) = conf_d_file_environment(path) {
                env::MISE_ENV_WITH_AUTO.iter().any(|env| env == environment)
            } else {
                true
            }
        })
        .collect()
}

pub fn config_files_in_dir(dir: &Path) -> IndexSet<PathBuf> {
    DEFAULT_CONFIG_FILENAMES
        .iter()
        .flat_map(|f| config_glob(dir, f))
        .collect()
}

/// [`config_files_in_dir`] plus the files of every `MISE_ENV`, not only the selected ones:
/// trust recorded for `dir` covers `mise.staging.toml` too, and it loads as soon as that
/// environment is selected.
pub(crate) fn config_files_in_dir_for_any_env(dir: &Path) -> IndexSet<PathBuf> {
    let mut files = config_files_in_dir(dir);
    if env::MISE_OVERRIDE_CONFIG_FILENAMES.is_empty() {
        for prefix in [".config/mise", "mise", ".mise"] {
            for pattern in [
                format!("{prefix}.*.toml"),
                format!("{prefix}/config.*.toml"),
                format!("{prefix}/conf.d/*/mise.*.toml"),
            ] {
                files.extend(config_glob(dir, &pattern));
            }
        }
    }
    files
}

pub fn config_paths_in_dir(dir: &Path) -> Vec<PathBuf> {
    config_paths_in_dir_with_filenames(dir, &DEFAULT_CONFIG_FILENAMES)
}

/// Return the active configuration environment encoded in a loaded config
/// filename. A vector matches the ordered MISE_ENV model and leaves room for
/// future config forms that represent more than one environment.
pub fn environments_for_config_path(path: &Path) -> Vec<String> {
    let Some(filename) = path.file_name().and_then(|name| name.to_str()) else {
        return vec![];
    };
    env::MISE_ENV_WITH_AUTO
        .iter()
        .filter(|environment| {
            ["config", "mise", ".mise"].into_iter().any(|prefix| {
                filename == format!("{prefix}.{environment}.toml")
                    || filename == format!("{prefix}.{environment}.local.toml")
            }) || (env::env_conf_d()
                && conf_d_file_environment(path)
                    .is_some_and(|(file_environment, _)| file_environment == environment.as_str()))
        })
        .cloned()
        .collect()
}

pub fn config_paths_in_dir_with_filenames(dir: &Path, filenames: &[String]) -> Vec<PathBuf> {
    let config_paths: Vec<PathBuf> = filenames
        .iter()
        .rev()
        .flat_map(|f| {
            if is_glob_pattern(f) {
                load_config_glob(dir, f).into_iter().rev().collect()
            } else {
                let path = dir.join(f);
                // Same regular-file rule as `config_glob`.
                if path.is_file() { vec![path] } else { vec![] }
            }
        })
        .collect();

    let mut seen = std::collections::HashSet::new();
    config_paths
        .into_iter()
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

fn all_dirs() -> Result<Vec<PathBuf>> {
    file::all_dirs(env::current_dir()?, &env::MISE_CEILING_PATHS)
}

/// Get all directories in the hierarchy from a starting directory up to ceiling paths
fn all_dirs_from(start_dir: &Path) -> Result<Vec<PathBuf>> {
    file::all_dirs(start_dir, &env::MISE_CEILING_PATHS)
}

/// Returns true if a path is a .tool-versions file (lower priority for writes)
pub(crate) fn is_tool_versions_file(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|f| f.to_string_lossy().ends_with(".tool-versions"))
}

/// Get the first (lowest precedence) config file, but skip .tool-versions unless
/// it's the only option. This ensures commands like `mise use` write to mise.toml
/// instead of mise.local.toml or .tool-versions when multiple configs exist.
/// See: https://github.com/jdx/mise/discussions/6475
///
/// The two exclusions are not the same kind. `.tool-versions` is a *preference*: it is passed
/// over while choosing and comes back once nothing else qualifies. A `conf.d` drop-in must not
/// be written to at all, so it is excluded from the fallback as well, and this returns `None`
/// instead — every caller turns that into a config of its own, which is the wanted outcome.
///
/// Carrying the drop-in exclusion in a filtered view rather than repeating it in each arm is
/// what keeps the two apart: the preference needs a fallback, the exclusion must not have one,
/// and a chain of `or_else` arms only holds that line for as long as every arm remembers to.
/// See: <https://github.com/jdx/mise/discussions/5842>
fn first_config_file(files: &IndexSet<PathBuf>) -> Option<&PathBuf> {
    // conf.d fragments, including folder fragments, are never written to
    let writable = || {
        files
            .iter()
            .filter(|p| !is_conf_d_file(p) && !is_conf_d_folder_file(p))
    };
    writable()
        .find(|p| !is_tool_versions_file(p))
        .or_else(|| writable().next())
}

fn is_conf_d_file(p: &Path) -> bool {
    p.parent()
        .is_some_and(|d| d.file_name().is_some_and(|n| n == "conf.d"))
}

/// A config file inside a `conf.d` folder fragment, such as `conf.d/git/mise.toml`
/// or `conf.d/git/mise.linux.toml`. The folder is the file's config root, so
/// fragments keep their own sources and helpers next to their config.
///
/// Only `conf.d` directories mise reads count: a project that merely lives at
/// `nginx/conf.d/site/mise.toml` is an ordinary project.
pub fn is_conf_d_folder_file(p: &Path) -> bool {
    let is_mise_filename = p
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("mise.") && name.ends_with(".toml"));
    let Some(folder) = p.parent() else {
        return false;
    };
    if !is_mise_filename
        || !is_conf_d_file(folder)
        || folder
            .file_name()
            .is_none_or(|name| name.to_string_lossy().starts_with('.'))
    {
        return false;
    }
    folder.parent().and_then(Path::parent).is_some_and(|owner| {
        owner
            .file_name()
            .is_some_and(|name| name == "mise" || name == ".mise")
            || owner == *dirs::CONFIG
            || owner == *dirs::SYSTEM_CONFIG
    })
}

/// The config files in `dir` that config loading would actually read, with the same
/// exclusions `load_config_paths` applies.
///
/// [`config_files_in_dir`] deliberately does **not** filter — `mise trust` has to see a
/// file in order to un-ignore it, and `mise fmt` and task discovery want everything on
/// disk. Choosing a file to *write* to is the one case that must not.
fn loadable_config_files_in_dir(dir: &Path, filenames: &[String]) -> IndexSet<PathBuf> {
    if config_dir_is_ignored(dir, false) {
        return IndexSet::new();
    }
    filenames
        .iter()
        .flat_map(|f| load_config_glob(dir, f))
        .filter(|p| !config_path_is_ignored(p, false))
        .unique_by(|p| file::desymlink_path(p))
        .collect()
}

/// The config file to write to **inside `dir` itself**, or where one should be created.
///
/// `--path`/`--file` name a specific directory, so the answer has to be inside it: "if a directory
/// is specified, it will look for a config file in that directory" (`mise use --help`). This
/// deliberately does not walk up. [`config_file_from_dir`] is the walking one, and it is only ever
/// asked about the cwd.
///
/// Candidates that config loading skips are skipped here too: writing into one produces a
/// file mise will never read back. When nothing in `dir` is loadable the default name is
/// still returned — the directory was named explicitly, so mise creates what was asked for
/// — but the caller is warned that it will not be read.
pub fn config_file_in_dir(dir: &Path) -> PathBuf {
    let files = loadable_config_files_in_dir(dir, &DEFAULT_CONFIG_FILENAMES);
    if let Some(cf) = first_config_file(&files)
        && !is_global_config(cf)
    {
        return cf.clone();
    }
    let fallback = match Settings::get().asdf_compat {
        true => dir.join(&*MISE_DEFAULT_TOOL_VERSIONS_FILENAME),
        false => dir.join(&*MISE_DEFAULT_CONFIG_FILENAME),
    };
    if config_dir_is_ignored(dir, false) || config_path_is_ignored(&fallback, false) {
        warn_once!(
            "{p} is excluded from config loading, so mise will not read back what it writes there",
            p = display_path(&fallback)
        );
    }
    fallback
}

/// The nearest local config file walking up from `start`: the highest-precedence directory
/// that has one, then the lowest-precedence file inside it.
///
/// Both write-target resolvers share this. They were separate implementations of the same
/// rule, and only one of them was kept current — the ignore filter added for
/// <https://github.com/jdx/mise/discussions/7015> reached `local_toml_config_path_from_dir`
/// and not `config_file_from_dir`, so `mise use` picked a file that config loading
/// deliberately skips and wrote a tool into it that mise would never read back.
fn nearest_local_config_file(start: &Path, filenames: &[String]) -> Option<PathBuf> {
    if Settings::no_config() {
        return None;
    }
    for dir in all_dirs_from(start).unwrap_or_default() {
        if config_dir_is_ignored(&dir, false) {
            continue;
        }
        let files: IndexSet<PathBuf> = filenames
            .iter()
            .flat_map(|f| glob(&dir, f).unwrap_or_default())
            .filter(|p| !config_path_is_ignored(p, false))
            .unique_by(|p| file::desymlink_path(p))
            .collect();
        if let Some(cf) = first_config_file(&files)
            && !is_global_config(cf)
        {
            return Some(cf.clone());
        }
    }
    None
}

pub(crate) fn config_file_from_dir(p: &Path) -> PathBuf {
    if !p.is_dir() {
        return p.to_path_buf();
    }
    // Walk from the cwd rather than from `p`, which is what this has always done.
    if let Some(cf) = env::current_dir()
        .ok()
        .and_then(|cwd| nearest_local_config_file(&cwd, &DEFAULT_CONFIG_FILENAMES))
    {
        return cf;
    }
    match Settings::get().asdf_compat {
        true => p.join(&*MISE_DEFAULT_TOOL_VERSIONS_FILENAME),
        false => p.join(&*MISE_DEFAULT_CONFIG_FILENAME),
    }
}

fn load_config_paths_from_dirs(
    dirs: Vec<PathBuf>,
    config_filenames: &[String],
    include_ignored: bool,
) -> Vec<PathBuf> {
    let mut config_files = dirs
        .iter()
        .flat_map(|dir| {
            if config_dir_is_ignored(dir, include_ignored) {
                vec![]
            } else {
                config_paths_in_dir_with_filenames(dir, config_filenames)
            }
        })
        .collect::<Vec<_>>();

    // rev: these groups are lowest-first, this list is highest-first
    config_files.splice(0..0, override_config_files().into_iter().rev());
    config_files.extend(global_config_files().into_iter().rev());
    config_files.extend(system_config_files().into_iter().rev());

    let idiomatic_filenames = idiomatic_filenames_in(config_filenames);
    config_files
        .into_iter()
        .filter(|p| !config_path_is_ignored(p, include_ignored))
        // A project path that is a symlink to global or system config is that
        // config, which the entries above already list where discovery found
        // it. Dropping the project spelling keeps everything derived from a
        // config's location (its root, task roots, lockfile) with the global
        // entry rather than inside a directory the user may not control. The
        // reverse, a global config the user linked to a real file in their own
        // project (a dotfiles layout), keeps the project spelling, so its
        // lockfile stays beside the file.
        .filter(|p| !is_project_link_to_global_config(p))
        .unique_by(|p| config_path_identity(p, &idiomatic_filenames))
        .collect()
}

/// The entries of a discovery filename list that name idiomatic version files.
/// Callers pass mise's own config filenames, with the idiomatic filenames
/// added when they look for those too, so every other entry is idiomatic.
fn idiomatic_filenames_in(config_filenames: &[String]) -> Vec<&str> {
    config_filenames
        .iter()
        .filter(|f| !DEFAULT_CONFIG_FILENAMES.contains(f))
        .map(String::as_str)
        .collect()
}

/// What discovered config paths are deduplicated by, so that two spellings of
/// one file load once: the file the path resolves to. A version file linked to
/// a file of another name is its own entry instead. Loading skips it, so it
/// must not take the place of a spelling that loads: a `.nvmrc` linked to the
/// `.node-version` beside it would otherwise hide that `.node-version`.
fn config_path_identity(path: &Path, idiomatic_filenames: &[&str]) -> PathBuf {
    if config_file::is_skipped_version_file_link(path, idiomatic_filenames) {
        return path.to_path_buf();
    }
    file::desymlink_path(path)
}

pub(crate) fn load_config_paths_from(
    start_dir: &Path,
    config_filenames: &[String],
    include_ignored: bool,
) -> Vec<PathBuf> {
    if Settings::no_config() {
        return vec![];
    }
    load_config_paths_from_dirs(
        all_dirs_from(start_dir).unwrap_or_default(),
        config_filenames,
        include_ignored,
    )
}

pub fn load_config_paths(config_filenames: &[String], include_ignored: bool) -> Vec<PathBuf> {
    if Settings::no_config() {
        return vec![];
    }
    load_config_paths_from_dirs(
        all_dirs().unwrap_or_default(),
        config_filenames,
        include_ignored,
    )
}

/// Whether to emit the phase-2 auto_env rollout warning. Pure for unit testing.
/// Warns only when the user hasn't decided (setting unset), auto envs aren't
/// already active, and the mise version is in the warning window that precedes
/// the 2027.6.0 default flip.
fn should_warn_auto_env(
    version: &versions::Versioning,
    setting: Option<bool>,
    auto_envs_active: bool,
) -> bool {
    setting.is_none()
        && !auto_envs_active
        && *version >= versions::Versioning::new("2026.12.0").unwrap()
        && !env::auto_env_default_for_version(version)
}

/// Default for monorepo lockfile routing when `[monorepo].lockfile` is unset.
/// Keep legacy colocated lockfiles until the scheduled default flip.
fn monorepo_lockfile_default_for_version(version: &versions::Versioning) -> bool {
    *version >= versions::Versioning::new(MONOREPO_LOCKFILE_DEFAULT_AT).unwrap()
}

fn monorepo_lockfile_enabled_for_version(
    version: &versions::Versioning,
    setting: Option<bool>,
) -> bool {
    setting.unwrap_or_else(|| monorepo_lockfile_default_for_version(version))
}

/// Whether to emit the phase-2 monorepo lockfile rollout warning. Pure for unit testing.
/// Warns only when the user has not explicitly chosen `lockfile = true` or `false`
/// and the mise version is in the warning window before the default flip.
fn should_warn_monorepo_lockfile_default(
    version: &versions::Versioning,
    setting: Option<bool>,
    lockfile_enabled: bool,
    monorepo_lockfiles_exist: bool,
) -> bool {
    setting.is_none()
        && lockfile_enabled
        && monorepo_lockfiles_exist
        && *version >= versions::Versioning::new(MONOREPO_LOCKFILE_WARN_AT).unwrap()
        && !monorepo_lockfile_default_for_version(version)
}

fn warn_if_monorepo_lockfile_default_changes(config: &Config) {
    // Dead code once the default flips on: unset configs use the new behavior,
    // so this warning path should be removed when the rollout completes.
    debug_assert!(
        !monorepo_lockfile_default_for_version(&version::V),
        "monorepo lockfiles are now default-on; remove warn_if_monorepo_lockfile_default_changes() and should_warn_monorepo_lockfile_default()"
    );
    let Some(monorepo_config) = find_monorepo_config(&config.config_files) else {
        return;
    };
    let setting = monorepo_config.monorepo.lockfile;
    if !should_warn_monorepo_lockfile_default(
        &version::V,
        setting,
        Settings::get().lockfile_enabled(),
        monorepo_lockfiles_exist(config, &monorepo_config),
    ) {
        return;
    }

    warn_once!(
        "Monorepo lockfiles will default to a single root lockfile starting in mise {MONOREPO_LOCKFILE_DEFAULT_AT}. \
        Set `[monorepo] lockfile = true` in {} to opt in now, or `lockfile = false` to keep per-subproject lockfiles and silence this warning.",
        display_path(monorepo_config.monorepo_source.get_path())
    );
}

fn monorepo_lockfiles_exist(config: &Config, monorepo_config: &ResolvedMonorepoConfig) -> bool {
    let monorepo_root = &monorepo_config.root;
    let mut lockfile_paths = IndexSet::new();

    for (config_path, cf) in &config.config_files {
        if !config_path.starts_with(monorepo_root) || !cf.source().is_mise_toml() {
            continue;
        }
        lockfile_paths.insert(lockfile::lockfile_path_for_config(config_path, None).0);
        lockfile_paths.insert(
            lockfile::lockfile_path_for_config(config_path, Some(monorepo_root.as_path())).0,
        );
    }

    if let Some(patterns) = &monorepo_config.monorepo.config_roots
        && let Ok(config_roots) = expand_config_root_dirs(monorepo_root, patterns, None)
    {
        for config_root in config_roots {
            for lockfile_path in lockfile::lockfile_variant_paths_in_dir(&config_root) {
                lockfile_paths.insert(lockfile_path);
            }
            for config_path in config_paths_in_dir(&config_root) {
                lockfile_paths.insert(lockfile::lockfile_path_for_config(&config_path, None).0);
                lockfile_paths.insert(
                    lockfile::lockfile_path_for_config(&config_path, Some(monorepo_root.as_path()))
                        .0,
                );
            }
        }
    }

    lockfile_paths.iter().any(|path| path.exists())
}

/// Phase-2 rollout warning for auto_env: starting with 2026.12.0, tell users about
/// platform-specific config files (e.g. mise.windows.toml) that mise will begin
/// loading automatically when auto_env defaults to true in 2027.6.0.
fn warn_if_auto_env_files_exist() {
    // dead code once the default flips on: the files load, so there is nothing to warn about
    debug_assert!(
        !env::auto_env_default_for_version(&version::V),
        "auto_env is now default-on; remove warn_if_auto_env_files_exist() and should_warn_auto_env()"
    );
    if !should_warn_auto_env(
        &version::V,
        env::auto_env_setting(),
        !env::AUTO_ENV_NAMES.is_empty(),
    ) || *env::IS_RUNNING_AS_SHIM
    {
        return;
    }
    // Skip hook-env to keep the every-prompt path free of extra filesystem checks.
    // Match the subcommand anywhere before `--` rather than guessing its positional
    // slot (flags with separate values like `--cd /path` would shift it); the warning
    // is advisory, so erring toward skipping it is the safe direction.
    if env::ARGS
        .read()
        .unwrap()
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "hook-env")
    {
        return;
    }
    let found = detect_auto_env_candidate_files();
    if !found.is_empty() {
        warn_once!(
            "Found platform-specific config file(s) that mise will load automatically starting in 2027.6.0: {}. \
            Set MISE_AUTO_ENV=true (or `auto_env = true` in .miserc.toml) to enable this now, \
            or `auto_env = false` to keep the current behavior and silence this warning. \
            See https://mise.jdx.dev/configuration/environments.html#platform-environments",
            found.iter().map(display_path).join(", ")
        );
    }
}

/// Config files that exist on disk and would be loaded if auto_env were enabled,
/// but are not loaded today because their platform env is not in MISE_ENV.
fn detect_auto_env_candidate_files() -> Vec<PathBuf> {
    let candidate_envs = env::platform_env_names()
        .into_iter()
        .filter(|name| !env::MISE_ENV.contains(name))
        .collect_vec();
    // IndexSet: the all_dirs() walk and the global/system dir checks can find the
    // same file (e.g. ~/.config/mise/config.{env}.toml when cwd is under $HOME)
    let mut found = IndexSet::new();
    for dir in all_dirs().unwrap_or_default() {
        if config_file::is_ignored_via_setting(&dir) {
            continue;
        }
        for env_name in &candidate_envs {
            let patterns = [false, true]
                .into_iter()
                .flat_map(|local| env_config_patterns(env_name, local));
            for pattern in patterns {
                found.extend(
                    // config_glob applies loading's exclusions, such as hidden
                    // conf.d fragments and folders
                    config_glob(&dir, &pattern).into_iter().filter(|path| {
                        !is_conf_d_file(path)
                            || conf_d_file_environment(path)
                                .is_some_and(|(environment, _)| environment == env_name)
                    }),
                );
            }
        }
    }
    for dir in [*dirs::CONFIG, *dirs::SYSTEM_CONFIG] {
        for env_name in &candidate_envs {
            if env::env_conf_d() {
                found.extend(conf_d_environment_files(dir, env_name, false));
                found.extend(conf_d_environment_files(dir, env_name, true));
            }
            for local in ["", ".local"] {
                found.extend(
                    glob(
                        dir,
                        &format!(
                            "conf.d/*/mise.{}{local}.toml",
                            glob::Pattern::escape(env_name)
                        ),
                    )
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|p| is_conf_d_folder_file(p)),
                );
            }
            for filename in [
                format!("config.{env_name}.toml"),
                format!("mise.{env_name}.toml"),
                format!("config.{env_name}.local.toml"),
                format!("mise.{env_name}.local.toml"),
            ] {
                let p = dir.join(filename);
                if p.is_file() {
                    found.insert(p);
                }
            }
        }
    }
    // apply the same filters as load_config_paths so we don't warn about files
    // that wouldn't be loaded even with auto_env enabled
    found
        .into_iter()
        .filter(|p| !config_path_is_ignored(p, false))
        .collect()
}

/// Load config hierarchy from a specific directory (for monorepo tasks)
/// This loads all config files from start_dir up through parent directories,
/// including MISE_ENV-specific configs and idiomatic version files.
/// Returns (paths, idiomatic_filenames) so callers can pass the map to
/// load_config_files_from_paths without a redundant second computation.
///
/// `start_dir` is typically a monorepo config root (or a directory under one)
/// that differs from the process's invocation directory. Idiomatic version
/// file discovery is therefore resolved from `start_dir`'s own config
/// hierarchy via `idiomatic_filenames_for_root`, the same helper
/// `monorepo_union_with_root_toolset` uses for lockfile maintenance, rather
/// than from the invocation-rooted `Settings::get()` snapshot: a config root
/// can enable `idiomatic_version_file_enable_tools` for a tool that the
/// invocation directory's settings never mention.
pub async fn load_config_hierarchy_from_dir(
    start_dir: &Path,
) -> Result<(Vec<PathBuf>, BTreeMap<String, Vec<String>>)> {
    if Settings::no_config() {
        return Ok((vec![], BTreeMap::new()));
    }

    let default_idiomatic_files = load_idiomatic_filenames().await;
    let idiomatic_files = idiomatic_filenames_for_root(start_dir, &default_idiomatic_files).await?;
    let config_filenames: Vec<String> = idiomatic_files
        .keys()
        .cloned()
        .chain(DEFAULT_CONFIG_FILENAMES.iter().cloned())
        .collect();

    // Get all directories from start_dir up to root/ceiling
    let dirs = all_dirs_from(start_dir)?;

    let mut config_files = dirs
        .iter()
        .flat_map(|dir| {
            if config_dir_is_ignored(dir, false) {
                vec![]
            } else {
                config_filenames
                    .iter()
                    .rev()
                    .flat_map(|f| load_config_glob(dir, f).into_iter().rev())
                    .collect()
            }
        })
        .collect::<Vec<_>>();

    // rev: these groups are lowest-first, this list is highest-first
    config_files.splice(0..0, override_config_files().into_iter().rev());
    config_files.extend(global_config_files().into_iter().rev());
    config_files.extend(system_config_files().into_iter().rev());

    let idiomatic_filenames = idiomatic_files.keys().map(String::as_str).collect_vec();
    let paths = config_files
        .into_iter()
        .filter(|p| !config_path_is_ignored(p, false))
        .unique_by(|p| config_path_identity(p, &idiomatic_filenames))
        .collect();

    Ok((paths, idiomatic_files))
}

pub fn is_global_config(path: &Path) -> bool {
    config_set_contains(&global_config_files(), path)
        || is_override_config(path)
        || is_system_config(path)
}

/// Whether `path` is one of the global override files, which outrank all project config.
/// See [`override_config_files`].
///
/// Matched by name and directory rather than against the files found on disk, so a
/// file `--override` has just created is already recognized: its lockfile and trust
/// must not change once a later load discovers it.
pub fn is_override_config(path: &Path) -> bool {
    if env::MISE_GLOBAL_CONFIG_FILE.is_some() {
        return false;
    }
    let is_override_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("config."))
        .and_then(|n| n.strip_suffix(".override.toml"))
        .is_some()
        || path
            .file_name()
            .is_some_and(|n| n == "config.override.toml");
    is_override_name
        && path.parent().is_some_and(|dir| {
            file::desymlink_path_cached(dir) == file::desymlink_path_cached(&dirs::CONFIG)
        })
}

/// Whether `path` is a link to global or system config from somewhere else,
/// such as a project `mise.toml` linked to the user's global config. Global
/// config spelled where discovery found it is not, and neither is a real file
/// the user linked into their global config (a dotfiles checkout): that file
/// is global config because the user made it so.
pub(crate) fn is_project_link_to_global_config(path: &Path) -> bool {
    discovered_global_config(path)
        .is_some_and(|global| global != path && !path.canonicalize().is_ok_and(|real| real == path))
}

/// The path global or system config discovery found `path` at, if `path` is
/// global config. The two differ when `path` only resolves to that file, which
/// also holds for a symlink to it from a directory the user does not control,
/// so whatever global config derives from its location has to come from here.
pub(crate) fn discovered_global_config(path: &Path) -> Option<PathBuf> {
    config_set_get(&global_config_files(), path)
        .cloned()
        .or_else(|| config_set_get(&system_config_files(), path).cloned())
        // Override files are recognized by name and directory, so one that
        // `--override` has just created counts before discovery lists it.
        .or_else(|| {
            is_override_config(path)
                .then(|| path.file_name().map(|name| dirs::CONFIG.join(name)))
                .flatten()
        })
}

/// Whether `path` was loaded from a `[bootstrap].config_roots` root that global
/// or system config selected. The operator chose those roots, so safe mode
/// treats their bootstrap and dotfiles sections like global config even though
/// the files sit outside the global config directory. Every other setting in
/// them is still handled as project config.
fn is_global_bootstrap_root_config(path: &Path) -> bool {
    config_set_contains(&GLOBAL_BOOTSTRAP_ROOT_CONFIG_FILES.lock().unwrap(), path)
}

/// Whether safe mode drops `[bootstrap]`, `[dotfiles]` and `[dotfile_groups]`
/// from the config file at `path`. Applying them writes files, installs
/// packages, clones repositories and renders templates on the host, so only
/// operator-owned config may declare them in safe mode: global and system
/// config, and the `[bootstrap].config_roots` roots that config selects.
pub fn safe_mode_ignores_bootstrap(path: &Path) -> bool {
    Settings::safe_mode() && !is_global_config(path) && !is_global_bootstrap_root_config(path)
}

pub fn is_system_config(path: &Path) -> bool {
    config_set_contains(&system_config_files(), path)
}

/// Membership test that tolerates symlinked path prefixes (e.g. Fedora Atomic's
/// `/home` -> `/var/home`, where the shell PWD and `$HOME` disagree on the
/// prefix). The fast path is raw equality (no filesystem hit); only on a miss do
/// we canonicalize via [`file::desymlink_path`], matching how `load_config_paths`
/// already dedupes config paths. Without this, a global config discovered via the
/// PWD prefix is not byte-equal to its `$HOME`-derived entry and is wrongly
/// treated as a local config (stripping global-only settings).
fn config_set_contains(set: &IndexSet<PathBuf>, path: &Path) -> bool {
    config_set_get(set, path).is_some()
}

/// The member of `set` that [`config_set_contains`] matches `path` to.
fn config_set_get<'a>(set: &'a IndexSet<PathBuf>, path: &Path) -> Option<&'a PathBuf> {
    if let Some(p) = set.get(path) {
        return Some(p);
    }
    // This runs for every config file each time a tool resolves, so resolving
    // the same paths again would dominate short commands.
    let target = file::desymlink_path_cached(path);
    set.iter()
        .find(|p| file::desymlink_path_cached(p) == target)
}

fn resolved_task_file(task: &Task) -> Option<PathBuf> {
    let file = task.file.as_ref()?;
    let file_str = file.to_string_lossy().to_string();
    let rendered = if !task.file_from_discovery && contains_template_syntax(&file_str) {
        let mut tera = get_empty_tera();
        // Only config_root has source-stable semantics here. Task env/vars may
        // themselves be effectful templates, while the active Config context
        // may belong to a different config hierarchy and produce a false
        // source match.
        let mut tera_ctx = ::tera::Context::new();
        tera_ctx.insert(
            "config_root",
            &task
                .config_root
                .clone()
                .unwrap_or_default()
                .to_string_lossy(),
        );
        match render_str(&mut tera, &file_str, &tera_ctx) {
            Ok(rendered) => rendered,
            Err(err) => {
                // Deferred file templates may intentionally use exec() or
                // read_file(), which are evaluated later when the task's file
                // path is needed. Source comparison must never invoke those
                // functions merely to list tasks; conservatively treat an
                // unsupported dynamic path as a distinct source.
                debug!(
                    "failed to resolve task file for source comparison ({}): {err:#}",
                    task.name
                );
                return None;
            }
        }
    } else {
        file_str
    };
    let path = file::replace_path(&rendered);
    let path = if path.is_absolute() {
        path
    } else if let Some(root) = &task.config_root {
        root.join(path)
    } else {
        path
    };
    Some(file::desymlink_path(&path))
}

fn resolved_task_source(task: &Task) -> Option<PathBuf> {
    if task.file.is_some() {
        resolved_task_file(task)
    } else if task.config_source.as_os_str().is_empty() {
        None
    } else {
        Some(file::desymlink_path(&task.config_source))
    }
}

fn tasks_have_same_source(left: &Task, right: &Task) -> bool {
    left.name == right.name
        && resolved_task_source(left)
            .zip(resolved_task_source(right))
            .is_some_and(|(left, right)| file::same_file(&left, &right))
}

/// Returns true if the path should be filtered out due to MISE_CONFIG_DIR override.
/// When MISE_CONFIG_DIR is set to a non-default location, this filters out configs
/// found under the default location (~/.config/mise) during traversal.
/// See: https://github.com/jdx/mise/discussions/7015
fn is_default_config_dir_override_filtered(path: &Path) -> bool {
    *env::MISE_CONFIG_DIR_OVERRIDDEN
        && !config_set_contains(&global_config_files(), path)
        && path.starts_with(&*env::MISE_DEFAULT_CONFIG_DIR)
}

pub(crate) fn config_dir_is_ignored(dir: &Path, include_ignored: bool) -> bool {
    !include_ignored && config_file::is_ignored_via_setting(dir)
}

pub(crate) fn config_path_is_ignored(path: &Path, include_ignored: bool) -> bool {
    if is_default_config_dir_override_filtered(path) {
        return true;
    }
    // A `mise/`, `.mise/` or `.config/` directory that is a git checkout of
    // its own is a project, not the config folder of the directory above it.
    // Run inside that checkout, its config (such as `.config/mise.toml`, the
    // `mise.toml` of a checkout named `.config`) still loads, with the
    // checkout as its trust root, so trust in the directory above never
    // covers it.
    if let Some(checkout) = config_file::config_root::nested_checkout(path)
        && !std::env::current_dir().is_ok_and(|cwd| cwd.starts_with(&checkout))
    {
        return true;
    }
    if include_ignored {
        return false;
    }
    let ctr = config_trust_root(path);
    // The `ignored_config_paths` setting is a hard filter.
    if config_file::is_config_ignored_via_setting(path) {
        return true;
    }
    // The persisted ignore list (dismissed prompt / `mise trust --ignore`) is
    // overridden by `trusted_config_paths`, matching is_trusted's precedence so
    // a settings-trusted config is still discovered and loaded.
    // Global config shares its trust root, the home directory, with a project
    // config there, so ignoring that project must not drop the global config
    // and the global-only settings it holds.
    let ctr_ignored = !is_global_config(path) && config_file::is_persisted_ignored(&ctr);
    if ctr_ignored || config_file::is_persisted_ignored(path) {
        return !config_file::is_trusted_via_config_paths(path);
    }
    false
}

static GLOBAL_CONFIG_FILES: Lazy<Mutex<Option<IndexSet<PathBuf>>>> = Lazy::new(Default::default);
static OVERRIDE_CONFIG_FILES: Lazy<Mutex<Option<IndexSet<PathBuf>>>> = Lazy::new(Default::default);
static SYSTEM_CONFIG_FILES: Lazy<Mutex<Option<IndexSet<PathBuf>>>> = Lazy::new(Default::default);
/// Config files loaded from `[bootstrap].config_roots` that global config
/// declared; rebuilt on every config load. See [`is_global_bootstrap_root_config`].
static GLOBAL_BOOTSTRAP_ROOT_CONFIG_FILES: Lazy<Mutex<IndexSet<PathBuf>>> =
    Lazy::new(Default::default);

pub(crate) fn global_config_files() -> IndexSet<PathBuf> {
    let mut g = GLOBAL_CONFIG_FILES.lock().unwrap();
    if let Some(g) = &*g {
        return g.clone();
    }
    if let Some(global_config_file) = &*env::MISE_GLOBAL_CONFIG_FILE {
        return vec![global_config_file.clone()].into_iter().collect();
    }
    let mut config_files: IndexSet<PathBuf> = config_files_from_dir(&dirs::CONFIG);
    if !*env::MISE_USE_TOML {
        // only add ~/.tool-versions if MISE_CONFIG_FILE is not set
        // because that's how the user overrides the default
        config_files.insert(dirs::HOME.join(env::MISE_DEFAULT_TOOL_VERSIONS_FILENAME.as_str()));
    };
    *g = Some(config_files.clone());
    config_files
}

/// The global override files, lowest precedence first: `config.override.toml`, then
/// `config.{env}.override.toml` for each active `MISE_ENV`, later environments winning.
///
/// This tier ranks above every project config file, including `mise.local.toml`, so a user
/// can force a section of their own config over whatever a project declares. It is not
/// part of [`global_config_files`]: that set keeps its position below project config and
/// is where default writes land. `MISE_GLOBAL_CONFIG_FILE` names the only global config,
/// so it disables this tier.
pub(crate) fn override_config_files() -> IndexSet<PathBuf> {
    let mut o = OVERRIDE_CONFIG_FILES.lock().unwrap();
    if let Some(o) = &*o {
        return o.clone();
    }
    if env::MISE_GLOBAL_CONFIG_FILE.is_some() {
        return IndexSet::new();
    }
    let mut files = vec![dirs::CONFIG.join("config.override.toml")];
    files.extend(
        env::MISE_ENV_WITH_AUTO
            .iter()
            .map(|environment| dirs::CONFIG.join(format!("config.{environment}.override.toml"))),
    );
    let files: IndexSet<PathBuf> = files.into_iter().filter(|p| p.is_file()).collect();
    *o = Some(files.clone());
    files
}

pub(crate) fn system_config_files() -> IndexSet<PathBuf> {
    let mut s = SYSTEM_CONFIG_FILES.lock().unwrap();
    if let Some(s) = &*s {
        return s.clone();
    }
    if let Some(p) = &*env::MISE_SYSTEM_CONFIG_FILE {
        return vec![p.clone()].into_iter().collect();
    }
    let config_files = config_files_from_dir(&dirs::SYSTEM_CONFIG);
    *s = Some(config_files.clone());
    config_files
}

/// Config files in a global/system config dir, lowest precedence first: `conf.d`,
/// then `config.toml`/`mise.toml`, then the `.local` variants.
fn config_files_from_dir(dir: &Path) -> IndexSet<PathBuf> {
    config_files_with_incoming(dir, &Default::default())
}

/// Discover the configuration that would exist after an incoming batch,
/// using the same precedence and environment selection as live discovery.
pub(crate) fn config_files_with_incoming(
    dir: &Path,
    incoming: &std::collections::BTreeSet<PathBuf>,
) -> IndexSet<PathBuf> {
    let mut files = IndexSet::new();
    let conf_dir = dir.join("conf.d");
    let conf_files: std::collections::BTreeSet<PathBuf> = file::ls(&conf_dir)
        .unwrap_or_default()
        .into_iter()
        .chain(
            incoming
                .iter()
                .filter(|p| p.parent() == Some(&conf_dir))
                .cloned(),
        )
        .collect();
    // Folder fragments (`conf.d/<name>/mise.toml`) are found by their folder, so an
    // incoming batch can introduce one through any of its files.
    let conf_folders: std::collections::BTreeSet<PathBuf> = conf_files
        .iter()
        .filter(|p| p.is_dir())
        .cloned()
        .chain(
            incoming
                .iter()
                .filter_map(|p| p.parent())
                .filter(|folder| folder.parent() == Some(&conf_dir))
                .map(Path::to_path_buf),
        )
        .filter(|folder| {
            folder
                .file_name()
                .is_some_and(|name| !name.to_string_lossy().starts_with('.'))
        })
        .collect();
    let conf_folder_files = |name: &str| {
        conf_folders
            .iter()
            .map(|folder| folder.join(name))
            .collect::<Vec<_>>()
    };
    for p in &conf_files {
        if let Some(file_name) = p.file_name().map(|f| f.to_string_lossy().to_string())
            && !file_name.starts_with(".")
            && file_name.ends_with(".toml")
            && (!env::env_conf_d() || !is_environment_conf_d_file(p))
        {
            warn_on_dotted_conf_d_file(p);
            files.insert(p.clone());
        }
    }
    files.extend(conf_folder_files("mise.toml"));
    files.extend([dir.join("config.toml"), dir.join("mise.toml")]);
    for environment in &*env::MISE_ENV_WITH_AUTO {
        if env::env_conf_d() {
            files.extend(conf_d_environment_candidates(
                &conf_files,
                environment,
                false,
            ));
        }
        files.extend(conf_folder_files(&format!("mise.{environment}.toml")));
        files.extend([
            dir.join(format!("config.{environment}.toml")),
            dir.join(format!("mise.{environment}.toml")),
        ]);
    }
    files.extend(conf_folder_files("mise.local.toml"));
    files.extend([dir.join("config.local.toml"), dir.join("mise.local.toml")]);
    for environment in &*env::MISE_ENV_WITH_AUTO {
        if env::env_conf_d() {
            files.extend(conf_d_environment_candidates(
                &conf_files,
                environment,
                true,
            ));
        }
        files.extend(conf_folder_files(&format!("mise.{environment}.local.toml")));
        files.extend([
            dir.join(format!("config.{environment}.local.toml")),
            dir.join(format!("mise.{environment}.local.toml")),
        ]);
    }
    files
        .into_iter()
        .filter(|p| p.is_file() || incoming.contains(p))
        .collect()
}

fn conf_d_environment_files(dir: &Path, environment: &str, local: bool) -> Vec<PathBuf> {
    conf_d_environment_candidates(
        &file::ls(&dir.join("conf.d"))
            .unwrap_or_default()
            .into_iter()
            .collect(),
        environment,
        local,
    )
}

fn conf_d_environment_candidates(
    candidates: &std::collections::BTreeSet<PathBuf>,
    environment: &str,
    local: bool,
) -> Vec<PathBuf> {
    candidates
        .iter()
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| !name.starts_with('.'))
                && conf_d_file_environment(path) == Some((environment, local))
        })
        .cloned()
        .collect()
}

/// Global config files that may receive a write. Environment-specific files such as
/// `config.work.toml` are loaded when that environment is active but are never a default
/// target: with no `config.toml` yet, `mise use -g` creates one rather than putting a
/// machine-local tool into an environment module.
fn global_write_candidates() -> IndexSet<PathBuf> {
    let envs = &*env::MISE_ENV_WITH_AUTO;
    global_config_files()
        .into_iter()
        .filter(|p| !is_active_env_config_file(p, envs))
        .collect()
}

fn is_active_env_config_file(path: &Path, envs: &[String]) -> bool {
    let Some(stem) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".toml"))
    else {
        return false;
    };
    // An environment name may itself end in `.local`, so test the whole stem first.
    let local_stripped = stem.strip_suffix(".local");
    envs.iter().any(|e| {
        [Some(stem), local_stripped]
            .into_iter()
            .flatten()
            .any(|s| s.strip_suffix(e.as_str()).is_some_and(|r| r.ends_with('.')))
    })
}

/// the preferred global config file to write to, or the path where it should be created.
/// Uses first_config_file() to pick the lowest-precedence non-local TOML (i.e., config.toml
/// rather than config.local.toml) so that `mise use -g` writes to config.toml.
/// See: https://github.com/jdx/mise/discussions/8236
pub fn global_config_path() -> PathBuf {
    let files = global_write_candidates();
    first_config_file(&files)
        .cloned()
        .or_else(|| env::MISE_GLOBAL_CONFIG_FILE.clone())
        .unwrap_or_else(|| dirs::CONFIG.join("config.toml"))
}

/// The shared global config file: where declarations meant for every
/// machine go. `MISE_GLOBAL_CONFIG_FILE`, else the global TOML file that
/// already exists (`mise.toml` when that is what the user keeps), else
/// `config.toml`. An explicitly selected global file is honored even when
/// it is `.local.toml`; implicit selection prefers a shared file.
pub fn global_shared_config_path() -> PathBuf {
    let local = |path: &PathBuf| {
        path.file_name()
            .is_some_and(|name| name.to_string_lossy().ends_with(".local.toml"))
    };
    // an explicit global file is the one mise loads: declarations go there
    // (writing TOML into a file that is not TOML fails, rather than landing
    // in a file that is never read)
    if let Some(path) = env::MISE_GLOBAL_CONFIG_FILE.clone() {
        return path;
    }
    let files = global_write_candidates();
    first_config_file(&files)
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml") && !local(path))
        .cloned()
        .unwrap_or_else(|| dirs::CONFIG.join("config.toml"))
}

/// The preferred system config file to write to, or the path where it should be created.
pub fn system_config_path() -> PathBuf {
    let files = system_config_files();
    first_config_file(&files)
        .cloned()
        .or_else(|| env::MISE_SYSTEM_CONFIG_FILE.clone())
        .unwrap_or_else(|| dirs::SYSTEM_CONFIG.join("config.toml"))
}

/// the top-most mise.toml (local or global)
pub fn top_toml_config() -> Option<PathBuf> {
    load_config_paths(&TOML_CONFIG_FILENAMES, false)
        .iter()
        .filter(|p| !is_override_config(p))
        .find(|p| p.to_string_lossy().ends_with(".toml"))
        .map(|p| p.to_path_buf())
}

pub static ALL_TOML_CONFIG_FILES: Lazy<IndexSet<PathBuf>> = Lazy::new(|| {
    load_config_paths(&TOML_CONFIG_FILENAMES, false)
        .into_iter()
        .collect()
});

/// The lowest-precedence TOML config in the nearest local config directory, or
/// the path where it should be written.
pub fn local_toml_config_path() -> PathBuf {
    static CWD: Lazy<PathBuf> = Lazy::new(|| PathBuf::from("."));
    local_toml_config_path_from_dir(dirs::CWD.as_ref().unwrap_or(&CWD))
}

/// The lowest-precedence TOML config in the nearest directory that has one.
///
/// This matches the write-target rule from the docs: choose the highest-precedence
/// directory first, then the lowest-precedence file inside that directory.
pub(crate) fn local_toml_config_path_from_dir(cwd: &Path) -> PathBuf {
    nearest_local_config_file(cwd, &TOML_CONFIG_FILENAMES)
        .unwrap_or_else(|| cwd.join(&*env::MISE_DEFAULT_CONFIG_FILENAME))
}

/// A global configuration section with an optional configured default write target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalWriteSection {
    Tools,
    Packages,
    Dotfiles,
}

impl GlobalWriteSection {
    fn configured_path(self) -> Option<PathBuf> {
        let targets = &Settings::get().write_targets;
        match self {
            Self::Tools => targets.tools.clone(),
            Self::Packages => targets.packages.clone(),
            Self::Dotfiles => targets.dotfiles.clone(),
        }
    }

    fn setting_name(self) -> &'static str {
        match self {
            Self::Tools => "settings.write_targets.tools",
            Self::Packages => "settings.write_targets.packages",
            Self::Dotfiles => "settings.write_targets.dotfiles",
        }
    }
}

/// Options for resolving target config file path
#[derive(Debug, Default)]
pub struct ConfigPathOptions {
    pub global: bool,
    pub path: Option<PathBuf>,
    pub env: Option<String>,
    pub cwd: Option<PathBuf>,
    pub prefer_toml: bool,
    pub prevent_home_local: bool,
    /// Write to the global override file (`--override`). `env` then selects
    /// `config.{env}.override.toml` instead of the base override file.
    pub override_file: bool,
    /// The section whose configured global default may be used.
    pub global_write_section: Option<GlobalWriteSection>,
    /// Global config files that already declare the entries being updated.
    ///
    /// The caller deliberately supplies only global files and only when no
    /// explicit `--path` or environment selector was requested. Keeping the
    /// policy here makes every section use the same precedence rules.
    pub existing_global_paths: IndexSet<PathBuf>,
    /// Whether the requested global write also contains a new declaration.
    ///
    /// A command cannot safely write an existing declaration and a new one to
    /// different files in one atomic config edit. Callers set this only for
    /// section-aware global writes, after checking the requested entries.
    pub has_new_global_entries: bool,
}

fn configured_global_write_path(section: GlobalWriteSection) -> Result<Option<PathBuf>> {
    let Some(path) = section.configured_path() else {
        return Ok(None);
    };
    let path = file::replace_path(&path);
    if !path.is_absolute() {
        bail!(
            "{} must resolve to an absolute path",
            section.setting_name()
        );
    }
    if path.is_dir() {
        bail!(
            "{} must name a config file, not a directory: {}",
            section.setting_name(),
            display_path(&path)
        );
    }
    if !is_loadable_global_write_path(&path) {
        bail!(
            "{} must name a global config file that mise loads (such as config.toml or conf.d/*.toml): {}",
            section.setting_name(),
            display_path(&path)
        );
    }
    Ok(Some(path))
}

fn is_loadable_global_write_path(path: &Path) -> bool {
    if let Some(global_config_file) = &*env::MISE_GLOBAL_CONFIG_FILE {
        return lockfile::same_file_path(global_config_file, path);
    }
    let incoming = BTreeSet::from([path.to_path_buf()]);
    config_set_contains(&config_files_with_incoming(&dirs::CONFIG, &incoming), path)
}

/// Unified config file path resolution for both `mise use` and `mise set`
///
/// This function centralizes the logic for determining which config file to target
/// based on various options, ensuring consistent behavior between commands.
pub fn resolve_target_config_path(opts: ConfigPathOptions) -> Result<PathBuf> {
    let cwd = match opts.cwd {
        Some(ref path) => path.clone(),
        None => env::current_dir()?,
    };

    if opts.override_file {
        return override_config_path(opts.env.as_deref());
    }

    // If path is provided, handle it (file or directory) - explicit paths take precedence.
    // Absolutized once here so every arm returns an absolute path: a relative one would still
    // resolve correctly against the cwd for reads, but it silently disables the monorepo lockfile
    // redirection in `lockfile::lockfile_path_for_config`, which compares against an absolute root.
    if let Some(ref path) = opts.path {
        let path = path.absolutize()?.to_path_buf();
        if path.is_file() {
            return Ok(path);
        } else if path.is_dir() {
            let resolved = config_file_in_dir(&path);
            if opts.prefer_toml && !resolved.to_string_lossy().ends_with(".toml") {
                // For TOML-only commands, ensure we get a TOML file in the specified directory
                return Ok(path.join(&*env::MISE_DEFAULT_CONFIG_FILENAME));
            }
            return Ok(resolved);
        } else {
            // Path doesn't exist yet, return it as-is
            return Ok(path);
        }
    }

    // If global flag is set and no explicit path provided, update an existing
    // declaration in place before considering an opt-in section default.
    if opts.global {
        return resolve_global_write_path(&opts);
    }

    // If env-specific config is requested
    if let Some(ref env_name) = opts.env {
        let dotfile_path = cwd.join(format!(".mise.{}.toml", env_name));
        if dotfile_path.exists() {
            return Ok(dotfile_path);
        } else {
            return Ok(cwd.join(format!("mise.{}.toml", env_name)));
        }
    }

    // If we're in HOME directory and prevent_home_local is true, use global config
    if opts.prevent_home_local && env::in_home_dir() {
        return resolve_global_write_path(&opts);
    }

    // Default: determine based on current directory
    if opts.prefer_toml {
        // For TOML-only commands, choose the nearest config directory and write
        // to its lowest-precedence TOML file.
        Ok(local_toml_config_path_from_dir(&cwd))
    } else {
        // For mise use, use existing config_file_from_dir logic which respects ASDF compat
        Ok(config_file_from_dir(&cwd))
    }
}

/// The global override file `--override` writes to, or the path where it should be created.
/// The override tier is never a default write target; only this explicit request selects it.
pub fn override_config_path(environment: Option<&str>) -> Result<PathBuf> {
    if env::MISE_GLOBAL_CONFIG_FILE.is_some() {
        bail!(
            "--override is unavailable because MISE_GLOBAL_CONFIG_FILE is set, which makes it the only global config and disables config.override.toml"
        );
    }
    Ok(match environment {
        Some(environment) => dirs::CONFIG.join(format!("config.{environment}.override.toml")),
        None => dirs::CONFIG.join("config.override.toml"),
    })
}

fn resolve_global_write_path(opts: &ConfigPathOptions) -> Result<PathBuf> {
    if let Some(section) = opts.global_write_section {
        if opts.existing_global_paths.len() > 1 {
            let paths = opts
                .existing_global_paths
                .iter()
                .map(|path| display_path(path).to_string())
                .join(", ");
            bail!(
                "requested entries are declared in multiple global config files ({paths}); use --path to choose one"
            );
        }
        if let Some(path) = opts.existing_global_paths.first() {
            if opts.has_new_global_entries {
                let new_entry_path =
                    configured_global_write_path(section)?.unwrap_or_else(global_config_path);
                if !crate::lockfile::same_file_path(path, &new_entry_path) {
                    bail!(
                        "requested entries include existing declarations in {} and new declarations for {}; run separate commands or use --path",
                        display_path(path),
                        display_path(&new_entry_path),
                    );
                }
            }
            return Ok(path.clone());
        }
        let path = configured_global_write_path(section)?.unwrap_or_else(global_config_path);
        let key = section.setting_name().trim_start_matches("settings.");
        if let Some(ignored) = settings::ignored_write_target(key) {
            warn!(
                "{key} in {} is ignored because it only applies from global config; writing to {}",
                display_path(&ignored),
                display_path(&path)
            );
        }
        return Ok(path);
    }
    Ok(global_config_path())
}

/// Whether `err` is the untrusted-config error for a config the user has just
/// declined to trust, so the declined config is now ignored.
fn declined_trust_prompt(path: &Path, err: &eyre::Report) -> bool {
    matches!(
        err.downcast_ref::<crate::errors::Error>(),
        Some(crate::errors::Error::UntrustedConfig(_))
    ) && (config_file::is_ignored(&config_trust_root(path)) || config_file::is_ignored(path))
}

static SKIP_UNTRUSTED_CONFIGS: AtomicBool = AtomicBool::new(false);
static SKIPPED_UNTRUSTED_CONFIGS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Makes config loading skip untrusted config files instead of failing, so the
/// remaining (e.g. global) configs still apply. Used by `hook-env`, where entering
/// a directory is not an explicit request to run its config.
pub fn skip_untrusted_configs() {
    SKIP_UNTRUSTED_CONFIGS.store(true, Ordering::Relaxed);
}

/// Records `path` as skipped when [`skip_untrusted_configs`] is active, and says whether it did.
pub(crate) fn skip_untrusted_path(path: &Path) -> bool {
    if !SKIP_UNTRUSTED_CONFIGS.load(Ordering::Relaxed) {
        return false;
    }
    debug!("skipping untrusted file: {}", display_path(path));
    let mut skipped = SKIPPED_UNTRUSTED_CONFIGS.lock().unwrap();
    if !skipped.iter().any(|p| p == path) {
        skipped.push(path.to_path_buf());
    }
    true
}

/// Untrusted config files skipped so far when [`skip_untrusted_configs`] is active.
pub fn skipped_untrusted_configs() -> Vec<PathBuf> {
    SKIPPED_UNTRUSTED_CONFIGS.lock().unwrap().clone()
}

async fn load_all_config_files(
    config_filenames: &[PathBuf],
    idiomatic_filenames: &BTreeMap<String, Vec<String>>,
) -> Result<ConfigMap> {
    backend::load_tools().await?;
    let mut groups = config_filenames
        .iter()
        .unique()
        .filter(|path| !path.is_dir())
        .fold(
            IndexMap::<PathBuf, Vec<&PathBuf>>::new(),
            |mut groups, path| {
                groups
                    .entry(config_trust_root(path))
                    .or_default()
                    .push(path);
                groups
            },
        )
        .into_iter()
        .collect_vec();
    // Resolve trusted ancestor roots before parsing descendants so a stale
    // monorepo marker cannot authorize a child after an overlay disables it.
    groups.sort_by_key(|(root, _)| root.components().count());

    let mut parsed = HashMap::new();
    for (_, paths) in groups {
        let mut root_configs = ConfigMap::new();
        for f in paths {
            let cf = match parse_config_file(f, idiomatic_filenames).await {
                Ok(cfg) => cfg,
                // Declining the trust prompt records an ignore marker, which
                // makes the config skipped on every later load. Skip it for
                // the run that was asked too, rather than failing it.
                Err(err) if declined_trust_prompt(f, &err) => {
                    debug!(
                        "skipping config file ignored at the trust prompt: {}",
                        display_path(f)
                    );
                    continue;
                }
                Err(err)
                    if SKIP_UNTRUSTED_CONFIGS.load(Ordering::Relaxed)
                        && matches!(
                            err.downcast_ref::<crate::errors::Error>(),
                            Some(crate::errors::Error::UntrustedConfig(_))
                        ) =>
                {
                    debug!("skipping untrusted config file: {}", display_path(f));
                    let mut skipped = SKIPPED_UNTRUSTED_CONFIGS.lock().unwrap();
                    if !skipped.contains(f) {
                        skipped.push(f.clone());
                    }
                    continue;
                }
                Err(err) => {
                    return Err(err.wrap_err(format!(
                        "error parsing config file: {}",
                        style::ebold(display_path(f))
                    )));
                }
            };
            if let Err(err) = Tracker::track(f) {
                warn!("tracking config: {err:#}");
            }
            parsed.insert(f.clone(), cf.clone());
            root_configs.insert(f.clone(), cf);
        }

        if let Some(project_root) = root_configs.values().find_map(|cf| cf.project_root()) {
            let enabled = resolve_monorepo_config_at_root(&project_root, &root_configs).is_some();
            if let Some(source) = root_configs.values().next()
                && let Err(err) = config_file::set_monorepo_root_marker(source.get_path(), enabled)
            {
                warn!("failed to synchronize monorepo root marker: {err:#}");
            }
        }
    }

    Ok(config_filenames
        .iter()
        .filter_map(|path| parsed.remove(path).map(|cf| (path.clone(), cf)))
        .collect())
}

/// Load config files from a list of paths (for monorepo task config contexts)
/// Accepts a pre-computed idiomatic filenames map to avoid redundant computation
/// when called after load_config_hierarchy_from_dir.
pub async fn load_config_files_from_paths(
    config_paths: &[PathBuf],
    idiomatic_filenames: &BTreeMap<String, Vec<String>>,
) -> Result<ConfigMap> {
    backend::load_tools().await?;
    let mut config_map = ConfigMap::default();

    for f in config_paths.iter().unique() {
        if f.is_dir() {
            continue;
        }
        let cf = match parse_config_file(f, idiomatic_filenames).await {
            Ok(cfg) => cfg,
            Err(err) => {
                return Err(err.wrap_err(format!(
                    "error parsing config file: {}",
                    style::ebold(display_path(f))
                )));
            }
        };

        config_map.insert(f.clone(), cf);
    }
    Ok(config_map)
}

async fn parse_config_file(
    f: &PathBuf,
    idiomatic_filenames: &BTreeMap<String, Vec<String>>,
) -> Result<Arc<dyn ConfigFile>> {
    warn_on_dotted_conf_d_file(f);
    let plugins = matching_idiomatic_tools(f, idiomatic_filenames);
    if plugins.is_empty() {
        remote_include::apply(config_file::parse(f).await?).await
    } else {
        trace!("idiomatic version file: {}", display_path(f));
        // `config_file::parse` does this for every other kind of config file.
        if Settings::try_get().is_ok_and(|settings| settings.paranoid.config()) {
            trust_check(f)?;
        }
        let tools = backend::list()
            .into_iter()
            .filter(|backend| plugins.contains(&backend.to_string()))
            .collect::<Vec<_>>();
        IdiomaticVersionFile::parse(f.into(), tools)
            .await
            .map(|f| Arc::new(f) as Arc<dyn ConfigFile>)
    }
}

fn matching_idiomatic_tools(
    path: &Path,
    idiomatic_filenames: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    config_file::matching_idiomatic_filenames(path, idiomatic_filenames.keys().map(String::as_str))
        .into_iter()
        .flat_map(|filename| idiomatic_filenames.get(filename).into_iter().flatten())
        .unique()
        .cloned()
        .collect()
}

fn load_aliases(config_files: &ConfigMap) -> Result<AliasMap> {
    let mut aliases: AliasMap = AliasMap::new();

    // In safe mode a project (non-global) config cannot alias a version to a
    // `path:`, for the same reason its `path:` tool versions are ignored (see
    // `ToolRequest::ignored_in_safe_mode`). The request an alias rewrites can
    // come from global config, so this is checked here rather than per request.
    let safe_mode = Settings::safe_mode();
    // Nor can a project alias a tool that global config declares: that would
    // redirect the operator's tool to a backend, options or versions the project
    // chose.
    let declared_tools = |global: bool| -> BTreeSet<String> {
        if !safe_mode {
            return BTreeSet::new();
        }
        // `tool_backends` reads the tool keys without rendering any version,
        // which could fail this early and drop every tool of the file.
        config_files
            .values()
            .filter(|cf| is_global_config(cf.get_path()) == global)
            .flat_map(|cf| cf.tool_backends())
            .collect()
    };
    let global_tools = declared_tools(true);
    let mut project_tools = declared_tools(false);

    for config_file in config_files.values() {
        let project = safe_mode && !is_global_config(config_file.get_path());
        let ignore_path_versions = project;
        for (plugin, plugin_aliases) in config_file.aliases()? {
            if project && global_tools.contains(&plugin) {
                debug!(
                    "ignoring tool alias {plugin} in {}: global config declares the tool and safe mode (MISE_SAFE=1) is on",
                    display_path(config_file.get_path())
                );
                continue;
            }
            if project {
                project_tools.insert(plugin.clone());
            }
            if safe_mode
                && let Some(backend) = &plugin_aliases.backend
                && let Some((_, opts)) = crate::args::split_bracketed_opts(backend)
            {
                crate::toolset::record_safe_mode_credential_hosts(
                    &crate::toolset::parse_tool_options(opts).opts,
                    project,
                );
            }
            let alias = aliases.entry(plugin).or_default();
            if let Some(full) = plugin_aliases.backend {
                alias.backend = Some(full);
            }
            for (from, to) in plugin_aliases.versions {
                if ignore_path_versions && config_file::version_requires_trust(&to) {
                    debug!(
                        "ignoring tool alias version {from} = {to} in {}: safe mode (MISE_SAFE=1)",
                        display_path(config_file.get_path())
                    );
                    continue;
                }
                alias.versions.insert(from, to);
            }
        }
    }
    trace!("load_aliases: {}", aliases.len());
    record_safe_mode_project_tools(project_tools);

    Ok(aliases)
}

/// Adds to the tools recorded for [`is_safe_mode_project_tool`], never replaces
/// them: a later load of global config alone (such as the global runtime's) must
/// not drop the project tools of the main one.
fn record_safe_mode_project_tools(tools: BTreeSet<String>) {
    SAFE_MODE_PROJECT_TOOLS.lock().unwrap().extend(tools);
}

#[cfg(test)]
mod safe_mode_project_tools_tests {
    use super::*;

    #[test]
    fn a_global_only_load_keeps_the_project_tools() {
        record_safe_mode_project_tools(BTreeSet::from(["http:project-only-tool".to_string()]));
        record_safe_mode_project_tools(BTreeSet::new());
        assert!(is_safe_mode_project_tool(&BackendArg::from(
            "http:project-only-tool"
        )));
    }
}

/// The tools that project config declares or aliases, recorded in safe mode by
/// [`load_aliases`]; see [`is_safe_mode_project_tool`].
static SAFE_MODE_PROJECT_TOOLS: std::sync::Mutex<BTreeSet<String>> =
    std::sync::Mutex::new(BTreeSet::new());

/// Whether, in safe mode, project config declares or aliases `ba`, so that its
/// options (and the hosts they name) come from config nobody reviewed. A tool
/// that a project and global config both declare counts, since the project's
/// entry takes precedence.
pub(crate) fn is_safe_mode_project_tool(ba: &BackendArg) -> bool {
    let tools = SAFE_MODE_PROJECT_TOOLS.lock().unwrap();
    tools.contains(&ba.short) || tools.contains(&ba.full())
}

fn load_shell_aliases(config_files: &ConfigMap) -> Result<EnvWithSources> {
    let mut shell_aliases: EnvWithSources = EnvWithSources::new();

    // In safe mode, shell aliases from project (non-global) config are ignored.
    // They are emitted through `hook-env` into the interactive shell, so an
    // untrusted config could otherwise redefine commands (e.g. `ls`, `git`) —
    // a code-execution vector now that safe mode loads untrusted config without
    // a trust prompt. Global/system config is operator-owned and still applies.
    let safe_mode = Settings::safe_mode();

    // Iterate in reverse order (global -> local) so child directories override parent configs
    for config_file in config_files.values().rev() {
        let path = config_file.get_path().to_path_buf();
        if safe_mode && !is_global_config(&path) {
            continue;
        }
        for (name, cmd) in config_file.shell_aliases()? {
            shell_aliases.insert(name, (cmd, path.clone()));
        }
    }
    trace!("load_shell_aliases: {}", shell_aliases.len());

    Ok(shell_aliases)
}

/// Load command wrappers from global through project scope.
pub fn load_command_wrappers<'a>(
    config_files: &ConfigMap,
    tools: impl IntoIterator<Item = &'a crate::toolset::ToolRequest>,
) -> Result<IndexMap<String, CommandWrapper>> {
    let mut wrappers = IndexMap::new();
    let safe_mode = Settings::safe_mode();
    for config_file in config_files.values().rev() {
        if safe_mode && !is_global_config(config_file.get_path()) {
            continue;
        }
        for (name, wrapper) in config_file.command_wrappers()? {
            if wrapper.command().trim().is_empty() {
                bail!("command wrapper for {name:?} must have a non-blank command");
            }
            wrappers.insert(name, wrapper);
        }
    }
    command_wrapper::add_rust_wrapper(&mut wrappers, tools)?;
    Ok(wrappers)
}

/// The config file whose `[wrappers]` entry for `name` wins in [`load_command_wrappers`]: the
/// most local one, skipping project files in safe mode. `None` for a wrapper no file declares.
pub fn command_wrapper_source(config_files: &ConfigMap, name: &str) -> Result<Option<PathBuf>> {
    let safe_mode = Settings::safe_mode();
    for config_file in config_files.values() {
        if safe_mode && !is_global_config(config_file.get_path()) {
            continue;
        }
        if config_file.command_wrappers()?.contains_key(name) {
            return Ok(Some(config_file.get_path().to_path_buf()));
        }
    }
    Ok(None)
}

/// Adds the template variables of a value declared in the config file at `path`, as its other
/// values get them: `config_root` and `config_source`.
pub fn insert_config_file_template_vars(ctx: &mut tera::Context, path: &Path) {
    ctx.insert(
        "config_root",
        &config_file::config_root::config_root(path).to_string_lossy(),
    );
    ctx.insert(
        "config_source",
        &config_file::config_root::config_source(path),
    );
}

/// Expands a `[plugins]` value to a URL, keeping any `#ref` outside the
/// expansion so `owner/repo#v1` doesn't become `…/repo#v1.git`.
fn plugin_entry_to_url(entry: &str) -> String {
    // A `git::` source names its repository, subdirectory and ref itself. Read
    // as a shorthand it would become `https://github.com/:ssh://….git`, which
    // the drift check compares against the installed origin and `--force`
    // installs from.
    if RemoteSource::parse_git(entry).is_some() {
        return entry.to_string();
    }
    match entry.split_once('#') {
        Some((source, git_ref)) => format!("{}#{git_ref}", registry::full_to_url(source)),
        None => registry::full_to_url(entry),
    }
}

fn load_plugins(config_files: &ConfigMap) -> Result<HashMap<String, String>> {
    let mut plugins = HashMap::new();
    for config_file in config_files.values() {
        for (plugin, url) in config_file.plugins()? {
            plugins.insert(plugin.clone(), url.clone());
        }
    }
    trace!("load_plugins: {}", plugins.len());
    Ok(plugins)
}

pub(crate) async fn resolve_vars_from_config_files(
    config: &Arc<Config>,
    config_files: &ConfigMap,
) -> Result<EnvResults> {
    let entries = config_files
        .iter()
        .rev()
        .map(|(source, cf)| {
            cf.vars_entries()
                .map(|ee| ee.into_iter().map(|e| (e, source.clone())))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();

    EnvResults::resolve(
        config,
        config.tera_ctx.clone(),
        &env::PRISTINE_ENV,
        entries,
        EnvResolveOptions {
            vars: true,
            tools: ToolsFilter::NonToolsOnly,
            warn_on_missing_required: false,
        },
    )
    .await
}

/// The vars a bootstrap dry run resolved, and the names of those it left out
/// because resolving them needs something a dry run must not do.
type DryRunVars = (IndexMap<String, String>, IndexSet<String>);

fn bootstrap_dry_run_vars(
    original_config_files: Option<&ConfigMap>,
    existing_results: Option<&EnvResults>,
    config_files: &ConfigMap,
    (mut vars, mut unresolved): DryRunVars,
    mut preceding_layer_changed: bool,
) -> Result<DryRunVars> {
    for (source, config_file) in config_files.iter().rev() {
        let unchanged = original_config_files
            .and_then(|files| files.get(source))
            .is_some_and(|original| Arc::ptr_eq(original, config_file));
        for directive in config_file.vars_entries()? {
            if directive.options().tools {
                continue;
            }
            let existing = |key: &str| {
                (unchanged && !preceding_layer_changed)
                    .then(|| existing_results?.vars.get(key))
                    .flatten()
                    .filter(|(_, existing_source)| existing_source == source)
                    .map(|(value, _)| value.clone())
            };
            match directive {
                EnvDirective::Val(key, value, _) => {
                    match bootstrap_dry_run_var(source, &value, &vars, &unresolved)
                        .or_existing(|| existing(&key))
                    {
                        DryRunVar::Resolved(value) => {
                            unresolved.shift_remove(&key);
                            vars.insert(key, value);
                        }
                        DryRunVar::NeedsRun => {
                            vars.shift_remove(&key);
                            unresolved.insert(key);
                        }
                        DryRunVar::Broken => {
                            vars.shift_remove(&key);
                            unresolved.shift_remove(&key);
                        }
                    }
                }
                EnvDirective::Default(key, value, _) => {
                    if unresolved.contains(&key)
                        || vars.get(&key).is_some_and(|value| !value.is_empty())
                    {
                        continue;
                    }
                    if let Some(value) = env::PRISTINE_ENV
                        .get(&key)
                        .filter(|value| !value.is_empty())
                    {
                        vars.insert(key, value.clone());
                        continue;
                    }
                    match bootstrap_dry_run_var(source, &value, &vars, &unresolved)
                        .or_existing(|| existing(&key))
                    {
                        DryRunVar::Resolved(value) => {
                            vars.insert(key, value);
                        }
                        DryRunVar::NeedsRun => {
                            vars.shift_remove(&key);
                            unresolved.insert(key);
                        }
                        DryRunVar::Broken => {}
                    }
                }
                EnvDirective::Rm(key, _) => {
                    vars.shift_remove(&key);
                    unresolved.shift_remove(&key);
                }
                EnvDirective::Age { key, .. } => {
                    if let Some(value) = existing(&key) {
                        unresolved.shift_remove(&key);
                        vars.insert(key, value);
                    } else {
                        // decrypting is left to a real run
                        vars.shift_remove(&key);
                        unresolved.insert(key);
                    }
                }
                EnvDirective::Required(..)
                | EnvDirective::File(..)
                | EnvDirective::FileGroup(..)
                | EnvDirective::Path(..)
                | EnvDirective::Source(..)
                | EnvDirective::PythonVenv { .. }
                | EnvDirective::Module(..) => {}
            }
        }
        preceding_layer_changed |= !unchanged;
    }
    Ok((vars, unresolved))
}

/// How a bootstrap dry run resolves a var. See [`crate::tera::render_for_dry_run`].
enum DryRunVar {
    Resolved(String),
    /// The template failed after calling `exec()` or while other vars were
    /// unresolved, so it is left undefined for a real run to resolve.
    NeedsRun,
    /// The template failed with nothing unresolved and no `exec()` call.
    Broken,
}

impl DryRunVar {
    /// Falls back to the value an earlier full load resolved, when there is one.
    fn or_existing(self, existing: impl FnOnce() -> Option<String>) -> Self {
        match self {
            Self::Resolved(_) => self,
            _ => existing().map_or(self, Self::Resolved),
        }
    }
}

fn bootstrap_dry_run_var(
    source: &Path,
    value: &str,
    vars: &IndexMap<String, String>,
    unresolved: &IndexSet<String>,
) -> DryRunVar {
    if !contains_template_syntax(value) {
        return DryRunVar::Resolved(value.to_string());
    }
    let mut context = BASE_CONTEXT.clone();
    context.insert("vars", vars);
    context.insert(
        "config_root",
        &config_file::config_root::config_root(source).to_string_lossy(),
    );
    context.insert(
        "config_source",
        &config_file::config_root::config_source(source),
    );
    match crate::tera::render_for_dry_run(source.parent(), value, &context, unresolved) {
        DryRunRender::Rendered(value) => DryRunVar::Resolved(value),
        DryRunRender::Unrendered(err) => {
            debug!(
                "bootstrap: var template from {} needs a real run; omitted from dry-run context: {}",
                source.display(),
                crate::tera::error_chain(&err)
            );
            DryRunVar::NeedsRun
        }
        DryRunRender::Failed(err) => {
            debug!(
                "bootstrap: var template from {} omitted from dry-run context: {}",
                source.display(),
                crate::tera::error_chain(&err)
            );
            DryRunVar::Broken
        }
    }
}

async fn load_vars(config: &Arc<Config>) -> Result<EnvResults> {
    time!("load_vars start");
    let vars_results = resolve_vars_from_config_files(config, &config.config_files).await?;
    time!("load_vars done");
    if log::log_enabled!(log::Level::Trace) {
        trace!("{vars_results:#?}");
    } else if !vars_results.is_empty() {
        debug!("{vars_results:?}");
    }
    Ok(vars_results)
}

impl Debug for Config {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        let config_files = self
            .config_files
            .iter()
            .map(|(p, _)| display_path(p))
            .collect::<Vec<_>>();
        let mut s = f.debug_struct("Config");
        s.field("Config Files", &config_files);
        // Note: tasks are now lazily loaded and cached, so we can't access them synchronously here
        // Try to get the default (current hierarchy) cache entry
        let default_ctx = crate::task::TaskLoadContext::default();
        if let Some(tasks) = self.tasks_cache.get(&default_ctx) {
            s.field(
                "Tasks",
                &tasks.values().map(|t| t.to_string()).collect_vec(),
            );
        }
        if let Some(env) = self.env_maybe()
            && !env.is_empty()
        {
            s.field("Env", &env);
            // s.field("Env Sources", &self.env_sources);
        }
        if let Some(env_results) = self.env.get() {
            if !env_results.env_files.is_empty() {
                s.field("Path Dirs", &env_results.env_paths);
                s.field("Path Dirs (append)", &env_results.env_paths_append);
            }
            if !env_results.env_scripts.is_empty() {
                s.field("Scripts", &env_results.env_scripts);
            }
            if !env_results.env_files.is_empty() {
                s.field("Files", &env_results.env_files);
            }
        }
        if !self.aliases.is_empty() {
            s.field("Aliases", &self.aliases);
        }
        s.finish()
    }
}

#[derive(Clone, Debug, Default)]
struct TaskDefinitions {
    templates: IndexMap<String, SourcedTaskTemplate>,
    workspace_defaults: Option<WorkspaceTaskDefaults>,
}

#[derive(Clone, Debug)]
struct SourcedTaskTemplate {
    template: TaskTemplate,
    source: PathBuf,
}

#[derive(Clone, Debug)]
struct WorkspaceTaskDefaults {
    project_roots: BTreeSet<PathBuf>,
    tasks: IndexMap<String, SourcedTaskTemplate>,
}

/// Collect all task templates from the config file hierarchy and task-name defaults from the
/// selected monorepo root.
/// Templates from child configs (closer to cwd) override templates from parent configs.
fn collect_task_definitions(
    config_files: &ConfigMap,
    workspace_graph: Option<&crate::task::workspace::WorkspaceProjectGraph>,
) -> TaskDefinitions {
    let mut definitions = TaskDefinitions::default();

    // Iterate in reverse order (global -> local) so child directories override parent configs
    for cf in config_files.values().rev() {
        for (name, template) in cf.task_templates() {
            definitions.templates.insert(
                name,
                SourcedTaskTemplate {
                    template,
                    source: cf.get_path().to_path_buf(),
                },
            );
        }
    }

    definitions.workspace_defaults = workspace_task_defaults(config_files, workspace_graph);
    definitions
}

/// The workspace-root task defaults, with the roots of every project they apply to.
fn workspace_task_defaults(
    config_files: &ConfigMap,
    workspace_graph: Option<&crate::task::workspace::WorkspaceProjectGraph>,
) -> Option<WorkspaceTaskDefaults> {
    let config = find_monorepo_config(config_files)?;
    let root = config.root;
    let monorepo = config.monorepo;
    let tasks = config.task_defaults;
    let mut project_roots = expand_config_root_dirs(
        &root,
        monorepo.config_roots.as_deref().unwrap_or_default(),
        None,
    )
    .unwrap_or_default()
    .into_iter()
    .map(|project_root| file::desymlink_path(&project_root))
    .collect::<BTreeSet<_>>();
    project_roots.extend(
        monorepo
            .projects
            .values()
            .filter(|project| !project.remove)
            .filter_map(|project| project.root.as_ref())
            .map(|project_root| file::desymlink_path(&root.join(project_root))),
    );
    if let Some(graph) = workspace_graph {
        project_roots.extend(
            graph
                .projects()
                .map(|project| file::desymlink_path(&root.join(&project.root))),
        );
    }
    (!tasks.is_empty()).then_some(WorkspaceTaskDefaults {
        project_roots,
        tasks,
    })
}

/// Resolve task definition layers from highest to lowest precedence.
///
/// The task already contains either project-local or provider-inferred fields. An explicitly named
/// template fills gaps first, then the workspace-root task default fills anything still unset.
/// Explicit tasks replace matching provider-inferred tasks separately when the final task map is
/// assembled.
/// Returns an error if the named template is not found.
fn resolve_task_template(task: &mut Task, definitions: &TaskDefinitions) -> Result<()> {
    apply_named_template(task, definitions)?;
    apply_workspace_task_default(task, definitions);
    Ok(())
}

/// Apply the template the task named with `extends`, if any.
///
/// Returns an error if the template is not found.
fn apply_named_template(task: &mut Task, definitions: &TaskDefinitions) -> Result<()> {
    if let Some(template_name) = &task.extends {
        let template = definitions.templates.get(template_name).ok_or_else(|| {
            eyre!(
                "Task '{}' extends template '{}' which was not found. \
                 Available templates: {}",
                task.name,
                template_name,
                if definitions.templates.is_empty() {
                    "(none)".to_string()
                } else {
                    definitions.templates.keys().join(", ")
                }
            )
        })?;

        task.merge_extended_template(&template.template);
        task.add_config_source(&template.source);
    }
    Ok(())
}

/// Fill anything still unset from the workspace-root default for a task of this name.
fn apply_workspace_task_default(task: &mut Task, definitions: &TaskDefinitions) {
    if let Some(defaults) = &definitions.workspace_defaults
        && !task.global
        && task
            .config_root
            .as_deref()
            .map(file::desymlink_path)
            .is_some_and(|root| defaults.project_roots.contains(&root))
    {
        let task_name = task
            .name
            .split_once('#')
            .filter(|_| crate::task::is_workspace_project_task(&task.name))
            .map_or(task.name.as_str(), |(_, name)| name);
        if let Some(default) = defaults.tasks.get(task_name) {
            task.merge_template(&default.template);
            task.add_config_source(&default.source);
        }
    }
}

fn apply_task_config_cache_default(task: &mut Task, cache: &Option<TaskCacheConfig>) {
    if task.cache.is_none()
        && !task.sources.is_empty()
        && !task.outputs.is_auto()
        && let Some(cache) = cache
    {
        task.cache = Some(cache.clone());
    }
}

fn apply_task_config_rust_cache_default(task: &mut Task, rust_cache: &Option<TaskRustCacheConfig>) {
    if task.rust_cache.is_none() {
        task.rust_cache = rust_cache.clone();
    }
}

#[derive(Clone, Debug, Default)]
struct ResolvedTaskEnvironment {
    global_env: Vec<String>,
    global_pass_through_env: Vec<String>,
}

impl ResolvedTaskEnvironment {
    fn from_configs(configs: &[&Arc<dyn ConfigFile>], cascaded: Option<&TaskConfig>) -> Self {
        Self {
            global_env: configs
                .iter()
                .find_map(|cf| {
                    let env = &cf.task_config().global_env;
                    (!env.is_empty()).then(|| env.clone())
                })
                .or_else(|| {
                    cascaded
                        .map(|tc| tc.global_env.clone())
                        .filter(|env| !env.is_empty())
                })
                .unwrap_or_default(),
            global_pass_through_env: configs
                .iter()
                .find_map(|cf| {
                    let env = &cf.task_config().global_pass_through_env;
                    (!env.is_empty()).then(|| env.clone())
                })
                .or_else(|| {
                    cascaded
                        .map(|tc| tc.global_pass_through_env.clone())
                        .filter(|env| !env.is_empty())
                })
                .unwrap_or_default(),
        }
    }

    fn apply(&self, task: &mut Task) -> Result<()> {
        if self.global_env.is_empty() && self.global_pass_through_env.is_empty() {
            return Ok(());
        }
        Settings::get().ensure_experimental("global task environment configuration")?;

        if let Some(cache) = &mut task.cache {
            cache.env.extend(self.global_env.iter().cloned());
            cache.env.sort();
            cache.env.dedup();
        }
        task.pass_through_env
            .extend(self.global_pass_through_env.iter().cloned());
        task.pass_through_env.sort();
        task.pass_through_env.dedup();
        Ok(())
    }
}

/// Prefix that marks a `sources` or `global_inputs` entry as a reference to a
/// named input group rather than a file pattern.
pub const TASK_INPUT_GROUP_PREFIX: &str = "@group:";

#[derive(Clone, Debug, Default)]
struct ResolvedTaskInputs {
    global_inputs: Option<(Vec<String>, PathBuf)>,
    input_groups: IndexMap<String, (Vec<String>, PathBuf)>,
}

#[derive(Clone, Debug, Default)]
struct ResolvedTaskConfig {
    inputs: ResolvedTaskInputs,
    environment: ResolvedTaskEnvironment,
    dir: Option<String>,
    shell: Option<String>,
    cache: Option<TaskCacheConfig>,
    rust_cache: Option<TaskRustCacheConfig>,
}

/// Whether an inline block gives its task a command. A block without one
/// overlays a same-named task that has one, or stands alone, such as a group
/// of `depends`.
fn task_has_command(task: &Task) -> bool {
    !task.run.is_empty() || !task.run_windows.is_empty() || task.file.is_some()
}

impl ResolvedTaskConfig {
    /// The defaults for an inline block with no command of its own, while its
    /// tasks load. Such a block may overlay a task that already has the
    /// defaults of its own root -- possibly a different one, such as a conf.d
    /// folder -- so until the merge it takes none, keeping only the input
    /// groups its own `sources` can name. A block still without a command after
    /// the merge stands alone and gets the rest from
    /// [`Self::apply_to_standalone`].
    fn for_overlay(&self) -> Self {
        Self {
            inputs: ResolvedTaskInputs {
                global_inputs: None,
                input_groups: self.inputs.input_groups.clone(),
            },
            ..Default::default()
        }
    }

    /// Give a task that loaded with [`Self::for_overlay`] and was merged onto
    /// nothing the defaults it would have had as a task of its own.
    async fn apply_to_standalone(&self, task: &mut Task, config: &Arc<Config>) -> Result<()> {
        if task.dir.is_none() {
            task.dir = self.dir.clone();
        }
        if task.shell.is_none() {
            task.shell = self.shell.clone();
        }
        apply_task_config_inputs(task, config, &self.inputs).await?;
        apply_task_config_cache_default(task, &self.cache);
        apply_task_config_rust_cache_default(task, &self.rust_cache);
        self.environment.apply(task)
    }
}

impl ResolvedTaskInputs {
    fn from_configs(configs: &[&Arc<dyn ConfigFile>]) -> Self {
        Self {
            global_inputs: configs.iter().find_map(|cf| {
                let inputs = &cf.task_config().global_inputs;
                (!inputs.is_empty()).then(|| (inputs.clone(), cf.config_root()))
            }),
            input_groups: configs
                .iter()
                .find_map(|cf| {
                    let groups = &cf.task_config().input_groups;
                    (!groups.is_empty()).then(|| {
                        let root = cf.config_root();
                        groups
                            .iter()
                            .map(|(name, entries)| (name.clone(), (entries.clone(), root.clone())))
                            .collect()
                    })
                })
                .unwrap_or_default(),
        }
    }

    fn is_empty(&self) -> bool {
        self.global_inputs.is_none() && self.input_groups.is_empty()
    }

    fn overlay(&mut self, overlay: Self) {
        if overlay.global_inputs.is_some() {
            self.global_inputs = overlay.global_inputs;
        }
        self.input_groups.extend(overlay.input_groups);
    }
}

fn anchor_task_input(root: &Path, input: &str) -> String {
    let (exclude, input) = input
        .strip_prefix('!')
        .map(|input| (true, input))
        .unwrap_or((false, input));
    let input = input
        .strip_prefix("\\!")
        .map(|input| format!("!{input}"))
        .unwrap_or_else(|| input.to_string());
    let path = Path::new(&input);
    let anchored = if path.is_absolute() {
        input
    } else {
        root.join(path).to_string_lossy().to_string()
    };
    if exclude {
        format!("!{anchored}")
    } else {
        anchored
    }
}

fn expand_task_inputs(
    entries: &[String],
    task_inputs: &ResolvedTaskInputs,
    root: &Path,
    task_name: &str,
    stack: &mut Vec<String>,
    anchor_literals: bool,
) -> Result<Vec<String>> {
    let mut expanded = vec![];
    for entry in entries {
        let Some(group) = entry.strip_prefix(TASK_INPUT_GROUP_PREFIX) else {
            expanded.push(if anchor_literals {
                anchor_task_input(root, entry)
            } else {
                entry.clone()
            });
            continue;
        };
        let (inputs, group_root) = task_inputs.input_groups.get(group).ok_or_else(|| {
            eyre!("task {task_name} references undefined input group {group:?} with {entry:?}")
        })?;
        if let Some(cycle_start) = stack.iter().position(|name| name == group) {
            let mut cycle = stack[cycle_start..].to_vec();
            cycle.push(group.to_string());
            bail!(
                "task {task_name} input group cycle: {}",
                cycle.iter().join(" -> ")
            );
        }
        stack.push(group.to_string());
        expanded.extend(expand_task_inputs(
            inputs,
            task_inputs,
            group_root,
            task_name,
            stack,
            true,
        )?);
        stack.pop();
    }
    Ok(expanded)
}

fn render_task_input_entries(
    entries: &[String],
    config_root: &Path,
    tera_ctx: &tera::Context,
) -> Result<Vec<String>> {
    let mut tera_ctx = tera_ctx.clone();
    tera_ctx.insert("config_root", &config_root.to_string_lossy());
    let mut tera = crate::tera::get_tera(Some(config_root));
    entries
        .iter()
        .map(|entry| {
            if contains_template_syntax(entry) {
                Ok(render_str(&mut tera, entry, &tera_ctx)?)
            } else {
                Ok(entry.clone())
            }
        })
        .collect()
}

async fn apply_task_config_inputs(
    task: &mut Task,
    config: &Arc<Config>,
    task_inputs: &ResolvedTaskInputs,
) -> Result<()> {
    let has_group_references = task
        .sources
        .iter()
        .any(|source| source.starts_with(TASK_INPUT_GROUP_PREFIX));
    if task_inputs.is_empty() && !has_group_references {
        return Ok(());
    }
    Settings::get().ensure_experimental("task input groups")?;

    let tera_ctx = task.tera_ctx(config).await?;
    let global_inputs = match &task_inputs.global_inputs {
        Some((entries, root)) => Some((
            render_task_input_entries(entries, root, &tera_ctx)?,
            root.clone(),
        )),
        None => None,
    };
    let input_groups = task_inputs
        .input_groups
        .iter()
        .map(|(name, (entries, root))| {
            Ok((
                name.clone(),
                (
                    render_task_input_entries(entries, root, &tera_ctx)?,
                    root.clone(),
                ),
            ))
        })
        .collect::<Result<_>>()?;
    let task_inputs = ResolvedTaskInputs {
        global_inputs,
        input_groups,
    };
    let had_sources = !task.sources.is_empty();
    let mut sources = expand_task_inputs(
        &task.sources,
        &task_inputs,
        Path::new(""),
        &task.name,
        &mut vec![],
        false,
    )?;
    if let Some((global_inputs, root)) = &task_inputs.global_inputs {
        sources.extend(expand_task_inputs(
            global_inputs,
            &task_inputs,
            root,
            &task.name,
            &mut vec![],
            true,
        )?);
    }

    task.sources = sources;
    if !had_sources && !task.sources.is_empty() && task.outputs.is_empty() {
        task.outputs = TaskOutputs::Auto;
    }
    Ok(())
}

/// Whether a process that requires explicit trust would accept every file task in the default
/// task directories (`mise-tasks`, `.mise/tasks`, ...) from `start` up, leaving out the global
/// ones. A trusted config in the same directory vouches for them, as trust of the directory
/// does; otherwise each file needs trust of its own, which is how paranoid mode records it.
pub(crate) fn default_task_dirs_trusted_from(start: &Path) -> bool {
    all_dirs_from(start).unwrap_or_default().iter().all(|dir| {
        let task_dirs = default_task_includes()
            .iter()
            .map(|include| dir.join(include))
            .filter(|path| path.is_dir() && !is_global_task_include_path(path))
            .collect::<Vec<_>>();
        task_dirs.is_empty()
            || config_file::is_trusted(dir)
            || config_files_in_dir(dir)
                .iter()
                .any(|path| !is_global_config(path) && is_path_trusted(path))
            || task_dirs.iter().all(|task_dir| {
                // the files the task loader reads: TOML and executables
                collect_task_files(task_dir, &[]).is_ok_and(|files| {
                    files
                        .iter()
                        .filter(|file| {
                            file.extension().is_some_and(|ext| ext == "toml")
                                || file::is_executable(file)
                        })
                        .all(|file| is_path_trusted(file))
                })
            })
    })
}

fn default_task_includes() -> Vec<String> {
    vec![
        "mise-tasks".to_string(),
        ".mise-tasks".to_string(),
        ".mise/tasks".to_string(),
        ".config/mise/tasks".to_string(),
        "mise/tasks".to_string(),
    ]
}

/// [`default_task_includes`] for `dir`, without a task directory that sits in
/// a git checkout of its own below `dir`, such as a repository cloned into
/// `dir` as `mise`: that checkout's `tasks/` are its own, not `dir`'s.
fn default_task_includes_for(dir: &Path) -> Vec<String> {
    without_nested_checkouts(dir, default_task_includes())
}

/// `includes` without a task directory that sits in a git checkout of its own
/// below `dir`. See [`default_task_includes_for`].
fn without_nested_checkouts(dir: &Path, includes: Vec<String>) -> Vec<String> {
    includes
        .into_iter()
        .filter(|include| {
            config_file::config_root::checkout_between(dir, &dir.join(include)).is_none()
        })
        .collect()
}

/// The default task directories of the user-global scope.
///
/// With a global config file, these are the default task directories at
/// `MISE_GLOBAL_CONFIG_ROOT` plus `$MISE_CONFIG_DIR/tasks`, which
/// `.config/mise/tasks` covers only when the config directory is the default
/// `~/.config/mise`. Without one, only `$MISE_CONFIG_DIR/tasks` is global: the
/// other directories at that root belong to the local walk, which applies the
/// `task_config` of a config there such as `~/mise.toml`.
fn user_global_task_includes(has_config: bool) -> Vec<String> {
    let global_tasks = dirs::CONFIG.join("tasks");
    // The path is a literal directory, so escape any glob metacharacters in it.
    let global_include = glob::Pattern::escape(&global_tasks.to_string_lossy());
    if !has_config {
        return vec![global_include];
    }
    let mut includes = default_task_includes();
    if global_tasks != env::MISE_GLOBAL_CONFIG_ROOT.join(".config/mise/tasks") {
        includes.push(global_include);
    }
    includes
}

/// Whether a loaded task comes from config the user trusts, by the rules the task loader uses:
/// global and system config are the user's own, a task from a remote include was named by a
/// config that had to be trusted, a trusted project config vouches for the task files of its
/// config root, and a task file can be trusted on its own. A task from a tasks-only
/// `mise.toml` or a bare `mise-tasks` directory nobody trusted is none of these: it loads
/// because it is inert until someone names it, as `mise run <task>` does.
///
/// Those exemptions are for the file that defines the task. Every other file that added to it
/// (`additional_config_sources`: a metadata overlay such as `env` or `depends`, a template) has
/// to be trusted on its own: a config folder fragment is a trust root of its own, so a
/// tasks-only one nobody trusted could otherwise change a trusted task's environment.
pub fn task_is_trusted(config: &Config, task: &Task) -> bool {
    let source_is_trusted = |path: &Path| {
        is_global_config(path) || is_global_task_include_path(path) || is_path_trusted(path)
    };
    let base_is_trusted = task.remote_include.is_some()
        || source_is_trusted(&task.config_source)
        || config.config_files.iter().any(|(path, cf)| {
            // the global config root is also the root of a project config placed directly in
            // `$HOME`, which it does not vouch for
            !is_global_config(path)
                && task.config_root.as_deref() == Some(cf.config_root().as_path())
                && is_path_trusted(path)
        });
    base_is_trusted
        && task
            .additional_config_sources
            .iter()
            .all(|path| source_is_trusted(path))
}

static ONLY_TRUSTED_TASKS: AtomicBool = AtomicBool::new(false);

/// Makes the task executor refuse, from now on in this process, any task [`task_is_trusted`]
/// rejects. For a command that runs a task nobody named, such as `mise bootstrap`.
pub fn run_only_trusted_tasks() {
    ONLY_TRUSTED_TASKS.store(true, Ordering::Relaxed);
}

/// Whether the task executor refuses tasks from untrusted config: after
/// [`run_only_trusted_tasks`], and in a process that requires explicit trust, which has no typed
/// `mise run` behind it.
pub(crate) fn runs_only_trusted_tasks() -> bool {
    ONLY_TRUSTED_TASKS.load(Ordering::Relaxed) || config_file::requires_explicit_trust()
}

/// The first task that running `roots` would reach and that [`task_is_trusted`] rejects: a
/// root itself, a task in its `depends` or `depends_post` graph, or a task a `run` entry
/// names (`{ task = ... }` or `{ tasks = [...] }`), followed transitively. Names resolve
/// against every loaded task and a name matches every task it could mean, so an untrusted
/// task that could stand in for one of them counts as reached. This is the early answer, before
/// anything runs; a name only the executor can resolve, such as a templated `run` entry, is
/// checked when the executor schedules it (see [`runs_only_trusted_tasks`]). `skip_deps` is the
/// run's own: tasks a `run` entry starts are then followed without their dependencies, as the
/// executor starts them, and so are the roots.
pub async fn untrusted_task_reached(
    config: &Arc<Config>,
    roots: Vec<Task>,
    skip_deps: bool,
) -> Result<Option<Task>> {
    // A task reached with other arguments can depend on other tasks, so it counts again.
    let mut seen: HashSet<(String, Vec<String>)> = HashSet::new();
    let mut pending = roots;
    if skip_deps {
        for task in &mut pending {
            task.depends.clear();
            task.depends_post.clear();
            task.wait_for.clear();
        }
    }
    while !pending.is_empty() {
        let deps =
            crate::task::Deps::new_for_inspection(config, std::mem::take(&mut pending)).await?;
        for task in deps.all() {
            if !task_is_trusted(config, task) {
                return Ok(Some(task.clone()));
            }
            if !seen.insert((task.name.clone(), task.args.clone())) {
                continue;
            }
            // Resolved by the executor's own lookup, so the tasks found here are the ones it
            // would start, with the arguments it would give them.
            for entry in task.run() {
                // The executor renders a templated entry with the task's usage values and
                // environment before it looks the names up. Rendering it here the same way would
                // need that environment, so such an entry is left to the executor, which checks
                // the tasks it resolves before it schedules them or installs their tools.
                if crate::task::RunEntryExt::has_tera_template(entry) {
                    continue;
                }
                let (specs, entry_args) = match entry {
                    RunEntry::Script(_) => (&[][..], None),
                    RunEntry::SingleTask { task, args, .. } => (
                        std::slice::from_ref(task),
                        (!args.is_empty()).then_some(args.as_slice()),
                    ),
                    RunEntry::TaskGroup { tasks } => (tasks.as_slice(), None),
                };
                for spec in specs {
                    let spec = crate::task::resolve_task_pattern(spec, Some(task));
                    // A name that does not resolve as written is left to the executor too.
                    if let Ok(tasks) = crate::task::task_executor::resolve_injected_tasks(
                        config,
                        &[spec],
                        entry_args,
                        skip_deps,
                    )
                    .await
                    {
                        pending.extend(tasks);
                    }
                }
            }
        }
    }
    Ok(None)
}

pub(crate) fn is_global_task_include_path(path: &Path) -> bool {
    [
        dirs::CONFIG.join("tasks"),
        dirs::SYSTEM_CONFIG.join("tasks"),
    ]
    .iter()
    .any(|prefix| file::path_starts_with_resolved(path, prefix))
}

#[async_backtrace::framed]
pub async fn rebuild_shims_and_runtime_symlinks(
    config: &Arc<Config>,
    ts: &Toolset,
    new_versions: &[ToolVersion],
    lockfile_update_mode: lockfile::LockfileUpdateMode,
) -> Result<()> {
    let changed_install_paths = new_versions
        .iter()
        .map(ToolVersion::install_path)
        .collect::<Vec<_>>();
    rebuild_shims_and_runtime_symlinks_for_changes(
        config,
        ts,
        new_versions,
        &changed_install_paths,
        lockfile_update_mode,
    )
    .await?;
    generate_lockfiles_after_changes(config, new_versions, lockfile_update_mode).await
}

/// Run complete lockfile generation once the shim farm reflects the change.
///
/// `rebuild_shims_and_runtime_symlinks_for_changes` skips the merge-mode
/// lockfile update under `lockfile_mode = "generate"`, so every caller that can
/// change what the lockfile should contain has to run generation itself.
/// Without this, a config-only removal leaves the dropped tool's entry — and the
/// dependency sidecar it references — behind until the next install regenerates.
///
/// Call this only when the configuration actually changed. Generation resolves
/// and rewrites, so running it for a command that turned out to be a no-op would
/// both rewrite an unrelated stale lockfile and let a resolution failure fail a
/// command that had nothing to do.
pub async fn generate_lockfiles_after_changes(
    config: &Arc<Config>,
    new_versions: &[ToolVersion],
    lockfile_update_mode: lockfile::LockfileUpdateMode,
) -> Result<()> {
    if Settings::get().generate_lockfiles()
        && Settings::get().lockfile_enabled()
        && (!Settings::get().locked
            || lockfile_update_mode == lockfile::LockfileUpdateMode::AllowLocked)
    {
        lockfile::generate::ensure_install_succeeded()?;
        Box::pin(crate::frontend::generate_lockfiles_after_install(
            config.clone(),
            new_versions,
        ))
        .await?;
    }
    Ok(())
}

/// Reconcile runtime links and shim farms after versions have been removed.
/// Removed versions determine which physical farm changed, but are not passed
/// to lockfile update logic as newly installed versions.
pub async fn rebuild_shims_and_runtime_symlinks_after_removal(
    config: &Arc<Config>,
    ts: &Toolset,
    removed_install_paths: &[PathBuf],
) -> Result<()> {
    rebuild_shims_and_runtime_symlinks_for_changes(
        config,
        ts,
        &[],
        removed_install_paths,
        lockfile::LockfileUpdateMode::Normal,
    )
    .await
}

/// Reconcile a shim farm after a configuration-only change, where there is no
/// installed or removed tool path from which to infer ownership.
pub async fn rebuild_shims_and_runtime_symlinks_for_scope(
    config: &Arc<Config>,
    ts: &Toolset,
    scope: shims::ShimScope,
) -> Result<()> {
    let system_installs = Settings::get().system_installs_dir().to_path_buf();
    let changed_install_paths = match scope {
        shims::ShimScope::User => vec![dirs::INSTALLS.to_path_buf()],
        shims::ShimScope::System => vec![system_installs],
        shims::ShimScope::Both => vec![dirs::INSTALLS.to_path_buf(), system_installs],
    };
    rebuild_shims_and_runtime_symlinks_for_changes(
        config,
        ts,
        &[],
        &changed_install_paths,
        lockfile::LockfileUpdateMode::Normal,
    )
    .await
}

async fn rebuild_shims_and_runtime_symlinks_for_changes(
    config: &Arc<Config>,
    ts: &Toolset,
    new_versions: &[ToolVersion],
    changed_install_paths: &[PathBuf],
    lockfile_update_mode: lockfile::LockfileUpdateMode,
) -> Result<()> {
    measure!("rebuilding runtime symlinks", {
        runtime_symlinks::rebuild_for_toolset(config, ts)
            .await
            .wrap_err("failed to rebuild runtime symlinks")?;
    });
    measure!("rebuilding shims", {
        let system_installs = Settings::get().system_installs_dir().to_path_buf();
        let installs_collocated = file::storage_paths_eq(&system_installs, &dirs::INSTALLS);
        let system_changed = installs_collocated
            || changed_install_paths
                .iter()
                .any(|path| path.starts_with(&system_installs));
        let user_changed = installs_collocated
            || changed_install_paths.is_empty()
            || changed_install_paths
                .iter()
                .any(|path| !path.starts_with(&system_installs));
        if user_changed {
            shims::reshim_for(config, ts, false, shims::ShimScope::User)
                .await
                .wrap_err("failed to rebuild user shims")?;
        }
        if system_changed {
            shims::reshim_for(config, ts, false, shims::ShimScope::System)
                .await
                .wrap_err("failed to rebuild system shims")?;
        }
    });
    if Settings::get().generate_lockfiles() {
        return Ok(());
    }
    lockfile::migrate_monorepo_lockfiles(config, false)?;
    // Snapshot the lockfiles' platform keys BEFORE update_lockfiles writes
    // current-platform entries — auto-lock uses this to tell a curated lockfile
    // (existing entries are authoritative) from a fresh one (expand to common).
    let pre_install_platforms = if new_versions.is_empty() {
        Default::default()
    } else {
        lockfile::snapshot_pre_install_platforms(config, ts, new_versions)
    };
    let has_deferred_provenance = measure!("updating lockfiles", {
        lockfile::update_lockfiles(config, ts, new_versions, lockfile_update_mode)
            .wrap_err("failed to update lockfiles")?
    });
    if !new_versions.is_empty() || has_deferred_provenance {
        measure!("auto-locking platforms", {
            lockfile::auto_lock_new_versions(
                config,
                ts,
                new_versions,
                &pre_install_platforms,
                lockfile_update_mode,
            )
            .await
            .wrap_err("failed to auto-lock platforms")?;
        });
    }

    Ok(())
}

fn prefix_monorepo_task_names(tasks: &mut [Task], dir: &Path, monorepo_root: &Path) {
    if let Some(scope) = monorepo_scope(monorepo_root, dir) {
        for task in tasks.iter_mut() {
            task.name = format!("{scope}:{}", task.name);
        }
    }
}

async fn inferred_workspace_tasks(
    config: &Arc<Config>,
    task_definitions: &TaskDefinitions,
    graph: &crate::task::workspace::WorkspaceProjectGraph,
    providers: &BTreeSet<String>,
) -> Vec<Task> {
    let Some(monorepo_root) = config.monorepo_root() else {
        return Vec::new();
    };
    let mut tasks = Vec::new();

    for project in graph.projects().filter(|project| {
        project
            .id
            .as_str()
            .split_once(':')
            .is_some_and(|(provider, _)| providers.contains(provider))
    }) {
        let project_root = monorepo_root.join(&project.root);
        let path_scope = monorepo_scope(&monorepo_root, &project_root);
        for (name, inferred) in &project.tasks {
            let aliases = path_scope
                .as_ref()
                .map(|scope| vec![format!("{scope}:{name}")])
                .unwrap_or_default();
            let mut task = Task {
                name: format!("{}#{name}", project.id),
                description: inferred.description.clone(),
                aliases,
                config_source: monorepo_root.join(&inferred.source),
                config_root: Some(project_root.clone()),
                raw_args: true,
                run: vec![RunEntry::Script(inferred.command.clone())],
                ..Default::default()
            };
            inferred.suggestions.apply_before_defaults(&mut task);
            if let Err(err) = resolve_task_template(&mut task, task_definitions) {
                warn!(
                    "Failed to resolve inferred task {} in {}: {err:#}. Task will not be available.",
                    task.name,
                    display_path(&task.config_source)
                );
                continue;
            }
            inferred.suggestions.apply_after_defaults(&mut task);
            // `render` leaves a broken `dir` template raw, but an inferred task is not
            // user-authored, so drop it instead of failing later.
            let rendered = match task.render(config, &project_root).await {
                Ok(()) => task.dir(config).await.map(|_| ()),
                Err(err) => Err(err),
            };
            if let Err(err) = rendered {
                warn!(
                    "Failed to render inferred task {} in {}: {err:#}. Task will not be available.",
                    task.name,
                    display_path(&task.config_source)
                );
                continue;
            }
            tasks.push(task);
        }
    }

    tasks
}

/// Monorepo roots that enclose the selected one.
///
/// This happens when a git worktree is checked out inside the main checkout
/// (`<repo>/.worktrees/<name>`) and both configs set `monorepo_root = true`:
/// [`find_monorepo_config`] selects the nested root, but the enclosing one is still
/// an ancestor config.
fn enclosing_monorepo_roots(config_files: &ConfigMap, selected_root: &Path) -> Vec<PathBuf> {
    config_files
        .values()
        .filter_map(|cf| cf.project_root())
        .unique()
        .filter_map(|root| resolve_monorepo_config_at_root(&root, config_files).map(|c| c.root))
        .filter(|root| {
            !file::same_file(root, selected_root)
                && file::path_starts_with_resolved(selected_root, root)
        })
        .collect()
}

/// Whether a directory's tasks belong to an enclosing monorepo rather than the
/// selected one.
///
/// Such tasks are a *different* monorepo's task set, not a parent namespace of the
/// selected root, so loading them would put them outside the selected root's `//`
/// namespace — e.g. `build` next to `//:build` from another checkout of the same repo.
/// Directories above the enclosing root (`$HOME`, global config) are unaffected and
/// keep inheriting normally.
///
/// Prefix checks go through [`file::path_starts_with_resolved`] because `dir` comes from the
/// cwd walk while the roots come from a config's `project_root`, and those can be
/// different symlink spellings of the same path (e.g. Fedora Atomic's `/home` ->
/// `/var/home`) when a task's config hierarchy was loaded from another directory.
/// The empty-`enclosing_roots` early return keeps the non-nested case — every monorepo
/// that isn't checked out inside another one — free of the resolved fallback's syscalls.
fn dir_is_in_enclosing_monorepo(
    dir: &Path,
    selected_root: &Path,
    enclosing_roots: &[PathBuf],
) -> bool {
    if enclosing_roots.is_empty() {
        return false;
    }
    enclosing_roots
        .iter()
        .any(|enclosing| file::path_starts_with_resolved(dir, enclosing))
        && !file::path_starts_with_resolved(dir, selected_root)
}

async fn load_local_tasks_with_context(
    config: &Arc<Config>,
    ctx: Option<&crate::task::TaskLoadContext>,
    templates: &TaskDefinitions,
) -> Result<Vec<Task>> {
    let mut tasks = vec![];
    let monorepo_config = find_monorepo_config(&config.config_files);
    let monorepo_root = monorepo_config.as_ref().map(|config| config.root.clone());

    // Load tasks from parent directories (current working directory up to root)

    let local_config_files = config
        .config_files
        .iter()
        .filter(|(_, cf)| !is_global_config(cf.get_path()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect::<IndexMap<_, _>>();
    let enclosing_roots = monorepo_root
        .as_deref()
        .map(|root| enclosing_monorepo_roots(&config.config_files, root))
        .unwrap_or_default();
    for d in all_dirs()? {
        if mise_util::testing::in_tests() && !d.starts_with(*dirs::HOME) {
            continue;
        }
        if let Some(ref monorepo_root) = monorepo_root
            && dir_is_in_enclosing_monorepo(&d, monorepo_root, &enclosing_roots)
        {
            trace!(
                "skipping tasks in {}: belongs to a monorepo enclosing {}",
                display_path(&d),
                display_path(monorepo_root)
            );
            continue;
        }
        let mut dir_tasks =
            load_tasks_in_dir_with_definitions(config, &d, &local_config_files, templates).await?;

        if let Some(ref monorepo_root) = monorepo_root {
            prefix_monorepo_task_names(&mut dir_tasks, &d, monorepo_root);
        }

        tasks.extend(dir_tasks);
    }

    // Determine if we should load monorepo tasks from subdirectories
    // We should load subdirs if:
    // 1. load_all is true (--all flag or wildcard patterns like //...:task)
    // 2. OR we have specific path_hints (patterns like //foo/bar:task)
    let should_load_subdirs = ctx.is_some_and(|c| c.load_all || !c.path_hints.is_empty());

    // If in a monorepo, also discover and load tasks from subdirectories
    if let Some(monorepo_root) = &monorepo_root {
        // By default, only load tasks from current directory hierarchy (already loaded above)
        // With --all flag or path hints, also load tasks from matching subdirectories
        if !should_load_subdirs {
            // Default: don't load any additional monorepo subdirs (they're not in our hierarchy)
            return Ok(tasks);
        }

        // Get config_roots from [monorepo] section if defined
        let config_roots = monorepo_config
            .as_ref()
            .and_then(|config| config.monorepo.config_roots.as_ref());
        let subdirs = discover_monorepo_subdirs(monorepo_root, config_roots, ctx)?;

        // Load tasks from subdirectories in parallel
        let subdir_tasks_futures: Vec<_> = subdirs
            .into_iter()
            .filter(|subdir| !mise_util::testing::in_tests() || subdir.starts_with(*dirs::HOME))
            .map(|subdir| {
                let config = config.clone();
                let monorepo_root = monorepo_root.clone();
                let templates = templates.clone();
                async move {
                    let exact_config_paths = config_paths_in_dir(&subdir);
                    let found_config = !exact_config_paths.is_empty();
                    let mut seen_config_paths = std::collections::HashSet::new();
                    let mut hierarchy_configs = config
                        .config_files
                        .iter()
                        .filter(|(_, cf)| {
                            let root = cf.config_root();
                            file::path_starts_with_resolved(&root, &monorepo_root)
                                && file::path_starts_with_resolved(&subdir, &root)
                        })
                        .filter(|(path, _)| {
                            seen_config_paths.insert(file::desymlink_path(path))
                        })
                        .map(|(path, cf)| (path.clone(), cf.clone()))
                        .collect::<ConfigMap>();
                    let mut hierarchy_dirs = subdir
                        .ancestors()
                        .take_while(|dir| {
                            file::path_starts_with_resolved(dir, &monorepo_root)
                        })
                        .map(Path::to_path_buf)
                        .collect::<Vec<_>>();
                    hierarchy_dirs.reverse();
                    for hierarchy_dir in hierarchy_dirs {
                        for config_path in config_paths_in_dir(&hierarchy_dir) {
                            if !seen_config_paths.insert(file::desymlink_path(&config_path)) {
                                continue;
                            }
                            match config_file::parse(&config_path).await {
                                Ok(cf) => {
                                    hierarchy_configs.insert(config_path, cf);
                                }
                                Err(err) => {
                                    let rel_path = hierarchy_dir
                                        .strip_prefix(&monorepo_root)
                                        .unwrap_or(&hierarchy_dir);
                                    warn!(
                                        "Failed to parse config file {} in monorepo directory {}: {}. Cascaded task configuration from this directory will be ignored.",
                                        config_path.display(),
                                        rel_path.display(),
                                        err
                                    );
                                }
                            }
                        }
                    }
                    let configs = configs_at_root(&subdir, &hierarchy_configs);
                    let cascaded_task_config =
                        cascaded_task_config_for_dir(&subdir, &hierarchy_configs)?;

                    if found_config {
                        if configs.is_empty() {
                            return Ok(vec![]);
                        }
                        let mut tasks = load_tasks_from_configs(
                            &config,
                            &subdir,
                            configs,
                            &templates,
                            true,
                            cascaded_task_config.as_ref(),
                        )
                        .await?;
                        prefix_monorepo_task_names(&mut tasks, &subdir, &monorepo_root);
                        return Ok(tasks);
                    }

                    // If no config file exists, load file tasks with any task
                    // configuration cascaded from the monorepo root.
                    let mut tasks = load_tasks_from_configs(
                        &config,
                        &subdir,
                        vec![],
                        &templates,
                        true,
                        cascaded_task_config.as_ref(),
                    )
                    .await?;
                    prefix_monorepo_task_names(&mut tasks, &subdir, &monorepo_root);
                    Ok::<Vec<Task>, eyre::Report>(tasks)
                }
            })
            .collect();

        // Wait for all subdirectory tasks to load
        use tokio::task::JoinSet;
        let mut join_set = JoinSet::new();
        for future in subdir_tasks_futures {
            join_set.spawn(future);
        }

        while let Some(result) = join_set.join_next().await {
            tasks.extend(result??);
        }
    }

    Ok(tasks)
}

/// Expand [monorepo].config_roots patterns to actual directories.
/// Supports explicit paths and single-level globs (*).
/// Recursive globs (**) are not supported.
fn expand_config_roots(
    root: &Path,
    patterns: &[String],
    ctx: Option<&crate::task::TaskLoadContext>,
) -> Result<Vec<PathBuf>> {
    expand_config_roots_with_filenames(root, patterns, ctx, &DEFAULT_CONFIG_FILENAMES)
}

fn expand_config_root_dirs(
    root: &Path,
    patterns: &[String],
    ctx: Option<&crate::task::TaskLoadContext>,
) -> Result<Vec<PathBuf>> {
    expand_config_roots_inner(root, patterns, ctx, None)
}

fn expand_config_roots_with_filenames(
    root: &Path,
    patterns: &[String],
    ctx: Option<&crate::task::TaskLoadContext>,
    filenames: &[String],
) -> Result<Vec<PathBuf>> {
    expand_config_roots_inner(root, patterns, ctx, Some(filenames))
}

fn expand_config_roots_inner(
    root: &Path,
    patterns: &[String],
    ctx: Option<&crate::task::TaskLoadContext>,
    filenames: Option<&[String]>,
) -> Result<Vec<PathBuf>> {
    expand_config_roots_inner_for("monorepo", root, patterns, ctx, filenames, false)
}

/// Expands bootstrap root patterns using the normal mise config filenames.
fn expand_bootstrap_config_roots(root: &Path, patterns: &[String]) -> Result<Vec<PathBuf>> {
    expand_config_roots_inner_for(
        "bootstrap",
        root,
        patterns,
        None,
        Some(&DEFAULT_CONFIG_FILENAMES),
        true,
    )
}

/// Expands safe, single-level config-root patterns for a named config section.
fn expand_config_roots_inner_for(
    section: &str,
    root: &Path,
    patterns: &[String],
    ctx: Option<&crate::task::TaskLoadContext>,
    filenames: Option<&[String]>,
    canonicalize_results: bool,
) -> Result<Vec<PathBuf>> {
    let mut subdirs = Vec::new();
    let canonical_root = match root.canonicalize() {
        Ok(root) => root,
        Err(err) => {
            warn!(
                "[{section}].config_roots: failed to resolve config root {}: {err}",
                root.display()
            );
            return Ok(subdirs);
        }
    };

    for pattern in patterns {
        // Reject absolute paths and parent directory escapes.
        if Path::new(pattern).components().any(|component| {
            matches!(
                component,
                Component::ParentDir | Component::RootDir | Component::Prefix(_)
            )
        }) {
            warn!(
                "[{section}].config_roots: '{}' must be a relative path within the config root",
                pattern
            );
            continue;
        }

        // Reject recursive glob patterns (**)
        if pattern.contains("**") {
            warn!(
                "[{section}].config_roots: recursive glob '**' not supported in '{}', use single-level '*' instead",
                pattern
            );
            continue;
        }

        if pattern.contains('*') {
            // Single-level glob expansion
            let full_pattern = root.join(pattern);
            match glob::glob(&full_pattern.to_string_lossy()) {
                Ok(entries) => {
                    for entry in entries {
                        match entry {
                            Ok(path) => {
                                let canonical = match path.canonicalize() {
                                    Ok(path) => path,
                                    Err(err) => {
                                        warn!(
                                            "[{section}].config_roots: failed to resolve glob match {}: {err}",
                                            path.display()
                                        );
                                        continue;
                                    }
                                };
                                if !canonical.starts_with(&canonical_root) {
                                    warn!(
                                        "[{section}].config_roots: glob matched path outside config root: {}",
                                        path.display()
                                    );
                                    continue;
                                }
                                if canonical.is_dir()
                                    && filenames.is_none_or(|filenames| {
                                        has_mise_config_with_filenames(&canonical, filenames)
                                    })
                                {
                                    subdirs.push(if canonicalize_results {
                                        canonical
                                    } else {
                                        path
                                    });
                                }
                            }
                            Err(e) => {
                                warn!("[{section}].config_roots glob error: {e}");
                            }
                        }
                    }
                }
                Err(e) => {
                    warn!("[{section}].config_roots invalid glob pattern '{pattern}': {e}");
                }
            }
        } else {
            // Explicit path
            let path = root.join(pattern);
            let canonical = match path.canonicalize() {
                Ok(path) => path,
                Err(_) => {
                    warn!("[{section}].config_roots: '{}' does not exist", pattern);
                    continue;
                }
            };
            if !canonical.starts_with(&canonical_root) {
                warn!(
                    "[{section}].config_roots: '{}' resolves outside config root",
                    pattern
                );
                continue;
            }
            if canonical.is_dir() {
                if filenames
                    .is_none_or(|filenames| has_mise_config_with_filenames(&canonical, filenames))
                {
                    subdirs.push(if canonicalize_results {
                        canonical
                    } else {
                        path
                    });
                } else {
                    warn!(
                        "[{section}].config_roots: '{}' has no mise config file",
                        pattern
                    );
                }
            } else {
                warn!("[{section}].config_roots: '{}' is not a directory", pattern);
            }
        }
    }

    // Apply TaskLoadContext filtering if provided
    if let Some(ctx) = ctx {
        subdirs.retain(|dir| {
            let rel_path = dir
                .strip_prefix(root)
                .ok()
                .and_then(|p| p.to_str())
                .unwrap_or("");
            ctx.should_load_subdir(rel_path, root.to_str().unwrap_or(""))
        });
    }

    Ok(subdirs)
}

fn has_mise_config_with_filenames(dir: &Path, filenames: &[String]) -> bool {
    has_config_file_with_filenames(dir, filenames)
        || dir.join(".mise/tasks").is_dir()
        || dir.join("mise-tasks").is_dir()
}

fn has_config_file_with_filenames(dir: &Path, filenames: &[String]) -> bool {
    filenames.iter().any(|f| {
        if is_glob_pattern(f) {
            !load_config_glob(dir, f).is_empty()
        } else {
            dir.join(f).is_file()
        }
    })
}

fn discover_monorepo_subdirs(
    root: &Path,
    config_roots: Option<&Vec<String>>,
    ctx: Option<&crate::task::TaskLoadContext>,
) -> Result<Vec<PathBuf>> {
    // If [monorepo].config_roots is defined, use explicit paths instead of walking
    if let Some(patterns) = config_roots
        && !patterns.is_empty()
    {
        return expand_config_roots(root, patterns, ctx);
    }

    // Fall back to filesystem walking (deprecated)
    deprecated!(
        "monorepo_auto_discovery",
        "Automatic monorepo discovery is deprecated. \
         Please define [monorepo].config_roots in your root mise.toml. \
         See https://mise.jdx.dev/tasks/monorepo.html#explicit-config-roots"
    );
    const DEFAULT_IGNORED_DIRS: &[&str] = &["node_modules", "target", "dist", "build"];
    let has_task_includes = |dir: &Path| {
        default_task_includes()
            .into_iter()
            .any(|include| dir.join(include).exists())
    };

    let mut subdirs = Vec::new();
    let settings = Settings::get();
    let respect_gitignore = settings.task.monorepo_respect_gitignore;
    let max_depth = settings.task.monorepo_depth as usize;

    // Build the list of excluded directories
    // If user defined custom exclude dirs, use only those, otherwise use defaults
    let excluded_dirs: Vec<&str> = if settings.task.monorepo_exclude_dirs.is_empty() {
        DEFAULT_IGNORED_DIRS.to_vec()
    } else {
        settings
            .task
            .monorepo_exclude_dirs
            .iter()
            .map(|s| s.as_str())
            .collect()
    };

    if respect_gitignore {
        // Use the `ignore` crate which respects .gitignore files
        let walker = ignore::WalkBuilder::new(root)
            .max_depth(Some(max_depth))
            .hidden(true) // Skip hidden files/dirs
            .git_ignore(true) // Respect .gitignore
            .git_global(true) // Respect global .gitignore
            .git_exclude(true) // Respect .git/info/exclude
            .require_git(false) // Don't require a git repo
            .build();

        for entry in walker {
            let entry = entry?;
            if entry.file_type().map(|ft| ft.is_dir()).unwrap_or(false) {
                let dir = entry.path();

                // Skip if depth is 0 (root itself)
                if dir == root {
                    continue;
                }

                // Check against excluded directories
                let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if excluded_dirs.contains(&name) {
                    continue;
                }

                // Check if this directory has a mise config file
                let has_config = has_config_file_with_filenames(dir, &DEFAULT_CONFIG_FILENAMES);
                let has_task_includes = has_task_includes(dir);
                if has_config || has_task_includes {
                    // Apply context filtering if provided
                    if let Some(ctx) = ctx {
                        let rel_path = dir
                            .strip_prefix(root)
                            .ok()
                            .and_then(|p| p.to_str())
                            .unwrap_or("");
                        if ctx.should_load_subdir(rel_path, root.to_str().unwrap_or("")) {
                            subdirs.push(dir.to_path_buf());
                        }
                    } else {
                        subdirs.push(dir.to_path_buf());
                    }
                }
            }
        }
    } else {
        // Fall back to WalkDir for non-gitignore-aware walking
        for entry in WalkDir::new(root)
            .min_depth(1)
            .max_depth(max_depth)
            .into_iter()
            .filter_entry(|e| {
                // Skip hidden directories and excluded patterns
                let name = e.file_name().to_string_lossy();
                !name.starts_with('.') && !excluded_dirs.contains(&name.as_ref())
            })
        {
            let entry = entry?;
            if entry.file_type().is_dir() {
                let dir = entry.path();
                // Check if this directory has a mise config file
                let has_config = has_config_file_with_filenames(dir, &DEFAULT_CONFIG_FILENAMES);
                let has_task_includes = has_task_includes(dir);
                if has_config || has_task_includes {
                    // Apply context filtering if provided
                    if let Some(ctx) = ctx {
                        let rel_path = dir
                            .strip_prefix(root)
                            .ok()
                            .and_then(|p| p.to_str())
                            .unwrap_or("");
                        if ctx.should_load_subdir(rel_path, root.to_str().unwrap_or("")) {
                            subdirs.push(dir.to_path_buf());
                        }
                    } else {
                        subdirs.push(dir.to_path_buf());
                    }
                }
            }
        }
    }

    Ok(subdirs)
}

/// The tasks of the override, local and global scopes, in that order, which is highest
/// precedence first. A global task that local loading also found is kept only once, as global.
async fn load_scoped_tasks(
    config: &Arc<Config>,
    ctx: Option<&crate::task::TaskLoadContext>,
    task_definitions: &TaskDefinitions,
) -> Result<Vec<Task>> {
    let mut local_tasks = load_local_tasks_with_context(config, ctx, task_definitions).await?;
    let global_tasks = load_global_tasks(config, task_definitions).await?;
    let override_tasks = load_override_tasks(config, task_definitions).await?;
    local_tasks.retain(|local| {
        !global_tasks
            .iter()
            .any(|global| tasks_have_same_source(local, global))
    });
    Ok(override_tasks
        .into_iter()
        .chain(local_tasks)
        .chain(global_tasks)
        .collect())
}

async fn load_global_tasks(config: &Arc<Config>, templates: &TaskDefinitions) -> Result<Vec<Task>> {
    load_tasks_from_scopes(
        config,
        templates,
        [
            (true, global_config_files()),
            (false, system_config_files()),
        ],
        false,
    )
    .await
}

/// Tasks from the global override files. They outrank project tasks of the same name,
/// so the caller layers them above local tasks instead of with the other global ones.
async fn load_override_tasks(
    config: &Arc<Config>,
    templates: &TaskDefinitions,
) -> Result<Vec<Task>> {
    let files = override_config_files();
    if files.is_empty() {
        return Ok(vec![]);
    }
    load_tasks_from_scopes(config, templates, [(false, files)], true).await
}

async fn load_tasks_from_scopes(
    config: &Arc<Config>,
    templates: &TaskDefinitions,
    scopes: impl IntoIterator<Item = (bool, IndexSet<PathBuf>)>,
    // The override tier holds only what its files declare or include. Task folders such
    // as `~/.config/mise/tasks` belong to the ordinary global scope.
    no_default_includes: bool,
) -> Result<Vec<Task>> {
    // Compose user-global and system configs as separate scopes so task_config
    // fields follow the same override semantics as local config files. Load the
    // user scope first so a user task replaces a same-named system task without
    // inheriting metadata from it.
    let mut seen_configs = BTreeSet::new();
    let mut config_groups = vec![];
    for (user_scope, config_paths) in scopes {
        let configs = config_paths
            .iter()
            .rev()
            .filter_map(|path| {
                config.config_files.get(path).or_else(|| {
                    let path = file::desymlink_path(path);
                    config
                        .config_files
                        .iter()
                        .find(|(loaded, _)| file::desymlink_path(loaded) == path)
                        .map(|(_, cf)| cf)
                })
            })
            .filter(|cf| seen_configs.insert(file::desymlink_path(cf.get_path())))
            .collect::<Vec<_>>();
        // `$MISE_CONFIG_DIR/tasks` holds global tasks even when no global
        // config file exists.
        if user_scope {
            let default_includes = user_global_task_includes(!configs.is_empty());
            config_groups.push((configs, Some(default_includes)));
        } else if !configs.is_empty() {
            config_groups.push((configs, no_default_includes.then(Vec::new)));
        }
    }

    // Aggregate the user and system scopes high-to-low. Each scope has already
    // composed its file and inline tasks, so precedence between scopes is a
    // simple first-wins replacement by task name.
    let mut tasks: IndexMap<String, Task> = IndexMap::new();
    let mut rendered_file_tasks = RenderedTaskCache::default();
    for (configs, default_includes) in config_groups {
        let mut scope_tasks = load_tasks_from_configs_and_folders(
            config,
            &env::MISE_GLOBAL_CONFIG_ROOT,
            configs,
            templates,
            TaskSourceOptions {
                rendered_file_tasks: Some(&mut rendered_file_tasks),
                default_includes,
                ..Default::default()
            },
        )
        .await?;
        rendered_file_tasks.finish_config();
        // A global config marks its tasks global. Without one, the scope's
        // task directory still holds global tasks.
        mark_tasks_as_global(&mut scope_tasks);
        for task in scope_tasks {
            tasks.entry(task.name.clone()).or_insert(task);
        }
    }
    Ok(tasks.into_values().collect())
}

/// Combine file tasks (auto-discovered executable scripts and included TOML
/// files) with inline `[tasks.*]` blocks.
///
/// `config_tasks` are collected in config-file precedence order (highest first).
/// When a name appears in both an executable script task and an inline block
/// with no command, the script stays as the base and the TOML block is overlaid
/// via [`Task::merge_toml_overlay`]. An inline block replaces a same-named task
/// from an included TOML file. When the same name appears in multiple inline blocks
/// (e.g. `mise.toml` and `mise.local.toml`), the highest-precedence block wins.
/// If that block has no command, it overlays the nearest lower-precedence
/// command-bearing block; definitions below that selected base are skipped.
/// When the same name appears in more than one file task (e.g. a local
/// `.mise/tasks` script and a same-named task from a `git::` include), the last
/// one wins. Callers load `file_tasks` in declared `task_config.includes`
/// order, so the later include in the list takes precedence — see
/// `load_tasks_in_dir`.
///
/// An executable file task's name keeps the script's extension (`hello.sh`), so
/// a block naming the extension-stripped form (`[tasks.hello]` for
/// `mise-tasks/hello.sh`) has no exact match. When such a block carries no
/// command and no dependencies of its own, it overlays the file task it names
/// rather than becoming a separate task — see `stripped_name_overlay_targets`.
///
/// A block naming a script exactly and declaring a command of its own replaces
/// it, rather than overlaying metadata onto a script that would still be what
/// runs. Like an included TOML task, a script only yields to a block from the
/// config whose `task_config.includes` selected it or a higher-precedence one;
/// a block below that still only overlays its metadata.
fn merge_file_and_config_tasks(file_tasks: Vec<Task>, config_tasks: Vec<Task>) -> Vec<Task> {
    let mut by_name: IndexMap<String, Task> = IndexMap::new();
    for t in prefer_windows_file_task_siblings(file_tasks) {
        by_name.insert(t.name.clone(), t);
    }
    // Names an inline block gives a `run`/`run_windows`/`file` command to, each
    // with the highest precedence that names it. Such a name is a task in its
    // own right, so blocks carrying it layer onto that task rather than onto a
    // same-stem script.
    let mut inline_command_precedence: IndexMap<String, usize> = IndexMap::new();
    for t in config_tasks
        .iter()
        .filter(|t| !t.run.is_empty() || !t.run_windows.is_empty() || t.file.is_some())
    {
        let precedence = inline_command_precedence
            .entry(t.name.clone())
            .or_insert(t.config_precedence);
        *precedence = (*precedence).min(t.config_precedence);
    }
    let ScriptClaims {
        claimed: claimed_scripts,
        refused: refused_stems,
    } = claim_scripts_for_inline_commands(&mut by_name, &inline_command_precedence);
    // The block that overlays each file task, held until after the loop.
    //
    // A script takes only its highest-precedence definition: lower ones
    // contribute nothing, not even additive fields like `env` or `alias`
    // (#11103). `config_tasks` is ordered highest precedence first, so the
    // first block to claim a script keeps it, and because `[tasks.hello]` and
    // `[tasks."hello.sh"]` name one script they compete for that one slot
    // rather than both applying.
    let mut file_task_overlays: IndexMap<String, Task> = IndexMap::new();
    let mut seen_config_task_names = BTreeSet::new();
    let mut pending_inline_overlays: IndexMap<String, Vec<Task>> = IndexMap::new();
    for mut t in config_tasks {
        // A block spelling a script an inline command has claimed names a task
        // that no longer exists under that spelling, so read it as naming the
        // block that claimed it -- `[tasks."hello.sh"]` still configures what
        // `[tasks.hello] run = ...` now runs. That holds for a second command
        // too: two spellings of one script are one definition, so the lower one
        // loses the slot rather than standing up a task beside it.
        if !by_name.contains_key(&t.name)
            && let Some(owner) = claimed_scripts.get(&t.name).cloned()
        {
            // A stem can name several scripts, and a command may have claimed
            // only some of them. The rest are still scripts this block
            // configures, so decorate them before the block is read as naming
            // the claimant -- `[tasks.hello]` reaches `hello.js` as well as
            // whatever took `hello.sh` over. A command that reaches here lost
            // the slot, so it contributes nothing either way.
            if owner != t.name && t.run.is_empty() && t.run_windows.is_empty() && t.file.is_none() {
                for name in stripped_name_overlay_targets(&by_name, &t.name) {
                    file_task_overlays.entry(name).or_insert_with(|| t.clone());
                }
            }
            // A block that took a script over under the script's own name
            // (`[tasks."hello.sh"]`) stands in for that file task, so it is
            // listed by the same name the script was: `hello`.
            if owner == t.name && crate::task::strip_task_name_extension(&t.name) != t.name {
                t.name_from_file = true;
            }
            t.name = owner;
        }
        // `[tasks.hello]` and `[tasks."hello.sh"]` are two spellings of one
        // script, so a block naming a file task is an overlay on it whichever
        // spelling it used and whatever fields it carries. Resolving that here,
        // above the duplicate-name bookkeeping, is what lets every layer of
        // both spellings contribute instead of the second one being dropped as
        // a duplicate. Only a block with a command of its own is not an
        // overlay, and only a name some inline block gives a command to is a
        // task of its own that such blocks layer onto instead.
        if t.run.is_empty() && t.run_windows.is_empty() && t.file.is_none() {
            let targets = file_task_overlay_targets(
                &by_name,
                &t.name,
                &inline_command_precedence,
                &refused_stems,
            );
            if !targets.is_empty() {
                for name in targets {
                    file_task_overlays.entry(name).or_insert_with(|| t.clone());
                }
                continue;
            }
        }
        if !seen_config_task_names.insert(t.name.clone()) {
            // A block with only `depends` takes whichever role is left for it.
            // When a command-bearing block of the same name exists it is an
            // overlay on that command, which is the documented inline layering
            // rule and what `[tasks.x] depends` on top of a `[tasks.x] run` in
            // a lower config relies on. When no such block exists it is the
            // base instead: a dependency group runs, so dropping it here left
            // the name a commandless task that `mise run` matched and exited 0.
            let has_command = !t.run.is_empty() || !t.run_windows.is_empty() || t.file.is_some();
            let is_base = has_command
                || (task_has_executable_content(&t)
                    && !inline_command_precedence.contains_key(&t.name));
            if pending_inline_overlays.contains_key(&t.name) && is_base {
                let overlays = pending_inline_overlays
                    .shift_remove(&t.name)
                    .expect("pending inline overlays should be present");
                let mut base = t;
                for overlay in overlays.into_iter().rev() {
                    base.merge_toml_overlay(overlay);
                }
                by_name.insert(base.name.clone(), base);
            } else if let Some(overlays) = pending_inline_overlays.get_mut(&t.name) {
                overlays.push(t);
            }
            continue;
        }
        if let Some(existing) = by_name
            .get_mut(&t.name)
            .filter(|existing| existing.is_toml_include)
        {
            if t.config_precedence <= existing.config_precedence {
                if t.run.is_empty() && t.run_windows.is_empty() && t.file.is_none() {
                    existing.merge_toml_overlay(t);
                } else {
                    *existing = t;
                }
            }
        } else if let Some(existing) = by_name.get(&t.name) {
            // Only a command-bearing block that did not claim this script
            // reaches here, because the pre-pass took every script a block
            // outranks. What is left is a block from below the config whose
            // `task_config.includes` found the script, so it decorates rather
            // than takes over -- what a `conf.d` fragment layering onto a
            // script the config above it found relies on.
            if existing.file.is_some() {
                file_task_overlays.entry(t.name.clone()).or_insert(t);
            }
        } else if refused_stems.contains(&t.name) {
            // The command could not outrank the scripts its stem reaches, so it
            // decorates them, exactly as one written with a script's full name
            // does. Standing up a task here would shadow them under
            // `mise run <stem>` and undo the refusal.
            for name in stripped_name_overlay_targets(&by_name, &t.name) {
                file_task_overlays.entry(name).or_insert_with(|| t.clone());
            }
        } else {
            // No file task claimed this name above, so it is an inline task.
            // A block without a command is queued as an overlay for a
            // command-bearing definition further down the precedence order.
            let metadata_only = t.run.is_empty() && t.run_windows.is_empty() && t.file.is_none();
            if metadata_only {
                pending_inline_overlays
                    .entry(t.name.clone())
                    .or_default()
                    .push(t.clone());
            }
            by_name.insert(t.name.clone(), t);
        }
    }
    for (name, overlay) in file_task_overlays {
        if let Some(base) = by_name.get_mut(&name) {
            base.merge_toml_overlay(overlay);
        }
    }
    by_name.into_values().collect()
}

/// Whether a task carries anything that makes it run.
///
/// The same rule `mise tasks validate` reports a task for lacking, so a task
/// without it is the "no executable content" shape rather than one a metadata
/// overlay should defer to. `depends` and `depends_post` count because they put
/// their targets in the run; `wait_for` does not, since it only orders tasks
/// something else already scheduled (see `deps.rs`, which gives it no
/// `add_idx`). A block carrying nothing but `wait_for` is therefore metadata
/// and overlays a file task rather than shadowing it with a task that runs
/// nothing.
fn task_has_executable_content(task: &Task) -> bool {
    !task.run.is_empty()
        || !task.run_windows.is_empty()
        || task.file.is_some()
        || !task.depends.is_empty()
        || !task.depends_post.is_empty()
}

/// Take the scripts an inline command names out of the running.
///
/// A `[tasks.<name>]` block that declares a `run`, `run_windows` or `file` says
/// what `<name>` runs, so the discovered scripts that name reaches stop being
/// tasks of their own: `hello.sh` for `[tasks."hello.sh"]`, and every script
/// whose extension-stripped name is `hello` for `[tasks.hello]`. Both spellings
/// therefore do the same thing, which is the point — `mise tasks ls` shows the
/// stem and `mise run` takes it, so which spelling a config happened to use
/// should not change what runs.
///
/// A name reaches a script exactly as an overlay does: the script named exactly,
/// or, when there is none, every script sharing the stem. See
/// [`file_task_overlay_targets`].
///
/// A block only claims a script it outranks. The script is in the running
/// because some config's `task_config.includes` found it, so taking it over
/// needs that config's standing or better; below that the block decorates the
/// script instead, as it always has. Where several blocks name one script the
/// highest-precedence one claims it (#11103).
///
/// Returns the spellings that reached a claimed script mapped to the block that
/// claimed it — the script's own name and its stem — so a block written either
/// way still finds the task the script became, plus the names whose claim was
/// refused, which are not task names at all: see [`ScriptClaims`].
fn claim_scripts_for_inline_commands(
    by_name: &mut IndexMap<String, Task>,
    inline_command_precedence: &IndexMap<String, usize>,
) -> ScriptClaims {
    let is_script = |task: &Task| task.file.is_some() && !task.is_toml_include;
    let mut claimed: IndexMap<String, String> = IndexMap::new();
    // `config_tasks` arrives highest precedence first, so this map is in that
    // order too and the first block to reach a script is the one that keeps it.
    for (name, precedence) in inline_command_precedence {
        // A spelling an earlier, higher-precedence command already answers for
        // is not a task of its own -- it loses the single slot those two
        // spellings share -- so it claims nothing. Letting it claim a sibling
        // script would take that script away and leave nothing running it.
        if claimed.get(name).is_some_and(|owner| owner != name) {
            continue;
        }
        let outranks = |task: &Task| *precedence <= task.config_precedence;
        let targets = match by_name.get(name) {
            // An exact name claims that script and nothing else, the same way
            // it overlays only that script.
            Some(task) if is_script(task) && outranks(task) => vec![name.clone()],
            Some(_) => vec![],
            None => by_name
                .iter()
                .filter(|(key, task)| {
                    is_script(task)
                        && outranks(task)
                        && crate::task::strip_task_name_extension(key) == name.as_str()
                })
                .map(|(key, _)| key.clone())
                .collect(),
        };
        for target in targets {
            by_name.shift_remove(&target);
            // Both spellings that reached the script now reach its claimant.
            // Keeping the first is the same "highest precedence wins" the rest
            // of the merge uses, and matters when two scripts share a stem.
            let stem = crate::task::strip_task_name_extension(&target).to_string();
            claimed.insert(target, name.clone());
            claimed.entry(stem).or_insert_with(|| name.clone());
        }
    }
    // A stem whose scripts are all still here reached them and was refused, so
    // it is not a name a task can take: leaving a command under it would shadow
    // those scripts under `mise run <stem>` and undo the refusal. The full name
    // needs no such marking -- the script still holds it, so the merge finds it
    // by name and decorates.
    let refused = inline_command_precedence
        .keys()
        .filter(|name| {
            !by_name.contains_key(*name) && !stripped_name_overlay_targets(by_name, name).is_empty()
        })
        .cloned()
        .collect();
    ScriptClaims { claimed, refused }
}

/// What [`claim_scripts_for_inline_commands`] worked out about the scripts each
/// inline command names.
struct ScriptClaims {
    /// Spellings that reached a claimed script, mapped to the block that
    /// claimed it.
    claimed: IndexMap<String, String>,
    /// Stems whose scripts the command could not outrank. A block of that name
    /// decorates those scripts rather than becoming a task beside them.
    refused: BTreeSet<String>,
}

/// The file tasks a `[tasks.<name>]` block overlays, under either spelling.
///
/// An exact name always wins: `[tasks."hello.sh"]` names that script and
/// nothing else. Otherwise the block may be naming a script by its stem, unless
/// an inline block somewhere gives that name a command, which makes it a task
/// of its own that the block layers onto instead.
fn file_task_overlay_targets(
    by_name: &IndexMap<String, Task>,
    name: &str,
    inline_command_precedence: &IndexMap<String, usize>,
    refused_stems: &BTreeSet<String>,
) -> Vec<String> {
    if let Some(existing) = by_name.get(name) {
        return if existing.file.is_some() && !existing.is_toml_include {
            vec![name.to_string()]
        } else {
            vec![]
        };
    }
    // A name some block gives a command to is a task of its own -- unless that
    // command was refused the scripts the name reaches, in which case no task
    // stands under it and the scripts are still what the name configures.
    if inline_command_precedence.contains_key(name) && !refused_stems.contains(name) {
        return vec![];
    }
    stripped_name_overlay_targets(by_name, name)
}

/// Executable file tasks whose extension-stripped name is exactly `name`.
///
/// `mise run hello` already resolves `mise-tasks/hello.sh` this way, and more
/// than one script can share a stem (`hello.sh` and `hello.js` both run), so a
/// block naming the stem overlays every file task behind it.
///
/// The comparison is one-sided on purpose: the block's name is matched against
/// each file task's stripped name, never stripped itself. `[tasks."my.app"]`
/// therefore leaves `my.sh` alone, and `[tasks."hello.sh"]` does not reach
/// `hello.js`.
///
fn stripped_name_overlay_targets(by_name: &IndexMap<String, Task>, name: &str) -> Vec<String> {
    by_name
        .iter()
        .filter(|(key, task)| {
            task.file.is_some()
                && !task.is_toml_include
                && crate::task::strip_task_name_extension(key) == name
        })
        .map(|(key, _)| key.clone())
        .collect()
}

fn prefer_windows_file_task_siblings(file_tasks: Vec<Task>) -> Vec<Task> {
    if !cfg!(windows) {
        return file_tasks;
    }
    prefer_windows_file_task_siblings_inner(file_tasks)
}

/// On Windows, keep the native script when a task exists in both a POSIX and a Windows form.
///
/// File tasks have no way to branch on platform — `run_windows` is a TOML-task key and is rejected
/// in a file-task header — so writing the task twice, once per platform, is the only option
/// available. Both files then reduce to the same task name, because the name is the file stem, and
/// `mise run <name>` would run both.
///
/// The POSIX side is anything *not* carrying a Windows-native extension, which includes both
/// `build` and `build.sh`. Keying on "no extension at all" is what this used to do, and it stopped
/// being enough once shebang scripts became discoverable (#7941): `build.sh` is the shape people
/// actually write, and it was passing straight through.
fn prefer_windows_file_task_siblings_inner(file_tasks: Vec<Task>) -> Vec<Task> {
    let windows_exts = Settings::get()
        .windows_executable_extensions
        .iter()
        .map(|ext| ext.to_lowercase())
        .collect::<IndexSet<_>>();
    let is_windows_native = |task: &Task| {
        task.config_source
            .extension()
            .and_then(|ext| ext.to_str())
            .is_some_and(|ext| windows_exts.contains(&ext.to_lowercase()))
    };
    // Path and name with the extension dropped, so `build.sh` and `build.ps1` land on one key.
    // `with_extension("")` keeps the directory, which is what confines a pair to a single
    // task-file family instead of matching same-named tasks from unrelated directories.
    //
    // The name has to be stripped too: `name_from_path` keeps the extension, so a file task is
    // named `build.sh` and only `display_name` drops it. `strip_task_extension` removes just the
    // last one, so `build.release.sh` keys as `build.release` rather than `build`.
    let task_key = |task: &Task| {
        (
            task.config_source.with_extension(""),
            strip_task_extension(&task.name).to_string(),
        )
    };
    let posix_task_keys = file_tasks
        .iter()
        .filter(|task| !is_windows_native(task))
        .map(&task_key)
        .collect::<IndexSet<_>>();
    let mut windows_native_task_key_counts = IndexMap::new();
    for task in file_tasks.iter().filter(|task| is_windows_native(task)) {
        *windows_native_task_key_counts
            .entry(task_key(task))
            .or_insert(0) += 1;
    }
    // Exactly one, deliberately: with two Windows siblings there is no basis for choosing between
    // them, so everything is left alone rather than picking arbitrarily.
    let windows_takeover_keys = posix_task_keys
        .iter()
        .filter(|key| windows_native_task_key_counts.get(*key) == Some(&1))
        .cloned()
        .collect::<IndexSet<_>>();

    // The POSIX half is dropped and the Windows one is renamed to the bare stem, so `build.ps1`
    // becomes the `build` the POSIX file used to answer to. Without that the task would only be
    // reachable as `build.ps1`, which is not a name anyone wrote down.
    file_tasks
        .into_iter()
        .filter_map(|mut task| {
            let key = task_key(&task);
            if !is_windows_native(&task) {
                return if windows_takeover_keys.contains(&key) {
                    None
                } else {
                    Some(task)
                };
            }
            if windows_takeover_keys.contains(&key) {
                task.name = key.1;
            }
            Some(task)
        })
        .collect()
}

fn strip_task_extension(name: &str) -> &str {
    if let Some((prefix, task_part)) = name.rsplit_once(':') {
        let task_without_ext = strip_extension(task_part);
        if task_without_ext == task_part {
            name
        } else {
            &name[..prefix.len() + 1 + task_without_ext.len()]
        }
    } else {
        strip_extension(name)
    }
}

async fn load_config_tasks(
    config: &Arc<Config>,
    cf: Arc<dyn ConfigFile>,
    config_root: &Path,
    templates: &TaskDefinitions,
    monorepo_cf: Option<&Arc<dyn ConfigFile>>,
    task_config: &ResolvedTaskConfig,
) -> Result<Vec<Task>> {
    let is_global = is_global_config(cf.get_path());
    let config_root = Arc::new(config_root.to_path_buf());
    let overlay_task_config = task_config.for_overlay();
    let mut tasks = vec![];
    for t in cf.tasks().into_iter() {
        let config_root = config_root.clone();
        let config = config.clone();
        let mut t = t.clone();
        if is_global {
            t.global = true;
        }
        if t.config_root.is_none() {
            t.config_root = Some(config_root.to_path_buf());
        }
        if let Some(monorepo_cf) = monorepo_cf {
            t.cf = Some(monorepo_cf.clone());
        }
        // Resolve template if the task extends one
        resolve_task_template(&mut t, templates)?;
        let task_config = if task_has_command(&t) {
            task_config
        } else {
            &overlay_task_config
        };
        if t.dir.is_none() {
            t.dir = task_config.dir.clone();
        }
        if t.shell.is_none() {
            t.shell = task_config.shell.clone();
        }
        match t.render(&config, &config_root).await {
            Ok(()) => {
                apply_task_config_inputs(&mut t, &config, &task_config.inputs).await?;
                apply_task_config_cache_default(&mut t, &task_config.cache);
                apply_task_config_rust_cache_default(&mut t, &task_config.rust_cache);
                task_config.environment.apply(&mut t)?;
                tasks.push(t);
            }
            Err(e) => {
                if monorepo_cf.is_some() {
                    warn!(
                        "Failed to render task {} in {}: {e:#}. Task will not be available.",
                        t.name,
                        display_path(cf.get_path())
                    );
                } else {
                    return Err(e);
                }
            }
        }
    }
    Ok(tasks)
}

struct LoadTaskIncludesOptions<'a> {
    monorepo_cf: Option<&'a Arc<dyn ConfigFile>>,
    require_trust: bool,
    rendered_file_tasks: Option<&'a mut RenderedTaskCache>,
    excludes: &'a [PathBuf],
}

/// Whether task discovery skips `path`: it is under `excludes` or the `task.disable_paths` setting.
pub fn is_task_path_excluded(path: &Path, excludes: &[PathBuf]) -> bool {
    Settings::get()
        .task
        .disable_paths
        .iter()
        .chain(excludes)
        .any(|exclude| file::path_starts_with_resolved(path, exclude))
}

/// Most entries one task directory walk may visit. Links are followed, and links
/// that keep leading forward into the same directories (or one into `/sys`)
/// give a small checkout an exponential number of paths, which walkdir's loop
/// check never sees because no link leads back to its own parent.
const TASK_DIR_ENTRY_LIMIT: usize = 100_000;

fn collect_task_files(root: &Path, excludes: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect_task_files_with_limit(root, excludes, TASK_DIR_ENTRY_LIMIT)
}

fn collect_task_files_with_limit(
    root: &Path,
    excludes: &[PathBuf],
    limit: usize,
) -> Result<Vec<PathBuf>> {
    let walk = WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        // skip hidden directories (if the root is hidden that's ok)
        .filter_entry(|entry| {
            entry.path() == root
                || (!entry.file_name().to_string_lossy().starts_with('.')
                    && !excludes
                        .iter()
                        .any(|exclude| file::path_starts_with_resolved(entry.path(), exclude)))
        });
    let mut files = vec![];
    for (visited, entry) in walk.enumerate() {
        if visited >= limit {
            bail!(
                "task directory {} has more than {limit} entries; check it for symlinks that reach the same directories many times",
                display_path(root)
            );
        }
        match entry {
            Ok(entry) if entry.file_type().is_file() => files.push(entry.path().to_path_buf()),
            Ok(_) => {}
            Err(err)
                if err
                    .io_error()
                    .is_some_and(|err| err.kind() == std::io::ErrorKind::NotFound) =>
            {
                debug!("skipping missing task entry: {err}");
            }
            // Losing nothing by skipping: walkdir reports this only when a link resolves to a
            // directory already on the walk stack, so everything under it has been visited
            // through the real path. A permission or I/O error is not like that -- a whole
            // subtree goes unseen -- so those stay fatal. One `mise-tasks/current -> mise-tasks`
            // used to fail every task command, including tasks defined in `mise.toml` that
            // involve no file at all.
            Err(err) if err.loop_ancestor().is_some() => {
                debug!("skipping task path that links back into itself: {err}");
            }
            Err(err) => return Err(err.into()),
        }
    }
    Ok(files)
}

async fn load_tasks_includes(
    config: &Arc<Config>,
    root: &Path,
    config_root: &Path,
    task_config: &ResolvedTaskConfig,
    templates: &TaskDefinitions,
    options: LoadTaskIncludesOptions<'_>,
) -> Result<Vec<Task>> {
    let LoadTaskIncludesOptions {
        monorepo_cf,
        require_trust,
        mut rendered_file_tasks,
        excludes,
    } = options;
    if is_task_path_excluded(root, excludes) {
        return Ok(vec![]);
    }
    if root.is_file() && root.extension().map(|e| e == "toml").unwrap_or(false) {
        trust_check_task_include(root, require_trust)?;
        load_task_file(
            config,
            root,
            config_root,
            task_config,
            templates,
            monorepo_cf,
            rendered_file_tasks,
        )
        .await
    } else if root.is_dir() {
        let all_excludes = Settings::get()
            .task
            .disable_paths
            .iter()
            .chain(excludes)
            .cloned()
            .collect::<Vec<_>>();
        let all_files = collect_task_files(root, &all_excludes)?;
        let is_toml = |p: &Path| p.extension().map(|e| e == "toml").unwrap_or(false);
        let (toml_files, exec_files): (Vec<_>, Vec<_>) = all_files
            .into_iter()
            .filter(|p| match is_toml(p) {
                true => !is_mise_config_file_in_task_include(root, p),
                false => file::is_executable(p),
            })
            .partition(|p| is_toml(p));
        let mut tasks = vec![];
        for path in toml_files {
            trust_check_task_include(&path, require_trust)?;
            tasks.extend(
                load_task_file(
                    config,
                    &path,
                    config_root,
                    task_config,
                    templates,
                    monorepo_cf,
                    rendered_file_tasks.as_deref_mut(),
                )
                .await?,
            );
        }
        let root = Arc::new(root.to_path_buf());
        let config_root = Arc::new(config_root.to_path_buf());
        for path in exec_files {
            let root = root.clone();
            let config_root = config_root.clone();
            let config = config.clone();
            trust_check_task_include(&path, require_trust)?;
            let mut task = Task::from_path_unrendered_with_cf(
                &path,
                &root,
                &config_root,
                monorepo_cf.cloned(),
            )?;
            if let Err(err) = resolve_task_template(&mut task, templates) {
                if monorepo_cf.is_some() {
                    warn!(
                        "Failed to resolve task {} in {}: {err:#}. Task will not be available.",
                        task.name,
                        display_path(&path)
                    );
                    continue;
                } else {
                    return Err(err);
                }
            }
            let cache_key = rendered_task_cache_key(&task);
            if let Some(cached) = rendered_file_tasks
                .as_deref()
                .and_then(|cache| cache.get(&cache_key))
            {
                tasks.push(cached.clone());
                continue;
            }
            if task.shell.is_none() {
                task.shell = task_config.shell.clone();
            }
            if let Err(err) = task.render(&config, &config_root).await {
                if monorepo_cf.is_some() {
                    warn!(
                        "Failed to render task {} in {}: {err:#}. Task will not be available.",
                        task.name,
                        display_path(&path)
                    );
                    continue;
                } else {
                    return Err(err);
                }
            }
            if task.dir.is_none()
                && let Some(ref dir) = task_config.dir
            {
                task.dir = Some(if contains_template_syntax(dir) {
                    let mut tera = crate::tera::get_tera(Some(config_root.as_ref()));
                    let tera_ctx = task.tera_ctx(&config).await?;
                    // A broken template stays raw so `Task::dir` reports it for this task only.
                    render_str(&mut tera, dir, &tera_ctx).unwrap_or_else(|err| {
                        debug!("failed to render task_config dir {dir:?}: {err:#}");
                        dir.clone()
                    })
                } else {
                    dir.clone()
                });
            }
            if let Some(cache) = rendered_file_tasks.as_deref_mut() {
                cache.insert(cache_key, task.clone());
            }
            tasks.push(task);
        }
        Ok(tasks)
    } else {
        Ok(vec![])
    }
}

fn is_mise_config_file_in_task_include(root: &Path, path: &Path) -> bool {
    let Ok(relative_path) = path.strip_prefix(root) else {
        return false;
    };
    let relative_path = relative_path.to_string_lossy().replace('\\', "/");
    let file_name = path
        .file_name()
        .map(|file_name| file_name.to_string_lossy().replace('\\', "/"));
    TOML_CONFIG_MATCHERS.iter().any(|matcher| {
        matcher.is_match(&relative_path) || file_name.as_ref().is_some_and(|f| matcher.is_match(f))
    })
}

/// Includes that are fetched from a remote source instead of read from disk.
fn is_remote_task_include(include: &str) -> bool {
    include.starts_with("git::") || include.starts_with(OCI_INCLUDE_PREFIX)
}

async fn resolve_oci_url_to_path(oci_url: &str) -> Result<TaskFileArtifact> {
    let no_cache = Settings::get().task.remote_no_cache.unwrap_or(false);
    let providers = TaskFileProvidersBuilder::new()
        .with_cache(!no_cache)
        .build();
    let provider = providers
        .get_provider(oci_url)
        .ok_or_else(|| eyre!("No provider found for OCI URL: {}", oci_url))?;
    if !no_cache {
        return provider.get_local_artifact(oci_url).await;
    }
    // Pull a given artifact once per run, even when several configs include it.
    let pulled = REMOTE_TASK_INCLUDE_ARTIFACTS
        .entry((oci_url.to_string(), None))
        .or_insert_with(|| Arc::new(OnceCell::new()))
        .clone();
    Ok(pulled
        .get_or_try_init(|| provider.get_local_artifact(oci_url))
        .await?
        .clone())
}

async fn resolve_git_url_to_path(git_url: &str) -> Result<TaskFileArtifact> {
    let no_cache = Settings::get().task.remote_no_cache.unwrap_or(false);
    if !no_cache {
        let task_file_providers = TaskFileProvidersBuilder::new().with_cache(true).build();
        return match task_file_providers.get_provider(git_url) {
            Some(provider) => provider.get_local_artifact(git_url).await,
            None => bail!("No provider found for git URL: {}", git_url),
        };
    }

    let source = RemoteSource::parse_git(git_url)
        .ok_or_else(|| eyre!("No provider found for git URL: {}", git_url))?;
    let cache_key = (source.url.clone(), source.git_ref.clone());
    let checkout = REMOTE_TASK_INCLUDE_ARTIFACTS
        .entry(cache_key)
        .or_insert_with(|| Arc::new(OnceCell::new()))
        .clone();
    let checkout = checkout
        .get_or_try_init(|| async {
            let task_file_providers = TaskFileProvidersBuilder::new().with_cache(false).build();
            let provider = task_file_providers
                .get_provider(git_url)
                .ok_or_else(|| eyre!("No provider found for git URL: {}", git_url))?;
            let artifact = provider.get_local_artifact(git_url).await?;
            let checkout_path = artifact
                .cleanup_path()
                .ok_or_else(|| eyre!("no cleanup path for no-cache Git task include"))?
                .to_path_buf();
            Ok::<TaskFileArtifact, eyre::Report>(artifact.with_path(checkout_path))
        })
        .await?;

    let artifact = checkout.with_path(checkout.path.join(source.path));
    validate_remote_git_path(&checkout.path, &artifact.path)?;
    Ok(artifact)
}

/// Check if a pattern contains glob metacharacters
pub fn is_glob_pattern(pattern: &str) -> bool {
    // Check for unescaped glob metacharacters: *, ?, [, ], {, }
    // Note: This is a simple check that may have false positives with escaped chars,
    // but glob() will handle those correctly
    pattern.contains('*')
        || pattern.contains('?')
        || pattern.contains('[')
        || pattern.contains(']')
        || pattern.contains('{')
        || pattern.contains('}')
}

/// Expand a task include pattern (which may be a glob) to a list of paths
fn expand_task_include(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let pattern = file::replace_path(pattern);
    let pattern = pattern.to_string_lossy();
    if is_glob_pattern(&pattern) {
        match glob(dir, &pattern) {
            Ok(paths) => paths,
            Err(err) => {
                warn!(
                    "failed to expand glob pattern '{}' in '{}': {}",
                    pattern,
                    display_path(dir),
                    err
                );
                vec![]
            }
        }
    } else {
        // Literal path
        let path = PathBuf::from(&*pattern);
        let resolved = if path.is_absolute() {
            path
        } else {
            dir.join(path)
        };
        if resolved.exists() {
            vec![resolved]
        } else {
            vec![]
        }
    }
}

fn resolve_task_excludes(dir: &Path, patterns: &[String]) -> Vec<PathBuf> {
    patterns
        .iter()
        .flat_map(|pattern| {
            if is_glob_pattern(pattern) {
                expand_task_include(dir, pattern)
            } else {
                let path = file::replace_path(pattern);
                if path.is_absolute() {
                    vec![path]
                } else {
                    vec![dir.join(path)]
                }
            }
        })
        .unique()
        .collect()
}

fn task_include_patterns_for_dir(
    dir: &Path,
    config_files: &ConfigMap,
) -> Result<(Vec<String>, PathBuf, bool)> {
    let configs = configs_at_root(dir, config_files);
    let cascaded_task_config =
        if configs.iter().find_map(|cf| cf.task_config().cascade) == Some(false) {
            None
        } else {
            cascaded_task_config_for_dir(dir, config_files)?
        };

    // Find the highest-precedence config that has explicit task_config.includes
    // and resolve paths relative to that config file's directory
    Ok(configs
        .iter()
        .find_map(|cf| match cf.task_config_includes() {
            Ok(Some(includes)) => Some(Ok({
                // Resolve relative paths from the config root, not the config file's directory
                (includes, cf.config_root(), false)
            })),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
        .or_else(|| {
            cascaded_task_config.and_then(|tc| {
                tc.task_config
                    .includes
                    .map(|includes| (includes, tc.includes_root, false))
            })
        })
        .unwrap_or_else(|| {
            // Default includes should be resolved relative to the search directory
            (default_task_includes_for(dir), dir.to_path_buf(), true)
        }))
}

pub fn task_includes_for_dir(dir: &Path, config_files: &ConfigMap) -> Result<Vec<PathBuf>> {
    let (includes, resolve_dir, _) = task_include_patterns_for_dir(dir, config_files)?;

    Ok(includes
        .into_iter()
        .flat_map(|p| {
            // Git URLs are handled by load_file_tasks, not here
            if is_remote_task_include(&p) {
                return vec![];
            }
            expand_task_include(&resolve_dir, &p)
        })
        .unique()
        .collect::<Vec<_>>())
}

pub fn task_excludes_for_dir(dir: &Path, config_files: &ConfigMap) -> Result<Vec<PathBuf>> {
    let configs = configs_at_root(dir, config_files);
    let cascaded_task_config =
        if configs.iter().find_map(|cf| cf.task_config().cascade) == Some(false) {
            None
        } else {
            cascaded_task_config_for_dir(dir, config_files)?
        };
    let (excludes, resolve_dir) = configs
        .iter()
        .find_map(|cf| match cf.task_config_excludes() {
            Ok(Some(excludes)) => Some(Ok((excludes, cf.config_root()))),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
        .or_else(|| {
            cascaded_task_config.and_then(|tc| {
                tc.task_config
                    .excludes
                    .map(|excludes| (excludes, tc.excludes_root))
            })
        })
        .unwrap_or_default();
    Ok(resolve_task_excludes(&resolve_dir, &excludes))
}

/// Returns the directory where a new file task should be created.
///
/// Existing directories are selected in effective `task_config.includes` order. When the
/// built-in defaults are in use and none exist yet, the first default path is returned so the
/// caller can create it. Explicit includes must contain an existing directory because a missing
/// path cannot be distinguished from a task file.
pub(crate) fn task_creation_dir_for_dir(dir: &Path, config_files: &ConfigMap) -> Result<PathBuf> {
    let (includes, resolve_dir, uses_defaults) = task_include_patterns_for_dir(dir, config_files)?;
    let default_create_dir = if uses_defaults {
        includes
            .first()
            .map(|include| resolve_dir.join(file::replace_path(include)))
    } else {
        None
    };
    if let Some(path) = includes
        .iter()
        .filter(|include| !is_remote_task_include(include))
        .flat_map(|include| expand_task_include(&resolve_dir, include))
        .find(|path| path.is_dir())
    {
        return Ok(path);
    }
    if let Some(dir) = default_create_dir {
        return Ok(dir);
    }
    bail!("task includes do not contain an existing directory where a file task can be created")
}

/// Resolve `extends` on a task that was built outside the task-loading pass.
///
/// A remote file task is parsed from its downloaded script at run time, long after the
/// loaders that resolve templates have finished, so it has to ask for the definitions
/// itself. Without this its `#MISE extends=...` is parsed and then silently dropped.
///
/// Collecting the definitions is not free, so a task that names no template pays nothing.
pub(crate) fn resolve_template_for_late_task(config: &Arc<Config>, task: &mut Task) -> Result<()> {
    if task.extends.is_none() {
        return Ok(());
    }
    let workspace_graph = config
        .monorepo_root()
        .is_some()
        .then(|| config.workspace_project_graph_for_task_loading());
    let definitions = collect_task_definitions(
        &config.config_files,
        workspace_graph
            .as_ref()
            .and_then(|graph| graph.as_ref().ok())
            .map(Arc::as_ref),
    );
    // Only the named template. The workspace default was already applied to the toml task
    // that pointed at this script, and `merge_toml_overlay` copies that task's fields onto
    // the fetched one afterwards -- extending `depends` rather than replacing it, so applying
    // the default a second time here would list its dependencies twice.
    apply_named_template(task, &definitions)
}

pub async fn load_tasks_in_dir(
    config: &Arc<Config>,
    dir: &Path,
    config_files: &ConfigMap,
) -> Result<Vec<Task>> {
    let workspace_graph = config
        .monorepo_root()
        .is_some()
        .then(|| config.workspace_project_graph_for_task_loading());
    let definitions = collect_task_definitions(
        config_files,
        workspace_graph
            .as_ref()
            .and_then(|graph| graph.as_ref().ok())
            .map(Arc::as_ref),
    );
    load_tasks_in_dir_with_definitions(config, dir, config_files, &definitions).await
}

async fn load_tasks_in_dir_with_definitions(
    config: &Arc<Config>,
    dir: &Path,
    config_files: &ConfigMap,
    templates: &TaskDefinitions,
) -> Result<Vec<Task>> {
    let configs = configs_at_root(dir, config_files);
    let cascaded_task_config = cascaded_task_config_for_dir(dir, config_files)?;
    load_tasks_from_configs(
        config,
        dir,
        configs,
        templates,
        false,
        cascaded_task_config.as_ref(),
    )
    .await
}

struct TaskSources {
    file_tasks: Vec<Task>,
    config_tasks: Vec<Task>,
    task_config: ResolvedTaskConfig,
}

#[derive(Clone)]
struct CascadedTaskConfig {
    task_config: TaskConfig,
    inputs: ResolvedTaskInputs,
    includes_root: PathBuf,
    excludes_root: PathBuf,
}

fn merge_cascaded_task_config(
    cascaded: &mut CascadedTaskConfig,
    configs: &[&Arc<dyn ConfigFile>],
) -> Result<()> {
    cascaded
        .inputs
        .overlay(ResolvedTaskInputs::from_configs(configs));
    if let Some(dir) = configs.iter().find_map(|cf| cf.task_config().dir.clone()) {
        cascaded.task_config.dir = Some(dir);
    }
    if let Some(shell) = configs.iter().find_map(|cf| cf.task_config().shell.clone()) {
        cascaded.task_config.shell = Some(shell);
    }
    if let Some(cache) = configs.iter().find_map(|cf| cf.task_config().cache.clone()) {
        cascaded.task_config.cache = Some(cache);
    }
    if let Some(rust_cache) = configs
        .iter()
        .find_map(|cf| cf.task_config().rust_cache.clone())
    {
        cascaded.task_config.rust_cache = Some(rust_cache);
    }
    if let Some(global_env) = configs.iter().find_map(|cf| {
        let env = &cf.task_config().global_env;
        (!env.is_empty()).then(|| env.clone())
    }) {
        cascaded.task_config.global_env = global_env;
    }
    if let Some(global_pass_through_env) = configs.iter().find_map(|cf| {
        let env = &cf.task_config().global_pass_through_env;
        (!env.is_empty()).then(|| env.clone())
    }) {
        cascaded.task_config.global_pass_through_env = global_pass_through_env;
    }
    if let Some((includes, root)) = configs
        .iter()
        .find_map(|cf| match cf.task_config_includes() {
            Ok(Some(includes)) => Some(Ok((includes, cf.config_root()))),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
    {
        cascaded.task_config.includes = Some(includes);
        cascaded.includes_root = root;
    }
    if let Some((excludes, root)) = configs
        .iter()
        .find_map(|cf| match cf.task_config_excludes() {
            Ok(Some(excludes)) => Some(Ok((excludes, cf.config_root()))),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
    {
        cascaded.task_config.excludes = Some(excludes);
        cascaded.excludes_root = root;
    }
    Ok(())
}

fn cascaded_task_config_for_dir(
    dir: &Path,
    config_files: &ConfigMap,
) -> Result<Option<CascadedTaskConfig>> {
    let mut roots = config_files
        .values()
        .filter(|cf| !is_global_config(cf.get_path()))
        .map(|cf| cf.config_root())
        .filter(|root| !file::same_file(root, dir) && file::path_starts_with_resolved(dir, root))
        .unique()
        .collect::<Vec<_>>();
    roots.sort_by_key(|root| root.components().count());

    let mut cascaded = None;
    for root in roots {
        let configs = configs_at_root(&root, config_files);
        cascade_through_root(&mut cascaded, &root, &configs)?;
    }
    Ok(cascaded)
}

/// Carry the task config cascaded from `root`'s ancestors through `root`
/// itself, on the way to a descendant root: `cascade = false` there drops it,
/// and `cascade = true` starts it or adds `root`'s own `task_config`.
fn cascade_through_root(
    cascaded: &mut Option<CascadedTaskConfig>,
    root: &Path,
    configs: &[&Arc<dyn ConfigFile>],
) -> Result<()> {
    match configs.iter().find_map(|cf| cf.task_config().cascade) {
        Some(false) => {
            *cascaded = None;
            return Ok(());
        }
        Some(true) if cascaded.is_none() => {
            *cascaded = Some(CascadedTaskConfig {
                task_config: TaskConfig::default(),
                inputs: ResolvedTaskInputs::default(),
                includes_root: root.to_path_buf(),
                excludes_root: root.to_path_buf(),
            });
        }
        _ => {}
    }
    if let Some(cascaded) = cascaded {
        merge_cascaded_task_config(cascaded, configs)?;
    }
    Ok(())
}

#[derive(Default)]
struct RenderedTaskCache {
    previous_configs: HashMap<(PathBuf, String), Task>,
    current_config: HashMap<(PathBuf, String), Task>,
}

fn rendered_task_cache_key(task: &Task) -> (PathBuf, String) {
    (file::desymlink_path(&task.config_source), task.name.clone())
}

impl RenderedTaskCache {
    fn get(&self, key: &(PathBuf, String)) -> Option<&Task> {
        self.previous_configs.get(key)
    }

    fn insert(&mut self, key: (PathBuf, String), task: Task) {
        self.current_config.insert(key, task);
    }

    fn finish_config(&mut self) {
        for (key, task) in self.current_config.drain() {
            self.previous_configs.entry(key).or_insert(task);
        }
    }
}

fn sort_and_name_tasks(tasks: Vec<Task>) -> Vec<Task> {
    let mut tasks = tasks
        .into_iter()
        .sorted_by_cached_key(|t| t.name.clone())
        .collect::<Vec<_>>();
    let all_tasks = tasks
        .clone()
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect::<BTreeMap<_, _>>();
    for task in tasks.iter_mut() {
        task.display_name = task.display_name(&all_tasks);
    }
    tasks
}

/// Load one config root as a single precedence unit.
///
/// `configs` must be ordered highest precedence first. For monorepo config
/// roots outside the active hierarchy, each inline task keeps its owning config
/// context while file tasks use the highest-precedence config context.
async fn load_tasks_from_configs(
    config: &Arc<Config>,
    dir: &Path,
    configs: Vec<&Arc<dyn ConfigFile>>,
    templates: &TaskDefinitions,
    monorepo_context: bool,
    cascaded_task_config: Option<&CascadedTaskConfig>,
) -> Result<Vec<Task>> {
    load_tasks_from_configs_and_folders(
        config,
        dir,
        configs,
        templates,
        TaskSourceOptions {
            monorepo_context,
            cascaded_task_config,
            ..Default::default()
        },
    )
    .await
}

/// How a task root loads, beyond its configs.
#[derive(Default)]
struct TaskSourceOptions<'a> {
    monorepo_context: bool,
    cascaded_task_config: Option<&'a CascadedTaskConfig>,
    /// Shared by the global user and system scopes, see
    /// [`load_task_sources_from_configs`].
    rendered_file_tasks: Option<&'a mut RenderedTaskCache>,
    /// The task directories searched when no config sets
    /// `task_config.includes`, in place of [`default_task_includes`]. For
    /// [`load_tasks_from_configs_and_folders`], this applies to `dir` and not
    /// to its conf.d folders.
    default_includes: Option<Vec<String>>,
}

/// The configs of one task root, with each config's precedence among all the
/// configs being loaded.
#[derive(Default)]
struct TaskRootConfigs<'a> {
    precedences: Vec<usize>,
    configs: Vec<&'a Arc<dyn ConfigFile>>,
}

/// Load `configs` as one root, except that the files of each conf.d folder
/// fragment among them load as a root of their own, the folder.
///
/// A folder fragment is self-contained: its tasks run in the folder, its
/// `task_config` applies only to its own tasks, and its `includes` neither
/// replace nor are replaced by the enclosing root's. As a root inside `dir`,
/// it inherits the defaults and `excludes` that cascade from `dir`'s ancestors
/// and from `dir` itself, but not their `includes`, which `dir` already loads.
///
/// Only where tasks run and which `task_config` applies differ by root. Every
/// root's file and inline tasks are then merged as if they came from one root,
/// by the precedence of their configs among all of `configs`, so a metadata
/// block in one root still overlays a same-named task from another. A folder
/// beats the single-file fragments beside it and loses to the root's own
/// config. When two roots' default task directories hold the same file task,
/// the enclosing root's wins, then folders in config order.
async fn load_tasks_from_configs_and_folders(
    config: &Arc<Config>,
    dir: &Path,
    configs: Vec<&Arc<dyn ConfigFile>>,
    templates: &TaskDefinitions,
    options: TaskSourceOptions<'_>,
) -> Result<Vec<Task>> {
    let TaskSourceOptions {
        monorepo_context,
        cascaded_task_config,
        mut rendered_file_tasks,
        mut default_includes,
    } = options;
    let mut roots: IndexMap<PathBuf, TaskRootConfigs> = IndexMap::new();
    roots.insert(dir.to_path_buf(), TaskRootConfigs::default());
    for (precedence, cf) in configs.into_iter().enumerate() {
        let root = if is_conf_d_folder_file(cf.get_path()) {
            cf.config_root()
        } else {
            dir.to_path_buf()
        };
        let root = roots.entry(root).or_default();
        root.precedences.push(precedence);
        root.configs.push(cf);
    }
    // A folder is a root inside `dir`, so it inherits what cascades through
    // `dir` itself, except `includes`, which `dir` already loads.
    let mut folder_cascaded_task_config = cascaded_task_config.cloned();
    cascade_through_root(&mut folder_cascaded_task_config, dir, &roots[dir].configs)?;
    if let Some(tc) = &mut folder_cascaded_task_config {
        tc.task_config.includes = None;
    }

    // The precedence of a file task from a root's default task directories,
    // which no config selected, below every config.
    let default_precedence = roots.values().map(|r| r.configs.len()).sum::<usize>();
    // The root each config belongs to, to find a standalone block's defaults.
    let config_roots: HashMap<PathBuf, usize> = roots
        .values()
        .enumerate()
        .flat_map(|(i, root)| {
            root.configs
                .iter()
                .map(move |cf| (cf.get_path().to_path_buf(), i))
        })
        .collect();
    let mut root_task_configs = vec![];
    let mut file_tasks = vec![];
    let mut config_tasks = vec![];
    for (
        i,
        (
            root,
            TaskRootConfigs {
                precedences,
                configs,
            },
        ),
    ) in roots.into_iter().enumerate()
    {
        let root_cascaded_task_config = if i == 0 {
            cascaded_task_config
        } else {
            folder_cascaded_task_config.as_ref()
        };
        let sources = load_task_sources_from_configs(
            config,
            &root,
            configs,
            templates,
            TaskSourceOptions {
                monorepo_context,
                cascaded_task_config: root_cascaded_task_config,
                rendered_file_tasks: rendered_file_tasks.as_deref_mut(),
                // `dir` is the first root, so only it takes these.
                default_includes: default_includes.take(),
            },
        )
        .await?;
        let global_precedence = |task: &Task| {
            precedences
                .get(task.config_precedence)
                .copied()
                .unwrap_or(default_precedence)
        };
        for mut task in sources.file_tasks {
            task.config_precedence = global_precedence(&task);
            file_tasks.push((i, task));
        }
        for mut task in sources.config_tasks {
            task.config_precedence = global_precedence(&task);
            config_tasks.push(task);
        }
        root_task_configs.push(sources.task_config);
    }
    // The merge wants file tasks in rising precedence, since the last file
    // task with a name wins, and inline tasks highest precedence first. Roots
    // were loaded enclosing root first, then folders highest precedence first,
    // so equal file tasks sort in reverse load order. The sorts are stable,
    // keeping each root's include order.
    file_tasks.sort_by_key(|(root, task)| {
        (
            std::cmp::Reverse(task.config_precedence),
            std::cmp::Reverse(*root),
        )
    });
    config_tasks.sort_by_key(|task| task.config_precedence);
    let file_tasks = file_tasks.into_iter().map(|(_, task)| task).collect();
    let mut tasks = merge_file_and_config_tasks(file_tasks, config_tasks);
    for task in &mut tasks {
        if task_has_command(task) {
            continue;
        }
        if let Some(&root) = config_roots.get(&task.config_source) {
            root_task_configs[root]
                .apply_to_standalone(task, config)
                .await?;
        }
    }
    Ok(sort_and_name_tasks(tasks))
}

/// Load file and inline task sources without merging them.
///
/// Global user and system scopes pass a shared rendered-task cache through
/// [`load_tasks_from_configs_and_folders`] so they can share rendered file
/// tasks without merging task definitions across the scope boundary.
async fn load_task_sources_from_configs(
    config: &Arc<Config>,
    dir: &Path,
    configs: Vec<&Arc<dyn ConfigFile>>,
    templates: &TaskDefinitions,
    options: TaskSourceOptions<'_>,
) -> Result<TaskSources> {
    let TaskSourceOptions {
        monorepo_context,
        cascaded_task_config,
        mut rendered_file_tasks,
        default_includes,
    } = options;
    let cascaded_task_config =
        if configs.iter().find_map(|cf| cf.task_config().cascade) == Some(false) {
            None
        } else {
            cascaded_task_config
        };
    let is_global = configs.iter().any(|cf| is_global_config(cf.get_path()));
    // a config can only vouch for task include files when it was actually
    // trusted — safe configs load without trust and cannot vouch for anything
    let require_task_include_trust = !configs.iter().any(|cf| is_path_trusted(cf.get_path()));
    // Paranoid mode binds a project config's trust to its own content, which
    // covers the remote includes it pins but not task files on disk that change
    // without it, so each of those needs trust of its own there. Global config
    // is trusted by path, and so are the task files it includes.
    let require_local_task_include_trust = require_task_include_trust
        || (!is_global && Settings::try_get().is_ok_and(|settings| settings.paranoid.config()));
    let (includes, resolve_dir, include_config_precedence) = configs
        .iter()
        .enumerate()
        .find_map(|(precedence, cf)| match cf.task_config_includes() {
            Ok(Some(includes)) => Some(Ok((includes, cf.config_root(), precedence))),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
        .or_else(|| {
            cascaded_task_config.and_then(|tc| {
                tc.task_config
                    .includes
                    .clone()
                    .map(|includes| (includes, tc.includes_root.clone(), configs.len()))
            })
        })
        .unwrap_or_else(|| {
            (
                // The user-global scope supplies its own defaults, which a
                // checkout cloned into the home directory must not join either.
                default_includes
                    .map(|includes| without_nested_checkouts(dir, includes))
                    .unwrap_or_else(|| default_task_includes_for(dir)),
                dir.to_path_buf(),
                configs.len(),
            )
        });
    let (excludes, excludes_root) = configs
        .iter()
        .find_map(|cf| match cf.task_config_excludes() {
            Ok(Some(excludes)) => Some(Ok((excludes, cf.config_root()))),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        })
        .transpose()?
        .or_else(|| {
            cascaded_task_config.and_then(|tc| {
                tc.task_config
                    .excludes
                    .clone()
                    .map(|excludes| (excludes, tc.excludes_root.clone()))
            })
        })
        .unwrap_or_default();
    let excludes = resolve_task_excludes(&excludes_root, &excludes);

    let mut inputs = cascaded_task_config
        .map(|tc| tc.inputs.clone())
        .unwrap_or_default();
    inputs.overlay(ResolvedTaskInputs::from_configs(&configs));

    // Resolve task defaults once for the config root so inline tasks from
    // lower-precedence overlay files use the same defaults as file tasks.
    let task_config = ResolvedTaskConfig {
        inputs,
        environment: ResolvedTaskEnvironment::from_configs(
            &configs,
            cascaded_task_config.map(|tc| &tc.task_config),
        ),
        dir: configs
            .iter()
            .find_map(|cf| cf.task_config().dir.clone())
            .or_else(|| cascaded_task_config.and_then(|tc| tc.task_config.dir.clone())),
        shell: configs
            .iter()
            .find_map(|cf| cf.task_config().shell.clone())
            .or_else(|| cascaded_task_config.and_then(|tc| tc.task_config.shell.clone())),
        cache: configs
            .iter()
            .find_map(|cf| cf.task_config().cache.clone())
            .or_else(|| cascaded_task_config.and_then(|tc| tc.task_config.cache.clone())),
        rust_cache: configs
            .iter()
            .find_map(|cf| cf.task_config().rust_cache.clone())
            .or_else(|| cascaded_task_config.and_then(|tc| tc.task_config.rust_cache.clone())),
    };

    let mut config_tasks = vec![];
    for (precedence, cf) in configs.iter().enumerate() {
        let dir = dir.to_path_buf();
        let monorepo_cf = monorepo_context.then_some(*cf);
        let mut loaded = load_config_tasks(
            config,
            (*cf).clone(),
            &dir,
            templates,
            monorepo_cf,
            &task_config,
        )
        .await?;
        for task in &mut loaded {
            task.config_precedence = precedence;
        }
        config_tasks.extend(loaded);
    }

    let mut file_tasks = vec![];
    let monorepo_cf = if monorepo_context {
        configs.first().copied()
    } else {
        None
    };
    for include in &includes {
        // A remote include is experimental. Without it, skip just that include so
        // the config's other tasks still list, complete and run.
        let remote_source = if include.starts_with("git::") {
            Some("a `git::` source")
        } else if include.starts_with(OCI_INCLUDE_PREFIX) {
            Some("an `oci::` source")
        } else {
            None
        };
        if let Some(source) = remote_source
            && !Settings::get().experimental
        {
            warn_once!(
                "skipping task include `{include}`: including tasks from {source} is experimental. Enable it with `mise settings experimental=true`"
            );
            continue;
        }
        let artifacts = if include.starts_with("git::") {
            vec![resolve_git_url_to_path(include).await?]
        } else if include.starts_with(OCI_INCLUDE_PREFIX) {
            vec![resolve_oci_url_to_path(include).await?]
        } else {
            expand_task_include(&resolve_dir, include)
                .into_iter()
                .map(TaskFileArtifact::persistent)
                .collect()
        };
        let remote = is_remote_task_include(include).then(|| include.clone());
        let require_trust = if remote.is_some() {
            require_task_include_trust
        } else {
            require_local_task_include_trust
        };
        for artifact in artifacts {
            let p = artifact.path;
            let mut loaded = load_tasks_includes(
                config,
                &p,
                dir,
                &task_config,
                templates,
                LoadTaskIncludesOptions {
                    monorepo_cf,
                    require_trust,
                    rendered_file_tasks: rendered_file_tasks.as_deref_mut(),
                    excludes: &excludes,
                },
            )
            .await?;
            for task in &mut loaded {
                task.remote_include = remote.clone();
                // Both task kinds are reachable only because some config's
                // `task_config.includes` named this path, so both answer to that
                // config's precedence when an inline block claims their name.
                task.config_precedence = include_config_precedence;
                apply_task_config_inputs(task, config, &task_config.inputs).await?;
                apply_task_config_cache_default(task, &task_config.cache);
                apply_task_config_rust_cache_default(task, &task_config.rust_cache);
                task_config.environment.apply(task)?;
            }
            if is_global || is_global_task_include_path(&p) {
                mark_tasks_as_global(&mut loaded);
            }
            file_tasks.extend(loaded);
        }
    }

    Ok(TaskSources {
        file_tasks,
        config_tasks,
        task_config,
    })
}

fn trust_check_task_include(path: &Path, require_trust: bool) -> Result<()> {
    // A TOML task file over the size limit is refused by the loader anyway;
    // refuse it here, before the trust check below reads it whole.
    if path.extension().is_some_and(|e| e == "toml") {
        file::ensure_config_file_size(path)?;
    }
    if require_trust && !is_global_task_include_path(path) && task_include_requires_trust(path) {
        trust_check(path)?;
    }
    Ok(())
}

/// A downloaded remote task file renders like a local one, so it needs the
/// trust of the config that names it under the same rule as a local include.
pub(crate) fn trust_check_remote_task_file(config_source: &Path, file: &Path) -> Result<()> {
    if !is_path_trusted(config_source) && remote_task_file_requires_trust(file) {
        trust_check(config_source)?;
    }
    Ok(())
}

/// [`task_include_requires_trust`], reading the file the way the remote loader
/// does: only its `#MISE` headers render, even when its name ends in `.toml`,
/// so a template elsewhere in the script needs no trust.
fn remote_task_file_requires_trust(path: &Path) -> bool {
    if Settings::try_get().is_ok_and(|settings| settings.paranoid.config()) {
        return true;
    }
    let Ok(body) = file::read_config_to_string(path) else {
        return true;
    };
    crate::task::header_has_decoded_template(&body) || crate::task::header_declares_secrets(&body)
}

/// Template-free task files are inert at load time: TOML and `#MISE` headers
/// are only parsed, and the scripts themselves only run on an explicit
/// `mise run`. Templates are what can execute code while tasks load (via
/// exec() etc. when task fields render), so only files containing template
/// syntax need trust. Paranoid mode keeps requiring trust for everything.
fn task_include_requires_trust(path: &Path) -> bool {
    // A process that requires explicit trust has no typed `mise run` behind it,
    // so nothing has consented to the scripts either.
    if Settings::try_get().is_ok_and(|settings| settings.paranoid.config())
        || config_file::requires_explicit_trust()
    {
        return true;
    }
    // Bounded: a file too large to scan needs trust like one that cannot be read.
    let Ok(body) = file::read_config_to_string(path) else {
        // can't read it — fall back to requiring trust
        return true;
    };
    // literal delimiters, plus escaped ones (e.g. `{{`) that decode to
    // templates after TOML parsing and would render at load time
    contains_template_syntax(&body)
        || crate::task::file_has_decoded_template(path, &body)
        || crate::task::file_declares_secrets(path, &body)
}

async fn load_task_file(
    config: &Arc<Config>,
    path: &Path,
    config_root: &Path,
    task_config: &ResolvedTaskConfig,
    templates: &TaskDefinitions,
    monorepo_cf: Option<&Arc<dyn ConfigFile>>,
    mut rendered_file_tasks: Option<&mut RenderedTaskCache>,
) -> Result<Vec<Task>> {
    let raw = file::read_config_to_string_async(path).await?;
    if crate::secrets::may_name_secrets(&raw)
        && let Ok(table) = toml::from_str::<toml::Table>(&raw)
    {
        crate::secrets::check_toml_locations(crate::secrets::TomlShape::TaskInclude, &table, path)?;
    }
    let mut tasks = toml::from_str::<Tasks>(&raw)
        .map_err(|err| {
            config_file::diagnostic::hide_linked_source_below(err, &raw, path, config_root)
        })
        .wrap_err_with(|| format!("Error parsing task file: {}", display_path(path)))?
        .0;
    for (name, task) in &mut tasks {
        task.name = name.clone();
        task.record_late_secret_env(path)?;
        task.config_source = path.to_path_buf();
        task.config_root = Some(config_root.to_path_buf());
        task.is_toml_include = true;
        if let Some(monorepo_cf) = monorepo_cf {
            task.cf = Some(monorepo_cf.clone());
        }
    }
    let mut out = vec![];
    for (_, mut task) in tasks {
        let config_root = config_root.to_path_buf();
        resolve_task_template(&mut task, templates)?;
        let cache_key = rendered_task_cache_key(&task);
        if let Some(cached) = rendered_file_tasks
            .as_deref()
            .and_then(|cache| cache.get(&cache_key))
        {
            out.push(cached.clone());
            continue;
        }
        if task.dir.is_none() {
            task.dir = task_config.dir.clone();
        }
        if task.shell.is_none() {
            task.shell = task_config.shell.clone();
        }
        match task.render(config, &config_root).await {
            Ok(()) => {
                if let Some(cache) = rendered_file_tasks.as_deref_mut() {
                    cache.insert(cache_key, task.clone());
                }
                out.push(task);
            }
            Err(err) => {
                if monorepo_cf.is_some() {
                    warn!(
                        "Failed to render task {} in {}: {err:#}. Task will not be available.",
                        task.name,
                        display_path(path)
                    );
                } else {
                    warn!("rendering task: {err:?}");
                    if let Some(cache) = rendered_file_tasks.as_deref_mut() {
                        cache.insert(cache_key, task.clone());
                    }
                    out.push(task);
                }
            }
        }
    }
    Ok(out)
}

fn mark_tasks_as_global(tasks: &mut [Task]) {
    tasks.iter_mut().for_each(|task| task.global = true);
}

#[cfg(test)]
#[cfg(unix)]
mod tests;

/// Deliberately not inside the `#[cfg(unix)]` module above: `first_config_file` only inspects
/// path components, so it behaves the same everywhere and is worth compiling on Windows too.
#[cfg(test)]
mod write_target_tests {
    use super::*;

    fn set(paths: &[&str]) -> IndexSet<PathBuf> {
        paths.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn env_config_files_are_not_global_write_targets() {
        let envs = vec!["work".to_string()];
        for f in [
            "config.work.toml",
            "config.work.local.toml",
            "mise.work.toml",
        ] {
            assert!(is_active_env_config_file(Path::new(f), &envs), "{f}");
        }
        for f in [
            "config.toml",
            "config.local.toml",
            "config.other.toml",
            "work.toml",
        ] {
            assert!(!is_active_env_config_file(Path::new(f), &envs), "{f}");
        }
    }

    #[test]
    fn a_drop_in_never_wins_over_tool_versions() {
        // `global_config_files` lists conf.d entries first and appends `~/.tool-versions`
        // after them, so a fallback that does not skip drop-ins hands one back — and
        // `global_config_path`, refusing it, creates a `config.toml` rather than writing to
        // the `.tool-versions` sitting right there. That ordering is what makes this
        // reachable, and nothing else in the file says so.
        let files = set(&[
            "/home/u/.config/mise/conf.d/10-drop-in.toml",
            "/home/u/.tool-versions",
        ]);
        assert_eq!(
            first_config_file(&files),
            Some(&PathBuf::from("/home/u/.tool-versions"))
        );
    }

    #[test]
    fn nothing_but_drop_ins_means_no_write_target() {
        // Every caller turns `None` into a config of its own, which is the wanted outcome:
        // creating `config.toml` beats editing somebody's drop-in.
        let files = set(&["/home/u/.config/mise/conf.d/10-drop-in.toml"]);
        assert_eq!(first_config_file(&files), None);
    }

    #[test]
    fn a_real_config_still_wins() {
        let files = set(&[
            "/home/u/.config/mise/conf.d/10-drop-in.toml",
            "/home/u/.config/mise/config.toml",
            "/home/u/.tool-versions",
        ]);
        assert_eq!(
            first_config_file(&files),
            Some(&PathBuf::from("/home/u/.config/mise/config.toml"))
        );
    }

    #[test]
    fn tool_versions_stays_deprioritised() {
        // Control for the change above: `.tool-versions` is skipped *while choosing* and only
        // returned when nothing else qualifies. Excluding drop-ins outright must not turn that
        // preference into an exclusion as well.
        let files = set(&["/proj/.tool-versions", "/proj/mise.toml"]);
        assert_eq!(
            first_config_file(&files),
            Some(&PathBuf::from("/proj/mise.toml"))
        );

        let only = set(&["/proj/.tool-versions"]);
        assert_eq!(
            first_config_file(&only),
            Some(&PathBuf::from("/proj/.tool-versions"))
        );
    }

    #[test]
    fn global_section_updates_its_single_existing_file() {
        let existing = PathBuf::from("/home/u/.config/mise/conf.d/10-tools.toml");
        let resolved = resolve_target_config_path(ConfigPathOptions {
            global: true,
            global_write_section: Some(GlobalWriteSection::Tools),
            existing_global_paths: IndexSet::from_iter([existing.clone()]),
            ..Default::default()
        })
        .unwrap();

        assert_eq!(resolved, existing);
    }

    #[test]
    fn global_section_requires_an_explicit_path_for_ambiguous_existing_entries() {
        let err = resolve_target_config_path(ConfigPathOptions {
            global: true,
            global_write_section: Some(GlobalWriteSection::Packages),
            existing_global_paths: IndexSet::from_iter([
                PathBuf::from("/home/u/.config/mise/conf.d/10-packages.toml"),
                PathBuf::from("/home/u/.config/mise/conf.d/20-packages.toml"),
            ]),
            ..Default::default()
        })
        .unwrap_err();

        assert!(err.to_string().contains("use --path to choose one"));
    }

    #[test]
    fn global_section_requires_separate_commands_for_existing_and_new_entries_with_different_targets()
     {
        let err = resolve_target_config_path(ConfigPathOptions {
            global: true,
            global_write_section: Some(GlobalWriteSection::Tools),
            existing_global_paths: IndexSet::from_iter([PathBuf::from(
                "/home/u/.config/mise/conf.d/legacy-tools.toml",
            )]),
            has_new_global_entries: true,
            ..Default::default()
        })
        .unwrap_err();

        assert!(err.to_string().contains("run separate commands"));
    }

    #[test]
    fn explicit_global_path_wins_over_section_defaults_and_existing_entries() {
        let explicit = PathBuf::from("/tmp/explicit-tools.toml");
        let resolved = resolve_target_config_path(ConfigPathOptions {
            global: true,
            path: Some(explicit.clone()),
            global_write_section: Some(GlobalWriteSection::Tools),
            existing_global_paths: IndexSet::from_iter([PathBuf::from(
                "/home/u/.config/mise/conf.d/10-tools.toml",
            )]),
            ..Default::default()
        })
        .unwrap();

        assert_eq!(resolved, explicit.absolutize().unwrap().to_path_buf());
    }

    #[test]
    fn global_section_targets_must_be_discoverable() {
        let temp = tempfile::tempdir().unwrap();
        let config_root = temp.path().join("mise");
        let fragment = config_root.join("conf.d/10-tools.toml");

        let incoming = BTreeSet::from([fragment.clone()]);
        let discovered = config_files_with_incoming(&config_root, &incoming);
        assert!(config_set_contains(&discovered, &fragment));

        let ignored = config_root.join("tools.toml");
        let incoming = BTreeSet::from([ignored.clone()]);
        let discovered = config_files_with_incoming(&config_root, &incoming);
        assert!(!config_set_contains(&discovered, &ignored));
    }
}

/// The tools that the tasks of one config file scope to themselves: concrete requests, plus the
/// tools whose version is a template. A template can only be rendered in the context of the
/// project, which a prune run from elsewhere does not have.
///
/// The tasks are the config's inline ones and those its project's task includes add (see
/// [`included_task_definitions`]). Each task is resolved the way `mise run` resolves it, with
/// `extends` templates merged in. A tool that fails to parse is skipped without hiding the
/// others.
pub(crate) fn task_tool_requests(
    config: &Arc<Config>,
    tracked: &ConfigMap,
    cf: &Arc<dyn ConfigFile>,
    workspace_graphs: &mut WorkspaceGraphCache,
) -> (Vec<crate::toolset::ToolRequest>, Vec<String>) {
    // Templates come from this project: the tracked configs under the same roots and the
    // directories above it, plus the global configs, never from the directory prune happens to
    // run in. A nearer root wins. Configs that share a root have a precedence that only a full
    // load knows, so every one of them counts and the versions of all candidates are kept.
    let dir = config_file::config_root::config_root(cf.get_path());
    let globals = config
        .config_files
        .values()
        .filter(|other| is_global_config(other.get_path()));
    let mut seen = std::collections::HashSet::new();
    let mut layers: BTreeMap<(bool, usize), Vec<&Arc<dyn ConfigFile>>> = BTreeMap::new();
    for other in globals
        .chain(tracked.values())
        .chain([cf])
        .filter(|other| seen.insert(other.get_path().to_path_buf()))
        .filter(|other| {
            other.get_path() == cf.get_path()
                || is_global_config(other.get_path())
                || dir.starts_with(config_file::config_root::config_root(other.get_path()))
        })
    {
        // Global configs form one layer: their depth says nothing about their precedence.
        let key = if is_global_config(other.get_path()) {
            (false, 0)
        } else {
            (
                true,
                config_file::config_root::config_root(other.get_path())
                    .components()
                    .count(),
            )
        };
        layers.entry(key).or_default().push(other);
    }
    let tasks = cf
        .tasks()
        .into_iter()
        .map(|task| (task.clone(), cf.get_path().to_path_buf()))
        .chain(included_task_definitions(cf, &dir, tracked))
        .collect::<Vec<_>>();
    // `[monorepo.task_defaults]` of a monorepo root above this project fill in what its tasks
    // leave unset, tools included.
    let workspace_defaults = TaskDefinitions {
        workspace_defaults: if tasks.is_empty() {
            None
        } else {
            let project_configs = layers
                .iter()
                .filter(|((local, _), _)| *local)
                .flat_map(|(_, layer)| layer.iter())
                .map(|other| (other.get_path().to_path_buf(), Arc::clone(other)))
                .collect::<ConfigMap>();
            project_workspace_task_defaults(&project_configs, &dir, workspace_graphs)
        },
        ..Default::default()
    };
    let mut requests = vec![];
    let mut templated = vec![];
    for (mut task, source) in tasks {
        if task.config_root.is_none() {
            task.config_root = Some(dir.clone());
        }
        let mut candidates = vec![];
        match &task.extends {
            None => candidates.push(task.clone()),
            Some(name) => {
                let layer = layers
                    .values()
                    .rev()
                    .find(|layer| layer.iter().any(|f| f.task_templates().contains_key(name)));
                for other in layer.into_iter().flatten() {
                    let Some(template) = other.task_templates().get(name).cloned() else {
                        continue;
                    };
                    let mut definitions = TaskDefinitions::default();
                    definitions.templates.insert(
                        name.clone(),
                        SourcedTaskTemplate {
                            template,
                            source: other.get_path().to_path_buf(),
                        },
                    );
                    let mut task = task.clone();
                    if apply_named_template(&mut task, &definitions).is_ok() {
                        candidates.push(task);
                    }
                }
                if candidates.is_empty() {
                    warn!(
                        "task {} in {} extends template {name}, which was not found",
                        task.name,
                        display_path(&source)
                    );
                    candidates.push(task.clone());
                }
            }
        }
        for mut task in candidates {
            apply_workspace_task_default(&mut task, &workspace_defaults);
            for (tool, value) in &task.tools {
                if value.has_template() {
                    templated.push(tool.clone());
                    continue;
                }
                match value.to_tool_arg(tool) {
                    Ok(arg) => requests.extend(arg.tvr),
                    Err(err) => warn!(
                        "error loading tool {tool} of task {} in {}: {err:#}",
                        task.name,
                        display_path(&source)
                    ),
                }
            }
        }
    }
    (requests, templated)
}

/// Workspace project graphs by monorepo root, discovered once per prune run and shared by the
/// tracked configs of each monorepo. `None` records a discovery that failed.
pub(crate) type WorkspaceGraphCache =
    HashMap<PathBuf, Option<Arc<crate::task::workspace::WorkspaceProjectGraph>>>;

/// The task defaults of the monorepo `config_files` are in, for the project at `dir`. The
/// workspace providers only run when `config_roots` and the project overrides do not already
/// name `dir`: they read every manifest of the workspace, and most projects are named.
fn project_workspace_task_defaults(
    config_files: &ConfigMap,
    dir: &Path,
    workspace_graphs: &mut WorkspaceGraphCache,
) -> Option<WorkspaceTaskDefaults> {
    let defaults = workspace_task_defaults(config_files, None)?;
    if defaults.project_roots.contains(&file::desymlink_path(dir)) {
        return Some(defaults);
    }
    let root = find_monorepo_config(config_files)?.root;
    let graph = workspace_graphs
        .entry(root)
        .or_insert_with_key(
            |root| match discover_workspace_project_graph(config_files) {
                Ok(graph) => Some(Arc::new(graph)),
                Err(err) => {
                    warn!(
                        "error discovering the workspace projects of {}: {err:#}",
                        display_path(root)
                    );
                    None
                }
            },
        )
        .clone();
    match graph {
        Some(graph) => workspace_task_defaults(config_files, Some(&graph)),
        None => Some(defaults),
    }
}

/// The tasks that the task includes of `cf`'s project at `dir` define, each with the file it came
/// from: TOML task files and executable task scripts found through `task_config.includes`, or
/// through the default task directories when no config sets them. They are read unrendered,
/// since only their `tools` matter to the caller, and remote includes are not fetched. A file
/// that fails to read or parse is skipped with a warning.
///
/// The includes and excludes `dir` resolves to only see the configs of the current `MISE_ENV`,
/// so `cf`'s own `task_config.includes` are added to them, filtered by `cf`'s own excludes when
/// it sets any: a tracked `mise.prod.toml` still names its task files when prune runs without
/// `MISE_ENV=prod`.
fn included_task_definitions(
    cf: &Arc<dyn ConfigFile>,
    dir: &Path,
    config_files: &ConfigMap,
) -> Vec<(Task, PathBuf)> {
    let includes = task_includes_for_dir(dir, config_files).unwrap_or_else(|err| {
        warn!(
            "error loading task includes of {}: {err:#}",
            display_path(dir)
        );
        vec![]
    });
    let excludes = task_excludes_for_dir(dir, config_files).unwrap_or_else(|err| {
        warn!(
            "error loading task excludes of {}: {err:#}",
            display_path(dir)
        );
        vec![]
    });
    let mut groups = vec![];
    match cf.task_config_includes() {
        Ok(Some(own)) => {
            let root = cf.config_root();
            let own_excludes = match cf.task_config_excludes() {
                Ok(Some(own_excludes)) => resolve_task_excludes(&root, &own_excludes),
                Ok(None) => excludes.clone(),
                Err(err) => {
                    warn!(
                        "error loading task excludes of {}: {err:#}",
                        display_path(cf.get_path())
                    );
                    excludes.clone()
                }
            };
            let own = own
                .iter()
                .filter(|p| !is_remote_task_include(p))
                .flat_map(|p| expand_task_include(&root, p))
                .collect::<Vec<_>>();
            groups.push((own, own_excludes));
        }
        Ok(None) => {}
        Err(err) => warn!(
            "error loading task includes of {}: {err:#}",
            display_path(cf.get_path())
        ),
    }
    groups.insert(0, (includes, excludes));
    let is_toml = |p: &Path| p.extension().is_some_and(|e| e == "toml");
    // An include is walked again under different excludes, which can let through a file the
    // first walk skipped, so it is the task files that are read once. A script's task is named
    // after its path below the include, and task defaults match by name, so a script reached
    // through two includes is read for each.
    let mut walked = HashSet::new();
    let mut read = HashSet::new();
    let mut tasks = vec![];
    for (includes, excludes) in groups {
        let all_excludes = Settings::get()
            .task
            .disable_paths
            .iter()
            .chain(&excludes)
            .cloned()
            .collect::<Vec<_>>();
        for include in includes {
            if !walked.insert((include.clone(), excludes.clone()))
                || is_task_path_excluded(&include, &excludes)
            {
                continue;
            }
            let files = if include.is_dir() {
                match collect_task_files(&include, &all_excludes) {
                    Ok(files) => files
                        .into_iter()
                        .filter(|p| match is_toml(p) {
                            true => !is_mise_config_file_in_task_include(&include, p),
                            false => file::is_executable(p),
                        })
                        .collect(),
                    Err(err) => {
                        warn!(
                            "error reading task directory {}: {err:#}",
                            display_path(&include)
                        );
                        continue;
                    }
                }
            } else if is_toml(&include) {
                vec![include.clone()]
            } else {
                continue;
            };
            for path in files {
                let include_key = (!is_toml(&path)).then(|| include.clone());
                if !read.insert((path.clone(), include_key)) {
                    continue;
                }
                let loaded = if is_toml(&path) {
                    file::read_config_to_string(&path).and_then(|raw| {
                        Ok(toml::from_str::<Tasks>(&raw)?
                            .0
                            .into_iter()
                            .map(|(name, mut task)| {
                                task.name = name;
                                task
                            })
                            .collect())
                    })
                } else {
                    Task::from_path_unrendered_with_cf(&path, &include, dir, None).map(|t| vec![t])
                };
                match loaded {
                    Ok(loaded) => tasks.extend(loaded.into_iter().map(|task| (task, path.clone()))),
                    Err(err) => warn!("error loading task file {}: {err:#}", display_path(&path)),
                }
            }
        }
    }
    tasks
}
