import abc
import binascii
from collections import defaultdict
from collections.abc import Sequence
import gzip
import os
import socket
import sys
from typing import TYPE_CHECKING
from typing import Any
from typing import Callable
from typing import Optional
from typing import Protocol
from typing import TextIO
from typing import cast
from urllib.parse import urlparse as _urlparse

from ddtrace.internal._runtime_id import get_runtime_id
from ddtrace.internal.dist_computing.utils import in_ray_job
from ddtrace.internal.hostname import get_hostname
import ddtrace.internal.native as native
from ddtrace.internal.native import AgentResponse
from ddtrace.internal.native._native import Context
from ddtrace.internal.native._native import SpanData
from ddtrace.internal.native.exceptions import is_panic_exception
from ddtrace.internal.native_runtime import get_native_runtime
from ddtrace.internal.settings import env
from ddtrace.internal.settings._agent import config as agent_config
from ddtrace.internal.settings._config import config
from ddtrace.internal.settings._opentelemetry import _is_otlp_trace_metrics_enabled
from ddtrace.internal.settings._opentelemetry import _is_otlp_traces_exporter_enabled
from ddtrace.internal.settings._opentelemetry import _targets_agentless_intake
from ddtrace.internal.settings._opentelemetry import otel_config
from ddtrace.internal.settings.asm import config as asm_config
from ddtrace.internal.settings.standalone import standalone_config
from ddtrace.internal.telemetry import telemetry_writer
from ddtrace.internal.telemetry.constants import TELEMETRY_NAMESPACE
from ddtrace.internal.utils import _human_size
from ddtrace.internal.utils.retry import fibonacci_backoff_with_jitter
from ddtrace.version import __version__

from ...constants import _KEEP_SPANS_RATE_KEY
from ...constants import _SAMPLING_PRIORITY_KEY
from .. import compat
from .. import forksafe
from .. import periodic
from .. import process_tags
from .. import service
from .._encoding import BufferFull
from .._encoding import BufferItemTooLarge
from ..agent import get_connection
from ..constants import _HTTPLIB_NO_TRACE_REQUEST
from ..constants import W3C_TRACESTATE_KEY
from ..dogstatsd import get_dogstatsd_client
from ..encoding import JSONEncoderV2
from ..gitmetadata import get_git_tags
from ..logger import get_logger
from ..serverless import has_aws_lambda_agent_extension
from ..serverless import in_aws_lambda
from ..serverless import in_azure_function
from ..serverless import in_gcp_function
from ..service import ServiceStatusError
from ..sma import SimpleMovingAverage
from ..threads import RLock
from ..utils.formats import get_test_session_token
from ..utils.http import Response
from ..utils.http import verify_url
from ..utils.time import StopWatch
from .writer_client import WRITER_CLIENTS
from .writer_client import AgentWriterClientV4
from .writer_client import WriterClientBase


if TYPE_CHECKING:  # pragma: no cover
    from ddtrace.internal.http import HTTPConnection  # noqa:F401
    from ddtrace.vendor.dogstatsd import DogStatsd


class _SpanWithContext(Protocol):
    @property
    def context(self) -> Context: ...


log = get_logger(__name__)

LOG_ERR_INTERVAL = 60
_OTLP_TRACER_TAG_RESERVED_KEYS = frozenset({"service", "env", "version", "runtime_id", "runtime-id"})


def _safelog(log_func: Callable[..., None], msg: str, *args, **kwargs) -> None:
    """
    Safely log a message, handling closed I/O streams gracefully.

    During interpreter shutdown or when test frameworks (like pytest) close
    captured stdout/stderr streams, logging calls may fail with:
        ValueError: I/O operation on closed file

    This can happen when a background thread (e.g., the periodic writer thread)
    attempts to log after the main process has started shutting down but before
    the Python interpreter has begun finalization (Py_IsFinalizing()).

    This wrapper catches such errors and attempts to print to stderr as a
    fallback. If stderr is also closed, the message is silently dropped.

    Args:
        log_func: The logger method to call (e.g., log.debug, log.warning, log.error)
        msg: The log message format string
        *args: Arguments for the format string
        **kwargs: Keyword arguments passed to the logger (e.g., exc_info, extra)
    """
    try:
        log_func(msg, *args, **kwargs)
    except ValueError:
        try:
            formatted_msg = msg % args if args else msg
            print(f"[ddtrace] I/O closed, could not log: {formatted_msg}", file=sys.stderr)
        except ValueError:
            pass


class NoEncodableSpansError(Exception):
    pass


# The window size should be chosen so that the look-back period is
# greater-equal to the agent API's timeout. Although most tracers have a
# 2s timeout, the java tracer has a 10s timeout, so we set the window size
# to 10 buckets of 1s duration.
DEFAULT_SMA_WINDOW = 10


class TraceWriter(metaclass=abc.ABCMeta):
    # TODO: appsec_enabled / llmobs_enabled dynamically force api_version=v0.4 in NativeWriter;
    #       find a way to do this without recreating the writer.
    @abc.abstractmethod
    def recreate(
        self,
        appsec_enabled: Optional[bool] = None,
        llmobs_enabled: Optional[bool] = None,
    ) -> "TraceWriter":
        pass

    @abc.abstractmethod
    def stop(self, timeout: Optional[float] = None) -> None:
        pass

    @abc.abstractmethod
    def write(self, spans: Optional[Sequence[SpanData]] = None) -> None:
        pass

    @abc.abstractmethod
    def flush_queue(self) -> None:
        pass


class LogWriter(TraceWriter):
    def __init__(
        self,
        out: TextIO = sys.stdout,
    ) -> None:
        self.encoder = JSONEncoderV2()
        self.out = out

    def recreate(
        self,
        appsec_enabled: Optional[bool] = None,
        llmobs_enabled: Optional[bool] = None,
    ) -> "LogWriter":
        """Create a new instance of :class:`LogWriter` using the same settings from this instance

        :rtype: :class:`LogWriter`
        :returns: A new :class:`LogWriter` instance
        """
        writer = self.__class__(out=self.out)
        return writer

    def stop(self, timeout: Optional[float] = None) -> None:
        return

    def write(self, spans: Optional[Sequence[SpanData]] = None) -> None:
        if not spans:
            return
        encoded = self.encoder.encode_traces([spans])
        self.out.write(encoded + "\n")
        self.out.flush()

    def flush_queue(self) -> None:
        pass


