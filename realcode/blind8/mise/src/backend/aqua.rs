use crate::backend::backend_type::BackendType;
use crate::backend::options::{BackendOptions, VersionOrder};
use crate::backend::{SecurityFeature, VersionInfo};

use crate::args::BackendArg;
use crate::backend::platform_target::PlatformTarget;
use crate::backend::static_helpers::{ensure_safe_relative_bin_path, get_filename_from_url};
use crate::config::{Settings, SettingsExt};
use crate::dirs;
use crate::file::{ExtractOptions, ExtractionFormat};
use crate::http::HTTP;
use crate::install_context::InstallContext;
use crate::lockfile::{ChecksumSource, PlatformInfo, ProvenanceType};
use crate::path::{Path, PathBuf, PathExt};
use crate::platform::{ARCH, OS};
use crate::plugins::VERSION_REGEX;
use crate::registry::REGISTRY;
use crate::toolset::{EPHEMERAL_OPT_KEYS, ToolRequest, ToolVersion, ToolVersionOptions};
use crate::ui::progress_report::SingleReport;
use crate::{
    aqua::aqua_registry_wrapper::{
        AQUA_REGISTRY, AquaChecksum, AquaChecksumType, AquaCosign, AquaGithubArtifactAttestations,
        AquaMinisign, AquaMinisignType, AquaPackage, AquaPackageType,
    },
    cache::{CacheManager, CacheManagerBuilder},
};
use crate::{
    backend::{self, Backend, MISE_BINS_DIR, strict_metadata},
    config::Config,
};
use crate::{file, github, minisign};
use aqua_registry::AquaRegistryError;
use async_trait::async_trait;
use eyre::{ContextCompat, Result, WrapErr, bail, eyre};
use indexmap::IndexSet;
use itertools::Itertools;
use regex::Regex;
use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::LazyLock;
use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fs,
    sync::Arc,
};
use url::Url;

#[derive(Debug)]
pub(crate) struct AquaBackend {
    ba: Arc<BackendArg>,
    id: String,
    version_tags_cache: CacheManager<Vec<(String, String)>>,
    verification_target: Option<PlatformTarget>,
    /// The tool's `libc` option, set on the copy that installs or locks it. See
    /// [`AquaBackend::with_tool_libc`].
    tool_libc: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
struct AquaOptions<'a> {
    values: BackendOptions<'a>,
}

struct MinisignCheck<'a> {
    artifact_path: &'a Path,
    artifact_filename: &'a str,
    pkg: &'a AquaPackage,
    config: &'a AquaMinisign,
    checksum: Option<&'a AquaChecksum>,
    version: &'a str,
    download_dir: &'a Path,
    progress: Option<&'a dyn SingleReport>,
}

impl<'a> AquaOptions<'a> {
    fn new(raw: &'a ToolVersionOptions) -> Self {
        Self {
            values: BackendOptions::new(raw),
        }
    }

    fn symlink_bins(&self) -> bool {
        self.values.bool("symlink_bins")
    }

