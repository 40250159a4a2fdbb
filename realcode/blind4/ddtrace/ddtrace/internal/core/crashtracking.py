# pyright: reportPossiblyUnboundVariable=false
import importlib.util
import os
import platform
import sys
import traceback
from types import TracebackType
from typing import Optional

from ddtrace import config
from ddtrace import version
from ddtrace.internal import excepthook
from ddtrace.internal import forksafe
from ddtrace.internal import process_tags
from ddtrace.internal._runtime_id import get_runtime_id
from ddtrace.internal.compat import ensure_text
from ddtrace.internal.logger import get_logger
from ddtrace.internal.settings import env
from ddtrace.internal.settings._agent import config as agent_config
from ddtrace.internal.settings.crashtracker import config as crashtracker_config
from ddtrace.internal.settings.profiling import config as profiling_config
from ddtrace.internal.settings.profiling import config_str


log = get_logger(__name__)

# Native bindings exist only when this import succeeds. Call sites gate on ``is_available``
# or return immediately from ``_get_args`` when native is absent (pyright cannot prove that).
try:
    from ddtrace.internal.native._native import CrashtrackerConfiguration
    from ddtrace.internal.native._native import CrashtrackerMetadata
    from ddtrace.internal.native._native import CrashtrackerReceiverConfig
    from ddtrace.internal.native._native import CrashtrackerStatus
    from ddtrace.internal.native._native import StacktraceCollection
    from ddtrace.internal.native._native import crashtracker_init
    from ddtrace.internal.native._native import crashtracker_on_fork
    from ddtrace.internal.native._native import crashtracker_report_unhandled_exception
    from ddtrace.internal.native._native import crashtracker_status

    is_available = True
except ImportError:  # pragma: no cover
    is_available = False


def _get_tags(additional_tags: Optional[dict[str, str]]) -> dict[str, str]:
    tags = {
        "language": "python",
        "runtime": "CPython",
        "is_crash": "true",
        "severity": "crash",
    }

    # Here we check for the presence of each tags, as the underlying Metadata
    # object expects std::collections::HashMap<String, String> which doesn't
    # support None values.
    if config.env:
        tags["env"] = config.env
    if config.service:
        tags["service"] = config.service
    if config.version:
        tags["version"] = config.version
    runtime_id = get_runtime_id()
    if runtime_id:
        tags["runtime_id"] = runtime_id
    runtime_version = platform.python_version()
    if runtime_version:
        tags["runtime_version"] = runtime_version
    library_version = version.__version__
    if library_version:
        tags["library_version"] = library_version
    if p_tags := process_tags.process_tags:
        tags["process_tags"] = p_tags

    for k, v in crashtracker_config.tags.items():
        if k and v:
            tags[k] = v

    if additional_tags:
        for k, v in additional_tags.items():
            if k and v:
                tags[k] = v

    if profiling_config.enabled:
        tags["profiler_config"] = config_str(profiling_config)

    # Another thing to note is that these tag keys and values can be bytes
    # objects, so we need to ensure that they are converted to strings as
    # PyO3 can't convert bytes objects to Rust String type.
    tags = {ensure_text(k): ensure_text(v) for k, v in tags.items()}

    return tags