class HTTPWriter(periodic.PeriodicService, TraceWriter):
    """Writer to an arbitrary HTTP intake endpoint."""

    intake_url: str

    RETRY_ATTEMPTS = 3
    HTTP_METHOD = "PUT"
    STATSD_NAMESPACE = "tracer"
    # Whether this writer emits span/trace instrumentation telemetry (TRACERS namespace).
    # CI Visibility reuses this HTTP pipeline for event/coverage uploads but is not a trace
    # writer, so it opts out to avoid polluting tracer telemetry dashboards.
    _records_trace_telemetry = False

    def __init__(
        self,
        intake_url: str,
        clients: list[WriterClientBase],
        processing_interval: Optional[float] = None,
        # Match the payload size since there is no functionality
        # to flush dynamically.
        buffer_size: Optional[int] = None,
        max_payload_size: Optional[int] = None,
        timeout: Optional[float] = None,
        dogstatsd: Optional["DogStatsd"] = None,
        sync_mode: bool = False,
        reuse_connections: Optional[bool] = None,
        headers: Optional[dict[str, str]] = None,
        report_metrics: bool = True,
        use_gzip: bool = False,
    ) -> None:
        if processing_interval is None:
            processing_interval = config._trace_writer_interval_seconds
        if timeout is None:
            timeout = agent_config.trace_agent_timeout_seconds
        super().__init__(interval=processing_interval, autorestart=False)
        self.intake_url = intake_url
        self._intake_accepts_gzip = use_gzip
        self._buffer_size = buffer_size
        self._max_payload_size = max_payload_size
        self._headers = headers or {}
        self._timeout = timeout

        self._clients = clients
        self.dogstatsd = dogstatsd
        self._metrics: dict[str, int] = defaultdict(int)
        self._report_metrics = report_metrics
        self._drop_sma = SimpleMovingAverage(DEFAULT_SMA_WINDOW)
        self._sync_mode = sync_mode
        self._conn: Optional[HTTPConnection] = None
        # The connection has to be locked since there exists a race between
        # the periodic thread of HTTPWriter and other threads that might
        # force a flush with `flush_queue()`.
        self._conn_lck: RLock = RLock()

        self._send_payload_with_backoff = fibonacci_backoff_with_jitter(  # type ignore[assignment]
            attempts=self.RETRY_ATTEMPTS,
            initial_wait=0.618 * self.interval / (1.618**self.RETRY_ATTEMPTS) / 2,
            until=lambda result: isinstance(result, Response),
        )(self._send_payload)

        self._reuse_connections = (
            config._trace_writer_connection_reuse if reuse_connections is None else reuse_connections
        )

    def _intake_endpoint(self, client=None):
        return f"{self._intake_url(client)}/{client.ENDPOINT if client else self._endpoint}"

    @property
    def _endpoint(self):
        return self._clients[0].ENDPOINT

    @property
    def _encoder(self):
        return self._clients[0].encoder

    def _intake_url(self, client=None):
        if client and hasattr(client, "_intake_url"):
            return client._intake_url
        return self.intake_url

    def _intake_base_path(self, client=None) -> str:
        intake_url = self._intake_url(client)
        if not isinstance(intake_url, str):
            return ""
        parsed = _urlparse(intake_url)
        if parsed.scheme not in ("http", "https"):
            # For unix:// URLs the path component is the socket location, not an HTTP path prefix.
            return ""
        return parsed.path.rstrip("/")

    def _metrics_dist(self, name: str, count: int = 1, tags: Optional[list] = None) -> None:
        if not self._report_metrics:
            return
        if config._health_metrics_enabled and self.dogstatsd:
            self.dogstatsd.distribution("datadog.%s.%s" % (self.STATSD_NAMESPACE, name), count, tags=tags)

    def _set_drop_rate(self) -> None:
        accepted = self._metrics["accepted_traces"]
        sent = self._metrics["sent_traces"]
        encoded = sum([len(client.encoder) for client in self._clients])
        # The number of dropped traces is the number of accepted traces minus the number of traces in the encoder
        # This calculation is a best effort. Due to race conditions it may result in a slight underestimate.
        dropped = max(accepted - sent - encoded, 0)  # dropped spans should never be negative
        self._drop_sma.set(dropped, accepted)
        self._metrics["sent_traces"] = 0
        self._metrics["accepted_traces"] = encoded

    def _set_keep_rate(self, trace):
        if trace:
            trace[0]._set_attribute(
                _KEEP_SPANS_RATE_KEY, 1.0 - self._drop_sma.get()
            )  # PERF: avoid setting via Span.set_metric

    def _record_trace_telemetry(
        self, name: str, count: int, tags: Optional[tuple[tuple[str, str], ...]] = None
    ) -> None:
        if self._records_trace_telemetry and count > 0:
            telemetry_writer.add_count_metric(TELEMETRY_NAMESPACE.TRACERS, name, count, tags=tags)

    def _reset_connection(self) -> None:
        with self._conn_lck:
            if self._conn:
                self._conn.close()
                self._conn = None

    def _put(self, data: bytes, headers: dict[str, str], client: WriterClientBase, no_trace: bool) -> Response:
        sw = StopWatch()
        sw.start()
        with self._conn_lck:
            if self._conn is None:
                _safelog(
                    log.debug,
                    "creating new intake connection to %s with timeout %d",
                    self.intake_url,
                    self._timeout,
                )
                self._conn = get_connection(self._intake_url(client), self._timeout)
                setattr(self._conn, _HTTPLIB_NO_TRACE_REQUEST, no_trace)
            try:
                # Merge client headers with request headers
                final_headers = {}
                if hasattr(client, "_headers") and client._headers:
                    final_headers.update(client._headers)
                final_headers.update(headers)

                _safelog(
                    log.debug,
                    "Sending request: Method=%s Endpoint=%s Headers=%s PayloadSize=%s",
                    self.HTTP_METHOD,
                    client.ENDPOINT,
                    final_headers,
                    _human_size(len(data)),
                )
                intake_base_path = self._intake_base_path(client)
                endpoint = intake_base_path + "/" + client.ENDPOINT.lstrip("/") if intake_base_path else client.ENDPOINT
                self._conn.request(self.HTTP_METHOD, endpoint, data, final_headers)
                resp = self._conn.getresponse()
                t = sw.elapsed()
                if t >= self.interval:
                    log_func = log.warning
                else:
                    log_func = log.debug
                _safelog(
                    log_func,
                    "Got response: %d %s sent %s in %.5fs to %s",
                    resp.status,
                    resp.reason,
                    _human_size(len(data)),
                    t,
                    self._intake_endpoint(client),
                )
                # Read response body inside try block to ensure connection
                # is reset if this from_http_response call throws an exception
                # (e.g. IncompleteRead)
                return Response.from_http_response(resp)
            except Exception:
                # Always reset the connection when an exception occurs
                self._reset_connection()
                raise
            finally:
                # Reset the connection if reusing connections is disabled.
                if not self._reuse_connections:
                    self._reset_connection()

    def _get_finalized_headers(self, count: int, client: WriterClientBase) -> dict[str, str]:
        headers = self._headers.copy()
        headers.update({"Content-Type": client.encoder.content_type})
        if hasattr(client, "_headers"):
            headers.update(client._headers)
        return headers

    def _send_payload(self, payload: bytes, count: int, client: WriterClientBase) -> Response:
        headers = self._get_finalized_headers(count, client)

        self._metrics_dist("http.requests")
        # trace_api.* telemetry is intentionally recorded per HTTP attempt (including retries),
        # unlike spans_dropped which is only recorded once a payload is definitively dropped.
        self._record_trace_telemetry("trace_api.requests", 1)

        try:
            response = self._put(payload, headers, client, no_trace=True)
        except Exception as e:
            error_type = "timeout" if isinstance(e, (socket.timeout, TimeoutError)) else "network"
            self._record_trace_telemetry("trace_api.errors", 1, (("type", error_type),))
            raise

        self._record_trace_telemetry("trace_api.responses", 1, (("status_code", str(response.status)),))

        if response.status >= 400:
            self._metrics_dist("http.errors", tags=["type:%s" % response.status])
            self._record_trace_telemetry("trace_api.errors", 1, (("type", "status_code"),))
        else:
            self._metrics_dist("http.sent.bytes", len(payload))
            self._metrics["sent_traces"] += count

        if response.status not in (404, 415) and response.status >= 400:
            msg = "failed to send traces to intake at %s: HTTP error status %s, reason %s"
            log_args: tuple[Any, Any, Any] = (
                self._intake_endpoint(client),
                response.status,
                response.reason,
            )
            # Append the payload if requested
            if config._trace_writer_log_err_payload:
                msg += ", payload %s"
                # If the payload is bytes then hex encode the value before logging
                if isinstance(payload, bytes):
                    log_args += (binascii.hexlify(payload).decode(),)  # type: ignore
                else:
                    log_args += (payload,)

            _safelog(log.error, msg, *log_args, extra={"send_to_telemetry": False})
            self._metrics_dist("http.dropped.bytes", len(payload))
            self._metrics_dist("http.dropped.traces", count)
        return response

    def write(self, spans=None):
        for client in self._clients:
            self._write_with_client(client, spans=spans)
        if self._sync_mode:
            self.flush_queue()

    def _write_with_client(self, client: WriterClientBase, spans: Optional[Sequence[SpanData]] = None) -> None:
        if spans is None:
            return

        if self._sync_mode is False:
            # Start the HTTPWriter on first write.
            try:
                if self.status != service.ServiceStatus.RUNNING:
                    self.start()

            except service.ServiceStatusError:
                pass

        self._metrics_dist("writer.accepted.traces")
        self._metrics["accepted_traces"] += 1
        self._set_keep_rate(spans)

        try:
            client.encoder.put(spans)
        except BufferItemTooLarge as e:
            payload_size = e.args[0]
            _safelog(
                log.warning,
                "trace (%db) larger than payload buffer item limit (%db), dropping",
                payload_size,
                client.encoder.max_item_size,
            )
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:t_too_big"])
            self._metrics_dist("buffer.dropped.bytes", payload_size, tags=["reason:t_too_big"])
            self._record_trace_telemetry("spans_dropped", len(spans), (("reason", "serialization_error"),))
        except BufferFull as e:
            payload_size = e.args[0]
            _safelog(
                log.warning,
                "trace buffer (%s traces %db/%db) cannot fit trace of size %db, dropping (writer status: %s)",
                len(client.encoder),
                client.encoder.size,
                client.encoder.max_size,
                payload_size,
                self.status.value,
            )
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:full"])
            self._metrics_dist("buffer.dropped.bytes", payload_size, tags=["reason:full"])
            self._record_trace_telemetry("spans_dropped", len(spans), (("reason", "overfull_buffer"),))
        except NoEncodableSpansError:
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:incompatible"])
            self._record_trace_telemetry("spans_dropped", len(spans), (("reason", "serialization_error"),))
        else:
            self._metrics_dist("buffer.accepted.traces", 1)
            self._metrics_dist("buffer.accepted.spans", len(spans))
            self._record_trace_telemetry("spans_enqueued_for_serialization", len(spans))

    def flush_queue(self, raise_exc: bool = False):
        try:
            for client in self._clients:
                self._flush_queue_with_client(client, raise_exc=raise_exc)
        finally:
            self._set_drop_rate()

    def _flush_queue_with_client(self, client: WriterClientBase, raise_exc: bool = False) -> None:
        n_traces = len(client.encoder)
        # Snapshot the number of buffered spans before encoding so we can attribute spans_dropped
        # if encoding fails. Encoders that do not track spans (e.g. the msgpack encoders) report 0,
        # and a 0 count is a no-op in the telemetry layer.
        n_spans = getattr(client.encoder, "pending_spans", 0)
        try:
            if not (encoded_traces := client.encoder.encode()):
                return

        except Exception:
            # FIXME(munir): if client.encoder raises an Exception n_traces may not be accurate due to race conditions
            _safelog(log.error, "failed to encode trace with encoder %r", client.encoder, exc_info=True)
            self._metrics_dist("encoder.dropped.traces", n_traces)
            self._record_trace_telemetry("spans_dropped", n_spans, (("reason", "serialization_error"),))
            return

        # Per-payload span counts are only meaningful when the encoder produces a single payload
        # (as the agentless JSON encoder does). With multiple payloads we cannot attribute a span
        # count to an individual payload, so we report 0 (a no-op) for span-level drops.
        payload_n_spans = n_spans if len(encoded_traces) == 1 else 0
        for payload in encoded_traces:
            encoded_data, n_traces = payload
            self._flush_single_payload(
                encoded_data, n_traces, client=client, n_spans=payload_n_spans, raise_exc=raise_exc
            )

    def _flush_single_payload(
        self,
        encoded: Optional[bytes],
        n_traces: int,
        client: WriterClientBase,
        n_spans: int = 0,
        raise_exc: bool = False,
    ) -> None:
        if encoded is None:
            return

        # Should gzip the payload if intake accepts it
        if self._intake_accepts_gzip:
            try:
                original_size = len(encoded)
                # Replace the value to send with the gzipped the value
                encoded = gzip.compress(encoded, compresslevel=6)
                _safelog(log.debug, "Original size in bytes: %s, Compressed size: %s", original_size, len(encoded))

                # And add the header
                self._headers["Content-Encoding"] = "gzip"
            except Exception:
                _safelog(log.error, "failed to compress traces with encoder %r", client.encoder, exc_info=True)
                self._metrics_dist("encoder.dropped.traces", n_traces)
                self._record_trace_telemetry("spans_dropped", n_spans, (("reason", "serialization_error"),))
                return

        try:
            response = self._send_payload_with_backoff(encoded, n_traces, client)
        except Exception:
            # All retries have been exhausted (network/timeout failures are retried until
            # RETRY_ATTEMPTS). The payload is now definitively dropped, so it is safe to record it.
            self._metrics_dist("http.errors", tags=["type:err"])
            self._metrics_dist("http.dropped.bytes", len(encoded))
            self._metrics_dist("http.dropped.traces", n_traces)
            self._record_trace_telemetry("spans_dropped", n_spans, (("reason", "api_error"),))
            if raise_exc:
                raise
            else:
                _safelog(
                    log.error,
                    "failed to send, dropping %d traces to intake at %s after %d retries",
                    n_traces,
                    self._intake_endpoint(client),
                    self.RETRY_ATTEMPTS,
                    exc_info=True,
                    extra={"send_to_telemetry": False},
                )
        else:
            # An HTTP error status (>=400) is not retried (the backoff stops as soon as a Response
            # is returned), so the payload is dropped after this single, definitive attempt.
            if isinstance(response, Response) and response.status >= 400:
                self._record_trace_telemetry("spans_dropped", n_spans, (("reason", "api_error"),))
        finally:
            self._metrics_dist("http.sent.bytes", len(encoded))
            self._metrics_dist("http.sent.traces", n_traces)

    def periodic(self):
        self.flush_queue(raise_exc=False)

    def _stop_service(
        self,
        timeout: Optional[float] = None,
    ) -> None:
        # FIXME: don't join() on stop(), let the caller handle this
        super()._stop_service()
        self.join(timeout=timeout)

    def on_shutdown(self):
        try:
            self.periodic()
        finally:
            self._reset_connection()