    /// The per-tool `libc` option, normalized to `gnu` or `musl`. It makes Linux asset
    /// selection strict for this tool, like the `libc` setting does for every tool.
    fn libc(&self) -> Result<Option<&'static str>> {
        let Some(value) = self.values.raw().opts.get("libc") else {
            return Ok(None);
        };
        match value.as_str() {
            Some("gnu" | "glibc") => Ok(Some("gnu")),
            Some("musl") => Ok(Some("musl")),
            _ => bail!(
                "invalid aqua `libc` option {value}: expected \"glibc\", \"gnu\", or \"musl\""
            ),
        }
    }

    /// The per-tool `slsa_signer_identity` and `slsa_signer_issuer` options. They supply the
    /// expected SLSA signer when the registry entry names the provenance asset but not who
    /// signed it, and take precedence over registry metadata.
    fn slsa_signer(&self) -> Result<Option<(&'a str, &'a str)>> {
        // A present but empty or non-string value is an error: skipping it would silently
        // turn off the SLSA check the user asked for.
        let signer_option = |key: &str| -> Result<Option<&'a str>> {
            let Some(value) = self.values.raw().opts.get(key) else {
                return Ok(None);
            };
            match value.as_str() {
                Some(s) if !s.is_empty() => Ok(Some(s)),
                _ => bail!("invalid aqua `{key}` option {value}: expected a non-empty string"),
            }
        };
        match (
            signer_option("slsa_signer_identity")?,
            signer_option("slsa_signer_issuer")?,
        ) {
            (Some(identity), Some(issuer)) => Ok(Some((identity, issuer))),
            (None, None) => Ok(None),
            _ => bail!("aqua `slsa_signer_identity` and `slsa_signer_issuer` must be set together"),
        }
    }

    fn var(&self, name: &str) -> Result<Option<String>> {
        self.canonical_var_options()?
            .get(name)
            .map(|value| toml_string_var(&format!("vars.{name}"), value).map(Some))
            .unwrap_or(Ok(None))
    }

    fn lockfile_options(&self) -> Result<BTreeMap<String, String>> {
        let mut options: BTreeMap<String, String> = self
            .canonical_var_options()?
            .into_iter()
            .filter_map(|(key, value)| {
                toml_value_to_string(value).map(|value| (format!("vars.{key}"), value))
            })
            .collect();
        if let Some(libc) = self.libc()? {
            options.insert("libc".to_string(), libc.to_string());
        }
        Ok(options)
    }

    fn canonical_var_options(&self) -> Result<BTreeMap<String, &toml::Value>> {
        let mut vars = BTreeMap::new();
        for (key, value) in self.values.raw().iter() {
            if matches!(
                key.as_str(),
                "symlink_bins" | "libc" | "slsa_signer_identity" | "slsa_signer_issuer"
            ) || EPHEMERAL_OPT_KEYS.contains(&key.as_str())
            {
                continue;
            }

            if key == "vars" {
                if let toml::Value::Table(table) = value {
                    Self::insert_nested_var_options(&mut vars, table)?;
                }
                continue;
            }

            let key = if let Some(key) = key.strip_prefix("vars.") {
                key.to_string()
            } else {
                key.clone()
            };
            Self::insert_var_option(&mut vars, key, value)?;
        }
        Ok(vars)
    }

    fn insert_var_option<'b>(
        result: &mut BTreeMap<String, &'b toml::Value>,
        key: String,
        value: &'b toml::Value,
    ) -> Result<()> {
        if result.contains_key(&key) {
            bail!("conflicting aqua var `{key}`: use only one spelling");
        }
        result.insert(key, value);
        Ok(())
    }

    fn insert_nested_var_options<'b>(
        result: &mut BTreeMap<String, &'b toml::Value>,
        table: &'b toml::Table,
    ) -> Result<()> {
        for (key, value) in table {
            Self::insert_var_option(result, key.clone(), value)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AquaFileLink {
    src: PathBuf,
    dst: PathBuf,
    hard: bool,
    explicit_link: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GithubAttestationStatus {
    Verified,
    Unavailable,
}

/// What `install_version_` needs before it fetches anything, and the point at which aqua can
/// already tell that a version is not installable on this machine.
/// The version as aqua templates it (`{{.Version}}`), and the release tag it
/// names, when mise knows it.
#[derive(Clone, Copy)]
struct AquaVersion<'a> {
    v: &'a str,
    release_tag: Option<&'a str>,
}

struct ResolvedPackage {
    platform_key: String,
    existing_platform: Option<String>,
    existing_url_api: Option<String>,
    pkg: AquaPackage,
    v: String,
    v_prefixed: Option<String>,
    /// `v`, when it is the release tag and not a guess: the tag was listed, or
    /// is in the lockfile's URL and maps back to the version, or the recipe's
    /// `version_prefix` makes it.
    release_tag: Option<String>,
}

/// The versions an aqua fuzzy `query` selects. Resolution runs this for every
/// aqua tool, so only `latest`, which has a fixed pattern, uses a regex; any
/// other query is matched as a literal, optionally followed by `-` or `.` and
/// at least one more character.
pub(crate) fn aqua_fuzzy_match(
    versions: Vec<String>,
    query: &str,
    filter_prereleases: bool,
) -> Vec<String> {
    static LATEST: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\D*[0-9].*([-.].+)?$").unwrap());
    let latest = query == "latest";
    let exact = if latest {
        r"\D*[0-9].*".to_string()
    } else {
        regex::escape(query)
    };
    let matches = |v: &str| {
        if latest {
            return LATEST.is_match(v);
        }
        v.strip_prefix(query).is_some_and(|rest| {
            rest.is_empty()
                || rest
                    .strip_prefix(['-', '.'])
                    .is_some_and(|tail| !tail.is_empty() && !tail.contains('\n'))
        })
    };
    versions
        .into_iter()
        .filter(|v| {
            if exact == *v {
                return true;
            }
            if filter_prereleases && VERSION_REGEX.is_match(v) {
                return false;
            }
            matches(v)
        })
        .collect()
}

#[async_trait]
impl Backend for AquaBackend {
    fn version_order(&self, opts: &ToolVersionOptions) -> Result<VersionOrder> {
        VersionOrder::from_options_or(opts, self.ba.registry_version_order().unwrap_or_default())
    }

    fn get_type(&self) -> BackendType {
        BackendType::Aqua
    }

    async fn description(&self) -> Option<String> {
        // `self.id`, not `ba.tool_name`: the registry is keyed by aqua package name, and
        // `from_arg` is what turns a bare `jq` into `jqlang/jq`. Looking it up by the
        // short name misses every tool named the usual way, and `.ok()` hides that.
        AQUA_REGISTRY
            .package(&self.id)
            .await
            .ok()
            .and_then(|p| p.description.clone())
    }

    async fn install_operation_count(&self, tv: &ToolVersion, _ctx: &InstallContext) -> usize {
        let pkg = match self.package_with_version_candidates(tv).await {
            Ok(pkg) => pkg,
            Err(_) => return 3, // fall back to default
        };
        let format = pkg.format(&tv.version, os(), arch()).unwrap_or_default();

        let mut count = 1; // download
        // Count checksum operation if explicitly configured OR if this is a GitHub release
        // (GitHub API may provide a digest even without explicit checksum config)
        if pkg.checksum.as_ref().is_some_and(|c| c.enabled())
            || pkg.package_type() == AquaPackageType::GithubRelease
        {
            count += 1;
        }
        if needs_extraction(format, &pkg.package_type()) {
            count += 1;
        }
        count
    }

    async fn security_info(&self) -> Vec<SecurityFeature> {
        // Keyed by aqua package name, same as `description` above.
        let pkg = match AQUA_REGISTRY.package(&self.id).await {
            Ok(pkg) => pkg,
            Err(_) => return vec![],
        };

        // Release assets inform only the checksum entry: mise can verify the
        // GitHub API digest even without checksum config.
        let release_assets = if !pkg.repo_owner.is_empty() && !pkg.repo_name.is_empty() {
            let repo = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
            github::list_releases(&repo)
                .await
                .ok()
                .and_then(|releases| releases.first().cloned())
                .map(|r| r.assets)
                .unwrap_or_default()
        } else {
            vec![]
        };

        Self::security_features(&pkg, &release_assets)
    }

    fn ba(&self) -> &Arc<BackendArg> {
        &self.ba
    }

    async fn _list_remote_versions(&self, _config: &Arc<Config>) -> Result<Vec<VersionInfo>> {
        let pkg = match AQUA_REGISTRY.package(&self.id).await {
            Ok(pkg) => pkg,
            Err(e) => {
                backend::record_version_listing_failure(&self.ba, &e);
                warn_once!("Remote versions cannot be fetched for {}: {e:#}", self.id);
                return Ok(vec![]);
            }
        };

        if pkg.repo_owner.is_empty() || pkg.repo_name.is_empty() {
            warn_once!(
                "aqua package {} has no repo_owner and/or repo_name, so its versions cannot be listed. Pin an exact version to install it.",
                self.id
            );
            return Ok(vec![]);
        }

        // Always fetch the pre-release superset; the shared remote-versions
        // cache stores it untouched and the trait's read path filters on
        // `VersionInfo.prerelease` based on the current tool opts.
        let tags_with_timestamps = match get_tags_with_release_dates(&pkg).await {
            Ok(tags) => tags,
            Err(e) => {
                if strict_metadata() {
                    return Err(e).wrap_err_with(|| {
                        format!("failed to fetch aqua release metadata for {}", self.id)
                    });
                }
                backend::record_version_listing_failure(&self.ba, &e);
                warn_once!("Remote versions cannot be fetched for {}: {e:#}", self.id);
                return Ok(vec![]);
            }
        };

        let target = PlatformTarget::from_current();
        let (target_os, target_arch) = Self::to_aqua_platform(&target);
        let target_libc = Self::target_variant_libc(&target, None);
        let mut versions = Vec::new();
        for (tag, created_at, prerelease) in tags_with_timestamps.into_iter().rev() {
            let (version, versioned_pkg) = match versioned_package_from_tag(
                &pkg,
                &tag,
                target_os,
                target_arch,
                target_libc.as_deref(),
            ) {
                Ok(Some(versioned)) => versioned,
                Ok(None) => continue,
                Err(e) => {
                    warn!("[{}] aqua version filter error: {e}", self.ba());
                    continue;
                }
            };

            // Validate the package has assets
            if package_has_asset(&versioned_pkg) {
                let release_url = format!(
                    "https://github.com/{}/{}/releases/tag/{}",
                    pkg.repo_owner, pkg.repo_name, tag
                );
                versions.push(VersionInfo {
                    version,
                    created_at,
                    release_url: Some(release_url),
                    prerelease,
                    ..Default::default()
                });
            }
        }
        Ok(versions)
    }

    /// Date one `github_tag` version for the release-age cutoff: the listing
    /// dates only what mise-versions knows, and a commit lookup for every tag
    /// would cost thousands of requests, so resolution asks for the few
    /// candidates it is deciding on.
    async fn fetch_version_created_at(
        &self,
        _config: &Arc<Config>,
        version: &str,
    ) -> Result<Option<String>> {
        let pkg = AQUA_REGISTRY.package(&self.id).await?;
        if pkg.version_source.as_deref() != Some("github_tag")
            || pkg.repo_owner.is_empty()
            || pkg.repo_name.is_empty()
        {
            return Ok(None);
        }
        // The tag comes from the same dated listing the candidate came from, not
        // the names-only cache, which refreshes separately and can lag a new tag.
        let target = PlatformTarget::from_current();
        let (target_os, target_arch) = Self::to_aqua_platform(&target);
        let target_libc = Self::target_variant_libc(&target, None);
        let mut tag = None;
        // Newest first and only tags with an asset, the same selection
        // `_list_remote_versions` makes, so the date is the listed version's.
        for (candidate, _, _) in get_tags_with_release_dates(&pkg).await?.into_iter().rev() {
            if let Ok(Some((v, versioned_pkg))) = versioned_package_from_tag(
                &pkg,
                &candidate,
                target_os,
                target_arch,
                target_libc.as_deref(),
            ) && v == version
                && package_has_asset(&versioned_pkg)
            {
                tag = Some(candidate);
                break;
            }
        }
        let Some(tag) = tag else {
            return Ok(None);
        };
        github::tag_commit_date(&format!("{}/{}", pkg.repo_owner, pkg.repo_name), &tag).await
    }

    // No `latest_stable_version` override: the trait tries
    // `latest_stable_version_info` first and only falls back to the string
    // variant when it returns `None`. Delegating one to the other would repeat
    // the registry lookup and the `/releases/latest` request to reach the same
    // `None`.
    async fn latest_stable_version_info(
        &self,
        config: &Arc<Config>,
    ) -> Result<Option<VersionInfo>> {
        let opts = config.get_tool_opts_with_overrides(&self.ba).await?;
        if self.include_prereleases(&opts) {
            return Ok(None);
        }
        let tool_libc = AquaOptions::new(&opts).libc()?;
        self.latest_marked_release_info(tool_libc).await
    }

    /// aqua knows, from the registry entry alone, when a version cannot be installed here:
    /// `no_asset`, an `error_message`, a platform outside `supported_envs`, or a package type
    /// this backend does not implement. `validate` has always said so during the install; this
    /// makes `--dry-run` ask the same question before answering "would install".
    async fn verify_install_feasible(&self, _ctx: &InstallContext, tv: &ToolVersion) -> Result<()> {
        self.resolve_validated_package(tv).await.map(|_| ())
    }

    async fn install_version_(
        &self,
        ctx: &InstallContext,
        mut tv: ToolVersion,
    ) -> Result<ToolVersion> {
        if let Some(backend) = self.with_tool_libc(&tv)? {
            return backend.install_version_(ctx, tv).await;
        }
        let ResolvedPackage {
            platform_key,
            existing_platform,
            existing_url_api,
            mut pkg,
            v,
            v_prefixed,
            release_tag,
        } = self.resolve_validated_package(&tv).await?;

        // Validate lockfile URL matches expected asset pattern from registry
        // This handles cases where the registry format changed (e.g., raw binary -> tar.gz)
        // Only validate for GithubRelease packages - other types use fixed URL formats
        // In locked mode, trust the lockfile URL without validation to avoid API calls
        let validated_url = if let Some(ref url) = existing_platform {
            if ctx.locked || pkg.package_type() != AquaPackageType::GithubRelease {
                existing_platform // Trust lockfile URL in locked mode or for non-release types
            } else {
                let cached_filename = get_filename_from_url(url);
                // Check assets for both version variants (with and without v prefix)
                let version_variants: Vec<&str> = match &v_prefixed {
                    Some(vp) => vec![v.as_str(), vp.as_str()],
                    None => vec![v.as_str()],
                };
                let matches = version_variants.iter().any(|ver| {
                    pkg.asset_strs(ver, os(), arch())
                        .unwrap_or_default()
                        .iter()
                        .any(|expected| {
                            locked_asset_matches_expected(
                                &cached_filename,
                                expected,
                                &PlatformTarget::from_current(),
                                self.tool_libc,
                            )
                        })
                });
                if matches {
                    existing_platform
                } else {
                    warn!(
                        "lockfile asset '{}' doesn't match registry, refreshing",
                        cached_filename
                    );
                    None
                }
            }
        } else {
            None
        };

        let (url, url_api, v, filename, api_digest) = if let Some(validated_url) =
            validated_url.clone()
        {
            let url = validated_url;
            let filename = get_filename_from_url(&url);
            // Determine which version variant was used based on the URL or filename
            // Check for version_prefix (e.g., "jq-" for jq), "v" prefix, or raw version
            let v = if let Some(prefix) = &pkg.version_prefix {
                let prefixed_version = format!("{prefix}{}", tv.version);
                if url.contains(&prefixed_version) || filename.contains(&prefixed_version) {
                    prefixed_version
                } else if url.contains(&format!("v{}", tv.version))
                    || filename.contains(&format!("v{}", tv.version))
                {
                    format!("v{}", tv.version)
                } else {
                    tv.version.clone()
                }
            } else if url.contains(&format!("v{}", tv.version))
                || filename.contains(&format!("v{}", tv.version))
            {
                format!("v{}", tv.version)
            } else {
                tv.version.clone()
            };
            (url, existing_url_api.clone(), v, filename, None)
        } else if ctx.locked {
            bail!(
                "No lockfile URL found for {} on platform {} (--locked mode requires pre-resolved URLs)",
                self.id,
                platform_key
            );
        } else {
            let (url, url_api, v, digest) = if pkg.package_type() == AquaPackageType::Http {
                let (url, resolved_version) =
                    resolve_aqua_http_url(&pkg, &v, v_prefixed.as_deref(), os(), arch()).await?;
                (url, None, resolved_version, None)
            } else if let Some(v_prefixed) = v_prefixed {
                // Try v-prefixed version first because most aqua packages use v-prefixed versions
                match self.get_url(&pkg, v_prefixed.as_ref()).await {
                    // If the url is already checked, use it
                    Ok((url, url_api, true, digest)) => (url, url_api, v_prefixed, digest),
                    Ok((url_prefixed, url_api_prefixed, false, digest_prefixed)) => {
                        let (url, url_api, _, digest) = self.get_url(&pkg, &v).await?;
                        // If the v-prefixed URL is the same as the non-prefixed URL, use it
                        if url == url_prefixed {
                            (url_prefixed, url_api_prefixed, v_prefixed, digest_prefixed)
                        } else {
                            // If they are different, check existence
                            let probe_url = select_github_probe_url(
                                pkg.private,
                                &url_prefixed,
                                url_api_prefixed.as_deref(),
                            );
                            match HTTP.head(probe_url).await {
                                Ok(_) => {
                                    (url_prefixed, url_api_prefixed, v_prefixed, digest_prefixed)
                                }
                                Err(_) => (url, url_api, v, digest),
                            }
                        }
                    }
                    Err(err) => {
                        let (url, url_api, _, digest) =
                            self.get_url(&pkg, &v).await.map_err(|e| err.wrap_err(e))?;
                        (url, url_api, v, digest)
                    }
                }
            } else {
                let (url, url_api, _, digest) = self.get_url(&pkg, &v).await?;
                (url, url_api, v, digest)
            };
            let filename = get_filename_from_url(&url);

            (url, url_api, v.to_string(), filename, digest)
        };

        // A lockfile's URL only hints at `v` (the prefix may not be in it), so
        // the tag is the one resolved before the URL was read.
        let release_tag = match validated_url {
            Some(_) => release_tag,
            None => selected_release_tag(&pkg, &v, release_tag.as_deref()),
        };

        let original_linux_replacement = pkg.replacements.get("linux").cloned();
        pkg = Self::apply_selected_asset_libc_replacement(pkg, os(), &filename);
        let selected_libc_sibling =
            original_linux_replacement != pkg.replacements.get("linux").cloned();

        let format = pkg.format(&v, os(), arch()).unwrap_or_default();

        // Public repos download from the browser URL; private repos return 404/HTML there
        // and must be fetched from the API asset endpoint instead.
        let download_url = select_github_download_url(pkg.private, &url, url_api.as_deref()).await;
        // verify() still compares a digest mise-versions supplied after the
        // download; it just may not pick a kept file.
        let pin_digest =
            crate::versions_host::digest_download_pin(api_digest.as_deref(), url_api.as_deref());
        self.download(ctx, &tv, &download_url, &filename, pin_digest.as_deref())
            .await?;

        // Snapshot before any mutation so verify() knows whether the lockfile
        // originally contained a checksum (vs. one we just wrote from api_digest).
        let lockfile_has_checksum = tv
            .lock_platforms
            .get(&platform_key)
            .is_some_and(|p| p.checksum.is_some());

        if validated_url.is_none() {
            let platform_info = tv.lock_platforms.entry(platform_key).or_default();
            platform_info.url = Some(url.clone());
            platform_info.url_api = url_api.clone();
            if let Some(digest) = api_digest.clone()
                && !lockfile_has_checksum
            {
                debug!("using GitHub API digest for checksum verification");
                platform_info.checksum = Some(digest);
            }
        }

        // Advance to checksum operation if applicable
        if pkg.checksum.as_ref().is_some_and(|c| c.enabled()) || api_digest.is_some() {
            ctx.pr.next_operation();
        }
        let version = AquaVersion {
            v: &v,
            release_tag: release_tag.as_deref(),
        };
        self.verify(
            ctx,
            &mut tv,
            &pkg,
            version,
            &filename,
            lockfile_has_checksum,
        )
        .await?;

        // Advance to extraction operation if applicable
        if needs_extraction(format, &pkg.package_type()) {
            ctx.pr.next_operation();
        }
        self.install(ctx, &tv, &pkg, &v, &filename, selected_libc_sibling)?;

        Ok(tv)
    }

    async fn list_bin_paths(
        &self,
        _config: &Arc<Config>,
        tv: &ToolVersion,
    ) -> Result<Vec<PathBuf>> {
        let runtime_path = tv.runtime_path();
        let mise_bins_dir = tv.install_path().join(MISE_BINS_DIR);
        let request_options = tv.request.options();
        let opts = AquaOptions::new(&request_options);
        if opts.symlink_bins() || mise_bins_dir.is_dir() {
            return Ok(vec![runtime_path.join(MISE_BINS_DIR)]);
        }

        let install_path = tv.install_path();

        // For linked versions (external symlinks created via `mise link`),
        // skip aqua registry lookup — the linked install has its own layout.
        if let Ok(Some(target)) = file::resolve_symlink(&install_path)
            && target.is_absolute()
        {
            let bin = install_path.join("bin");
            return Ok(if bin.is_dir() {
                vec![bin]
            } else {
                vec![install_path]
            });
        }

        let cache_key = opts.lockfile_options()?;
        let cache: CacheManager<Vec<PathBuf>> =
            // The cached value now holds the unfiltered candidate dirs (existence
            // checked live below), so pre-fix caches poisoned with `[]` (#6468)
            // must not be trusted. No filename version bump is needed for that:
            // `CacheManagerBuilder` folds `built_info::PKG_VERSION` into the cache
            // key, so old caches are ignored automatically once this ships in a
            // new mise version.
            CacheManagerBuilder::new(tv.cache_path().join("bin_paths.msgpack.z"))
                .with_fresh_file(install_path.clone())
                .with_fresh_duration(Settings::get().fetch_remote_versions_cache())
                .with_cache_key(format!("{cache_key:?}"))
                .build();

        let candidates = match cache
            .get_or_try_init_async(async || {
                let pkg = self.package_with_version_candidates(tv).await?;
                // Pure: no filesystem reads, so a mid-install call can never
                // cache a transient-empty result.
                Self::candidate_bin_paths_for_platform(
                    &pkg,
                    &tv.version,
                    &install_path,
                    os(),
                    arch(),
                )
            })
            .await
        {
            Ok(candidates) => candidates,
            Err(err)
                if Self::is_registry_unavailable(&err)
                    && Self::has_legacy_root_bin(&self.ba, &install_path) =>
            {
                debug!(
                    "unable to resolve current Aqua bin paths for {}: {err:#}; using compatible root-level binary layout",
                    tv.style()
                );
                return Ok(vec![runtime_path]);
            }
            Err(err) => return Err(err),
        };

        let mut paths: Vec<_> = candidates
            .iter()
            // Existence checked LIVE, on the install_path basis (matches the
            // original pre-`strip_prefix` filter). Returned paths are
            // runtime_path-based, exactly as before.
            .filter(|rel| install_path.join(rel).exists())
            .map(|rel| rel.mount(&runtime_path))
            .collect();
        if paths.is_empty() && Self::has_legacy_root_bin(&self.ba, &install_path) {
            paths.push(runtime_path);
        }
        Ok(paths)
    }

    fn resolve_lockfile_options(
        &self,
        request: &ToolRequest,
        _target: &PlatformTarget,
    ) -> Result<BTreeMap<String, String>> {
        let request_options = request.options();
        AquaOptions::new(&request_options).lockfile_options()
    }

    /// Every option that is not `symlink_bins`, `libc` or an SLSA signer is an aqua var, and
    /// the lockfile options already carry each var under its canonical `vars.<name>` key
    /// whichever way it was spelled. Adding the raw keys on top would make `foo = "1"`,
    /// `vars.foo = "1"` and `vars = { foo = "1" }` three different installs of one thing.
    ///
    /// `slsa_signer_identity` and `slsa_signer_issuer` name who is expected to have signed a
    /// provenance file. An install verified against one signer is not what a request with
    /// another signer requirement asked for, so they are part of the identity.
    /// `symlink_bins` changes the install directory.
    fn install_identity_options(&self, tv: &ToolVersion) -> BTreeMap<String, String> {
        let request_options = tv.request.options();
        let options = AquaOptions::new(&request_options);
        let mut result = options.lockfile_options().unwrap_or_default();
        for key in super::static_helpers::LISTING_ONLY_OPT_KEYS {
            result.remove(&format!("vars.{key}"));
        }
        if options.symlink_bins() {
            result.insert("symlink_bins".to_string(), "true".to_string());
        }
        if let Ok(Some((identity, issuer))) = options.slsa_signer() {
            result.insert("slsa_signer_identity".to_string(), identity.to_string());
            result.insert("slsa_signer_issuer".to_string(), issuer.to_string());
        }
        result
    }

    fn fuzzy_match_filter(
        &self,
        versions: Vec<String>,
        query: &str,
        filter_prereleases: bool,
    ) -> Vec<String> {
        aqua_fuzzy_match(versions, query, filter_prereleases)
    }

    /// Resolve platform-specific lock information for any target platform.
    /// This enables cross-platform lockfile generation without installation.
    async fn resolve_lock_info(
        &self,
        tv: &ToolVersion,
        target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        if let Some(backend) = self.with_tool_libc(tv)? {
            return backend.resolve_lock_info(tv, target).await;
        }
        let (target_os, target_arch) = Self::to_aqua_platform(target);

        // Get version tag
        let tag = match self.listed_release_tag(tv, target).await {
            Some(tag) => Some(tag),
            None => match self.get_version_tags().await {
                Ok(tags) => tags
                    .iter()
                    .find(|(version, _)| version == &tv.version)
                    .map(|(_, tag)| tag.clone()),
                Err(e) => {
                    warn!(
                        "[{}] failed to fetch version tags for lockfile, URL may be incorrect: {e}",
                        self.id
                    );
                    None
                }
            },
        };
        let tag_is_none = tag.is_none();
        if tag_is_none && !tv.version.starts_with('v') {
            debug!(
                "[{}] no tag found for version {} during lock, will try with 'v' prefix",
                self.id, tv.version
            );
        }
        // Get package and apply version/overrides directly for the target platform.
        // Using package_with_version() here would apply overrides for the current host
        // platform first, which can leak host-specific overrides into cross-platform lock.
        let pkg = AQUA_REGISTRY.package(&self.id).await?;
        let mut v = tag.clone().unwrap_or_else(|| tv.version.clone());
        let mut v_prefixed = (tag_is_none && !tv.version.starts_with('v')).then(|| format!("v{v}"));
        let raw_opts = tv.request.options();
        let opts = AquaOptions::new(&raw_opts);
        let target_libc = Self::target_variant_libc(target, self.tool_libc);
        let pkg = lock_package_for_version(
            pkg,
            &tv.version,
            tag.as_deref(),
            target_os,
            target_arch,
            target_libc.as_deref(),
        )?;
        let pkg = Self::apply_aqua_libc_replacement(
            pkg,
            target_os,
            Self::asset_libc(target, self.tool_libc),
        );
        let mut pkg = Self::apply_tool_options(pkg, &opts)?;

        // Apply version prefix if present
        if let Some(prefix) = &pkg.version_prefix
            && !v.starts_with(prefix)
        {
            v = format!("{prefix}{v}");
            v_prefixed = v_prefixed.map(|vp| {
                if vp.starts_with(prefix) {
                    vp
                } else {
                    format!("{prefix}{vp}")
                }
            });
        }
        ensure_url_safe_version(&v)?;
        let known_tag = (tag.is_some() || pkg.version_prefix.is_some()).then(|| v.clone());

        // Check if this platform is supported
        if !is_platform_supported(&pkg.supported_envs, target_os, target_arch) {
            debug!(
                "aqua package {} does not support {}: supported_envs={:?}",
                self.id,
                target.to_key(),
                pkg.supported_envs
            );
            return Err(crate::errors::Error::UnsupportedTarget(format!(
                "aqua package {} does not support {}",
                self.id,
                target.to_key()
            ))
            .into());
        }

        // Get URL and checksum for the target platform
        let (url, url_api, checksum) = match pkg.package_type() {
            AquaPackageType::GithubRelease => {
                // Try v-prefixed version first (most aqua packages use v-prefixed tags),
                // then fall back to the non-prefixed version.
                let candidates: Vec<&str> = match &v_prefixed {
                    Some(vp) => vec![vp.as_str(), v.as_str()],
                    None => vec![v.as_str()],
                };
                let mut result = (None, None, None);
                for candidate in &candidates {
                    let asset_strs = pkg.asset_strs(candidate, target_os, target_arch)?;
                    match self
                        .github_release_asset_for_target(&pkg, candidate, asset_strs, target)
                        .await
                    {
                        Ok((url, url_api, digest)) => {
                            v = candidate.to_string();
                            result = (Some(url), url_api, digest);
                            break;
                        }
                        Err(e) => {
                            debug!(
                                "Failed to get GitHub release asset for {} on {}: {}",
                                self.id,
                                target.to_key(),
                                e
                            );
                        }
                    }
                }
                result
            }
            AquaPackageType::GithubArchive => (
                Some(self.github_archive_url(&pkg, &v)),
                Some(self.github_archive_api_url(&pkg, &v)),
                None,
            ),
            AquaPackageType::GithubContent => {
                if pkg.path.is_some() {
                    (
                        Some(self.github_content_url(&pkg, &v)),
                        Some(self.github_content_api_url(&pkg, &v)),
                        None,
                    )
                } else {
                    bail!("github_content package requires `path`")
                }
            }
            AquaPackageType::Http => {
                let (url, resolved_version) =
                    resolve_aqua_http_url(&pkg, &v, v_prefixed.as_deref(), target_os, target_arch)
                        .await?;
                v = resolved_version;
                (Some(url), None, None)
            }
            _ => (None, None, None),
        };

        let name = url.as_ref().map(|u| get_filename_from_url(u));
        if let Some(filename) = &name {
            pkg = Self::apply_selected_asset_libc_replacement(pkg, target_os, filename);
        }

        // A digest from a release mise-versions served is recorded but marked,
        // unless the lock-time provenance check below downloads the artifact.
        let mut mirror_digest = checksum.is_some()
            && url_api
                .as_deref()
                .is_some_and(crate::versions_host::is_mirrored_asset_api_url);

        // Try to get checksum from checksum file if not available from GitHub API
        let mut checksum = match checksum {
            Some(c) => Some(c),
            None => match self
                .fetch_checksum_from_file(&pkg, &v, target_os, target_arch, name.as_deref(), target)
                .await
            {
                Ok(checksum) => checksum,
                Err(e) => {
                    warn!(
                        "[{}] failed to get checksum from checksum file: {e}",
                        self.ba()
                    );
                    None
                }
            },
        };

        // Detect provenance from aqua registry config
        // A registry requirement is recorded without asking anyone (a "none" answer is
        // exactly what it must not trust); the lock-time verification below still has to
        // pass.
        let required = self.registry_required_provenance(tv, &pkg);
        let mut provenance = required
            .clone()
            .or_else(|| self.detect_provenance_type(&pkg));
        if required.is_none()
            && matches!(provenance, Some(ProvenanceType::GithubAttestations))
            && let Some(digest) = checksum.as_deref().filter(|d| d.starts_with("sha256:"))
            && let Some(attestations) = &pkg.github_artifact_attestations
        {
            match self
                .detect_github_attestations(&pkg, attestations, digest)
                .await
            {
                Ok(true) => {}
                Ok(false) => {
                    provenance = self.detect_non_github_provenance_type(&pkg);
                }
                Err(e) => {
                    if Settings::get().provenance_api_failures_fatal
                        || !crate::github::sigstore::is_api_failure(match &e {
                            crate::github::sigstore::DetectError::SourceCreation(e)
                            | crate::github::sigstore::DetectError::Fetch(e) => e,
                        })
                    {
                        return Err(eyre!("{e}")).wrap_err_with(|| {
                            format!(
                                "GitHub attestation API query failed for {}/{}",
                                pkg.repo_owner, pkg.repo_name
                            )
                        });
                    }
                    warn!(
                        "GitHub attestation API query failed for {}/{}, skipping attestation provenance: {e}",
                        pkg.repo_owner, pkg.repo_name
                    );
                    provenance = self.detect_non_github_provenance_type(&pkg);
                }
            }
        }

        // Resolve SLSA provenance URL for all platforms (not just current).
        // This ensures deterministic lockfile output regardless of host platform.
        if matches!(provenance, Some(ProvenanceType::Slsa { url: None })) {
            match self
                .resolve_slsa_url(&pkg, &v, target_os, target_arch, target)
                .await
            {
                Ok((canonical_url, _url_api)) => {
                    provenance = Some(ProvenanceType::Slsa {
                        url: Some(canonical_url),
                    });
                }
                Err(e) => {
                    warn!(
                        "failed to resolve SLSA provenance URL for {} ({}-{}), \
                         lockfile entry will use short form: {e}",
                        self.id, target_os, target_arch
                    );
                }
            }
        }

        // Record only cryptographically verified provenance for the target artifact.
        let mut verified_at_lock_time = false;
        if provenance.is_some()
            && let Some(ref artifact_url) = url
        {
            let mut verifier = Self::from_arg(self.ba.as_ref().clone());
            verifier.verification_target = Some(target.clone());
            verifier.tool_libc = self.tool_libc;
            match verifier
                .verify_provenance_at_lock_time(
                    &pkg,
                    AquaVersion {
                        v: &v,
                        release_tag: selected_release_tag(&pkg, &v, known_tag.as_deref())
                            .as_deref(),
                    },
                    artifact_url,
                    provenance.as_ref().unwrap(),
                    required.is_some(),
                    &mut checksum,
                )
                .await
            {
                Ok(verified) => {
                    provenance = verified;
                    // The artifact was downloaded and checked against it.
                    mirror_digest = false;
                    verified_at_lock_time = true;
                }
                Err(e) => {
                    return Err(e.wrap_err(format!(
                        "lock-time provenance verification failed{}",
                        Self::scratch_length_hint()
                    )));
                }
            }
        }
        if let Some(required) = &required
            && (!verified_at_lock_time || provenance.as_ref() != Some(required))
        {
            bail!(
                "mise registry requires {required} provenance for {}@{} but none was verified. \
                 This may indicate a downgrade attack.",
                self.ba(),
                tv.version
            );
        }
        Ok(PlatformInfo {
            checksum_source: mirror_digest.then_some(ChecksumSource::VersionsHost),
            url,
            url_api,
            checksum,
            provenance,
            github_attestations: None,
            ..Default::default()
        })
    }
}

impl AquaBackend {
    fn verification_target(&self) -> PlatformTarget {
        self.verification_target
            .clone()
            .unwrap_or_else(PlatformTarget::from_current)
    }

    fn verification_os(&self) -> &str {
        self.verification_target
            .as_ref()
            .map(|target| Self::to_aqua_platform(target).0)
            .unwrap_or_else(|| os())
    }

    fn verification_arch(&self) -> &str {
        self.verification_target
            .as_ref()
            .map(|target| Self::to_aqua_platform(target).1)
            .unwrap_or_else(|| arch())
    }
    /// Resolve the registry entry for `tv` and decide whether it can be installed here at all.
    ///
    /// Split out of `install_version_` so `verify_install_feasible` can reach `validate` without
    /// downloading anything. Extracted rather than reimplemented on purpose: skipping the tag
    /// lookup would select a different `version_overrides` block, and a feasibility check reading
    /// the wrong block would call a tool impossible when it installs fine -- a worse answer than
    /// the optimism it replaces.
    async fn resolve_validated_package(&self, tv: &ToolVersion) -> Result<ResolvedPackage> {
        // Check if URL already exists in lockfile platforms first
        // This allows us to skip API calls when lockfile has the URL
        let platform_key = self.get_platform_key();
        let existing_platform = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|asset| asset.url.clone());
        // Private repos download via the API asset endpoint; carry it from the lockfile so
        // `--locked` installs of private tools can still fall back to it.
        let existing_url_api = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|asset| asset.url_api.clone());

        // Skip get_version_tags() API call if the lockfile URL contains the release tag.
        // Keep the tag for selecting Aqua version overrides, which may be scoped by prefix.
        let locked_tag = existing_platform
            .as_deref()
            .and_then(github_release_tag_from_url);
        let tag_is_locked = locked_tag.is_some();
        let tag = if let Some(tag) = locked_tag {
            Some(tag)
        } else if existing_platform.is_some() {
            None
        } else if let Some(tag) = self
            .listed_release_tag(tv, &PlatformTarget::from_current())
            .await
        {
            Some(tag)
        } else {
            match self.get_version_tags().await {
                Ok(tags) => tags
                    .iter()
                    .find(|(version, _)| version == &tv.version)
                    .map(|(_, tag)| tag.clone()),
                Err(e) => {
                    warn!(
                        "[{}] failed to fetch version tags, URL may be incorrect: {e}",
                        self.id
                    );
                    None
                }
            }
        };
        if tag.is_none() && existing_platform.is_none() && !tv.version.starts_with('v') {
            debug!(
                "[{}] no tag found for version {}, will try with 'v' prefix",
                self.id, tv.version
            );
        }
        let mut v = tag.clone().unwrap_or_else(|| tv.version.clone());
        let mut v_prefixed =
            (tag.is_none() && !tv.version.starts_with('v')).then(|| format!("v{v}"));
        let pkg = AQUA_REGISTRY.package(&self.id).await?;
        // A listed tag was mapped to the version when it was listed; a locked
        // URL's tag has to be mapped here, or it could name another release.
        let current = PlatformTarget::from_current();
        let tag_names_version = !tag_is_locked
            || tag.as_deref().is_some_and(|tag| {
                let (target_os, target_arch) = Self::to_aqua_platform(&current);
                versioned_package_from_tag(&pkg, tag, target_os, target_arch, None)
                    .ok()
                    .flatten()
                    .is_some_and(|(version, _)| version == tv.version)
            });
        let versions = resolved_package_version_candidates(&tv.version, tag.as_deref(), &pkg);
        let versions = versions.iter().map(|v| v.as_ref()).collect_vec();
        let pkg = Self::package_with_options_for_pkg(tv, pkg, &versions)?;
        if let Some(prefix) = &pkg.version_prefix
            && !v.starts_with(prefix)
        {
            v = format!("{prefix}{v}");
            // Don't add prefix to v_prefixed if it already starts with the prefix
            v_prefixed = v_prefixed.map(|vp| {
                if vp.starts_with(prefix) {
                    vp
                } else {
                    format!("{prefix}{vp}")
                }
            });
        }
        validate(&pkg, &v)?;
        ensure_url_safe_version(&v)?;
        let release_tag = match tag {
            Some(_) => tag_names_version.then(|| v.clone()),
            None => pkg.version_prefix.is_some().then(|| v.clone()),
        };

        Ok(ResolvedPackage {
            platform_key,
            existing_platform,
            existing_url_api,
            pkg,
            v,
            v_prefixed,
            release_tag,
        })
    }

    fn package_with_options_for_pkg(
        tv: &ToolVersion,
        pkg: AquaPackage,
        versions: &[&str],
    ) -> Result<AquaPackage> {
        let raw_opts = tv.request.options();
        let opts = AquaOptions::new(&raw_opts);
        Self::package_for_target(&PlatformTarget::from_current(), pkg, versions, &opts)
    }

    fn package_for_target(
        target: &PlatformTarget,
        pkg: AquaPackage,
        versions: &[&str],
        opts: &AquaOptions<'_>,
    ) -> Result<AquaPackage> {
        let tool_libc = opts.libc()?;
        let (target_os, target_arch) = Self::to_aqua_platform(target);
        let target_libc = Self::target_variant_libc(target, tool_libc);
        let pkg = pkg.with_version_libc(versions, target_os, target_arch, target_libc.as_deref());
        let pkg =
            Self::apply_aqua_libc_replacement(pkg, target_os, Self::asset_libc(target, tool_libc));
        Self::apply_tool_options(pkg, opts)
    }

    async fn package_with_version_candidates(&self, tv: &ToolVersion) -> Result<AquaPackage> {
        let pkg = AQUA_REGISTRY.package(&self.id).await?;
        let versions = package_version_candidates(&tv.version, &pkg);
        let versions = versions.iter().map(|v| v.as_ref()).collect_vec();
        Self::package_with_options_for_pkg(tv, pkg, &versions)
    }

    fn to_aqua_platform(target: &PlatformTarget) -> (&str, &str) {
        let target_os = match target.os_name() {
            "macos" => "darwin",
            other => other,
        };
        let target_arch = to_aqua_arch(target.arch_name());
        (target_os, target_arch)
    }

    /// The libc to select assets for. A libc the target platform names wins, then the tool's
    /// `libc` option, then the `libc` setting on the current platform.
    ///
    /// The platform wins even over the tool option because a lockfile entry is keyed by it: the
    /// tool's `libc = "glibc"` must not put a gnu build the registry doesn't name under
    /// `linux-x64-musl`. That includes the current platform when `libc = "musl"` is set, since
    /// `Platform::current()` turns the setting into its qualifier. See [`Self::asset_libc`] for
    /// which assets a musl platform then takes.
    fn target_libc(target: &PlatformTarget, tool_libc: Option<&str>) -> Option<String> {
        target.libc().or(tool_libc).map(str::to_string).or_else(|| {
            if target.is_current() {
                Settings::get().libc().map(str::to_string)
            } else {
                None
            }
        })
    }

    /// The libc to rewrite registry asset names to, or `None` to use the registry's names as
    /// they are.
    ///
    /// A musl platform that nothing asked for explicitly keeps the registry's names: aqua
    /// registries list the builds that exist, and a tool whose entry names only a gnu build
    /// has no musl build for mise to invent. The tool's `libc` option and `libc = "musl"` in
    /// settings are explicit, so they still select the musl build.
    fn asset_libc(target: &PlatformTarget, tool_libc: Option<&str>) -> Option<String> {
        let libc = Self::target_libc(target, tool_libc)?;
        if libc == "musl" && !Self::musl_requested(tool_libc) {
            return None;
        }
        Some(libc)
    }

    fn musl_requested(tool_libc: Option<&str>) -> bool {
        tool_libc == Some("musl") || Settings::get().libc() == Some("musl")
    }

    fn target_variant_libc(target: &PlatformTarget, tool_libc: Option<&str>) -> Option<String> {
        if target.os_name() != "linux" {
            return None;
        }
        Some(Self::target_libc(target, tool_libc).unwrap_or_else(|| "gnu".to_string()))
    }

    /// A copy of `self` that carries `tv`'s `libc` option, or `None` when `self` already
    /// does. Install and lock run on that copy so every asset they look up, including
    /// checksum, signature and provenance files, agrees on one libc.
    fn with_tool_libc(&self, tv: &ToolVersion) -> Result<Option<Self>> {
        let raw_opts = tv.request.options();
        let tool_libc = AquaOptions::new(&raw_opts).libc()?;
        if tool_libc == self.tool_libc {
            return Ok(None);
        }
        let mut backend = Self::from_arg(self.ba.as_ref().clone());
        backend.verification_target = self.verification_target.clone();
        backend.tool_libc = tool_libc;
        Ok(Some(backend))
    }

    fn apply_aqua_libc_replacement(
        mut pkg: AquaPackage,
        target_os: &str,
        libc: Option<String>,
    ) -> AquaPackage {
        let Some(libc) = libc else {
            return pkg;
        };
        if target_os != "linux" {
            return pkg;
        }
        let Some(linux) = pkg.replacements.get_mut("linux") else {
            return pkg;
        };
        if is_aqua_linux_libc_replacement(linux) {
            let libc = if libc == "musl" { "musl" } else { "gnu" };
            let prefix = linux
                .strip_suffix("-gnu")
                .or_else(|| linux.strip_suffix("-musl"))
                .unwrap_or("unknown-linux");
            *linux = format!("{prefix}-{libc}");
        }
        pkg
    }

    fn apply_selected_asset_libc_replacement(
        pkg: AquaPackage,
        target_os: &str,
        filename: &str,
    ) -> AquaPackage {
        let tokens = asset_name_tokens(filename);
        let libc = if tokens.iter().any(|token| token == "musl") {
            Some("musl")
        } else if tokens
            .iter()
            .any(|token| matches!(token.as_str(), "gnu" | "glibc"))
        {
            Some("gnu")
        } else {
            None
        };
        Self::apply_aqua_libc_replacement(pkg, target_os, libc.map(str::to_string))
    }

    /// A lockfile that records SLSA provenance must not install without an expected signer,
    /// or the SLSA requirement would be dropped without a word.
    fn ensure_locked_slsa_signer(
        tv: &ToolVersion,
        locked_provenance: Option<&ProvenanceType>,
        pkg: &AquaPackage,
    ) -> Result<()> {
        if locked_provenance.is_some_and(ProvenanceType::is_slsa)
            && !pkg
                .slsa_provenance
                .as_ref()
                .is_some_and(|s| s.has_signer_identity())
        {
            bail!(
                "Lockfile requires SLSA provenance for {tv}, but Aqua registry metadata has no signer_identity and signer_issuer. Set slsa_signer_identity and slsa_signer_issuer in the tool options, or refresh the lockfile after choosing another verification method."
            );
        }
        Ok(())
    }

    /// Applies the tool options that change the package itself. Install and lock both resolve
    /// the package, so they share this to stay in agreement.
    fn apply_tool_options(pkg: AquaPackage, opts: &AquaOptions<'_>) -> Result<AquaPackage> {
        let pkg = Self::apply_var_options(pkg, opts)?;
        Self::apply_slsa_signer_options(pkg, opts)
    }

    /// Sets the expected SLSA signer from the tool options on every provenance configuration
    /// in the package, including version overrides. Packages without SLSA provenance are left
    /// alone: the options name the signer, not where the provenance asset lives.
    fn apply_slsa_signer_options(
        mut pkg: AquaPackage,
        opts: &AquaOptions<'_>,
    ) -> Result<AquaPackage> {
        let Some((identity, issuer)) = opts.slsa_signer()? else {
            return Ok(pkg);
        };
        let set_signer = |pkg: &mut AquaPackage| {
            if let Some(slsa) = pkg.slsa_provenance.as_mut() {
                slsa.signer_identity = Some(identity.to_string());
                slsa.signer_issuer = Some(issuer.to_string());
            }
        };
        set_signer(&mut pkg);
        pkg.version_overrides.iter_mut().for_each(set_signer);
        Ok(pkg)
    }

    fn apply_var_options(pkg: AquaPackage, opts: &AquaOptions<'_>) -> Result<AquaPackage> {
        if pkg.vars.is_empty() {
            return Ok(pkg);
        }
        let mut var_values = HashMap::new();
        for var in &pkg.vars {
            if let Some(value) = opts.var(&var.name)? {
                var_values.insert(var.name.clone(), value);
            }
        }
        pkg.with_var_values(var_values)
    }

    /// Security checks mise performs when installing `pkg`, across the base
    /// package and every version override.
    ///
    /// Provenance and signatures come from registry config only, because mise
    /// verifies nothing else: a `.sig` or `.intoto.jsonl` release asset without
    /// matching config is never checked.
    fn security_features(
        pkg: &AquaPackage,
        release_assets: &[github::GithubAsset],
    ) -> Vec<SecurityFeature> {
        let mut features = vec![];
        let all_pkgs: Vec<&AquaPackage> = std::iter::once(pkg)
            .chain(pkg.version_overrides.iter())
            .collect();

        // Checksum - check registry config OR actual release assets
        let has_checksum_config = all_pkgs.iter().any(|p| {
            p.checksum
                .as_ref()
                .is_some_and(|checksum| checksum.enabled())
        });
        let has_checksum_assets = release_assets.iter().any(|a| {
            let name = a.name.to_lowercase();
            name.contains("sha256")
                || name.contains("checksum")
                || name.ends_with(".sha256")
                || name.ends_with(".sha512")
        });
        if has_checksum_config || has_checksum_assets {
            let algorithm = all_pkgs
                .iter()
                .filter_map(|p| p.checksum.as_ref())
                .find_map(|c| c.algorithm.as_ref().map(|a| a.to_string()))
                .or_else(|| {
                    if has_checksum_assets {
                        Some("sha256".to_string())
                    } else {
                        None
                    }
                });
            features.push(SecurityFeature::Checksum { algorithm });
        }

        // GitHub Artifact Attestations require registry config so the badge
        // matches lock/install provenance verification behavior.
        if all_pkgs
            .iter()
            .any(|p| Self::has_github_attestations_config(p))
        {
            let signer_workflow = all_pkgs
                .iter()
                .filter_map(|p| {
                    p.github_artifact_attestations
                        .as_ref()
                        .filter(|a| a.enabled != Some(false))
                })
                .chain(all_pkgs.iter().filter_map(|p| {
                    Self::checksum_github_attestations_config(p)
                        .map(|(_, attestations)| attestations)
                }))
                .find_map(|a| a.signer_workflow.clone());
            features.push(SecurityFeature::GithubAttestations { signer_workflow });
        }

        if all_pkgs.iter().any(|p| {
            p.slsa_provenance
                .as_ref()
                .is_some_and(|s| s.enabled.unwrap_or(true) && s.has_signer_identity())
        }) {
            features.push(SecurityFeature::Slsa { level: None });
        }

        // Only a key or bundle is verified natively; Cosign `opts` are not run.
        if all_pkgs.iter().any(|p| {
            Self::binary_cosign_config(p).is_some() || Self::checksum_cosign_config(p).is_some()
        }) {
            features.push(SecurityFeature::Cosign);
        }

        if all_pkgs.iter().any(|p| {
            p.minisign
                .as_ref()
                .is_some_and(|m| m.enabled.unwrap_or(true))
                || Self::checksum_minisign_config(p).is_some()
        }) {
            let public_key = all_pkgs
                .iter()
                .filter_map(|p| p.minisign.as_ref().filter(|m| m.enabled != Some(false)))
                .chain(
                    all_pkgs
                        .iter()
                        .filter_map(|p| Self::checksum_minisign_config(p).map(|(_, m)| m)),
                )
                .find_map(|m| m.public_key.clone());
            features.push(SecurityFeature::Minisign { public_key });
        }

        features
    }

    fn has_native_cosign(cosign: &AquaCosign) -> bool {
        cosign.enabled != Some(false) && (cosign.key.is_some() || cosign.bundle.is_some())
    }

    fn binary_cosign_config(pkg: &AquaPackage) -> Option<&AquaCosign> {
        pkg.cosign
            .as_ref()
            .filter(|cosign| Self::has_native_cosign(cosign))
    }

    fn checksum_cosign_config(pkg: &AquaPackage) -> Option<(&AquaChecksum, &AquaCosign)> {
        let checksum = pkg
            .checksum
            .as_ref()
            .filter(|checksum| checksum.enabled())?;
        let cosign = checksum
            .cosign
            .as_ref()
            .filter(|cosign| Self::has_native_cosign(cosign))?;
        Some((checksum, cosign))
    }

    fn checksum_minisign_config(pkg: &AquaPackage) -> Option<(&AquaChecksum, &AquaMinisign)> {
        let checksum = pkg
            .checksum
            .as_ref()
            .filter(|checksum| checksum.enabled())?;
        let minisign = checksum
            .minisign
            .as_ref()
            .filter(|minisign| minisign.enabled != Some(false))?;
        Some((checksum, minisign))
    }

    fn checksum_github_attestations_config(
        pkg: &AquaPackage,
    ) -> Option<(&AquaChecksum, &AquaGithubArtifactAttestations)> {
        let checksum = pkg
            .checksum
            .as_ref()
            .filter(|checksum| checksum.enabled())?;
        let attestations = checksum
            .github_artifact_attestations
            .as_ref()
            .filter(|attestations| attestations.enabled != Some(false))?;
        Some((checksum, attestations))
    }

    /// The provenance the mise registry requires for `tv`: GitHub attestations, when
    /// the registry marks this backend as publishing them from a version on
    /// (`attestations_since`) and the aqua recipe declares them. From that version
    /// on, "no attestation for this file" is a downgrade, not a release that has
    /// none. Earlier versions, versions the registry can't place, and users who
    /// turned GitHub attestations off keep the recipe's best-effort check.
    fn registry_required_provenance(
        &self,
        tv: &ToolVersion,
        pkg: &AquaPackage,
    ) -> Option<ProvenanceType> {
        let settings = Settings::get();
        (settings.github_attestations
            && settings.aqua.github_attestations
            && Self::has_github_attestations_config(pkg)
            && crate::registry::requires_github_attestations(
                &self.ba.full_without_opts(),
                &tv.version,
            ))
        .then_some(ProvenanceType::GithubAttestations)
    }

    fn has_github_attestations_config(pkg: &AquaPackage) -> bool {
        pkg.github_artifact_attestations
            .as_ref()
            .is_some_and(|attestations| attestations.enabled != Some(false))
            || Self::checksum_github_attestations_config(pkg).is_some()
    }

    /// Detect provenance type from aqua registry package config.
    ///
    /// Returns the highest-priority provenance type that is configured and
    /// enabled for the package, based on the verified `ProvenanceType` priority
    /// order: GithubAttestations > Slsa > Cosign > Minisign.
    ///
    /// This detection is based on registry metadata only — no cryptographic
    /// verification happens here. Actual verification occurs at install time
    /// (and is always performed when `locked_verify_provenance` or `paranoid`
    /// is enabled).
    fn detect_provenance_type(&self, pkg: &AquaPackage) -> Option<ProvenanceType> {
        let settings = Settings::get();

        // Check for GitHub artifact attestations (highest priority)
        // The registry metadata (enabled flag, predicate_type, signer_workflow) is sufficient for
        // detection at lock-time. Actual cryptographic verification happens at
        // install time (always when locked_verify_provenance/paranoid is enabled,
        // or on first install when the lockfile doesn't yet have provenance).
        if settings.github_attestations
            && settings.aqua.github_attestations
            && Self::has_github_attestations_config(pkg)
        {
            return Some(ProvenanceType::GithubAttestations);
        }

        self.detect_non_github_provenance_type(pkg)
    }

    fn detect_non_github_provenance_type(&self, pkg: &AquaPackage) -> Option<ProvenanceType> {
        let settings = Settings::get();

        // Check for SLSA provenance
        if settings.slsa
            && settings.aqua.slsa
            && let Some(slsa) = &pkg.slsa_provenance
            && slsa.enabled != Some(false)
            && slsa.has_signer_identity()
        {
            return Some(ProvenanceType::Slsa { url: None });
        }

        // Check for cosign.
        // Only record cosign provenance if we can actually verify it natively
        // (key-based or bundle-based). Tools that only use opts require the external
        // cosign CLI which we don't shell out to.
        if settings.aqua.cosign
            && (Self::binary_cosign_config(pkg).is_some()
                || Self::checksum_cosign_config(pkg).is_some())
        {
            return Some(ProvenanceType::Cosign);
        }

        // Check for minisign
        if settings.aqua.minisign
            && (pkg
                .minisign
                .as_ref()
                .is_some_and(|minisign| minisign.enabled != Some(false))
                || Self::checksum_minisign_config(pkg).is_some())
        {
            return Some(ProvenanceType::Minisign);
        }

        None
    }

    async fn detect_github_attestations(
        &self,
        pkg: &AquaPackage,
        attestations: &AquaGithubArtifactAttestations,
        digest: &str,
    ) -> std::result::Result<bool, crate::github::sigstore::DetectError> {
        crate::github::sigstore::detect_attestations_with_predicate_type(
            &pkg.repo_owner,
            &pkg.repo_name,
            github::API_URL,
            digest,
            attestations.predicate_type.as_deref(),
            true,
        )
        .await
    }

    /// A scratch directory for the lock-time artifact download, under
    /// `MISE_CACHE_DIR/lock-provenance`.
    ///
    /// Deliberately not `TEMP`. A lockfile is a committed artifact, so its contents must not
    /// depend on where a machine happens to point `TEMP` — and they did: on Windows a `TEMP`
    /// deep enough to push this download past `MAX_PATH` made the download fail, which drops
    /// `provenance` for the current platform from the generated lockfile.
    ///
    /// Deliberately not `MISE_DOWNLOADS_DIR` either, though that is where install puts the same
    /// artifact. This copy is verified and thrown away, never reused, and `TempDir` cleanup is
    /// best-effort: a crash or a failed delete strands a randomly named directory. At the root of
    /// the persistent downloads directory nothing would ever collect it — not `mise cache clear`,
    /// not the per-tool download cleanup. Under a named directory in the cache, ordinary cache
    /// clearing sweeps it up.
    fn lock_time_download_dir() -> Result<tempfile::TempDir> {
        let scratch = dirs::CACHE.join("lock-provenance");
        crate::file::create_dir_all(&scratch)?;
        Ok(tempfile::tempdir_in(&scratch)?)
    }

    /// A note about the scratch directory's length, appended when lock-time verification fails.
    ///
    /// Moving the scratch out of `TEMP` removed one environment variable from the answer, not the
    /// arithmetic: `MISE_CACHE_DIR` is configurable too, and past `MAX_PATH` the download comes back
    /// as a bare `os error 3` while the lockfile quietly loses `provenance` for this platform.
    /// Measured on 2026.8.6: with the cache at 200 characters `mise install` and `mise lock` both
    /// still exit 0, so nothing else fails at that depth to suggest why.
    ///
    /// This deliberately annotates the *failure* rather than predicting it. Several files land in
    /// that directory — the artifact and its `.mise-part.json` sidecar, a checksum file, a
    /// provenance or signature file — with names taken from URLs, and a check on any one of them
    /// passes while a later one is longer. Reporting after the fact covers all of them.
    fn scratch_length_hint() -> String {
        Self::scratch_length_hint_for(&dirs::CACHE.join("lock-provenance"))
    }

    /// Split out from [`Self::scratch_length_hint`] so it can be tested without depending on
    /// wherever the machine running the tests happens to keep its cache.
    fn scratch_length_hint_for(root: &Path) -> String {
        #[cfg(windows)]
        {
            use std::os::windows::ffi::OsStrExt;

            // The scratch adds `\.tmpXXXXXX` and then a downloaded name; 64 is a modest allowance
            // for both, so this fires while a real name could still have fitted. That is the right
            // side to err on for a note that is only printed once something has already failed.
            const ALLOWANCE: usize = 64;

            let len = root.as_os_str().encode_wide().count();
            if len + ALLOWANCE >= crate::file::MAX_PATH {
                return format!(
                    "\nthe download directory is {len} characters ({}) and Windows stops at {}, \
                     which may be the reason — point MISE_CACHE_DIR at a shorter directory",
                    crate::file::display_path(root),
                    crate::file::MAX_PATH,
                );
            }
        }
        #[cfg(not(windows))]
        let _ = root;
        String::new()
    }

    /// Verify provenance at lock time by downloading the artifact to a scratch directory
    /// and running the appropriate cryptographic verification. Only called for the
    /// current platform during `mise lock`.
    async fn verify_provenance_at_lock_time(
        &self,
        pkg: &AquaPackage,
        version: AquaVersion<'_>,
        artifact_url: &str,
        detected: &ProvenanceType,
        attestations_required: bool,
        checksum: &mut Option<String>,
    ) -> Result<Option<ProvenanceType>> {
        let AquaVersion { v, release_tag } = version;
        let tmp_dir = Self::lock_time_download_dir()?;
        let filename = get_filename_from_url(artifact_url);
        let artifact_path = tmp_dir.path().join(&filename);

        info!(
            "downloading artifact for lock-time provenance verification: {}",
            filename
        );
        HTTP.download_file(artifact_url, &artifact_path, None)
            .await?;
        if let Some((algorithm, expected)) = checksum
            .as_deref()
            .and_then(|checksum| checksum.split_once(':'))
        {
            crate::hash::ensure_checksum(&artifact_path, expected, None, algorithm)?;
        }
        if checksum.is_none() {
            *checksum = Some(format!(
                "sha256:{}",
                crate::hash::file_hash_sha256(&artifact_path, None)?
            ));
        }
        let expected_checksum = checksum.as_deref();

        // GitHub attestations are the only mechanism that can come back with nothing to
        // check. As at install, that is not the end of it: the next mechanism the registry
        // declares (SLSA, cosign or minisign) still has to vouch for the artifact, or bytes
        // nobody signed would be locked on the strength of their own checksum, and a later
        // install would trust that entry without looking at any signature.
        let detected = match detected {
            ProvenanceType::GithubAttestations => {
                let status = if let Some(attestations) = pkg
                    .github_artifact_attestations
                    .as_ref()
                    .filter(|attestations| attestations.enabled != Some(false))
                {
                    self.run_github_attestation_check(&artifact_path, pkg, attestations)
                        .await?
                } else {
                    let (checksum_config, attestations) =
                        Self::checksum_github_attestations_config(pkg).wrap_err(
                            "GitHub attestation provenance detected but no supported binary/checksum config found",
                        )?;
                    let checksum_path = self
                        .download_checksum_file(checksum_config, pkg, v, tmp_dir.path(), None)
                        .await?;
                    let status = self
                        .run_github_attestation_check(&checksum_path, pkg, attestations)
                        .await?;
                    if status == GithubAttestationStatus::Verified {
                        self.verify_checksum_file_matches_expected(
                            checksum_config,
                            &checksum_path,
                            &artifact_path,
                            &filename,
                            expected_checksum,
                        )?;
                    }
                    status
                };
                match status {
                    GithubAttestationStatus::Verified => {
                        return Ok(Some(ProvenanceType::GithubAttestations));
                    }
                    GithubAttestationStatus::Unavailable if attestations_required => {
                        bail!(
                            "mise registry requires GitHub artifact attestations for {}/{} {v} \
                             but none exist for {filename}. This may indicate a downgrade attack.",
                            pkg.repo_owner,
                            pkg.repo_name
                        );
                    }
                    GithubAttestationStatus::Unavailable => {
                        match self.detect_non_github_provenance_type(pkg) {
                            Some(next) => next,
                            None => return Ok(None),
                        }
                    }
                }
            }
            detected => detected.clone(),
        };

        match detected {
            ProvenanceType::GithubAttestations => {
                unreachable!("detect_non_github_provenance_type never returns GitHub attestations")
            }
            ProvenanceType::Slsa { .. } => {
                let provenance_url = self
                    .run_slsa_check(&artifact_path, pkg, v, release_tag, tmp_dir.path(), None)
                    .await?;
                Ok(Some(ProvenanceType::Slsa {
                    url: Some(provenance_url),
                }))
            }
            ProvenanceType::Minisign => {
                if let Some(minisign) = pkg
                    .minisign
                    .as_ref()
                    .filter(|minisign| minisign.enabled != Some(false))
                {
                    self.run_minisign_check(MinisignCheck {
                        artifact_path: &artifact_path,
                        artifact_filename: &filename,
                        pkg,
                        config: minisign,
                        checksum: None,
                        version: v,
                        download_dir: tmp_dir.path(),
                        progress: None,
                    })
                    .await?;
                } else {
                    let (checksum_config, minisign) = Self::checksum_minisign_config(pkg).wrap_err(
                        "minisign provenance detected but no supported binary/checksum config found",
                    )?;
                    let checksum_path = self
                        .download_checksum_file(checksum_config, pkg, v, tmp_dir.path(), None)
                        .await?;
                    let checksum_filename = checksum_path
                        .file_name()
                        .and_then(|f| f.to_str())
                        .unwrap_or("checksum");
                    self.run_minisign_check(MinisignCheck {
                        artifact_path: &checksum_path,
                        artifact_filename: checksum_filename,
                        pkg,
                        config: minisign,
                        checksum: Some(checksum_config),
                        version: v,
                        download_dir: tmp_dir.path(),
                        progress: None,
                    })
                    .await?;
                    self.verify_checksum_file_matches_expected(
                        checksum_config,
                        &checksum_path,
                        &artifact_path,
                        &filename,
                        expected_checksum,
                    )?;
                }
                Ok(Some(ProvenanceType::Minisign))
            }
            ProvenanceType::Cosign => {
                if let Some(cosign) = Self::binary_cosign_config(pkg) {
                    self.run_cosign_check(&artifact_path, cosign, pkg, v, tmp_dir.path(), None)
                        .await?;
                } else {
                    let (checksum_config, cosign) = Self::checksum_cosign_config(pkg).wrap_err(
                        "cosign provenance detected but no supported binary/checksum config found",
                    )?;
                    let checksum_path = self
                        .download_checksum_file(checksum_config, pkg, v, tmp_dir.path(), None)
                        .await?;
                    self.run_cosign_check(&checksum_path, cosign, pkg, v, tmp_dir.path(), None)
                        .await?;
                    self.verify_checksum_file_matches_expected(
                        checksum_config,
                        &checksum_path,
                        &artifact_path,
                        &filename,
                        expected_checksum,
                    )?;
                }
                Ok(Some(ProvenanceType::Cosign))
            }
        }
    }

    // --- Shared verification helpers used by both lock-time and install-time ---

    /// Run GitHub artifact attestation verification against an already-downloaded artifact.
    async fn run_github_attestation_check(
        &self,
        artifact_path: &Path,
        pkg: &AquaPackage,
        attestations: &AquaGithubArtifactAttestations,
    ) -> Result<GithubAttestationStatus> {
        // The aqua registry stores signer_workflow as a regex pattern (e.g. `\.github/workflows/release\.yaml`).
        // sigstore-verification's verify_attestations() uses plain str::contains(), not regex, so we must
        // unescape regex metacharacter escapes (e.g. `\.` → `.`) before passing the value through.
        let signer_workflow = attestations
            .signer_workflow
            .as_deref()
            .map(unescape_regex_literal);
        let repo = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
        let predicate_type = attestations.predicate_type.as_deref();
        let mut verified_repo = repo.clone();

        let mut result = crate::github::sigstore::verify_attestation_with_predicate_type(
            artifact_path,
            &pkg.repo_owner,
            &pkg.repo_name,
            signer_workflow.as_deref(),
            predicate_type,
            None,
            true,
        )
        .await;

        // GitHub keeps release URLs working after a repository transfer, but the
        // certificate identity uses the canonical repository name. Verification
        // errors may aggregate a workflow mismatch with failures from unrelated
        // attestations, so resolve a confirmed transfer through GitHub and retry
        // with the same workflow policy rebased to the canonical repository.
        if attestation_needs_transfer_retry(&result)
            && let Ok(canonical_repo) = github::canonical_repo(&repo).await
            && !canonical_repo.eq_ignore_ascii_case(&repo)
            && let Some((canonical_owner, canonical_name)) = canonical_repo.split_once('/')
        {
            let canonical_workflow = signer_workflow
                .as_deref()
                .map(|workflow| rebase_github_signer_workflow(workflow, &repo, &canonical_repo));
            debug!(
                "retrying GitHub attestation verification for transferred repository {repo} as {canonical_repo}"
            );
            verified_repo.clone_from(&canonical_repo);
            result = crate::github::sigstore::verify_attestation_with_predicate_type(
                artifact_path,
                canonical_owner,
                canonical_name,
                canonical_workflow.as_deref(),
                predicate_type,
                None,
                true,
            )
            .await;
        }

        match result {
            Ok(true) => {
                debug!("GitHub attestations verified for {verified_repo}");
                Ok(GithubAttestationStatus::Verified)
            }
            Ok(false) => Err(eyre!(
                "GitHub artifact attestations verification returned false"
            )),
            Err(crate::github::sigstore::AttestationError::NoAttestations) => {
                Ok(GithubAttestationStatus::Unavailable)
            }
            Err(e)
                if !Settings::get().provenance_api_failures_fatal
                    && crate::github::sigstore::is_api_failure(&e) =>
            {
                warn!(
                    "GitHub artifact attestations API failed for {}/{}; skipping attestation provenance: {e}",
                    pkg.repo_owner, pkg.repo_name
                );
                Ok(GithubAttestationStatus::Unavailable)
            }
            Err(e) => Err(eyre!(
                "GitHub artifact attestations verification failed: {e}"
            )),
        }
    }

    /// Resolve the SLSA provenance canonical URL and optional API URL for a target
    /// platform without downloading or probing. `canonical_url` carries the real
    /// filename and is what gets stored as the lockfile provenance URL; `api_url`
    /// (if present) is the GitHub API asset endpoint that can serve private-repo
    /// assets — the actual reachability probe is deferred to download time (see
    /// `run_slsa_check`).
    async fn resolve_slsa_url(
        &self,
        pkg: &AquaPackage,
        v: &str,
        target_os: &str,
        target_arch: &str,
        target: &PlatformTarget,
    ) -> Result<(String, Option<String>)> {
        let slsa = pkg
            .slsa_provenance
            .as_ref()
            .wrap_err("SLSA provenance detected but no config found")?;

        let mut slsa_pkg = pkg.clone();
        (slsa_pkg.repo_owner, slsa_pkg.repo_name) =
            resolve_repo_info(slsa.repo_owner.as_ref(), slsa.repo_name.as_ref(), pkg);

        match slsa.r#type.as_deref().unwrap_or_default() {
            "github_release" => {
                let asset_strs = slsa.asset_strs(&slsa_pkg, v, target_os, target_arch)?;
                let (url, url_api, _) = self
                    .github_release_asset_for_target(&slsa_pkg, v, asset_strs, target)
                    .await?;
                Ok((url, url_api))
            }
            "http" => slsa
                .url(&slsa_pkg, v, target_os, target_arch)
                .map(|url| (url, None)),
            t => Err(eyre!("unsupported slsa type: {t}")),
        }
    }

    fn slsa_signer_identity(
        &self,
        pkg: &AquaPackage,
        version: &str,
    ) -> Result<Option<(String, String)>> {
        let Some(slsa) = pkg
            .slsa_provenance
            .as_ref()
            .filter(|s| s.has_signer_identity())
        else {
            return Ok(None);
        };
        let identity = pkg.parse_aqua_str(
            slsa.signer_identity.as_deref().unwrap(),
            version,
            &Default::default(),
            self.verification_os(),
            self.verification_arch(),
        )?;
        let issuer = pkg.parse_aqua_str(
            slsa.signer_issuer.as_deref().unwrap(),
            version,
            &Default::default(),
            self.verification_os(),
            self.verification_arch(),
        )?;
        Ok(Some((identity, issuer)))
    }

    /// Download SLSA provenance file and verify against an already-downloaded artifact.
    /// Returns the provenance download URL on success.
    async fn run_slsa_check(
        &self,
        artifact_path: &Path,
        pkg: &AquaPackage,
        v: &str,
        release_tag: Option<&str>,
        download_dir: &Path,
        pr: Option<&dyn SingleReport>,
    ) -> Result<String> {
        let (identity, issuer) = self.slsa_signer_identity(pkg, v)?.ok_or_else(|| {
            eyre!("SLSA provenance requires signer_identity and signer_issuer in Aqua registry metadata")
        })?;
        let source_repository = slsa_source_repository(pkg);
        let source_tag = slsa_source_tag(pkg, release_tag);
        if source_tag.is_none() {
            debug!("no release tag known for {v}; not checking the SLSA provenance's tag");
        }
        let signer = crate::github::sigstore::SlsaSignerIdentity {
            identity: &identity,
            issuer: &issuer,
            source_repository: Some(&source_repository),
            source_tag,
        };
        let target = self.verification_target();
        let (provenance_url, url_api) = self
            .resolve_slsa_url(
                pkg,
                v,
                self.verification_os(),
                self.verification_arch(),
                &target,
            )
            .await?;
        let download_url =
            select_github_download_url(pkg.private, &provenance_url, url_api.as_deref()).await;
        let provenance_path = download_dir.join(get_filename_from_url(&provenance_url));
        HTTP.download_file(&download_url, &provenance_path, pr)
            .await?;

        match crate::github::sigstore::verify_slsa_provenance(
            artifact_path,
            &provenance_path,
            1u8,
            signer,
        )
        .await
        {
            Ok(true) => {
                debug!("SLSA provenance verified");
                Ok(provenance_url)
            }
            Ok(false) => Err(eyre!("SLSA provenance verification failed")),
            Err(e) if crate::github::sigstore::is_slsa_subject_mismatch(&e) => {
                debug!(
                    "SLSA provenance did not cover downloaded artifact; trying archive content subjects: {e}"
                );
                match self
                    .run_slsa_archive_content_check(artifact_path, &provenance_path, pkg, v, signer)
                    .await?
                {
                    true => Ok(provenance_url),
                    false => Err(eyre!("SLSA archive content verification failed")),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn run_slsa_archive_content_check(
        &self,
        artifact_path: &Path,
        provenance_path: &Path,
        pkg: &AquaPackage,
        v: &str,
        signer: crate::github::sigstore::SlsaSignerIdentity<'_>,
    ) -> Result<bool> {
        let format = pkg.format(v, self.verification_os(), self.verification_arch())?;
        let format = Self::effective_extraction_format(pkg, format)?;
        if !format.is_archive() {
            return Err(eyre!(
                "SLSA provenance subject mismatch and content-level fallback is only supported for archives"
            ));
        }
        // Aqua extraction does not auto-strip archive top-level directories.
        // Keep strip_components=0 so SLSA subjects are compared against the
        // same relative paths Aqua installs. The GitHub backend has separate
        // auto-strip behavior and mirrors it in its own fallback.
        let contents = file::archive_content_files(artifact_path, format, 0)?;
        let artifacts = contents
            .into_iter()
            .map(|content| crate::github::sigstore::SlsaArtifact {
                name: content.name,
                sha256: content.sha256,
            })
            .collect::<Vec<_>>();
        crate::github::sigstore::verify_slsa_provenance_artifacts(
            provenance_path,
            &artifacts,
            1u8,
            signer,
        )
        .await
        .map_err(|e| eyre!("content-level SLSA verification failed: {e}"))
    }

    /// Download minisign signature and verify against an already-downloaded artifact.
    async fn run_minisign_check(&self, check: MinisignCheck<'_>) -> Result<()> {
        let template_ctx = check
            .checksum
            .map(|checksum| {
                checksum.template_ctx(
                    check.pkg,
                    check.version,
                    self.verification_os(),
                    self.verification_arch(),
                )
            })
            .transpose()?;
        let sig_path = match check.config._type() {
            AquaMinisignType::GithubRelease => {
                let asset = if let Some(ctx) = &template_ctx {
                    let mut overrides = ctx.clone();
                    overrides.insert("Asset".to_string(), check.artifact_filename.to_string());
                    check.pkg.parse_aqua_str(
                        check.config.asset.as_ref().unwrap(),
                        check.version,
                        &overrides,
                        self.verification_os(),
                        self.verification_arch(),
                    )?
                } else {
                    check.config.asset(
                        check.pkg,
                        check.artifact_filename,
                        check.version,
                        self.verification_os(),
                        self.verification_arch(),
                    )?
                };
                let asset_strs = IndexSet::from([asset]);
                let (repo_owner, repo_name) = resolve_repo_info(
                    check.config.repo_owner.as_ref(),
                    check.config.repo_name.as_ref(),
                    check.pkg,
                );
                let mut sig_pkg = check.pkg.clone();
                sig_pkg.repo_owner = repo_owner;
                sig_pkg.repo_name = repo_name;
                let (url, download_url) = self
                    .github_release_asset_urls(&sig_pkg, check.version, asset_strs)
                    .await?;
                let path = check.download_dir.join(get_filename_from_url(&url));
                HTTP.download_file(&download_url, &path, check.progress)
                    .await?;
                path
            }
            AquaMinisignType::Http => {
                let url = if let Some(ctx) = &template_ctx {
                    check.pkg.parse_aqua_str(
                        check.config.url.as_ref().unwrap(),
                        check.version,
                        ctx,
                        self.verification_os(),
                        self.verification_arch(),
                    )?
                } else {
                    check.config.url(
                        check.pkg,
                        check.version,
                        self.verification_os(),
                        self.verification_arch(),
                    )?
                };
                let path = check
                    .download_dir
                    .join(format!("{}.minisig", check.artifact_filename));
                HTTP.download_file(&url, &path, check.progress).await?;
                path
            }
        };
        let data = file::read(check.artifact_path)?;
        let sig = file::read_to_string(&sig_path)?;
        minisign::verify(
            &check.config.public_key(
                check.pkg,
                check.version,
                self.verification_os(),
                self.verification_arch(),
            )?,
            &data,
            &sig,
        )?;
        debug!("minisign verified");
        Ok(())
    }

    /// Download cosign key/signature/bundle and verify a target file.
    async fn run_cosign_check(
        &self,
        target_path: &Path,
        cosign: &AquaCosign,
        pkg: &AquaPackage,
        v: &str,
        download_dir: &Path,
        pr: Option<&dyn SingleReport>,
    ) -> Result<()> {
        if let Some(key) = &cosign.key {
            let mut key_pkg = pkg.clone();
            (key_pkg.repo_owner, key_pkg.repo_name) =
                resolve_repo_info(key.repo_owner.as_ref(), key.repo_name.as_ref(), pkg);
            let (key_url, key_download_url) = match key.r#type.as_deref().unwrap_or_default() {
                "github_release" => {
                    let asset_strs =
                        key.asset_strs(pkg, v, self.verification_os(), self.verification_arch())?;
                    self.github_release_asset_urls(&key_pkg, v, asset_strs)
                        .await?
                }
                "http" => {
                    let url = key.url(pkg, v, self.verification_os(), self.verification_arch())?;
                    (url.clone(), url)
                }
                t => return Err(eyre!("unsupported cosign key type: {t}")),
            };
            let key_path = download_dir.join(get_filename_from_url(&key_url));
            HTTP.download_file(&key_download_url, &key_path, pr).await?;

            let sig_path = if let Some(signature) = &cosign.signature {
                let mut sig_pkg = pkg.clone();
                (sig_pkg.repo_owner, sig_pkg.repo_name) = resolve_repo_info(
                    signature.repo_owner.as_ref(),
                    signature.repo_name.as_ref(),
                    pkg,
                );
                let (sig_url, sig_download_url) =
                    match signature.r#type.as_deref().unwrap_or_default() {
                        "github_release" => {
                            let asset_strs = signature.asset_strs(
                                pkg,
                                v,
                                self.verification_os(),
                                self.verification_arch(),
                            )?;
                            self.github_release_asset_urls(&sig_pkg, v, asset_strs)
                                .await?
                        }
                        "http" => {
                            let url = signature.url(
                                pkg,
                                v,
                                self.verification_os(),
                                self.verification_arch(),
                            )?;
                            (url.clone(), url)
                        }
                        t => return Err(eyre!("unsupported cosign signature type: {t}")),
                    };
                let path = download_dir.join(get_filename_from_url(&sig_url));
                HTTP.download_file(&sig_download_url, &path, pr).await?;
                path
            } else {
                target_path.with_extension("sig")
            };

            match crate::github::sigstore::verify_cosign_signature_with_key(
                target_path,
                &sig_path,
                &key_path,
            )
            .await
            {
                Ok(true) => {
                    debug!("cosign (key) verified");
                    Ok(())
                }
                Ok(false) => Err(eyre!("cosign key-based verification returned false")),
                Err(e) => Err(eyre!("cosign key-based verification failed: {e}")),
            }
        } else if let Some(bundle) = &cosign.bundle {
            let mut bundle_pkg = pkg.clone();
            (bundle_pkg.repo_owner, bundle_pkg.repo_name) =
                resolve_repo_info(bundle.repo_owner.as_ref(), bundle.repo_name.as_ref(), pkg);
            let (bundle_url, bundle_download_url) =
                match bundle.r#type.as_deref().unwrap_or_default() {
                    "github_release" => {
                        let asset_strs = bundle.asset_strs(
                            pkg,
                            v,
                            self.verification_os(),
                            self.verification_arch(),
                        )?;
                        self.github_release_asset_urls(&bundle_pkg, v, asset_strs)
                            .await?
                    }
                    "http" => {
                        let url =
                            bundle.url(pkg, v, self.verification_os(), self.verification_arch())?;
                        (url.clone(), url)
                    }
                    t => return Err(eyre!("unsupported cosign bundle type: {t}")),
                };
            let bundle_path = download_dir.join(get_filename_from_url(&bundle_url));
            HTTP.download_file(&bundle_download_url, &bundle_path, pr)
                .await?;

            let opts = cosign.opts(pkg, v, self.verification_os(), self.verification_arch())?;
            let result = if let Some(key_url) = cosign_opt_value(&opts, "--key") {
                let key_path = download_dir.join(get_filename_from_url(key_url));
                HTTP.download_file(key_url, &key_path, pr).await?;
                crate::github::sigstore::verify_cosign_signature_with_key(
                    target_path,
                    &bundle_path,
                    &key_path,
                )
                .await
            } else {
                let identity = crate::github::sigstore::CosignIdentity::from_opts(&opts)?;
                crate::github::sigstore::verify_cosign_signature(
                    target_path,
                    &bundle_path,
                    &identity,
                )
                .await
            };

            match result {
                Ok(true) => {
                    debug!("cosign (bundle) verified");
                    Ok(())
                }
                Ok(false) => Err(eyre!("cosign bundle-based verification returned false")),
                Err(e) => Err(eyre!("cosign bundle-based verification failed: {e}")),
            }
        } else {
            Err(eyre!("cosign detected but no key or bundle configured"))
        }
    }

    /// Download checksum file to the given directory.
    async fn download_checksum_file(
        &self,
        checksum: &AquaChecksum,
        pkg: &AquaPackage,
        v: &str,
        download_dir: &Path,
        pr: Option<&dyn SingleReport>,
    ) -> Result<PathBuf> {
        let (url, download_url) = self.resolve_checksum_file_url(checksum, pkg, v).await?;
        let path = download_dir.join(get_filename_from_url(&url));
        HTTP.download_file(&download_url, &path, pr).await?;
        Ok(path)
    }

    /// Returns `(canonical_url, transport_url)` for the checksum file (see
    /// `github_release_asset_urls`).
    async fn resolve_checksum_file_url(
        &self,
        checksum: &AquaChecksum,
        pkg: &AquaPackage,
        v: &str,
    ) -> Result<(String, String)> {
        match checksum._type() {
            AquaChecksumType::GithubRelease => {
                let asset_strs = checksum.asset_strs(
                    pkg,
                    v,
                    self.verification_os(),
                    self.verification_arch(),
                )?;
                self.github_release_asset_urls(pkg, v, asset_strs).await
            }
            AquaChecksumType::Http => checksum
                .url(pkg, v, self.verification_os(), self.verification_arch())
                .map(|url| (url.clone(), url)),
        }
    }

    /// Bind the downloaded artifact to a checksum file whose signature has already been
    /// verified. The expected checksum (usually GitHub's asset digest, which is sha256 and
    /// follows a re-upload) can only be compared with the signed digest when both use the
    /// same algorithm. Otherwise the artifact itself is hashed with the signed file's
    /// algorithm: skipping the comparison would leave nothing tying it to the signature.
    fn verify_checksum_file_matches_expected(
        &self,
        checksum_config: &AquaChecksum,
        checksum_path: &Path,
        artifact_path: &Path,
        artifact_filename: &str,
        expected_checksum: Option<&str>,
    ) -> Result<()> {
        let checksum_content = file::read_to_string_bom(checksum_path)?;
        let checksum_str = self.parse_checksum_from_content(
            &checksum_content,
            checksum_config,
            artifact_filename,
        )?;
        let algorithm = checksum_config.algorithm();
        let checksum_val = format!("{algorithm}:{checksum_str}");
        if let Some(expected) = expected_checksum
            && same_checksum_algorithm(expected, &checksum_val)
        {
            if expected != checksum_val {
                bail!(
                    "verified checksum file digest does not match expected checksum for {artifact_filename}"
                );
            }
            return Ok(());
        }
        crate::hash::ensure_checksum(artifact_path, &checksum_str, None, algorithm.as_ref())
            .wrap_err_with(|| {
                format!(
                    "verified checksum file digest does not match downloaded {artifact_filename}"
                )
            })
    }

    pub(crate) fn from_arg(ba: BackendArg) -> Self {
        let full = ba.full_without_opts();
        let mut id = full.split_once(":").unwrap_or(("", &full)).1;
        if !id.contains("/") {
            // A bare name that is not in mise's registry may be a package of a custom
            // aqua registry, which can only be looked up asynchronously. If no registry
            // has it, `AQUA_REGISTRY.package` reports "package not found" on first use.
            id = REGISTRY
                .get(id)
                .and_then(|t| t.backends.iter().find_map(|s| s.full.strip_prefix("aqua:")))
                .unwrap_or(id);
        }
        let cache_path = ba.cache_path().to_path_buf();
        Self {
            id: id.to_string(),
            ba: Arc::new(ba),
            verification_target: None,
            tool_libc: None,
            // Bumped from `version_tags.msgpack.z`: this cache used to be filtered
            // by the inline `prerelease` opt, so previously cached lists could be
            // missing pre-release tags needed at install/lock time. The new cache
            // always stores the superset.
            version_tags_cache: CacheManagerBuilder::new(
                cache_path.join("version_tags_v2.msgpack.z"),
            )
            // The directory is named by the kebab-cased short name, which two
            // packages can share.
            .with_cache_key(id.to_string())
            .with_fresh_duration(Settings::get().fetch_remote_versions_cache())
            .build(),
        }
    }

    /// From mise-versions for any public repository, the package's own or
    /// another it reads (kubectl's releases are kubernetes/kubernetes', a
    /// checksum or signer can live elsewhere): its release data is pinned to
    /// the repository asked for, and what it describes is verified on
    /// download.
    async fn get_github_release(&self, repo: &str, tag: &str) -> Result<github::GithubRelease> {
        github::get_release_for_url_with_versions_host(github::API_URL, repo, tag, true).await
    }

    /// The release GitHub marks as "Latest", with the metadata that came back
    /// with it.
    ///
    /// Returning the release date matters for `minimum_release_age`: without it
    /// the trait has to recover the date by looking this version up in the
    /// cached remote-version list, and a list that has not yet caught up with
    /// upstream makes an eligible release look ineligible. See
    /// `latest_stable_candidate_allowed_by_before_date`.
    /// `tool_libc` is the tool's `libc` option. This fast path is per tool, unlike the version
    /// list, which is one cache shared by every configuration of the tool.
    async fn latest_marked_release_info(
        &self,
        tool_libc: Option<&str>,
    ) -> Result<Option<VersionInfo>> {
        if Settings::get().offline() {
            trace!("Skipping latest stable version due to offline mode");
            return Ok(None);
        }

        let pkg = match AQUA_REGISTRY.package(&self.id).await {
            Ok(pkg) => pkg,
            Err(e) => {
                warn!("Latest version cannot be fetched: {}", e);
                return Ok(None);
            }
        };

        if pkg.repo_owner.is_empty() || pkg.repo_name.is_empty() {
            warn_once!(
                "aqua package {} has no repo_owner and/or repo_name, so its versions cannot be listed. Pin an exact version to install it.",
                self.id
            );
            return Ok(None);
        }

        if pkg.version_source.as_deref() == Some("github_tag") {
            return Ok(None);
        }

        let repo = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
        let release = match self.get_github_release(&repo, "latest").await {
            Ok(release) => release,
            // GitHub's "latest" mark can't be read for a release without
            // assets, which mise-versions doesn't serve (kubernetes,
            // terraform, vault). A fresh whole release list gives the newest
            // stable release instead, which is where the mark sits unless a
            // maintainer moved it.
            // Only when the mark is known to be unreadable (a 404); after a
            // temporary failure the newest stable release could differ from it.
            Err(e) => {
                let listed = if crate::http::error_code(&e) == Some(404) {
                    github::newest_listed_stable_release(&repo).await
                } else {
                    None
                };
                match listed {
                    Some(listed) => github::GithubRelease {
                        tag_name: listed.tag_name,
                        draft: false,
                        prerelease: false,
                        created_at: listed.released_at.clone().unwrap_or_default(),
                        published_at: listed.released_at,
                        assets: vec![],
                    },
                    None => {
                        debug!(
                            "Failed to fetch latest GitHub release for aqua package {}: {e}",
                            self.id
                        );
                        return Ok(None);
                    }
                }
            }
        };

        let target = PlatformTarget::from_current();
        let (target_os, target_arch) = Self::to_aqua_platform(&target);
        let target_libc = Self::target_variant_libc(&target, tool_libc);
        match marked_release_version_info(
            &pkg,
            &release,
            target_os,
            target_arch,
            target_libc.as_deref(),
        ) {
            Ok(info) => Ok(info),
            Err(e) => {
                debug!(
                    "Failed to resolve latest GitHub release tag for aqua package {}: {e}",
                    self.id
                );
                Ok(None)
            }
        }
    }

    /// The release tag the versions host's list records for `tv`'s version, so
    /// installing or locking a registry tool for `target` doesn't fetch the
    /// whole release list (`get_version_tags`) just to find it. Accepted only
    /// when this package maps the tag back to the version, which is the test
    /// `get_version_tags` applies to the tags it lists.
    ///
    /// Only a hint: the host's list can trail a retag upstream, and a tag
    /// returned here is the only spelling tried for `target`, without the
    /// `v` alternative or the URL probe it would otherwise get. So it is
    /// confirmed for `target` first (see [`Self::confirm_listed_tag`]); `None`
    /// sends that target down the old path, alternatives and probe included.
    async fn listed_release_tag(
        &self,
        tv: &ToolVersion,
        target: &PlatformTarget,
    ) -> Option<String> {
        let version = tv.version.as_str();
        let config = Config::get().await.ok()?;
        let url = self.listed_release_url(&config, version).await?;
        let pkg = AQUA_REGISTRY.package(&self.id).await.ok()?;
        let repo_url = format!("https://github.com/{}/{}", pkg.repo_owner, pkg.repo_name);
        let tag = backend::release_tag_from_url(&url, &repo_url)?;
        let (target_os, target_arch) = Self::to_aqua_platform(target);
        // Mapped as `get_version_tags` maps the tags it lists.
        let target_libc = Self::target_variant_libc(target, None);
        let (listed, _) =
            versioned_package_from_tag(&pkg, &tag, target_os, target_arch, target_libc.as_deref())
                .ok()??;
        if listed != version {
            return None;
        }
        let raw_opts = tv.request.options();
        let opts = AquaOptions::new(&raw_opts);
        self.confirm_listed_tag(pkg, &tag, target, &opts)
            .await
            .then_some(tag)
    }

    /// Whether `tag` installs `pkg` for `target`, checked without a GitHub
    /// API request beyond the one installing makes anyway (see
    /// [`ListedTagCheck`]). URL packages probe `target`'s own artifact: the
    /// host's may not exist, or may exist where `target`'s doesn't.
    async fn confirm_listed_tag(
        &self,
        pkg: AquaPackage,
        tag: &str,
        target: &PlatformTarget,
        opts: &AquaOptions<'_>,
    ) -> bool {
        let repo = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
        let Ok(pkg) = Self::package_for_target(target, pkg, &[tag], opts) else {
            return false;
        };
        let v = version_with_prefix(tag, pkg.version_prefix.as_deref());
        let (target_os, target_arch) = Self::to_aqua_platform(target);
        let confirmed = match self.listed_tag_check(&pkg, &v, target_os, target_arch) {
            // The same release fetch installing makes for this tag (cached),
            // and the asset it would pick for `target` must be on it.
            ListedTagCheck::Release => match self.get_github_release(&repo, &v).await {
                Ok(release) => self.release_has_target_asset(&pkg, &v, &release, target),
                Err(e) => {
                    debug!("[{}] listed tag {tag} did not resolve: {e:#}", self.id);
                    false
                }
            },
            ListedTagCheck::ArtifactUrl(url) => artifact_url_exists(&url).await,
            ListedTagCheck::Unconfirmable => false,
        };
        if !confirmed {
            debug!(
                "[{}] not relying on listed tag {tag} for {}",
                self.id,
                target.to_key()
            );
        }
        confirmed
    }

    /// Whether `release` holds the asset installing `pkg` as `v` would select
    /// for `target`. A release that exists without it is the wrong spelling
    /// for this target (`1.2.3` and `v1.2.3` can carry different assets).
    fn release_has_target_asset(
        &self,
        pkg: &AquaPackage,
        v: &str,
        release: &github::GithubRelease,
        target: &PlatformTarget,
    ) -> bool {
        let (target_os, target_arch) = Self::to_aqua_platform(target);
        pkg.asset_strs(v, target_os, target_arch)
            .is_ok_and(|asset_strs| {
                select_github_release_asset(
                    &release.assets,
                    &asset_strs,
                    libc_asset_preference(target, self.tool_libc),
                )
                .is_some()
            })
    }

    /// How [`Self::confirm_listed_tag`] confirms a listed tag for `pkg`,
    /// installed as version `v` on `target_os`/`target_arch`.
    fn listed_tag_check(
        &self,
        pkg: &AquaPackage,
        v: &str,
        target_os: &str,
        target_arch: &str,
    ) -> ListedTagCheck {
        match pkg.package_type() {
            // The release lookup installing makes next; it is cached.
            AquaPackageType::GithubRelease => ListedTagCheck::Release,
            // A private repository's browser URLs need the API to reach.
            _ if pkg.private => ListedTagCheck::Unconfirmable,
            AquaPackageType::Http => pkg
                .url(v, target_os, target_arch)
                .map_or(ListedTagCheck::Unconfirmable, ListedTagCheck::ArtifactUrl),
            AquaPackageType::GithubArchive => {
                ListedTagCheck::ArtifactUrl(self.github_archive_url(pkg, v))
            }
            AquaPackageType::GithubContent if pkg.path.is_some() => {
                ListedTagCheck::ArtifactUrl(self.github_content_url(pkg, v))
            }
            _ => ListedTagCheck::Unconfirmable,
        }
    }

    async fn get_version_tags(&self) -> Result<Vec<(String, String)>> {
        self.version_tags_cache
            .get_or_try_init_async_if(
                || async {
                    let pkg = AQUA_REGISTRY.package(&self.id).await?;
                    let mut versions = Vec::new();
                    if !pkg.repo_owner.is_empty() && !pkg.repo_name.is_empty() {
                        // Always fetch the superset; install/lock resolution needs
                        // every tag (including pre-releases) regardless of the
                        // current `prerelease` opt, since the user may have pinned
                        // a pre-release version under a project-local override.
                        let tags = get_tags(&pkg).await?;
                        let target = PlatformTarget::from_current();
                        let (target_os, target_arch) = Self::to_aqua_platform(&target);
                        let target_libc = Self::target_variant_libc(&target, None);
                        for tag in tags.into_iter().rev() {
                            let (version, _) = match versioned_package_from_tag(
                                &pkg,
                                &tag,
                                target_os,
                                target_arch,
                                target_libc.as_deref(),
                            ) {
                                Ok(Some(versioned)) => versioned,
                                Ok(None) => continue,
                                Err(e) => {
                                    warn!("[{}] aqua version filter error: {e}", self.ba());
                                    continue;
                                }
                            };
                            versions.push((version, tag));
                        }
                    } else {
                        bail!(
                            "aqua package {} does not have repo_owner and/or repo_name.",
                            self.id
                        );
                    }
                    Ok(versions)
                },
                // Don't cache an empty tag list: the all-filtered happy path can
                // produce `[]` (valid repo, but no platform-matching release), and
                // a transient registry blip could too. Caching it would persist a
                // miss — same class as #9444 "don't cache empty version lists".
                |versions| !versions.is_empty(),
            )
            .await
    }

    /// Returns `(url, url_api, checked, digest)` where `url_api` is the GitHub API asset
    /// endpoint used as a download fallback for private repositories.
    async fn get_url(
        &self,
        pkg: &AquaPackage,
        v: &str,
    ) -> Result<(String, Option<String>, bool, Option<String>)> {
        match pkg.package_type() {
            AquaPackageType::GithubRelease => self
                .github_release_url(pkg, v)
                .await
                .map(|(url, url_api, digest)| (url, url_api, true, digest)),
            AquaPackageType::GithubContent => {
                if pkg.path.is_some() {
                    Ok((
                        self.github_content_url(pkg, v),
                        Some(self.github_content_api_url(pkg, v)),
                        false,
                        None,
                    ))
                } else {
                    bail!("github_content package requires `path`")
                }
            }
            AquaPackageType::GithubArchive => Ok((
                self.github_archive_url(pkg, v),
                Some(self.github_archive_api_url(pkg, v)),
                false,
                None,
            )),
            AquaPackageType::Http => pkg.url(v, os(), arch()).map(|url| (url, None, false, None)),
            ref t => bail!("unsupported aqua package type: {t}"),
        }
    }

    async fn github_release_url(
        &self,
        pkg: &AquaPackage,
        v: &str,
    ) -> Result<(String, Option<String>, Option<String>)> {
        let target = PlatformTarget::from_current();
        let asset_strs = pkg.asset_strs(v, os(), arch())?;
        self.github_release_asset_for_target(pkg, v, asset_strs, &target)
            .await
    }

    /// Resolve a GitHub release asset to `(canonical_url, transport_url)`.
    ///
    /// `canonical_url` is the browser download URL (`github.com/.../releases/download/...`),
    /// which carries the real asset filename — use it for filename derivation and for any
    /// URL persisted as metadata (e.g. the stored SLSA provenance URL). `transport_url` is
    /// the URL to actually download from: for private repos the browser URL returns
    /// 404/HTML, so it falls back to the API asset endpoint
    /// (`api.github.com/.../releases/assets/{id}`, see `github::pick_reachable_asset_url`).
    /// The two differ only when the fallback fires, so callers must not derive filenames
    /// from `transport_url`. Used for auxiliary assets (provenance, signatures, checksum
    /// files) so they install from private repos too, not just the main artifact.
    async fn github_release_asset_urls(
        &self,
        pkg: &AquaPackage,
        v: &str,
        asset_strs: IndexSet<String>,
    ) -> Result<(String, String)> {
        let target = self.verification_target();
        self.github_release_asset_urls_for_target(pkg, v, asset_strs, &target)
            .await
    }

    async fn github_release_asset_urls_for_target(
        &self,
        pkg: &AquaPackage,
        v: &str,
        asset_strs: IndexSet<String>,
        target: &PlatformTarget,
    ) -> Result<(String, String)> {
        let (url, url_api, _) = self
            .github_release_asset_for_target(pkg, v, asset_strs, target)
            .await?;
        let transport = select_github_download_url(pkg.private, &url, url_api.as_deref()).await;
        Ok((url, transport))
    }

    async fn github_release_asset_for_target(
        &self,
        pkg: &AquaPackage,
        v: &str,
        asset_strs: IndexSet<String>,
        target: &PlatformTarget,
    ) -> Result<(String, Option<String>, Option<String>)> {
        // Aqua metadata sometimes names only one libc variant even when the release
        // publishes both. Prefer the target libc sibling while retaining the exact
        // metadata asset as a fallback for unqualified Linux targets.
        self.github_release_asset_matching(
            pkg,
            v,
            asset_strs,
            libc_asset_preference(target, self.tool_libc),
        )
        .await
    }

    /// Returns `(browser_download_url, api_asset_url, digest)`.
    ///
    /// The browser download URL (`github.com/.../releases/download/...`) is kept as the
    /// canonical URL so filename derivation, lockfile storage and version detection are
    /// unchanged. The API asset endpoint (`api.github.com/.../releases/assets/{id}`) is
    /// returned alongside because the browser URL returns 404/HTML for **private**
    /// repositories even with a valid token — only the API endpoint serves private assets
    /// (with a bearer token and `Accept: application/octet-stream`, both added
    /// automatically by `host_auth_headers` for github API URLs). The download path probes
    /// the browser URL and falls back to the API URL when it isn't directly reachable.
    /// This mirrors how the github backend already handles private repositories.
    async fn github_release_asset_matching(
        &self,
        pkg: &AquaPackage,
        v: &str,
        asset_strs: IndexSet<String>,
        libc_preference: LibcAssetPreference,
    ) -> Result<(String, Option<String>, Option<String>)> {
        let gh_id = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
        let gh_release = self.get_github_release(&gh_id, v).await?;

        // Prioritize order of asset_strs
        let asset = select_github_release_asset(&gh_release.assets, &asset_strs, libc_preference)
            .wrap_err_with(|| {
            format!(
                "no asset found: {}\nAvailable assets:\n{}",
                asset_strs.iter().join(", "),
                gh_release.assets.iter().map(|a| &a.name).join("\n")
            )
        })?;

        Ok((
            asset.browser_download_url.to_string(),
            Some(asset.url.to_string()),
            asset.digest.clone(),
        ))
    }

    /// Built from path segments like the API URLs below, so the tag (which may hold `/`, as in
    /// `cli/v1.2.3`) cannot add `..` segments, a query or a fragment.
    fn github_archive_url(&self, pkg: &AquaPackage, v: &str) -> String {
        let mut url = Url::parse("https://github.com").expect("GitHub URL should be valid");
        url.path_segments_mut()
            .expect("GitHub URL should support path segments")
            .extend([
                pkg.repo_owner.as_str(),
                pkg.repo_name.as_str(),
                "archive",
                "refs",
                "tags",
            ])
            .extend(format!("{v}.tar.gz").split('/'));
        url.to_string()
    }

    fn github_archive_api_url(&self, pkg: &AquaPackage, v: &str) -> String {
        let mut url = Url::parse(github::API_URL).expect("GitHub API URL should be valid");
        url.path_segments_mut()
            .expect("GitHub API URL should support path segments")
            .extend([
                "repos",
                pkg.repo_owner.as_str(),
                pkg.repo_name.as_str(),
                "tarball",
                v,
            ]);
        url.to_string()
    }

    fn github_content_url(&self, pkg: &AquaPackage, v: &str) -> String {
        let mut url = Url::parse("https://raw.githubusercontent.com")
            .expect("GitHub content URL should be valid");
        {
            let mut segments = url
                .path_segments_mut()
                .expect("GitHub content URL should support path segments");
            segments.extend([pkg.repo_owner.as_str(), pkg.repo_name.as_str()]);
            segments.extend(v.split('/'));
            segments.extend(pkg.path.as_deref().unwrap().split('/'));
        }
        url.to_string()
    }

    fn github_content_api_url(&self, pkg: &AquaPackage, v: &str) -> String {
        let mut url = Url::parse(github::API_URL).expect("GitHub API URL should be valid");
        {
            let mut segments = url
                .path_segments_mut()
                .expect("GitHub API URL should support path segments");
            segments.extend([
                "repos",
                pkg.repo_owner.as_str(),
                pkg.repo_name.as_str(),
                "contents",
            ]);
            segments.extend(pkg.path.as_deref().unwrap().split('/'));
        }
        url.query_pairs_mut().append_pair("ref", v);
        url.to_string()
    }

    /// Fetch checksum from a checksum file without downloading the actual tarball.
    /// This is used for cross-platform lockfile generation.
    async fn fetch_checksum_from_file(
        &self,
        pkg: &AquaPackage,
        v: &str,
        target_os: &str,
        target_arch: &str,
        filename: Option<&str>,
        target: &PlatformTarget,
    ) -> Result<Option<String>> {
        let Some(checksum_config) = &pkg.checksum else {
            return Ok(None);
        };
        if !checksum_config.enabled() {
            return Ok(None);
        }
        let Some(filename) = filename else {
            return Ok(None);
        };

        // Get the checksum file URL
        let url = match checksum_config._type() {
            AquaChecksumType::GithubRelease => {
                let asset_strs = checksum_config.asset_strs(pkg, v, target_os, target_arch)?;
                // No filename derivation is needed here, so the transport URL is all that
                // is needed.
                match self
                    .github_release_asset_urls_for_target(pkg, v, asset_strs, target)
                    .await
                {
                    Ok((_, download_url)) => download_url,
                    Err(e) => {
                        debug!("Failed to get checksum file asset: {}", e);
                        return Ok(None);
                    }
                }
            }
            AquaChecksumType::Http => checksum_config.url(pkg, v, target_os, target_arch)?,
        };

        // Download checksum file content. `get_text` decodes with BOM sniffing (reqwest's
        // `text_with_charset` -> `encoding_rs::Encoding::decode`), so a UTF-16 checksum file is
        // handled here without help — unlike the install path above, which reads from disk. It
        // also detects an HTML body and retries over https, which reading bytes would skip.
        let checksum_content = match HTTP.get_text(&url).await {
            Ok(content) => content,
            Err(e) => {
                debug!("Failed to download checksum file {}: {}", url, e);
                return Ok(None);
            }
        };

        // Parse checksum from file content
        let checksum_str =
            self.parse_checksum_from_content(&checksum_content, checksum_config, filename)?;

        Ok(Some(format!(
            "{}:{}",
            checksum_config.algorithm(),
            checksum_str
        )))
    }

    /// Parse a checksum from checksum file content for a specific filename.
    fn parse_checksum_from_content(
        &self,
        content: &str,
        checksum_config: &AquaChecksum,
        filename: &str,
    ) -> Result<String> {
        let mut checksum_file = content.to_string();

        if checksum_config.file_format() == "regexp" {
            let pattern = checksum_config.pattern();
            if let Some(file_pattern) = &pattern.file {
                let re = regex::Regex::new(file_pattern.as_str())?;
                let Some(line) = checksum_file
                    .lines()
                    .find(|l| re.captures(l).is_some_and(|c| c[1].to_string() == filename))
                else {
                    bail!("no checksum entry found for {filename} in checksum file");
                };
                checksum_file = line.to_string();
            }
            let re = regex::Regex::new(pattern.checksum.as_str())?;
            if let Some(caps) = re.captures(checksum_file.as_str()) {
                checksum_file = caps[1].to_string();
            } else {
                debug!(
                    "no checksum found matching {} in checksum file",
                    pattern.checksum
                );
            }
        }

        // Standard format: "<hash>  <filename>" or "<hash> *<filename>"
        let entries = checksum_file
            .lines()
            .filter_map(|l| {
                let split = l.split_whitespace().collect_vec();
                if split.len() == 2 {
                    Some((
                        split[0].to_string(),
                        split[1]
                            .rsplit_once('/')
                            .map(|(_, f)| f)
                            .unwrap_or(split[1])
                            .trim_matches('*')
                            .to_string(),
                    ))
                } else {
                    None
                }
            })
            .collect_vec();

        let checksum_str = if let Some((c, _)) = entries.iter().find(|(_, f)| f == filename) {
            c.clone()
        } else if entries.is_empty() {
            // No "<hash>  <filename>" entries were found at all, so the file is either a
            // single bare checksum (no filename column) or was already reduced to just the
            // checksum by the regexp format handling above. There's nothing to disambiguate
            // against, so use the content as-is.
            checksum_file
        } else {
            // The file lists checksums for other filenames, but not this one. Silently
            // falling back to some other entry's checksum would produce a wrong-but-valid-
            // looking checksum, so treat this as an error instead.
            bail!("no checksum entry found for {filename} in checksum file");
        };

        let checksum_str = checksum_str
            .split_whitespace()
            .next()
            .unwrap_or(&checksum_str);
        Ok(checksum_str.to_string())
    }

    async fn download(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        url: &str,
        filename: &str,
        api_digest: Option<&str>,
    ) -> Result<()> {
        let tarball_path = tv.download_path().join(filename);
        if tarball_path.exists() {
            // Say so: a reporter that only sees the fetch vanish would show a
            // suspiciously instant install, and the download cache is why.
            ctx.pr.set_message(format!("cached {filename}"));
            return Ok(());
        }
        ctx.pr.set_message(format!("download {filename}"));
        // The lockfile's checksum, or else the digest the GitHub API gave for the
        // release asset, which verify() checks the same way.
        let pinned = tv
            .lock_platforms
            .get(&self.get_platform_key())
            .and_then(|platform| platform.pin_checksum().cloned())
            .or_else(|| api_digest.map(str::to_string));
        let headers = crate::http::host_auth_headers(&reqwest::Url::parse(url)?)?;
        HTTP.download_file_linked(
            url,
            &tarball_path,
            &headers,
            pinned.as_deref(),
            Some(ctx.pr.as_ref()),
        )
        .await?;
        Ok(())
    }

    async fn verify(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        pkg: &AquaPackage,
        version: AquaVersion<'_>,
        filename: &str,
        lockfile_has_checksum: bool,
    ) -> Result<()> {
        // Reuse checksum-backed provenance, SLSA included: the lockfile asserts it was
        // verified when it was written, so the signer is not needed to install from it.
        // Still check that the recorded provenance type's setting is enabled —
        // disabling a verification setting with a provenance-bearing lockfile is a downgrade.
        //
        // When locked_verify_provenance is enabled (or paranoid mode is on), always
        // re-verify provenance at install time regardless of what the lockfile contains.
        // This closes the gap where lock-time detection records provenance from registry
        // metadata without cryptographic verification.
        let settings = Settings::get();
        let force_verify = settings.force_provenance_verify();
        let platform_key = self.get_platform_key();
        let recorded_provenance = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|p| p.provenance.clone());
        // A lockfile entry stands in for verification only when it records what the
        // registry requires: it may have been written after a wrong "no attestations".
        let required = self.registry_required_provenance(tv, pkg);
        let has_lockfile_integrity = tv
            .lock_platforms
            .get(&platform_key)
            .is_some_and(PlatformInfo::has_checksum_and_provenance)
            && required
                .as_ref()
                .is_none_or(|required| recorded_provenance.as_ref() == Some(required));
        let locked_provenance = required.clone().or(recorded_provenance.clone());
        if lockfile_has_checksum && has_lockfile_integrity && !force_verify {
            self.ensure_provenance_setting_enabled(tv, &platform_key)?;
        } else if !force_verify && locked_provenance.is_none() && lockfile_has_checksum {
            debug!(
                "skipping provenance detection for {} \
                 (lockfile has checksum but no provenance)",
                tv.style()
            );
        } else {
            // Verifying for real needs the expected signer; without one the locked SLSA
            // requirement would be dropped silently.
            Self::ensure_locked_slsa_signer(tv, recorded_provenance.as_ref(), pkg)?;
            self.verify_provenance(ctx, tv, pkg, version, filename, required)
                .await?;
        }

        let tarball_path = tv.download_path().join(filename);
        if let Err(err) = self.verify_checksum(ctx, tv, &tarball_path) {
            let url = tv
                .lock_platforms
                .get(&platform_key)
                .and_then(|platform| platform.url.clone());
            return Err(match url {
                Some(url) => {
                    github::with_checksum_mismatch_note(
                        err,
                        &url,
                        &tarball_path,
                        lockfile_has_checksum,
                    )
                    .await
                }
                None => err,
            });
        }
        Ok(())
    }

    async fn verify_provenance(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        pkg: &AquaPackage,
        version: AquaVersion<'_>,
        filename: &str,
        required: Option<ProvenanceType>,
    ) -> Result<()> {
        let AquaVersion { v, release_tag } = version;
        // Check if the lockfile expects provenance for this platform, then clear it
        // so we can detect whether verification actually re-set it. The registry's
        // requirement, when there is one, takes precedence: a lockfile may have been
        // written without it.
        let platform_key = self.get_platform_key();
        let locked_provenance = tv
            .lock_platforms
            .get_mut(&platform_key)
            .and_then(|pi| pi.provenance.take());
        let expected = required.or(locked_provenance);
        let expected_provenance = expected.as_ref();

        // When the lockfile specifies a provenance type, only run that specific mechanism.
        // This prevents false-positive downgrade errors when a tool supports multiple mechanisms
        // (e.g., both minisign and cosign) that would otherwise compete for the provenance slot.
        let skip_attestations = expected_provenance.is_some_and(|l| !l.is_github_attestations());
        let skip_slsa = expected_provenance.is_some_and(|l| !l.is_slsa());
        let skip_minisign = expected_provenance.is_some_and(|l| !l.is_minisign());
        let skip_cosign = expected_provenance.is_some_and(|l| !l.is_cosign());

        if !skip_attestations
            && let Some(status) = self
                .verify_github_artifact_attestations(ctx, tv, pkg, v, filename)
                .await?
        {
            match status {
                GithubAttestationStatus::Verified => {
                    let pi = tv.lock_platforms.entry(platform_key.clone()).or_default();
                    if pi.provenance.is_none() {
                        pi.provenance = Some(ProvenanceType::GithubAttestations);
                    }
                }
                GithubAttestationStatus::Unavailable => {}
            }
        }
        if !skip_slsa {
            // Short-circuit: if a higher-priority mechanism already recorded provenance, skip SLSA
            let already_verified = tv
                .lock_platforms
                .get(&platform_key)
                .and_then(|pi| pi.provenance.as_ref())
                .is_some_and(|p| *p > ProvenanceType::Slsa { url: None });
            if !already_verified {
                self.verify_slsa(ctx, tv, pkg, v, release_tag, filename)
                    .await?;
            }
        }
        if !skip_minisign {
            // Short-circuit: if SLSA or GithubAttestations already recorded provenance, skip minisign.
            // Cosign runs later, so it cannot be set at this point.
            let already_verified = tv
                .lock_platforms
                .get(&platform_key)
                .and_then(|pi| pi.provenance.as_ref())
                .is_some_and(|p| p.is_slsa() || p.is_github_attestations());
            if !already_verified {
                self.verify_minisign(ctx, tv, pkg, v, filename).await?;
            }
        }

        let download_path = tv.download_path();
        let mut cosign_already_verified = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|pi| pi.provenance.as_ref())
            .is_some_and(|p| *p > ProvenanceType::Cosign);

        if !skip_cosign
            && Settings::get().aqua.cosign
            && !cosign_already_verified
            && let Some(cosign) = Self::binary_cosign_config(pkg)
        {
            let artifact_path = download_path.join(filename);
            self.cosign_artifact(ctx, cosign, pkg, v, tv, &artifact_path)
                .await?;
            cosign_already_verified = true;
        }

        if let Some(checksum) = &pkg.checksum
            && checksum.enabled()
        {
            let platform_key = self.get_platform_key();
            let needs_checksum = tv
                .lock_platforms
                .get(&platform_key)
                .is_none_or(|pi| pi.checksum.is_none());

            let checksum_cosign = (!skip_cosign && Settings::get().aqua.cosign)
                .then(|| Self::checksum_cosign_config(pkg).map(|(_, cosign)| cosign))
                .flatten();
            let checksum_github_attestations = (!skip_attestations
                && Settings::get().github_attestations
                && Settings::get().aqua.github_attestations)
                .then(|| {
                    Self::checksum_github_attestations_config(pkg)
                        .map(|(_, attestations)| attestations)
                })
                .flatten();
            let checksum_minisign = (!skip_minisign && Settings::get().aqua.minisign)
                .then(|| Self::checksum_minisign_config(pkg).map(|(_, minisign)| minisign))
                .flatten();
            let needs_cosign = checksum_cosign.is_some();
            let needs_github_attestations = checksum_github_attestations.is_some();
            let needs_minisign = checksum_minisign.is_some();
            let needs_verified_checksum_binding = needs_checksum
                || needs_github_attestations
                || needs_minisign
                || (needs_cosign && !cosign_already_verified);
            // `(canonical_url, transport_url)`: name the file from the canonical URL but
            // download from the transport URL (which falls back to the API endpoint for
            // private repos).
            let checksum_url = if needs_verified_checksum_binding {
                Some(self.resolve_checksum_file_url(checksum, pkg, v).await?)
            } else {
                None
            };
            let checksum_path = checksum_url
                .as_ref()
                .map(|(url, _)| download_path.join(get_filename_from_url(url)))
                .unwrap_or_else(|| download_path.join(format!("{filename}.checksum")));
            // Re-download only if the checksum file doesn't exist yet. An existing file
            // from a prior attempt is trusted because the download directory is version-specific
            // and the final artifact is independently verified by verify_checksum at the end.
            if let Some((_, download_url)) = checksum_url.as_ref()
                && !checksum_path.exists()
            {
                HTTP.download_file(download_url, &checksum_path, Some(ctx.pr.as_ref()))
                    .await?;
            }
            let checksum_asset_name = checksum_path
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or("checksum");

            if let Some(attestations) = checksum_github_attestations
                && checksum_path.exists()
                && !tv
                    .lock_platforms
                    .get(&platform_key)
                    .and_then(|pi| pi.provenance.as_ref())
                    .is_some_and(|p| p.is_github_attestations())
            {
                match self
                    .run_github_attestation_check(&checksum_path, pkg, attestations)
                    .await?
                {
                    GithubAttestationStatus::Verified => {
                        self.record_provenance(tv, ProvenanceType::GithubAttestations);
                    }
                    GithubAttestationStatus::Unavailable => {}
                }
            }

            if let Some(minisign) = checksum_minisign
                && checksum_path.exists()
                && !tv
                    .lock_platforms
                    .get(&platform_key)
                    .and_then(|pi| pi.provenance.as_ref())
                    .is_some_and(|p| p.is_slsa() || p.is_github_attestations())
            {
                let checksum_filename = checksum_asset_name;
                self.run_minisign_check(MinisignCheck {
                    artifact_path: &checksum_path,
                    artifact_filename: checksum_filename,
                    pkg,
                    config: minisign,
                    checksum: Some(checksum),
                    version: v,
                    download_dir: &download_path,
                    progress: Some(ctx.pr.as_ref()),
                })
                .await?;
                self.record_provenance(tv, ProvenanceType::Minisign);
            }

            if let Some(cosign) = checksum_cosign
                && !cosign_already_verified
                && checksum_path.exists()
            {
                self.cosign_checksums(ctx, cosign, pkg, v, tv, &checksum_path)
                    .await?;
            }

            if needs_verified_checksum_binding && checksum_path.exists() {
                let checksum_content = file::read_to_string_bom(&checksum_path)?;
                let checksum_str =
                    self.parse_checksum_from_content(&checksum_content, checksum, filename)?;
                let checksum_val = format!("{}:{}", checksum.algorithm(), checksum_str);
                let platform_key = self.get_platform_key();
                let platform_info = tv.lock_platforms.entry(platform_key).or_default();
                if let Some(existing_checksum) = &platform_info.checksum
                    && same_checksum_algorithm(existing_checksum, &checksum_val)
                    && existing_checksum != &checksum_val
                {
                    bail!(
                        "verified checksum file digest does not match existing checksum for {filename}"
                    );
                }
                platform_info.checksum = Some(checksum_val);
            }
        }
        if let Some(pi) = tv.lock_platforms.get_mut(&platform_key)
            && pi.provenance.is_some()
        {
            pi.github_attestations = None;
        }

        // If lockfile recorded verified provenance, verify that the type matches
        // (checked after all verification methods including cosign have had a chance to record)
        if let Some(expected) = expected_provenance {
            let platform_key = self.get_platform_key();
            let got = tv
                .lock_platforms
                .get(&platform_key)
                .and_then(|pi| pi.provenance.as_ref());
            if !got.is_some_and(|g| std::mem::discriminant(g) == std::mem::discriminant(expected)) {
                let got_str = got
                    .map(|g| g.to_string())
                    .unwrap_or_else(|| "no verification".to_string());
                return Err(eyre!(
                    "Lockfile or mise registry requires {expected} provenance for {tv} but {got_str} was used. \
                     This may indicate a downgrade attack. Enable the corresponding verification setting \
                     or update the lockfile."
                ));
            }
        }

        Ok(())
    }

    /// When skipping full provenance re-verification (lockfile has checksum+provenance),
    /// check that the setting for the recorded provenance type is still enabled.
    /// Disabling a verification setting while the lockfile expects it is a downgrade.
    pub(crate) fn ensure_provenance_setting_enabled(
        &self,
        tv: &ToolVersion,
        platform_key: &str,
    ) -> Result<()> {
        super::ensure_provenance_setting_enabled(tv, platform_key, |provenance| {
            let settings = Settings::get();
            Ok(match provenance {
                ProvenanceType::GithubAttestations => {
                    !settings.github_attestations || !settings.aqua.github_attestations
                }
                ProvenanceType::Slsa { .. } => !settings.slsa || !settings.aqua.slsa,
                ProvenanceType::Cosign => !settings.aqua.cosign,
                ProvenanceType::Minisign => !settings.aqua.minisign,
            })
        })
    }

    async fn verify_minisign(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        pkg: &AquaPackage,
        v: &str,
        filename: &str,
    ) -> Result<()> {
        if !Settings::get().aqua.minisign {
            return Ok(());
        }
        if let Some(minisign) = &pkg.minisign {
            if minisign.enabled == Some(false) {
                debug!("minisign is disabled for {tv}");
                return Ok(());
            }
            ctx.pr.set_message("verify minisign".to_string());
            debug!("minisign: {:?}", minisign);
            let artifact_path = tv.download_path().join(filename);
            let download_path = tv.download_path();
            self.run_minisign_check(MinisignCheck {
                artifact_path: &artifact_path,
                artifact_filename: filename,
                pkg,
                config: minisign,
                checksum: None,
                version: v,
                download_dir: &download_path,
                progress: Some(ctx.pr.as_ref()),
            })
            .await?;

            // Record minisign provenance if no higher-priority verification already recorded
            let platform_key = self.get_platform_key();
            let pi = tv.lock_platforms.entry(platform_key).or_default();
            if pi.provenance.is_none() {
                pi.provenance = Some(ProvenanceType::Minisign);
            }
        }
        Ok(())
    }

    async fn verify_slsa(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        pkg: &AquaPackage,
        v: &str,
        release_tag: Option<&str>,
        filename: &str,
    ) -> Result<()> {
        let settings = Settings::get();
        if !settings.slsa || !settings.aqua.slsa {
            return Ok(());
        }
        if let Some(slsa) = &pkg.slsa_provenance {
            if slsa.enabled == Some(false) {
                debug!("slsa is disabled for {tv}");
                return Ok(());
            }
            if !slsa.has_signer_identity() {
                debug!("skipping SLSA for {tv}: Aqua registry has no expected signer identity");
                return Ok(());
            }

            ctx.pr.set_message("verify slsa".to_string());
            let artifact_path = tv.download_path().join(filename);
            let provenance_url = self
                .run_slsa_check(
                    &artifact_path,
                    pkg,
                    v,
                    release_tag,
                    &tv.download_path(),
                    Some(ctx.pr.as_ref()),
                )
                .await?;

            ctx.pr.set_message("✓ SLSA provenance verified".to_string());
            // Record provenance in lockfile only if not already set by a
            // higher-priority verification (github-attestations runs first)
            let platform_key = self.get_platform_key();
            let pi = tv.lock_platforms.entry(platform_key).or_default();
            if pi.provenance.is_none() {
                pi.provenance = Some(ProvenanceType::Slsa {
                    url: Some(provenance_url),
                });
            }
        }
        Ok(())
    }

    async fn verify_github_artifact_attestations(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        pkg: &AquaPackage,
        _v: &str,
        filename: &str,
    ) -> Result<Option<GithubAttestationStatus>> {
        // Check if attestations are enabled via global and aqua-specific settings
        let settings = Settings::get();
        if !settings.github_attestations || !settings.aqua.github_attestations {
            debug!("GitHub artifact attestations verification disabled");
            return Ok(None);
        }

        if let Some(github_attestations) = &pkg.github_artifact_attestations {
            if github_attestations.enabled == Some(false) {
                debug!("GitHub artifact attestations verification is disabled for {tv}");
                return Ok(None);
            }

            ctx.pr
                .set_message("verify GitHub artifact attestations".to_string());
            let artifact_path = tv.download_path().join(filename);
            match self
                .run_github_attestation_check(&artifact_path, pkg, github_attestations)
                .await?
            {
                GithubAttestationStatus::Verified => {}
                GithubAttestationStatus::Unavailable => {
                    return Ok(Some(GithubAttestationStatus::Unavailable));
                }
            }

            ctx.pr
                .set_message("✓ GitHub artifact attestations verified".to_string());
            return Ok(Some(GithubAttestationStatus::Verified));
        }

        Ok(None)
    }

    async fn cosign_artifact(
        &self,
        ctx: &InstallContext,
        cosign: &AquaCosign,
        pkg: &AquaPackage,
        v: &str,
        tv: &mut ToolVersion,
        artifact_path: &Path,
    ) -> Result<()> {
        let download_path = tv.download_path();
        ctx.pr
            .set_message("verify artifact with cosign".to_string());
        self.run_cosign_check(
            artifact_path,
            cosign,
            pkg,
            v,
            &download_path,
            Some(ctx.pr.as_ref()),
        )
        .await?;

        ctx.pr.set_message("✓ Cosign verified".to_string());
        self.record_cosign_provenance(tv);
        Ok(())
    }

    async fn cosign_checksums(
        &self,
        ctx: &InstallContext,
        cosign: &AquaCosign,
        pkg: &AquaPackage,
        v: &str,
        tv: &mut ToolVersion,
        checksum_path: &Path,
    ) -> Result<()> {
        let download_path = tv.download_path();
        ctx.pr
            .set_message("verify checksums with cosign".to_string());
        self.run_cosign_check(
            checksum_path,
            cosign,
            pkg,
            v,
            &download_path,
            Some(ctx.pr.as_ref()),
        )
        .await?;

        ctx.pr.set_message("✓ Cosign verified".to_string());
        self.record_cosign_provenance(tv);
        Ok(())
    }

    fn record_cosign_provenance(&self, tv: &mut ToolVersion) {
        self.record_provenance(tv, ProvenanceType::Cosign);
    }

    fn record_provenance(&self, tv: &mut ToolVersion, provenance: ProvenanceType) {
        let platform_key = self.get_platform_key();
        let pi = tv.lock_platforms.entry(platform_key).or_default();
        if pi.provenance.as_ref().is_none_or(|p| *p < provenance) {
            pi.provenance = Some(provenance);
        }
    }

    fn effective_extraction_format(pkg: &AquaPackage, format: &str) -> Result<ExtractionFormat> {
        let extraction_format = ExtractionFormat::from_ext(format);
        if extraction_format.is_none() && !matches!(format, "" | "dmg" | "pkg") {
            bail!("unsupported aqua package format: {format}");
        }
        let extraction_format = extraction_format.unwrap_or(ExtractionFormat::Raw);
        if pkg.package_type() == AquaPackageType::GithubArchive
            && extraction_format == ExtractionFormat::Raw
        {
            // The aqua registry can omit format for GitHub-generated archive downloads.
            // Historically Raw reached untar/open_tar, which treated it as gzip-tar.
            Ok(ExtractionFormat::TarGz)
        } else {
            Ok(extraction_format)
        }
    }

    fn install(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        pkg: &AquaPackage,
        v: &str,
        filename: &str,
        selected_libc_sibling: bool,
    ) -> Result<()> {
        let tarball_path = tv.download_path().join(filename);
        ctx.pr.set_message(format!("extract {filename}"));
        let install_path = tv.install_path();
        file::remove_all(&install_path)?;
        let format = pkg.format(v, os(), arch())?;
        let mut bin_names: Vec<Cow<'_, str>> = pkg
            .files
            .iter()
            .filter_map(|file| match file.src(pkg, v, os(), arch()) {
                Ok(Some(s)) => Some(Cow::Owned(s)),
                Ok(None) => Some(Cow::Borrowed(file.name.as_str())),
                Err(_) => None,
            })
            .collect();
        if bin_names.is_empty() {
            let fallback_name = pkg
                .name
                .as_deref()
                .and_then(|n| n.split('/').next_back())
                .unwrap_or(&pkg.repo_name);
            bin_names = vec![Cow::Borrowed(fallback_name)];
        }
        let bin_paths: Vec<_> = bin_names
            .iter()
            .map(|name| join_registry_path(&install_path, name))
            .map_ok(|path| complete_windows_ext(path, pkg, os(), v))
            .collect::<Result<_>>()?;
        let first_bin_path = bin_paths
            .first()
            .expect("at least one bin path should exist");
        let extract_opts = ExtractOptions {
            pr: Some(ctx.pr.as_ref()),
            ..Default::default()
        };
        let extraction_format = Self::effective_extraction_format(pkg, format)?;
        let mut make_executable = false;
        if let AquaPackageType::GithubArchive = pkg.package_type() {
            file::extract_archive(
                &tarball_path,
                &install_path,
                extraction_format,
                &extract_opts,
            )?;
            #[cfg(unix)]
            Self::rebase_embedded_guest_rootfs_links(&install_path, pkg)?;
            file::ensure_symlinks_stay_within(&install_path)?;
            make_executable = true;
        } else if let AquaPackageType::GithubContent = pkg.package_type() {
            if let Some(parent) = first_bin_path.parent() {
                file::create_dir_all(parent)?;
            }
            file::copy(&tarball_path, first_bin_path)?;
            make_executable = true;
        } else if matches!(format, "" | "raw") {
            if let Some(parent) = first_bin_path.parent() {
                file::create_dir_all(parent)?;
            }
            file::copy(&tarball_path, first_bin_path)?;
            make_executable = true;
        } else if format == "dmg" {
            file::un_dmg(&tarball_path, &install_path)?;
        } else if format == "pkg" {
            file::un_pkg(&tarball_path, &install_path)?;
        } else if extraction_format.is_compressed_file() {
            file::decompress_file(&tarball_path, first_bin_path, extraction_format)?;
            make_executable = true;
        } else {
            file::extract_archive(
                &tarball_path,
                &install_path,
                extraction_format,
                &extract_opts,
            )?;
            #[cfg(unix)]
            Self::rebase_embedded_guest_rootfs_links(&install_path, pkg)?;
            // The bins are chmodded and linked by name below, which would
            // follow a link the archive shipped out of the install directory.
            file::ensure_symlinks_stay_within(&install_path)?;
            make_executable = true;
        }

        if make_executable {
            let candidates: Vec<_> = Self::srcs_for_platform(pkg, v, &install_path, os(), arch())?
                .into_iter()
                .map(|link| link.src)
                .collect();
            Self::make_bins_executable(&bin_paths, &candidates)?;
        }

        let srcs = Self::srcs_for_platform(pkg, v, &install_path, os(), arch())?;
        for link in &srcs {
            if link.src != link.dst && link.src.exists() {
                Self::create_file_link(link)?;
            }
        }

        let raw_opts = tv.request.options();
        let opts = AquaOptions::new(&raw_opts);
        if opts.symlink_bins() || selected_libc_sibling {
            self.create_symlink_bin_dir(tv, &srcs)?;
        }

        Ok(())
    }

    /// Marks each expected binary executable, falling back to an alternate layout (such as a
    /// macOS universal archive) when the expected path is absent.
    fn make_bins_executable(bin_paths: &[PathBuf], candidates: &[PathBuf]) -> Result<()> {
        for bin_path in bin_paths {
            // bin_path should exist, but doesn't when the registry is outdated
            if bin_path.exists() {
                file::make_executable(bin_path)?;
            } else if let Some(alt) = candidates
                .iter()
                .find(|c| c.exists() && c.file_name() == bin_path.file_name())
            {
                file::make_executable(alt)?;
            } else {
                warn!("bin path does not exist: {}", bin_path.display());
            }
        }
        Ok(())
    }

    /// Rebase the guest-rootfs links shipped by SmolVM-style sidecars before
    /// applying the archive containment check. The marker is the guest agent
    /// binary, which is mounted with this directory as the guest's `/`.
    #[cfg(unix)]
    fn rebase_embedded_guest_rootfs_links(install_path: &Path, pkg: &AquaPackage) -> Result<()> {
        if pkg.repo_owner != "smol-machines" || pkg.repo_name != "smolvm" {
            return Ok(());
        }
        for entry in fs::read_dir(install_path)? {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let rootfs = entry.path().join("agent-rootfs");
            if Self::is_smolvm_agent_rootfs(&rootfs) {
                file::rebase_guest_rootfs_absolute_symlinks(&rootfs)?;
            }
        }
        Ok(())
    }

    #[cfg(unix)]
    fn is_smolvm_agent_rootfs(rootfs: &Path) -> bool {
        let mut path = rootfs.to_path_buf();
        for component in ["usr", "local", "bin"] {
            if !fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.file_type().is_dir()) {
                return false;
            }
            path.push(component);
        }
        if !fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.file_type().is_dir()) {
            return false;
        }
        fs::symlink_metadata(path.join("smolvm-agent"))
            .is_ok_and(|metadata| metadata.file_type().is_file())
    }

    /// Creates a `.mise-bins` directory with symlinks only to the binaries defined in the aqua registry.
    /// This prevents bundled dependencies (like Python in aws-cli) from being exposed on PATH.
    fn create_symlink_bin_dir(&self, tv: &ToolVersion, srcs: &[AquaFileLink]) -> Result<()> {
        let symlink_dir = tv.install_path().join(MISE_BINS_DIR);
        Self::create_symlink_bin_dir_at(&symlink_dir, srcs)
    }

    fn create_symlink_bin_dir_at(symlink_dir: &Path, srcs: &[AquaFileLink]) -> Result<()> {
        let srcs = srcs.iter().filter(|link| link.dst.exists()).collect_vec();
        if srcs.is_empty() {
            return Ok(());
        }
        file::create_dir_all(symlink_dir)?;

        for link in srcs {
            if let Some(bin_name) = link.dst.file_name() {
                let symlink_path = symlink_dir.join(bin_name);
                if !symlink_path.exists() {
                    super::mise_bins::link(&link.dst, &symlink_path)?;
                }
            }
        }
        Ok(())
    }

    /// Candidate bin-path *directories* for a package, relative to `install_path`.
    ///
    /// Pure with respect to install state: depends only on the package
    /// definition and the target platform, NEVER on whether the paths currently
    /// exist on disk. Callers (and the shim layer) filter existence live.
    /// Keeping `.exists()` out of this function is what makes the result safe to
    /// cache across processes — caching an existence-filtered value computed
    /// mid-install is what dropped shims in #6468.
    fn candidate_bin_paths_for_platform(
        pkg: &AquaPackage,
        version: &str,
        install_path: &Path,
        os: &str,
        arch: &str,
    ) -> Result<Vec<PathBuf>> {
        let srcs = Self::srcs_for_platform(pkg, version, install_path, os, arch)?;
        let paths: Vec<PathBuf> = if srcs.is_empty() {
            vec![install_path.to_path_buf()]
        } else {
            srcs.iter()
                .map(|link| link.dst.parent().unwrap().to_path_buf())
                .collect()
        };
        Ok(paths
            .into_iter()
            .unique()
            .filter_map(|p| p.strip_prefix(install_path).ok().map(|p| p.to_path_buf()))
            .collect())
    }

    fn has_legacy_root_bin(ba: &BackendArg, install_path: &Path) -> bool {
        [&ba.short, &ba.tool_name]
            .into_iter()
            .filter_map(|name| name.rsplit([':', '/']).next())
            .unique()
            .map(|name| install_path.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)))
            .any(|path| path.is_file() && file::is_executable(&path))
    }

    fn is_registry_unavailable(err: &eyre::Report) -> bool {
        matches!(
            err.downcast_ref::<AquaRegistryError>(),
            Some(AquaRegistryError::RegistryNotAvailable(_))
        )
    }

    fn srcs_for_platform(
        pkg: &AquaPackage,
        version: &str,
        install_path: &Path,
        os: &str,
        arch: &str,
    ) -> Result<Vec<AquaFileLink>> {
        if pkg.files.is_empty() {
            let fallback_name = pkg
                .name
                .as_deref()
                .and_then(|n| n.split('/').next_back())
                .unwrap_or(&pkg.repo_name);

            let mut path = join_registry_path(install_path, fallback_name)?;
            path = complete_windows_ext(path, pkg, os, version);

            return Ok(vec![AquaFileLink {
                src: path.clone(),
                dst: path,
                hard: false,
                explicit_link: false,
            }]);
        }

        let versions = version_candidates(version, pkg.version_prefix.as_deref());
        let files: Vec<AquaFileLink> = pkg
            .files
            .iter()
            .map(|f| {
                let srcs = versions
                    .iter()
                    .map(|version| {
                        Self::file_link_for_version(
                            f,
                            pkg,
                            version.as_ref(),
                            install_path,
                            os,
                            arch,
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(srcs.into_iter().flatten())
            })
            .flatten_ok()
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unique_by(|link| (link.src.to_path_buf(), link.dst.to_path_buf()))
            .collect();
        Ok(files)
    }

    fn file_link_for_version(
        f: &aqua_registry::AquaFile,
        pkg: &AquaPackage,
        version: &str,
        install_path: &Path,
        os: &str,
        arch: &str,
    ) -> Result<Vec<AquaFileLink>> {
        let explicit_link = f.link.is_some();
        // Like aqua, a file without `src` is found at its `name`.
        let link = f.link(pkg, version, os, arch)?;
        f.src_candidates(pkg, version, os, arch)?
            .into_iter()
            .map(|src| {
                let src = src.unwrap_or_else(|| f.name.clone());
                let mut src = join_registry_path(install_path, &src)?;
                let mut dst = join_registry_path(
                    src.parent().wrap_err_with(|| {
                        format!("file source has no parent: {}", src.display())
                    })?,
                    link.as_deref().unwrap_or(f.name.as_str()),
                )?;
                src = complete_windows_ext(src, pkg, os, version);
                dst = complete_windows_dst_ext(&src, dst, pkg, os, version);

                Ok(AquaFileLink {
                    src,
                    dst,
                    hard: f.hard,
                    explicit_link,
                })
            })
            .collect()
    }

    fn create_file_link(link: &AquaFileLink) -> Result<()> {
        if let Some(parent) = link.dst.parent() {
            file::create_dir_all(parent)?;
        }

        // On case-insensitive filesystems src and dst can be different
        // strings but the same on-disk file; without this guard the branches
        // below would overwrite src with a self-referential link.
        if link.dst.exists() && same_disk_entry(&link.src, &link.dst) {
            return Ok(());
        }

        if link.hard || (cfg!(windows) && link.explicit_link) {
            trace!("ln {} {}", link.src.display(), link.dst.display());
            if link.dst.is_dir() {
                return Err(eyre!(
                    "destination is a directory, cannot create hard link: {}",
                    link.dst.display()
                ));
            }
            if link.dst.is_file() || link.dst.is_symlink() {
                fs::remove_file(&link.dst)?;
            }
            fs::hard_link(&link.src, &link.dst).wrap_err_with(|| {
                format!(
                    "failed to hard link {} {}",
                    link.src.display(),
                    link.dst.display()
                )
            })?;
            return Ok(());
        }

        if cfg!(windows) {
            file::copy(&link.src, &link.dst)?;
        } else {
            let target = link
                .dst
                .parent()
                .and_then(|parent| relative_path(parent, &link.src))
                .unwrap_or_else(|| link.src.clone());
            file::make_symlink(&target, &link.dst)?;
        }
        Ok(())
    }
}

/// Joins a path a registry entry names (`files[].src`, `name`, `link`, or the
/// package name when there are no files) onto a directory of the install. A
/// downloaded registry is remote data, so an absolute path or `..` must not
/// place the download, its chmod or its link outside the install directory.
fn join_registry_path(dir: &Path, path: &str) -> Result<PathBuf> {
    // The standard registry has `src: ./cmd/topicctl`.
    let rel = path.strip_prefix("./").unwrap_or(path);
    ensure_safe_relative_bin_path("aqua registry file", rel)?;
    Ok(dir.join(path))
}

fn same_disk_entry(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(am), Ok(bm)) => am.dev() == bm.dev() && am.ino() == bm.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (fs::canonicalize(a), fs::canonicalize(b)) {
            (Ok(ac), Ok(bc)) => ac == bc,
            _ => false,
        }
    }
}