def _get_args(additional_tags: Optional[dict[str, str]]):
    if not is_available:
        return (None, None, None)

    # Instead of searching PATH for the receiver binary, invoke the receiver script
    # directly with the current Python interpreter. This is more reliable and doesn't
    # depend on PATH configuration.
    python_executable = sys.executable

    # Get the path to the receiver script module
    spec = importlib.util.find_spec("ddtrace.commands._dd_crashtracker_receiver")
    if spec is None:
        log.error("Failed to locate _dd_crashtracker_receiver module")
        return (None, None, None)

    receiver_script_path = spec.origin
    if not receiver_script_path:
        log.error("Failed to resolve path to _dd_crashtracker_receiver module")
        return (None, None, None)

    if crashtracker_config.stacktrace_resolver is None:
        stacktrace_resolver = StacktraceCollection.Disabled
    elif crashtracker_config.stacktrace_resolver == "fast":
        stacktrace_resolver = StacktraceCollection.WithoutSymbols
    elif crashtracker_config.stacktrace_resolver == "safe":
        stacktrace_resolver = StacktraceCollection.EnabledWithSymbolsInReceiver
    elif crashtracker_config.stacktrace_resolver == "full":
        stacktrace_resolver = StacktraceCollection.EnabledWithInprocessSymbols
    else:
        # This should never happen, as the value is validated in the crashtracker_config
        # module.
        log.error("Invalid stacktrace_resolver value: %s", crashtracker_config.stacktrace_resolver)
        stacktrace_resolver = StacktraceCollection.EnabledWithInprocessSymbols

    # Do not manually compute an url. The crashtracker receiver has this handling,
    # given DD_API_KEY and DD_SITE. Nothing to do for us here.
    # We even cannot do so, otherwise we'll pin crashtracking to a single host,
    # instead of dedicated error-reporting and crashtracking hosts.
    crash_agentless = config._agentless_enabled and config._dd_api_key
    upload_url = None if crash_agentless else agent_config.trace_agent_url

    # Create crashtracker configuration
    crashtracker_configuration = CrashtrackerConfiguration(
        [],  # additional_files
        crashtracker_config.create_alt_stack,
        crashtracker_config.use_alt_stack,
        5000,  # timeout_ms
        stacktrace_resolver,
        crashtracker_config.collect_all_threads,
        crashtracker_config.max_threads,
        crashtracker_config.debug_url or upload_url,
        None,  # unix_socket_path
        crashtracker_config._test_token,
        None,
    )

    receiver_env = {}

    if crash_agentless:
        receiver_env["_DD_DIRECT_SUBMISSION_ENABLED"] = "true"
        receiver_env["DD_API_KEY"] = config._dd_api_key
        receiver_env["DD_SITE"] = config._dd_site

    # Don't pass all env vars to the receiver process, because there are
    # conflicts with export location derivation
    receiver_env["DD_CRASHTRACKING_ERRORS_INTAKE_ENABLED"] = (
        "true" if crashtracker_config.errors_intake_enabled else "false"
    )

    # Crashtracker is supported only on Linux and macOS, so we only need to inherit
    # these library path environment variables.
    # setup.py:269
    inherited_env_vars = [
        "LD_LIBRARY_PATH",  # for loading native ext (Linux)
        "DYLD_LIBRARY_PATH",  # for loading native ext (macOS)
        "PYTHONPATH",  # for loading Python, for the receiver script
        # Make sure the crashtracker respects proxying envs
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "NO_PROXY",
        "https_proxy",
        "http_proxy",
        "no_proxy",
    ]
    for env_var in inherited_env_vars:
        env_value = env.get(env_var)
        if env_value is not None:
            if env_var == "PYTHONPATH":
                # ddtrace-run and SSI prepends its bootstrap dir (containing sitecustomize.py) to
                # PYTHONPATH so the traced app auto-instruments on startup. If we inherit it
                # as-is, the receiver's own interpreter re-triggers that bootstrap and ends up
                # running a second, independently-configured copy of ddtrace using this stripped-down env.
                # Strip it so the receiver stays a plain, uninstrumented script while still finding
                # the ddtrace package via any other PYTHONPATH entries.
                # receiver_script_path is .../ddtrace/commands/_dd_crashtracker_receiver.py,
                # so two dirname() calls reach the ddtrace package root and "bootstrap"
                # names the sibling directory that sitecustomize.py lives in.
                bootstrap_dir = os.path.join(os.path.dirname(os.path.dirname(receiver_script_path)), "bootstrap")
                path_entries = [p for p in env_value.split(os.pathsep) if p != bootstrap_dir]
                if not path_entries:
                    continue
                env_value = os.pathsep.join(path_entries)
                # PYTHONPATH="" is ignored by Python (treated as unset), but "" entries
                # inside PYTHONPATH mean "current working directory". This happens when
                # bootstrap stripping leaves only cwd entries. PYTHONPATH=<bootstrap>:
                # becomes [""] which joins to "". So, we substitute "." so the receiver's
                # interpreter still finds modules in cwd.
                if not env_value:
                    env_value = "."
            receiver_env[env_var] = env_value

    # This is equivalent to: python /path/to/_dd_crashtracker_receiver.py
    receiver_config = CrashtrackerReceiverConfig(
        [python_executable, receiver_script_path],  # args: [program_name, script_path]
        receiver_env,
        python_executable,  # path_to_receiver_binary: use current Python interpreter
        crashtracker_config.stderr_filename,
        crashtracker_config.stdout_filename,
    )

    tags = _get_tags(additional_tags)

    metadata = CrashtrackerMetadata("dd-trace-py", version.__version__, "python", tags)

    return crashtracker_configuration, receiver_config, metadata