AGENTLESS_INTAKE_PATH = "/v1/input"
AGENTLESS_STATS_PATH = "/api/v0.2/stats"
# The intake hard-rejects anything over 20 MB. Cap what we buffer well below that so a
# payload still fits once the exporter re-encodes it as JSON and packs it.
AGENTLESS_MAX_BUFFER_SIZE = 10 << 20  # 10 MB
AGENTLESS_INTAKE_URLS: dict[str, str] = {
    "datadoghq.com": "https://public-trace-http-intake.logs.datadoghq.com",
    "datadoghq.eu": "https://public-trace-http-intake.logs.datadoghq.eu",
    "us3.datadoghq.com": "https://trace.browser-intake-us3-datadoghq.com",
    "us5.datadoghq.com": "https://trace.browser-intake-us5-datadoghq.com",
    "ap1.datadoghq.com": "https://browser-intake-ap1-datadoghq.com",
    "ap2.datadoghq.com": "https://browser-intake-ap2-datadoghq.com",
    "uk1.datadoghq.com": "https://browser-intake-uk1-datadoghq.com",
    "datad0g.com": "https://public-trace-http-intake.logs.datad0g.com",
}
_AGENTLESS_FALLBACK_INTAKE_URL_TEMPLATE = "https://browser-intake-{}.{}"