fn same_checksum_algorithm(a: &str, b: &str) -> bool {
    match (a.split_once(':'), b.split_once(':')) {
        (Some((a_algo, _)), Some((b_algo, _))) => a_algo.eq_ignore_ascii_case(b_algo),
        _ => true,
    }
}

fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    let from_components = from.components().collect_vec();
    let to_components = to.components().collect_vec();
    let common_len = from_components
        .iter()
        .zip(&to_components)
        .take_while(|(from, to)| from == to)
        .count();

    let mut result = PathBuf::new();
    for component in &from_components[common_len..] {
        match component {
            std::path::Component::Normal(_) => result.push(".."),
            std::path::Component::CurDir => {}
            _ => return None,
        }
    }
    for component in &to_components[common_len..] {
        match component {
            std::path::Component::Normal(_) | std::path::Component::CurDir => {
                result.push(component.as_os_str())
            }
            _ => return None,
        }
    }
    if result.as_os_str().is_empty() {
        Some(PathBuf::from("."))
    } else {
        Some(result)
    }
}

fn unescape_regex_literal(pattern: &str) -> Cow<'_, str> {
    // Fast path: If there are no backslashes, we return the original slice.
    // .contains() is highly optimized and avoids any heap allocation.
    if !pattern.contains('\\') {
        return Cow::Borrowed(pattern);
    }

    // Slow path: We have escapes to process, so we must allocate a new String.
    // Capacity is set to pattern.len() to ensure exactly one allocation.
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();

    while let Some(c) = chars.next() {
        if c == '\\' {
            // If there's a character after the backslash, push it (unescaping).
            if let Some(next) = chars.next() {
                out.push(next);
            } else {
                // Handle trailing backslash: push the backslash itself.
                out.push(c);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn rebase_github_signer_workflow(workflow: &str, old_repo: &str, canonical_repo: &str) -> String {
    workflow
        .strip_prefix(old_repo)
        .filter(|suffix| suffix.starts_with('/'))
        .map_or_else(
            || workflow.to_string(),
            |suffix| format!("{canonical_repo}{suffix}"),
        )
}

/// A failed verification may become valid after resolving a repository transfer.
/// Only a verified attestation can skip the canonical-repository lookup.
fn attestation_needs_transfer_retry(
    result: &std::result::Result<bool, crate::github::sigstore::AttestationError>,
) -> bool {
    !matches!(result, Ok(true))
}

fn toml_value_to_string(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn toml_string_var(key: &str, value: &toml::Value) -> Result<String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        value => bail!(
            "aqua var `{}` must be a string, got {}",
            key,
            toml_value_kind(value)
        ),
    }
}

fn toml_value_kind(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "string",
        toml::Value::Integer(_) | toml::Value::Float(_) => "number",
        toml::Value::Boolean(_) => "boolean",
        toml::Value::Array(_) => "array",
        toml::Value::Table(_) => "object",
        toml::Value::Datetime(_) => "datetime",
    }
}

fn cosign_opt_value<'a>(opts: &'a [String], flag: &str) -> Option<&'a str> {
    opts.windows(2)
        .find(|pair| pair[0] == flag)
        .map(|pair| pair[1].as_str())
}

