"""
Plugin loader - discovers and loads plugins from entry points and local wheels.
"""

import importlib
import importlib.metadata
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple, TypedDict
from zipfile import ZipFile

from packaging import version as packaging_version

from ggshield import __version__ as ggshield_version
from ggshield.core.config.enterprise_config import EnterpriseConfig
from ggshield.core.dirs import (
    get_cache_dir,
    get_plugins_dir,
    get_system_plugins_dir,
    is_root,
)
from ggshield.core.plugin.base import GGShieldPlugin, PluginMetadata
from ggshield.core.plugin.registry import PluginRegistry
from ggshield.core.plugin.signature import (
    SignatureStatus,
    SignatureVerificationError,
    SignatureVerificationMode,
    verify_wheel_signature,
)
from ggshield.core.plugin.trust import PluginTrustStore, compute_file_sha256


class WheelInfo(TypedDict):
    name: str
    version: str
    path: Path
    entry_point_name: Optional[str]


logger = logging.getLogger(__name__)

PLUGIN_ENTRY_POINT_GROUP = "ggshield.plugins"


def parse_entry_point_from_content(content: str) -> Optional[Tuple[str, str]]:
    """Parse entry_points.txt to find the ggshield.plugins entry.

    Returns (name, value) or None.
    """
    import configparser

    parser = configparser.ConfigParser()
    parser.optionxform = str  # type: ignore # preserve case
    parser.read_string(content)
    if not parser.has_section(PLUGIN_ENTRY_POINT_GROUP):
        return None
    items = parser.items(PLUGIN_ENTRY_POINT_GROUP)
    if not items:
        return None
    return items[0]


def read_entry_point_from_wheel(wheel_path: Path) -> Optional[Tuple[str, str]]:
    """Read ggshield.plugins entry point from a wheel.

    Returns (name, value) or None.
    """
    try:
        with ZipFile(wheel_path, "r") as zf:
            for zip_name in zf.namelist():
                if zip_name.endswith("entry_points.txt"):
                    content = zf.read(zip_name).decode("utf-8")
                    return parse_entry_point_from_content(content)
    except Exception as e:
        logger.debug("Failed to read wheel entry points: %s", e)
    return None


def resolve_config_key(wheel_path: Path, fallback: str) -> str:
    """Return the key to use when calling ``EnterpriseConfig.enable_plugin``.

    ``PluginLoader.discover_plugins`` keys wheel-installed plugins by
    their ``ggshield.plugins`` entry-point name when present, and only
    falls back to the wheel's distribution name when no entry point is
    declared. Enablement is checked against that same key. If install
    (or update) writes the config under the distribution name while
    discovery looks it up under the entry-point name, the plugin ends
    up silently disabled: install reports success but ``plugin list``
    shows it off and the plugin never loads.

    Reading the entry point from the wheel on the write side makes the
    two layers agree, regardless of whether the upstream package picked
    matching or divergent names. The fallback covers wheels that
    declare no entry point and wheels that error during decoding
    (``read_entry_point_from_wheel`` returns ``None`` in both cases —
    indistinguishable here, and the next step after ``enable_plugin``
    is the loader itself which will surface a real diagnostic).

    ``wheel_path`` is the installed wheel returned by the downloader
    and exists on every success path; the ``.exists()`` guard is
    defensive against future refactors that might pass a path before
    the wheel is on disk.
    """
    if not wheel_path.exists():
        return fallback
    entry_point = read_entry_point_from_wheel(wheel_path)
    if entry_point is None:
        return fallback
    return entry_point[0]