def compute_agentless_intake_url(site: str) -> str:
    """The full agentless trace intake URL for ``site``, path included."""
    url = AGENTLESS_INTAKE_URLS.get(site)
    if url is None:
        # Fallback: strip the TLD, replace remaining dots with dashes, reattach TLD.
        # e.g. "ddog-gov.com"     -> "browser-intake-ddog-gov.com"
        #      "us2.ddog-gov.com" -> "browser-intake-us2-ddog-gov.com"
        prefix, _, tld = site.rpartition(".")
        url = _AGENTLESS_FALLBACK_INTAKE_URL_TEMPLATE.format(prefix.replace(".", "-"), tld)
        log.warning(
            "Datadog site %r is not explicitly supported for agentless tracing. "
            "Attempting to use %r. To resolve this, upgrade to a newer version of "
            "ddtrace that supports this site, or disable agentless trace export.",
            site,
            url,
        )
    return url + AGENTLESS_INTAKE_PATH


def compute_agentless_stats_url(site: str) -> str:
    """The intake that accepts client-computed trace stats when no Agent is there to forward them."""
    return f"https://trace.agent.{site}{AGENTLESS_STATS_PATH}"


class AgentWriterInterface(metaclass=abc.ABCMeta):
    intake_url: str
    _api_version: str
    _sync_mode: bool

    @abc.abstractmethod
    def set_test_session_token(self, token: Optional[str]) -> None:
        pass

    @abc.abstractmethod
    def flush_queue(self, raise_exc: bool = False) -> None:
        pass


def _resolve_api_version(api_version: Optional[str] = None) -> str:
    """Determine the effective trace API version given platform and product constraints.

    Resolution order:
    1. ``api_version`` argument (caller-supplied explicit override).
    2. ``DD_TRACE_API_VERSION`` / ``config._trace_api`` environment setting.
    3. Platform / product default (``v0.4`` on Windows, GCP Functions, Azure Functions,
       ASM, IAST, or AI Guard; ``v0.5`` otherwise).

    Note: ``DD_TRACE_NATIVE_SPAN_EVENTS`` and LLM Observability both force ``v0.4`` even
    over an explicit ``api_version``; the v0.5 msgpack encoder strips ``meta_struct`` and
    does not support native span events.
    """
    # Import lazily: ai_guard settings pull in the aiguard package, so a top-level import
    # would give the writer an import-time dependency on it.
    from ddtrace.internal.settings.aiguard import aiguard_config

    is_windows = sys.platform.startswith("win") or sys.platform.startswith("cygwin")
    default = "v0.5"
    if (
        is_windows
        or in_gcp_function()
        or in_azure_function()
        or asm_config._asm_enabled
        or asm_config._iast_enabled
        or aiguard_config._ai_guard_enabled
        or config._llmobs_enabled
    ):
        default = "v0.4"
    resolved = api_version or config._trace_api or default
    if agent_config.trace_native_span_events:
        if not agent_config.trace_otlp_export_enabled:
            log.warning("Setting api version to v0.4; DD_TRACE_NATIVE_SPAN_EVENTS is not compatible with v0.5")
        resolved = "v0.4"
    if config._llmobs_enabled and resolved != "v0.4":
        log.warning(
            "Setting api version to v0.4; LLM Observability requires v0.4 to transmit meta_struct payloads. "
            "Requested api version '%s' is unsupported when LLM Observability is enabled.",
            resolved,
        )
        resolved = "v0.4"
    return resolved


def _resolve_test_session_token(token: Optional[str]) -> Optional[str]:
    return token if token is not None else get_test_session_token()