async fn select_github_download_url(
    private: bool,
    browser_url: &str,
    api_url: Option<&str>,
) -> String {
    match api_url {
        // No probe for private repos, but an asset ID that mise-versions or a
        // lockfile supplied still has to be confirmed before it is used.
        Some(api_url) if private => github::checked_api_asset_url(browser_url, api_url).await,
        Some(api_url) => github::pick_reachable_asset_url(browser_url, api_url).await,
        None => browser_url.to_string(),
    }
}

fn select_github_probe_url<'a>(
    private: bool,
    browser_url: &'a str,
    api_url: Option<&'a str>,
) -> &'a str {
    if private {
        api_url.unwrap_or(browser_url)
    } else {
        browser_url
    }
}

async fn resolve_aqua_http_url(
    pkg: &AquaPackage,
    version: &str,
    prefixed_version: Option<&str>,
    target_os: &str,
    target_arch: &str,
) -> Result<(String, String)> {
    let url = pkg.url(version, target_os, target_arch)?;
    let Some(prefixed_version) = prefixed_version else {
        return Ok((url, version.to_string()));
    };
    let Ok(prefixed_url) = pkg.url(prefixed_version, target_os, target_arch) else {
        return Ok((url, version.to_string()));
    };
    if prefixed_url == url || artifact_url_exists(&prefixed_url).await {
        Ok((prefixed_url, prefixed_version.to_string()))
    } else {
        Ok((url, version.to_string()))
    }
}