def _unhandled_exception_reporter(
    exc_type: type[BaseException], exc_value: BaseException, exc_traceback: Optional[TracebackType]
) -> None:
    try:
        if is_available and is_started() and exc_type is not None and issubclass(exc_type, Exception):
            frames = []
            if exc_traceback is not None:
                for filename, lineno, name, _ in traceback.extract_tb(exc_traceback):
                    frames.append(
                        {
                            "function": name,
                            "file": filename,
                            "line": str(lineno),
                        }
                    )
                # Reverse so the innermost (most recent) frame is first
                frames.reverse()

            module = getattr(exc_type, "__module__", None)
            qualname = exc_type.__qualname__
            if module and module != "builtins":
                exception_type = f"{module}.{qualname}"
            else:
                exception_type = qualname
            exception_message = str(exc_value) if exc_value is not None else None
            crashtracker_report_unhandled_exception(exception_type, exception_message, frames)
    except Exception:
        log.debug("Failed to report unhandled exception to crashtracker", exc_info=True)


def is_started() -> bool:
    if not is_available:
        return False
    return crashtracker_status() == CrashtrackerStatus.Initialized


def start(additional_tags: Optional[dict[str, str]] = None) -> bool:
    if not is_available:
        return False
    if not crashtracker_config.enabled:
        return False

    try:
        config, receiver_config, metadata = _get_args(additional_tags)
        if config is None or receiver_config is None or metadata is None:
            log.error("Failed to start crashtracker: failed to construct crashtracker configuration")
            return False

        # If the stack profiler's SIGSEGV/SIGBUS recovery handler is already
        # installed (i.e. the profiler started before crashtracking), momentarily
        # uninstall it so the crashtracker records the real underlying handler as
        # its "previous" rather than the profiler's handler. We reinstall the
        # profiler's handler on top afterwards, yielding a linear handler chain
        # (profiler -> crashtracker -> default) with no cycle. We only touch the
        # stack module if it is already imported: importing it here would load the
        # native extension and install signal handlers even when profiling is off.
        stack_mod = sys.modules.get("ddtrace.internal.datadog.profiling.stack")
        if stack_mod is not None:
            try:
                stack_mod.uninstall_segv_handler()
            except Exception:  # nosec: B110
                pass
        crashtracker_init(config, receiver_config, metadata)
        excepthook.register(_unhandled_exception_reporter)

        if stack_mod is not None:
            try:
                stack_mod.reinstall_segv_handler()
            except Exception:  # nosec: B110
                pass

        def crashtracker_fork_handler():
            # We recreate the args here mainly to pass updated runtime_id after
            # fork
            config, receiver_config, metadata = _get_args(additional_tags)
            if config is None or receiver_config is None or metadata is None:
                log.error("Failed to restart crashtracker after fork: failed to construct crashtracker configuration")
                return
            crashtracker_on_fork(config, receiver_config, metadata)

        forksafe.register(crashtracker_fork_handler)
    except Exception:
        log.exception("Failed to start crashtracker")
        return False
    return True