def _build_base_exporter_builder(
    intake_url: str,
    test_session_token: Optional[str],
    compute_stats_enabled: bool,
    stats_opt_out: Optional[bool],
    otlp_metrics_enabled: bool = False,
    api_key: Optional[str] = None,
    agentless_stats_endpoint: Optional[str] = None,
) -> "native.TraceExporterBuilder":
    _, commit_sha, _ = get_git_tags()
    builder = (
        native.TraceExporterBuilder()
        .set_language("python")
        .set_language_version(compat.PYTHON_VERSION)
        .set_language_interpreter(compat.PYTHON_INTERPRETER)
        .set_tracer_version(__version__)
        .set_git_commit_sha(commit_sha)
        .set_runtime_id(get_runtime_id())
        .set_client_computed_top_level()
    )
    # Python recreates the exporter lazily in the child, so its inherited workers
    # must not also be restarted by the shared runtime.
    builder.set_restart_after_fork(False)
    if api_key is not None:
        builder.set_agentless_endpoint(intake_url, api_key)
        builder.set_agentless_timeout(int(agent_config.trace_agent_timeout_seconds * 1000))
        if agentless_stats_endpoint is not None:
            # Reuses the agentless API key and timeout set just above.
            builder.set_agentless_stats_endpoint(agentless_stats_endpoint)
    else:
        builder.set_url(intake_url)
    # Only report the hostname when DD_TRACE_REPORT_HOSTNAME is enabled. Otherwise it must be omitted
    # from both the trace payload and the OTLP resource attributes (host.name).
    if config._report_hostname:
        builder.set_hostname(get_hostname())
    if config.service:
        builder.set_service(config.service)
    if config.env:
        builder.set_env(config.env)
    if config.version:
        builder.set_app_version(config.version)
    if test_session_token is not None:
        builder.set_test_session_token(test_session_token)
    if otlp_metrics_enabled:
        tracer_tags = [
            f"{key}:{value}"
            for key, value in sorted(config.tags.items())
            if key.lower() not in _OTLP_TRACER_TAG_RESERVED_KEYS and value
        ]
        if tracer_tags:
            builder.set_tracer_tags(tracer_tags)
    if config._trace_stats_additional_tags:
        builder.set_additional_metric_tag_keys(config._trace_stats_additional_tags)
    # Agentless stats and OTLP trace metrics require the native concentrator regardless of
    # DD_TRACE_STATS_COMPUTATION_ENABLED.
    if otlp_metrics_enabled or (compute_stats_enabled and not stats_opt_out):
        if otlp_metrics_enabled:
            # The OTLP trace-metrics flush cadence is fixed at 10s (not overridable by
            # OTEL_METRIC_EXPORT_INTERVAL). _DD_TRACE_METRICS_OTEL_FLUSH_INTERVAL (milliseconds) is
            # internal and exists only to speed up tests.
            stats_interval = float(env.get("_DD_TRACE_METRICS_OTEL_FLUSH_INTERVAL") or 10000.0) / 1000.0
        else:
            stats_interval = float(env.get("_DD_TRACE_STATS_WRITER_INTERVAL") or 10.0)
        bucket_size_ns: int = int(stats_interval * 1e9)
        builder.enable_stats(bucket_size_ns)
        builder.set_stats_cardinality_limit(**config._trace_stats_cardinality_limits)
    elif stats_opt_out:
        builder.set_client_computed_stats()
    return builder