fn version_with_prefix<'a>(version: &'a str, version_prefix: Option<&str>) -> Cow<'a, str> {
    if let Some(prefix) = version_prefix
        && !version.starts_with(prefix)
    {
        Cow::Owned(format!("{prefix}{version}"))
    } else {
        Cow::Borrowed(version)
    }
}

fn version_candidates<'a>(version: &'a str, version_prefix: Option<&str>) -> Vec<Cow<'a, str>> {
    let mut candidates = vec![version_with_prefix(version, version_prefix)];
    if let Some(prefix) = version_prefix {
        let base = version.strip_prefix(prefix).unwrap_or(version);
        if !prefix.is_empty() && !starts_with_v(base) && !ends_with_v(prefix) {
            candidates.push(Cow::Owned(format!("{prefix}v{base}")));
        }
    } else if !starts_with_v(version) {
        candidates.push(Cow::Owned(format!("v{version}")));
    }
    candidates.into_iter().unique().collect()
}

fn package_version_candidates<'a>(version: &'a str, pkg: &AquaPackage) -> Vec<Cow<'a, str>> {
    let mut candidates = version_candidates(version, None);
    let prefixes = pkg
        .version_prefix
        .iter()
        .map(String::as_str)
        .chain(
            pkg.version_overrides
                .iter()
                .filter_map(|vo| vo.version_prefix.as_deref()),
        )
        .unique();
    for prefix in prefixes {
        candidates.extend(version_candidates(version, Some(prefix)));
    }
    candidates.into_iter().unique().collect()
}

