use crate::args::{BackendArg, ToolVersionType};
use crate::backend::VersionInfo;
use crate::backend::asset_matcher::{self, Asset, AssetPicker, ChecksumFetcher};
use crate::backend::backend_type::BackendType;
use crate::backend::options::{BackendOptions, VersionOrder};
use crate::backend::platform_target::PlatformTarget;
use crate::backend::static_helpers::{
    ArchiveLayout, VerifiableError, ensure_plain_asset_name, get_filename_from_url,
    install_artifact, lookup_platform_key, lookup_with_fallback, pinned_checksum, render_bin_path,
    tag_candidates, template_string, try_allowed_release_tags, verify_artifact,
};
use crate::backend::{MISE_BINS_DIR, SecurityFeature, runtime_path_for_install_path};
use crate::config::{Config, Settings, SettingsExt};
use crate::file;
use crate::http::HTTP;
use crate::install_context::InstallContext;
use crate::lockfile::{ArtifactInfo, ChecksumSource, PlatformInfo, ProvenanceType};
use crate::toolset::ToolVersionOptions;
use crate::toolset::{ToolRequest, ToolVersion};
use crate::{backend::Backend, forgejo, github, gitlab};
use async_trait::async_trait;
use eyre::Result;
use regex::Regex;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;
use xx::regex;

#[derive(Debug)]
pub(crate) struct UnifiedGitBackend {
    ba: Arc<BackendArg>,
}

#[derive(Debug, Clone)]
struct ReleaseAsset {
    name: String,
    url: String,
    url_api: String,
    digest: Option<String>,
    /// The GitHub release tag the asset was picked from, so provenance is
    /// looked up on that same release. `None` when it came from elsewhere (a
    /// lockfile URL, a direct `url`, GitLab or Forgejo).
    release_tag: Option<String>,
}

#[derive(Debug, Clone, Copy)]
struct AssetVerification {
    explicit_pattern: bool,
    additional_overlay: bool,
}

impl AssetVerification {
    const fn primary(explicit_pattern: bool) -> Self {
        Self {
            explicit_pattern,
            additional_overlay: false,
        }
    }

    const ADDITIONAL: Self = Self {
        explicit_pattern: true,
        additional_overlay: true,
    };
}

const ADDITIONAL_ASSETS_STATE_FILENAME: &str = ".mise-additional-assets.toml";

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct AdditionalAssetsInstallState {
    patterns: Vec<String>,
}

const DEFAULT_GITHUB_API_BASE_URL: &str = "https://api.github.com";
const DEFAULT_GITLAB_API_BASE_URL: &str = "https://gitlab.com/api/v4";
const DEFAULT_FORGEJO_API_BASE_URL: &str = "https://codeberg.org/api/v1";

#[derive(Debug, Clone, Copy)]
struct GitBackendOptions<'a> {
    values: BackendOptions<'a>,
    default_api_url: &'static str,
}

impl<'a> GitBackendOptions<'a> {
    fn new(raw: &'a ToolVersionOptions, default_api_url: &'static str) -> Self {
        Self {
            values: BackendOptions::new(raw),
            default_api_url,
        }
    }

    fn raw(&self) -> &'a ToolVersionOptions {
        self.values.raw()
    }

    fn api_url(&self) -> String {
        self.values
            .str("api_url")
            .unwrap_or(self.default_api_url)
            .to_string()
    }

    fn github_attestations(&self) -> bool {
        self.values.bool_with_default("github_attestations", true)
    }

    fn slsa_signer(&self) -> Option<crate::github::sigstore::SlsaSignerIdentity<'a>> {
        let identity = self
            .values
            .str("slsa_signer_identity")
            .filter(|s| !s.is_empty())?;
        let issuer = self
            .values
            .str("slsa_signer_issuer")
            .filter(|s| !s.is_empty())?;
        Some(crate::github::sigstore::SlsaSignerIdentity {
            identity,
            issuer,
            source_repository: None,
            source_tag: None,
        })
    }

    fn slsa_signer_for(&self, tv: &ToolVersion) -> Option<(String, String)> {
        let signer = self.slsa_signer()?;
        Some((
            template_string(signer.identity, tv),
            template_string(signer.issuer, tv),
        ))
    }

    fn version_prefix(&self) -> Option<&'a str> {
        self.values.str("version_prefix")
    }

    /// The release tags this tool lists. An invalid `version_regex` is an
    /// error rather than a filter that lists nothing.
    fn tag_filter(&self) -> Result<TagFilter<'a>> {
        let regex = self
            .values
            .str("version_regex")
            .map(|pattern| {
                Regex::new(pattern)
                    .map_err(|e| eyre::eyre!("invalid version_regex {pattern:?}: {e}"))
            })
            .transpose()?;
        Ok(TagFilter {
            prefix: self.version_prefix(),
            regex,
        })
    }

    fn bin_path(&self) -> Option<String> {
        self.values.platform_string("bin_path")
    }

    fn asset_pattern_for_target(&self, target: &PlatformTarget) -> Option<String> {
        self.values
            .platform_string_for_target("asset_pattern", target)
    }

    fn additional_asset_patterns_for_target(&self, target: &PlatformTarget) -> Vec<String> {
        let Some(value) = self
            .values
            .platform_value_for_target("additional_asset_patterns", target)
        else {
            return Vec::new();
        };
        let values: Vec<String> = match value {
            toml::Value::String(value) => value
                .split(',')
                .map(str::trim)
                .map(str::to_string)
                .collect(),
            toml::Value::Array(values) => values
                .iter()
                .filter_map(toml::Value::as_str)
                .map(str::trim)
                .map(str::to_string)
                .collect(),
            _ => {
                warn!(
                    "invalid value for `additional_asset_patterns`: expected a string or array of strings"
                );
                return Vec::new();
            }
        };
        values
            .into_iter()
            .filter(|value| !value.is_empty())
            .collect()
    }

    /// Whether a platform-scoped direct download URL is configured for *any*
    /// platform.
    ///
    /// `url` short-circuits asset selection entirely in
    /// `resolve_asset_for_target`, so a release with no uploaded assets still
    /// installs. Version listing has to keep those releases, and the question
    /// has to be answered without a target because the listing is shared
    /// across platforms.
    ///
    /// Only the platform-scoped spellings count, because only those are read at
    /// install time: [`Self::direct_url_for_target`] goes through
    /// `platform_string_for_target_without_base`, which resolves
    /// `platforms.<os>-<arch>.url` and `platform_<os>_<arch>_url` and never
    /// falls back to a bare top-level `url`. Treating a base-level `url` as an
    /// exemption would keep asset-less releases listed for a tool that still
    /// runs asset selection and still fails.
    ///
    /// The `<os>-<arch>` half of that is load-bearing, which is why this checks
    /// the shape rather than just the prefix and suffix.
    /// `lookup_platform_value_for_aliases` builds every key it reads as
    /// `{platform|platforms}.{os}-{arch}.url` or
    /// `{platform|platforms}_{os}_{arch}_url`, so an option named
    /// `platforms.url` or `platform_linux_url` is never read at all. Counting
    /// one of those as an exemption is the same failure as counting a base-level
    /// `url`: the release stays listed and the install still ends in "No
    /// matching asset found".
    ///
    /// A `url` covering only some platforms exempts the tool everywhere, so an
    /// asset-less release stays listed on a platform the `url` misses and fails
    /// to install there. Narrowing that would mean deciding the version list
    /// per target, which is the thing this filter is written to avoid; the
    /// uncovered platform is no worse off than it was before any filtering
    /// existed.
    ///
    /// Whether a *value* counts is not decided here: the two lookups the install
    /// path uses answer that, so a value they reject cannot be read as an
    /// exemption and one they accept cannot be missed. They take any TOML scalar
    /// — `url = false` resolves to the string `"false"` and short-circuits asset
    /// selection just as a real URL would, badly but definitely — and reject
    /// tables and arrays.
    fn has_direct_url(&self) -> bool {
        let raw = self.values.raw();
        let opts = raw.opts.as_map();
        opts.iter().any(|(key, value)| {
            (key == "platforms" || key == "platform")
                && value.as_table().is_some_and(|table| {
                    table.keys().any(|platform| {
                        platform.contains('-')
                            && raw
                                .get_nested_string(&format!("{key}.{platform}.url"))
                                .is_some()
                    })
                })
        }) || opts
            .keys()
            .any(|key| is_flat_platform_url_key(key) && raw.get_string(key).is_some())
    }

    fn direct_url_for_target(&self, target: &PlatformTarget) -> Option<String> {
        self.values
            .platform_string_for_target_without_base("url", target)
    }

    fn no_app_for_target(&self, target: &PlatformTarget) -> bool {
        self.values.platform_bool_for_target("no_app", target)
    }

    fn filter_bins(&self) -> Option<Vec<String>> {
        self.parse_filter_bins(self.values.platform_value_without_base("filter_bins"))
            .or_else(|| self.parse_filter_bins(self.values.raw().opts.get("filter_bins")))
    }

    fn parse_filter_bins(&self, value: Option<&toml::Value>) -> Option<Vec<String>> {
        let bins: Vec<String> = match value? {
            toml::Value::String(filter_bins) => filter_bins
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            toml::Value::Array(values) => values
                .iter()
                .filter_map(|value| value.as_str().map(|s| s.trim().to_string()))
                .filter(|s| !s.is_empty())
                .collect(),
            _ => return None,
        };
        if bins.is_empty() { None } else { Some(bins) }
    }

    /// Substring an asset name must contain to remain a candidate, applied as a
    /// pre-filter before platform autodetection (ported from the ubi backend).
    fn matching(&self) -> Option<&'a str> {
        self.values.str("matching")
    }

    /// Regex an asset name must match to remain a candidate, applied as a
    /// pre-filter before platform autodetection (ported from the ubi backend).
    fn matching_regex(&self) -> Option<&'a str> {
        self.values.str("matching_regex")
    }

    /// `matching`/`matching_regex` for *provenance* selection, suppressed when
    /// `asset_pattern` is set for this target.
    ///
    /// `asset_pattern` replaces autodetection and selects the binary directly,
    /// ignoring the matching pre-filter (see the asset-selection call sites). Its
    /// provenance must therefore align with that asset by platform alone:
    /// re-applying `matching` here could narrow provenance to a *different* binary
    /// than `asset_pattern` picked. Suppressing it also keeps an invalid
    /// `matching_regex` — which is never validated on the asset_pattern path,
    /// since that path skips `match_by_auto_detection` — from reaching the
    /// provenance picker and silently returning no provenance (a verification
    /// downgrade). When `asset_pattern` is unset this is just `matching`/
    /// `matching_regex` unchanged.
    fn matching_for_provenance(
        &self,
        target: &PlatformTarget,
        explicit_pattern: bool,
    ) -> (Option<&'a str>, Option<&'a str>) {
        if explicit_pattern || self.asset_pattern_for_target(target).is_some() {
            (None, None)
        } else {
            (self.matching(), self.matching_regex())
        }
    }

    fn lockfile_options(&self, target: &PlatformTarget) -> BTreeMap<String, String> {
        let mut result = BTreeMap::new();
        if self.api_url() != self.default_api_url {
            result.insert("api_url".to_string(), self.api_url());
        }
        if let Some(value) = self.version_prefix() {
            result.insert("version_prefix".to_string(), value.to_string());
        }
        if let Some(value) = self.values.str("version_regex") {
            result.insert("version_regex".to_string(), value.to_string());
        }
        if let Some(value) = self.asset_pattern_for_target(target) {
            result.insert("asset_pattern".to_string(), value);
        }
        let additional_asset_patterns = self.additional_asset_patterns_for_target(target);
        if !additional_asset_patterns.is_empty() {
            result.insert(
                "additional_asset_patterns".to_string(),
                additional_asset_patterns.join(","),
            );
        }
        if let Some(value) = self.direct_url_for_target(target) {
            result.insert("url".to_string(), value);
        }
        if self.no_app_for_target(target) {
            result.insert("no_app".to_string(), "true".to_string());
        }
        if let Some(value) = self.matching() {
            result.insert("matching".to_string(), value.to_string());
        }
        if let Some(value) = self.matching_regex() {
            result.insert("matching_regex".to_string(), value.to_string());
        }
        result
    }
}

/// GitHub artifact attestations are only served by https://api.github.com. GHE
/// Server doesn't implement the attestations endpoint, so any verification
/// attempt against a custom api_url will fail. Callers gate on this so users
/// don't have to disable `MISE_GITHUB_ATTESTATIONS` globally for GHE tools.
/// The provenance an install must verify: the registry's requirement when
/// there is one, since a lockfile may have been written without it (after a
/// wrong "no attestations", or recording SLSA instead); otherwise the
/// lockfile's.
fn expected_install_provenance(
    locked: Option<ProvenanceType>,
    required: Option<ProvenanceType>,
) -> Option<ProvenanceType> {
    required.or(locked)
}

/// Whether a lockfile's recorded provenance lets an install skip
/// verification: only when it is what the registry requires, if anything.
fn locked_provenance_satisfies(
    locked: Option<&ProvenanceType>,
    required: Option<&ProvenanceType>,
) -> bool {
    required.is_none_or(|required| locked == Some(required))
}

/// Fail `mise lock` when verification settled on anything other than the
/// provenance the registry requires (SLSA, or nothing at all).
fn ensure_registry_provenance(
    tv: &ToolVersion,
    required: Option<&ProvenanceType>,
    verified: Option<&ProvenanceType>,
) -> Result<()> {
    match required {
        Some(required) if verified != Some(required) => Err(eyre::eyre!(
            "mise registry requires {required} provenance for {tv} but {}. \
             This may indicate a downgrade attack.",
            verified.map_or_else(
                || "none was verified".to_string(),
                |verified| format!("only {verified} was verified")
            )
        )),
        _ => Ok(()),
    }
}

/// Where to download a release asset from: its browser URL on the public
/// forges, which isn't API-rate-limited (60 requests an hour without a token
/// on GitHub), with the API endpoint only when the browser URL can't serve it
/// (a private repository). A custom API (GitHub Enterprise, a self-hosted
/// GitLab or Forgejo) is used directly.
async fn asset_download_url(asset: &ReleaseAsset) -> String {
    if asset.url_api.is_empty() {
        asset.url.clone()
    } else if is_public_forge_api_url(&asset.url_api) {
        github::pick_reachable_asset_url(&asset.url, &asset.url_api).await
    } else {
        debug!(
            "Since the tool resides on a custom GitHub/GitLab API ({:?}), the asset download will be performed using the given API instead of browser URL download",
            asset.url_api
        );
        asset.url_api.clone()
    }
}

/// How `mise lock` marks `asset`'s digest in the lockfile: one from a release
/// mise-versions served, not checked against a download at lock time, is only
/// compared after a real download and never reuses a kept one.
fn locked_digest_source(asset: &ReleaseAsset, downloaded: bool) -> Option<ChecksumSource> {
    (asset.digest.is_some()
        && !downloaded
        && crate::versions_host::is_mirrored_asset_api_url(&asset.url_api))
    .then_some(ChecksumSource::VersionsHost)
}

/// Record `asset` in its lockfile entry, its digest as the checksum when the
/// entry has none, and return the checksum that may pick a kept download with
/// no request: `pinned` (the tool's or the lockfile's, read before this) or else
/// the asset's digest. A digest mise-versions supplied is not used that way, or
/// it could choose which kept file is installed; it is only compared with the
/// file after the download.
fn record_release_asset(
    platform_info: &mut PlatformInfo,
    asset: &ReleaseAsset,
    pinned: Option<String>,
) -> Option<String> {
    platform_info.url = Some(asset.url.clone());
    platform_info.url_api = (!asset.url_api.is_empty()).then(|| asset.url_api.clone());
    if let Some(digest) = &asset.digest
        && platform_info.checksum.is_none()
    {
        debug!("using GitHub API digest for checksum verification");
        platform_info.checksum = Some(digest.clone());
    }
    pinned.or_else(|| {
        crate::versions_host::digest_download_pin(asset.digest.as_deref(), Some(&asset.url_api))
    })
}

/// Whether `url` is under one of the public forges' API base URLs. Compared on
/// the parsed URL, because the parser also accepts other spellings of the same
/// host (`HTTPS://`, a leading space, userinfo) that a prefix test would take
/// for a custom API, downloading the URL as given and skipping the browser URL
/// and the asset-ID check.
fn is_public_forge_api_url(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    [
        DEFAULT_GITHUB_API_BASE_URL,
        DEFAULT_GITLAB_API_BASE_URL,
        DEFAULT_FORGEJO_API_BASE_URL,
    ]
    .iter()
    .filter_map(|base| url::Url::parse(base).ok())
    .any(|base| base.origin() == url.origin() && url.path().starts_with(base.path()))
}

fn attestations_supported(api_url: &str) -> bool {
    api_url.trim_end_matches('/') == DEFAULT_GITHUB_API_BASE_URL
}

fn github_attestations_disabled_for_tool_error(tv: &ToolVersion) -> eyre::Report {
    eyre::eyre!(
        "Lockfile requires github-attestations provenance for {tv} but \
         github_attestations is disabled for this tool. Re-run `mise lock` \
         to refresh the lockfile, or remove github_attestations = false."
    )
}

fn slsa_signer_missing_error(tv: &ToolVersion) -> eyre::Report {
    eyre::eyre!(
        "Lockfile requires SLSA provenance for {tv}, but this tool has no expected signer. \
         Set slsa_signer_identity and slsa_signer_issuer in the tool options, \
         or refresh the lockfile after choosing another verification method."
    )
}

/// A tool that names its SLSA signer has asked for that check, so a release
/// without provenance it can verify is refused rather than installed unchecked:
/// replacing the binary and deleting (or emptying) its provenance is exactly
/// what the signer is there to catch.
fn slsa_provenance_missing_error(tv: &ToolVersion, asset_name: &str) -> eyre::Report {
    eyre::eyre!(
        "slsa_signer_identity is set for {tv} but the release has no verifiable SLSA \
         provenance for {asset_name}. Remove the slsa_signer options if the tool does \
         not publish SLSA provenance."
    )
}

/// Status returned from verification attempts
enum VerificationStatus {
    /// No attestations or provenance found (not an error, tool may not have them)
    NoAttestations,
    /// A remote API or download failed while checking provenance.
    ApiError(String),
    /// An error occurred during verification
    Error(String),
}

/// Check if an SLSA verification error indicates a format/parsing issue rather than
/// an actual verification failure. Some provenance files (e.g., BuildKit raw provenance)
/// exist but aren't in a sigstore-verifiable format.
///
/// `Sigstore(msg)` covers errors that originated in `sigstore-verify` itself
/// (e.g. `missing field 'verificationMaterial'` when the file is a legacy
/// cosign v1 bundle that the modern bundle deserializer rejects). Those are
/// format mismatches, not signature failures, so we let the caller fall
/// back to alternate verification paths.
fn is_slsa_format_issue(e: &crate::github::sigstore::AttestationError) -> bool {
    match e {
        crate::github::sigstore::AttestationError::NoAttestations => true,
        crate::github::sigstore::AttestationError::UnsupportedFormat(_) => true,
        crate::github::sigstore::AttestationError::Verification(msg)
        | crate::github::sigstore::AttestationError::Sigstore(msg) => {
            msg.contains("does not contain valid attestations")
                || msg.contains("No certificate found")
                || msg.contains("neither DSSE envelope nor message signature")
                || msg.contains("missing field")
                || msg.contains("not a sigstore or cosign bundle")
                || msg.contains("not a JSON DSSE envelope")
        }
        _ => false,
    }
}

/// Returns install-time-only option keys for GitHub/GitLab backend.
pub(crate) fn install_time_option_keys() -> Vec<String> {
    vec![
        "asset_pattern".into(),
        "additional_asset_patterns".into(),
        "url".into(),
        "version_prefix".into(),
        "version_regex".into(),
        "no_app".into(),
        "matching".into(),
        "matching_regex".into(),
        "bin".into(),
        "rename_exe".into(),
        "bin_path".into(),
    ]
}

/// Whether a flat option name is one the install path reads as a
/// platform-scoped `url`: `platform_<os>_<arch>_url` or the `platforms_` spelling.
///
/// The arch half is required. `platform_linux_url` looks like one of these and
/// is never read, so treating it as an exemption would list releases that
/// cannot be installed. Split on the *first* underscore only, so an arch that
/// contains one — `platform_linux_x86_64_url` — still resolves.
fn is_flat_platform_url_key(key: &str) -> bool {
    key.strip_prefix("platforms_")
        .or_else(|| key.strip_prefix("platform_"))
        .and_then(|rest| rest.strip_suffix("_url"))
        .and_then(|platform| platform.split_once('_'))
        .is_some_and(|(os, arch)| !os.is_empty() && !arch.is_empty())
}

/// Partition the remote-version cache only when this tool's direct-URL
/// exemption is not the one the registry hands everybody.
///
/// The exemption changes the shape of the version list, so a tool that has it
/// cannot share a cache entry with one that does not. But a registry entry that
/// declares platform URLs gives *every* client the same exemption, and
/// mise-versions is built from that same canonical configuration — so isolating
/// there would only cost the shared listing for no difference in content. The
/// context therefore appears when a local config, alias, or inline option moves
/// the exemption away from the registry default, in either direction.
///
/// This mirrors what `has_local_version_listing_option_override` already does
/// for `api_url` and `version_prefix` in `backend/mod.rs`: a registry-supplied
/// value is identical for everyone, so it keeps the versions host available.
///
/// Only the effective boolean is hashed. The URL itself is install-only and may
/// carry a token.
fn direct_url_cache_context(effective: bool, registry_default: bool) -> Option<String> {
    (effective != registry_default).then(|| crate::hash::hash_to_str(&effective))
}

/// Which release tags a tool lists: those that start with `version_prefix`
/// and match `version_regex`, when they are set.
///
/// The regex only filters. A listed tag still becomes a version by the usual
/// prefix stripping, so the install path finds the tag again the same way.
struct TagFilter<'a> {
    prefix: Option<&'a str>,
    regex: Option<Regex>,
}