class NativeWriter(periodic.PeriodicService, TraceWriter, AgentWriterInterface):
    """Writer using a native trace exporter to send traces to an agent."""

    STATSD_NAMESPACE = "tracer"

    def __init__(
        self,
        intake_url: str,
        processing_interval: Optional[float] = None,
        compute_stats_enabled: bool = False,
        client_side_stats_obfuscation: bool = False,
        # Match the payload size since there is no functionality
        # to flush dynamically.
        buffer_size: Optional[int] = None,
        max_payload_size: Optional[int] = None,
        dogstatsd: Optional["DogStatsd"] = None,
        sync_mode: bool = False,
        api_version: Optional[str] = None,
        report_metrics: bool = True,
        response_callback: Optional[Callable[[AgentResponse], None]] = None,
        test_session_token: Optional[str] = None,
        # Mark stats as computed, without computing them, skipping trace exporter stats computation.
        # This setting overrides the `compute_stats_enabled` parameter.
        stats_opt_out: Optional[bool] = False,
        otlp_endpoint: Optional[str] = None,
        otlp_metrics_endpoint: Optional[str] = None,
        api_key: Optional[str] = None,
        agentless_stats_endpoint: Optional[str] = None,
    ) -> None:
        if processing_interval is None:
            processing_interval = config._trace_writer_interval_seconds
        if buffer_size is not None and buffer_size <= 0:
            raise ValueError("Writer buffer size must be positive")
        if max_payload_size is not None and max_payload_size <= 0:
            raise ValueError("Max payload size must be positive")

        self._api_version = _resolve_api_version(api_version)

        # DEV: https://github.com/DataDog/dd-trace-py/issues/4829
        if sys.platform.startswith("win") or sys.platform.startswith("cygwin"):
            if self._api_version == "v0.5":
                raise RuntimeError(
                    "There is a known compatibility issue with v0.5 API and Windows, "
                    "please see https://github.com/DataDog/dd-trace-py/issues/4829 for more details."
                )

        buffer_size = buffer_size or config._trace_writer_buffer_size
        max_payload_size = max_payload_size or config._trace_writer_payload_size
        if api_key is not None:
            buffer_size = min(buffer_size, AGENTLESS_MAX_BUFFER_SIZE)
            max_payload_size = min(max_payload_size, AGENTLESS_MAX_BUFFER_SIZE)
        if self._api_version not in WRITER_CLIENTS:
            log.warning(
                "Unsupported api version: '%s'. The supported versions are: %r",
                self._api_version,
                ", ".join(sorted(WRITER_CLIENTS.keys())),
            )
            self._api_version = sorted(WRITER_CLIENTS.keys())[-1]
        client = WRITER_CLIENTS[self._api_version](buffer_size, max_payload_size)

        super().__init__(interval=processing_interval, autorestart=False)
        self.intake_url = intake_url
        self._otlp_endpoint = otlp_endpoint
        self._otlp_metrics_endpoint = otlp_metrics_endpoint
        self._api_key = api_key
        self._agentless_stats_endpoint = agentless_stats_endpoint
        self._buffer_size = buffer_size
        self._max_payload_size = max_payload_size
        self._test_session_token = _resolve_test_session_token(test_session_token)

        self._clients = [client]
        self.dogstatsd = dogstatsd
        self._metrics: dict[str, int] = defaultdict(int)
        self._report_metrics = report_metrics
        self._drop_sma = SimpleMovingAverage(DEFAULT_SMA_WINDOW)
        self._sync_mode = sync_mode
        self._compute_stats_enabled = compute_stats_enabled
        self._client_side_stats_obfuscation = client_side_stats_obfuscation
        self._response_cb = response_callback
        self._stats_opt_out = stats_opt_out

        self._owner_pid = os.getpid()

        # Native exporter methods require exclusive access because PyO3 rejects
        # overlapping mutable borrows.
        self._exporter_lock = forksafe.RLock()
        self._exporter = self._create_exporter()

    def __del__(self) -> None:
        # WorkerHandle must be explicitly stopped; dropping the native exporter leaves its
        # background workers registered on the process-wide runtime.
        try:
            if getattr(self, "_owner_pid", None) != os.getpid():
                return
            exporter = getattr(self, "_exporter", None)
            if exporter is not None:
                self._shutdown_exporter(exporter)
        except Exception:  # nosec B110 - destructors must not raise
            pass

    @staticmethod
    def _parse_otlp_headers(raw: str) -> list:
        """Parse OTEL_EXPORTER_OTLP_*_HEADERS into key-value pairs.

        TODO: This parsing will move into libdatadog once header handling is supported natively.
        The current split-on-comma approach does not handle percent-encoded commas (%2C) in header
        values per the OTEL spec; that edge case will be handled correctly on the libdatadog side.
        """
        if not raw:
            return []
        headers = []
        for item in raw.split(","):
            item = item.strip()
            if "=" in item:
                key, _, value = item.partition("=")
                headers.append((key.strip(), value.strip()))
        return headers

    @property
    def agentless(self) -> bool:
        return self._api_key is not None

    def _create_exporter(self) -> native.TraceExporter:
        builder = _build_base_exporter_builder(
            self.intake_url,
            self._test_session_token,
            self._compute_stats_enabled,
            self._stats_opt_out,
            self._otlp_metrics_endpoint is not None,
            self._api_key,
            self._agentless_stats_endpoint,
        )
        builder.set_input_format(self._api_version).set_output_format(self._api_version)
        if self._otlp_endpoint is not None:
            builder.set_otlp_endpoint(self._otlp_endpoint)
            # Only http/json and http/protobuf are supported; fall back to http/protobuf
            # for anything else (e.g. grpc).
            otlp_protocol = otel_config.exporter.TRACES_PROTOCOL.strip().lower()
            if otlp_protocol not in ("http/json", "http/protobuf"):
                log.debug(
                    "OTLP trace protocol %r is not supported; defaulting to http/protobuf",
                    otlp_protocol,
                )
                otlp_protocol = "http/protobuf"
            builder.set_otlp_protocol(otlp_protocol)
            otlp_headers = self._parse_otlp_headers(otel_config.exporter.TRACES_HEADERS)
            if otlp_headers:
                builder.set_otlp_headers(otlp_headers)
            builder.set_connection_timeout(otel_config.exporter.TRACES_TIMEOUT)
        if self._otlp_metrics_endpoint is not None:
            builder.set_otlp_metrics_endpoint(self._otlp_metrics_endpoint)
            metrics_headers = self._parse_otlp_headers(otel_config.exporter.METRICS_HEADERS)
            if metrics_headers:
                builder.set_otlp_metrics_headers(metrics_headers)
            builder.set_connection_timeout(otel_config.exporter.METRICS_TIMEOUT)
        # OTel-semantics mode: emit only OpenTelemetry attributes, omitting Datadog-specific dd.*
        # attributes on the exported metric.
        if config._otel_trace_semantics_enabled and (
            self._otlp_endpoint is not None or self._otlp_metrics_endpoint is not None
        ):
            builder.enable_otel_trace_semantics()
        if p_tags := process_tags.process_tags:
            builder.set_process_tags(p_tags)

        if self._client_side_stats_obfuscation:
            builder.enable_client_side_stats_obfuscation()

        from ddtrace.internal.telemetry import telemetry_writer

        shared_worker = None
        if config._telemetry_enabled:
            # Have a single telemetry client / lifecycle - by sharing it with trace exporter.
            # The telemetry client is guaranteed to be ready by the time this is called.
            shared_worker = telemetry_writer._get_shared_worker()
            # TODO (APMSP-2204): Enable telemetry for all platforms, currently only enabled for Linux.
            if shared_worker is None and sys.platform.startswith("linux"):
                heartbeat_ms = int(
                    config._telemetry_heartbeat_interval * 1000
                )  # Convert DD_TELEMETRY_HEARTBEAT_INTERVAL to milliseconds
                builder.enable_telemetry(heartbeat_ms, get_runtime_id(), config._debug_mode)
        if config._health_metrics_enabled:
            builder.enable_health_metrics()
        exporter = builder.build(get_native_runtime())
        if shared_worker is not None:
            exporter.set_telemetry_handle(shared_worker)
            telemetry_writer._subscribe_worker_changes(self._on_telemetry_worker_changed)
        return exporter

    def _on_telemetry_worker_changed(self, worker: "Optional[native.TelemetryWorker]") -> None:
        """Follow the telemetry writer onto a rebuilt worker (or off a stopped one)."""
        try:
            with self._exporter_lock:
                self._exporter.set_telemetry_handle(worker)
        except Exception:
            log.debug("Failed to re-point the trace exporter at the telemetry worker", exc_info=True)

    def _shutdown_exporter(self, exporter: native.TraceExporter) -> None:
        """Shut down a native exporter, swallowing a Rust panic from its tokio I/O driver.

        The exporter can panic here after a fork; since the exporter is always
        being discarded right after this call, treat that specific panic as
        non-fatal too. Anything else still propagates.
        """
        with self._exporter_lock:
            try:
                exporter.shutdown(3_000_000_000)
            except Exception:
                _safelog(log.warning, "failed to shutdown exporter", exc_info=True)
            except BaseException as e:
                if not is_panic_exception(e):
                    raise
                _safelog(log.warning, "failed to shutdown exporter", exc_info=True)

    def set_test_session_token(self, token: Optional[str]) -> None:
        """
        Set the test session token and recreate the exporter with the new configuration.
        :param token: The test session token to use for authentication.
        """
        self._test_session_token = token
        old_exporter = self._exporter
        self._exporter = self._create_exporter()
        self._shutdown_exporter(old_exporter)

    def shutdown_exporter(self) -> None:
        """Tear down the native exporter without going through ``stop()``."""
        self._shutdown_exporter(self._exporter)

    def recreate(
        self,
        appsec_enabled: Optional[bool] = None,
        llmobs_enabled: Optional[bool] = None,
    ) -> "NativeWriter":
        # Ensure AppSec metadata / LLM Observability meta_struct payload is encoded by setting
        # the API version to v0.4.
        try:
            # Stop the writer to ensure it is not running while we reconfigure it.
            self.stop()
        except ServiceStatusError:
            # Writers like AgentWriter may not start until the first trace is encoded.
            # Stopping them before that will raise a ServiceStatusError.
            self.shutdown_exporter()

        api_version = "v0.4" if (appsec_enabled or llmobs_enabled) else self._api_version
        return self.__class__(
            intake_url=self.intake_url,
            processing_interval=self._interval,
            compute_stats_enabled=self._compute_stats_enabled,
            client_side_stats_obfuscation=self._client_side_stats_obfuscation,
            buffer_size=self._buffer_size,
            max_payload_size=self._max_payload_size,
            dogstatsd=self.dogstatsd,
            sync_mode=self._sync_mode,
            api_version=api_version,
            report_metrics=self._report_metrics,
            response_callback=self._response_cb,
            test_session_token=self._test_session_token,
            stats_opt_out=self._stats_opt_out,
            otlp_endpoint=self._otlp_endpoint,
            otlp_metrics_endpoint=self._otlp_metrics_endpoint,
            api_key=self._api_key,
            agentless_stats_endpoint=self._agentless_stats_endpoint,
        )

    def _downgrade(self, status, client):
        if client.ENDPOINT == "v0.5/traces":
            self._clients = [AgentWriterClientV4(self._buffer_size, self._max_payload_size)]
            self._api_version = "v0.4"
            old_exporter = self._exporter
            self._exporter = self._create_exporter()
            self._shutdown_exporter(old_exporter)

            # Since we have to change the encoding in this case, the payload
            # would need to be converted to the downgraded encoding before
            # sending it, but we chuck it away instead.
            _safelog(
                log.warning,
                "Calling endpoint '%s' but received %s; downgrading API. "
                "Dropping trace payload due to the downgrade to an incompatible API version (from v0.5 to v0.4). To "
                "avoid this from happening in the future, either ensure that the Datadog agent has a v0.5/traces "
                "endpoint available, or explicitly set the trace API version to, e.g., v0.4.",
                client.ENDPOINT,
                status,
            )
        else:
            _safelog(
                log.error,
                "unsupported endpoint '%s': received response %s from intake (%s)",
                client.ENDPOINT,
                status,
                self.intake_url,
            )

    def _intake_endpoint(self, client=None):
        if self._otlp_endpoint is not None:
            return self._otlp_endpoint
        return f"{self.intake_url}/{client.ENDPOINT if client else self._endpoint}"

    @property
    def _endpoint(self):
        return self._clients[0].ENDPOINT

    @property
    def _encoder(self):
        return self._clients[0].encoder

    def _metrics_dist(self, name: str, count: int = 1, tags: Optional[list] = None) -> None:
        if not self._report_metrics:
            return
        if config._health_metrics_enabled and self.dogstatsd:
            self.dogstatsd.distribution("datadog.%s.%s" % (self.STATSD_NAMESPACE, name), count, tags=tags)

    def _set_drop_rate(self) -> None:
        accepted = self._metrics["accepted_traces"]
        sent = self._metrics["sent_traces"]
        encoded = sum([len(client.encoder) for client in self._clients])
        # The number of dropped traces is the number of accepted traces minus the number of traces in the encoder
        # This calculation is a best effort. Due to race conditions it may result in a slight underestimate.
        dropped = max(accepted - sent - encoded, 0)  # dropped spans should never be negative
        self._drop_sma.set(dropped, accepted)
        self._metrics["sent_traces"] = 0
        self._metrics["accepted_traces"] = encoded

    def _set_keep_rate(self, trace):
        if trace:
            # PERF: avoid setting via Span.set_metric
            trace[0]._set_attribute(_KEEP_SPANS_RATE_KEY, 1.0 - self._drop_sma.get())

    def _send_payload(self, payload: bytes, count: int, client: WriterClientBase):
        try:
            with self._exporter_lock:
                response_body = self._exporter.send(payload)
        except native.RequestError as e:
            try:
                # Request errors are formatted as "Error code: {code}, Response: {response}"
                code = int(str(e).split(",")[0].split(":", maxsplit=1)[1])
            except:  # noqa:E722 if the error message is invalid we want to log the full error
                raise e
            if code == 404 or code == 415:
                self._downgrade(code, client)
            else:
                raise e
        finally:
            self._metrics["sent_traces"] += count

        if self._response_cb:
            response = Response(body=response_body)
            raw_resp = response.get_json()

            if raw_resp and "rate_by_service" in raw_resp:
                self._response_cb(
                    AgentResponse(
                        rate_by_service=raw_resp["rate_by_service"],
                    )
                )

    def write(self, spans: Optional[Sequence[SpanData]] = None) -> None:
        if spans is not None and self._otlp_endpoint is not None:
            self._set_otlp_trace_context(spans)
        for client in self._clients:
            self._write_with_client(client, spans=spans)
        if self._sync_mode:
            self.flush_queue()

    @staticmethod
    def _set_otlp_trace_context(spans: Sequence[SpanData]) -> None:
        # AIDEV-NOTE: libdatadog maps these two DD span attributes to OTLP Span.trace_state
        # and Span.flags. TraceTagsProcessor removes propagation-only tags from spans, so
        # materialize the live native Context state immediately before OTLP-only encoding.
        # The narrow protocol keeps this foundation module independent of the tracing product.
        for span_data in spans:
            context = cast("_SpanWithContext", span_data).context
            sampling_priority = context.sampling_priority
            if sampling_priority is None:
                span_data._remove_attribute(_SAMPLING_PRIORITY_KEY)
            else:
                span_data._set_attribute(_SAMPLING_PRIORITY_KEY, sampling_priority)

            tracestate = ",".join("{}={}".format(*entry) for entry in context._tracestate_entries(span_data.span_id))
            if tracestate:
                span_data._set_attribute(W3C_TRACESTATE_KEY, tracestate)
            else:
                span_data._remove_attribute(W3C_TRACESTATE_KEY)

    def _write_with_client(self, client: WriterClientBase, spans: Optional[Sequence[SpanData]] = None) -> None:
        if spans is None:
            return

        if self._sync_mode is False:
            # Start the Writer on first write.
            try:
                if self.status != service.ServiceStatus.RUNNING:
                    self.start()

            except service.ServiceStatusError:
                _safelog(log.warning, "failed to start writer service")

        self._metrics_dist("writer.accepted.traces")
        self._metrics["accepted_traces"] += 1
        self._set_keep_rate(spans)

        try:
            client.encoder.put(spans)
        except BufferItemTooLarge as e:
            payload_size = e.args[0]
            _safelog(
                log.warning,
                "trace (%db) larger than payload buffer item limit (%db), dropping",
                payload_size,
                client.encoder.max_item_size,
            )
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:t_too_big"])
            self._metrics_dist("buffer.dropped.bytes", payload_size, tags=["reason:t_too_big"])
        except BufferFull as e:
            payload_size = e.args[0]
            _safelog(
                log.warning,
                "trace buffer (%s traces %db/%db) cannot fit trace of size %db, dropping (writer status: %s)",
                len(client.encoder),
                client.encoder.size,
                client.encoder.max_size,
                payload_size,
                self.status.value,
            )
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:full"])
            self._metrics_dist("buffer.dropped.bytes", payload_size, tags=["reason:full"])
        except NoEncodableSpansError:
            self._metrics_dist("buffer.dropped.traces", 1, tags=["reason:incompatible"])
        else:
            self._metrics_dist("buffer.accepted.traces", 1)
            self._metrics_dist("buffer.accepted.spans", len(spans))

    def flush_queue(self, raise_exc: bool = False):
        try:
            for client in self._clients:
                self._flush_queue_with_client(client, raise_exc=raise_exc)
        finally:
            self._set_drop_rate()

    def _flush_queue_with_client(self, client: WriterClientBase, raise_exc: bool = False) -> None:
        n_traces = len(client.encoder)
        try:
            if not (encoded_traces := client.encoder.encode()):
                return
        except Exception:
            # FIXME(munir): if client.encoder raises an Exception n_traces may not be accurate due to race conditions
            _safelog(log.error, "failed to encode trace with encoder %r", client.encoder, exc_info=True)
            self._metrics_dist("encoder.dropped.traces", n_traces)
            return

        for payload in encoded_traces:
            encoded_data, n_traces = payload
            self._flush_single_payload(encoded_data, n_traces, client=client, raise_exc=raise_exc)

    def _flush_single_payload(
        self, encoded: Optional[bytes], n_traces: int, client: WriterClientBase, raise_exc: bool = False
    ) -> None:
        if encoded is None:
            return
        try:
            self._send_payload(encoded, n_traces, client)
        except Exception as e:
            if raise_exc:
                raise

            msg = "failed to send, dropping %d traces to intake at %s: %s"
            log_args = (
                n_traces,
                self._intake_endpoint(client),
                str(e),
            )
            # Append the payload if requested
            if config._trace_writer_log_err_payload:
                msg += ", payload %s"
                log_args += (binascii.hexlify(encoded).decode(),)  # type: ignore

            _safelog(log.error, msg, *log_args, extra={"send_to_telemetry": False})

    def periodic(self):
        self.flush_queue(raise_exc=False)

    def _stop_service(
        self,
        timeout: Optional[float] = None,
    ) -> None:
        # FIXME: don't join() on stop(), let the caller handle this
        super()._stop_service()
        self.join(timeout=timeout)

    def on_shutdown(self):
        try:
            self.periodic()
        finally:
            self._shutdown_exporter(self._exporter)