/// Keep an exact release tag authoritative, otherwise include registry prefixes.
fn resolved_package_version_candidates<'a>(
    version: &'a str,
    tag: Option<&'a str>,
    pkg: &AquaPackage,
) -> Vec<Cow<'a, str>> {
    if let Some(tag) = tag {
        vec![Cow::Borrowed(tag)]
    } else {
        // Tag lookup can miss a pinned release, and locked HTTP URLs have no release
        // tag. Include registry prefixes before selecting version overrides, otherwise
        // packages such as openai/codex keep their empty top-level asset and format.
        package_version_candidates(version, pkg)
    }
}

/// Select lock metadata only when the version candidates agree on a prefix family.
fn lock_package_for_version(
    pkg: AquaPackage,
    version: &str,
    tag: Option<&str>,
    os: &str,
    arch: &str,
    libc: Option<&str>,
) -> Result<AquaPackage> {
    let candidates = resolved_package_version_candidates(version, tag, &pkg);
    let versions = candidates.iter().map(|v| v.as_ref()).collect_vec();
    // Without a prefix on any override every candidate resolves to the root prefix,
    // so there is nothing to disambiguate and no reason to clone the package.
    let has_override_prefix = pkg
        .version_overrides
        .iter()
        .any(|vo| vo.version_prefix.is_some());
    if tag.is_none() && has_override_prefix {
        let prefixes = versions
            .iter()
            .filter(|v| pkg.version_constraint_ok(&[v]))
            .map(|v| {
                pkg.clone()
                    .with_version_libc(&[v], os, arch, libc)
                    .version_prefix
                    .unwrap_or_default()
            })
            .unique()
            .collect_vec();
        if prefixes.len() > 1 {
            bail!(
                "ambiguous aqua version prefixes for {version}: {}; no exact release tag matched",
                prefixes
                    .iter()
                    .map(|prefix| if prefix.is_empty() { "(none)" } else { prefix })
                    .join(", ")
            );
        }
    }
    Ok(pkg.with_version_libc(&versions, os, arch, libc))
}

/// How a tag from the versions host is confirmed before installing relies on
/// it as the only spelling.
#[derive(Debug, PartialEq, Eq)]
enum ListedTagCheck {
    /// Fetch its GitHub release, which installing release assets does anyway.
    Release,
    /// Probe the artifact the package downloads, on the artifact's own host.
    ArtifactUrl(String),
    /// Nothing cheap confirms it; keep looking the tag up as before.
    Unconfirmable,
}

/// Whether an artifact URL answers. Some artifact hosts reject HEAD even
/// though GET is supported; `get_async` only waits for the response headers,
/// and dropping the response avoids downloading the artifact.
async fn artifact_url_exists(url: &str) -> bool {
    HTTP.head(url).await.is_ok() || HTTP.get_async(url).await.is_ok()
}

fn github_release_tag_from_url(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    if url.host_str()? != "github.com" {
        return None;
    }
    let segments = url.path_segments()?.collect::<Vec<_>>();
    let [_owner, _name, "releases", "download", tag, _asset] = segments.as_slice() else {
        return None;
    };
    urlencoding::decode(tag).ok().map(Cow::into_owned)
}

fn starts_with_v(s: &str) -> bool {
    s.starts_with('v') || s.starts_with('V')
}

fn ends_with_v(s: &str) -> bool {
    s.ends_with('v') || s.ends_with('V')
}

fn complete_windows_ext(
    mut path: PathBuf,
    pkg: &AquaPackage,
    target_os: &str,
    version: &str,
) -> PathBuf {
    let Some(file_name) = path
        .file_name()
        .map(|file_name| file_name.to_string_lossy().into_owned())
    else {
        return path;
    };
    let completed = pkg.complete_windows_ext_to_file_src(&file_name, version, target_os);
    if completed != file_name {
        path.set_file_name(completed);
    }
    path
}

fn complete_windows_dst_ext(
    src: &Path,
    mut dst: PathBuf,
    pkg: &AquaPackage,
    target_os: &str,
    version: &str,
) -> PathBuf {
    let Some(src_file_name) = src
        .file_name()
        .map(|file_name| file_name.to_string_lossy().into_owned())
    else {
        return dst;
    };
    let Some(dst_file_name) = dst
        .file_name()
        .map(|file_name| file_name.to_string_lossy().into_owned())
    else {
        return dst;
    };
    let completed =
        pkg.complete_windows_ext_to_file_dst(&src_file_name, &dst_file_name, version, target_os);
    if completed != dst_file_name {
        dst.set_file_name(completed);
    }
    dst
}

/// Returns install-time-only option keys for the Aqua backend.
///
/// Aqua registry vars may be provided either as a nested `vars` table or as
/// flat top-level keys whose names are declared by the registry package. The
/// flat names are not statically knowable here, so `is_install_time_option_key`
/// handles the precise filtering rule.
pub(crate) fn install_time_option_keys() -> Vec<String> {
    vec!["vars".into()]
}

pub(crate) fn is_install_time_option_key(key: &str) -> bool {
    key != "symlink_bins"
}

#[cfg(test)]
mod tests;

async fn get_tags(pkg: &AquaPackage) -> Result<Vec<String>> {
    if pkg.version_source.as_deref() == Some("github_tag") {
        // Names only: resolving a tag needs no dates.
        return github::list_tags(&format!("{}/{}", pkg.repo_owner, pkg.repo_name)).await;
    }
    Ok(get_tags_with_release_dates(pkg)
        .await?
        .into_iter()
        .map(|(tag, _, _)| tag)
        .collect())
}

#[cfg(test)]
fn version_from_tag(pkg: &AquaPackage, tag: &str) -> Result<Option<String>> {
    let target = PlatformTarget::from_current();
    let (target_os, target_arch) = AquaBackend::to_aqua_platform(&target);
    let target_libc = AquaBackend::target_variant_libc(&target, None);
    Ok(
        versioned_package_from_tag(pkg, tag, target_os, target_arch, target_libc.as_deref())?
            .map(|(version, _)| version),
    )
}

fn versioned_package_from_tag(
    pkg: &AquaPackage,
    tag: &str,
    target_os: &str,
    target_arch: &str,
    target_libc: Option<&str>,
) -> Result<Option<(String, AquaPackage)>> {
    if !pkg.version_filter_ok(tag)? || !pkg.version_constraint_ok(&[tag]) {
        return Ok(None);
    }

    let mut version = tag;
    let versioned_pkg = pkg
        .clone()
        .with_version_libc(&[tag], target_os, target_arch, target_libc);
    if let Some(prefix) = &versioned_pkg.version_prefix {
        let Some(stripped) = version.strip_prefix(prefix) else {
            return Ok(None);
        };
        version = stripped;
    }
    let version = version.strip_prefix('v').unwrap_or(version);
    Ok(Some((version.to_string(), versioned_pkg)))
}

fn package_has_asset(pkg: &AquaPackage) -> bool {
    !pkg.no_asset.unwrap_or(false) && pkg.error_message.is_none()
}

/// Describe the release GitHub marks as "Latest" for the fast path in
/// [`Backend::latest_stable_version_info`].
///
/// The release date has to travel with the version. Without it the trait falls
/// back to looking the version up in the cached remote-version list to apply a
/// `minimum_release_age` cutoff, and a list that has not caught up with upstream
/// then hides a release that is in fact old enough to install.
///
/// `None` means the tag does not map to an installable version on this platform,
/// so the caller should fall through to the full listing.
fn marked_release_version_info(
    pkg: &AquaPackage,
    release: &github::GithubRelease,
    target_os: &str,
    target_arch: &str,
    target_libc: Option<&str>,
) -> Result<Option<VersionInfo>> {
    let Some((version, versioned_pkg)) =
        versioned_package_from_tag(pkg, &release.tag_name, target_os, target_arch, target_libc)?
    else {
        return Ok(None);
    };
    if !package_has_asset(&versioned_pkg) {
        return Ok(None);
    }
    Ok(Some(VersionInfo {
        version,
        created_at: Some(release.released_at().to_string()),
        release_url: Some(format!(
            "https://github.com/{}/{}/releases/tag/{}",
            pkg.repo_owner, pkg.repo_name, release.tag_name
        )),
        prerelease: Some(release.prerelease),
        ..Default::default()
    }))
}