def enable_installed_plugin(
    enterprise_config: EnterpriseConfig,
    plugin_name: str,
    version: str,
    wheel_path: Path,
) -> str:
    """Enable the canonical plugin key and migrate any stale aliases.

    Older ggshield versions wrote the enable row under the wheel's
    distribution name; the loader now keys discovery on the
    ``ggshield.plugins`` entry-point name. After a fresh install or
    update we therefore need to:

    1. Write the canonical row under the entry-point name (so
       ``discover_plugins`` finds it enabled).
    2. Remove any pre-existing row under a known alias (the caller's
       ``plugin_name`` — catalog reference or distribution name — and
       the wheel's distribution name as encoded in
       ``wheel_path.parent.name``).
    3. Carry over the user's ``auto_update`` choice from any removed
       alias so an explicit ``auto_update: false`` survives the
       migration. When more than one alias exists, the strictest
       (``False``) wins so user intent is never silently relaxed.

    Update.py passes the loader's discovered canonical name as
    ``plugin_name`` (already the entry-point name), so the legacy
    alias only becomes visible via ``wheel_path.parent.name``. Install
    paths pass either the catalog reference or the distribution name,
    both of which become aliases here.
    """
    config_key = resolve_config_key(wheel_path, fallback=plugin_name)

    legacy_keys = {plugin_name, wheel_path.parent.name}
    legacy_keys.discard(config_key)

    carried_auto_update: Optional[bool] = None
    for legacy_key in legacy_keys:
        legacy = enterprise_config.plugins.get(legacy_key)
        if legacy is None:
            continue
        # Honor the strictest setting found across aliases.
        if carried_auto_update is None or not legacy.auto_update:
            carried_auto_update = legacy.auto_update
        enterprise_config.remove_plugin(legacy_key)

    enterprise_config.enable_plugin(config_key, version=version)
    if carried_auto_update is not None:
        enterprise_config.plugins[config_key].auto_update = carried_auto_update
    return config_key


@dataclass
class DiscoveredPlugin:
    """Information about a discovered plugin."""

    name: str
    entry_point: Optional[importlib.metadata.EntryPoint]
    wheel_path: Optional[Path]
    is_installed: bool
    is_enabled: bool
    version: Optional[str]