def _use_log_writer() -> bool:
    """Returns whether the LogWriter should be used in the environment by
    default.

    The LogWriter is required by default in AWS Lambdas when the Datadog Agent extension
    is not available in the Lambda.
    """
    if env.get("DD_AGENT_HOST") or env.get("DATADOG_TRACE_AGENT_HOSTNAME") or env.get("DD_TRACE_AGENT_URL"):
        # If one of these variables are set, we definitely have an agent
        return False
    elif in_aws_lambda() and has_aws_lambda_agent_extension():
        # If the Agent Lambda extension is available then an AgentWriter is used.
        return False
    elif in_gcp_function() or in_azure_function():
        return False
    else:
        return in_aws_lambda()


def _use_sync_mode() -> bool:
    """Returns, if an `AgentWriter` is to be used, whether it should be run
     in synchronous mode by default.

    There are only three cases in which this is desirable:

    - AWS Lambdas can have the Datadog agent installed via an extension.
      When it's available traces must be sent synchronously to ensure all
      are received before the Lambda terminates.
    - Google Cloud Functions and Azure Functions have a mini-agent spun up by the tracer.
      Similarly to AWS Lambdas, sync mode should be used to avoid data loss.
    - Ray Job run different processes that can be killed at any time. Traces must be sent
      synchronously to ensure all are received before an actor/a worker is killed
    """
    return (
        (in_aws_lambda() and has_aws_lambda_agent_extension())
        or in_gcp_function()
        or in_azure_function()
        or in_ray_job()
    )