impl TagFilter<'_> {
    fn lists(&self, tag: &str) -> bool {
        self.prefix.is_none_or(|p| tag.starts_with(p)) && self.allows(tag)
    }

    /// Whether a tag may be installed from. Installing still tries the tag
    /// spellings without `version_prefix`, for tags written out by hand, but
    /// never one `version_regex` leaves out: a repository with both `1.2.3`
    /// and `v1.2.3` would otherwise install the release the listing excluded.
    fn allows(&self, tag: &str) -> bool {
        self.regex.as_ref().is_none_or(|re| re.is_match(tag))
    }
}

/// Whether a release has anything mise could install from.
///
/// A release with nothing attached has no source at all: mise never falls back
/// to the forge's auto-generated source archives, so every asset-selection path
/// ends in "No matching asset found". Listing such a release advertises a
/// version that cannot be installed -- `mise install <tool>@<version>` fails
/// with that error rather than doing anything useful.
///
/// Deliberately *not* "has an asset for the current platform". That would make
/// the version list platform-dependent, which cross-platform lockfiles rely on
/// it not being. Emptiness gives the same answer on every host.
fn github_release_has_assets(release: &github::GithubRelease) -> bool {
    !release.assets.is_empty()
}

/// GitLab counterpart of [`github_release_has_assets`], keyed on `links`.
///
/// `assets.sources` is GitLab's auto-generated zip/tar.gz of the tag and is
/// always populated, so testing the whole `assets` struct would never exclude
/// anything. The install path reads `assets.links` exclusively.
fn gitlab_release_has_assets(release: &gitlab::GitlabRelease) -> bool {
    !release.assets.links.is_empty()
}

/// Forgejo counterpart of [`github_release_has_assets`].
fn forgejo_release_has_assets(release: &forgejo::ForgejoRelease) -> bool {
    !release.assets.is_empty()
}

#[async_trait]
impl Backend for UnifiedGitBackend {
    fn version_order(&self, opts: &ToolVersionOptions) -> Result<VersionOrder> {
        VersionOrder::from_options_or(opts, self.ba.registry_version_order().unwrap_or_default())
    }

    fn option_spec(&self) -> Option<crate::backend::OptionSpec> {
        Some(crate::backend::OptionSpec::with_platforms(
            if self.is_gitlab() {
                &["tool_gitlab_options", "tool_forge_options"]
            } else if self.is_forgejo() {
                &["tool_forgejo_options", "tool_forge_options"]
            } else {
                &["tool_github_options", "tool_forge_options"]
            },
            &["tool_forge_platforms"],
        ))
    }

    fn get_type(&self) -> BackendType {
        if self.is_gitlab() {
            BackendType::Gitlab
        } else if self.is_forgejo() {
            BackendType::Forgejo
        } else {
            BackendType::Github
        }
    }

    fn ba(&self) -> &Arc<BackendArg> {
        &self.ba
    }

    async fn is_install_satisfied(
        &self,
        config: &Arc<Config>,
        tv: &ToolVersion,
        check_symlink: bool,
    ) -> Result<bool> {
        if !self.is_version_installed(config, tv, check_symlink) {
            return Ok(false);
        }
        let raw_opts = tv.request.options();
        let patterns = self
            .options(&raw_opts)
            .additional_asset_patterns_for_target(&PlatformTarget::from_current());
        Ok(self.additional_assets_install_state_matches(tv, &patterns))
    }

    async fn install_operation_count(&self, tv: &ToolVersion, _ctx: &InstallContext) -> usize {
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        3 + opts
            .additional_asset_patterns_for_target(&PlatformTarget::from_current())
            .len()
            * 3
    }

    async fn security_info(&self) -> Vec<SecurityFeature> {
        // Only report security features for GitHub (not GitLab yet)
        if self.is_gitlab() || self.is_forgejo() {
            return vec![];
        }

        let mut features = vec![];

        // Get the latest release to check for security assets
        let repo = self.ba.tool_name();
        let raw_opts = self.ba.opts();
        let opts = self.options(&raw_opts);
        let api_url = opts.api_url();

        // Same `require_assets` this backend's own listing asks for, so the two
        // share a cache entry instead of fetching the repository's releases
        // twice under different keys. `list_releases_from_url` would hardcode
        // `false` and split them. The flag comes from the backend arg rather
        // than the config, which is all this trait method is handed; a `url`
        // set only in config would still split, as it did before.
        let releases = github::list_releases_including_prereleases_from_url(
            api_url.as_str(),
            &repo,
            !opts.has_direct_url(),
        )
        .await
        .unwrap_or_default();

        // What `list_releases_from_url` used to answer: the newest release that
        // is not a prerelease.
        let latest_release = releases.iter().find(|r| !r.prerelease);

        // Check for checksum files in assets
        if let Some(release) = latest_release {
            let has_checksum = release.assets.iter().any(|a| {
                let name = a.name.to_lowercase();
                name.contains("sha256")
                    || name.contains("checksum")
                    || name.ends_with(".sha256")
                    || name.ends_with(".sha512")
            });
            if has_checksum {
                features.push(SecurityFeature::Checksum {
                    algorithm: Some("sha256".to_string()),
                });
            }
        }

        // Check for GitHub artifact Attestations (assets with .sigstore.json or .sigstore extension)
        if let Some(release) = latest_release {
            let has_attestations = release.assets.iter().any(|a| {
                let name = a.name.to_lowercase();
                name.ends_with(".sigstore.json") || name.ends_with(".sigstore")
            });
            if has_attestations {
                features.push(SecurityFeature::GithubAttestations {
                    signer_workflow: None,
                });
            }
        }

        // Check for SLSA provenance (intoto.jsonl files)
        if let Some(release) = latest_release {
            let has_slsa = release.assets.iter().any(|a| {
                let name = a.name.to_lowercase();
                name.contains(".intoto.jsonl")
                    || name.contains("provenance")
                    || name.ends_with(".attestation")
            });
            if has_slsa {
                features.push(SecurityFeature::Slsa { level: None });
            }
        }

        features
    }

    fn remote_version_listing_tool_option_keys(&self) -> &'static [&'static str] {
        &["api_url", "version_prefix", "version_regex"]
    }

    /// The registry baseline is read straight off the registry entry, not
    /// reconstructed from the effective options' provenance.
    ///
    /// `options_from_sources` attributes whole *top-level* keys, so a local
    /// `[platforms]` table replaces the registry's table and takes the
    /// attribution with it: the registry's `platforms.<os>-<arch>.url` becomes
    /// unrecoverable. Paired with a local `platforms` table carrying no `url`,
    /// both sides would read `false`, no context would be produced, and a
    /// configuration that *must* filter asset-less releases would read the
    /// canonical unfiltered listing -- advertising versions whose install then
    /// fails, which is the failure this whole change exists to remove.
    ///
    /// [`BackendArg::registry_opts`] is the very layer `resolve_opts_with_layers`
    /// applies as [`crate::toolset::ToolOptionSource::Registry`], so it cannot
    /// lose the key. It also settles the mirror case: a local
    /// `platforms.<b>.url` replacing the registry's `platforms.<a>.url` matches
    /// the baseline and keeps the shared partition instead of being isolated
    /// for nothing.
    async fn remote_version_cache_context(&self, config: &Arc<Config>) -> Result<Option<String>> {
        let effective = config.get_tool_opts_with_overrides(&self.ba).await?;
        let registry_default = self.ba.registry_opts();
        Ok(direct_url_cache_context(
            self.options(&effective).has_direct_url(),
            self.options(&registry_default).has_direct_url(),
        ))
    }

    async fn _list_remote_versions(&self, config: &Arc<Config>) -> Result<Vec<VersionInfo>> {
        let repo = self.ba.tool_name();
        let id = self.ba.to_string();
        let raw_opts = config.get_tool_opts_with_overrides(&self.ba).await?;
        let opts = self.options(&raw_opts);
        let api_url = opts.api_url();
        let tags = opts.tag_filter()?;

        // A tool with a `url` option never selects an asset, so its releases
        // must not be judged on having one.
        let skip_asset_check = opts.has_direct_url();

        let web_url_base = self.web_url_base(&api_url, &repo);

        // Get releases with full metadata from GitHub, GitLab, or Forgejo
        let raw_versions: Vec<VersionInfo> = if self.is_gitlab() {
            gitlab::list_releases_from_url(api_url.as_str(), &repo)
                .await?
                .into_iter()
                .filter(|r| tags.lists(&r.tag_name))
                .filter(|r| skip_asset_check || gitlab_release_has_assets(r))
                .map(|r| VersionInfo {
                    version: self.strip_version_prefix(&r.tag_name, &opts),
                    created_at: r.published_at().map(str::to_string),
                    release_url: Some(format!("{}/-/releases/{}", web_url_base, r.tag_name)),
                    ..Default::default()
                })
                .collect()
        } else if self.is_forgejo() {
            forgejo::list_releases_including_prereleases_from_url(
                api_url.as_str(),
                &repo,
                !skip_asset_check,
            )
            .await?
            .into_iter()
            .filter(|r| tags.lists(&r.tag_name))
            .filter(|r| skip_asset_check || forgejo_release_has_assets(r))
            .map(|r| VersionInfo {
                version: self.strip_version_prefix(&r.tag_name, &opts),
                created_at: Some(r.created_at),
                release_url: Some(format!("{}/releases/tag/{}", web_url_base, r.tag_name)),
                prerelease: Some(r.prerelease),
                ..Default::default()
            })
            .collect()
        } else {
            // Always fetch the pre-release superset and stamp `prerelease` on
            // each entry. The shared remote-versions cache stores the superset
            // so flipping the `prerelease` tool option (e.g. via a project
            // override) is correct without invalidating the cache; the read
            // path filters on `prerelease` according to the current opts.
            // Version-level data only: from mise-versions' whole list, one
            // request however many releases the repository has.
            github::list_release_versions(api_url.as_str(), &repo, !skip_asset_check)
                .await?
                .into_iter()
                .filter(|r| tags.lists(&r.tag_name))
                .filter(|r| skip_asset_check || r.has_assets)
                .map(|r| {
                    let created_at = r.released_at.clone();
                    VersionInfo {
                        version: self.strip_version_prefix(&r.tag_name, &opts),
                        created_at,
                        release_url: Some(format!("{}/releases/tag/{}", web_url_base, r.tag_name)),
                        prerelease: Some(r.prerelease),
                        ..Default::default()
                    }
                })
                .collect()
        };

        // Apply common validation and reverse order
        let versions = raw_versions
            .into_iter()
            .filter(|v| match v.version.parse::<ToolVersionType>() {
                Ok(ToolVersionType::Version(_)) => true,
                _ => {
                    warn!("Invalid version: {id}@{}", v.version);
                    false
                }
            })
            .rev()
            .collect();

        Ok(versions)
    }

    async fn latest_stable_version_info(
        &self,
        config: &Arc<Config>,
    ) -> eyre::Result<Option<VersionInfo>> {
        if Settings::get().offline() {
            trace!("Skipping latest stable version due to offline mode");
            return Ok(None);
        }

        let repo = self.ba.tool_name();
        let raw_opts = config.get_tool_opts_with_overrides(&self.ba).await?;
        let opts = self.options(&raw_opts);
        let api_url = opts.api_url();
        let tags = opts.tag_filter()?;

        // When `prerelease = true`, skip the `/releases/latest` shortcut
        // (which returns whichever release the repo owner marked as "Latest",
        // defaulting to the newest non-prerelease). Returning `None` lets the
        // trait's `latest_version` fall through to `latest_version_for_query`,
        // which resolves against the full list — now including pre-releases.
        if self.include_prereleases(opts.raw()) {
            return Ok(None);
        }

        // The `/releases/latest` shortcut has to reject an asset-less release for
        // the same reason the full listing does, or `latest` would resolve to a
        // version the listing no longer offers and the install would fail with
        // "No matching asset found". Returning `None` falls through to
        // `latest_version_for_query`, which picks the newest listed version.
        let skip_asset_check = opts.has_direct_url();

        let latest_release = if self.is_gitlab() {
            // GitLab doesn't have a "latest" endpoint
            return Ok(None);
        } else if self.is_forgejo() {
            match forgejo::get_release_for_url(&api_url, &repo, "latest").await {
                Ok(r) if !skip_asset_check && !forgejo_release_has_assets(&r) => {
                    debug!("Latest Forgejo release for {repo} has no assets; using the listing");
                    return Ok(None);
                }
                Ok(r) => Some((r.tag_name, r.created_at, r.prerelease)),
                Err(e) => {
                    debug!("Failed to fetch latest Forgejo release for {repo}: {e}");
                    None
                }
            }
        } else {
            match self
                .get_github_release_for_url(&api_url, &repo, "latest")
                .await
            {
                Ok(r) if !skip_asset_check && !github_release_has_assets(&r) => {
                    debug!("Latest GitHub release for {repo} has no assets; using the listing");
                    return Ok(None);
                }
                Ok(r) => {
                    let released_at = r.released_at().to_string();
                    Some((r.tag_name, released_at, r.prerelease))
                }
                Err(e) => {
                    debug!("Failed to fetch latest GitHub release for {repo}: {e}");
                    None
                }
            }
        };

        let web_url_base = self.web_url_base(&api_url, &repo);
        Ok(latest_release.filter(|(tag, _, _)| tags.lists(tag)).map(
            |(tag, created_at, prerelease)| VersionInfo {
                version: self.strip_version_prefix(&tag, &opts),
                created_at: Some(created_at),
                prerelease: Some(prerelease),
                // Same URL the listing would give for this release. Without it
                // the shortcut answers about the newest release while knowing
                // less about it than the slower path does, and a caller reading
                // `release_url` gets nothing for exactly the release it is most
                // likely to be asked about. GitLab has already returned above,
                // so this is the GitHub/Forgejo tag form.
                release_url: Some(format!("{web_url_base}/releases/tag/{tag}")),
                ..Default::default()
            },
        ))
    }

    async fn resolve_exact_version(
        &self,
        config: &Arc<Config>,
        version: &str,
    ) -> eyre::Result<Option<String>> {
        if Settings::get().offline() || self.is_gitlab() || self.is_forgejo() {
            return Ok(None);
        }

        let repo = self.repo();
        let raw_opts = config.get_tool_opts_with_overrides(&self.ba).await?;
        let opts = self.options(&raw_opts);
        let api_url = opts.api_url();
        let version_prefix = opts.version_prefix();
        let tags = opts.tag_filter()?;
        let listed_tag = self.listed_release_tag(&opts, version).await;

        match try_allowed_release_tags(
            version,
            version_prefix,
            Some(&repo),
            Some(&api_url),
            listed_tag.as_deref(),
            |tag| tags.allows(tag),
            |candidate| {
                let api_url = api_url.clone();
                let repo = repo.clone();
                async move {
                    github::get_release_for_url_with_versions_host(
                        &api_url, &repo, &candidate, true,
                    )
                    .await
                }
            },
        )
        .await
        {
            Ok(release) => Ok(Some(self.strip_version_prefix(&release.tag_name, &opts))),
            Err(e) => {
                debug!("Failed to resolve exact GitHub release for {repo}@{version}: {e}");
                Ok(None)
            }
        }
    }

    async fn install_version_(
        &self,
        ctx: &InstallContext,
        mut tv: ToolVersion,
    ) -> Result<ToolVersion> {
        let repo = self.repo();
        // the version's own request options: the config's are the first
        // entry's, which a later entry of the same tool must not inherit
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        let current_target = PlatformTarget::from_current();
        let additional_patterns = opts.additional_asset_patterns_for_target(&current_target);

        // Validate `matching_regex` up front, before the cached-URL branch below.
        // Reusing a cached lockfile URL skips binary selection (the path that
        // normally hard-errors on a bad pattern), so without this an invalid
        // regex would reach the provenance picker, return `None`, and silently
        // skip SLSA verification rather than failing closed.
        //
        // Skip this when `asset_pattern` is set: it supersedes `matching`/
        // `matching_regex` for both binary selection and provenance (see
        // `matching_for_provenance` and `resolve_*_asset_url_for_target`), so the
        // regex is never consulted and an invalid one is irrelevant. mise doesn't
        // hard-fail on options it won't act on — `url` short-circuits before
        // `asset_pattern` is ever templated (resolve_asset_url_for_target), an
        // ignored hook `shell` is dropped with a warning (src/hooks.rs), and
        // unknown tool-option keys are silently ignored. Validating here would be
        // the lone exception that rejects a superseded option.
        if opts
            .asset_pattern_for_target(&PlatformTarget::from_current())
            .is_none()
        {
            asset_matcher::validate_matching_regex(opts.matching_regex())?;
        }

        // Check if URL already exists in lockfile platforms first
        let platform_key = self.get_platform_key();
        let asset = if let Some(existing_platform) = tv.lock_platforms.get(&platform_key)
            && existing_platform.url.is_some()
        {
            debug!(
                "Using existing URL from lockfile for platform {}: {}",
                platform_key,
                existing_platform.url.clone().unwrap_or_default()
            );
            ReleaseAsset {
                name: get_filename_from_url(existing_platform.url.as_deref().unwrap_or("")),
                url: existing_platform.url.clone().unwrap_or_default(),
                url_api: existing_platform.url_api.clone().unwrap_or_default(),
                digest: None, // Don't use old digest from lockfile, will be fetched fresh if needed
                release_tag: None,
            }
        } else {
            // Find the asset URL for this specific version
            self.resolve_asset_url(&tv, &opts, &repo).await?
        };

        let locked_additional_artifacts_present = tv
            .lock_platforms
            .get(&platform_key)
            .is_some_and(|platform| !platform.additional_artifacts.is_empty());
        let additional_assets = match tv.lock_platforms.get(&platform_key) {
            Some(platform)
                if self.additional_artifacts_match_patterns(
                    &tv,
                    &current_target,
                    &additional_patterns,
                    &platform.additional_artifacts,
                ) =>
            {
                platform
                    .additional_artifacts
                    .iter()
                    .map(|artifact| ReleaseAsset {
                        name: get_filename_from_url(&artifact.url),
                        url: artifact.url.clone(),
                        url_api: artifact.url_api.clone().unwrap_or_default(),
                        digest: None,
                        release_tag: None,
                    })
                    .collect()
            }
            _ if ctx.locked
                && (!additional_patterns.is_empty() || locked_additional_artifacts_present) =>
            {
                eyre::bail!(
                    "No matching complete lockfile artifact list found for {} on platform {} (--locked mode)",
                    tv.style(),
                    platform_key
                )
            }
            _ => {
                let mut assets = Vec::new();
                for pattern in &additional_patterns {
                    assets.push(
                        self.resolve_asset_url_for_target_with_pattern(
                            &tv,
                            &opts,
                            &repo,
                            &current_target,
                            Some(pattern),
                        )
                        .await?,
                    );
                }
                assets
            }
        };

        // Download and install
        self.download_and_install(ctx, &mut tv, &asset, &opts)
            .await?;
        for (index, asset) in additional_assets.iter().enumerate() {
            self.download_verify_and_install_additional_asset(ctx, &mut tv, asset, &opts, index)
                .await?;
        }
        if let Some(platform) = tv.lock_platforms.get_mut(&platform_key) {
            platform
                .additional_artifacts
                .truncate(additional_assets.len());
        }
        self.write_additional_assets_install_state(&tv, &additional_patterns)?;

        Ok(tv)
    }

    async fn list_bin_paths(
        &self,
        _config: &Arc<Config>,
        tv: &ToolVersion,
    ) -> Result<Vec<std::path::PathBuf>> {
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        let mise_bins_dir = tv.install_path().join(MISE_BINS_DIR);
        if opts.filter_bins().is_some() || mise_bins_dir.is_dir() {
            return Ok(vec![tv.runtime_path().join(MISE_BINS_DIR)]);
        }

        Ok(self
            .discover_bin_paths(tv)?
            .into_iter()
            .map(|path| runtime_path_for_install_path(tv, path))
            .collect())
    }

    fn resolve_lockfile_options(
        &self,
        request: &ToolRequest,
        target: &PlatformTarget,
    ) -> Result<BTreeMap<String, String>> {
        let raw_opts = request.options();
        Ok(self.options(&raw_opts).lockfile_options(target))
    }

    /// Resolve platform-specific lock information for cross-platform lockfile generation.
    /// This fetches release asset metadata including SHA256 digests from GitHub/GitLab API.
    async fn resolve_lock_info(
        &self,
        tv: &ToolVersion,
        target: &PlatformTarget,
    ) -> Result<PlatformInfo> {
        let repo = self.repo();
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);

        // Fail closed on an invalid `matching_regex` instead of writing an empty
        // entry. The `Err` arm below intentionally swallows resolution failures so a
        // platform with no matching asset is skipped rather than failing the whole
        // (best-effort) lock — but `resolve_asset_url_for_target` returns the same
        // `Err` for an invalid regex, which would then be caught and written as a
        // url-less `PlatformInfo::default()`. Returning `Err` here makes the lock
        // orchestration skip the platform (no entry written) instead. Gated on the
        // same `asset_pattern` precedence as everywhere else, so an ignored regex is
        // never validated.
        if opts.asset_pattern_for_target(target).is_none() {
            asset_matcher::validate_matching_regex(opts.matching_regex())?;
        }

        // Resolve asset for the target platform
        let asset = self
            .resolve_asset_url_for_target(tv, &opts, &repo, target)
            .await;

        match asset {
            Ok(mut asset) => {
                let primary_explicit_pattern = opts.asset_pattern_for_target(target).is_some();
                // Detect provenance availability from release assets and attestation API
                // A registry requirement is recorded without asking anyone;
                // the lock-time verification below still has to pass.
                let required = self.registry_required_provenance(tv, &opts);
                let mut provenance = if let Some(required) = required.clone() {
                    Some(required)
                } else if !self.is_gitlab() && !self.is_forgejo() {
                    self.detect_provenance_type(tv, &opts, &asset, target, primary_explicit_pattern)
                        .await?
                } else {
                    None
                };
                // Every recorded provenance claim must be verified, including
                // artifacts for platforms other than the host running mise lock.
                // That downloads the artifact and checks its digest.
                let primary_downloaded = provenance.is_some();
                if provenance.is_some() {
                    match self
                        .verify_provenance_at_lock_time(
                            tv,
                            &opts,
                            &mut asset,
                            target,
                            AssetVerification::primary(primary_explicit_pattern),
                        )
                        .await
                    {
                        Ok(verified) => {
                            provenance = verified;
                        }
                        Err(e) => {
                            return Err(e.wrap_err("lock-time provenance verification failed"));
                        }
                    }
                }
                ensure_registry_provenance(tv, required.as_ref(), provenance.as_ref())?;
                let mut additional_artifacts = Vec::new();
                for pattern in opts.additional_asset_patterns_for_target(target) {
                    let mut additional = self
                        .resolve_asset_url_for_target_with_pattern(
                            tv,
                            &opts,
                            &repo,
                            target,
                            Some(&pattern),
                        )
                        .await?;
                    // The registry's requirement covers every asset of the release.
                    let mut additional_provenance = if let Some(required) = required.clone() {
                        Some(required)
                    } else if !self.is_gitlab() && !self.is_forgejo() {
                        self.detect_provenance_type(tv, &opts, &additional, target, true)
                            .await?
                    } else {
                        None
                    };
                    let additional_downloaded = additional_provenance.is_some();
                    if additional_provenance.is_some() {
                        additional_provenance = self
                            .verify_provenance_at_lock_time(
                                tv,
                                &opts,
                                &mut additional,
                                target,
                                AssetVerification::ADDITIONAL,
                            )
                            .await?;
                    }
                    ensure_registry_provenance(
                        tv,
                        required.as_ref(),
                        additional_provenance.as_ref(),
                    )?;
                    additional_artifacts.push(ArtifactInfo {
                        checksum_source: locked_digest_source(&additional, additional_downloaded),
                        checksum: additional.digest,
                        url: additional.url,
                        url_api: (!additional.url_api.is_empty()).then_some(additional.url_api),
                        provenance: additional_provenance,
                        ..Default::default()
                    });
                }

                Ok(PlatformInfo {
                    checksum_source: locked_digest_source(&asset, primary_downloaded),
                    url: Some(asset.url),
                    url_api: (!asset.url_api.is_empty()).then_some(asset.url_api),
                    checksum: asset.digest,
                    provenance,
                    github_attestations: None,
                    additional_artifacts,
                    ..Default::default()
                })
            }
            Err(e) => {
                // An unsupported target is reported to the lock command as such.
                let unsupported = matches!(
                    e.downcast_ref::<crate::errors::Error>(),
                    Some(crate::errors::Error::UnsupportedTarget(_))
                );
                if unsupported || Settings::get().generate_lockfiles() {
                    return Err(e);
                }
                debug!(
                    "Failed to resolve asset for {} on {}: {}",
                    self.ba.full(),
                    target.to_key(),
                    e
                );
                Ok(PlatformInfo::default())
            }
        }
    }
}