/// Get tags with optional release timestamps and a pre-release flag.
/// Returns `(tag_name, Option<released_at>, prerelease)` triples.
///
/// Always fetches the pre-release superset so the shared remote-versions cache
/// is independent of the `prerelease` tool option; callers filter on the
/// returned `prerelease` flag at read time. Git tags (the `github_tag` version
/// source) carry no pre-release flag, so those entries are reported as `None`
/// ("unknown") and rely on the shared regex-based fuzzy-match filter.
async fn get_tags_with_release_dates(
    pkg: &AquaPackage,
) -> Result<Vec<(String, Option<String>, Option<bool>)>> {
    if let Some("github_tag") = pkg.version_source.as_deref() {
        // Tags carry no prerelease flag. Their dates are the ones mise-versions
        // already has; the rest stay `None` and are dated one at a time by
        // `fetch_version_created_at`, since a commit lookup per tag is thousands
        // of requests for a repository like aws/aws-cli.
        let tags =
            github::list_tags_with_known_dates(&format!("{}/{}", pkg.repo_owner, pkg.repo_name))
                .await?;
        return Ok(tags.into_iter().map(|t| (t.name, t.date, None)).collect());
    }
    let repo = format!("{}/{}", pkg.repo_owner, pkg.repo_name);
    let releases = github::list_release_versions(github::API_URL, &repo, false).await?;
    Ok(releases
        .into_iter()
        .map(|r| (r.tag_name, r.released_at, Some(r.prerelease)))
        .collect())
}

/// The version or tag is rendered into registry URL templates (`{{.Version}}`) and checksum and
/// signature options, none of which encode it. It can come from a config file or from release
/// metadata, so refuse anything that would change the URL's structure: a percent escape (`%2e%2e`
/// resolves like `..`), a query or fragment, a backslash, or a `.`/`..` path segment.
fn ensure_url_safe_version(version: &str) -> Result<()> {
    if let Some(c) = version
        .chars()
        .find(|c| matches!(c, '%' | '#' | '?' | '\\'))
    {
        bail!(
            "invalid version {version:?}: contains {c:?}, which cannot be used in a download URL"
        );
    }
    if version
        .split('/')
        .any(|segment| matches!(segment, "." | ".."))
    {
        bail!("invalid version {version:?}: contains a relative path segment");
    }
    Ok(())
}

fn validate(pkg: &AquaPackage, version: &str) -> Result<()> {
    if pkg.no_asset.unwrap_or(false) {
        bail!("no asset released");
    }
    if let Some(message) = &pkg.error_message {
        bail!("{}", message);
    }
    if !is_platform_supported(&pkg.supported_envs, os(), arch()) {
        bail!(
            "unsupported env: {}/{} (supported: {:?})",
            os(),
            arch(),
            pkg.supported_envs
        );
    }
    match pkg.package_type() {
        AquaPackageType::Cargo => {
            bail!(
                "package type `cargo` is not supported in the aqua backend. Use the cargo backend instead{}.",
                pkg.crate_name
                    .as_deref()
                    .filter(|name| !name.is_empty())
                    .or_else(|| {
                        pkg.name
                            .as_deref()
                            .and_then(|s| s.strip_prefix("crates.io/"))
                    })
                    .map(|name| format!(": cargo:{}", name.escape_debug()))
                    .unwrap_or_default()
            )
        }
        AquaPackageType::GoInstall => {
            let backend = go_install_backend(pkg, version)?;
            bail!(
                "package type `go_install` is not supported in the aqua backend. Use the go backend instead: {backend}."
            )
        }
        AquaPackageType::GoBuild => {
            bail!(
                "package type `{}` is not supported in the aqua backend. Use the go backend instead{}.",
                pkg.package_type(),
                pkg.path
                    .as_ref()
                    .map(|path| format!(": go:{path}"))
                    .unwrap_or_else(|| {
                        format!(": go:github.com/{}/{}", pkg.repo_owner, pkg.repo_name)
                    })
            )
        }
        _ => {}
    }
    Ok(())
}

fn go_install_backend(pkg: &AquaPackage, version: &str) -> Result<String> {
    let path = match pkg.path.as_deref() {
        Some(path) => pkg.parse_aqua_str(path, version, &Default::default(), os(), arch())?,
        None => format!("github.com/{}/{}", pkg.repo_owner, pkg.repo_name),
    };
    Ok(format!("go:{path}"))
}

/// Resolve repo owner and name from an override config, falling back to pkg defaults.
/// The repository whose workflow run must have made a package's SLSA
/// provenance, as slsa-verifier's `--source-uri` took it: the recipe's
/// `source_uri`, or else the repository the provenance is published in.
fn slsa_source_repository(pkg: &AquaPackage) -> String {
    let slsa = pkg.slsa_provenance.as_ref();
    if let Some(source_uri) = slsa.and_then(|s| s.source_uri.clone()) {
        return source_uri;
    }
    let (owner, name) = resolve_repo_info(
        slsa.and_then(|s| s.repo_owner.as_ref()),
        slsa.and_then(|s| s.repo_name.as_ref()),
        pkg,
    );
    format!("{owner}/{name}")
}

/// The release tag of `v`, the version an install or lock picked for `pkg`.
/// A GitHub release package's asset was found in the release `v` names, so
/// `v` is its tag. For other packages, a `v` whose URL happened to work is no
/// tag, so it counts only when it is `known_tag`: listed, locked, or made by
/// `version_prefix`.
fn selected_release_tag(pkg: &AquaPackage, v: &str, known_tag: Option<&str>) -> Option<String> {
    if pkg.package_type() == AquaPackageType::GithubRelease {
        return Some(v.to_string());
    }
    known_tag.filter(|tag| *tag == v).map(str::to_string)
}

/// The tag a package's SLSA provenance must have been built from, as
/// slsa-verifier's `--source-tag` took it: the recipe's `source_tag`, or else
/// the version's release tag, when mise knows it. A `source_tag` of `-` turns
/// the check off, for tools built from a branch.
fn slsa_source_tag<'a>(pkg: &'a AquaPackage, release_tag: Option<&'a str>) -> Option<&'a str> {
    match pkg
        .slsa_provenance
        .as_ref()
        .and_then(|s| s.source_tag.as_deref())
    {
        Some("-") => None,
        Some(tag) => Some(tag),
        None => release_tag,
    }
}

fn resolve_repo_info(
    override_owner: Option<&String>,
    override_name: Option<&String>,
    pkg: &AquaPackage,
) -> (String, String) {
    let owner = override_owner
        .cloned()
        .unwrap_or_else(|| pkg.repo_owner.clone());
    let name = override_name
        .cloned()
        .unwrap_or_else(|| pkg.repo_name.clone());
    (owner, name)
}

/// Check if extraction is needed based on format and package type.
fn needs_extraction(format: &str, pkg_type: &AquaPackageType) -> bool {
    (!format.is_empty() && format != "raw")
        || matches!(
            pkg_type,
            AquaPackageType::GithubArchive | AquaPackageType::GithubContent
        )
}

/// Check if a platform is supported by the package's supported_envs.
/// Returns true if supported, false if not.
fn is_platform_supported(supported_envs: &[String], os: &str, arch: &str) -> bool {
    if supported_envs.is_empty() {
        return true;
    }
    let envs: HashSet<&str> = supported_envs.iter().map(|s| s.as_str()).collect();
    let os_arch = format!("{os}/{arch}");
    let mut myself: HashSet<&str> = ["all", os, arch, os_arch.as_str()].into();
    // Windows ARM64 can typically run AMD64 binaries via emulation
    if os == "windows" && arch == "arm64" {
        myself.insert("windows/amd64");
        myself.insert("amd64");
    }
    !envs.is_disjoint(&myself)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LibcAssetPreference {
    Exact,
    GlibcWithFallback,
    GlibcStrict,
    MuslStrict,
}

fn libc_asset_preference(target: &PlatformTarget, tool_libc: Option<&str>) -> LibcAssetPreference {
    if target.os_name() != "linux" {
        return LibcAssetPreference::Exact;
    }
    match AquaBackend::target_libc(target, tool_libc).as_deref() {
        Some("gnu") => LibcAssetPreference::GlibcStrict,
        Some("musl") if AquaBackend::musl_requested(tool_libc) => LibcAssetPreference::MuslStrict,
        // A musl platform nobody asked for takes the registry's asset as named.
        Some("musl") => LibcAssetPreference::Exact,
        _ => LibcAssetPreference::GlibcWithFallback,
    }
}

fn is_aqua_linux_libc_replacement(replacement: &str) -> bool {
    matches!(
        replacement,
        "unknown-linux-gnu" | "unknown-linux-musl" | "linux-gnu" | "linux-musl"
    )
}

fn select_github_release_asset<'a>(
    assets: &'a [github::GithubAsset],
    asset_strs: &IndexSet<String>,
    libc_preference: LibcAssetPreference,
) -> Option<&'a github::GithubAsset> {
    let assets_with_tokens = if libc_preference != LibcAssetPreference::Exact {
        assets
            .iter()
            .map(|asset| (asset, asset_name_tokens(&asset.name)))
            .collect_vec()
    } else {
        vec![]
    };
    asset_strs.iter().find_map(|expected| {
        let exact = assets
            .iter()
            .find(|a| a.name == *expected || a.name.to_lowercase() == expected.to_lowercase());

        let expected_tokens = asset_name_tokens(expected);
        if libc_preference != LibcAssetPreference::Exact
            && let Some(preferred_asset) = assets_with_tokens.iter().find_map(|(asset, tokens)| {
                is_libc_variant_of_expected_asset(tokens, &expected_tokens, libc_preference)
                    .then_some(*asset)
            })
        {
            return Some(preferred_asset);
        }

        exact.filter(|_| exact_asset_matches_libc_preference(&expected_tokens, libc_preference))
    })
}

fn exact_asset_matches_libc_preference(
    asset_tokens: &[String],
    preference: LibcAssetPreference,
) -> bool {
    match preference {
        LibcAssetPreference::Exact | LibcAssetPreference::GlibcWithFallback => true,
        LibcAssetPreference::GlibcStrict => !asset_tokens.iter().any(|token| token == "musl"),
        LibcAssetPreference::MuslStrict => !asset_tokens
            .iter()
            .any(|token| matches!(token.as_str(), "gnu" | "glibc")),
    }
}

/// Whether a lockfile's asset is still the one to install for `expected`.
///
/// A musl platform that nothing asked for takes the registry's asset as named, but a lockfile
/// written before that recorded the musl sibling of a gnu asset. Its checksum belongs to that
/// archive, so it stays valid rather than being refreshed to the registry's asset.
fn locked_asset_matches_expected(
    actual: &str,
    expected: &str,
    target: &PlatformTarget,
    tool_libc: Option<&str>,
) -> bool {
    let preference = libc_asset_preference(target, tool_libc);
    asset_name_matches_expected(actual, expected, preference)
        || (preference == LibcAssetPreference::Exact
            && target.os_name() == "linux"
            && asset_name_matches_expected(actual, expected, LibcAssetPreference::MuslStrict))
}

fn asset_name_matches_expected(
    actual: &str,
    expected: &str,
    preference: LibcAssetPreference,
) -> bool {
    let actual_tokens = asset_name_tokens(actual);
    let expected_tokens = asset_name_tokens(expected);
    ((actual == expected || actual.eq_ignore_ascii_case(expected))
        && exact_asset_matches_libc_preference(&actual_tokens, preference))
        || is_libc_variant_of_expected_asset(&actual_tokens, &expected_tokens, preference)
}

fn is_libc_variant_of_expected_asset(
    asset_tokens: &[String],
    expected_tokens: &[String],
    preference: LibcAssetPreference,
) -> bool {
    let asset_matches = match preference {
        LibcAssetPreference::Exact => false,
        LibcAssetPreference::GlibcWithFallback | LibcAssetPreference::GlibcStrict => asset_tokens
            .iter()
            .any(|token| matches!(token.as_str(), "gnu" | "glibc")),
        LibcAssetPreference::MuslStrict => asset_tokens.iter().any(|token| token == "musl"),
    };
    asset_matches
        && !expected_tokens.iter().any(|token| match preference {
            LibcAssetPreference::Exact => false,
            LibcAssetPreference::GlibcWithFallback | LibcAssetPreference::GlibcStrict => {
                matches!(token.as_str(), "gnu" | "glibc")
            }
            LibcAssetPreference::MuslStrict => token == "musl",
        })
        && itertools::equal(
            asset_tokens
                .iter()
                .filter(|token| !matches!(token.as_str(), "musl" | "gnu" | "glibc")),
            expected_tokens
                .iter()
                .filter(|token| !matches!(token.as_str(), "musl" | "gnu" | "glibc")),
        )
}

fn asset_name_tokens(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|token| !token.is_empty())
        .map(|token| token.to_lowercase())
        .collect()
}

pub(crate) fn os() -> &'static str {
    if cfg!(target_os = "macos") {
        "darwin"
    } else {
        &OS
    }
}

pub(crate) fn arch() -> &'static str {
    to_aqua_arch(&ARCH)
}

fn to_aqua_arch(arch: &str) -> &str {
    match arch {
        "x64" => "amd64",
        other => other,
    }
}

#[cfg(test)]
mod lock_candidate_tests {
    use crate::github::GithubAsset;
    use crate::platform::Platform;

    use super::*;
    use crate::config::settings::SettingsPartial;
    use confique::Layer;

    /// Pins the `libc` setting so a test does not depend on the runner's `MISE_LIBC` or
    /// global config. Dropping the guard restores the default settings.
    fn pin_libc_setting(libc: &str) -> crate::test::SettingsGuard {
        let guard = crate::test::SettingsGuard::lock();
        let mut partial = SettingsPartial::empty();
        partial.libc = Some(libc.to_string());
        Settings::reset(Some(partial));
        guard
    }

    fn build_lock_candidates(
        version: &str,
        tag: Option<&str>,
        version_prefix: Option<&str>,
    ) -> (String, Vec<String>) {
        let tag_is_none = tag.is_none();
        let mut v = tag.unwrap_or(version).to_string();
        let mut v_prefixed = (tag_is_none && !version.starts_with('v')).then(|| format!("v{v}"));

        if let Some(prefix) = version_prefix
            && !v.starts_with(prefix)
        {
            v = format!("{prefix}{v}");
            v_prefixed = v_prefixed.map(|vp| {
                if vp.starts_with(prefix) {
                    vp
                } else {
                    format!("{prefix}{vp}")
                }
            });
        }

        let candidates = match &v_prefixed {
            Some(vp) => vec![vp.clone(), v.clone()],
            None => vec![v.clone()],
        };
        (v, candidates)
    }

    // When tag lookup fails (e.g. rate limit), we try both v-prefixed and bare versions.
    #[test]
    fn test_lock_candidates_no_tag() {
        let (v, candidates) = build_lock_candidates("10.20.0", None, None);
        assert_eq!(v, "10.20.0");
        assert_eq!(candidates, vec!["v10.20.0", "10.20.0"]);
    }

    #[test]
    fn test_same_checksum_algorithm() {
        assert!(same_checksum_algorithm("sha256:abc", "SHA256:def"));
        assert!(!same_checksum_algorithm("sha256:abc", "sha512:def"));
        assert!(same_checksum_algorithm("abc", "sha256:def"));
    }

    /// A UTF-16LE checksum file is read, not rejected.
    ///
    /// The fixture is the real line for the artifact in #5399, taken from PowerShell v7.4.10's
    /// `hashes.sha256` — which that release published as UTF-16LE. Before this, the install died
    /// at `read_to_string` with "stream did not contain valid UTF-8".
    #[test]
    fn test_verify_checksum_file_reads_utf16() {
        const ARTIFACT: &str = "powershell-7.4.10-linux-x64.tar.gz";
        const DIGEST: &str = "d91b9172668f4b6aef4abce8c780cd298872c7a0f4487cc47444d26877ba49f6";

        let mut bytes = vec![0xff, 0xfe];
        bytes.extend(
            format!("{DIGEST} *{ARTIFACT}\n")
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        let tmp = tempfile::TempDir::new().unwrap();
        let path = tmp.path().join("hashes.sha256");
        std::fs::write(&path, bytes).unwrap();

        let backend = AquaBackend::from_arg(BackendArg::new(
            "powershell-core".to_string(),
            Some("aqua:PowerShell/PowerShell".to_string()),
        ));
        let checksum: AquaChecksum = serde_json::from_str(r#"{"algorithm":"sha256"}"#).unwrap();

        backend
            .verify_checksum_file_matches_expected(
                &checksum,
                &path,
                &tmp.path().join(ARTIFACT),
                ARTIFACT,
                Some(&format!("sha256:{DIGEST}")),
            )
            .unwrap();

        // a wrong expectation must be caught — otherwise the assertion above would also pass on a
        // file that was never actually parsed
        let err = backend
            .verify_checksum_file_matches_expected(
                &checksum,
                &path,
                &tmp.path().join(ARTIFACT),
                ARTIFACT,
                Some(&format!("sha256:{}", "0".repeat(64))),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not match expected checksum"), "{err}");
    }

    /// A signed sha512 checksum file cannot be compared with GitHub's sha256 asset digest, so
    /// the downloaded artifact itself has to match it. Skipping the check let `mise lock`
    /// record a re-uploaded artifact as signature-verified.
    #[test]
    fn test_verify_checksum_file_hashes_artifact_when_algorithms_differ() {
        const ARTIFACT: &str = "tool_linux_amd64";

        let tmp = tempfile::TempDir::new().unwrap();
        let artifact = tmp.path().join(ARTIFACT);
        std::fs::write(&artifact, "published").unwrap();
        let sums = tmp.path().join("SHA512SUMS");
        let digest = crate::hash::file_hash_prog::<sha2::Sha512>(&artifact, None).unwrap();
        std::fs::write(&sums, format!("{digest}  {ARTIFACT}\n")).unwrap();

        let backend = AquaBackend::from_arg(BackendArg::new(
            "tool".to_string(),
            Some("aqua:owner/repo".to_string()),
        ));
        let checksum: AquaChecksum = serde_json::from_str(r#"{"algorithm":"sha512"}"#).unwrap();
        // the asset digest follows a re-upload, the signed file does not
        let verify = || {
            let api_digest = crate::hash::file_hash_sha256(&artifact, None).unwrap();
            backend.verify_checksum_file_matches_expected(
                &checksum,
                &sums,
                &artifact,
                ARTIFACT,
                Some(&format!("sha256:{api_digest}")),
            )
        };

        verify().unwrap();

        std::fs::write(&artifact, "replaced").unwrap();
        let err = format!("{:?}", verify().unwrap_err());
        assert!(err.contains("does not match downloaded"), "{err}");
    }

    /// A checksum file listing several other filenames, but not the requested one, must not
    /// silently hand back some other entry's checksum (or the raw file content) as if it were a
    /// match — that produced a wrong-but-valid-looking checksum, as reported in a case where the
    /// target asset's filename changed and no line in the multi-platform checksums file matched.
    #[test]
    fn test_parse_checksum_from_content_errors_on_filename_mismatch() {
        let backend = AquaBackend::from_arg(BackendArg::new(
            "tool".to_string(),
            Some("aqua:owner/repo".to_string()),
        ));
        let checksum: AquaChecksum = serde_json::from_str(r#"{"algorithm":"sha256"}"#).unwrap();
        let content = "\
            aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  tool-1.0.0-linux-amd64.tar.gz\n\
            bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb  tool-1.0.0-darwin-amd64.tar.gz\n";

        let err = backend
            .parse_checksum_from_content(content, &checksum, "tool-1.0.0-windows-amd64.zip")
            .unwrap_err()
            .to_string();
        assert!(err.contains("tool-1.0.0-windows-amd64.zip"), "{err}");
    }

    /// A checksum file with no filename column at all (a single bare hash) is a legitimate,
    /// unambiguous format still supported via the same fallback the mismatch case above disables.
    #[test]
    fn test_parse_checksum_from_content_accepts_bare_single_checksum() {
        let backend = AquaBackend::from_arg(BackendArg::new(
            "tool".to_string(),
            Some("aqua:owner/repo".to_string()),
        ));
        let checksum: AquaChecksum = serde_json::from_str(r#"{"algorithm":"sha256"}"#).unwrap();
        const DIGEST: &str = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";

        let result = backend
            .parse_checksum_from_content(&format!("{DIGEST}\n"), &checksum, "tool-1.0.0.tar.gz")
            .unwrap();
        assert_eq!(result, DIGEST);
    }

    /// The `file_format: "regexp"` path has its own line-selection step ahead of the raw-entries
    /// fallback above. If it can't find a line for the requested filename, it must not fall
    /// through to running the checksum pattern against the whole (still multi-entry) file — that
    /// would extract some other line's digest instead of erroring, bypassing the mismatch check.
    #[test]
    fn test_parse_checksum_from_content_errors_on_regexp_filename_mismatch() {
        let backend = AquaBackend::from_arg(BackendArg::new(
            "tool".to_string(),
            Some("aqua:owner/repo".to_string()),
        ));
        let checksum: AquaChecksum = serde_json::from_str(
            r#"{"algorithm":"sha256","file_format":"regexp","pattern":{"checksum":"^(\\S+)","file":"\\S+\\s+(\\S+)$"}}"#,
        )
        .unwrap();
        let content = "\
            aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  tool-1.0.0-linux-amd64.tar.gz\n\
            bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb  tool-1.0.0-darwin-amd64.tar.gz\n";

        let err = backend
            .parse_checksum_from_content(content, &checksum, "tool-1.0.0-windows-amd64.zip")
            .unwrap_err()
            .to_string();
        assert!(err.contains("tool-1.0.0-windows-amd64.zip"), "{err}");
    }

    /// The counterpart over HTTP, which needs no decoding of its own: reqwest's `text()` goes
    /// through `text_with_charset` -> `encoding_rs::Encoding::decode`, which sniffs the BOM and
    /// strips it. Pinned here because that is a property of the *transport*, easy to lose by
    /// swapping `get_text` for a byte-level read on the assumption it needs the same help the
    /// file path does.
    #[tokio::test]
    async fn test_fetch_checksum_from_file_decodes_a_utf16_body() {
        const ARTIFACT: &str = "tool-1.0.0-linux-amd64.tar.gz";
        const DIGEST: &str = "d91b9172668f4b6aef4abce8c780cd298872c7a0f4487cc47444d26877ba49f6";

        let mut body = vec![0xff, 0xfe];
        body.extend(
            format!("{DIGEST} *{ARTIFACT}\n")
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        let mut server = mockito::Server::new_async().await;
        let mock = server
            .mock("GET", "/hashes.sha256")
            .with_status(200)
            .with_body(body)
            .expect(1)
            .create_async()
            .await;

        let mut pkg = AquaPackage::default();
        pkg.checksum = Some(
            serde_json::from_str(&format!(
                r#"{{"type":"http","algorithm":"sha256","url":"{}/hashes.sha256"}}"#,
                server.url()
            ))
            .unwrap(),
        );
        let backend = AquaBackend::from_arg(BackendArg::new(
            "tool".to_string(),
            Some("aqua:owner/repo".to_string()),
        ));
        let target = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());

        let checksum = backend
            .fetch_checksum_from_file(&pkg, "1.0.0", "linux", "amd64", Some(ARTIFACT), &target)
            .await
            .unwrap();

        mock.assert_async().await;
        assert_eq!(checksum, Some(format!("sha256:{DIGEST}")));
    }

    #[test]
    fn test_lock_candidates_no_tag_with_version_prefix() {
        let (v, candidates) = build_lock_candidates("1.7.1", None, Some("jq-"));
        assert_eq!(v, "jq-1.7.1");
        assert_eq!(candidates, vec!["jq-v1.7.1", "jq-1.7.1"]);
    }

    #[tokio::test]
    async fn test_http_url_prefers_reachable_v_prefixed_version() {
        let mut server = mockito::Server::new_async().await;
        let prefixed = server
            .mock("HEAD", "/tool-v1.2.3")
            .with_status(200)
            .expect(1)
            .create_async()
            .await;
        let mut pkg = AquaPackage::default();
        pkg.url = format!("{}/tool-{{{{.Version}}}}", server.url());

        let (url, version) = resolve_aqua_http_url(&pkg, "1.2.3", Some("v1.2.3"), "linux", "amd64")
            .await
            .unwrap();

        prefixed.assert_async().await;
        assert_eq!(url, format!("{}/tool-v1.2.3", server.url()));
        assert_eq!(version, "v1.2.3");
    }

    #[tokio::test]
    async fn test_http_url_falls_back_to_unprefixed_version() {
        let mut server = mockito::Server::new_async().await;
        let prefixed_head = server
            .mock("HEAD", "/tool-v1.2.3")
            .with_status(404)
            .expect(1)
            .create_async()
            .await;
        let prefixed_get = server
            .mock("GET", "/tool-v1.2.3")
            .with_status(404)
            .expect(1)
            .create_async()
            .await;
        let mut pkg = AquaPackage::default();
        pkg.url = format!("{}/tool-{{{{.Version}}}}", server.url());

        let (url, version) = resolve_aqua_http_url(&pkg, "1.2.3", Some("v1.2.3"), "linux", "amd64")
            .await
            .unwrap();

        prefixed_head.assert_async().await;
        prefixed_get.assert_async().await;
        assert_eq!(url, format!("{}/tool-1.2.3", server.url()));
        assert_eq!(version, "1.2.3");
    }

    #[tokio::test]
    async fn test_http_url_uses_get_when_head_is_rejected() {
        let mut server = mockito::Server::new_async().await;
        let prefixed_head = server
            .mock("HEAD", "/tool-v1.2.3")
            .with_status(405)
            .expect(1)
            .create_async()
            .await;
        let prefixed_get = server
            .mock("GET", "/tool-v1.2.3")
            .with_status(200)
            .expect(1)
            .create_async()
            .await;
        let mut pkg = AquaPackage::default();
        pkg.url = format!("{}/tool-{{{{.Version}}}}", server.url());

        let (url, version) = resolve_aqua_http_url(&pkg, "1.2.3", Some("v1.2.3"), "linux", "amd64")
            .await
            .unwrap();

        prefixed_head.assert_async().await;
        prefixed_get.assert_async().await;
        assert_eq!(url, format!("{}/tool-v1.2.3", server.url()));
        assert_eq!(version, "v1.2.3");
    }

    #[test]
    fn test_version_from_tag_strips_v_prefix() {
        let pkg = AquaPackage::default();
        assert_eq!(
            version_from_tag(&pkg, "v1.2.3").unwrap(),
            Some("1.2.3".to_string())
        );
    }

    #[test]
    fn test_version_from_tag_strips_aqua_version_prefix() {
        let mut pkg = AquaPackage::default();
        pkg.version_prefix = Some("mountpoint-s3-".to_string());

        assert_eq!(
            version_from_tag(&pkg, "mountpoint-s3-1.2.3").unwrap(),
            Some("1.2.3".to_string())
        );
        assert_eq!(version_from_tag(&pkg, "other-1.2.3").unwrap(), None);
    }

    #[test]
    fn test_version_from_tag_matches_override_version_prefix() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: oxc-project
repo_name: oxc
version_constraint: "false"
version_overrides:
  - version_constraint: semver(">= 1.17.0")
    version_prefix: oxlint_v
    error_message: unavailable
  - version_constraint: "true"
    version_prefix: apps_v
    asset: oxlint.tar.gz
    format: tar.gz
"#,
        );

        assert_eq!(
            version_from_tag(&pkg, "apps_v1.76.0").unwrap(),
            Some("1.76.0".to_string())
        );
    }

    #[test]
    fn test_locked_release_tag_matches_version_override_prefix() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: jqlang
repo_name: jq
version_constraint: "false"
version_prefix: jq-
version_overrides:
  - version_constraint: "true"
    asset: jq-{{.OS}}-{{.Arch}}
    format: raw
"#,
        );
        let url = "https://github.com/jqlang/jq/releases/download/jq-1.8.1/jq-macos-arm64";
        let tag = github_release_tag_from_url(url).unwrap();
        let versioned = pkg.with_version(&[&tag], "darwin", "arm64");

        assert_eq!(tag, "jq-1.8.1");
        assert_eq!(versioned.asset, "jq-{{.OS}}-{{.Arch}}");
    }

    fn pkg_from_yaml(yaml: &str) -> AquaPackage {
        let mut pkg: AquaPackage = mise_util::yaml::from_str(yaml).unwrap();
        pkg.setup_version_filter().unwrap();
        pkg
    }

    fn release_asset(name: &str) -> github::GithubAsset {
        github::GithubAsset {
            from_versions_host: false,
            name: name.to_string(),
            browser_download_url: String::new(),
            url: String::new(),
            digest: None,
            updated_at: None,
        }
    }

    #[test]
    fn security_features_ignore_signature_assets_without_config() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
asset: tool.tar.gz
"#,
        );
        let assets =
            ["tool.tar.gz.sig", "multiple.intoto.jsonl", "tool.minisig"].map(release_asset);

        assert_eq!(AquaBackend::security_features(&pkg, &assets), vec![]);
    }