class PluginLoader:
    """Discovers and loads ggshield plugins from entry points and local wheels."""

    def __init__(
        self,
        enterprise_config: EnterpriseConfig,
        signature_mode: Optional[SignatureVerificationMode] = None,
    ) -> None:
        self.enterprise_config = enterprise_config
        self.plugins_dir = get_plugins_dir()
        self.trust_store = PluginTrustStore(plugins_dir=self.plugins_dir)
        self.signature_mode = (
            signature_mode
            if signature_mode is not None
            else SignatureVerificationMode.STRICT
        )

    def discover_plugins(self) -> List[DiscoveredPlugin]:
        """Discover all available plugins from entry points and local wheels."""
        discovered: Dict[str, DiscoveredPlugin] = {}

        # 1. Discover from local wheels first and track their entry point names
        local_entry_point_names: set[str] = set()
        for wheel_info in self._scan_local_wheels():
            plugin_name: str = wheel_info["name"]
            wheel_path: Path = wheel_info["path"]
            wheel_version: str = wheel_info["version"]
            entry_point_name: Optional[str] = wheel_info["entry_point_name"]

            # Use entry point name as key if available, otherwise package name.
            # Older installs may have enabled the wheel distribution/package name
            # before ggshield learned the entry-point key. Treat that package name
            # as an alias so an installed+enabled plugin does not silently miss its
            # top-level commands.
            key = entry_point_name if entry_point_name else plugin_name
            if entry_point_name:
                local_entry_point_names.add(entry_point_name)

            is_enabled = self._is_enabled(key)
            if key not in self.enterprise_config.plugins and plugin_name != key:
                is_enabled = self._is_enabled(plugin_name)

            discovered[key] = DiscoveredPlugin(
                name=key,
                entry_point=None,
                wheel_path=wheel_path,
                is_installed=True,
                is_enabled=is_enabled,
                version=wheel_version,
            )

        # 2. Discover from entry points (skip if already found in local wheels)
        for ep in self._get_entry_points():
            plugin_name = ep.name
            # Skip if this entry point is provided by a local wheel
            if plugin_name in local_entry_point_names:
                continue
            discovered[plugin_name] = DiscoveredPlugin(
                name=plugin_name,
                entry_point=ep,
                wheel_path=None,
                is_installed=True,
                is_enabled=self._is_enabled(plugin_name),
                version=self._get_entry_point_version(ep),
            )

        return list(discovered.values())

    def load_enabled_plugins(self) -> PluginRegistry:
        """Load all enabled plugins and return a populated registry."""
        registry = PluginRegistry()

        for discovered in self.discover_plugins():
            if not discovered.is_enabled:
                logger.debug("Skipping disabled plugin: %s", discovered.name)
                continue

            try:
                plugin = self._load_plugin(discovered)
                if plugin is None:
                    registry.record_load_failure(discovered.name, "could not be loaded")
                    continue

                if not self._check_version_compatibility(plugin.metadata):
                    reason = (
                        "requires ggshield >= %s" % plugin.metadata.min_ggshield_version
                    )
                    logger.warning(
                        "Plugin %s %s, skipping", plugin.metadata.name, reason
                    )
                    registry.record_load_failure(discovered.name, reason)
                    continue

                plugin.on_load()
                plugin.register(registry)
                registry.register_plugin(plugin)

                logger.info(
                    "Loaded plugin: %s v%s",
                    plugin.metadata.name,
                    plugin.metadata.version,
                )

            except Exception as e:
                logger.warning("Failed to load plugin %s: %s", discovered.name, e)
                registry.record_load_failure(discovered.name, str(e))

        return registry

    def _load_plugin(self, discovered: DiscoveredPlugin) -> Optional[GGShieldPlugin]:
        """Load a single plugin from discovery info."""
        if discovered.wheel_path:
            return self._load_from_wheel(discovered.wheel_path)
        elif discovered.entry_point:
            return self._load_from_entry_point(discovered.entry_point)
        return None

    def _load_from_entry_point(
        self, ep: importlib.metadata.EntryPoint
    ) -> GGShieldPlugin:
        """Load a plugin from an entry point."""
        plugin_class = ep.load()
        return plugin_class()

    def _load_from_wheel(self, wheel_path: Path) -> Optional[GGShieldPlugin]:
        """Load a plugin from a local wheel file.

        Wheels are extracted to a directory before loading because Python
        cannot import native extensions (.so/.pyd) directly from zip files.
        """
        try:
            sig_info = verify_wheel_signature(wheel_path, self.signature_mode)
            if sig_info.status == SignatureStatus.VALID:
                logger.info(
                    "Signature valid for %s (identity: %s)",
                    wheel_path.name,
                    sig_info.identity,
                )
            elif sig_info.status in (
                SignatureStatus.MISSING,
                SignatureStatus.INVALID,
            ):
                logger.warning(
                    "Signature %s for %s: %s",
                    sig_info.status.value,
                    wheel_path.name,
                    sig_info.message or "",
                )
        except SignatureVerificationError as e:
            if (
                self.signature_mode == SignatureVerificationMode.STRICT
                and self._is_trusted_unsigned_plugin(wheel_path)
            ):
                logger.warning(
                    "Allowing trusted unsigned plugin %s after signature verification failed: %s",
                    wheel_path.name,
                    e,
                )
            else:
                logger.error(
                    "Signature verification failed for %s: %s",
                    wheel_path.name,
                    e,
                )
                return None

        # Extract wheel to a per-user cache directory instead of next to the
        # installed wheel. This keeps loading working when a wheel is installed
        # in a shared/root-owned data directory but the current user can still
        # read it.
        extract_dir = self._get_extract_dir(wheel_path)

        try:
            # In STRICT mode, always re-extract after verification so imports
            # come from the wheel bytes we just checked.
            if self.signature_mode == SignatureVerificationMode.STRICT or (
                not extract_dir.exists()
                or wheel_path.stat().st_mtime > extract_dir.stat().st_mtime
            ):
                if extract_dir.exists():
                    shutil.rmtree(extract_dir)
                extract_dir.parent.mkdir(parents=True, exist_ok=True)

                from ggshield.utils.archive import safe_unpack

                safe_unpack(wheel_path, extract_dir)

            self._prune_stale_extract_dirs(extract_dir)

            # Add extracted directory to sys.path
            extract_str = str(extract_dir)
            if extract_str not in sys.path:
                sys.path.append(extract_str)

            entry_point_str = self._read_wheel_entry_point(wheel_path)
            if not entry_point_str:
                logger.warning("No entry point found in wheel: %s", wheel_path)
                return None

            module_name, class_name = entry_point_str.split(":")
            module = importlib.import_module(module_name)
            plugin_class = getattr(module, class_name)
            return plugin_class()
        except Exception as e:
            # Propagate so load_enabled_plugins records the real reason, e.g. a
            # native ABI mismatch (manylinux wheel on a musl host).
            logger.debug("Wheel load failed for %s: %s", wheel_path, e)
            raise

    def _prune_stale_extract_dirs(self, keep_dir: Path) -> None:
        """Remove stale extraction dirs for the same plugin cache bucket."""
        parent = keep_dir.parent
        if not parent.exists():
            return

        for path in parent.iterdir():
            if path == keep_dir or not path.is_dir():
                continue
            if not path.name.endswith("_extracted"):
                continue
            try:
                shutil.rmtree(path)
            except OSError as exc:
                if self._is_foreign_owned(path):
                    logger.warning(
                        "Cannot prune stale plugin extraction dir %s: it is "
                        "owned by another user (sudo install residue?). "
                        "Remove it manually: sudo rm -rf '%s'",
                        path,
                        path,
                    )
                else:
                    logger.debug(
                        "Failed to remove stale plugin extraction dir %s: %s",
                        path,
                        exc,
                    )

    @staticmethod
    def _is_foreign_owned(path: Path) -> bool:
        """True when path belongs to another POSIX user (always False on Windows)."""
        geteuid = getattr(os, "geteuid", None)
        if geteuid is None:
            return False
        try:
            return path.lstat().st_uid != geteuid()
        except OSError:
            return False

    def _get_extract_cache_dir(self) -> Path:
        """Return the cache dir used for extracted plugin wheels.

        `sudo -E` on Unix can preserve a non-root HOME, which makes platformdirs
        point root at the invoking user's cache dir. Do not create root-owned
        extraction trees there: use root's own cache unless GG_CACHE_DIR was set
        explicitly.
        """
        if os.environ.get("GG_CACHE_DIR"):
            return get_cache_dir()

        if sys.platform != "win32" and hasattr(os, "geteuid") and os.geteuid() == 0:
            home = os.environ.get("HOME")
            try:
                if home and Path(home).exists() and Path(home).stat().st_uid != 0:
                    import pwd

                    root_home = Path(pwd.getpwuid(0).pw_dir)
                    if sys.platform == "darwin":
                        return root_home / "Library" / "Caches" / "ggshield"
                    return root_home / ".cache" / "ggshield"
            except (KeyError, OSError):
                pass

        return get_cache_dir()

    def _get_extract_dir(self, wheel_path: Path) -> Path:
        """Return the per-user extraction directory for an installed wheel."""
        wheel_hash = compute_file_sha256(wheel_path)[:16]
        return (
            self._get_extract_cache_dir()
            / "plugins"
            / wheel_path.parent.name
            / f"{wheel_path.stem}-{wheel_hash}_extracted"
        )

    def _is_trusted_unsigned_plugin(self, wheel_path: Path) -> bool:
        """Return True when the current wheel hash matches a persisted trust record."""
        plugin_name = wheel_path.parent.name
        wheel_sha256 = compute_file_sha256(wheel_path)
        stores = self._trust_stores_for(wheel_path)

        if any(store.is_trusted(plugin_name, wheel_sha256) for store in stores):
            return True

        if any(store.get_record(plugin_name) is not None for store in stores):
            logger.warning(
                "Stored trust for %s does not match the current wheel hash, refusing to load it",
                plugin_name,
            )
        return False

    def _trust_stores_for(self, wheel_path: Path) -> List[PluginTrustStore]:
        """Trust stores that may hold a record for ``wheel_path``.

        Always the per-user store this loader was built with; plus the
        system store when the wheel lives under the machine-wide plugins
        dir. A plugin root installed with ``--allow-unsigned`` records its
        trust next to the *system* plugins, so without consulting that
        store strict startup verification would reject the admin-installed
        wheel for every non-root user."""
        stores = [self.trust_store]
        system_plugins_dir = get_system_plugins_dir()
        if (
            wheel_path.parent.parent == system_plugins_dir
            and system_plugins_dir != self.plugins_dir
        ):
            stores.append(PluginTrustStore(plugins_dir=system_plugins_dir))
        return stores

    def _read_wheel_entry_point(self, wheel_path: Path) -> Optional[str]:
        """Read the ggshield.plugins entry point value from a wheel's metadata."""
        result = read_entry_point_from_wheel(wheel_path)
        return result[1] if result else None

    def _read_wheel_entry_point_name(self, wheel_path: Path) -> Optional[str]:
        """Read the entry point name from a wheel's entry_points.txt."""
        result = read_entry_point_from_wheel(wheel_path)
        return result[0] if result else None

    def _get_entry_points(self) -> Iterator[importlib.metadata.EntryPoint]:
        """Get all entry points in the ggshield.plugins group."""
        if sys.version_info >= (3, 10):
            eps = importlib.metadata.entry_points(group=PLUGIN_ENTRY_POINT_GROUP)
            yield from eps
        else:
            all_eps = importlib.metadata.entry_points()
            yield from all_eps.get(PLUGIN_ENTRY_POINT_GROUP, [])

    def _scan_local_wheels(self) -> Iterator[WheelInfo]:
        """Scan both plugin dirs for installed wheels.

        The winning layer is yielded last (``discover_plugins`` keys by name,
        last write wins), mirroring :meth:`EnterpriseConfig.load_effective`:

        - Non-root: system then per-user, so a user's own install of a plugin
          overrides the machine-wide one.
        - Root: per-user then system, so a fresh machine-wide install wins over
          a stale pre-machine-wide ``/root`` wheel, while a pre-existing root
          install under the old per-user dir stays loadable until migrated."""
        if is_root():
            scan_dirs: Tuple[Path, ...] = (get_plugins_dir(), get_system_plugins_dir())
        else:
            scan_dirs = (get_system_plugins_dir(), self.plugins_dir)
        seen: list[Path] = []
        for plugins_dir in scan_dirs:
            if plugins_dir in seen:
                continue
            seen.append(plugins_dir)
            yield from self._scan_wheels_in(plugins_dir)

    def _scan_wheels_in(self, plugins_dir: Path) -> Iterator[WheelInfo]:
        import json

        if not plugins_dir.exists():
            return

        for plugin_dir in plugins_dir.iterdir():
            if not plugin_dir.is_dir():
                continue

            manifest_path = plugin_dir / "manifest.json"
            if manifest_path.exists():
                try:
                    manifest = json.loads(manifest_path.read_text())
                    wheel_filename = manifest.get("wheel_filename", "")
                    wheel_path = plugin_dir / wheel_filename

                    if wheel_path.exists():
                        # Extract entry point name from wheel for deduplication
                        entry_point_name = self._read_wheel_entry_point_name(wheel_path)
                        yield WheelInfo(
                            name=manifest["plugin_name"],
                            version=manifest["version"],
                            path=wheel_path,
                            entry_point_name=entry_point_name,
                        )
                except (json.JSONDecodeError, KeyError) as e:
                    logger.warning("Invalid manifest in %s: %s", plugin_dir, e)

    def _is_enabled(self, plugin_name: str) -> bool:
        """Check if a plugin is enabled in config."""
        plugin_config = self.enterprise_config.plugins.get(plugin_name)
        if plugin_config is None:
            return False
        return plugin_config.enabled

    def _get_entry_point_version(
        self, ep: importlib.metadata.EntryPoint
    ) -> Optional[str]:
        """Get the version of a package providing an entry point."""
        try:
            module_path = ep.value.split(":")[0]
            package_name = module_path.split(".")[0]
            dist = importlib.metadata.distribution(package_name)
            return dist.version
        except (importlib.metadata.PackageNotFoundError, IndexError):
            return None

    def _check_version_compatibility(self, metadata: PluginMetadata) -> bool:
        """Check if plugin is compatible with current ggshield version."""
        try:
            current = packaging_version.parse(ggshield_version)
            required = packaging_version.parse(metadata.min_ggshield_version)
            return current >= required
        except Exception as e:
            logger.error(
                "Failed to parse version for plugin %s (requires %s): %s",
                metadata.name,
                metadata.min_ggshield_version,
                e,
            )
            return False