def _resolve_otlp_metrics_endpoint() -> Optional[str]:
    if _is_otlp_trace_metrics_enabled(
        otel_config.exporter,
        config._otel_stats_computation_enabled,
        config._otel_metrics_enabled,
    ):
        return otel_config.exporter.TRACE_METRICS_ENDPOINT
    return None


def _resolve_agentless_stats_endpoint() -> Optional[str]:
    if not config._trace_compute_stats or standalone_config.apm_opt_out:
        return None
    return compute_agentless_stats_url(config._dd_site.lower())


def create_trace_writer(
    response_callback: Optional[Callable[[AgentResponse], None]] = None,
    agentless: bool = False,
) -> TraceWriter:
    if _use_log_writer():
        return LogWriter()

    otlp_metrics_endpoint = _resolve_otlp_metrics_endpoint()
    otlp_endpoint = (
        otel_config.exporter.TRACES_ENDPOINT if _is_otlp_traces_exporter_enabled(otel_config.exporter) else None
    )

    if agentless and otlp_endpoint is not None and not _targets_agentless_intake("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        # explicit otlp endpoints take precedence
        agentless = False

    if agentless:
        intake_url = compute_agentless_intake_url(config._dd_site.lower())
        verify_url(intake_url)
        agentless_stats_endpoint = _resolve_agentless_stats_endpoint()
        if agentless_stats_endpoint is not None and otlp_metrics_endpoint is not None:
            # libdatadog rejects both at build time, so one has to go before the exporter is built.
            log.warning(
                "Datadog trace stats and OTLP trace metrics cannot both be exported in agentless "
                "mode. Sending Datadog trace stats to %s; set DD_TRACE_STATS_COMPUTATION_ENABLED=0 "
                "to export OTLP trace metrics instead.",
                agentless_stats_endpoint,
            )
            otlp_metrics_endpoint = None
        return NativeWriter(
            intake_url=intake_url,
            api_key=config._dd_api_key,
            dogstatsd=get_dogstatsd_client(agent_config.dogstatsd_url),
            sync_mode=_use_sync_mode(),
            compute_stats_enabled=config._trace_compute_stats,
            client_side_stats_obfuscation=config._client_side_stats_obfuscation,
            report_metrics=not standalone_config.apm_opt_out,
            response_callback=response_callback,
            stats_opt_out=standalone_config.apm_opt_out,
            # There is deliberately no otlp_endpoint: libdatadog rejects OTLP trace export
            # combined with agentless. OTLP trace metrics are permitted, and go to the intake.
            otlp_metrics_endpoint=otlp_metrics_endpoint,
            agentless_stats_endpoint=agentless_stats_endpoint,
        )

    verify_url(agent_config.trace_agent_url)

    return NativeWriter(
        intake_url=agent_config.trace_agent_url,
        dogstatsd=get_dogstatsd_client(agent_config.dogstatsd_url),
        sync_mode=_use_sync_mode(),
        compute_stats_enabled=config._trace_compute_stats,
        client_side_stats_obfuscation=config._client_side_stats_obfuscation,
        report_metrics=not standalone_config.apm_opt_out,
        response_callback=response_callback,
        stats_opt_out=standalone_config.apm_opt_out,
        otlp_endpoint=otlp_endpoint,
        otlp_metrics_endpoint=otlp_metrics_endpoint,
    )