impl UnifiedGitBackend {
    pub(crate) fn from_arg(ba: BackendArg) -> Self {
        Self { ba: Arc::new(ba) }
    }

    fn options<'a>(&self, raw: &'a ToolVersionOptions) -> GitBackendOptions<'a> {
        GitBackendOptions::new(raw, self.default_api_url())
    }

    fn default_api_url(&self) -> &'static str {
        if self.is_gitlab() {
            DEFAULT_GITLAB_API_BASE_URL
        } else if self.is_forgejo() {
            DEFAULT_FORGEJO_API_BASE_URL
        } else {
            DEFAULT_GITHUB_API_BASE_URL
        }
    }

    /// The provenance the mise registry requires for `tv`'s primary asset:
    /// GitHub attestations, for a tool the registry says publishes them from
    /// this version on. Without this, "no attestations" (from mise-versions,
    /// or a lockfile written after it) just skips verification. Off whenever
    /// the user has turned GitHub attestations off.
    fn registry_required_provenance(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
    ) -> Option<ProvenanceType> {
        let settings = Settings::get();
        (!self.is_gitlab()
            && !self.is_forgejo()
            && settings.github_attestations
            && settings.github.github_attestations
            && opts.github_attestations()
            && attestations_supported(&opts.api_url())
            && crate::registry::requires_github_attestations(
                &self.ba.full_without_opts(),
                &tv.version,
            ))
        .then_some(ProvenanceType::GithubAttestations)
    }

    fn additional_artifacts_match_patterns(
        &self,
        tv: &ToolVersion,
        target: &PlatformTarget,
        patterns: &[String],
        artifacts: &[ArtifactInfo],
    ) -> bool {
        artifacts.len() == patterns.len()
            && artifacts.iter().zip(patterns).all(|(artifact, pattern)| {
                if artifact.url.is_empty() {
                    return false;
                }
                let name = get_filename_from_url(&artifact.url);
                let pattern = template_string_for_target(pattern, tv, target);
                self.pick_by_pattern([name], &pattern, String::as_str)
                    .is_some()
            })
    }

    fn additional_assets_install_state_matches(
        &self,
        tv: &ToolVersion,
        patterns: &[String],
    ) -> bool {
        let state_path = tv.install_path().join(ADDITIONAL_ASSETS_STATE_FILENAME);
        if !state_path.exists() {
            return patterns.is_empty();
        }
        file::read_to_string(&state_path)
            .ok()
            .and_then(|body| toml::from_str::<AdditionalAssetsInstallState>(&body).ok())
            .is_some_and(|state| state.patterns == patterns)
    }

    fn write_additional_assets_install_state(
        &self,
        tv: &ToolVersion,
        patterns: &[String],
    ) -> Result<()> {
        let state_path = tv.install_path().join(ADDITIONAL_ASSETS_STATE_FILENAME);
        if patterns.is_empty() {
            if state_path.exists() {
                file::remove_file(state_path)?;
            }
            return Ok(());
        }
        let state = AdditionalAssetsInstallState {
            patterns: patterns.to_vec(),
        };
        file::write(state_path, toml::to_string(&state)?)
    }

    async fn get_github_release_for_url(
        &self,
        api_url: &str,
        repo: &str,
        tag: &str,
    ) -> Result<github::GithubRelease> {
        github::get_release_for_url_with_versions_host(api_url, repo, tag, true).await
    }

    /// The release provenance for an asset lives on: the one the asset was
    /// picked from, or for an asset reused from a lockfile, the one its
    /// download URL names.
    ///
    /// Never the tag remembered for the version (`RESOLVED_TAGS`): `mise lock`
    /// selects assets for several platforms at once, and an install resolves
    /// its additional assets before the main one, so where two tags spell one
    /// version (`1.2.3`, `v1.2.3`) with different assets, the remembered tag
    /// can be the other release. An asset whose release can't be named either
    /// way is looked up without that memory, preferring the release that
    /// holds it.
    async fn release_for_asset(
        &self,
        api_url: &str,
        repo: &str,
        version: &str,
        opts: &GitBackendOptions<'_>,
        asset: &ReleaseAsset,
    ) -> Result<github::GithubRelease> {
        let tag = asset.release_tag.clone().or_else(|| {
            crate::backend::release_tag_from_download_url(
                &asset.url,
                &self.web_url_base(api_url, repo),
            )
        });
        if let Some(tag) = tag {
            return github::get_release_for_url_with_versions_host(api_url, repo, &tag, true).await;
        }
        let tags = opts.tag_filter()?;
        let mut first_release = None;
        let mut not_found = None;
        for candidate in tag_candidates(version, opts.version_prefix(), Some(repo))
            .into_iter()
            .filter(|candidate| tags.allows(candidate))
        {
            match github::get_release_for_url_with_versions_host(api_url, repo, &candidate, true)
                .await
            {
                Ok(release) if release.assets.iter().any(|a| a.name == asset.name) => {
                    return Ok(release);
                }
                Ok(release) => {
                    first_release.get_or_insert(release);
                }
                Err(e) if e.is_not_found() => not_found = Some(e),
                Err(e) => return first_release.ok_or(e),
            }
        }
        first_release.ok_or_else(|| {
            not_found.unwrap_or_else(|| eyre::eyre!("No matching release found for {version}"))
        })
    }

    /// Detect what provenance type is available for a release by checking its assets
    /// and querying the GitHub attestation API.
    async fn detect_provenance_type(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        asset: &ReleaseAsset,
        target: &PlatformTarget,
        explicit_pattern: bool,
    ) -> Result<Option<ProvenanceType>> {
        let repo = self.repo();
        let api_url = opts.api_url();
        let settings = Settings::get();
        let version = &tv.version;

        let signer_pinned = settings.slsa && settings.github.slsa && opts.slsa_signer().is_some();
        let release = match self
            .release_for_asset(&api_url, &repo, version, opts, asset)
            .await
        {
            Ok(release) => release,
            // A tool that names its SLSA signer keeps that requirement when the
            // release can't be looked up (a direct `url` skips the lookup during
            // asset selection): lock-time verification then has to succeed, instead
            // of a checksum-only entry that later installs would trust.
            Err(e) if signer_pinned => {
                debug!("release lookup failed for {tv}, still requiring SLSA provenance: {e}");
                return Ok(Some(ProvenanceType::Slsa { url: None }));
            }
            Err(_) => return Ok(None),
        };

        // Check github-attestations first (higher priority, matching install verification order)
        // Uses the asset digest from the GitHub API to query attestations without downloading
        if settings.github_attestations
            && settings.github.github_attestations
            && opts.github_attestations()
            && attestations_supported(&api_url)
            && let Some(digest) = asset.digest.as_deref()
        {
            let parts: Vec<&str> = repo.split('/').collect();
            if parts.len() == 2 {
                let (owner, repo_name) = (parts[0], parts[1]);
                match crate::github::sigstore::detect_attestations(
                    owner, repo_name, &api_url, digest, true,
                )
                .await
                {
                    Ok(true) => return Ok(Some(ProvenanceType::GithubAttestations)),
                    Ok(false) => {}
                    Err(crate::github::sigstore::DetectError::SourceCreation(e)) => {
                        if !settings.provenance_api_failures_fatal
                            && crate::github::sigstore::is_api_failure(&e)
                        {
                            warn!(
                                "failed to create GitHub attestation source for {owner}/{repo_name}, skipping attestation provenance: {e}"
                            );
                        } else {
                            return Err(eyre::eyre!(
                                "failed to create GitHub attestation source for {owner}/{repo_name}: {e}"
                            ));
                        }
                    }
                    Err(crate::github::sigstore::DetectError::Fetch(e)) => {
                        if !settings.provenance_api_failures_fatal
                            && crate::github::sigstore::is_api_failure(&e)
                        {
                            warn!(
                                "GitHub attestation API query failed for {owner}/{repo_name}, skipping attestation provenance: {e}"
                            );
                        } else {
                            return Err(eyre::eyre!(
                                "GitHub attestation API query failed for {owner}/{repo_name}: {e}"
                            ));
                        }
                    }
                }
            }
        }

        // Check for SLSA provenance from release assets using the same platform-aware
        // picker as install-time verification. This ensures we only record SLSA provenance
        // when a matching provenance file exists for the target platform.
        if signer_pinned {
            let asset_names: Vec<String> = release.assets.iter().map(|a| a.name.clone()).collect();
            // Narrow provenance the same way the binary is narrowed, so a
            // multi-binary release's per-binary provenance files don't
            // cross-verify the wrong digest. Suppressed when `asset_pattern` is
            // set (it selects the binary, ignoring `matching`).
            let (matching, matching_regex) = opts.matching_for_provenance(target, explicit_pattern);
            let picker = AssetPicker::with_libc(
                target.os_name().to_string(),
                target.arch_name().to_string(),
                target.qualifier().map(|s| s.to_string()),
            )
            .with_matching(matching.unwrap_or_default())
            .with_matching_regex(matching_regex.unwrap_or_default());
            if let Some(provenance_name) = pick_slsa_provenance(&picker, &asset_names, &asset.name)
            {
                let url = release
                    .assets
                    .iter()
                    .find(|a| a.name == provenance_name)
                    .map(|a| a.browser_download_url.clone());
                return Ok(Some(ProvenanceType::Slsa { url }));
            }
            // The tool names its signer, so a release without provenance must not be
            // locked on its checksum alone (a later install would trust that entry).
            // Let lock-time verification decide: it still accepts GitHub attestations
            // the digest lookup above could not see, and refuses everything else.
            return Ok(Some(ProvenanceType::Slsa { url: None }));
        }

        Ok(None)
    }

    /// Verify provenance at lock time by downloading the artifact to a temp directory
    /// and running cryptographic verification. Only called for the current platform
    /// during `mise lock`.
    async fn verify_provenance_at_lock_time(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        asset: &mut ReleaseAsset,
        target: &PlatformTarget,
        verification: AssetVerification,
    ) -> Result<Option<ProvenanceType>> {
        let repo = self.repo();
        let api_url = opts.api_url();
        let tmp_dir = tempfile::tempdir()?;
        let filename = get_filename_from_url(&asset.url);
        let artifact_path = tmp_dir.path().join(&filename);

        info!(
            "downloading artifact for lock-time provenance verification: {}",
            filename
        );

        let download_url = asset_download_url(asset).await;
        let headers = if self.is_gitlab() {
            gitlab::get_headers(&download_url, &api_url)?
        } else if self.is_forgejo() {
            forgejo::get_headers(&download_url, &api_url)?
        } else {
            github::get_headers(&download_url, &api_url)?
        };
        HTTP.download_file_with_headers(&download_url, &artifact_path, &headers, None)
            .await?;

        if let Some((algorithm, expected)) = asset
            .digest
            .as_deref()
            .and_then(|digest| digest.split_once(':'))
        {
            crate::hash::ensure_checksum(&artifact_path, expected, None, algorithm)?;
        }
        asset.digest = Some(format!(
            "sha256:{}",
            crate::hash::file_hash_sha256(&artifact_path, None)?
        ));

        let settings = Settings::get();

        // Try GitHub artifact attestations first (highest priority)
        if settings.github_attestations
            && settings.github.github_attestations
            && opts.github_attestations()
            && attestations_supported(&api_url)
        {
            let parts: Vec<&str> = repo.split('/').collect();
            if parts.len() == 2 {
                let (owner, repo_name) = (parts[0], parts[1]);
                match crate::github::sigstore::verify_attestation(
                    &artifact_path,
                    owner,
                    repo_name,
                    None,
                    Some(&api_url),
                    true,
                )
                .await
                {
                    Ok(true) => {
                        debug!("lock-time GitHub attestations verified for {}", repo);
                        return Ok(Some(ProvenanceType::GithubAttestations));
                    }
                    Ok(false) => {
                        return Err(eyre::eyre!(
                            "GitHub artifact attestations verification returned false"
                        ));
                    }
                    Err(crate::github::sigstore::AttestationError::NoAttestations) => {
                        debug!("no GitHub attestations found at lock time, trying SLSA");
                    }
                    Err(e) => {
                        return Err(eyre::eyre!(
                            "GitHub artifact attestations verification failed: {e}"
                        ));
                    }
                }
            }
        }

        // Fall back to SLSA provenance
        if settings.slsa
            && settings.github.slsa
            && let Some((identity, issuer)) = opts.slsa_signer_for(tv)
        {
            let version = &tv.version;
            let release = self
                .release_for_asset(&api_url, &repo, version, opts, asset)
                .await?;
            let signer = crate::github::sigstore::SlsaSignerIdentity {
                identity: &identity,
                issuer: &issuer,
                source_repository: Some(&repo),
                source_tag: self.slsa_source_tag(tv, opts, &release),
            };

            let asset_names: Vec<String> = release.assets.iter().map(|a| a.name.clone()).collect();
            // Keep provenance aligned with the matching-selected binary, unless
            // `asset_pattern` is set (it selects the binary, ignoring `matching`).
            let (matching, matching_regex) =
                opts.matching_for_provenance(target, verification.explicit_pattern);
            let picker = AssetPicker::with_libc(
                target.os_name().to_string(),
                target.arch_name().to_string(),
                target.qualifier().map(|s| s.to_string()),
            )
            .with_matching(matching.unwrap_or_default())
            .with_matching_regex(matching_regex.unwrap_or_default());

            if let Some(provenance_name) = pick_slsa_provenance(&picker, &asset_names, &asset.name)
            {
                let provenance_asset = release
                    .assets
                    .iter()
                    .find(|a| a.name == provenance_name)
                    .expect("provenance asset should exist since we found its name");

                // Under a fixed name in a directory of its own: the release chooses the
                // asset's name, which may equal the artifact's or climb out with `..`.
                let provenance_dir = tempfile::tempdir_in(tmp_dir.path())?;
                let provenance_path = provenance_dir.path().join("provenance");
                HTTP.download_file(
                    &provenance_asset.browser_download_url,
                    &provenance_path,
                    None,
                )
                .await?;

                let provenance_url = provenance_asset.browser_download_url.clone();
                match crate::github::sigstore::verify_slsa_provenance(
                    &artifact_path,
                    &provenance_path,
                    1u8,
                    signer,
                )
                .await
                {
                    Ok(true) => {
                        debug!("lock-time SLSA provenance verified for {}", repo);
                        return Ok(Some(ProvenanceType::Slsa {
                            url: Some(provenance_url),
                        }));
                    }
                    Ok(false) => {
                        return Err(eyre::eyre!("SLSA provenance verification failed"));
                    }
                    Err(e) => {
                        if crate::github::sigstore::is_slsa_subject_mismatch(&e) {
                            debug!(
                                "lock-time SLSA provenance did not cover downloaded artifact for {}; trying archive content subjects: {e}",
                                repo
                            );
                            match self
                                .try_verify_slsa_archive_contents(
                                    tv,
                                    &artifact_path,
                                    &provenance_path,
                                    verification.additional_overlay,
                                    signer,
                                )
                                .await
                            {
                                Ok(true) => {
                                    debug!(
                                        "lock-time SLSA provenance verified archive contents for {}",
                                        repo
                                    );
                                    return Ok(Some(ProvenanceType::Slsa {
                                        url: Some(provenance_url),
                                    }));
                                }
                                Ok(false) => {
                                    return Err(eyre::eyre!(
                                        "SLSA archive content verification failed"
                                    ));
                                }
                                Err(content_err) => {
                                    return Err(eyre::eyre!(
                                        "SLSA archive content verification error: {content_err}"
                                    ));
                                }
                            }
                        } else if is_slsa_format_issue(&e) {
                            debug!("SLSA provenance file not in verifiable format: {e}");
                        } else {
                            return Err(eyre::eyre!("SLSA verification error: {e}"));
                        }
                    }
                }
            }
        }

        if settings.slsa && settings.github.slsa && opts.slsa_signer().is_some() {
            return Err(slsa_provenance_missing_error(tv, &asset.name));
        }
        Err(eyre::eyre!(
            "provenance was detected but could not be verified at lock time"
        ))
    }

    fn is_gitlab(&self) -> bool {
        self.ba.backend_type() == BackendType::Gitlab
    }

    fn is_forgejo(&self) -> bool {
        self.ba.backend_type() == BackendType::Forgejo
    }

    /// Web URL for the repository, derived from the API URL so an enterprise
    /// host resolves to its own front end rather than the public one.
    ///
    /// Shared by the version listing and the stable-latest shortcut, which have
    /// to agree: a release reached through one and then described by the other
    /// would otherwise be handed two different URLs.
    fn web_url_base(&self, api_url: &str, repo: &str) -> String {
        if self.is_gitlab() {
            if api_url == DEFAULT_GITLAB_API_BASE_URL {
                format!("https://gitlab.com/{repo}")
            } else {
                // Enterprise GitLab - derive web URL from API URL
                let web_url = api_url.replace("/api/v4", "");
                format!("{web_url}/{repo}")
            }
        } else if self.is_forgejo() {
            if api_url == DEFAULT_FORGEJO_API_BASE_URL {
                format!("https://codeberg.org/{repo}")
            } else {
                // Enterprise Forgejo - derive web URL from API URL
                let web_url = api_url.replace("/api/v1", "");
                format!("{web_url}/{repo}")
            }
        } else if api_url == DEFAULT_GITHUB_API_BASE_URL {
            format!("https://github.com/{repo}")
        } else {
            // Enterprise GitHub - derive web URL from API URL
            let web_url = api_url.replace("/api/v3", "").replace("api.", "");
            format!("{web_url}/{repo}")
        }
    }

    fn repo(&self) -> String {
        // Use tool_name() method to properly resolve aliases
        // This ensures that when an alias like "test-edit = github:microsoft/edit" is used,
        // the repository name is correctly extracted as "microsoft/edit"
        self.ba.tool_name()
    }

    /// The tag the versions host's list records for `version`, tried before
    /// any guessed spelling: `cli-2.6.0` is not `vcli-2.6.0`, and `6.6.2` is
    /// not `v6.6.2`. Accepted only when these options list the tag as
    /// `version`, which is how `_list_remote_versions` names its releases.
    async fn listed_release_tag(
        &self,
        opts: &GitBackendOptions<'_>,
        version: &str,
    ) -> Option<String> {
        if self.is_gitlab() || self.is_forgejo() {
            return None;
        }
        let config = Config::get().await.ok()?;
        let url = self.listed_release_url(&config, version).await?;
        let web_url_base = self.web_url_base(&opts.api_url(), &self.repo());
        let tag = crate::backend::release_tag_from_url(&url, &web_url_base)?;
        let listed = opts.tag_filter().ok()?.lists(&tag);
        (listed && self.strip_version_prefix(&tag, opts) == version).then_some(tag)
    }

    fn preferred_asset_name(&self) -> String {
        self.repo()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    // Helper to format asset names for error messages
    fn format_asset_list<'a, I>(assets: I) -> String
    where
        I: Iterator<Item = &'a String>,
    {
        assets.cloned().collect::<Vec<_>>().join(", ")
    }

    /// Downloads and installs the asset
    async fn download_and_install(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        asset: &ReleaseAsset,
        opts: &GitBackendOptions<'_>,
    ) -> Result<()> {
        let filename = asset.name.clone();
        ensure_plain_asset_name(&filename)?;
        let file_path = tv.download_path().join(&filename);

        // Store the asset URL and digest (if available) in the tool version
        let platform_key = self.get_platform_key();
        let lockfile_has_checksum = tv
            .lock_platforms
            .get(&platform_key)
            .is_some_and(|p| p.checksum.is_some());
        // Read before the asset's digest is recorded below.
        let pinned = pinned_checksum(tv, &platform_key, opts.raw());
        let platform_info = tv.lock_platforms.entry(platform_key).or_default();
        let pinned = record_release_asset(platform_info, asset, pinned);

        let url = asset_download_url(asset).await;

        let headers = if self.is_gitlab() {
            gitlab::get_headers(&url, &opts.api_url())?
        } else if self.is_forgejo() {
            forgejo::get_headers(&url, &opts.api_url())?
        } else {
            github::get_headers(&url, &opts.api_url())?
        };

        ctx.pr.set_message(format!("download {filename}"));
        HTTP.download_file_linked(
            url,
            &file_path,
            &headers,
            pinned.as_deref(),
            Some(ctx.pr.as_ref()),
        )
        .await?;

        // Verify and install
        ctx.pr.next_operation();
        // Keep this unconditional: verify_artifact checks the `checksum` and
        // `size` options independently, so gating it on one skips the other.
        verify_artifact(tv, &file_path, opts.raw(), Some(ctx.pr.as_ref()))?;

        // Check before verify_checksum, which may generate a new checksum from the
        // downloaded file. Reuse non-SLSA provenance only when the lockfile had
        // integrity data before this install; SLSA checks the current signer.
        let platform_key = self.get_platform_key();
        let recorded_provenance = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|platform| platform.provenance.clone());
        let required = self.registry_required_provenance(tv, opts);
        let has_lockfile_integrity = tv
            .lock_platforms
            .get(&platform_key)
            .is_some_and(PlatformInfo::has_checksum_and_provenance)
            && locked_provenance_satisfies(recorded_provenance.as_ref(), required.as_ref());
        let locked_provenance = expected_install_provenance(recorded_provenance, required);

        if let Err(err) = self.verify_checksum(ctx, tv, &file_path) {
            return Err(github::with_checksum_mismatch_note(
                err,
                &asset.url,
                &file_path,
                lockfile_has_checksum,
            )
            .await);
        }

        let settings = Settings::get();
        let force_verify = settings.force_provenance_verify();
        // `has_lockfile_integrity` also counts a checksum taken from the release API above;
        // only a checksum the lockfile already had may stand in for verification.
        if lockfile_has_checksum && has_lockfile_integrity && !force_verify {
            // Still check that the recorded provenance type's setting is enabled —
            // disabling a verification setting with a provenance-bearing lockfile is a downgrade.
            self.ensure_provenance_setting_enabled(tv, &platform_key)?;
        } else if !force_verify && locked_provenance.is_none() && lockfile_has_checksum {
            debug!(
                "skipping provenance detection for {} \
                 (lockfile has checksum but no provenance)",
                tv.style()
            );
        } else {
            let provenance_result = self
                .verify_attestations_or_slsa(
                    ctx,
                    tv,
                    &file_path,
                    asset,
                    locked_provenance.as_ref(),
                    AssetVerification::primary(
                        opts.asset_pattern_for_target(&PlatformTarget::from_current())
                            .is_some(),
                    ),
                )
                .await?;

            // Record provenance verification result in lock_platforms
            if provenance_result.is_some() {
                let platform_info = tv.lock_platforms.entry(platform_key).or_default();
                platform_info.provenance = provenance_result;
                platform_info.github_attestations = None;
            }
        }

        ctx.pr.next_operation();
        install_artifact(
            tv,
            &file_path,
            opts.raw(),
            ArchiveLayout::Guessed,
            Some(ctx.pr.as_ref()),
        )?;

        if let Some(bins) = opts.filter_bins() {
            self.create_symlink_bin_dir(tv, bins)?;
        }

        Ok(())
    }

    async fn download_verify_and_install_additional_asset(
        &self,
        ctx: &InstallContext,
        tv: &mut ToolVersion,
        asset: &ReleaseAsset,
        opts: &GitBackendOptions<'_>,
        index: usize,
    ) -> Result<()> {
        let filename = asset.name.clone();
        ensure_plain_asset_name(&filename)?;
        let file_path = tv.download_path().join(&filename);
        let platform_key = self.get_platform_key();
        let mut artifact_info = tv
            .lock_platforms
            .get(&platform_key)
            .and_then(|platform| platform.additional_artifacts.get(index))
            .cloned()
            .unwrap_or_default();
        let lockfile_has_checksum = artifact_info.checksum.is_some();
        let required = self.registry_required_provenance(tv, opts);
        let has_lockfile_integrity = artifact_info.has_checksum_and_provenance()
            && locked_provenance_satisfies(artifact_info.provenance.as_ref(), required.as_ref());
        artifact_info.url = asset.url.clone();
        artifact_info.url_api = (!asset.url_api.is_empty()).then(|| asset.url_api.clone());
        if let Some(digest) = &asset.digest
            && !lockfile_has_checksum
        {
            artifact_info.checksum = Some(digest.clone());
        }

        let url = asset_download_url(asset).await;
        let headers = if self.is_gitlab() {
            gitlab::get_headers(&url, &opts.api_url())?
        } else if self.is_forgejo() {
            forgejo::get_headers(&url, &opts.api_url())?
        } else {
            github::get_headers(&url, &opts.api_url())?
        };

        ctx.pr.set_message(format!("download {filename}"));
        HTTP.download_file_with_headers(url, &file_path, &headers, Some(ctx.pr.as_ref()))
            .await?;
        ctx.pr.next_operation();

        if let Err(err) =
            self.verify_additional_artifact_checksum(ctx, &file_path, &mut artifact_info)
        {
            return Err(github::with_checksum_mismatch_note(
                err,
                &asset.url,
                &file_path,
                lockfile_has_checksum,
            )
            .await);
        }
        let expected_provenance =
            expected_install_provenance(artifact_info.provenance.clone(), required);
        if has_lockfile_integrity && !Settings::get().force_provenance_verify() {
            if let Some(provenance) = expected_provenance.as_ref() {
                self.ensure_provenance_type_setting_enabled(tv, opts, provenance)?;
            }
        } else if !Settings::get().force_provenance_verify()
            && expected_provenance.is_none()
            && lockfile_has_checksum
        {
            debug!(
                "skipping provenance detection for additional asset {} \
                 (lockfile has checksum but no provenance)",
                asset.name
            );
        } else {
            let provenance = self
                .verify_attestations_or_slsa(
                    ctx,
                    tv,
                    &file_path,
                    asset,
                    expected_provenance.as_ref(),
                    AssetVerification::ADDITIONAL,
                )
                .await?;
            if provenance.is_some() {
                artifact_info.provenance = provenance;
            }
        }

        let platform = tv.lock_platforms.entry(platform_key).or_default();
        if platform.additional_artifacts.len() <= index {
            platform
                .additional_artifacts
                .resize_with(index + 1, ArtifactInfo::default);
        }
        platform.additional_artifacts[index] = artifact_info;

        ctx.pr.next_operation();
        self.install_additional_archive(&tv.install_path(), &file_path, Some(ctx.pr.as_ref()))?;

        if let Some(bins) = opts.filter_bins() {
            self.create_symlink_bin_dir(tv, bins)?;
        }
        Ok(())
    }

    fn verify_additional_artifact_checksum(
        &self,
        ctx: &InstallContext,
        file_path: &Path,
        artifact: &mut ArtifactInfo,
    ) -> Result<()> {
        let filename = file_path.file_name().unwrap_or_default().to_string_lossy();
        if let Some(checksum) = &artifact.checksum {
            ctx.pr.set_message(format!("checksum {filename}"));
            let Some((algorithm, expected)) = checksum.split_once(':') else {
                eyre::bail!("Invalid checksum: {checksum}");
            };
            crate::hash::ensure_checksum(file_path, expected, Some(ctx.pr.as_ref()), algorithm)?;
        } else if Settings::get().lockfile_enabled() {
            ctx.pr.set_message(format!("generate checksum {filename}"));
            let hash = crate::hash::file_hash_blake3(file_path, Some(ctx.pr.as_ref()))?;
            artifact.checksum = Some(format!("blake3:{hash}"));
        }

        if let Some(expected_size) = artifact.size {
            let actual_size = file_path.metadata()?.len();
            if actual_size != expected_size {
                eyre::bail!(
                    "Size mismatch for {}: expected {}, got {}",
                    filename,
                    expected_size,
                    actual_size
                );
            }
        } else if Settings::get().lockfile_enabled() {
            artifact.size = Some(file_path.metadata()?.len());
        }
        Ok(())
    }

    fn install_additional_archive(
        &self,
        install_path: &Path,
        file_path: &Path,
        pr: Option<&dyn crate::ui::progress_report::SingleReport>,
    ) -> Result<()> {
        let format = file::ExtractionFormat::from_file_name(
            &file_path.file_name().unwrap_or_default().to_string_lossy(),
        );
        if !format.is_archive() {
            eyre::bail!(
                "additional asset '{}' is not an archive",
                file_path.display()
            );
        }
        let extract_opts = file::ExtractOptions {
            pr,
            ..Default::default()
        };
        file::extract_archive(file_path, install_path, format, &extract_opts)?;
        file::ensure_symlinks_stay_within(install_path)
    }

    /// Discovers bin paths in the installation directory
    fn discover_bin_paths(&self, tv: &ToolVersion) -> Result<Vec<std::path::PathBuf>> {
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        if let Some(bin_path_template) = opts.bin_path() {
            let bin_path = render_bin_path(&bin_path_template, tv)?;
            return Ok(vec![tv.install_path().join(&bin_path)]);
        }

        let bin_path = tv.install_path().join("bin");
        if bin_path.exists() {
            return Ok(vec![bin_path]);
        }

        // Check for macOS .app bundle structure at root (happens when auto-strip removed .app wrapper)
        // Look for Contents/MacOS/ which indicates a stripped .app bundle
        let contents_macos = tv.install_path().join("Contents").join("MacOS");
        if contents_macos.is_dir() {
            return Ok(vec![contents_macos]);
        }

        // Check if the root directory contains an executable file
        // If so, use the root directory as a bin path
        if let Ok(entries) = std::fs::read_dir(tv.install_path()) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_file() && file::is_executable(&path) {
                    return Ok(vec![tv.install_path()]);
                }
            }
        }

        // Look for bin directory or executables in subdirectories (for extracted archives)
        let mut paths = Vec::new();
        if let Ok(entries) = std::fs::read_dir(tv.install_path()) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    // Check for macOS .app bundles (e.g., SwiftFormat.app/Contents/MacOS/)
                    let path_str = path.file_name().unwrap_or_default().to_string_lossy();
                    if path_str.ends_with(".app") {
                        let macos_dir = path.join("Contents").join("MacOS");
                        if macos_dir.is_dir() {
                            paths.push(macos_dir);
                            continue;
                        }
                    }
                    // Check for {subdir}/bin
                    let sub_bin_path = path.join("bin");
                    if sub_bin_path.exists() {
                        paths.push(sub_bin_path);
                    } else {
                        // Check for executables directly in subdir (e.g., tusd_darwin_arm64/tusd)
                        if let Ok(sub_entries) = std::fs::read_dir(&path) {
                            for sub_entry in sub_entries.flatten() {
                                let sub_path = sub_entry.path();
                                if sub_path.is_file() && file::is_executable(&sub_path) {
                                    paths.push(path.clone());
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }

        if paths.is_empty() {
            Ok(vec![tv.install_path()])
        } else {
            Ok(paths)
        }
    }

    /// Resolves the asset URL using either explicit patterns or auto-detection.
    /// Delegates to resolve_asset_url_for_target with the current platform.
    async fn resolve_asset_url(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
    ) -> Result<ReleaseAsset> {
        let current_platform = PlatformTarget::from_current();
        self.resolve_asset_url_for_target(tv, opts, repo, &current_platform)
            .await
    }

    /// Resolves asset URL for a specific target platform (for cross-platform lockfile generation)
    async fn resolve_asset_url_for_target(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
        target: &PlatformTarget,
    ) -> Result<ReleaseAsset> {
        self.resolve_asset_url_for_target_with_pattern(tv, opts, repo, target, None)
            .await
    }

    async fn resolve_asset_url_for_target_with_pattern(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
        target: &PlatformTarget,
        asset_pattern: Option<&str>,
    ) -> Result<ReleaseAsset> {
        // Check for direct platform-specific URLs first
        if asset_pattern.is_none()
            && let Some(direct_url) = opts.direct_url_for_target(target)
        {
            let direct_url = template_string_for_target(&direct_url, tv, target);
            return Ok(ReleaseAsset {
                name: get_filename_from_url(&direct_url),
                url: direct_url.clone(),
                url_api: direct_url.clone(),
                digest: None, // Direct URLs don't have API digest
                release_tag: None,
            });
        }

        let version = &tv.version;
        let version_prefix = opts.version_prefix();
        let tags = opts.tag_filter()?;
        let allowed = |tag: &str| tags.allows(tag);
        if self.is_gitlab() {
            try_allowed_release_tags(
                version,
                version_prefix,
                None,
                None,
                None,
                allowed,
                |candidate| async move {
                    self.resolve_gitlab_asset_url_for_target(
                        tv,
                        opts,
                        repo,
                        &candidate,
                        target,
                        asset_pattern,
                    )
                    .await
                },
            )
            .await
        } else if self.is_forgejo() {
            try_allowed_release_tags(
                version,
                version_prefix,
                None,
                None,
                None,
                allowed,
                |candidate| async move {
                    self.resolve_forgejo_asset_url_for_target(
                        tv,
                        opts,
                        repo,
                        &candidate,
                        target,
                        asset_pattern,
                    )
                    .await
                },
            )
            .await
        } else {
            // Pass full repo for trying reponame@version formats
            let listed_tag = self.listed_release_tag(opts, version).await;
            let api_url = opts.api_url();
            try_allowed_release_tags(
                version,
                version_prefix,
                Some(repo),
                Some(&api_url),
                listed_tag.as_deref(),
                allowed,
                |candidate| async move {
                    self.resolve_github_asset_url_for_target(
                        tv,
                        opts,
                        repo,
                        &candidate,
                        target,
                        asset_pattern,
                    )
                    .await
                },
            )
            .await
        }
    }

    /// Resolves GitHub asset URL for a specific target platform
    async fn resolve_github_asset_url_for_target(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
        version: &str,
        target: &PlatformTarget,
        asset_pattern: Option<&str>,
    ) -> Result<ReleaseAsset> {
        let api_url = opts.api_url();
        let release = self
            .get_github_release_for_url(&api_url, repo, version)
            .await?;
        let available_assets: Vec<String> = release.assets.iter().map(|a| a.name.clone()).collect();

        // Build asset list with URLs for checksum fetching
        let assets_with_urls: Vec<Asset> = release
            .assets
            .iter()
            .map(|a| Asset::new(&a.name, &a.browser_download_url))
            .collect();

        // Try explicit pattern first. `asset_pattern` replaces autodetection
        // entirely, so it intentionally takes precedence over and ignores
        // `matching`/`matching_regex` (there is no autodetected candidate set left
        // to narrow). Do NOT thread the matching filter into this branch.
        if let Some(pattern) = asset_pattern
            .map(str::to_string)
            .or_else(|| opts.asset_pattern_for_target(target))
        {
            // Template the pattern for the target platform
            let templated_pattern = template_string_for_target(&pattern, tv, target);

            let asset = self
                .pick_by_pattern(release.assets, &templated_pattern, |a| &a.name)
                .ok_or_else(|| {
                    eyre::eyre!(
                        "No matching asset found for pattern: {}\nAvailable assets: {}",
                        templated_pattern,
                        Self::format_asset_list(available_assets.iter())
                    )
                })?;

            // Try to get checksum from API digest or fetch from release assets
            let digest = if asset.digest.is_some() {
                asset.digest
            } else {
                self.try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
                    .await
            };

            return Ok(ReleaseAsset {
                name: asset.name,
                url: asset.browser_download_url,
                url_api: asset.url,
                digest,
                release_tag: Some(version.to_string()),
            });
        }

        // Fall back to auto-detection for target platform
        let asset_name = asset_matcher::AssetMatcher::new()
            .for_target(target)
            .with_no_app(opts.no_app_for_target(target))
            .with_preferred_name(self.preferred_asset_name())
            .with_matching(opts.matching().unwrap_or_default())
            .with_matching_regex(opts.matching_regex().unwrap_or_default())
            .pick_from(&available_assets)?
            .name;
        let asset = self
            .find_asset_case_insensitive(&release.assets, &asset_name, |a| &a.name)
            .ok_or_else(|| {
                eyre::eyre!(
                    "Auto-detected asset not found: {}\nAvailable assets: {}",
                    asset_name,
                    Self::format_asset_list(available_assets.iter())
                )
            })?;

        // Try to get checksum from API digest or fetch from release assets
        let digest = if asset.digest.is_some() {
            asset.digest.clone()
        } else {
            self.try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
                .await
        };

        Ok(ReleaseAsset {
            name: asset.name.clone(),
            url: asset.browser_download_url.clone(),
            url_api: asset.url.clone(),
            digest,
            release_tag: Some(version.to_string()),
        })
    }

    /// Resolves GitLab asset URL for a specific target platform
    async fn resolve_gitlab_asset_url_for_target(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
        version: &str,
        target: &PlatformTarget,
        asset_pattern: Option<&str>,
    ) -> Result<ReleaseAsset> {
        let api_url = opts.api_url();
        let release = gitlab::get_release_for_url(&api_url, repo, version).await?;
        let available_assets: Vec<String> = release
            .assets
            .links
            .iter()
            .map(|a| a.name.clone())
            .collect();

        // Build asset list with URLs for checksum fetching
        let assets_with_urls: Vec<Asset> = release
            .assets
            .links
            .iter()
            .map(|a| Asset::new(&a.name, &a.direct_asset_url))
            .collect();

        // Try explicit pattern first. `asset_pattern` replaces autodetection
        // entirely, so it intentionally takes precedence over and ignores
        // `matching`/`matching_regex` (there is no autodetected candidate set left
        // to narrow). Do NOT thread the matching filter into this branch.
        if let Some(pattern) = asset_pattern
            .map(str::to_string)
            .or_else(|| opts.asset_pattern_for_target(target))
        {
            // Template the pattern for the target platform
            let templated_pattern = template_string_for_target(&pattern, tv, target);

            let asset = self
                .pick_by_pattern(release.assets.links, &templated_pattern, |a| &a.name)
                .ok_or_else(|| {
                    eyre::eyre!(
                        "No matching asset found for pattern: {}\nAvailable assets: {}",
                        templated_pattern,
                        Self::format_asset_list(available_assets.iter())
                    )
                })?;

            // GitLab doesn't provide digests, so try fetching from release assets
            let digest = self
                .try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
                .await;

            return Ok(ReleaseAsset {
                name: asset.name,
                url: asset.direct_asset_url.clone(),
                url_api: asset.url,
                digest,
                release_tag: None,
            });
        }

        // Fall back to auto-detection for target platform
        let asset_name = asset_matcher::AssetMatcher::new()
            .for_target(target)
            .with_no_app(opts.no_app_for_target(target))
            .with_preferred_name(self.preferred_asset_name())
            .with_matching(opts.matching().unwrap_or_default())
            .with_matching_regex(opts.matching_regex().unwrap_or_default())
            .pick_from(&available_assets)?
            .name;
        let asset = self
            .find_asset_case_insensitive(&release.assets.links, &asset_name, |a| &a.name)
            .ok_or_else(|| {
                eyre::eyre!(
                    "Auto-detected asset not found: {}\nAvailable assets: {}",
                    asset_name,
                    Self::format_asset_list(available_assets.iter())
                )
            })?;

        // GitLab doesn't provide digests, so try fetching from release assets
        let digest = self
            .try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
            .await;

        Ok(ReleaseAsset {
            name: asset.name.clone(),
            url: asset.direct_asset_url.clone(),
            url_api: asset.url.clone(),
            digest,
            release_tag: None,
        })
    }

    /// Resolves Forgejo asset URL for a specific target platform
    async fn resolve_forgejo_asset_url_for_target(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        repo: &str,
        version: &str,
        target: &PlatformTarget,
        asset_pattern: Option<&str>,
    ) -> Result<ReleaseAsset> {
        let api_url = opts.api_url();
        let release = forgejo::get_release_for_url(&api_url, repo, version).await?;
        let available_assets: Vec<String> = release.assets.iter().map(|a| a.name.clone()).collect();

        // Build asset list with URLs for checksum fetching
        let assets_with_urls: Vec<Asset> = release
            .assets
            .iter()
            .map(|a| Asset::new(&a.name, &a.browser_download_url))
            .collect();

        // Helper to build API attachment URL
        let asset_url_api = |asset_uuid: &str| {
            format!(
                "{}/attachments/{}",
                api_url.replace("/api/v1", ""),
                asset_uuid
            )
        };

        // Try explicit pattern first. `asset_pattern` replaces autodetection
        // entirely, so it intentionally takes precedence over and ignores
        // `matching`/`matching_regex` (there is no autodetected candidate set left
        // to narrow). Do NOT thread the matching filter into this branch.
        if let Some(pattern) = asset_pattern
            .map(str::to_string)
            .or_else(|| opts.asset_pattern_for_target(target))
        {
            // Template the pattern for the target platform
            let templated_pattern = template_string_for_target(&pattern, tv, target);

            let asset = self
                .pick_by_pattern(release.assets, &templated_pattern, |a| &a.name)
                .ok_or_else(|| {
                    eyre::eyre!(
                        "No matching asset found for pattern: {}\nAvailable assets: {}",
                        templated_pattern,
                        Self::format_asset_list(available_assets.iter())
                    )
                })?;

            // Try to get checksum from API digest or fetch from release assets
            let digest = self
                .try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
                .await;

            return Ok(ReleaseAsset {
                name: asset.name,
                url: asset.browser_download_url,
                url_api: asset_url_api(&asset.uuid),
                digest,
                release_tag: None,
            });
        }

        // Fall back to auto-detection for target platform
        let asset_name = asset_matcher::AssetMatcher::new()
            .for_target(target)
            .with_no_app(opts.no_app_for_target(target))
            .with_preferred_name(self.preferred_asset_name())
            .with_matching(opts.matching().unwrap_or_default())
            .with_matching_regex(opts.matching_regex().unwrap_or_default())
            .pick_from(&available_assets)?
            .name;
        let asset = self
            .find_asset_case_insensitive(&release.assets, &asset_name, |a| &a.name)
            .ok_or_else(|| {
                eyre::eyre!(
                    "Auto-detected asset not found: {}\nAvailable assets: {}",
                    asset_name,
                    Self::format_asset_list(available_assets.iter())
                )
            })?;

        // Try to get checksum from API digest or fetch from release assets
        let digest = self
            .try_fetch_checksum_from_assets(&assets_with_urls, &asset.name)
            .await;

        Ok(ReleaseAsset {
            name: asset.name.clone(),
            url: asset.browser_download_url.clone(),
            url_api: asset_url_api(&asset.uuid),
            digest,
            release_tag: None,
        })
    }

    fn find_asset_case_insensitive<'a, T>(
        &self,
        assets: &'a [T],
        target_name: &str,
        get_name: impl Fn(&T) -> &str,
    ) -> Option<&'a T> {
        // First try exact match, then case-insensitive
        assets
            .iter()
            .find(|a| get_name(a) == target_name)
            .or_else(|| {
                let target_lower = target_name.to_lowercase();
                assets
                    .iter()
                    .find(|a| get_name(a).to_lowercase() == target_lower)
            })
    }

    /// Picks the best asset from `assets` whose name matches `pattern`.
    ///
    /// When a pattern matches more than one asset (e.g. `*linux*64` matching both
    /// `cloudflared-linux-amd64` and `cloudflared-fips-linux-amd64`), prefer the
    /// shortest name, then lexicographic order for determinism. Mirrors the
    /// tiebreaker used by auto-detection.
    /// See: https://github.com/jdx/mise/discussions/9358
    fn pick_by_pattern<T, I, F>(&self, assets: I, pattern: &str, name_of: F) -> Option<T>
    where
        I: IntoIterator<Item = T>,
        F: Fn(&T) -> &str,
    {
        // Compile the regex once instead of recompiling per asset.
        let regex_pattern = pattern
            .replace(".", "\\.")
            .replace("*", ".*")
            .replace("?", ".");
        let re = Regex::new(&format!("^{regex_pattern}$")).ok();

        assets
            .into_iter()
            .filter(|a| {
                let name = name_of(a);
                match &re {
                    Some(re) => re.is_match(name),
                    None => name.contains(pattern),
                }
            })
            .min_by(|a, b| {
                let na = name_of(a);
                let nb = name_of(b);
                na.len().cmp(&nb.len()).then_with(|| na.cmp(nb))
            })
    }

    /// The tag SLSA provenance for `tv` must have been built from: the tag of
    /// the release its asset came from, when that tag spells `tv`'s version.
    /// The release comes from the API, which can't vouch for itself: a tag
    /// that names another version would let that version's provenance pass.
    fn slsa_source_tag<'r>(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        release: &'r github::GithubRelease,
    ) -> Option<&'r str> {
        let tag = release.tag_name.as_str();
        if self.strip_version_prefix(tag, opts) == tv.version
            || tag_candidates(&tv.version, opts.version_prefix(), Some(&self.repo()))
                .iter()
                .any(|candidate| candidate == tag)
        {
            return Some(tag);
        }
        debug!("release tag {tag} does not name {tv}; not checking the SLSA provenance's tag");
        None
    }

    fn strip_version_prefix(&self, tag_name: &str, opts: &GitBackendOptions<'_>) -> String {
        // If a custom version_prefix is configured, strip it first
        if let Some(prefix) = opts.version_prefix()
            && let Some(stripped) = tag_name.strip_prefix(prefix)
        {
            return stripped.to_string();
        }

        // Handle projectname@version format (e.g., "tectonic@0.15.0" -> "0.15.0")
        // Only strip if the prefix matches the repo short name or full repo name to ensure
        // we can reconstruct the tag later during installation. For repos with multiple
        // packages (e.g., tectonic@ and tectonic_xetex_layout@), users must configure
        // version_prefix to install packages that don't match the repo name.
        if let Some(caps) = regex!(r"^([^@]+)@(\d.*)$").captures(tag_name) {
            let prefix = caps.get(1).unwrap().as_str();
            let version = caps.get(2).unwrap().as_str();
            let repo = self.repo();
            let repo_short_name = repo.split('/').next_back();
            // Strip if prefix matches repo short name OR full repo name
            if repo_short_name == Some(prefix) || repo == prefix {
                return version.to_string();
            }
        }

        // Fall back to stripping 'v' prefix
        if tag_name.starts_with('v') {
            tag_name.trim_start_matches('v').to_string()
        } else {
            tag_name.to_string()
        }
    }

    /// Tries to fetch a checksum for an asset from release checksum files.
    ///
    /// This method looks for checksum files (SHA256SUMS, *.sha256, etc.) in the release
    /// assets and attempts to extract the checksum for the target asset.
    ///
    /// Returns the checksum in "sha256:hash" format if found, None otherwise.
    async fn try_fetch_checksum_from_assets(
        &self,
        assets: &[Asset],
        asset_name: &str,
    ) -> Option<String> {
        let fetcher = ChecksumFetcher::new(assets);
        match fetcher.fetch_checksum_for(asset_name).await {
            Some(result) => {
                debug!(
                    "Found checksum for {} from {}: {}",
                    asset_name,
                    result.source_file,
                    result.to_string_formatted()
                );
                Some(result.to_string_formatted())
            }
            None => {
                trace!("No checksum file found for {}", asset_name);
                None
            }
        }
    }

    /// Creates a `.mise-bins` directory with symlinks only to the binaries specified in filter_bins.
    fn create_symlink_bin_dir(&self, tv: &ToolVersion, bins: Vec<String>) -> Result<()> {
        let symlink_dir = tv.install_path().join(MISE_BINS_DIR);
        file::create_dir_all(&symlink_dir)?;

        // Find where the actual binaries are
        let install_path = tv.install_path();
        let bin_paths = self.discover_bin_paths(tv)?;

        // Collect all possible source directories (install root + discovered bin paths)
        let mut src_dirs = bin_paths;
        if !src_dirs.contains(&install_path) {
            src_dirs.push(install_path);
        }

        for bin_name in bins {
            // A name with separators or parent components would resolve outside
            // the install directories and symlink an arbitrary file onto PATH.
            if !file::is_plain_file_name(&bin_name) {
                warn!(
                    "filter_bins: '{}' must be a plain file name, skipping",
                    bin_name
                );
                continue;
            }
            // Find the binary in any of the source directories
            let mut found = false;
            for dir in &src_dirs {
                let src = dir.join(&bin_name);
                if src.exists() {
                    let dst = symlink_dir.join(&bin_name);
                    if !dst.exists() {
                        super::mise_bins::link(&src, &dst)?;
                    }
                    found = true;
                    break;
                }
            }

            if !found {
                warn!(
                    "Could not find binary '{}' in install directories. Available paths: {:?}",
                    bin_name, src_dirs
                );
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
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        if !opts.github_attestations()
            && let Some(provenance) = tv
                .lock_platforms
                .get(platform_key)
                .and_then(|pi| pi.provenance.as_ref())
            && provenance.is_github_attestations()
        {
            return Err(github_attestations_disabled_for_tool_error(tv));
        }

        super::ensure_provenance_setting_enabled(tv, platform_key, |provenance| {
            let settings = Settings::get();
            match provenance {
                ProvenanceType::GithubAttestations => {
                    Ok(!settings.github_attestations || !settings.github.github_attestations)
                }
                ProvenanceType::Slsa { .. } => Ok(!settings.slsa || !settings.github.slsa),
                // The github backend only writes GithubAttestations and Slsa; reaching here means
                // a lockfile was hand-edited or migrated incorrectly.
                _ => Err(eyre::eyre!(
                    "Lockfile has unexpected provenance type {provenance} for github backend tool {tv}. \
                     Update the lockfile to remove the stale provenance entry."
                )),
            }
        })
    }

    fn ensure_provenance_type_setting_enabled(
        &self,
        tv: &ToolVersion,
        opts: &GitBackendOptions<'_>,
        provenance: &ProvenanceType,
    ) -> Result<()> {
        let settings = Settings::get();
        let disabled = match provenance {
            ProvenanceType::GithubAttestations => {
                if !opts.github_attestations() {
                    return Err(github_attestations_disabled_for_tool_error(tv));
                }
                !settings.github_attestations || !settings.github.github_attestations
            }
            ProvenanceType::Slsa { .. } => !settings.slsa || !settings.github.slsa,
            _ => {
                return Err(eyre::eyre!(
                    "Lockfile has unexpected provenance type {provenance} for github backend tool {tv}. \
                     Update the lockfile to remove the stale provenance entry."
                ));
            }
        };
        if disabled {
            return Err(eyre::eyre!(
                "Lockfile requires {provenance} provenance for {tv} but the corresponding \
                 verification setting is disabled. This may indicate a downgrade attack. \
                 Enable the setting or update the lockfile."
            ));
        }
        Ok(())
    }

    /// Verify artifact using GitHub artifact attestations or SLSA provenance.
    /// Tries attestations first, falls back to SLSA if no attestations found.
    /// If verification is attempted and fails, it's a hard error.
    ///
    /// Returns the verified provenance type and the GitHub attestation probe status.
    async fn verify_attestations_or_slsa(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        file_path: &std::path::Path,
        asset: &ReleaseAsset,
        expected_provenance: Option<&ProvenanceType>,
        verification: AssetVerification,
    ) -> Result<Option<ProvenanceType>> {
        let settings = Settings::get();

        // Only verify for GitHub repos (not GitLab/Forgejo)
        if self.is_gitlab() || self.is_forgejo() {
            if let Some(expected) = expected_provenance {
                return Err(eyre::eyre!(
                    "Lockfile requires {expected} provenance for {tv} but verification is not available \
                     for GitLab/Forgejo backends. This may indicate a downgrade attack."
                ));
            }
            return Ok(None);
        }

        // When the lockfile specifies a provenance type, only run that specific mechanism
        let skip_attestations = expected_provenance.is_some_and(|l| !l.is_github_attestations());
        let skip_slsa = expected_provenance.is_some_and(|l| !l.is_slsa());

        // If the lockfile expects github-attestations but the configured api_url
        // doesn't support them (e.g. GHE Server), surface a clear, actionable
        // error rather than falling through to the generic "downgrade attack"
        // path below.
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        let api_url = opts.api_url();
        if expected_provenance.is_some_and(ProvenanceType::is_slsa) && opts.slsa_signer().is_none()
        {
            return Err(slsa_signer_missing_error(tv));
        }
        if !attestations_supported(&api_url)
            && let Some(expected) = expected_provenance
            && expected.is_github_attestations()
        {
            return Err(eyre::eyre!(
                "Lockfile requires github-attestations provenance for {tv} but the \
                 configured api_url ({api_url}) does not serve attestations. \
                 Re-run `mise lock` to refresh the lockfile, or remove the custom api_url."
            ));
        }
        if !opts.github_attestations()
            && let Some(expected) = expected_provenance
            && expected.is_github_attestations()
        {
            return Err(github_attestations_disabled_for_tool_error(tv));
        }

        // Try GitHub artifact attestations first (if enabled globally and for github backend)
        if !skip_attestations
            && settings.github_attestations
            && settings.github.github_attestations
            && opts.github_attestations()
            && attestations_supported(&api_url)
        {
            match self
                .try_verify_github_attestations(ctx, tv, file_path, &api_url)
                .await
            {
                Ok(true) => {
                    // Defense-in-depth: verify the result matches the lockfile expectation
                    if let Some(expected) = expected_provenance
                        && !expected.is_github_attestations()
                    {
                        return Err(eyre::eyre!(
                            "Lockfile requires {expected} provenance for {tv} but github-attestations was verified. \
                             This may indicate a provenance type mismatch."
                        ));
                    }
                    return Ok(Some(ProvenanceType::GithubAttestations));
                }
                Ok(false) => {
                    // Attestations exist but verification failed - hard error
                    return Err(eyre::eyre!(
                        "GitHub artifact attestations verification failed for {tv}"
                    ));
                }
                Err(VerificationStatus::NoAttestations) => {
                    // No attestations - fall through to try SLSA
                    debug!("No GitHub artifact attestations found for {tv}, trying SLSA");
                }
                Err(VerificationStatus::ApiError(e)) => {
                    if expected_provenance.is_some() || settings.provenance_api_failures_fatal {
                        return Err(eyre::eyre!(
                            "GitHub artifact attestations verification error for {tv}: {e}"
                        ));
                    }
                    warn!("GitHub artifact attestations API failed for {tv}, trying SLSA: {e}");
                }
                Err(VerificationStatus::Error(e)) => {
                    // Error during verification - hard error
                    return Err(eyre::eyre!(
                        "GitHub artifact attestations verification error for {tv}: {e}"
                    ));
                }
            }
        }

        // Fall back to SLSA provenance (if enabled globally and for github backend)
        if !skip_slsa && settings.slsa && settings.github.slsa && opts.slsa_signer().is_some() {
            match self
                .try_verify_slsa(ctx, tv, file_path, asset, &api_url, verification)
                .await
            {
                Ok((true, provenance_url)) => {
                    // Defense-in-depth: verify the result matches the lockfile expectation
                    if let Some(expected) = expected_provenance
                        && !expected.is_slsa()
                    {
                        return Err(eyre::eyre!(
                            "Lockfile requires {expected} provenance for {tv} but slsa was verified. \
                             This may indicate a provenance type mismatch."
                        ));
                    }
                    return Ok(Some(ProvenanceType::Slsa {
                        url: provenance_url,
                    }));
                }
                Ok((false, _)) => {
                    // Provenance exists but verification failed - hard error
                    return Err(eyre::eyre!("SLSA provenance verification failed for {tv}"));
                }
                Err(VerificationStatus::NoAttestations) => {
                    // The signer is only set by a tool that publishes SLSA provenance,
                    // so a missing or unverifiable provenance file is a failure, not a
                    // release that has none.
                    return Err(slsa_provenance_missing_error(tv, &asset.name));
                }
                Err(VerificationStatus::ApiError(e)) => {
                    if expected_provenance.is_some() || settings.provenance_api_failures_fatal {
                        return Err(eyre::eyre!("SLSA verification error for {tv}: {e}"));
                    }
                    warn!("SLSA provenance API failed for {tv}, skipping SLSA provenance: {e}");
                }
                Err(VerificationStatus::Error(e)) => {
                    // Error during verification - hard error
                    return Err(eyre::eyre!("SLSA verification error for {tv}: {e}"));
                }
            }
        }

        // If the lockfile or the registry expects provenance but no verification
        // succeeded, it's a downgrade attack
        if let Some(expected) = expected_provenance {
            return Err(eyre::eyre!(
                "Lockfile or mise registry requires {expected} provenance for {tv} but verification \
                 was not performed. This may indicate a downgrade attack. Enable the corresponding \
                 verification setting or update the lockfile."
            ));
        }

        Ok(None)
    }

    /// Try to verify GitHub artifact attestations. Returns:
    /// - Ok(true) if attestations exist and verified successfully
    /// - Ok(false) if attestations exist but verification failed
    /// - Err(NoAttestations) if no attestations found
    /// - Err(Error) if an error occurred during verification
    async fn try_verify_github_attestations(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        file_path: &std::path::Path,
        api_url: &str,
    ) -> std::result::Result<bool, VerificationStatus> {
        ctx.pr
            .set_message("verify GitHub artifact attestations".to_string());

        // Parse owner/repo from the repo string
        let repo = self.repo();
        let parts: Vec<&str> = repo.split('/').collect();
        if parts.len() != 2 {
            return Err(VerificationStatus::Error(format!(
                "Invalid repo format: {repo}"
            )));
        }
        let (owner, repo_name) = (parts[0], parts[1]);

        match crate::github::sigstore::verify_attestation(
            file_path,
            owner,
            repo_name,
            None, // We don't know the expected workflow
            Some(api_url),
            true,
        )
        .await
        {
            Ok(verified) => {
                if verified {
                    ctx.pr
                        .set_message("✓ GitHub artifact attestations verified".to_string());
                    debug!("GitHub artifact attestations verified successfully for {tv}");
                }
                Ok(verified)
            }
            Err(crate::github::sigstore::AttestationError::NoAttestations) => {
                Err(VerificationStatus::NoAttestations)
            }
            Err(e) if crate::github::sigstore::is_api_failure(&e) => {
                Err(VerificationStatus::ApiError(e.to_string()))
            }
            Err(e) => Err(VerificationStatus::Error(e.to_string())),
        }
    }

    async fn try_verify_slsa_archive_contents(
        &self,
        tv: &ToolVersion,
        file_path: &std::path::Path,
        provenance_path: &std::path::Path,
        additional_overlay: bool,
        signer: crate::github::sigstore::SlsaSignerIdentity<'_>,
    ) -> Result<bool> {
        let raw_opts = tv.request.options();
        let format = if !additional_overlay
            && let Some(format_opt) = lookup_with_fallback(&raw_opts, "format")
        {
            file::ExtractionFormat::from_ext(&format_opt).unwrap_or(file::ExtractionFormat::Raw)
        } else {
            file::ExtractionFormat::from_file_name(
                &file_path.file_name().unwrap_or_default().to_string_lossy(),
            )
        };

        if !format.is_archive() {
            return Err(eyre::eyre!(
                "SLSA provenance subject mismatch and content-level fallback is only supported for archives"
            ));
        }

        let mut strip_components = if additional_overlay {
            None
        } else {
            lookup_platform_key(&raw_opts, "strip_components")
                .or_else(|| raw_opts.get_string("strip_components"))
                .and_then(|s| s.parse().ok())
        };
        if !additional_overlay
            && strip_components.is_none()
            && lookup_with_fallback(&raw_opts, "bin_path").is_none()
            && file::should_strip_components(file_path, format)?
        {
            strip_components = Some(1);
        }

        let contents =
            file::archive_content_files(file_path, format, strip_components.unwrap_or(0))?;
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
        .map_err(|e| eyre::eyre!("content-level SLSA verification failed: {e}"))
    }

    /// Try to verify SLSA provenance. Returns:
    /// - Ok((true, Some(url))) if provenance exists and verified successfully
    /// - Ok((false, _)) if provenance exists but verification failed
    /// - Err(NoAttestations) if no provenance found
    /// - Err(Error) if an error occurred during verification
    async fn try_verify_slsa(
        &self,
        ctx: &InstallContext,
        tv: &ToolVersion,
        file_path: &std::path::Path,
        asset: &ReleaseAsset,
        api_url: &str,
        verification: AssetVerification,
    ) -> std::result::Result<(bool, Option<String>), VerificationStatus> {
        let asset_name = asset.name.as_str();
        if self.is_gitlab() || self.is_forgejo() {
            return Err(VerificationStatus::NoAttestations);
        }

        ctx.pr.set_message("verify SLSA provenance".to_string());

        // Get the release to find provenance assets
        let repo = self.repo();
        let raw_opts = tv.request.options();
        let opts = self.options(&raw_opts);
        let (identity, issuer) = opts.slsa_signer_for(tv).ok_or_else(|| {
            VerificationStatus::Error("SLSA signer identity and issuer are missing".to_string())
        })?;
        let version = &tv.version;

        // Try to get the release (with version prefix support)
        let release = match self
            .release_for_asset(api_url, &repo, version, &opts, asset)
            .await
        {
            Ok(r) => r,
            Err(e) => {
                return Err(VerificationStatus::ApiError(format!(
                    "Failed to get release: {e}"
                )));
            }
        };
        let signer = crate::github::sigstore::SlsaSignerIdentity {
            identity: &identity,
            issuer: &issuer,
            source_repository: Some(&repo),
            source_tag: self.slsa_source_tag(tv, &opts, &release),
        };

        // Find the best provenance asset for the current platform
        let asset_names: Vec<String> = release.assets.iter().map(|a| a.name.clone()).collect();
        let current_platform = PlatformTarget::from_current();
        // Keep provenance aligned with the matching-selected binary at install
        // time, matching the selection used at lock time. Suppressed when
        // `asset_pattern` is set (it selects the binary, ignoring `matching`).
        let (matching, matching_regex) =
            opts.matching_for_provenance(&current_platform, verification.explicit_pattern);
        let picker = AssetPicker::with_libc(
            current_platform.os_name().to_string(),
            current_platform.arch_name().to_string(),
            current_platform.qualifier().map(|s| s.to_string()),
        )
        .with_matching(matching.unwrap_or_default())
        .with_matching_regex(matching_regex.unwrap_or_default());

        let provenance_name = match pick_slsa_provenance(&picker, &asset_names, asset_name) {
            Some(name) => name,
            None => return Err(VerificationStatus::NoAttestations),
        };

        let provenance_asset = release
            .assets
            .iter()
            .find(|a| a.name == provenance_name)
            .expect("provenance asset should exist since we found its name");

        // Download the provenance file under a fixed name in a directory of its own.
        // The release chooses the asset's name: next to the artifact, a name equal to
        // the artifact's (or `provenance/../<artifact>`) would replace the file whose
        // checksum was just verified, and more `..` would write outside the download
        // directory.
        let provenance_dir = tempfile::tempdir_in(tv.download_path()).map_err(|e| {
            VerificationStatus::Error(format!("Failed to create provenance directory: {e}"))
        })?;
        let provenance_path = provenance_dir.path().join("provenance");

        ctx.pr
            .set_message(format!("download {}", provenance_asset.name));
        if let Err(e) = HTTP
            .download_file(
                &provenance_asset.browser_download_url,
                &provenance_path,
                Some(ctx.pr.as_ref()),
            )
            .await
        {
            return Err(VerificationStatus::ApiError(format!(
                "Failed to download provenance: {e}"
            )));
        }

        ctx.pr.set_message("verify SLSA provenance".to_string());

        // Verify the provenance
        let provenance_download_url = provenance_asset.browser_download_url.clone();
        match crate::github::sigstore::verify_slsa_provenance(
            file_path,
            &provenance_path,
            1, // Minimum SLSA level
            signer,
        )
        .await
        {
            Ok(verified) => {
                if verified {
                    debug!("SLSA provenance verified successfully for {tv}");
                    Ok((true, Some(provenance_download_url)))
                } else {
                    Ok((false, None))
                }
            }
            Err(e) => {
                if crate::github::sigstore::is_slsa_subject_mismatch(&e) {
                    debug!(
                        "SLSA provenance did not cover downloaded artifact for {tv}; trying archive content subjects: {e}"
                    );
                    match self
                        .try_verify_slsa_archive_contents(
                            tv,
                            file_path,
                            &provenance_path,
                            verification.additional_overlay,
                            signer,
                        )
                        .await
                    {
                        Ok(true) => {
                            debug!(
                                "SLSA provenance verified archive contents successfully for {tv}"
                            );
                            Ok((true, Some(provenance_download_url)))
                        }
                        Ok(false) => Ok((false, None)),
                        Err(content_err) => Err(VerificationStatus::Error(content_err.to_string())),
                    }
                } else if is_slsa_format_issue(&e) {
                    debug!("SLSA provenance file not in verifiable format for {tv}: {e}");
                    Err(VerificationStatus::NoAttestations)
                } else {
                    Err(VerificationStatus::Error(e.to_string()))
                }
            }
        }
    }
}

/// Prefer provenance explicitly attached to the selected release asset. This is
/// important when `asset_pattern` intentionally selects an asset for a platform
/// other than the host. Fall back to the existing platform-aware picker for
/// shared provenance files and releases without an exact sidecar. The selected
/// asset is never its own provenance, even when its name looks like one.
fn pick_slsa_provenance(
    picker: &AssetPicker,
    assets: &[String],
    selected_asset: &str,
) -> Option<String> {
    let sidecar = format!("{selected_asset}.intoto.jsonl");
    assets
        .iter()
        .find(|asset| asset.eq_ignore_ascii_case(&sidecar))
        .cloned()
        .or_else(|| {
            let others = assets
                .iter()
                .filter(|asset| !asset.eq_ignore_ascii_case(selected_asset))
                .cloned()
                .collect::<Vec<_>>();
            picker.pick_best_provenance(&others)
        })
}

/// Templates a string pattern with version and target platform values
fn template_string_for_target(template: &str, tv: &ToolVersion, target: &PlatformTarget) -> String {
    let version = &tv.version;
    let os = target.os_name();
    let arch = target.arch_name();

    // Map to common naming conventions
    let darwin_os = if os == "macos" { "darwin" } else { os };
    let amd64_arch = match arch {
        "x64" => "amd64",
        _ => arch, // arm64 stays as "arm64" in amd64/arm64 convention
    };
    let x86_64_arch = match arch {
        "x64" => "x86_64",
        "arm64" => "aarch64",
        _ => arch,
    };
    // GNU-style arch: x64 -> x86_64, arm64 stays arm64 (used by opam, etc.)
    let gnu_arch = match arch {
        "x64" => "x86_64",
        _ => arch,
    };

    // Check for legacy {placeholder} syntax (any of the supported placeholders)
    let has_legacy_placeholder = [
        "{version}",
        "{os}",
        "{arch}",
        "{darwin_os}",
        "{amd64_arch}",
        "{x86_64_arch}",
        "{gnu_arch}",
    ]
    .iter()
    .any(|p| template.contains(p) && !template.contains(&format!("{{{p}}}")));

    if has_legacy_placeholder {
        deprecated_at!(
            "2026.3.0",
            "2027.3.0",
            "legacy-version-template",
            "Use Tera syntax (e.g., {{{{ version }}}}) instead of legacy {{version}} in templates"
        );
        // Legacy support: replace {placeholder} patterns
        return template
            .replace("{version}", version)
            .replace("{os}", os)
            .replace("{arch}", arch)
            .replace("{darwin_os}", darwin_os)
            .replace("{amd64_arch}", amd64_arch)
            .replace("{x86_64_arch}", x86_64_arch)
            .replace("{gnu_arch}", gnu_arch);
    }

    if !crate::tera::contains_template_syntax(template) {
        return template.to_string();
    }

    // Use Tera rendering for templates
    let mut ctx = crate::tera::BASE_CONTEXT.clone();
    ctx.insert("version", version);
    ctx.insert("os", os);
    ctx.insert("arch", arch);
    ctx.insert("darwin_os", darwin_os);
    ctx.insert("amd64_arch", amd64_arch);
    ctx.insert("x86_64_arch", x86_64_arch);
    ctx.insert("gnu_arch", gnu_arch);

    let mut tera = crate::tera::get_tera_v2(None);
    // Register target-aware os() and arch() functions that use the target platform
    // instead of the compile-time platform
    let make_remapping_fn = |value: String| {
        move |args: tera::Kwargs, _: &tera::State| -> tera::TeraResult<tera::Value> {
            if let Some(s) = args.get::<&str>(&value)? {
                Ok(tera::Value::from(s))
            } else {
                Ok(tera::Value::from(value.clone()))
            }
        }
    };
    tera.register_function("os", make_remapping_fn(os.to_string()));
    tera.register_function("arch", make_remapping_fn(arch.to_string()));

    match crate::tera::render_str_v2(&mut tera, template, &ctx) {
        Ok(rendered) => rendered,
        Err(e) => {
            warn!("Failed to render template '{}': {}", template, e);
            template.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::static_helpers::try_release_tags;

    #[test]
    fn test_mirrored_digest_is_recorded_but_not_a_download_pin() {
        let asset = |url_api: &str| ReleaseAsset {
            name: "b.tar.gz".to_string(),
            url: "https://github.com/acme/b/releases/download/v1/b.tar.gz".to_string(),
            url_api: url_api.to_string(),
            digest: Some("sha256:aaaa".to_string()),
            release_tag: Some("v1".to_string()),
        };

        // mise-versions supplied this asset, digest included: the digest is
        // still compared after the download, but a kept file is not served by it.
        let mirrored = "https://api.github.com/repos/acme/b/releases/assets/9001";
        crate::versions_host::remember_mirrored_asset_api_url(mirrored);
        let mut info = PlatformInfo::default();
        assert_eq!(
            record_release_asset(&mut info, &asset(mirrored), None),
            None
        );
        assert_eq!(info.checksum.as_deref(), Some("sha256:aaaa"));

        // GitHub's own digest (private repos, `use_versions_host = false`) is.
        let direct = "https://api.github.com/repos/acme/b/releases/assets/9002";
        let mut info = PlatformInfo::default();
        assert_eq!(
            record_release_asset(&mut info, &asset(direct), None).as_deref(),
            Some("sha256:aaaa")
        );

        // A tool option or lockfile checksum wins, and the lockfile's is kept.
        let mut info = PlatformInfo {
            checksum: Some("sha256:bbbb".to_string()),
            ..Default::default()
        };
        assert_eq!(
            record_release_asset(&mut info, &asset(mirrored), Some("sha256:bbbb".into()))
                .as_deref(),
            Some("sha256:bbbb")
        );
        assert_eq!(info.checksum.as_deref(), Some("sha256:bbbb"));
    }

    #[test]
    fn test_lock_marks_a_mise_versions_digest() {
        let asset = |url_api: &str| ReleaseAsset {
            name: "c.tar.gz".to_string(),
            url: "https://github.com/acme/c/releases/download/v1/c.tar.gz".to_string(),
            url_api: url_api.to_string(),
            digest: Some("sha256:cccc".to_string()),
            release_tag: Some("v1".to_string()),
        };
        let mirrored = "https://api.github.com/repos/acme/c/releases/assets/9101";
        crate::versions_host::remember_mirrored_asset_api_url(mirrored);
        assert_eq!(
            locked_digest_source(&asset(mirrored), false),
            Some(ChecksumSource::VersionsHost)
        );
        // Lock-time provenance verification downloaded it and checked it.
        assert_eq!(locked_digest_source(&asset(mirrored), true), None);
        // GitHub's own digest.
        let direct = "https://api.github.com/repos/acme/c/releases/assets/9102";
        assert_eq!(locked_digest_source(&asset(direct), false), None);
    }

    #[test]
    fn test_public_forge_api_url_is_compared_parsed() {
        for url in [
            "https://api.github.com/repos/o/r/releases/assets/1",
            "HTTPS://api.github.com/repos/o/r/releases/assets/1",
            " https://api.github.com/repos/o/r/releases/assets/1",
            "https://API.github.com/repos/o/r/releases/assets/1",
            "https://x@api.github.com/repos/o/r/releases/assets/1",
            "https://gitlab.com/api/v4/projects/1/packages/generic/x",
            "https://codeberg.org/api/v1/repos/o/r/releases/assets/1",
        ] {
            assert!(is_public_forge_api_url(url), "{url:?}");
        }
        for url in [
            "https://github.example.com/api/v3/repos/o/r/releases/assets/1",
            "https://api.github.com.evil.example/repos/o/r/releases/assets/1",
            "http://api.github.com/repos/o/r/releases/assets/1",
            "https://gitlab.com/o/r/-/releases",
            "not a url",
        ] {
            assert!(!is_public_forge_api_url(url), "{url:?}");
        }
    }

    #[test]
    fn test_registry_required_provenance_overrides_the_lockfile() {
        use crate::lockfile::ProvenanceType as P;
        let slsa = || P::Slsa { url: None };
        let required = Some(P::GithubAttestations);

        // What an install verifies: the registry's requirement wins over a
        // lockfile that recorded something weaker, or nothing.
        assert_eq!(
            expected_install_provenance(Some(slsa()), required.clone()),
            required
        );
        assert_eq!(
            expected_install_provenance(None, required.clone()),
            required
        );
        assert_eq!(
            expected_install_provenance(Some(slsa()), None),
            Some(slsa())
        );

        // Whether a locked entry may skip verification.
        assert!(locked_provenance_satisfies(Some(&slsa()), None));
        assert!(locked_provenance_satisfies(
            Some(&P::GithubAttestations),
            required.as_ref()
        ));
        assert!(!locked_provenance_satisfies(
            Some(&slsa()),
            required.as_ref()
        ));
        assert!(!locked_provenance_satisfies(None, required.as_ref()));
    }

    #[test]
    fn test_lock_rejects_anything_but_the_required_provenance() {
        use crate::lockfile::ProvenanceType as P;
        let tv = ToolVersion::new(
            crate::toolset::ToolRequest::new(
                std::sync::Arc::new(BackendArg::from("github:example/tool")),
                "2.3.0",
                crate::toolset::ToolSource::Argument,
            )
            .unwrap(),
            "2.3.0".into(),
        );
        let required = Some(P::GithubAttestations);
        assert!(
            ensure_registry_provenance(&tv, required.as_ref(), Some(&P::GithubAttestations))
                .is_ok()
        );
        let slsa = ensure_registry_provenance(&tv, required.as_ref(), Some(&P::Slsa { url: None }))
            .unwrap_err()
            .to_string();
        assert!(slsa.contains("only slsa was verified"), "{slsa}");
        let none = ensure_registry_provenance(&tv, required.as_ref(), None)
            .unwrap_err()
            .to_string();
        assert!(none.contains("none was verified"), "{none}");
        assert!(ensure_registry_provenance(&tv, None, None).is_ok());
    }

    #[test]
    fn test_registry_attestation_requirement_comes_from_declared_backends() {
        // registry/aube.toml: github:aubepkg/aube, attestations_since = 2.2.5
        assert!(crate::registry::requires_github_attestations(
            "github:aubepkg/aube",
            "2.3.0"
        ));
        assert!(!crate::registry::requires_github_attestations(
            "github:aubepkg/aube",
            "2.2.4"
        ));
        assert!(!crate::registry::requires_github_attestations(
            "github:example/unlisted",
            "9.9.9"
        ));
        // GitHub repository names are case-insensitive.
        assert!(crate::registry::requires_github_attestations(
            "github:Aubepkg/Aube",
            "2.3.0"
        ));
    }
    use crate::args::BackendArg;

    fn release_json(tag: &str, asset: &str) -> String {
        serde_json::json!({
            "tag_name": tag,
            "draft": false,
            "prerelease": false,
            "created_at": "2026-01-01T00:00:00Z",
            "assets": [{
                "name": asset,
                "browser_download_url": format!("https://example.com/{tag}/{asset}"),
                "url": format!("https://example.com/assets/{asset}"),
            }],
        })
        .to_string()
    }

    #[tokio::test]
    async fn test_install_never_resolves_a_tag_version_regex_excludes() {
        // `v1.2.3` and `1.2.3` both name version 1.2.3. With a regex that lists
        // only the bare tag, installing 1.2.3 must not pick `v1.2.3`, which
        // mise would otherwise try first.
        let mut server = mockito::Server::new_async().await;
        let repo = "owner/two-tags-regex";
        let v_tag = server
            .mock(
                "GET",
                format!("/repos/{repo}/releases/tags/v1.2.3").as_str(),
            )
            .with_header("content-type", "application/json")
            .with_body(release_json("v1.2.3", "tool-darwin.tar.gz"))
            .expect(0)
            .create_async()
            .await;
        let bare_tag = server
            .mock("GET", format!("/repos/{repo}/releases/tags/1.2.3").as_str())
            .with_header("content-type", "application/json")
            .with_body(release_json("1.2.3", "tool-linux.tar.gz"))
            .expect_at_least(1)
            .create_async()
            .await;
        let api_url = server.url();

        let backend = create_test_backend();
        let mut raw = ToolVersionOptions::default();
        raw.opts
            .insert("version_regex".into(), toml::Value::String("^[0-9]".into()));
        let opts = backend.options(&raw);
        let tags = opts.tag_filter().unwrap();

        let release = try_allowed_release_tags(
            "1.2.3",
            None,
            Some(repo),
            Some(&api_url),
            None,
            |tag| tags.allows(tag),
            |candidate| {
                let api_url = api_url.clone();
                async move {
                    github::get_release_for_url_with_versions_host(&api_url, repo, &candidate, true)
                        .await
                }
            },
        )
        .await
        .unwrap();
        assert_eq!(release.tag_name, "1.2.3");

        let unplaced = ReleaseAsset {
            name: "tool-linux.tar.gz".to_string(),
            url: "https://example.com/tool-linux.tar.gz".to_string(),
            url_api: String::new(),
            digest: None,
            release_tag: None,
        };
        let release = backend
            .release_for_asset(&api_url, repo, "1.2.3", &opts, &unplaced)
            .await
            .unwrap();
        assert_eq!(release.tag_name, "1.2.3");

        v_tag.assert_async().await;
        bare_tag.assert_async().await;
    }

    #[tokio::test]
    async fn test_provenance_release_is_the_one_the_asset_came_from() {
        // `1.2.3` and `v1.2.3` both name version 1.2.3, with different assets,
        // and `v1.2.3` is the tag remembered for the version. An asset from
        // `1.2.3` must have its provenance looked up on `1.2.3`, whether it
        // was just selected, reused from a lockfile URL, or can't be placed.
        let mut server = mockito::Server::new_async().await;
        let repo = "owner/two-tags-provenance";
        let v_tag = server
            .mock(
                "GET",
                format!("/repos/{repo}/releases/tags/v1.2.3").as_str(),
            )
            .with_header("content-type", "application/json")
            .with_body(release_json("v1.2.3", "tool-darwin.tar.gz"))
            .expect(1)
            .create_async()
            .await;
        let bare_tag = server
            .mock("GET", format!("/repos/{repo}/releases/tags/1.2.3").as_str())
            .with_header("content-type", "application/json")
            .with_body(release_json("1.2.3", "tool-linux.tar.gz"))
            .expect(1)
            .create_async()
            .await;
        let api_url = server.url();

        let remembered = try_release_tags(
            "1.2.3",
            None,
            Some(repo),
            Some(&api_url),
            None,
            |candidate| {
                let api_url = api_url.clone();
                async move {
                    github::get_release_for_url_with_versions_host(&api_url, repo, &candidate, true)
                        .await
                }
            },
        )
        .await
        .unwrap();
        assert_eq!(remembered.tag_name, "v1.2.3");

        let backend = create_test_backend();
        let linux_asset = |url: String, release_tag: Option<&str>| ReleaseAsset {
            name: "tool-linux.tar.gz".to_string(),
            url,
            url_api: String::new(),
            digest: None,
            release_tag: release_tag.map(str::to_string),
        };
        for (case, asset) in [
            (
                "selected",
                linux_asset(
                    "https://example.com/tool-linux.tar.gz".into(),
                    Some("1.2.3"),
                ),
            ),
            (
                "lockfile URL",
                linux_asset(
                    format!("{api_url}/{repo}/releases/download/1.2.3/tool-linux.tar.gz"),
                    None,
                ),
            ),
            (
                "unplaced",
                linux_asset("https://example.com/tool-linux.tar.gz".into(), None),
            ),
        ] {
            let release = backend
                .release_for_asset(
                    &api_url,
                    repo,
                    "1.2.3",
                    &backend.options(&ToolVersionOptions::default()),
                    &asset,
                )
                .await
                .unwrap();
            assert_eq!(release.tag_name, "1.2.3", "{case}");
        }
        v_tag.assert_async().await;
        bare_tag.assert_async().await;
    }

    #[test]
    fn test_release_tag_from_download_url() {
        let repo = "https://github.com/kubernetes-sigs/kustomize";
        assert_eq!(
            crate::backend::release_tag_from_download_url(
                "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize/v5.8.1/kustomize_v5.8.1_linux_amd64.tar.gz",
                repo
            )
            .as_deref(),
            Some("kustomize/v5.8.1")
        );
        assert_eq!(
            crate::backend::release_tag_from_download_url(
                "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize%2Fv5.8.1/k.tar.gz",
                repo
            )
            .as_deref(),
            Some("kustomize/v5.8.1")
        );
        for url in [
            "https://github.com/someone/kustomize/releases/download/v1/k.tar.gz",
            "https://github.com/kubernetes-sigs/kustomize/releases/download/k.tar.gz",
            "https://api.github.com/repos/kubernetes-sigs/kustomize/releases/assets/1",
        ] {
            assert_eq!(
                crate::backend::release_tag_from_download_url(url, repo),
                None,
                "{url}"
            );
        }
    }

    fn create_test_backend() -> UnifiedGitBackend {
        UnifiedGitBackend::from_arg(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ))
    }

    fn create_test_gitlab_backend() -> UnifiedGitBackend {
        UnifiedGitBackend::from_arg(BackendArg::new(
            "gitlab:test/repo".to_string(),
            Some("gitlab:test/repo".to_string()),
        ))
    }

    fn create_test_forgejo_backend() -> UnifiedGitBackend {
        UnifiedGitBackend::from_arg(BackendArg::new(
            "forgejo:test/repo".to_string(),
            Some("forgejo:test/repo".to_string()),
        ))
    }

    #[tokio::test]
    async fn test_direct_url_templates_use_resolved_version() {
        use crate::config::config_file::{ConfigFile, mise_toml::MiseToml};

        crate::toolset::install_state::init().await.unwrap();
        for backend in [
            create_test_backend(),
            create_test_gitlab_backend(),
            create_test_forgejo_backend(),
        ] {
            let config = MiseToml::from_str(
                &format!(
                    "[tools.\"{}\"]\n{}",
                    backend.ba.full(),
                    r#"
version = "latest"
platform_linux_x64_url = 'https://example.com/{{ version }}/tool-linux-amd64.tar.gz'
platform_linux_arm64_url = 'https://example.com/{{ version }}/tool-{% if arch() == "arm64" %}aarch64{% else %}x86_64{% endif %}.tar.gz'
platforms_windows_x64_url = 'https://example.com/fixed.zip?download=1'
platforms.macos-arm64.url = 'https://example.com/{{ version }}/tool-darwin-arm64.tar.gz'
"#,
                ),
                Path::new("mise.toml"),
            )
            .unwrap();
            let requests = config.to_tool_request_set().unwrap();
            let (_, requests, _) = requests.iter().next().unwrap();
            let tv = ToolVersion::new(requests[0].clone(), "2026.09-preview".to_string());
            let raw_opts = tv.request.options();
            let opts = backend.options(&raw_opts);
            let conditional_url = format!(
                "https://example.com/2026.09-preview/tool-{}.tar.gz",
                if PlatformTarget::from_current().arch_name() == "arm64" {
                    "aarch64"
                } else {
                    "x86_64"
                }
            );

            for (platform, expected) in [
                (
                    "linux-x64",
                    "https://example.com/2026.09-preview/tool-linux-amd64.tar.gz",
                ),
                (
                    "macos-arm64",
                    "https://example.com/2026.09-preview/tool-darwin-arm64.tar.gz",
                ),
                ("windows-x64", "https://example.com/fixed.zip?download=1"),
                ("linux-arm64", conditional_url.as_str()),
            ] {
                let target =
                    PlatformTarget::new(crate::platform::Platform::parse(platform).unwrap());
                let asset = backend
                    .resolve_asset_url_for_target(&tv, &opts, "test/repo", &target)
                    .await
                    .unwrap();

                assert_eq!(asset.url, expected);
                assert_eq!(asset.url_api, expected);
                assert_eq!(asset.name, get_filename_from_url(expected));
                assert!(asset.digest.is_none());
            }
        }
    }

    #[test]
    fn test_filter_bins_accepts_string_or_array() {
        let backend = create_test_backend();

        let mut string_opts = ToolVersionOptions::default();
        string_opts.opts.insert(
            "filter_bins".to_string(),
            toml::Value::String("foo, bar, ".to_string()),
        );
        assert_eq!(
            backend.options(&string_opts).filter_bins(),
            Some(vec!["foo".to_string(), "bar".to_string()])
        );

        let mut array_opts = ToolVersionOptions::default();
        array_opts.opts.insert(
            "filter_bins".to_string(),
            toml::Value::Array(vec![
                toml::Value::String("foo".to_string()),
                toml::Value::String(" bar ".to_string()),
                toml::Value::String("".to_string()),
            ]),
        );
        assert_eq!(
            backend.options(&array_opts).filter_bins(),
            Some(vec!["foo".to_string(), "bar".to_string()])
        );
    }

    #[test]
    fn test_additional_asset_patterns_accept_string_array_and_platform_override() {
        let backend = create_test_backend();
        let linux = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());
        let macos = PlatformTarget::new(crate::platform::Platform::parse("macos-arm64").unwrap());

        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "additional_asset_patterns".to_string(),
            toml::Value::String("base-extra.tar.gz, symbols.zip".to_string()),
        );
        assert_eq!(
            backend
                .options(&opts)
                .additional_asset_patterns_for_target(&macos),
            vec!["base-extra.tar.gz", "symbols.zip"]
        );

        let mut platforms = toml::Table::new();
        let mut linux_opts = toml::Table::new();
        linux_opts.insert(
            "additional_asset_patterns".to_string(),
            toml::Value::Array(vec![
                toml::Value::String(" rocm.tar.gz ".to_string()),
                toml::Value::String("".to_string()),
            ]),
        );
        platforms.insert("linux-x64".to_string(), toml::Value::Table(linux_opts));
        opts.opts
            .insert("platforms".to_string(), toml::Value::Table(platforms));

        assert_eq!(
            backend
                .options(&opts)
                .additional_asset_patterns_for_target(&linux),
            vec!["rocm.tar.gz"]
        );
        assert_eq!(
            backend
                .options(&opts)
                .lockfile_options(&linux)
                .get("additional_asset_patterns"),
            Some(&"rocm.tar.gz".to_string())
        );
    }

    #[test]
    fn test_tag_filter_lists_tags_matching_prefix_and_regex() {
        let backend = create_test_backend();
        let filter = |options: &[(&str, &str)]| {
            let mut opts = ToolVersionOptions::default();
            for (key, value) in options {
                opts.opts
                    .insert(key.to_string(), toml::Value::String(value.to_string()));
            }
            let tags = backend.options(&opts).tag_filter().unwrap();
            ["v1.2.3", "nightly", "pgo-profiles", "release-1.0.0"]
                .into_iter()
                .filter(|tag| tags.lists(tag))
                .collect::<Vec<_>>()
        };

        assert_eq!(
            filter(&[]),
            ["v1.2.3", "nightly", "pgo-profiles", "release-1.0.0"]
        );
        assert_eq!(
            filter(&[("version_regex", r"^(v\d+\.\d+\.\d+|nightly)$")]),
            ["v1.2.3", "nightly"]
        );
        // Unanchored, the pattern matches anywhere in the tag.
        assert_eq!(
            filter(&[("version_regex", "1")]),
            ["v1.2.3", "release-1.0.0"]
        );
        // With both set, a tag has to pass both.
        assert_eq!(
            filter(&[("version_prefix", "release-"), ("version_regex", r"\.0$")]),
            ["release-1.0.0"]
        );
        assert!(filter(&[("version_prefix", "v"), ("version_regex", "nightly")]).is_empty());
    }

    #[test]
    fn test_invalid_version_regex_is_an_error() {
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        opts.opts
            .insert("version_regex".into(), toml::Value::String("(".into()));
        let err = backend.options(&opts).tag_filter().err().unwrap();
        assert!(err.to_string().contains("invalid version_regex"), "{err}");
    }

    #[test]
    fn test_identity_options_keep_the_signer_and_the_release_selection() {
        use crate::backend::static_helpers::test_identity_options;
        let backend = create_test_backend();
        let identity = |options: &[(&str, &str)]| test_identity_options(&backend, "1.0.0", options);
        let base = identity(&[]);

        // An install verified against one signer is not the install a request with
        // another signer requirement asked for, so the signer is part of the identity.
        assert_ne!(
            identity(&[
                (
                    "slsa_signer_identity",
                    "https://example.com/wf@refs/tags/v1"
                ),
                (
                    "slsa_signer_issuer",
                    "https://token.actions.githubusercontent.com"
                ),
            ]),
            base
        );

        // Each of these selects a different release or a different layout.
        for (key, value) in [
            ("version_prefix", "release-"),
            ("version_regex", "^v"),
            ("api_url", "https://ghe.example.com/api/v3"),
            ("asset_pattern", "tool-*.tar.gz"),
            ("bin_path", "tool/bin"),
            ("filter_bins", "a,b"),
            ("matching", "musl"),
        ] {
            assert_ne!(
                identity(&[(key, value)]),
                base,
                "{key} changes what is installed"
            );
        }
    }

    #[test]
    fn test_additional_assets_install_state_tracks_patterns() {
        let backend = create_test_backend();
        let backend_arg = Arc::new(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ));
        let request =
            ToolRequest::new(backend_arg, "1.0.0", crate::toolset::ToolSource::Unknown).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let install_path = tmp.path().join("install");
        file::create_dir_all(&install_path).unwrap();
        let mut tv = ToolVersion::new(request, "1.0.0".to_string());
        tv.install_path = Some(install_path);
        let patterns = vec!["base-*.tar.gz".to_string(), "extra-*.tar.gz".to_string()];

        assert!(backend.additional_assets_install_state_matches(&tv, &[]));
        assert!(!backend.additional_assets_install_state_matches(&tv, &patterns));

        backend
            .write_additional_assets_install_state(&tv, &patterns)
            .unwrap();
        assert!(backend.additional_assets_install_state_matches(&tv, &patterns));
        assert!(!backend.additional_assets_install_state_matches(
            &tv,
            &["extra-*.tar.gz".to_string(), "base-*.tar.gz".to_string()],
        ));
        assert!(!backend.additional_assets_install_state_matches(&tv, &[]));

        backend
            .write_additional_assets_install_state(&tv, &[])
            .unwrap();
        assert!(backend.additional_assets_install_state_matches(&tv, &[]));
    }

    #[test]
    fn test_additional_archive_overlays_existing_install() {
        use std::io::Write;

        let backend = create_test_backend();
        let tmp = tempfile::tempdir().unwrap();
        let install_path = tmp.path().join("install");
        std::fs::create_dir_all(&install_path).unwrap();
        std::fs::write(install_path.join("ollama"), b"base").unwrap();
        std::fs::write(install_path.join("README"), b"keep").unwrap();

        let archive_path = tmp.path().join("ollama-rocm.zip");
        let archive = std::fs::File::create(&archive_path).unwrap();
        let mut zip = zip::ZipWriter::new(archive);
        zip.start_file(
            "lib/ollama/rocm/libhip.so",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(b"rocm").unwrap();
        zip.start_file("ollama", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"overlaid").unwrap();
        zip.finish().unwrap();

        backend
            .install_additional_archive(&install_path, &archive_path, None)
            .unwrap();

        assert_eq!(
            std::fs::read(install_path.join("ollama")).unwrap(),
            b"overlaid"
        );
        assert_eq!(std::fs::read(install_path.join("README")).unwrap(), b"keep");
        assert_eq!(
            std::fs::read(install_path.join("lib/ollama/rocm/libhip.so")).unwrap(),
            b"rocm"
        );
    }

    #[test]
    fn test_filter_bins_falls_back_to_base_when_platform_value_is_empty() {
        use crate::backend::static_helpers::platform_aliases;

        let backend = create_test_backend();
        let (os, arch) = platform_aliases().into_iter().next().unwrap();
        let mut linux = toml::Table::new();
        linux.insert("filter_bins".into(), toml::Value::Array(vec![]));
        let mut platforms = toml::Table::new();
        platforms.insert(format!("{os}-{arch}"), toml::Value::Table(linux));

        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "filter_bins".to_string(),
            toml::Value::String("base-bin".to_string()),
        );
        opts.opts
            .insert("platforms".to_string(), toml::Value::Table(platforms));

        assert_eq!(
            backend.options(&opts).filter_bins(),
            Some(vec!["base-bin".to_string()])
        );
    }

    #[test]
    fn test_pick_by_pattern_basic() {
        // Single-match cases that the old `matches_pattern` test covered.
        let backend = create_test_backend();
        let matches = |asset: &str, pat: &str| {
            backend
                .pick_by_pattern(vec![asset.to_string()], pat, |s| s.as_str())
                .is_some()
        };
        assert!(matches("test-v1.0.0.zip", "test-*"));
        assert!(!matches("other-v1.0.0.zip", "test-*"));
    }

    #[test]
    fn test_additional_artifacts_must_match_pattern_order() {
        let backend = create_test_backend();
        let backend_arg = Arc::new(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ));
        let request =
            ToolRequest::new(backend_arg, "1.0.0", crate::toolset::ToolSource::Unknown).unwrap();
        let tv = ToolVersion::new(request, "1.0.0".to_string());
        let target = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());
        let patterns = vec!["base-*.tar.gz".to_string(), "extra-*.tar.gz".to_string()];
        let artifacts = vec![
            ArtifactInfo {
                url: "https://example.com/base-1.0.0.tar.gz".to_string(),
                ..Default::default()
            },
            ArtifactInfo {
                url: "https://example.com/extra-1.0.0.tar.gz".to_string(),
                ..Default::default()
            },
        ];

        assert!(backend.additional_artifacts_match_patterns(&tv, &target, &patterns, &artifacts));
        assert!(!backend.additional_artifacts_match_patterns(
            &tv,
            &target,
            &patterns,
            &[artifacts[1].clone(), artifacts[0].clone()],
        ));
        assert!(!backend.additional_artifacts_match_patterns(&tv, &target, &[], &artifacts));
    }

    #[test]
    fn test_pick_by_pattern_shortest_match_wins() {
        // When asset_pattern matches more than one asset, prefer the shortest
        // (then lexicographic for determinism). Mirrors the auto-detection
        // tiebreaker so users don't get the GitHub-API-order asset on a
        // broad pattern like `*linux*64`.
        // See: https://github.com/jdx/mise/discussions/9358
        let backend = create_test_backend();
        let assets = vec![
            "cloudflared-fips-linux-amd64".to_string(),
            "cloudflared-linux-amd64".to_string(),
        ];
        let picked = backend.pick_by_pattern(assets.clone(), "*linux*64", |s| s.as_str());
        assert_eq!(picked.as_deref(), Some("cloudflared-linux-amd64"));

        // Order-independent.
        let assets_reordered = vec![
            "cloudflared-linux-amd64".to_string(),
            "cloudflared-fips-linux-amd64".to_string(),
        ];
        let picked = backend.pick_by_pattern(assets_reordered, "*linux*64", |s| s.as_str());
        assert_eq!(picked.as_deref(), Some("cloudflared-linux-amd64"));
    }

    #[test]
    fn test_pick_by_pattern_no_match() {
        let backend = create_test_backend();
        let assets = vec!["a.zip".to_string(), "b.zip".to_string()];
        let picked = backend.pick_by_pattern(assets, "c.zip", |s| s.as_str());
        assert!(picked.is_none());
    }

    #[test]
    fn test_pick_by_pattern_exact_match() {
        // Anchored pattern with no wildcards only matches one asset.
        let backend = create_test_backend();
        let assets = vec![
            "cloudflared-fips-linux-amd64".to_string(),
            "cloudflared-linux-amd64".to_string(),
        ];
        let picked = backend.pick_by_pattern(assets, "cloudflared-linux-amd64", |s| s.as_str());
        assert_eq!(picked.as_deref(), Some("cloudflared-linux-amd64"));
    }

    #[test]
    fn test_pick_slsa_provenance_follows_selected_foreign_platform_asset() {
        let picker = AssetPicker::with_libc("linux".to_string(), "x86_64".to_string(), None);
        let assets = vec![
            "wsl-secret-service-linux-amd64".to_string(),
            "wsl-secret-service-linux-amd64.intoto.jsonl".to_string(),
            "wincred-helper-windows-amd64.exe".to_string(),
            "wincred-helper-windows-amd64.exe.intoto.jsonl".to_string(),
        ];

        assert_eq!(
            pick_slsa_provenance(&picker, &assets, "wincred-helper-windows-amd64.exe").as_deref(),
            Some("wincred-helper-windows-amd64.exe.intoto.jsonl")
        );
    }

    #[test]
    fn test_pick_slsa_provenance_falls_back_to_platform_picker() {
        let picker = AssetPicker::with_libc("linux".to_string(), "x86_64".to_string(), None);
        let assets = vec![
            "tool-windows-amd64.provenance.json".to_string(),
            "tool-linux-amd64.provenance.json".to_string(),
        ];

        assert_eq!(
            pick_slsa_provenance(&picker, &assets, "tool-linux-amd64").as_deref(),
            Some("tool-linux-amd64.provenance.json")
        );
    }

    /// An artifact whose name looks like provenance must not be offered as its own
    /// provenance: downloading it a second time would replace the verified file.
    #[test]
    fn test_pick_slsa_provenance_never_returns_selected_asset() {
        let picker = AssetPicker::with_libc("linux".to_string(), "x86_64".to_string(), None);
        let assets = vec!["tool-linux-x64-provenance".to_string()];
        assert_eq!(
            pick_slsa_provenance(&picker, &assets, "tool-linux-x64-provenance"),
            None
        );

        let assets = vec![
            "tool-linux-x64-provenance".to_string(),
            "tool-linux-x64.provenance.json".to_string(),
        ];
        assert_eq!(
            pick_slsa_provenance(&picker, &assets, "tool-linux-x64-provenance").as_deref(),
            Some("tool-linux-x64.provenance.json")
        );
    }

    fn github_release(assets: Vec<&str>) -> github::GithubRelease {
        github::GithubRelease {
            tag_name: "v1.0.0".into(),
            draft: false,
            prerelease: false,
            created_at: "2026-01-01T00:00:00Z".into(),
            published_at: None,
            assets: assets
                .into_iter()
                .map(|name| github::GithubAsset {
                    from_versions_host: false,
                    name: name.into(),
                    browser_download_url: format!("https://example.com/{name}"),
                    url: format!("https://api.example.com/{name}"),
                    digest: None,
                    updated_at: None,
                })
                .collect(),
        }
    }

    fn gitlab_release(sources: Vec<&str>, links: Vec<&str>) -> gitlab::GitlabRelease {
        gitlab::GitlabRelease {
            tag_name: "v1.0.0".into(),
            description: None,
            created_at: None,
            released_at: None,
            assets: gitlab::GitlabAssets {
                sources: sources
                    .into_iter()
                    .map(|format| gitlab::GitlabAssetSource {
                        format: format.into(),
                        url: "https://example.com/source".into(),
                    })
                    .collect(),
                links: links
                    .into_iter()
                    .enumerate()
                    .map(|(i, name)| gitlab::GitlabAssetLink {
                        id: i as i64,
                        name: name.into(),
                        url: format!("https://example.com/{name}"),
                        direct_asset_url: format!("https://example.com/d/{name}"),
                        link_type: "other".into(),
                    })
                    .collect(),
            },
        }
    }

    fn forgejo_release(assets: Vec<&str>) -> forgejo::ForgejoRelease {
        forgejo::ForgejoRelease {
            id: 1,
            tag_name: "v1.0.0".into(),
            draft: false,
            prerelease: false,
            created_at: "2026-01-01T00:00:00Z".into(),
            assets: assets
                .into_iter()
                .enumerate()
                .map(|(i, name)| forgejo::ForgejoAsset {
                    id: i as u64,
                    name: name.into(),
                    uuid: format!("uuid-{i}"),
                    browser_download_url: format!("https://example.com/{name}"),
                })
                .collect(),
        }
    }

    #[test]
    fn test_a_release_with_no_assets_is_not_listable() {
        // Nothing is attached, so every asset-selection path would end in
        // "No matching asset found" -- there is no source archive fallback.
        // Measured cases: pypa/hatch hatch-v1.7.0 and kitlangton/ghui v0.3.3.
        assert!(!github_release_has_assets(&github_release(vec![])));
        assert!(github_release_has_assets(&github_release(vec![
            "tool-x86_64-unknown-linux-gnu.tar.gz"
        ])));

        assert!(!forgejo_release_has_assets(&forgejo_release(vec![])));
        assert!(forgejo_release_has_assets(&forgejo_release(vec![
            "tool-linux.tar.gz"
        ])));
    }

    #[test]
    fn test_a_configured_url_exempts_a_tool_from_the_asset_check() {
        // `url` short-circuits asset selection during install
        // (`resolve_asset_for_target` returns before any picker runs), so those
        // releases install without carrying an asset and must stay listed.
        let backend = create_test_backend();
        let has_url = |opts: &ToolVersionOptions| backend.options(opts).has_direct_url();

        assert!(!has_url(&ToolVersionOptions::default()));

        // A bare top-level `url` is *not* an exemption: install reads the
        // option through `platform_string_for_target_without_base`, which
        // resolves only the platform-scoped spellings and never falls back to
        // this one. Exempting it would keep asset-less releases listed for a
        // tool that still runs asset selection and still fails.
        let mut base = ToolVersionOptions::default();
        base.opts.insert(
            "url".into(),
            toml::Value::String("https://example.com/tool.tar.gz".into()),
        );
        assert!(!has_url(&base));

        // Platform-scoped, which is how the option has to be written to take
        // effect. The check has to see it without a target, because one version
        // list is shared across platforms.
        let mut scoped = ToolVersionOptions::default();
        let mut linux = toml::Table::new();
        linux.insert(
            "url".into(),
            toml::Value::String("https://example.com/tool-linux.tar.gz".into()),
        );
        let mut platforms = toml::Table::new();
        platforms.insert("linux-x64".into(), toml::Value::Table(linux));
        scoped
            .opts
            .insert("platforms".into(), toml::Value::Table(platforms));
        assert!(has_url(&scoped));

        // The flat spelling of the same thing.
        let mut flat = ToolVersionOptions::default();
        flat.opts.insert(
            "platform_linux_x64_url".into(),
            toml::Value::String("https://example.com/tool-linux.tar.gz".into()),
        );
        assert!(has_url(&flat));

        // An arch that contains an underscore still resolves: the split takes
        // the first underscore only.
        let mut underscored_arch = ToolVersionOptions::default();
        underscored_arch.opts.insert(
            "platform_linux_x86_64_url".into(),
            toml::Value::String("https://example.com/tool-linux.tar.gz".into()),
        );
        assert!(has_url(&underscored_arch));

        // Shapes that *look* platform-scoped but name no platform the install
        // path ever asks for. `lookup_platform_value_for_aliases` only builds
        // `{os}-{arch}` keys, so neither of these is ever read, and counting
        // them would list releases that cannot be installed.
        let mut nested_without_platform = ToolVersionOptions::default();
        let mut bare = toml::Table::new();
        bare.insert(
            "url".into(),
            toml::Value::String("https://example.com/tool.tar.gz".into()),
        );
        nested_without_platform
            .opts
            .insert("platforms".into(), toml::Value::Table(bare));
        assert!(!has_url(&nested_without_platform));

        let mut os_only_nested = ToolVersionOptions::default();
        let mut linux_only = toml::Table::new();
        linux_only.insert(
            "url".into(),
            toml::Value::String("https://example.com/tool.tar.gz".into()),
        );
        let mut os_only_platforms = toml::Table::new();
        os_only_platforms.insert("linux".into(), toml::Value::Table(linux_only));
        os_only_nested
            .opts
            .insert("platforms".into(), toml::Value::Table(os_only_platforms));
        assert!(!has_url(&os_only_nested));

        let mut os_only_flat = ToolVersionOptions::default();
        os_only_flat.opts.insert(
            "platform_linux_url".into(),
            toml::Value::String("https://example.com/tool.tar.gz".into()),
        );
        assert!(!has_url(&os_only_flat));

        // Values are judged by the two lookups the install path uses, not by a
        // separate rule here. A table has no scalar reading, so
        // `get_nested_string` returns `None` and asset selection still runs.
        let mut table_valued = ToolVersionOptions::default();
        let mut inner = toml::Table::new();
        inner.insert("href".into(), toml::Value::String("https://x".into()));
        let mut linux_table = toml::Table::new();
        linux_table.insert("url".into(), toml::Value::Table(inner));
        let mut table_platforms = toml::Table::new();
        table_platforms.insert("linux-x64".into(), toml::Value::Table(linux_table));
        table_valued
            .opts
            .insert("platforms".into(), toml::Value::Table(table_platforms));
        assert!(!has_url(&table_valued));

        // A non-string scalar *is* read: `get_nested_string` renders it, so
        // install short-circuits asset selection with the string "false" and
        // fails on the download rather than on asset matching. Rejecting it
        // here would filter releases out of a listing for a tool whose install
        // path never runs asset selection -- the direction that hides
        // installable versions.
        let mut boolean_valued = ToolVersionOptions::default();
        let mut linux_bool = toml::Table::new();
        linux_bool.insert("url".into(), toml::Value::Boolean(false));
        let mut bool_platforms = toml::Table::new();
        bool_platforms.insert("linux-x64".into(), toml::Value::Table(linux_bool));
        boolean_valued
            .opts
            .insert("platforms".into(), toml::Value::Table(bool_platforms));
        assert!(has_url(&boolean_valued));

        // A neighbouring option that merely ends in `url` is not one.
        let mut unrelated = ToolVersionOptions::default();
        unrelated.opts.insert(
            "api_url".into(),
            toml::Value::String("https://api.github.example".into()),
        );
        assert!(!has_url(&unrelated));

        // The two platform-scoped spellings of the same thing must agree, so
        // they cannot land in different cache partitions.
        assert_eq!(
            backend.options(&scoped).has_direct_url(),
            backend.options(&flat).has_direct_url()
        );
    }

    #[test]
    fn test_direct_url_cache_context_isolates_only_departures_from_the_registry() {
        // Both cases where the tool agrees with the registry share the default
        // partition — which is what keeps mise-versions usable. That matters
        // most for the second one: a registry entry that ships platform URLs
        // gives every client the same exemption, and mise-versions is built
        // from that same configuration.
        assert_eq!(direct_url_cache_context(false, false), None);
        assert_eq!(direct_url_cache_context(true, true), None);

        // A local config that adds an exemption the registry does not have, and
        // one that takes away an exemption the registry does have, are both
        // departures and both need their own entry.
        let added = direct_url_cache_context(true, false);
        let removed = direct_url_cache_context(false, true);
        assert!(added.is_some());
        assert!(removed.is_some());

        // ...and they are not the same entry: the two produce different lists.
        assert_ne!(added, removed);
    }

    #[test]
    fn test_a_local_platforms_table_cannot_erase_the_registry_url_baseline() {
        use crate::toolset::{ResolvedToolOptions, ToolOptionSource};

        let backend = create_test_backend();
        let has_url = |opts: &ToolVersionOptions| backend.options(opts).has_direct_url();

        // `platforms.<os>-<arch>.url`, the shape the install path reads.
        let platforms_url = |platform: &str| {
            let mut entry = toml::Table::new();
            entry.insert(
                "url".into(),
                toml::Value::String("https://example.com/tool.tar.gz".into()),
            );
            let mut platforms = toml::Table::new();
            platforms.insert(platform.into(), toml::Value::Table(entry));
            let mut opts = ToolVersionOptions::default();
            opts.opts
                .insert("platforms".into(), toml::Value::Table(platforms));
            opts
        };

        // The registry entry declares a platform URL, so every client gets the
        // exemption and the canonical listing is the unfiltered one.
        let registry = platforms_url("linux-x64");
        let baseline = has_url(&registry);
        assert!(baseline);

        // A local `[platforms]` table carrying no `url` replaces it wholesale.
        // This tool therefore *does* filter asset-less releases and must not
        // read the canonical listing.
        let mut local = ToolVersionOptions::default();
        let mut entry = toml::Table::new();
        entry.insert("checksum".into(), toml::Value::String("sha256:abc".into()));
        let mut platforms = toml::Table::new();
        platforms.insert("linux-x64".into(), toml::Value::Table(entry));
        local
            .opts
            .insert("platforms".into(), toml::Value::Table(platforms));

        let mut resolved = ResolvedToolOptions::default();
        resolved.apply_overrides(&registry, ToolOptionSource::Registry);
        resolved.apply_overrides(&local, ToolOptionSource::Config);
        let effective = has_url(resolved.effective());
        assert!(!effective);

        // Reading the registry entry itself keeps the baseline, so the
        // departure is seen and the listing gets its own partition.
        assert!(direct_url_cache_context(effective, baseline).is_some());

        // The provenance reconstruction this replaces loses it: `platforms` is
        // one top-level key, so the local table takes the attribution with it
        // and the registry-filtered view is empty. Both sides then read
        // `false`, no context is produced, and the filtered configuration lands
        // on the shared unfiltered partition.
        let reconstructed = resolved.options_from_sources(&[ToolOptionSource::Registry]);
        let lost_baseline = has_url(&reconstructed);
        assert!(!lost_baseline);
        assert_eq!(direct_url_cache_context(effective, lost_baseline), None);

        // The mirror case: a local table that moves the `url` to another
        // platform still matches the registry baseline, so it stays on the
        // shared partition rather than being isolated for nothing.
        let mut mirrored = ResolvedToolOptions::default();
        mirrored.apply_overrides(&registry, ToolOptionSource::Registry);
        mirrored.apply_overrides(&platforms_url("macos-arm64"), ToolOptionSource::Config);
        let moved_url = has_url(mirrored.effective());
        assert!(moved_url);
        assert_eq!(direct_url_cache_context(moved_url, baseline), None);
    }

    #[test]
    fn test_gitlab_auto_generated_sources_do_not_count_as_assets() {
        // The case that makes GitLab need its own predicate: `assets.sources`
        // is the auto-generated zip/tar.gz of the tag and is always populated,
        // so testing the whole `assets` struct would never exclude anything.
        // Only `links` is read by the install path.
        let sources_only = gitlab_release(vec!["zip", "tar.gz"], vec![]);
        assert!(!gitlab_release_has_assets(&sources_only));

        let with_link = gitlab_release(vec!["zip", "tar.gz"], vec!["tool-linux.tar.gz"]);
        assert!(gitlab_release_has_assets(&with_link));
    }

    #[test]
    fn test_version_prefix_functionality() {
        let backend = create_test_backend();
        let default_raw_opts = ToolVersionOptions::default();
        let default_opts = backend.options(&default_raw_opts);

        // Test with no version prefix configured
        assert_eq!(
            backend.strip_version_prefix("v1.0.0", &default_opts),
            "1.0.0"
        );
        assert_eq!(
            backend.strip_version_prefix("1.0.0", &default_opts),
            "1.0.0"
        );

        // Test projectname@version format - only strips if prefix matches repo name
        // Backend uses "github:test/repo" so repo short name is "repo", full name is "test/repo"
        assert_eq!(
            backend.strip_version_prefix("repo@0.15.0", &default_opts),
            "0.15.0"
        );
        assert_eq!(
            backend.strip_version_prefix("repo@1.2.3", &default_opts),
            "1.2.3"
        );
        // Also accepts full repo name as prefix
        assert_eq!(
            backend.strip_version_prefix("test/repo@2.0.0", &default_opts),
            "2.0.0"
        );
        // Should NOT strip if prefix doesn't match repo name (prevents listing
        // versions that can't be installed)
        assert_eq!(
            backend.strip_version_prefix("other_package@0.15.0", &default_opts),
            "other_package@0.15.0"
        );
        // Should not match if part after @ doesn't start with a digit
        assert_eq!(
            backend.strip_version_prefix("repo@beta", &default_opts),
            "repo@beta"
        );

        // Test with custom version prefix
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("release-".to_string()),
        );
        let opts = backend.options(&opts);

        assert_eq!(
            backend.strip_version_prefix("release-1.0.0", &opts),
            "1.0.0"
        );
        assert_eq!(backend.strip_version_prefix("1.0.0", &opts), "1.0.0");
        // A tag that repeats the prefix keeps one copy in the listed version.
        // The listed version is still installable: the install path prefixes it
        // again to get back to the tag. See `tag_candidates` in static_helpers.
        assert_eq!(
            backend.strip_version_prefix("release-release-1.0.0", &opts),
            "release-1.0.0"
        );
    }

    #[test]
    fn test_slsa_source_tag_must_name_the_version() {
        let backend = create_test_backend();
        let backend_arg = Arc::new(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ));
        let request =
            ToolRequest::new(backend_arg, "1.0.0", crate::toolset::ToolSource::Unknown).unwrap();
        let tv = ToolVersion::new(request, "1.0.0".to_string());
        let raw_opts = ToolVersionOptions::default();
        let opts = backend.options(&raw_opts);
        let release = |tag: &str| github::GithubRelease {
            tag_name: tag.into(),
            ..github_release(vec![])
        };

        for tag in ["v1.0.0", "1.0.0", "repo@1.0.0"] {
            assert_eq!(
                backend.slsa_source_tag(&tv, &opts, &release(tag)),
                Some(tag)
            );
        }
        // A release tagged for another version names no tag for 1.0.0:
        // checking against it would let 0.9.0's provenance pass.
        assert_eq!(
            backend.slsa_source_tag(&tv, &opts, &release("v0.9.0")),
            None
        );
    }

    #[test]
    fn test_matching_options_are_install_time_keys() {
        // `matching`/`matching_regex` must be install-time-only keys so a stale
        // cached filter from a prior install can't silently override what's in
        // mise.toml now. They are deliberately NOT folded into the install path
        // (that stays keyed by tool name + version) — `tool_alias` is the way to
        // install multiple binaries from one repo into distinct dirs.
        let keys = install_time_option_keys();
        assert!(keys.contains(&"matching".to_string()));
        assert!(keys.contains(&"matching_regex".to_string()));
    }

    #[test]
    fn test_additional_asset_patterns_is_an_install_time_key() {
        assert!(install_time_option_keys().contains(&"additional_asset_patterns".to_string()));
    }

    #[test]
    fn test_discover_bin_paths_keeps_bin_path_in_install_dir() {
        use crate::backend::static_helpers::test_tool_version;
        let backend = create_test_backend();

        let tv = test_tool_version(&backend, "1.0.0", &[("bin_path", "t-{{ version }}/bin")]);
        assert_eq!(
            backend.discover_bin_paths(&tv).unwrap(),
            vec![tv.install_path().join("t-1.0.0/bin")]
        );

        // The rendered value is what gets checked, not the template.
        for bin_path in ["/proc/self/cwd/evil", "../../evil", "{{ '..' }}/evil"] {
            let tv = test_tool_version(&backend, "1.0.0", &[("bin_path", bin_path)]);
            let err = backend.discover_bin_paths(&tv).unwrap_err();
            assert!(
                err.to_string().contains("inside the install directory"),
                "unexpected error for {bin_path:?}: {err}"
            );
        }
    }

    #[test]
    fn test_layout_options_are_install_time_keys() {
        for backend_type in [
            BackendType::Github,
            BackendType::Gitlab,
            BackendType::Forgejo,
        ] {
            for key in ["bin", "rename_exe", "bin_path"] {
                assert!(
                    crate::backend::is_install_time_option_key_for_type(&backend_type, key),
                    "{key} must be an install-time key for {backend_type:?}"
                );
            }
        }
    }

    #[test]
    fn test_lockfile_options_use_target_artifact_inputs() {
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "api_url".to_string(),
            toml::Value::String("https://github.example.com/api/v3".to_string()),
        );
        opts.opts.insert(
            "version_prefix".to_string(),
            toml::Value::String("release-".to_string()),
        );
        opts.opts.insert(
            "version_regex".to_string(),
            toml::Value::String(r"^release-\d".to_string()),
        );
        // matching/matching_regex are top-level (not per-platform) options; they
        // must round-trip into lockfile_options for every target so a relock on
        // another OS reproduces the same asset selection.
        opts.opts.insert(
            "matching".to_string(),
            toml::Value::String("tool".to_string()),
        );
        opts.opts.insert(
            "matching_regex".to_string(),
            toml::Value::String("^tool-".to_string()),
        );
        let mut platforms = toml::Table::new();
        let mut linux = toml::Table::new();
        linux.insert(
            "asset_pattern".to_string(),
            toml::Value::String("tool-*-linux.tar.gz".to_string()),
        );
        let mut windows = toml::Table::new();
        windows.insert(
            "asset_pattern".to_string(),
            toml::Value::String("tool-*-windows.zip".to_string()),
        );
        windows.insert("no_app".to_string(), toml::Value::Boolean(true));
        platforms.insert("linux-x64".to_string(), toml::Value::Table(linux));
        platforms.insert("windows-x64".to_string(), toml::Value::Table(windows));
        opts.opts
            .insert("platforms".to_string(), toml::Value::Table(platforms));

        let linux = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());
        let windows = PlatformTarget::new(crate::platform::Platform::parse("windows-x64").unwrap());

        assert_eq!(
            backend.options(&opts).lockfile_options(&linux),
            BTreeMap::from([
                (
                    "api_url".to_string(),
                    "https://github.example.com/api/v3".to_string()
                ),
                (
                    "asset_pattern".to_string(),
                    "tool-*-linux.tar.gz".to_string()
                ),
                ("matching".to_string(), "tool".to_string()),
                ("matching_regex".to_string(), "^tool-".to_string()),
                ("version_prefix".to_string(), "release-".to_string()),
                ("version_regex".to_string(), r"^release-\d".to_string()),
            ])
        );
        assert_eq!(
            backend.options(&opts).lockfile_options(&windows),
            BTreeMap::from([
                (
                    "api_url".to_string(),
                    "https://github.example.com/api/v3".to_string()
                ),
                (
                    "asset_pattern".to_string(),
                    "tool-*-windows.zip".to_string()
                ),
                ("matching".to_string(), "tool".to_string()),
                ("matching_regex".to_string(), "^tool-".to_string()),
                ("no_app".to_string(), "true".to_string()),
                ("version_prefix".to_string(), "release-".to_string()),
                ("version_regex".to_string(), r"^release-\d".to_string()),
            ])
        );
    }

    #[test]
    fn test_github_attestations_option_defaults_enabled() {
        let backend = create_test_backend();
        let opts = ToolVersionOptions::default();

        assert!(backend.options(&opts).github_attestations());
    }

    #[test]
    fn test_github_attestations_option_can_disable() {
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "github_attestations".to_string(),
            toml::Value::Boolean(false),
        );

        assert!(!backend.options(&opts).github_attestations());
    }

    #[test]
    fn test_slsa_requires_both_signer_options() {
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        assert!(backend.options(&opts).slsa_signer().is_none());
        opts.opts.insert(
            "slsa_signer_identity".to_string(),
            toml::Value::String("https://github.com/example/workflow@refs/heads/main".to_string()),
        );
        assert!(backend.options(&opts).slsa_signer().is_none());
        opts.opts.insert(
            "slsa_signer_issuer".to_string(),
            toml::Value::String("https://token.actions.githubusercontent.com".to_string()),
        );
        let signer = backend.options(&opts).slsa_signer().unwrap();
        assert_eq!(signer.issuer, "https://token.actions.githubusercontent.com");
    }

    #[test]
    fn test_slsa_signer_identity_renders_resolved_version() {
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "slsa_signer_identity".to_string(),
            toml::Value::String(
                "https://github.com/example/release.yml@refs/tags/v{{version}}".to_string(),
            ),
        );
        opts.opts.insert(
            "slsa_signer_issuer".to_string(),
            toml::Value::String("https://token.actions.githubusercontent.com".to_string()),
        );
        let ba = Arc::new(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ));
        let request = ToolRequest::new(ba, "1.2.3", crate::toolset::ToolSource::Unknown).unwrap();
        let tv = ToolVersion::new(request, "1.2.3".to_string());
        let (identity, issuer) = backend.options(&opts).slsa_signer_for(&tv).unwrap();
        assert_eq!(
            identity,
            "https://github.com/example/release.yml@refs/tags/v1.2.3"
        );
        assert_eq!(issuer, "https://token.actions.githubusercontent.com");
    }

    #[test]
    fn test_github_attestations_disabled_error_is_actionable() {
        let backend = Arc::new(BackendArg::new(
            "github:test/repo".to_string(),
            Some("github:test/repo".to_string()),
        ));
        let request =
            ToolRequest::new(backend, "1.0.0", crate::toolset::ToolSource::Unknown).unwrap();
        let tv = ToolVersion::new(request, "1.0.0".to_string());

        let msg = github_attestations_disabled_for_tool_error(&tv).to_string();

        assert!(msg.contains("github_attestations is disabled for this tool"));
        assert!(msg.contains("mise lock"));
        assert!(msg.contains("remove github_attestations = false"));
    }

    #[test]
    fn test_matching_for_provenance_suppressed_when_asset_pattern_set() {
        // `asset_pattern` selects the binary directly and ignores `matching`, so
        // provenance must NOT be narrowed by `matching` on that path — otherwise a
        // self-contradictory config could attach a *different* binary's provenance
        // than `asset_pattern` picked, and an invalid `matching_regex` (never
        // validated on the asset_pattern path) could silently skip verification.
        let backend = create_test_backend();
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "matching".to_string(),
            toml::Value::String("oxlint".to_string()),
        );
        opts.opts.insert(
            "matching_regex".to_string(),
            toml::Value::String("^oxlint-".to_string()),
        );
        // asset_pattern set for linux only, not for macos.
        let mut platforms = toml::Table::new();
        let mut linux = toml::Table::new();
        linux.insert(
            "asset_pattern".to_string(),
            toml::Value::String("oxlint-*-linux.tar.gz".to_string()),
        );
        platforms.insert("linux-x64".to_string(), toml::Value::Table(linux));
        opts.opts
            .insert("platforms".to_string(), toml::Value::Table(platforms));

        let linux = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());
        let macos = PlatformTarget::new(crate::platform::Platform::parse("macos-arm64").unwrap());

        // asset_pattern set for this target -> matching suppressed for provenance.
        assert_eq!(
            backend
                .options(&opts)
                .matching_for_provenance(&linux, false),
            (None, None)
        );
        // No asset_pattern for this target -> matching flows through to provenance.
        assert_eq!(
            backend
                .options(&opts)
                .matching_for_provenance(&macos, false),
            (Some("oxlint"), Some("^oxlint-"))
        );
    }

    #[test]
    fn test_matching_plumbing_parity_across_git_backends() {
        // The github/gitlab/forgejo backends share one option struct
        // (`GitBackendOptions`) and one `AssetMatcher`, but each has its OWN
        // `resolve_*_asset_url_for_target` function that threads
        // `matching`/`matching_regex` separately (copy-paste identical today, with
        // only backend-specific asset/digest plumbing differing). This test guards
        // the shared seams those three paths depend on from drifting per backend
        // type: the option accessors, lockfile serialization, and install-time-key
        // inheritance must behave identically for all three. The resolve functions
        // themselves are covered end-to-end for github by
        // e2e/backend/test_github_matching, and the matcher all three feed is
        // covered by the asset_matcher unit tests.
        let mut opts = ToolVersionOptions::default();
        opts.opts.insert(
            "matching".to_string(),
            toml::Value::String("oxlint".to_string()),
        );
        opts.opts.insert(
            "matching_regex".to_string(),
            toml::Value::String("^oxlint-".to_string()),
        );
        let target = PlatformTarget::new(crate::platform::Platform::parse("linux-x64").unwrap());

        // Guard that the helpers really build distinct backend types, so the loop
        // below genuinely exercises gitlab/forgejo and isn't three githubs.
        assert!(create_test_gitlab_backend().is_gitlab());
        assert!(create_test_forgejo_backend().is_forgejo());

        for backend in [
            create_test_backend(),
            create_test_gitlab_backend(),
            create_test_forgejo_backend(),
        ] {
            let backend_type = backend.ba.backend_type();
            let resolved = backend.options(&opts);

            // Accessors the three resolve_*_asset_url_for_target functions read.
            assert_eq!(
                resolved.matching(),
                Some("oxlint"),
                "matching() must be readable for {backend_type:?}"
            );
            assert_eq!(
                resolved.matching_regex(),
                Some("^oxlint-"),
                "matching_regex() must be readable for {backend_type:?}"
            );

            // Both keys must round-trip to the lockfile for every git backend so a
            // relock on another platform reproduces the same asset selection.
            let lf = resolved.lockfile_options(&target);
            assert_eq!(
                lf.get("matching").map(String::as_str),
                Some("oxlint"),
                "matching must round-trip to lockfile for {backend_type:?}"
            );
            assert_eq!(
                lf.get("matching_regex").map(String::as_str),
                Some("^oxlint-"),
                "matching_regex must round-trip to lockfile for {backend_type:?}"
            );

            // Cache-keying: a stale cached filter must never silently override
            // mise.toml, so both keys must be install-time keys for every type
            // (gitlab/forgejo inherit github's list via the routing in mod.rs).
            let itk = crate::backend::install_time_option_keys_for_type(&backend_type);
            assert!(
                itk.contains(&"matching".to_string())
                    && itk.contains(&"matching_regex".to_string()),
                "matching/matching_regex must be install-time keys for {backend_type:?}"
            );
            // ...including the per-platform `platforms.<target>.matching` form the
            // stale-cache check uses.
            assert!(
                crate::backend::is_install_time_option_key_for_type(&backend_type, "matching")
                    && crate::backend::is_install_time_option_key_for_type(
                        &backend_type,
                        "platforms.linux-x64.matching"
                    ),
                "is_install_time_option_key_for_type must report matching for {backend_type:?}"
            );
        }
    }

    #[test]
    fn test_find_asset_case_insensitive() {
        let backend = create_test_backend();

        // Mock asset structs for testing
        struct TestAsset {
            name: String,
        }

        let assets = vec![
            TestAsset {
                name: "tool-1.0.0-linux-x86_64.tar.gz".to_string(),
            },
            TestAsset {
                name: "tool-1.0.0-Darwin-x86_64.tar.gz".to_string(),
            },
            TestAsset {
                name: "tool-1.0.0-Windows-x86_64.zip".to_string(),
            },
        ];

        // Test exact match (should find immediately)
        let result =
            backend.find_asset_case_insensitive(&assets, "tool-1.0.0-linux-x86_64.tar.gz", |a| {
                &a.name
            });
        assert!(result.is_some());
        assert_eq!(result.unwrap().name, "tool-1.0.0-linux-x86_64.tar.gz");

        // Test case-insensitive match for Darwin (capital D)
        let result = backend.find_asset_case_insensitive(
            &assets,
            "tool-1.0.0-darwin-x86_64.tar.gz", // lowercase 'd'
            |a| &a.name,
        );
        assert!(result.is_some());
        assert_eq!(result.unwrap().name, "tool-1.0.0-Darwin-x86_64.tar.gz");

        // Test case-insensitive match for Windows (capital W)
        let result = backend.find_asset_case_insensitive(
            &assets,
            "tool-1.0.0-windows-x86_64.zip", // lowercase 'w'
            |a| &a.name,
        );
        assert!(result.is_some());
        assert_eq!(result.unwrap().name, "tool-1.0.0-Windows-x86_64.zip");

        // Test no match
        let result =
            backend.find_asset_case_insensitive(&assets, "nonexistent-asset.tar.gz", |a| &a.name);
        assert!(result.is_none());
    }

    #[test]
    fn test_is_slsa_format_issue_no_attestations() {
        let err = crate::github::sigstore::AttestationError::NoAttestations;
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_invalid_format() {
        // This is the exact error from BuildKit raw provenance files parsed line-by-line
        let err = crate::github::sigstore::AttestationError::Verification(
            "File does not contain valid attestations or SLSA provenance".to_string(),
        );
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_no_certificate() {
        let err = crate::github::sigstore::AttestationError::Verification(
            "No certificate found in attestation bundle".to_string(),
        );
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_no_dsse_envelope() {
        let err = crate::github::sigstore::AttestationError::Verification(
            "Bundle has neither DSSE envelope nor message signature".to_string(),
        );
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_real_verification_failure() {
        // Digest mismatch = real verification failure, NOT a format issue
        let err = crate::github::sigstore::AttestationError::Verification(
            "Artifact digest mismatch: expected abc123".to_string(),
        );
        assert!(!is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_signature_failure() {
        // Signature verification failure = real failure, NOT a format issue
        let err = crate::github::sigstore::AttestationError::Verification(
            "P-256 signature verification failed: invalid signature".to_string(),
        );
        assert!(!is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_api_error() {
        let err = crate::github::sigstore::AttestationError::Api("connection refused".to_string());
        assert!(!is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_sigstore_missing_field() {
        // mise-sigstore maps sigstore-verify's "missing field …" JSON parse
        // failures into the Sigstore variant. Treat those as format issues.
        let err = crate::github::sigstore::AttestationError::Sigstore(
            "JSON error: missing field `verificationMaterial` at line 1 column 8480".to_string(),
        );
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_is_slsa_format_issue_unsupported_format() {
        let err = crate::github::sigstore::AttestationError::UnsupportedFormat(
            "Not an SLSA provenance predicate: https://in-toto.io/Statement/v1".to_string(),
        );
        assert!(is_slsa_format_issue(&err));
    }

    #[test]
    fn test_attestations_supported_default_api() {
        assert!(attestations_supported("https://api.github.com"));
        // Trailing slashes are common when users hand-write api_url
        assert!(attestations_supported("https://api.github.com/"));
    }

    #[test]
    fn test_attestations_supported_custom_api_url() {
        assert!(!attestations_supported("https://ghe.example.com/api/v3"));
        assert!(!attestations_supported("https://gitlab.com/api/v4"));
        assert!(!attestations_supported("https://codeberg.org/api/v1"));
    }
}