    #[test]
    fn security_features_count_cosign_only_with_a_key_or_bundle() {
        // Keyless Cosign expressed as CLI `opts` is not run by mise's native verifier.
        let opts_only = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
checksum:
  type: github_release
  asset: checksums.txt
  algorithm: sha256
  cosign:
    opts:
      - --certificate-identity
      - https://github.com/owner/repo/.github/workflows/release.yml@refs/heads/main
"#,
        );
        assert_eq!(
            AquaBackend::security_features(&opts_only, &[]),
            vec![SecurityFeature::Checksum {
                algorithm: Some("sha256".to_string())
            }]
        );

        let bundle = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
checksum:
  type: github_release
  asset: checksums.txt
  algorithm: sha256
  cosign:
    bundle:
      type: github_release
      asset: checksums.txt.sigstore.json
"#,
        );
        assert!(AquaBackend::security_features(&bundle, &[]).contains(&SecurityFeature::Cosign));
    }

    #[test]
    fn security_features_include_config_from_version_overrides() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
version_constraint: "false"
version_overrides:
  - version_constraint: "true"
    slsa_provenance:
      type: github_release
      asset: multiple.intoto.jsonl
      signer_identity: https://github.com/example/tool/.github/workflows/release.yml@refs/tags/v1.0.0
      signer_issuer: https://token.actions.githubusercontent.com
    minisign:
      type: github_release
      asset: tool.minisig
      public_key: RWQexample
"#,
        );

        assert_eq!(
            AquaBackend::security_features(&pkg, &[]),
            vec![
                SecurityFeature::Slsa { level: None },
                SecurityFeature::Minisign {
                    public_key: Some("RWQexample".to_string())
                },
            ]
        );
    }

    #[test]
    fn security_features_skip_slsa_without_signer() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
slsa_provenance:
  type: github_release
  asset: provenance.intoto.jsonl
"#,
        );
        assert!(
            !AquaBackend::security_features(&pkg, &[])
                .contains(&SecurityFeature::Slsa { level: None })
        );
    }

    #[test]
    fn slsa_source_repository_follows_the_recipe() {
        let pkg = |slsa: &str| {
            pkg_from_yaml(&format!(
                "type: github_release\nrepo_owner: owner\nrepo_name: tool\nslsa_provenance:\n  type: github_release\n  asset: tool.intoto.jsonl\n{slsa}"
            ))
        };
        assert_eq!(slsa_source_repository(&pkg("")), "owner/tool");
        assert_eq!(
            slsa_source_repository(&pkg("  repo_name: releases\n")),
            "owner/releases"
        );
        assert_eq!(
            slsa_source_repository(&pkg("  source_uri: github.com/owner/source\n")),
            "github.com/owner/source"
        );
    }

    #[test]
    fn selected_release_tag_needs_a_release_or_a_known_tag() {
        let release = pkg_from_yaml(
            "type: github_release\nrepo_owner: owner\nrepo_name: tool\nasset: tool.tar.gz\n",
        );
        let http = pkg_from_yaml(
            "type: http\nrepo_owner: owner\nrepo_name: tool\nurl: https://example.com/tool-{{.SemVer}}.tar.gz\n",
        );
        // The asset was found in the release `v1.2.3` names.
        assert_eq!(
            selected_release_tag(&release, "v1.2.3", None).as_deref(),
            Some("v1.2.3")
        );
        // A URL that worked for `v1.2.3` says nothing about the tag.
        assert_eq!(selected_release_tag(&http, "v1.2.3", None), None);
        assert_eq!(selected_release_tag(&http, "v1.2.3", Some("1.2.3")), None);
        assert_eq!(
            selected_release_tag(&http, "v1.2.3", Some("v1.2.3")).as_deref(),
            Some("v1.2.3")
        );
    }

    #[test]
    fn slsa_source_tag_follows_the_recipe() {
        let pkg = |slsa: &str| {
            pkg_from_yaml(&format!(
                "type: github_release\nrepo_owner: owner\nrepo_name: tool\nversion_prefix: tool-\nslsa_provenance:\n  type: github_release\n  asset: tool.intoto.jsonl\n{slsa}"
            ))
        };
        let tag = Some("tool-1.2.3");
        assert_eq!(slsa_source_tag(&pkg(""), tag), tag);
        assert_eq!(slsa_source_tag(&pkg(""), None), None);
        assert_eq!(
            slsa_source_tag(&pkg("  source_tag: release-1.2.3\n"), None),
            Some("release-1.2.3")
        );
        assert_eq!(slsa_source_tag(&pkg("  source_tag: \"-\"\n"), tag), None);
    }

    #[test]
    fn test_version_from_tag_rejects_version_filter_mismatch() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
version_filter: semver(">= 1.0.0")
"#,
        );

        assert_eq!(
            version_from_tag(&pkg, "v1.0.0").unwrap(),
            Some("1.0.0".to_string())
        );
        assert_eq!(version_from_tag(&pkg, "v0.9.0").unwrap(), None);
    }

    #[test]
    fn test_version_from_tag_rejects_version_constraint_mismatch() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
version_constraint: "false"
version_overrides:
  - version_constraint: Version == "v1.2.3"
    asset: tool.tar.gz
    format: tar.gz
"#,
        );

        assert_eq!(
            version_from_tag(&pkg, "v1.2.3").unwrap(),
            Some("1.2.3".to_string())
        );
        assert_eq!(version_from_tag(&pkg, "v1.2.4").unwrap(), None);
    }

    #[test]
    fn test_package_has_asset_rejects_no_asset_and_errors() {
        let mut pkg = AquaPackage::default();
        assert!(package_has_asset(&pkg));

        pkg.no_asset = Some(true);
        assert!(!package_has_asset(&pkg));

        pkg.no_asset = Some(false);
        assert!(package_has_asset(&pkg));

        pkg.error_message = Some("unsupported version".to_string());
        assert!(!package_has_asset(&pkg));
    }

    fn marked_release(tag: &str, published_at: Option<&str>) -> github::GithubRelease {
        github::GithubRelease {
            tag_name: tag.to_string(),
            draft: false,
            prerelease: false,
            // GitHub's `created_at` is the tagged commit's date, which can be
            // much older than the publication date the cutoff cares about.
            created_at: "2020-01-01T00:00:00Z".to_string(),
            published_at: published_at.map(str::to_string),
            assets: vec![],
        }
    }

    /// The fast path has to hand the release date back with the version.
    /// `minimum_release_age` otherwise has to re-derive the date from the
    /// cached version list, and a list lagging upstream then hides a release
    /// that is old enough to install (#12543).
    #[test]
    fn test_marked_release_version_info_carries_release_metadata() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
asset: tool.tar.gz
"#,
        );

        let info = marked_release_version_info(
            &pkg,
            &marked_release("v1.2.3", Some("2026-09-09T21:43:48Z")),
            "linux",
            "amd64",
            None,
        )
        .unwrap()
        .unwrap();

        assert_eq!(info.version, "1.2.3");
        assert_eq!(info.created_at.as_deref(), Some("2026-09-09T21:43:48Z"));
        assert_eq!(info.prerelease, Some(false));
        assert_eq!(
            info.release_url.as_deref(),
            Some("https://github.com/owner/repo/releases/tag/v1.2.3")
        );
    }

    #[test]
    fn test_marked_release_version_info_falls_back_to_created_at() {
        let pkg = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
asset: tool.tar.gz
"#,
        );

        let info = marked_release_version_info(
            &pkg,
            &marked_release("v1.2.3", None),
            "linux",
            "amd64",
            None,
        )
        .unwrap()
        .unwrap();

        assert_eq!(info.created_at.as_deref(), Some("2020-01-01T00:00:00Z"));
    }

    #[test]
    fn test_marked_release_version_info_skips_uninstallable_releases() {
        let filtered = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
asset: tool.tar.gz
version_filter: semver(">= 2.0.0")
"#,
        );
        assert!(
            marked_release_version_info(
                &filtered,
                &marked_release("v1.2.3", Some("2026-09-09T21:43:48Z")),
                "linux",
                "amd64",
                None,
            )
            .unwrap()
            .is_none()
        );

        let no_asset = pkg_from_yaml(
            r#"
type: github_release
repo_owner: owner
repo_name: repo
no_asset: true
"#,
        );
        assert!(
            marked_release_version_info(
                &no_asset,
                &marked_release("v1.2.3", Some("2026-09-09T21:43:48Z")),
                "linux",
                "amd64",
                None,
            )
            .unwrap()
            .is_none()
        );
    }

    fn asset(name: &str) -> GithubAsset {
        GithubAsset {
            from_versions_host: false,
            name: name.to_string(),
            browser_download_url: format!("https://example.com/{name}"),
            url: format!("https://api.example.com/{name}"),
            digest: None,
            updated_at: None,
        }
    }

    #[test]
    fn test_select_github_release_asset_prefers_musl_variant() {
        let assets = vec![
            asset("tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz"),
            asset("tool-1.0.0-x86_64-unknown-linux-musl.tar.gz"),
        ];
        let asset_strs = IndexSet::from(["tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz".to_string()]);

        let selected =
            select_github_release_asset(&assets, &asset_strs, LibcAssetPreference::MuslStrict)
                .unwrap();

        assert_eq!(selected.name, "tool-1.0.0-x86_64-unknown-linux-musl.tar.gz");
    }

    #[test]
    fn test_select_github_release_asset_keeps_exact_without_musl_preference() {
        let assets = vec![
            asset("tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz"),
            asset("tool-1.0.0-x86_64-unknown-linux-musl.tar.gz"),
        ];
        let asset_strs = IndexSet::from(["tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz".to_string()]);

        let selected =
            select_github_release_asset(&assets, &asset_strs, LibcAssetPreference::Exact).unwrap();

        assert_eq!(selected.name, "tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz");
    }

    #[test]
    fn test_select_github_release_asset_uses_musl_when_exact_missing() {
        let assets = vec![asset("tool-1.0.0-linux-amd64-musl.tar.gz")];
        let asset_strs = IndexSet::from(["tool-1.0.0-linux-amd64.tar.gz".to_string()]);

        let selected =
            select_github_release_asset(&assets, &asset_strs, LibcAssetPreference::MuslStrict)
                .unwrap();

        assert_eq!(selected.name, "tool-1.0.0-linux-amd64-musl.tar.gz");
    }

    #[test]
    fn test_musl_variant_match_requires_standalone_token() {
        let asset_tokens = asset_name_tokens("tool-1.0.0-linux-amd64-muslvariant.tar.gz");
        let expected_tokens = asset_name_tokens("tool-1.0.0-linux-amd64.tar.gz");

        assert!(!is_libc_variant_of_expected_asset(
            &asset_tokens,
            &expected_tokens,
            LibcAssetPreference::MuslStrict,
        ));
    }

    #[test]
    fn test_select_github_release_asset_prefers_glibc_then_falls_back_to_musl() {
        let assets = vec![
            asset("tool-1.0.0-x86_64-unknown-linux-musl.tar.gz"),
            asset("tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz"),
        ];
        let asset_strs =
            IndexSet::from(["tool-1.0.0-x86_64-unknown-linux-musl.tar.gz".to_string()]);

        let selected = select_github_release_asset(
            &assets,
            &asset_strs,
            LibcAssetPreference::GlibcWithFallback,
        )
        .unwrap();
        assert_eq!(selected.name, "tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz");

        let selected = select_github_release_asset(
            &assets[..1],
            &asset_strs,
            LibcAssetPreference::GlibcWithFallback,
        )
        .unwrap();
        assert_eq!(selected.name, "tool-1.0.0-x86_64-unknown-linux-musl.tar.gz");
    }

    #[test]
    fn test_select_github_release_asset_keeps_explicit_glibc_strict() {
        let assets = vec![asset("tool-1.0.0-x86_64-unknown-linux-musl.tar.gz")];
        let asset_strs = IndexSet::from(["tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz".to_string()]);

        assert!(
            select_github_release_asset(&assets, &asset_strs, LibcAssetPreference::GlibcStrict)
                .is_none()
        );
    }

    #[test]
    fn test_select_github_release_asset_keeps_explicit_musl_strict() {
        let assets = vec![asset("tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz")];
        let asset_strs = IndexSet::from(["tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz".to_string()]);

        assert!(
            select_github_release_asset(&assets, &asset_strs, LibcAssetPreference::MuslStrict)
                .is_none()
        );
    }

    #[test]
    fn test_libc_asset_preference_uses_tool_libc() {
        let _settings = pin_libc_setting("gnu");
        let linux = PlatformTarget::new(Platform::parse("linux-arm64").unwrap());
        assert_eq!(
            libc_asset_preference(&linux, Some("musl")),
            LibcAssetPreference::MuslStrict
        );
        assert_eq!(
            libc_asset_preference(&linux, Some("gnu")),
            LibcAssetPreference::GlibcStrict
        );

        // The target platform's own libc wins: a gnu build cannot run on a musl target.
        let linux_musl = PlatformTarget::new(Platform::parse("linux-arm64-musl").unwrap());
        assert_eq!(
            libc_asset_preference(&linux_musl, Some("gnu")),
            LibcAssetPreference::Exact
        );
        assert_eq!(
            libc_asset_preference(&linux_musl, Some("musl")),
            LibcAssetPreference::MuslStrict
        );
        assert_eq!(AquaBackend::asset_libc(&linux_musl, Some("gnu")), None);
        assert_eq!(AquaBackend::asset_libc(&linux_musl, None), None);
        assert_eq!(
            AquaBackend::asset_libc(&linux_musl, Some("musl")).as_deref(),
            Some("musl")
        );

        let macos = PlatformTarget::new(Platform::parse("macos-arm64").unwrap());
        assert_eq!(
            libc_asset_preference(&macos, Some("musl")),
            LibcAssetPreference::Exact
        );
        assert_eq!(AquaBackend::target_variant_libc(&macos, Some("musl")), None);
    }

    #[test]
    fn test_tool_libc_musl_keeps_registry_musl_asset() {
        // domcyrus/rustnet: the registry names the static musl build, and the release also
        // ships a gnu build that links libpcap dynamically.
        let assets = vec![
            asset("rustnet-v1.6.0-aarch64-unknown-linux-gnu.tar.gz"),
            asset("rustnet-v1.6.0-aarch64-unknown-linux-musl.tar.gz"),
        ];
        let asset_strs =
            IndexSet::from(["rustnet-v1.6.0-aarch64-unknown-linux-musl.tar.gz".to_string()]);
        let linux = PlatformTarget::new(Platform::parse("linux-arm64").unwrap());

        let selected = select_github_release_asset(
            &assets,
            &asset_strs,
            libc_asset_preference(&linux, Some("musl")),
        )
        .unwrap();
        assert_eq!(
            selected.name,
            "rustnet-v1.6.0-aarch64-unknown-linux-musl.tar.gz"
        );
    }

    #[test]
    fn test_musl_setting_requests_musl_for_every_musl_target() {
        let _settings = pin_libc_setting("musl");
        let gnu = "tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz";
        let musl = "tool-1.0.0-x86_64-unknown-linux-musl.tar.gz";
        // A target that is not the host's gets the setting too, so a lockfile written on one
        // machine agrees with every other.
        let other = PlatformTarget::new(Platform::parse("linux-riscv64-musl").unwrap());

        assert_eq!(
            AquaBackend::asset_libc(&other, None).as_deref(),
            Some("musl")
        );
        assert_eq!(
            libc_asset_preference(&other, Some("gnu")),
            LibcAssetPreference::MuslStrict
        );
        assert!(!locked_asset_matches_expected(gnu, gnu, &other, None));
        assert!(locked_asset_matches_expected(musl, gnu, &other, None));
    }

    #[test]
    fn test_locked_musl_sibling_stays_valid_on_implicit_musl_target() {
        let _settings = pin_libc_setting("gnu");
        let gnu = "tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz";
        let musl = "tool-1.0.0-x86_64-unknown-linux-musl.tar.gz";
        let alpine = PlatformTarget::new(Platform::parse("linux-x64-musl").unwrap());
        let glibc = PlatformTarget::new(Platform::parse("linux-x64").unwrap());
        let macos = PlatformTarget::new(Platform::parse("macos-arm64").unwrap());

        // The registry names gnu; a lockfile that recorded either build is still valid.
        assert!(locked_asset_matches_expected(gnu, gnu, &alpine, None));
        assert!(locked_asset_matches_expected(musl, gnu, &alpine, None));
        assert!(locked_asset_matches_expected(
            musl,
            gnu,
            &alpine,
            Some("gnu")
        ));

        // Asking for musl explicitly, or a glibc platform, keeps its strict validation.
        assert!(!locked_asset_matches_expected(
            gnu,
            gnu,
            &alpine,
            Some("musl")
        ));
        assert!(!locked_asset_matches_expected(
            musl,
            gnu,
            &glibc,
            Some("gnu")
        ));
        assert!(!locked_asset_matches_expected(musl, gnu, &macos, None));
    }

    #[test]
    fn test_lock_asset_validation_preserves_explicit_libc() {
        let musl = "tool-1.0.0-x86_64-unknown-linux-musl.tar.gz";
        let gnu = "tool-1.0.0-x86_64-unknown-linux-gnu.tar.gz";

        assert!(!asset_name_matches_expected(
            musl,
            musl,
            LibcAssetPreference::GlibcStrict,
        ));
        assert!(!asset_name_matches_expected(
            gnu,
            gnu,
            LibcAssetPreference::MuslStrict,
        ));
        assert!(asset_name_matches_expected(
            gnu,
            musl,
            LibcAssetPreference::GlibcWithFallback,
        ));
        assert!(asset_name_matches_expected(
            musl,
            musl,
            LibcAssetPreference::GlibcWithFallback,
        ));
    }

    #[test]
    fn test_apply_aqua_libc_replacement_switches_target_triples() {
        let mut pkg = AquaPackage::default();
        pkg.replacements
            .insert("linux".to_string(), "unknown-linux-gnu".to_string());

        let pkg = AquaBackend::apply_aqua_libc_replacement(pkg, "linux", Some("musl".to_string()));

        assert_eq!(
            pkg.replacements.get("linux").map(String::as_str),
            Some("unknown-linux-musl")
        );
    }

    #[test]
    fn test_apply_aqua_libc_replacement_preserves_linux_prefix() {
        let mut pkg = AquaPackage::default();
        pkg.replacements
            .insert("linux".to_string(), "linux-gnu".to_string());

        let pkg = AquaBackend::apply_aqua_libc_replacement(pkg, "linux", Some("musl".to_string()));

        assert_eq!(
            pkg.replacements.get("linux").map(String::as_str),
            Some("linux-musl")
        );
    }

    #[test]
    fn test_apply_aqua_libc_replacement_keeps_non_libc_replacements() {
        let mut pkg = AquaPackage::default();
        pkg.replacements
            .insert("linux".to_string(), "Linux".to_string());

        let pkg = AquaBackend::apply_aqua_libc_replacement(pkg, "linux", Some("musl".to_string()));

        assert_eq!(
            pkg.replacements.get("linux").map(String::as_str),
            Some("Linux")
        );
    }

    #[test]
    fn test_package_for_implicit_musl_target_keeps_registry_gnu_asset() {
        let _settings = pin_libc_setting("gnu");
        // An Alpine host is a musl platform nothing asked for: a registry entry that names only
        // a gnu build installs that build instead of a musl build that may not exist.
        let mut pkg = AquaPackage::default();
        pkg.replacements
            .insert("linux".to_string(), "unknown-linux-gnu".to_string());
        let musl = PlatformTarget::new(Platform::parse("linux-x64-musl").unwrap());

        let opts = ToolVersionOptions::default();
        let implicit = AquaBackend::package_for_target(
            &musl,
            pkg.clone(),
            &["1.0.0"],
            &AquaOptions::new(&opts),
        )
        .unwrap();
        assert_eq!(
            implicit.replacements.get("linux").map(String::as_str),
            Some("unknown-linux-gnu")
        );

        // The tool's `libc = "gnu"` changes nothing: the musl platform already keeps the
        // registry's asset.
        let mut opts = ToolVersionOptions::default();
        opts.opts
            .insert("libc".to_string(), toml::Value::String("gnu".to_string()));
        let gnu = AquaBackend::package_for_target(
            &musl,
            pkg.clone(),
            &["1.0.0"],
            &AquaOptions::new(&opts),
        )
        .unwrap();
        assert_eq!(
            gnu.replacements.get("linux").map(String::as_str),
            Some("unknown-linux-gnu")
        );

        // Asking for musl explicitly still selects the musl build.
        let mut opts = ToolVersionOptions::default();
        opts.opts
            .insert("libc".to_string(), toml::Value::String("musl".to_string()));
        let explicit =
            AquaBackend::package_for_target(&musl, pkg, &["1.0.0"], &AquaOptions::new(&opts))
                .unwrap();
        assert_eq!(
            explicit.replacements.get("linux").map(String::as_str),
            Some("unknown-linux-musl")
        );
    }

    #[test]
    fn test_apply_selected_asset_libc_replacement_tracks_downloaded_archive() {
        let mut pkg = AquaPackage::default();
        pkg.replacements
            .insert("linux".to_string(), "unknown-linux-musl".to_string());

        let pkg = AquaBackend::apply_selected_asset_libc_replacement(
            pkg,
            "linux",
            "tool-x86_64-unknown-linux-gnu.tar.gz",
        );

        assert_eq!(
            pkg.replacements.get("linux").map(String::as_str),
            Some("unknown-linux-gnu")
        );
    }

    #[test]
    fn test_bin_paths_include_darwin_universal_layout() {
        // fastfetch 2.70.0 ships `fastfetch-macos-universal.tar.gz` where the registry
        // templates a per-architecture asset directory.
        let mut pkg = AquaPackage::default();
        pkg.repo_owner = "fastfetch-cli".to_string();
        pkg.repo_name = "fastfetch".to_string();
        pkg.asset = "fastfetch-{{.OS}}-{{.Arch}}.{{.Format}}".to_string();
        pkg.format = "tar.gz".to_string();
        pkg.replacements
            .insert("darwin".to_string(), "macos".to_string());
        pkg.replacements
            .insert("arm64".to_string(), "aarch64".to_string());
        pkg.files = vec![aqua_registry::AquaFile {
            name: "fastfetch".to_string(),
            src: Some("{{.AssetWithoutExt}}/usr/bin/fastfetch".to_string()),
            ..Default::default()
        }];
        let install = Path::new("/installs/fastfetch/2.70.0");
        let paths = AquaBackend::candidate_bin_paths_for_platform(
            &pkg, "2.70.0", install, "darwin", "arm64",
        )
        .unwrap();
        assert_eq!(
            paths,
            vec![
                PathBuf::from("fastfetch-macos-aarch64/usr/bin"),
                PathBuf::from("fastfetch-macos-universal/usr/bin"),
            ]
        );
        // other platforms are unchanged
        let paths = AquaBackend::candidate_bin_paths_for_platform(
            &pkg, "2.70.0", install, "linux", "arm64",
        )
        .unwrap();
        assert_eq!(paths.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn test_make_bins_executable_falls_back_to_universal_layout() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let universal = dir
            .path()
            .join("fastfetch-macos-universal/usr/bin/fastfetch");
        std::fs::create_dir_all(universal.parent().unwrap()).unwrap();
        std::fs::write(&universal, "").unwrap();
        std::fs::set_permissions(&universal, std::fs::Permissions::from_mode(0o644)).unwrap();
        let expected = dir.path().join("fastfetch-macos-aarch64/usr/bin/fastfetch");

        AquaBackend::make_bins_executable(&[expected], std::slice::from_ref(&universal)).unwrap();

        let mode = std::fs::metadata(&universal).unwrap().permissions().mode();
        assert_ne!(mode & 0o111, 0);
    }
}
