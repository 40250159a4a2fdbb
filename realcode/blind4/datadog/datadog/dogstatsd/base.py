#!/usr/bin/env python

# Unless explicitly stated otherwise all files in this repository are licensed under
# the BSD-3-Clause License. This product includes software developed at Datadog
# (https://www.datadoghq.com/).
# Copyright 2015-Present Datadog, Inc
"""
DogStatsd is a Python client for DogStatsd, a Statsd fork for Datadog.
"""
# Standard libraries
from random import random
import logging
import os
import socket
import errno
import struct
import sys
import threading
import time
from threading import RLock
import weakref

if sys.version_info[:2] >= (3, 5):
    from typing import TYPE_CHECKING  # noqa: F401


# pylint: disable=unused-import
if sys.version_info[:2] >= (3, 5):
    from typing import (  # noqa: F401
        Any, Callable, Iterable, List, Optional, Text, Tuple, Type, Union, overload,
    )

try:
    from typing import SupportsIndex
except ImportError:
    SupportsIndex = int  # type: ignore[assignment,misc]
# pylint: enable=unused-import

# Datadog libraries
from datadog.dogstatsd.aggregator import Aggregator
from datadog.dogstatsd.metric_types import MetricType
from datadog.dogstatsd.context import (
    TimedContextManagerDecorator,
    DistributedContextManagerDecorator,
)
from datadog.dogstatsd.route import get_default_route
from datadog.dogstatsd.container import Cgroup
from datadog.dogstatsd.sender_queue import (
    SenderQueue,
    PendingPayload,
    Stop,
    payload_text,
)

if sys.version_info[:2] >= (3, 5):
    from datadog.dogstatsd.sender_queue import QueuedItem  # noqa: F401
from datadog.util.compat import monotonic, text, urlparse
from datadog.util.format import normalize_tags, validate_cardinality
from datadog.version import __version__


if sys.version_info[:2] >= (3, 5):
    if TYPE_CHECKING:
        from socket import socket as _Socket

    BaseListClass = List[str]
else:
    BaseListClass = list


class TagList(BaseListClass):
    """A list subclass that calls on_change() after any mutation."""

    def __init__(self, iterable=(), on_change=None):
        # type: (Iterable[str], Optional[Callable[[], None]]) -> None
        super(TagList, self).__init__(iterable)
        self._on_change = on_change

    def _notify(self):
        # type: () -> None
        if self._on_change is not None:
            self._on_change()

    if sys.version_info[:2] >= (3, 5):
        @overload
        def __setitem__(self, index, value):  # noqa: F811
            # type: (SupportsIndex, str) -> None
            pass

        @overload
        def __setitem__(self, index, value):  # noqa: F811
            # type: (slice, Iterable[str]) -> None
            pass

    def __setitem__(self, index, value):  # noqa: F811
        # type: (Union[SupportsIndex, slice], Union[str, Iterable[str]]) -> None
        super(TagList, self).__setitem__(index, value)  # type: ignore
        self._notify()

    def __delitem__(self, index):  # noqa: F811
        # type: (Union[SupportsIndex, slice]) -> None
        super(TagList, self).__delitem__(index)
        self._notify()

    def __iadd__(self, other):  # type: ignore[misc,override]  # noqa: F811
        # type: (Iterable[str]) -> "TagList"
        super(TagList, self).__iadd__(other)
        self._notify()
        return self

    def __imul__(self, n):  # noqa: F811
        # type: (SupportsIndex) -> "TagList"
        super(TagList, self).__imul__(n)
        self._notify()
        return self

    def append(self, value):  # noqa: F811
        # type: (str) -> None
        super(TagList, self).append(value)
        self._notify()

    def extend(self, iterable):  # noqa: F811
        # type: (Iterable[str]) -> None
        super(TagList, self).extend(iterable)
        self._notify()

    def insert(self, index, value):  # noqa: F811
        # type: (SupportsIndex, str) -> None
        super(TagList, self).insert(index, value)
        self._notify()

    def remove(self, value):  # noqa: F811
        # type: (str) -> None
        super(TagList, self).remove(value)
        self._notify()

    def pop(self, index=-1):  # noqa: F811
        # type: (SupportsIndex) -> str
        value = super(TagList, self).pop(index)
        self._notify()
        return value

    def clear(self):  # noqa: F811
        # type: () -> None
        super(TagList, self).__delitem__(slice(None))
        self._notify()

    def sort(self, *args, **kwargs):
        # type: (*Any, **Any) -> None
        super(TagList, self).sort(*args, **kwargs)
        self._notify()

    def reverse(self):
        # type: () -> None
        super(TagList, self).reverse()
        self._notify()


# Logging
log = logging.getLogger("datadog.dogstatsd")

# Default config
DEFAULT_HOST = "localhost"
DEFAULT_PORT = 8125

# Socket prefixes
UNIX_ADDRESS_SCHEME = "unix://"
UNIX_ADDRESS_DATAGRAM_SCHEME = "unixgram://"
UNIX_ADDRESS_STREAM_SCHEME = "unixstream://"

# Buffering-related values (in seconds)
DEFAULT_BUFFERING_FLUSH_INTERVAL = 0.3
MIN_FLUSH_INTERVAL = 0.0001

# Env var to enable/disable sending the container ID field
ORIGIN_DETECTION_ENABLED = "DD_ORIGIN_DETECTION_ENABLED"

# Environment variable containing external data used for Origin Detection.
EXTERNAL_DATA_ENV_VAR = "DD_EXTERNAL_ENV"

# Default buffer settings based on socket type
UDP_OPTIMAL_PAYLOAD_LENGTH = 1432
UDS_OPTIMAL_PAYLOAD_LENGTH = 8192

# Socket options
MIN_SEND_BUFFER_SIZE = 32 * 1024
# Backoff for the background sender's own retry-by-requeuing loop (see
# _sender_main_loop). Covers every retryable failure it sees, connect and
# mid-send alike -- not just connects, hence the transport-neutral name. Not
# used for direct/synchronous sends, which never retry a connection failure
# regardless of socket_connect_retry.
SENDER_RETRY_INITIAL_BACKOFF = 0.025
SENDER_RETRY_MAX_BACKOFF = 60.0
# How long an *unbounded* shutdown (pre_fork(), or stop()/wait_for_pending()
# called with timeout=None) still waits for a payload stuck in the retry
# loop above to resolve, before giving up on it.
SENDER_UNBOUNDED_STOP_GRACE_SECONDS = SENDER_RETRY_MAX_BACKOFF
# How often the sender retries a connection once a shutdown has been
# requested but its deadline (the caller's own timeout, or the grace period
# above) hasn't passed yet.
SENDER_STOP_RETRY_INTERVAL = 0.5
# Default for sender_queue_expiry_seconds; it can be overridden per client.
PENDING_PAYLOAD_EXPIRY_SECONDS = 10.0
# Errors seen while sending on an already-connected socket that indicate the
# peer went away (e.g. the agent crashed/restarted). These are worth a single
# reconnect-and-resend attempt instead of dropping the packet outright.
UDS_TRANSIENT_SEND_ERRORS = set([
    errno.ECONNREFUSED,
    errno.ECONNRESET,
    errno.ENOTCONN,
    errno.EPIPE,
    errno.ENOENT,
])

# Mapping of each "DD_" prefixed environment variable to a specific tag name
DD_ENV_TAGS_MAPPING = {
    "DD_ENTITY_ID": "dd.internal.entity_id",
    "DD_ENV": "env",
    "DD_SERVICE": "service",
    "DD_VERSION": "version",
}

# Telemetry minimum flush interval in seconds
DEFAULT_TELEMETRY_MIN_FLUSH_INTERVAL = 10

# Telemetry pre-computed formatting string. Pre-computation
# increases throughput of composing the result by 2-15% from basic
# '%'-based formatting with a `join`.
TELEMETRY_FORMATTING_STR = "\n".join(
    [
        "datadog.dogstatsd.client.metrics:%s|c|#%s",
        "datadog.dogstatsd.client.events:%s|c|#%s",
        "datadog.dogstatsd.client.service_checks:%s|c|#%s",
        "datadog.dogstatsd.client.bytes_sent:%s|c|#%s",
        "datadog.dogstatsd.client.bytes_dropped:%s|c|#%s",
        "datadog.dogstatsd.client.bytes_dropped_queue:%s|c|#%s",
        "datadog.dogstatsd.client.bytes_dropped_writer:%s|c|#%s",
        "datadog.dogstatsd.client.packets_sent:%s|c|#%s",
        "datadog.dogstatsd.client.packets_dropped:%s|c|#%s",
        "datadog.dogstatsd.client.packets_dropped_queue:%s|c|#%s",
        "datadog.dogstatsd.client.packets_dropped_writer:%s|c|#%s",
    ]
) + "\n"

SUPPORTS_FORKING = hasattr(os, "register_at_fork") and not os.environ.get("DD_DOGSTATSD_DISABLE_FORK_SUPPORT", None)
TRACK_INSTANCES = not os.environ.get("DD_DOGSTATSD_DISABLE_INSTANCE_TRACKING", None)

_instances = weakref.WeakSet()  # type: weakref.WeakSet


class SenderState(object):
    STOPPED = "stopped"
    RUNNING = "running"
    RETRYING = "retrying"
    DRAINING = "draining"
    ABORTED = "aborted"


class _ActiveSender(object):
    """The active background sender's paired resources.

    Keep the queue and thread behind one pointer so lifecycle transitions do
    not publish a stable state where one half of the sender exists without the
    other. A stale sender thread can only clear the active sender if both the
    queue and thread still match this active sender.
    """

    __slots__ = ("queue", "thread")

    def __init__(self, queue, thread):
        # type: (SenderQueue, threading.Thread) -> None
        self.queue = queue
        self.thread = thread


def pre_fork():
    # type: () -> None
    """Prepare all client instances for a process fork.

    If SUPPORTS_FORKING is true, this will be called automatically before os.fork().
    """
    for c in _instances:
        c.pre_fork()


def post_fork_parent():
    # type: () -> None
    """Restore all client instances after a fork.

    If SUPPORTS_FORKING is true, this will be called automatically after os.fork().
    """
    for c in _instances:
        c.post_fork_parent()


def post_fork_child():
    # type: () -> None
    for c in _instances:
        c.post_fork_child()


if SUPPORTS_FORKING:
    os.register_at_fork(  # type: ignore
        before=pre_fork,
        after_in_child=post_fork_child,
        after_in_parent=post_fork_parent,
    )


# pylint: disable=useless-object-inheritance,too-many-instance-attributes
# pylint: disable=too-many-arguments,too-many-locals
class DogStatsd(object):
    OK, WARNING, CRITICAL, UNKNOWN = (0, 1, 2, 3)

    # Cardinality
    CARDINALITY_NONE = "none"
    CARDINALITY_LOW = "low"
    CARDINALITY_ORCHESTRATOR = "orchestrator"
    CARDINALITY_HIGH = "high"

    def __init__(
        self,
        host=None,                              # type: Optional[Text]
        port=None,                              # type: Optional[int]
        max_buffer_size=None,                   # type: Optional[int]
        flush_interval=DEFAULT_BUFFERING_FLUSH_INTERVAL,  # type: float
        disable_aggregation=True,               # type: bool
        disable_buffering=True,                 # type: bool
        namespace=None,                         # type: Optional[Text]
        constant_tags=None,                     # type: Optional[List[str]]
        use_ms=False,                           # type: bool
        use_default_route=False,                # type: bool
        socket_path=None,                       # type: Optional[Text]
        default_sample_rate=1,                  # type: float
        disable_telemetry=False,                # type: bool
        telemetry_min_flush_interval=(DEFAULT_TELEMETRY_MIN_FLUSH_INTERVAL),  # type: int
        telemetry_host=None,                    # type: Optional[Text]
        telemetry_port=None,                    # type: Optional[Union[str, int]]
        telemetry_socket_path=None,             # type: Optional[Text]
        max_buffer_len=0,                       # type: int
        max_metric_samples_per_context=0,       # type: int
        container_id=None,                      # type: Optional[Text]
        origin_detection_enabled=True,          # type: bool
        cardinality=None,                       # type: Optional[Text]
        socket_timeout=0,                       # type: Optional[float]
        telemetry_socket_timeout=0,             # type: Optional[float]
        disable_background_sender=True,         # type: bool
        sender_queue_size=0,                    # type: int
        sender_queue_timeout=0,                 # type: Optional[float]
        sender_queue_expiry_seconds=PENDING_PAYLOAD_EXPIRY_SECONDS,  # type: float
        track_instance=True,                    # type: bool
        socket_connect_retry=False,              # type: bool
    ):  # type: (...) -> None
        """
        Initialize a DogStatsd object.

        >>> statsd = DogStatsd()

        :envvar DD_DOGSTATSD_URL: the connection information for the DogStatsd server.
        If set, and no connection was provided explicitly, it takes precedence over
        DD_AGENT_HOST / DD_DOGSTATSD_PORT.
        Example for a UDP url: `DD_DOGSTATSD_URL=udp://localhost:8125`
        Example for a UDS url: `DD_DOGSTATSD_URL=unix:///var/run/datadog/dsd.socket`
        Windows named pipes are currently unsupported.
        :type DD_DOGSTATSD_URL: string

        :envvar DD_AGENT_HOST: the host of the DogStatsd server.
        If set, it overrides default value. DD_DOGSTATSD_URL takes precedence over this value.
        :type DD_AGENT_HOST: string

        :envvar DD_DOGSTATSD_PORT: the port of the DogStatsd server.
        If set, it overrides default value. DD_DOGSTATSD_URL takes precedence over this value.
        :type DD_DOGSTATSD_PORT: integer

        :envvar DATADOG_TAGS: Tags to attach to every metric reported by dogstatsd client.
        :type DATADOG_TAGS: comma-delimited string

        :envvar DD_ENTITY_ID: Tag to identify the client entity.
        :type DD_ENTITY_ID: string

        :envvar DD_ENV: the env of the service running the dogstatsd client.
        If set, it is appended to the constant (global) tags of the statsd client.
        :type DD_ENV: string

        :envvar DD_SERVICE: the name of the service running the dogstatsd client.
        If set, it is appended to the constant (global) tags of the statsd client.
        :type DD_SERVICE: string

        :envvar DD_VERSION: the version of the service running the dogstatsd client.
        If set, it is appended to the constant (global) tags of the statsd client.
        :type DD_VERSION: string

        :envvar DD_DOGSTATSD_DISABLE: Disable any statsd metric collection (default False)
        :type DD_DOGSTATSD_DISABLE: boolean

        :envvar DD_TELEMETRY_HOST: the host for the dogstatsd server we wish to submit
        telemetry stats to. If set, it overrides default value.
        :type DD_TELEMETRY_HOST: string

        :envvar DD_TELEMETRY_PORT: the port for the dogstatsd server we wish to submit
        telemetry stats to. If set, it overrides default value.
        :type DD_TELEMETRY_PORT: integer

        :envvar DD_ORIGIN_DETECTION_ENABLED: Enable/disable sending the container ID field
        for origin detection.
        :type DD_ORIGIN_DETECTION_ENABLED: boolean

        :envvar DD_DOGSTATSD_DISABLE_FORK_SUPPORT: Don't install global fork hooks with os.register_at_fork.
        Global fork hooks then need to be called manually before and after calling os.fork.
        :type DD_DOGSTATSD_DISABLE_FORK_SUPPORT: boolean

        :envvar DD_DOGSTATSD_DISABLE_INSTANCE_TRACKING: Don't register instances of this class with global fork hooks.
        :type DD_DOGSTATSD_DISABLE_INSTANCE_TRACKING: boolean

        :param host: the host of the DogStatsd server.
        :type host: string

        :param port: the port of the DogStatsd server.
        :type port: integer

        :max_buffer_size: Deprecated option, do not use it anymore.
        :type max_buffer_type: None

        :flush_interval: Amount of time in seconds that the flush thread will
        wait before trying to flush the buffered metrics to the server. If set,
        it overrides the default value.
        :type flush_interval: float

        :disable_aggregation: If true, metrics (Count, Gauge, Set) are no longer aggregated by the client
        :type disable_aggregation: bool

        :max_metric_samples_per_context: Sets the maximum amount of samples for Histogram, Distribution
        and Timings metrics (default 0). This feature should be used alongside aggregation. This feature
        is experimental.
        :type max_metric_samples_per_context: int

        :disable_buffering: If set, metrics are no longered buffered by the client and
        all data is sent synchronously to the server
        :type disable_buffering: bool

        :param namespace: Namespace to prefix all metric names
        :type namespace: string

        :param constant_tags: Tags to attach to all metrics
        :type constant_tags: list of strings

        :param use_ms: Report timed values in milliseconds instead of seconds (default False)
        :type use_ms: boolean

        :param use_default_route: Dynamically set the DogStatsd host to the default route
        (Useful when running the client in a container) (Linux only)
        :type use_default_route: boolean

        :param socket_path: Communicate with dogstatsd through a UNIX socket instead of
        UDP. If set, disables UDP transmission (Linux only)
        :type socket_path: string

        :param default_sample_rate: Sample rate to use by default for all metrics
        :type default_sample_rate: float

        :param max_buffer_len: Maximum number of bytes to buffer before sending to the server
        if sending metrics in batch. If not specified it will be adjusted to a optimal value
        depending on the connection type.
        :type max_buffer_len: integer

        :param disable_telemetry: Should client telemetry be disabled
        :type disable_telemetry: boolean

        :param telemetry_min_flush_interval: Minimum flush interval for telemetry in seconds
        :type telemetry_min_flush_interval: integer

        :param telemetry_host: the host for the dogstatsd server we wish to submit
        telemetry stats to. Optional. If telemetry is enabled and this is not specified
        the default host will be used.
        :type host: string

        :param telemetry_port: the port for the dogstatsd server we wish to submit
        telemetry stats to. Optional. If telemetry is enabled and this is not specified
        the default host will be used.
        :type port: integer

        :param telemetry_socket_path: Submit client telemetry to dogstatsd through a UNIX
        socket instead of UDP. If set, disables UDP transmission (Linux only)
        :type telemetry_socket_path: string

        :param container_id: Allows passing the container ID, this will be used by the Agent to enrich
        metrics with container tags.
        This feature requires Datadog Agent version >=6.35.0 && <7.0.0 or Agent versions >=7.35.0.
        When configured, the provided container ID is prioritized over the container ID discovered
        via Origin Detection.
        Default: None.
        :type container_id: string

        :param origin_detection_enabled: Enable/disable the client origin detection.
        This feature requires Datadog Agent version >=6.35.0 && <7.0.0 or Agent versions >=7.35.0.
        When enabled, the client tries to discover its container ID and sends it to the Agent
        to enrich the metrics with container tags.
        Origin detection can be disabled by configuring the environment variabe DD_ORIGIN_DETECTION_ENABLED=false
        The client tries to read the container ID by parsing the file /proc/self/cgroup.
        This is not supported on Windows.
        Default: True.
        More on this: https://docs.datadoghq.com/developers/dogstatsd/?tab=kubernetes#origin-detection-over-udp
        :type origin_detection_enabled: boolean

        :param cardinality: Set the cardinality of the client. Optional.
        This feature requires Datadog Agent version >=7.64.0.
        When configured, the provided cardinality is sent to the Agent to enrich the metrics with
        specific cardinality tags from Origin Detection.
        Default: None.
        More on this: https://docs.datadoghq.com/containers/kubernetes/tag/?tab=datadogoperator#out-of-the-box-tags
        :type cardinality: string

        :param socket_timeout: Set timeout for socket operations, in seconds. Optional.
        If sets to zero, never wait if operation can not be completed immediately. If set to None, wait forever.
        This option does not affect hostname resolution when using UDP.
        :type socket_timeout: float

        :param socket_connect_retry: Only affects the background sender (disable_background_sender=False).
        If True, a connection failure while sending a queued payload to a UNIX socket is retried
        indefinitely, backing off up to once a minute between attempts, instead of dropping the payload
        immediately. Ordinary payloads stuck retrying are eventually dropped as stale by the sender
        queue's own expiry; timestamped payloads never expire, so only a shutdown (stop(),
        disable_background_sender(), pre_fork()) can end their retrying -- and it waits up to its own
        timeout (or a bounded grace period, SENDER_UNBOUNDED_STOP_GRACE_SECONDS, for an unbounded call
        such as pre_fork()) before giving up on one, at which point it is counted as a writer drop and
        the shutdown call reports failure rather than success. wait_for_pending() never forces this: it
        only waits for the queue's own retries and expiry to run their course. Direct/synchronous sends
        (the default mode) always fail fast on a connection error and are unaffected by this setting.
        Default: False (fail fast, matching the previous socket_connect_timeout=0 default).
        :type socket_connect_retry: bool

        :param telemetry_socket_timeout: Set timeout for the telemetry socket operations. Optional.
        Effective only if either telemetry_host or telemetry_socket_path are set.
        If sets to zero, never wait if operation can not be completed immediately. If set to None, wait forever.
        This option does not affect hostname resolution when using UDP.
        :type telemetry_socket_timeout: float

        :param disable_background_sender: Use a background thread to communicate with the dogstatsd server. Optional.
        When enabled, a background thread will be used to send metric payloads to the Agent.
        Applications should call stop() before exiting to make sure all pending payloads are sent.
        Default: True.
        :type disable_background_sender: boolean

        :param sender_queue_size: Set the maximum number of packets to queue for the sender. Optional.
        How many packets to queue before blocking or dropping the packet if the packet queue is already full.
        Default: 0 (unlimited).
        :type sender_queue_size: integer

        :param sender_queue_timeout: Set timeout for packet queue operations, in seconds. Optional.
        How long the application thread is willing to wait for the queue clear up before dropping the metric packet.
        If set to None, wait forever.
        If set to zero drop the packet immediately if the queue is full.
        Default: 0 (no wait)
        :type sender_queue_timeout: float

        :param sender_queue_expiry_seconds: How long, in seconds, a non-timestamped payload
        may sit in the sender queue before it's considered stale and dropped instead of sent.
        Payloads that carry their own explicit timestamp are exempt: delivering
        those late doesn't change what they mean, so they're kept until they can be sent.
        Default: PENDING_PAYLOAD_EXPIRY_SECONDS (10.0).
        :type sender_queue_expiry_seconds: float

        :param track_instance: Keep track of this instance and automatically handle cleanup when os.fork() is called,
        if supported.
        Default: True.
        :type track_instance: boolean
        """

        # RLock: _xmit_packet_attempt holds this across get_socket()/close_socket()
        # calls, which also take it themselves.
        self._socket_lock = RLock()

        # Check for deprecated option
        if max_buffer_size is not None:
            log.warning("The parameter max_buffer_size is now deprecated and is not used anymore")
        # Resolve host/port/socket from env vars when not set explicitly. An
        # explicit constructor argument always wins over any environment variable.
        host, port, socket_path = self._parse_env_connection_overrides(host, port, socket_path)

        # Apply the hard-coded defaults last, once env resolution is done. When a
        # socket transport is selected these are ignored (host/port become None
        # below), but resolving them keeps `port` a concrete int for telemetry.
        if host is None:
            host = DEFAULT_HOST
        if port is None:
            port = DEFAULT_PORT

        # Assuming environment variables always override
        telemetry_host = os.environ.get("DD_TELEMETRY_HOST", telemetry_host)
        telemetry_port = os.environ.get("DD_TELEMETRY_PORT", telemetry_port) or port

        # Check enabled
        if os.environ.get("DD_DOGSTATSD_DISABLE") not in {"True", "true", "yes", "1"}:
            self._enabled = True
        else:
            self._enabled = False

        # Connection
        self._max_buffer_len = max_buffer_len
        self.socket_timeout = socket_timeout
        self.socket_connect_retry = socket_connect_retry
        if socket_path is not None:
            self.socket_path = socket_path  # type: Optional[text]
            self.host = None
            self.port = None
        else:
            self.socket_path = None
            self.host = self.resolve_host(host, use_default_route)
            self.port = int(port)

        self.telemetry_socket_path = telemetry_socket_path  # type: Optional[Text]
        self.telemetry_host = None  # type: Optional[Text]
        self.telemetry_port = None  # type: Optional[int]
        self.telemetry_socket_timeout = telemetry_socket_timeout
        if not telemetry_socket_path and telemetry_host:
            self.telemetry_socket_path = None
            self.telemetry_host = self.resolve_host(telemetry_host, use_default_route)
            self.telemetry_port = int(telemetry_port)

        # Socket
        self.socket = None
        self.telemetry_socket = None
        self.encoding = "utf-8"

        # Options
        env_tags = [tag for tag in os.environ.get("DATADOG_TAGS", "").split(",") if tag]
        # Inject values of DD_* environment variables as global tags.
        for var, tag_name in DD_ENV_TAGS_MAPPING.items():
            value = os.environ.get(var, "")
            if value:
                env_tags.append("{name}:{value}".format(name=tag_name, value=value))

        # This lock is used for all cases where client configuration is being changed: buffering,
        # aggregation, sender mode.
        self._config_lock = RLock()

        if constant_tags is None:
            constant_tags = []

        self._constant_tags_str = ""
        self._constant_tags = TagList()
        self.constant_tags = TagList(constant_tags + env_tags)

        if namespace is not None:
            namespace = text(namespace)
        self.namespace = namespace
        self.use_ms = use_ms  # type: bool
        self.default_sample_rate = default_sample_rate
        self.cardinality = cardinality

        # Origin detection
        self._container_id = None  # type: Optional[Text]
        origin_detection_enabled = self._is_origin_detection_enabled(
            container_id, origin_detection_enabled
        )
        self._set_container_id(container_id, origin_detection_enabled)
        self._external_data = os.environ.get(EXTERNAL_DATA_ENV_VAR, None)

        # init telemetry version
        self._client_tags = [
            "client:py",
            "client_version:{}".format(__version__),
        ]
        self._reset_telemetry()
        self._telemetry_flush_interval = telemetry_min_flush_interval
        self._telemetry = not disable_telemetry
        self._last_flush_time = time.time()

        self._buffer_lock = RLock()

        self._reset_buffer()

        self._disable_buffering = disable_buffering
        self._disable_aggregation = disable_aggregation

        self._flush_interval = flush_interval
        self._flush_thread = None  # type: Optional[threading.Thread]
        self._flush_thread_stop = threading.Event()
        self.aggregator = Aggregator(max_metric_samples_per_context, self.cardinality)
        # Indicates if the process is about to fork, so we shouldn't start any new threads yet.
        self._forking = False

        if not self._disable_buffering:
            self._send = self._send_to_buffer
        else:
            self._send = self._send_to_server

        if not self._disable_aggregation or not self._disable_buffering:
            self._start_flush_thread()
        else:
            log.debug("Statsd buffering and aggregation is disabled")

        # Paired queue/thread for the active background sender, or None when
        # there is no active sender. Expose read-only _queue/_sender_thread
        # compatibility properties below, but mutate the pair only via this
        # active-sender handle so they cannot be published half-updated.
        self._active_sender = None  # type: Optional[_ActiveSender]
        # Background sender lifecycle state.
        self._sender_state = SenderState.STOPPED
        # Condition guarding sender state transitions and retry backoff waits.
        self._sender_condition = threading.Condition()
        # The monotonic deadline by which a draining sender must give up on
        # pending payloads. Meaningful only while state is DRAINING.
        self._sender_stop_deadline = None  # type: Optional[float]
        self._sender_enabled = False

        if not disable_background_sender:
            self.enable_background_sender(
                sender_queue_size, sender_queue_timeout, sender_queue_expiry_seconds
            )

        if TRACK_INSTANCES and track_instance:
            _instances.add(self)

    @property
    def _queue(self):
        # type: () -> Optional[SenderQueue]
        active_sender = self._active_sender
        if active_sender is None:
            return None
        return active_sender.queue

    @property
    def _sender_thread(self):
        # type: () -> Optional[threading.Thread]
        active_sender = self._active_sender
        if active_sender is None:
            return None
        return active_sender.thread

    @property
    def socket_path(self):
        # type: () -> Optional[Text]
        return self._socket_path

    @socket_path.setter
    def socket_path(self, path):
        # type: (Optional[Text]) -> None
        with self._socket_lock:
            self._socket_path = path

    @property
    def socket(self):
        # type: () -> Optional[_Socket]
        return self._socket

    @socket.setter
    def socket(self, new_socket):
        # type: (Optional[_Socket]) -> None
        self._socket = new_socket
        self._socket_kind = None  # type: Optional[int]
        if new_socket:
            try:
                self._socket_kind = new_socket.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)
                if new_socket.family == socket.AF_UNIX:
                    if self._socket_kind == socket.SOCK_STREAM:
                        self._transport = "uds-stream"
                    else:
                        self._transport = "uds"
                    self._max_payload_size = self._max_buffer_len or UDS_OPTIMAL_PAYLOAD_LENGTH
                else:
                    self._transport = "udp"
                    self._max_payload_size = self._max_buffer_len or UDP_OPTIMAL_PAYLOAD_LENGTH
                return
            except AttributeError:  # _socket can't have a type if it doesn't have sockopts
                log.info("Unexpected socket provided with no support for getsockopt")
        self._socket_kind = None
        self._transport = "udp"
        # When the socket is None, we use the UDP optimal payload length
        self._max_payload_size = UDP_OPTIMAL_PAYLOAD_LENGTH

    @property
    def telemetry_socket(self):
        # type: () -> Optional[_Socket]
        return self._telemetry_socket

    @telemetry_socket.setter
    def telemetry_socket(self, t_socket):
        # type: (Optional[_Socket]) -> None
        self._telemetry_socket = t_socket
        self._telemetry_socket_kind = None  # type: Optional[int]
        if t_socket:
            try:
                self._telemetry_socket_kind = t_socket.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)
                return
            except AttributeError:  # _telemetry_socket can't have a kind if it doesn't have sockopts
                log.info("Unexpected telemetry socket provided with no support for getsockopt")
        self._telemetry_socket_kind = None

    def enable_background_sender(
        self,
        sender_queue_size=0,
        sender_queue_timeout=0,
        sender_queue_expiry_seconds=PENDING_PAYLOAD_EXPIRY_SECONDS,
    ):
        # type: (int, Optional[float], float) -> None
        """
        Use a background thread to communicate with the dogstatsd server.
        When enabled, a background thread will be used to send metric payloads to the Agent.

        Applications should call stop() before exiting to make sure all pending payloads are sent.

        Compatible with os.fork() starting with Python 3.7. On earlier versions, compatible if applications
        arrange to call pre_fork(), post_fork_parent() and post_fork_child() module functions around calls
        to os.fork().

        :param sender_queue_size: Set the maximum number of packets to queue for the sender.
            How many packets to queue before blocking or dropping the packet if the packet queue is already full.
            Default: 0 (unlimited).
        :type sender_queue_size: integer, optional
        :param sender_queue_timeout: Set timeout for packet queue operations, in seconds.
            How long the application thread is willing to wait for the queue clear up before dropping the metric packet.
            If set to None, wait forever. If set to zero drop the packet immediately if the queue is full.
            Default: 0 (no wait).
        :type sender_queue_timeout: float, optional
        :param sender_queue_expiry_seconds: How long, in seconds, a non-timestamped payload may sit in the
            sender queue before it's considered stale and dropped instead of sent. Timestamped payloads
            (those carrying their own explicit timestamp) are exempt and are kept until they can be sent.
            Default: PENDING_PAYLOAD_EXPIRY_SECONDS (10.0).
        :type sender_queue_expiry_seconds: float, optional
        """

        with self._config_lock:
            self._sender_enabled = True
            self._sender_queue_size = sender_queue_size
            self._sender_queue_timeout = sender_queue_timeout
            self._sender_queue_expiry_seconds = sender_queue_expiry_seconds

            self._start_sender_thread()

    def disable_background_sender(self, timeout=None):
        # type: (Optional[float]) -> bool
        """Disable background sender mode.

        This call will block until all previously queued payloads are sent.

        :param timeout: Maximum number of seconds to wait for the sender thread
            to drain the queue and exit. None (the default) waits indefinitely
            for a sender that is genuinely busy (e.g. blocked inside a slow
            send()), but not for a payload stuck retrying a connection
            failure with socket_connect_retry enabled -- that case is bounded
            by SENDER_UNBOUNDED_STOP_GRACE_SECONDS regardless of this
            parameter, so an Agent that never comes back cannot hang this
            call forever.
        :type timeout: float, optional
        :return: True if the sender thread finished AND the queue actually
            drained. False if timeout (or the grace period above) elapsed
            first -- either because the sender thread is still running, or
            because it gave up on a payload still retrying a connection
            failure and dropped it (counted in packets_dropped_writer)
            instead of delivering it.
        """
        with self._config_lock:
            self._sender_enabled = False
            return self._stop_sender_thread(timeout)

    def disable_telemetry(self):
        # type: () -> None
        self._telemetry = False

    def enable_telemetry(self):
        # type: () -> None
        self._telemetry = True

    @staticmethod
    def _parse_env_connection_overrides(host, port, socket_path):
        # type: (Optional[Text], Optional[int], Optional[Text]) -> Tuple[Optional[Text], Optional[int], Optional[Text]]
        """
        Resolve the connection host/port/socket_path from environment variables,
        without overriding values already provided explicitly to the constructor.

        DD_DOGSTATSD_URL takes precedence over DD_AGENT_HOST / DD_DOGSTATSD_PORT and
        is only honored when no connection information was passed explicitly. It
        supports 'udp://host:port' and 'unix:///path/to/socket' URLs.
        """
        dogstatsd_url = os.environ.get("DD_DOGSTATSD_URL")
        if host is None and port is None and socket_path is None and dogstatsd_url is not None:
            parsed = urlparse(dogstatsd_url)
            if parsed.scheme in ("unix", "unixstream", "unixgram"):
                # The scheme is stripped later by _get_uds_socket (which also uses it
                # to pick the SOCK_STREAM/SOCK_DGRAM kind), so the full URL is stored
                # as the socket path.
                log.debug("DD_DOGSTATSD_URL %r resolved to a unix socket path.", dogstatsd_url)
                return None, None, dogstatsd_url
            elif parsed.scheme == "udp":
                try:
                    url_port = parsed.port
                    # Python 2's urlparse does not bounds-check the port.
                    if url_port is None or url_port < 0 or url_port > 65535:
                        log.warning(
                            "DD_DOGSTATSD_URL %r had no or invalid port number, reverting to default %s",
                            dogstatsd_url, DEFAULT_PORT,
                        )
                        url_port = DEFAULT_PORT
                except ValueError as e:
                    log.warning(
                        "DD_DOGSTATSD_URL %r contained an invalid port number, falling back to %d: %s",
                        dogstatsd_url, DEFAULT_PORT, e,
                    )
                    url_port = DEFAULT_PORT
                return parsed.hostname, url_port, socket_path
            else:
                log.warning(
                    "DD_DOGSTATSD_URL %r had unsupported scheme %r, must be one of "
                    "'udp://', 'unix://', 'unixstream://', 'unixgram://'",
                    dogstatsd_url, parsed.scheme,
                )

        # Fall back to the legacy per-field env vars (only when the arg is unset).
        agent_host = os.environ.get("DD_AGENT_HOST")
        if agent_host and host is None:
            host = agent_host

        dogstatsd_port = os.environ.get("DD_DOGSTATSD_PORT")
        if dogstatsd_port and port is None:
            try:
                port = int(dogstatsd_port)
            except ValueError:
                log.warning(
                    "DD_DOGSTATSD_PORT value %r is not an integer, falling back to default",
                    dogstatsd_port,
                )

        return host, port, socket_path

    # Note: Invocations of this method should be thread-safe
    def _start_flush_thread(self, quiet=False):
        # type: (bool) -> None
        # quiet=True is for callers reachable from os.register_at_fork(after_in_child=...)
        # (see post_fork_child/post_fork_parent below): logging.Logger.debug() is not
        # async-signal-safe -- it can block acquiring a StreamHandler's own lock, which
        # is left permanently locked in the child if some other thread held it at the
        # instant of fork (no thread survives fork to release it). Every branch below
        # logs something, so quiet has to be threaded through all of them, not just one.
        if self._disable_aggregation and self.disable_buffering:
            if not quiet:
                log.debug("Statsd periodic buffer and aggregation flush is disabled")
            return

        if self._flush_interval <= MIN_FLUSH_INTERVAL:
            if not quiet:
                log.debug(
                    "the set flush interval is less then the minimum"
                )
            return

        if self._forking:
            return

        if self._flush_thread is not None:
            return

        def _flush_thread_loop(self, flush_interval):
            # type: (DogStatsd, float) -> None
            while not self._flush_thread_stop.is_set():
                time.sleep(flush_interval)
                if not self._disable_aggregation:
                    self.flush_aggregated_metrics()
                if not self._disable_buffering:
                    self.flush_buffered_metrics()
        self._flush_thread = threading.Thread(
            name="{}_flush_thread".format(self.__class__.__name__),
            target=_flush_thread_loop,
            args=(self, self._flush_interval,),
        )
        self._flush_thread.daemon = True
        self._flush_thread.start()
        if not quiet:
            log.debug(
                "Statsd flush thread registered with period of %s",
                self._flush_interval,
            )

    # Note: Invocations of this method should be thread-safe
    def _stop_flush_thread(self):
        # type: () -> None
        if not self._flush_thread:
            return
        try:
            if not self._disable_aggregation:
                self.flush_aggregated_metrics()
            if not self.disable_buffering:
                self.flush_buffered_metrics()
        finally:
            pass

        self._flush_thread_stop.set()
        self._flush_thread.join()
        self._flush_thread = None
        self._flush_thread_stop.clear()

    def _dedicated_telemetry_destination(self):
        # type: () -> bool
        return bool(self.telemetry_socket_path or self.telemetry_host)

    def _uses_dedicated_telemetry(self, is_telemetry):
        # type: (bool) -> bool
        """True when this packet goes to a separate telemetry destination.

        Decides which socket/socket_path pair applies to a packet, so the
        send path and its transport check can't disagree about it.
        """
        return is_telemetry and self._dedicated_telemetry_destination()

    # Context manager helper
    def __enter__(self):
        # type: () -> DogStatsd
        self.open_buffer()
        return self

    # Context manager helper
    def __exit__(self, exc_type, value, traceback):
        # type: (Optional[Type[BaseException]], Optional[BaseException], Optional[Any]) -> None
        self.close_buffer()

    @property
    def disable_buffering(self):
        # type: () -> bool
        with self._config_lock:
            return self._disable_buffering

    @disable_buffering.setter
    def disable_buffering(self, is_disabled):
        # type: (bool) -> None
        with self._config_lock:
            # If the toggle didn't change anything, this method is a noop
            if self._disable_buffering == is_disabled:
                return

            self._disable_buffering = is_disabled

            # If buffering (and aggregation) has been disabled, flush and kill the background thread
            # otherwise start up the flushing thread and enable the buffering.
            if is_disabled:
                self._send = self._send_to_server
                if self._disable_aggregation and self.disable_buffering:
                    self._stop_flush_thread()
                log.debug("Statsd buffering is disabled")
            else:
                self._send = self._send_to_buffer
                self._start_flush_thread()

    def disable_aggregation(self):
        # type: () -> None
        with self._config_lock:
            # If the toggle didn't change anything, this method is a noop
            if self._disable_aggregation:
                return

            self._disable_aggregation = True

            # If aggregation and buffering has been disabled, flush and kill the background thread
            # otherwise start up the flushing thread and enable aggregation.
            if self._disable_aggregation and self.disable_buffering:
                self._stop_flush_thread()
            log.debug("Statsd aggregation is disabled")

    def enable_aggregation(self, flush_interval=DEFAULT_BUFFERING_FLUSH_INTERVAL, max_samples_per_context=0):
        # type: (float, int) -> None
        with self._config_lock:
            if not self._disable_aggregation:
                return
            self.aggregator.set_max_samples_per_context(max_samples_per_context)
            self._disable_aggregation = False
            self._flush_interval = flush_interval
            if self._disable_buffering:
                self._send = self._send_to_server
            self._start_flush_thread()

    @staticmethod
    def resolve_host(host, use_default_route):
        # type: (Optional[Text], bool) -> Optional[Text]
        """
        Resolve the DogStatsd host.

        :param host: host
        :type host: string
        :param use_default_route: Use the system default route as host (overrides `host` parameter)
        :type use_default_route: bool
        """
        if not use_default_route:
            return host

        return get_default_route()

    def get_socket(self, telemetry=False):
        # type: (bool) -> _Socket
        """
        Return a connected socket.

        Note: connect the socket before assigning it to the class instance to
        avoid bad thread race conditions.
        """
        with self._socket_lock:
            if telemetry and self._dedicated_telemetry_destination():
                if not self.telemetry_socket:
                    if self.telemetry_socket_path is not None:
                        self.telemetry_socket = self._get_uds_socket(
                            self.telemetry_socket_path,
                            self.telemetry_socket_timeout,
                        )
                    else:
                        self.telemetry_socket = self._get_udp_socket(
                            self.telemetry_host,
                            self.telemetry_port,
                            self.telemetry_socket_timeout,
                        )

                return self.telemetry_socket

            if not self.socket:
                if self.socket_path is not None:
                    self.socket = self._get_uds_socket(
                        self.socket_path,
                        self.socket_timeout,
                    )
                else:
                    self.socket = self._get_udp_socket(
                        self.host,
                        self.port,
                        self.socket_timeout,
                    )

            return self.socket

    def set_socket_timeout(self, timeout):
        # type: (Optional[float]) -> None
        """
        Set timeout for socket operations, in seconds.

        If set to zero, never wait if operation can not be completed immediately. If set to None, wait forever.
        This option does not affect hostname resolution when using UDP.
        """
        with self._socket_lock:
            self.socket_timeout = timeout
            if self.socket:
                self.socket.settimeout(timeout)

    @classmethod
    def _ensure_min_send_buffer_size(cls, sock, min_size=MIN_SEND_BUFFER_SIZE):
        # type: (_Socket, int) -> None
        # Increase the send buffer size where needed (e.g. MacOS has 4k TX
        # buffers which is half of the max packet size that the client will send.
        if os.name == 'posix':
            send_buff_size = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            if send_buff_size <= min_size:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, min_size)
                log.debug("Socket send buffer increased to %dkb", min_size / 1024)

    @classmethod
    def _get_uds_socket(cls, socket_path, timeout):
        # type: (Text, Optional[float]) -> _Socket
        """Make one connect attempt per candidate socket kind.
        """
        valid_socket_kinds = [socket.SOCK_DGRAM, socket.SOCK_STREAM]
        if socket_path.startswith(UNIX_ADDRESS_DATAGRAM_SCHEME):
            valid_socket_kinds = [socket.SOCK_DGRAM]
            socket_path = socket_path[len(UNIX_ADDRESS_DATAGRAM_SCHEME):]
        elif socket_path.startswith(UNIX_ADDRESS_STREAM_SCHEME):
            valid_socket_kinds = [socket.SOCK_STREAM]
            socket_path = socket_path[len(UNIX_ADDRESS_STREAM_SCHEME):]
        elif socket_path.startswith(UNIX_ADDRESS_SCHEME):
            socket_path = socket_path[len(UNIX_ADDRESS_SCHEME):]

        for index, socket_kind in enumerate(valid_socket_kinds):
            is_last_kind = index == len(valid_socket_kinds) - 1
            # py2 stores socket kinds differently than py3, determine the name independently from version
            sk_name = {socket.SOCK_STREAM: "stream", socket.SOCK_DGRAM: "datagram"}[socket_kind]
            sock = None
            try:
                sock = socket.socket(socket.AF_UNIX, socket_kind)
                sock.settimeout(timeout)
                cls._ensure_min_send_buffer_size(sock)
                sock.connect(socket_path)
                log.debug("Connected to socket %s with kind %s", socket_path, sk_name)
                return sock
            except Exception as e:
                if sock is not None:
                    sock.close()
                log.debug("Failed to connect to %s with kind %s: %s", socket_path, sk_name, e)
                if getattr(e, "errno", None) == errno.EPROTOTYPE and not is_last_kind:
                    # Wrong socket kind for this address -- try the other one.
                    continue
                raise
        # Unreachable: valid_socket_kinds is never empty, and every path above
        # either returns or raises. Present only so this always has a return
        # type of _Socket.
        raise socket.error("no usable socket kind for {}".format(socket_path))

    @classmethod
    def _get_udp_socket(cls, host, port, timeout):
        # type: (Optional[Text], Optional[int], Optional[float]) -> _Socket
        log.debug("Connecting to %s:%s", host, port)
        addrinfo = socket.getaddrinfo(host, port, 0, socket.SOCK_DGRAM)
        # Override gai.conf order for backwrads compatibility: prefer
        # v4, so that a v4-only service on hosts with both addresses
        # still works.
        addrinfo.sort(key=lambda v: v[0] == socket.AF_INET, reverse=True)
        lastaddr = len(addrinfo) - 1
        for i, (af, ty, proto, _, addr) in enumerate(addrinfo):
            sock = None
            try:
                sock = socket.socket(af, ty, proto)
                sock.settimeout(timeout)
                cls._ensure_min_send_buffer_size(sock)
                sock.connect(addr)
                log.debug("Connected to: %s", addr)
                return sock
            except Exception as e:
                if sock is not None:
                    sock.close()
                log.debug("Failed to connect to %s: %s", addr, e)
                if i < lastaddr:
                    continue
                raise e

        raise ValueError("getaddrinfo returned no addresses to connect to")

    def open_buffer(self, max_buffer_size=None):
        # type: (Optional[int]) -> None
        """
        Open a buffer to send a batch of metrics.

        To take advantage of automatic flushing, you should use the context manager instead

        >>> with DogStatsd() as batch:
        >>>     batch.gauge("users.online", 123)
        >>>     batch.gauge("active.connections", 1001)

        Note: This method must be called before close_buffer() matching invocation.
        """

        self._config_lock.acquire()

        self._send = self._send_to_buffer

        if max_buffer_size is not None:
            log.warning("The parameter max_buffer_size is now deprecated and is not used anymore")

    def close_buffer(self):
        # type: () -> None
        """
        Flush the buffer and switch back to single metric packets.

        Note: This method must be called after a matching open_buffer()
        invocation.
        """
        try:
            self.flush_buffered_metrics()
        finally:
            if self._disable_buffering:
                self._send = self._send_to_server

            self._config_lock.release()

    def _reset_buffer(self):
        # type: () -> None
        with self._buffer_lock:
            # Buffered lines are kept in two separate batches, one per expiry
            # policy: timestamped metrics carry their own timestamp, the rest
            # are stamped on receipt.
            self._buffer = []  # type: List[Text]           # non-timestamped
            self._buffer_ts = []  # type: List[Text]        # timestamped
            # Running packet size per buffer, each including the newline that
            # will join its lines, so both stay under _max_payload_size
            # independently.
            self._buffer_size = 0  # type: int
            self._buffer_ts_size = 0  # type: int

    def flush(self):
        # type: () -> bool
        """Flush the metrics buffer.

        :return: False if a payload was handed to the synchronous sender and
            it failed to deliver it, True otherwise. See
            flush_buffered_metrics().
        """
        return self.flush_buffered_metrics()

    def _flush_one_buffer(self, timestamped):
        # type: (bool) -> bool
        """Flush just the batch holding lines with the given expiry policy.

        Caller must hold self._buffer_lock (an RLock, so a re-entrant flush
        from _send_to_buffer() is fine). Only the named batch is touched: the
        other one keeps accumulating, which is the whole point of splitting
        them.

        Returns False only when the payload went out through the synchronous
        sender and that send failed; an empty batch, or one handed off to the
        background sender, counts as success.
        """
        if timestamped:
            lines = self._buffer_ts
            if not lines:
                return True
            self._buffer_ts = []
            self._buffer_ts_size = 0
        else:
            lines = self._buffer
            if not lines:
                return True
            self._buffer = []
            self._buffer_size = 0
        return self._send_to_server("\n".join(lines), timestamped)

    def flush_buffered_metrics(self):
        # type: () -> bool
        """
        Flush the metrics buffer by sending the data to the server.

        Emits up to two packets, one per expiry policy. Lines keep their
        relative order within each packet, but ordering *between* the two is
        not preserved: timestamped payloads carry their own send time, while
        the rest are timestamped by the Agent on receipt, so neither one's
        meaning depends on where the other lands.

        :return: False if any packet was sent synchronously and the send
            failed (the packet was dropped and accounted in
            packets_dropped_writer), True otherwise. Both batches are always
            attempted, regardless of the outcome of the first.
        """
        sent, _ = self._flush_buffered_metrics()
        return sent

    def _flush_buffered_metrics(self, deadline=None):
        # type: (Optional[float]) -> Tuple[bool, bool]
        """Flush both batches, returning (sent, complete).

        sent tracks synchronous send failures. complete tracks whether lines
        remain buffered because deadline elapsed. The deadline is an absolute
        monotonic() timestamp, which is why it stays off the public method.
        """
        with self._buffer_lock:
            if deadline is not None and monotonic() >= deadline and (self._buffer or self._buffer_ts):
                return True, False

            # Non-timestamped first: it's the only batch subject to staleness
            # expiry, so give it the earliest queue position.
            sent = self._flush_one_buffer(False)

            # Don't short-circuit: the timestamped batch must be flushed even
            # if the first packet failed.
            return self._flush_one_buffer(True) and sent, True

    def flush_aggregated_metrics(self):
        # type: () -> bool
        """
        Flush the aggregated metrics

        :return: False if any metric was sent synchronously and the send
            failed, True otherwise. Every aggregated metric is always
            reported, regardless of earlier failures.
        """
        return self._flush_aggregated_metrics()

    def _flush_aggregated_metrics(self, deadline=None):
        # type: (Optional[float]) -> bool
        """Flush the aggregated metrics, as flush_aggregated_metrics().

        deadline is an absolute monotonic() timestamp checked once per
        metric, before attempting it -- a metric already being sent always
        runs to completion (including any telemetry flush piggybacked onto
        it), so the resolution is one flush item, not one socket_timeout.
        None means no bound.

        aggregator.flush_aggregated_metrics() already drained these metrics
        out of the aggregator, so there is no buffer left for an abandoned
        one to sit in the way a skipped buffered line does: every metric
        not attempted once the deadline passes is accounted in
        packets_dropped_writer instead, so none of them vanish untracked.
        """
        sent = True

        metrics = self.aggregator.flush_aggregated_metrics()
        sampled_metrics = self.aggregator.flush_aggregated_sampled_metrics()

        for index, m in enumerate(metrics):
            if deadline is not None and monotonic() >= deadline:
                self.packets_dropped_writer += len(metrics) - index + len(sampled_metrics)
                return False
            sent = self._report(
                m.name, m.metric_type, m.value, m.tags, m.rate, m.timestamp, cardinality=m.cardinality
            ) and sent

        for index, m in enumerate(sampled_metrics):
            if deadline is not None and monotonic() >= deadline:
                self.packets_dropped_writer += len(sampled_metrics) - index
                return False
            sent = self._report(
                m.name,
                m.metric_type,
                m.value,
                m.tags,
                m.rate,
                m.timestamp,
                False,
                cardinality=m.cardinality,
            ) and sent

        return sent

    def gauge(
        self,
        metric,  # type: Text
        value,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Record the value of a gauge, optionally setting a list of tags and a
        sample rate.

        >>> statsd.gauge("users.online", 123)
        >>> statsd.gauge("active.connections", 1001, tags=["protocol:http"])
        """
        if self._disable_aggregation:
            self._report(metric, "g", value, tags, sample_rate, cardinality=cardinality)
        else:
            self.aggregator.gauge(metric, value, tags, sample_rate, cardinality=cardinality)

    # Minimum Datadog Agent version: 7.40.0
    def gauge_with_timestamp(
        self,
        metric,  # type: Text
        value,  # type: float
        timestamp,  # type: int
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Record the value of a gauge with a Unix timestamp (in seconds),
        optionally setting a list of tags and a sample rate.

        Minimum Datadog Agent version: 7.40.0

        >>> statsd.gauge("users.online", 123, 1713804588)
        >>> statsd.gauge("active.connections", 1001, 1713804588, tags=["protocol:http"])
        """
        if self._disable_aggregation:
            self._report(metric, "g", value, tags, sample_rate, timestamp, cardinality=cardinality)
        else:
            self.aggregator.gauge(metric, value, tags, sample_rate, timestamp, cardinality=cardinality)

    def count(
        self,
        metric,  # type: Text
        value,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Count tracks how many times something happened per second, tags and a sample
        rate.

        >>> statsd.count("page.views", 123)
        """
        if self._disable_aggregation:
            self._report(metric, "c", value, tags, sample_rate, cardinality=cardinality)
        else:
            self.aggregator.count(metric, value, tags, sample_rate, cardinality=cardinality)

    # Minimum Datadog Agent version: 7.40.0
    def count_with_timestamp(
        self,
        metric,  # type: Text
        value,  # type: float
        timestamp=0,  # type: int
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Count how many times something happened at a given Unix timestamp in seconds,
        tags and a sample rate.

        Minimum Datadog Agent version: 7.40.0

        >>> statsd.count("files.transferred", 124, timestamp=1713804588)
        """
        if self._disable_aggregation:
            self._report(metric, "c", value, tags, sample_rate, timestamp, cardinality=cardinality)
        else:
            self.aggregator.count(metric, value, tags, sample_rate, timestamp, cardinality=cardinality)

    def increment(
        self,
        metric,  # type: Text
        value=1,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Increment a counter, optionally setting a value, tags and a sample
        rate.

        >>> statsd.increment("page.views")
        >>> statsd.increment("files.transferred", 124)
        """
        if self._disable_aggregation:
            self._report(metric, "c", value, tags, sample_rate, cardinality=cardinality)
        else:
            self.aggregator.count(metric, value, tags, sample_rate, cardinality=cardinality)

    def decrement(
        self,
        metric,  # type: Text
        value=1,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Decrement a counter, optionally setting a value, tags and a sample
        rate.

        >>> statsd.decrement("files.remaining")
        >>> statsd.decrement("active.connections", 2)
        """
        metric_value = -value if value else value
        if self._disable_aggregation:
            self._report(metric, "c", metric_value, tags, sample_rate, cardinality=cardinality)
        else:
            self.aggregator.count(metric, metric_value, tags, sample_rate, cardinality=cardinality)

    def histogram(
        self,
        metric,  # type: Text
        value,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Sample a histogram value, optionally setting tags and a sample rate.

        >>> statsd.histogram("uploaded.file.size", 1445)
        >>> statsd.histogram("album.photo.count", 26, tags=["gender:female"])
        """
        if not self._disable_aggregation and self.aggregator.max_samples_per_context != 0:
            self.aggregator.histogram(metric, value, tags, sample_rate, cardinality=cardinality)
        else:
            self._report(metric, "h", value, tags, sample_rate, cardinality=cardinality)

    def distribution(
        self,
        metric,  # type: Text
        value,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Send a global distribution value, optionally setting tags and a sample rate.

        >>> statsd.distribution("uploaded.file.size", 1445)
        >>> statsd.distribution("album.photo.count", 26, tags=["gender:female"])
        """
        if not self._disable_aggregation and self.aggregator.max_samples_per_context != 0:
            self.aggregator.distribution(metric, value, tags, sample_rate, cardinality=cardinality)
        else:
            self._report(metric, "d", value, tags, sample_rate, cardinality=cardinality)

    def timing(
        self,
        metric,  # type: Text
        value,  # type: float
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        cardinality=None,  # type: Optional[str]
    ):  # type: (...) -> None
        """
        Record a timing, optionally setting tags and a sample rate.

        >>> statsd.timing("query.response.time", 1234)
        """
        if not self._disable_aggregation and self.aggregator.max_samples_per_context != 0:
            self.aggregator.timing(metric, value, tags, sample_rate, cardinality=cardinality)
        else:
            self._report(metric, "ms", value, tags, sample_rate, cardinality=cardinality)

    def timed(
        self,
        metric=None,  # type: Optional[Text]
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        use_ms=None,  # type: Optional[bool]
    ):  # type: (...) -> TimedContextManagerDecorator
        """
        A decorator or context manager that will measure the distribution of a
        function's/context's run time. Optionally specify a list of tags or a
        sample rate. If the metric is not defined as a decorator, the module
        name and function name will be used. The metric is required as a context
        manager.
        ::

            @statsd.timed("user.query.time", sample_rate=0.5)
            def get_user(user_id):
                # Do what you need to ...
                pass

            # Is equivalent to ...
            with statsd.timed("user.query.time", sample_rate=0.5):
                # Do what you need to ...
                pass

            # Is equivalent to ...
            start = time.time()
            try:
                get_user(user_id)
            finally:
                statsd.timing("user.query.time", time.time() - start)
        """
        return TimedContextManagerDecorator(self, metric, tags, sample_rate, use_ms)

    def distributed(
        self,
        metric=None,  # type: Optional[Text]
        tags=None,  # type: Optional[List[str]]
        sample_rate=None,  # type: Optional[float]
        use_ms=None,  # type: Optional[bool]
    ):
        # type: (...) -> DistributedContextManagerDecorator
        """
        A decorator or context manager that will measure the distribution of a
        function's/context's run time using custom metric distribution.
        Optionally specify a list of tags or a sample rate. If the metric is not
        defined as a decorator, the module name and function name will be used.
        The metric is required as a context manager.
        ::

            @statsd.distributed("user.query.time", sample_rate=0.5)
            def get_user(user_id):
                # Do what you need to ...
                pass

            # Is equivalent to ...
            with statsd.distributed("user.query.time", sample_rate=0.5):
                # Do what you need to ...
                pass

            # Is equivalent to ...
            start = time.time()
            try:
                get_user(user_id)
            finally:
                statsd.distribution("user.query.time", time.time() - start)
        """
        return DistributedContextManagerDecorator(self, metric, tags, sample_rate, use_ms)

    def set(self, metric, value, tags=None, sample_rate=None, cardinality=None):
        # type: (Text, Any, Optional[List[str]], Optional[float], Optional[str]) -> None
        """
        Sample a set value.

        >>> statsd.set("visitors.uniques", 999)
        """
        if self._disable_aggregation:
            self._report(metric, "s", value, tags, sample_rate, cardinality=cardinality)
        else:
            self.aggregator.set(metric, value, tags, sample_rate, cardinality=cardinality)

    def close_socket(self, quiet=False):
        # type: (bool) -> None
        """
        Closes connected socket if connected.
        """
        # quiet=True is for callers reachable from os.register_at_fork(after_in_child=...)
        # (see post_fork_child below) -- same reasoning as _start_flush_thread/_start_sender_thread.
        with self._socket_lock:
            if self.socket:
                try:
                    self.socket.close()
                except OSError as e:
                    if not quiet:
                        log.error("Unexpected error: %s", str(e))
                self.socket = None

            if self.telemetry_socket:
                try:
                    self.telemetry_socket.close()
                except OSError as e:
                    if not quiet:
                        log.error("Unexpected error: %s", str(e))
                self.telemetry_socket = None

    def _serialize_metric(
        self, metric, metric_type, value, tags, sample_rate=1, timestamp=0, cardinality=None
    ):
        # type: (Text, str, Any, Optional[List[str]], Optional[float], int, Optional[str]) -> str
        # Create/format the metric packet
        parts = [(self.namespace + ".") if self.namespace else "", metric, ":", text(value), "|", metric_type]

        if sample_rate != 1:
            parts.append("|@")
            parts.append(text(sample_rate))

        constant_tags_str = self._constant_tags_str
        if tags or constant_tags_str:
            parts.append("|#")
            if tags:
                parts.append(",".join(normalize_tags(tags)))
                if constant_tags_str:
                    parts.append(",")
                    parts.append(constant_tags_str)
            else:
                parts.append(constant_tags_str)

        if self._container_id:
            parts.append("|c:")
            parts.append(self._container_id)

        if self._external_data:
            parts.append("|e:")
            parts.append(self._external_data)

        if cardinality:
            parts.append("|card:")
            parts.append(cardinality)

        if timestamp > 0:
            parts.append("|T")
            parts.append(text(timestamp))

        return "".join(parts)

    def _report(self, metric, metric_type, value, tags, sample_rate, timestamp=0, sampling=True, cardinality=None):
        # type: (Text, str, Any, Optional[List[str]], Optional[float], int, bool, Optional[str]) -> bool
        """
        Create a metric packet and send it.

        More information about the packets' format:
        https://docs.datadoghq.com/developers/dogstatsd/datagram_shell/?tab=metrics#the-dogstatsd-protocol

        Returns False only when the packet was handed to the synchronous
        sender and that send failed. A metric that is buffered, aggregated,
        enqueued for the background sender, sampled out, or dropped because
        the client is disabled is not a failure and returns True.
        """
        if value is None:
            return True

        if self._enabled is not True:
            return True

        if self._telemetry:
            self.metrics_count += 1

        if sampling:
            if sample_rate is None:
                sample_rate = self.default_sample_rate

            if sample_rate != 1 and random() > sample_rate:
                return True
        # timestamps (protocol v1.3) only allowed on gauges and counts
        allows_timestamp = metric_type == MetricType.GAUGE or metric_type == MetricType.COUNT

        if not allows_timestamp or timestamp < 0:
            timestamp = 0

        if cardinality is None:
            cardinality = self.cardinality

        validate_cardinality(cardinality)

        payload = self._serialize_metric(
            metric, metric_type, value, tags, sample_rate, timestamp, cardinality
        )

        # A metric carrying its own explicit timestamp can be sent late (e.g.
        # after sitting in the background sender queue) without changing what
        # it means, so it is exempt from the queue's expiry.
        timestamped = timestamp > 0

        # Send it
        return self._send(payload, timestamped)

    def _reset_telemetry(self):
        # type: () -> None
        self.metrics_count = 0
        self.events_count = 0
        self.service_checks_count = 0
        self.bytes_sent = 0
        self.bytes_dropped_queue = 0
        self.bytes_dropped_writer = 0
        self.bytes_dropped_expired = 0
        self.packets_sent = 0
        self.packets_dropped_queue = 0
        self.packets_dropped_writer = 0
        self.packets_dropped_expired = 0
        self._last_flush_time = time.time()

    # Aliases for backwards compatibility.
    @property
    def packets_dropped(self):
        # type: () -> int
        return self.packets_dropped_queue + self.packets_dropped_writer + self.packets_dropped_expired

    @property
    def bytes_dropped(self):
        # type: () -> int
        return self.bytes_dropped_queue + self.bytes_dropped_writer + self.bytes_dropped_expired

    def _account_dropped_queue_full(self, item):
        # type: (QueuedItem) -> None
        """A payload was evicted from the sender queue to make room for a new one."""
        self.packets_dropped_queue += 1
        self.bytes_dropped_queue += len(payload_text(item).encode(self.encoding))

    def _account_dropped_expired(self, item):
        # type: (QueuedItem) -> None
        """A payload sat in the sender queue longer than the configured expiry (sender_queue_expiry_seconds)."""
        self.packets_dropped_expired += 1
        self.bytes_dropped_expired += len(payload_text(item).encode(self.encoding))

    def _account_dropped_writer(self, item):
        # type: (QueuedItem) -> None
        """A payload could not be written and is not being retried further."""
        self.packets_dropped_writer += 1
        self.bytes_dropped_writer += len(payload_text(item).encode(self.encoding))

    def _flush_telemetry(self):
        # type: () -> str
        tags = self._client_tags[:]
        tags.append("client_transport:{}".format(self._transport))
        tags.extend(self.constant_tags)
        telemetry_tags = ",".join(tags)

        bytes_dropped_queue = self.bytes_dropped_queue + self.bytes_dropped_expired
        packets_dropped_queue = self.packets_dropped_queue + self.packets_dropped_expired

        return TELEMETRY_FORMATTING_STR % (
            self.metrics_count,
            telemetry_tags,
            self.events_count,
            telemetry_tags,
            self.service_checks_count,
            telemetry_tags,
            self.bytes_sent,
            telemetry_tags,
            bytes_dropped_queue + self.bytes_dropped_writer,
            telemetry_tags,
            bytes_dropped_queue,
            telemetry_tags,
            self.bytes_dropped_writer,
            telemetry_tags,
            self.packets_sent,
            telemetry_tags,
            packets_dropped_queue + self.packets_dropped_writer,
            telemetry_tags,
            packets_dropped_queue,
            telemetry_tags,
            self.packets_dropped_writer,
            telemetry_tags,
        )

    def _is_telemetry_flush_time(self):
        # type: () -> bool
        return self._telemetry and \
            self._last_flush_time + self._telemetry_flush_interval < time.time()

    def _send_to_server(self, packet, timestamped=False):
        # type: (str, bool) -> bool
        """Hand one payload to the background sender, or send it right away.

        Returns False only when the payload was sent synchronously (no
        background sender, or the sender refused the payload because it is
        shutting down) and that send failed -- the payload was dropped and
        accounted in packets_dropped_writer. Queuing the payload for the
        background sender returns True: its delivery is reported separately
        through the sender's own telemetry.
        """
        active_sender = self._active_sender
        if active_sender is not None:
            packet_with_newline = packet + '\n'
            if timestamped:
                # Never expires, so it needs no enqueued_at and no wrapper
                # at all: queue the bare string and let the queue infer
                # timestamping from the type. Saves the PendingPayload
                # object (~56 bytes) per entry and keeps these out of the
                # cyclic GC's traversal set.
                item = packet_with_newline  # type: Union[str, PendingPayload]
            else:
                item = PendingPayload(packet_with_newline, monotonic())
            if active_sender.queue.put(item):
                return True
            # Rejected: Stop is already queued, so the sender is on its way
            # out. Fall through to a direct send, same as having no active
            # sender at all.

        # queue_mode is False here, so the result is never None.
        return bool(self._xmit_packet_with_telemetry(packet + '\n'))

    def _xmit_packet_with_telemetry(self, packet, queue_mode=False):
        # type: (str, bool) -> Optional[bool]
        """Send one packet, optionally piggy-backing a telemetry flush.

        :param queue_mode: True when called from the background sender
            thread on behalf of a queued PendingPayload. In that mode, a
            connection failure is reported back as None (rather than being
            accounted for and dropped) so the caller can requeue the payload
            and retry once reconnected, instead of losing it.
        """
        sent = self._xmit_packet(packet, False, queue_mode=queue_mode)

        if self._is_telemetry_flush_time():
            telemetry = self._flush_telemetry()
            if self._xmit_packet(telemetry, True):
                self._reset_telemetry()
                self.packets_sent += 1
                self.bytes_sent += len(telemetry)
            else:
                # Telemetry packet has been dropped, keep telemetry data for the next flush
                self._last_flush_time = time.time()
                self.bytes_dropped_writer += len(telemetry)
                self.packets_dropped_writer += 1

        return sent

    def _xmit_packet(self, packet, is_telemetry, queue_mode=False):
        # type: (str, bool, bool) -> Optional[bool]
        """Attempt to send a packet, once.

        Returns True if sent. Otherwise returns False for a definitive,
        non-retryable failure (already accounted for as a dropped packet),
        or -- only when queue_mode is True, the transport is UDS, and
        socket_connect_retry is enabled -- None for a connection failure that
        the sender queue should retry by requeuing the payload (with its own
        backoff, capped at SENDER_RETRY_MAX_BACKOFF) rather than have
        accounted for here as a drop.
        """

        if self._uses_dedicated_telemetry(is_telemetry):
            uses_uds = self.telemetry_socket_path is not None
        else:
            uses_uds = self.socket_path is not None

        # Direct/synchronous sends (queue_mode=False) always fail fast on a
        # connection error: there is no queue expiry to protect a calling
        # thread from retrying indefinitely, so socket_connect_retry does not
        # apply to them. Reconnect-and-retry also stays UDS-only, matching
        # UDP's different (connectionless) failure semantics.
        retry_eligible = queue_mode and uses_uds and self.socket_connect_retry

        sent = self._xmit_packet_attempt(packet, is_telemetry, retry_eligible)
        if sent:
            return True

        if sent is None:
            # Connection trouble, and the caller is the background sender
            # queue: let it requeue the payload and retry once reconnected,
            # instead of dropping it here.
            return None

        if not is_telemetry and self._telemetry:
            self.bytes_dropped_writer += len(packet)
            self.packets_dropped_writer += 1
        return False

    def _xmit_packet_attempt(self, packet, is_telemetry, retry_eligible):
        # type: (str, bool, bool) -> Optional[bool]
        """
        Attempt to send a single packet.

        Returns True if the packet was sent, False if it should be dropped
        without retrying, or None if the failure is transient (the peer went
        away, which includes a failed reconnect), `retry_eligible` is set,
        and it's worth a reconnect-and-retry by the caller.
        """
        socket_kind = None
        with self._socket_lock:
            try:
                if self._uses_dedicated_telemetry(is_telemetry):
                    mysocket = self.get_socket(telemetry=True)
                    socket_kind = self._telemetry_socket_kind
                else:
                    mysocket = self.get_socket()
                    socket_kind = self._socket_kind

                encoded_packet = packet.encode(self.encoding)
                if socket_kind == socket.SOCK_STREAM:
                    mysocket.sendall(struct.pack('<I', len(encoded_packet)))
                    mysocket.sendall(encoded_packet)
                else:
                    mysocket.send(encoded_packet)

                if not is_telemetry and self._telemetry:
                    self.packets_sent += 1
                    self.bytes_sent += len(packet)

                return True
            except socket.timeout:
                # dogstatsd is overflowing, drop the packets (mimics the UDP behaviour)
                pass
            except (socket.herror, socket.gaierror) as socket_err:
                log.warning(
                    "Error submitting packet: %s, dropping the packet and closing the socket",
                    socket_err,
                )
                self.close_socket()
                return False
            except socket.error as socket_err:
                if socket_err.errno == errno.EAGAIN:
                    log.debug("Socket send would block: %s, dropping the packet", socket_err)
                elif socket_err.errno == errno.ENOBUFS:
                    log.debug("Socket buffer full: %s, dropping the packet", socket_err)
                elif socket_err.errno == errno.EMSGSIZE:
                    log.debug(
                        "Packet size too big (size: %d): %s, dropping the packet",
                        len(packet.encode(self.encoding)),
                        socket_err)
                elif retry_eligible and socket_err.errno in UDS_TRANSIENT_SEND_ERRORS:
                    log.debug(
                        "Connection error submitting packet: %s, reconnecting and retrying", socket_err
                    )
                    self.close_socket()
                    return None
                else:
                    log.warning(
                        "Error submitting packet: %s, dropping the packet and closing the socket",
                        socket_err,
                    )
                    self.close_socket()
                pass
            except Exception as exc:
                log.error("Unexpected error: %s", str(exc))
                return False

            # if in stream mode we need to shut down the socket; we can't recover from a
            # partial send
            if socket_kind == socket.SOCK_STREAM:
                log.debug("Confirming socket closure after error streaming")
                self.close_socket()

            return False

    def _send_to_buffer(self, packet, timestamped=False):
        # type: (str, bool) -> bool
        """Append one serialized line to the batch matching its expiry policy.

        Returns False only when appending this line overflowed its batch and
        the resulting flush was sent synchronously and failed; the new line is
        buffered either way.

        Deliberately written out per branch rather than indexing a dict by
        timestamped, and with the size check inlined rather than delegated to
        _should_flush(): both cost real CPU at once-per-metric frequency. See
        _reset_buffer() for the measurements. The bool() coercion the dict form
        needed is gone too -- the branch treats any truthy value correctly.
        """
        with self._buffer_lock:
            # Length including the newline that will join this line to the
            # next, so the running total anticipates the final packet size.
            length = len(packet) + 1
            sent = True

            if timestamped:
                if self._buffer_ts_size + length > self._max_payload_size:
                    sent = self._flush_one_buffer(True)
                self._buffer_ts.append(packet)
                self._buffer_ts_size += length
            else:
                if self._buffer_size + length > self._max_payload_size:
                    sent = self._flush_one_buffer(False)
                self._buffer.append(packet)
                self._buffer_size += length

            return sent

    def _should_flush(self, length_to_be_added, timestamped=False):
        # type: (int, bool) -> bool
        """Whether adding a line of this length would overflow its batch.

        NOT used by _send_to_buffer(), which inlines the same comparison to
        keep a function call off the per-metric path. Retained because it is
        part of the pre-existing surface and is convenient in tests; keep the
        two in step if either changes.
        """
        current = self._buffer_ts_size if timestamped else self._buffer_size
        return current + length_to_be_added + 1 > self._max_payload_size

    @staticmethod
    def _escape_event_content(string):
        # type: (str) -> str
        return string.replace("\n", "\\n")

    @staticmethod
    def _escape_service_check_message(string):
        # type: (str) -> str
        return string.replace("\n", "\\n").replace("m:", "m\\:")

    def event(
        self,
        title,  # type: Text
        message,  # type: Text
        alert_type=None,  # type: Optional[str]
        aggregation_key=None,  # type: Optional[Text]
        source_type_name=None,  # type: Optional[Text]
        date_happened=None,  # type: Optional[int]
        priority=None,  # type: Optional[str]
        tags=None,  # type: Optional[List[str]]
        hostname=None,  # type: Optional[Text]
        cardinality=None,  # type: Optional[str]
    ):
        # type: (...) -> None
        """
        Send an event. Attributes are the same as the Event API.
            http://docs.datadoghq.com/api/

        >>> statsd.event("Man down!", "This server needs assistance.")
        >>> statsd.event("Web server restart", "The web server is up", alert_type="success")  # NOQA
        """
        title = DogStatsd._escape_event_content(title)
        message = DogStatsd._escape_event_content(message)

        # pylint: disable=undefined-variable
        if sys.version_info[0] < 3:
            if not isinstance(title, unicode):                                       # noqa: F821
                title = unicode(DogStatsd._escape_event_content(title), 'utf8')      # noqa: F821
            if not isinstance(message, unicode):                                     # noqa: F821
                message = unicode(DogStatsd._escape_event_content(message), 'utf8')  # noqa: F821

        # Append all client level tags to every event
        tags = self._add_constant_tags(tags)

        string = u"_e{{{},{}}}:{}|{}".format(
            len(title.encode('utf8', 'replace')),
            len(message.encode('utf8', 'replace')),
            title,
            message,
        )

        if cardinality is None:
            cardinality = self.cardinality

        validate_cardinality(cardinality)

        if date_happened:
            string = "%s|d:%d" % (string, date_happened)
        if hostname:
            string = "%s|h:%s" % (string, hostname)
        if aggregation_key:
            string = "%s|k:%s" % (string, aggregation_key)
        if priority:
            string = "%s|p:%s" % (string, priority)
        if source_type_name:
            string = "%s|s:%s" % (string, source_type_name)
        if alert_type:
            string = "%s|t:%s" % (string, alert_type)
        if tags:
            string = "%s|#%s" % (string, ",".join(normalize_tags(tags)))
        if self._container_id:
            string = "%s|c:%s" % (string, self._container_id)
        if cardinality:
            string = "%s|card:%s" % (string, cardinality)

        if len(string) > 8 * 1024:
            raise ValueError(
                u'Event "{0}" payload is too big (>=8KB). Event discarded'.format(
                    title
                )
            )

        if self._telemetry:
            self.events_count += 1

        # An event carrying its own explicit date_happened can be sent late
        # without changing what it means.
        self._send(string, timestamped=bool(date_happened))

    def service_check(
        self,
        check_name,
        status,
        tags=None,
        timestamp=None,
        cardinality=None,
        hostname=None,
        message=None,
    ):
        # type: (str, int, Optional[List[str]], Optional[int], Optional[str], Optional[str], Optional[str]) -> None
        """
        Send a service check run.

        >>> statsd.service_check("my_service.check_name", DogStatsd.WARNING)
        """
        message = DogStatsd._escape_service_check_message(message) if message is not None else ""

        string = u"_sc|{0}|{1}".format(check_name, status)

        # Append all client level tags to every status check
        tags = self._add_constant_tags(tags)

        if cardinality is None:
            cardinality = self.cardinality

        validate_cardinality(cardinality)

        if timestamp:
            string = u"{0}|d:{1}".format(string, timestamp)
        if hostname:
            string = u"{0}|h:{1}".format(string, hostname)
        if tags:
            string = u"{0}|#{1}".format(string, ",".join(normalize_tags(tags)))
        if message:
            string = u"{0}|m:{1}".format(string, message)
        if self._container_id:
            string = u"{0}|c:{1}".format(string, self._container_id)
        if cardinality:
            string = u"{0}|card:{1}".format(string, cardinality)

        if self._telemetry:
            self.service_checks_count += 1

        # A service check carrying its own explicit timestamp can be sent
        # late without changing what it means.
        self._send(string, timestamped=bool(timestamp))

    @staticmethod
    def _normalize_and_join_tags(tags):
        # type: (List[str]) -> str
        """Normalize a tag list and join into a comma-separated string."""
        if tags:
            return ",".join(normalize_tags(tags))

        return ""

    def _rebuild_constant_tags_str(self):
        # type: () -> None
        with self._config_lock:
            self._constant_tags_str = self._normalize_and_join_tags(self._constant_tags)

    @property
    def constant_tags(self):
        # type: () -> TagList
        return self._constant_tags

    @constant_tags.setter
    def constant_tags(self, value):
        # type: (Union[TagList, List[str]]) -> None
        with self._config_lock:
            self._constant_tags = TagList(value or [], on_change=self._rebuild_constant_tags_str)
            self._rebuild_constant_tags_str()

    def _add_constant_tags(self, tags):
        # type: (Optional[List[str]]) -> Optional[List[str]]
        with self._config_lock:
            if self._constant_tags:
                if tags:
                    return tags + self._constant_tags

                return list(self._constant_tags)
        return tags

    def _is_origin_detection_enabled(self, container_id, origin_detection_enabled):
        # type: (Optional[Text], bool) -> bool
        """
        Returns whether the client should fill the container field.
        If a user-defined container ID is provided, we don't ignore origin detection
        as dd.internal.entity_id is prioritized over the container field for backward compatibility.
        We try to fill the container field automatically unless DD_ORIGIN_DETECTION_ENABLED is explicitly set to false.
        """
        if not origin_detection_enabled or container_id is not None:
            # origin detection is explicitly disabled
            # or a user-defined container ID was provided
            return False
        value = os.environ.get(ORIGIN_DETECTION_ENABLED, "")
        return value.lower() not in {"no", "false", "0", "n", "off"}

    def _set_container_id(self, container_id, origin_detection_enabled):
        # type: (Optional[Text], bool) -> None
        """
        Initializes the container ID.
        It can either be provided by the user or read from cgroups.
        """
        if container_id:
            self._container_id = container_id
            return
        if origin_detection_enabled:
            try:
                reader = Cgroup()
                self._container_id = reader.container_id
            except Exception as e:
                log.debug("Couldn't get container ID: %s", str(e))
                self._container_id = None

    def _set_sender_state_locked(self, state):
        # type: (str) -> None
        if self._sender_state != state:
            self._sender_state = state
            self._sender_condition.notify_all()

    def _start_sender_thread(self, quiet=False):
        # type: (bool) -> None
        if not self._sender_enabled or self._forking:
            return

        with self._sender_condition:
            if self._active_sender is not None:
                return

            self._sender_stop_deadline = None
            self._set_sender_state_locked(SenderState.RUNNING)

            queue = SenderQueue(
                self._sender_queue_size,
                self._sender_queue_expiry_seconds,
                self._account_dropped_queue_full,
                self._account_dropped_expired,
                put_timeout=self._sender_queue_timeout,
            )
            sender_thread = threading.Thread(
                name="{}_sender_thread".format(self.__class__.__name__),
                target=self._sender_main_loop,
                args=(queue,)
            )
            sender_thread.daemon = True

            self._active_sender = _ActiveSender(queue, sender_thread)

        if not quiet:
            log.debug("Starting background sender thread")
        sender_thread.start()

    def _stop_sender_thread(self, timeout=None):
        # type: (Optional[float]) -> bool
        # Ask the sender to stop, with a deadline it must honor BEFORE
        # abandoning a payload stuck in its retry-by-requeuing loop (see
        # _sender_main_loop): a bounded caller's own timeout IS that
        # deadline, so the sender keeps retrying for close to as long as the
        # caller asked instead of giving up the instant a shutdown is
        # requested. An unbounded caller (timeout=None, e.g. pre_fork()) gets
        # a bounded grace period instead, so it can't hang forever on a
        # payload that can genuinely never succeed.
        grace = SENDER_UNBOUNDED_STOP_GRACE_SECONDS if timeout is None else timeout
        stop_deadline = monotonic() + grace

        active_sender_to_close = self._active_sender
        if active_sender_to_close is not None:
            active_sender_to_close.queue.close()

        with self._sender_condition:
            # Request draining once, preserving the same deadline and Stop
            # sentinel across repeated stop() calls.
            if self._sender_state in (SenderState.RUNNING, SenderState.RETRYING):
                self._sender_stop_deadline = stop_deadline
                self._set_sender_state_locked(SenderState.DRAINING)
                active_sender = self._active_sender
                if active_sender is not None:
                    # put() lets the Stop sentinel past the size limit, so this
                    # never blocks even when the queue is full.
                    active_sender.queue.put(Stop)

            active_sender = self._active_sender
            thread = None if active_sender is None else active_sender.thread
            state = self._sender_state

            if thread is None:
                return state != SenderState.ABORTED

        thread.join(timeout)
        if thread.is_alive():
            # Timed out. Leave _queue in place.
            return False

        with self._sender_condition:
            return self._sender_state == SenderState.STOPPED

    def _finalize_sender_exit(self, pending_queue, final_state):
        # type: (SenderQueue, str) -> None
        """Drop this sender's queue/thread pointers and publish its end state."""
        with self._sender_condition:
            active_sender = self._active_sender
            if (
                active_sender is not None
                and active_sender.queue is pending_queue
                and active_sender.thread is threading.current_thread()
            ):
                self._active_sender = None
                self._sender_stop_deadline = None
                self._set_sender_state_locked(final_state)

    def _sender_main_loop(self, pending_queue):
        # type: (SenderQueue) -> None
        backoff = SENDER_RETRY_INITIAL_BACKOFF
        while True:
            item = pending_queue.get()
            if item is Stop:
                pending_queue.task_done(item)
                self._finalize_sender_exit(pending_queue, SenderState.STOPPED)
                return

            # payload_text() also narrows the type: 'if item is Stop' above is
            # the only case where item is the bare object sentinel, which the
            # type checker can't know on its own.
            sent = self._xmit_packet_with_telemetry(
                payload_text(item), queue_mode=True  # type: ignore[arg-type]
            )

            if sent is None:
                # Keep the payload for the next attempt. The queue's own
                # expiry policy is what eventually gives up on stale payloads.
                pending_queue.requeue_front(item)  # type: ignore[arg-type]

                abandon = False
                delay = 0.0
                with self._sender_condition:
                    state = self._sender_state
                    if state == SenderState.RUNNING:
                        self._set_sender_state_locked(SenderState.RETRYING)
                        delay = backoff
                        backoff = min(backoff * 2, SENDER_RETRY_MAX_BACKOFF)
                    elif state == SenderState.RETRYING:
                        delay = backoff
                        backoff = min(backoff * 2, SENDER_RETRY_MAX_BACKOFF)
                    elif state == SenderState.DRAINING:
                        deadline = self._sender_stop_deadline
                        if deadline is not None and monotonic() >= deadline:
                            abandon = True
                        else:
                            remaining = None if deadline is None else max(deadline - monotonic(), 0)
                            delay = SENDER_STOP_RETRY_INTERVAL if remaining is None else min(
                                SENDER_STOP_RETRY_INTERVAL, remaining
                            )
                    else:
                        # STOPPED/ABORTED with a live sender should be rare;
                        # don't spin.
                        delay = SENDER_STOP_RETRY_INTERVAL

                    if not abandon and delay > 0:
                        # Check state and wait under the same lock so a
                        # DRAINING notification cannot be missed.
                        self._sender_condition.wait(delay)

                if abandon:
                    # Deadline reached while draining: account and finish every
                    # outstanding task before exiting so queue joiners cannot
                    # remain blocked.
                    pending_queue.abandon_all(self._account_dropped_writer)
                    self._finalize_sender_exit(pending_queue, SenderState.ABORTED)
                    return

                continue

            # Sent, or a definitive failure that _xmit_packet already
            # accounted for as a dropped packet -- either way, this payload is
            # complete.
            pending_queue.task_done(item)  # type: ignore[arg-type]
            backoff = SENDER_RETRY_INITIAL_BACKOFF
            with self._sender_condition:
                if self._sender_state == SenderState.RETRYING:
                    self._set_sender_state_locked(SenderState.RUNNING)

    def wait_for_pending(self, timeout=None):
        # type: (Optional[float]) -> bool
        """
        Flush the buffer and wait for all queued payloads to be written to the server.

        :param timeout: How long to wait for pending metrics to be flushed.
            None (the default) waits indefinitely. A value of 0 flushes buffered
            metrics, then polls the queue without waiting. It returns False if the
            queue was not empty at that moment. For a positive value, time
            spent flushing is deducted from the time available to wait for the queue.
            If the timeout has already expired by the time the buffered
            flush starts, both batches remain buffered.
            This is not a strict time limit. A flush may take up to
            sender_queue_timeout while waiting for space in the queue, or up to
            socket_timeout when sending via the synchronous sender. Configure
            those timeouts as well if the call must return in a fixed time.
        :type timeout: float, optional
        :return: True if every queued payload has been sent, dropped or
            expired. False if timeout elapsed with queued or buffered payloads
            still outstanding. A synchronous fallback drop counts as drained:
            it has already been accounted in packets_dropped_writer.
        """

        deadline = None if timeout is None else monotonic() + timeout
        flush_deadline = None if timeout is None or timeout == 0 else deadline
        # A synchronous fallback drop is already accounted; only data still
        # buffered should skip the drain wait below.
        _, flushed_completely = self._flush_buffered_metrics(flush_deadline)
        if not flushed_completely:
            return False

        # Avoid race with disable_background_sender. We don't need a
        # lock, just copy the value so it doesn't change between the
        # check and join later.
        queue = self._queue

        if queue is None:
            return True

        if deadline is None:
            return queue.join()

        return queue.join(max(deadline - monotonic(), 0))

    def pre_fork(self):
        # type: () -> None
        """Prepare client for a process fork.

        Flush any pending payloads and stop all background threads.

        A payload stuck retrying a connection failure (socket_connect_retry)
        is given up on -- and counted as a writer drop -- after a bounded
        grace period (SENDER_UNBOUNDED_STOP_GRACE_SECONDS) rather than
        blocking the fork indefinitely; that payload is not delivered.

        The client should not be used from this point until
        state is restored by calling post_fork_parent() or
        post_fork_child().
        """

        # Hold the config lock across fork. This will make sure that
        # we don't fork in the middle of the concurrent modification
        # of the client's settings. Data protected by other locks may
        # be left in inconsistent state in the child process, which we
        # will clean up in post_fork_child.

        self._config_lock.acquire()
        self._stop_flush_thread()
        self._stop_sender_thread()

    def post_fork_parent(self):
        # type: () -> None
        """Restore the client state after a fork in the parent process."""
        self._start_flush_thread(quiet=True)
        self._start_sender_thread(quiet=True)
        self._config_lock.release()

    def post_fork_child(self):
        # type: () -> None
        """Restore the client state after a fork in the child process."""
        self._config_lock.release()

        # Discard the locks that could have been locked at the time
        # when we forked. This may cause inconsistent internal state,
        # which we will fix in the next steps.
        self._socket_lock = RLock()
        self._buffer_lock = RLock()
        self._sender_condition = threading.Condition()

        # Reset the buffer so we don't send metrics from the parent
        # process. Also makes sure buffer properties are consistent.
        self._reset_buffer()
        # Execute the socket_path setter to reconcile transport and
        # payload size properties in respect to socket_path value.
        self.socket_path = self.socket_path
        self.close_socket(quiet=True)

        with self._config_lock:
            self._start_flush_thread(quiet=True)
            self._start_sender_thread(quiet=True)

    def stop(self, timeout=None):
        # type: (Optional[float]) -> bool
        """Stop the client.

        Disable buffering, aggregation, background sender and flush any pending
        payloads to the server.

        Client remains usable after this method, but sending metrics may block
        if socket_timeout is enabled.

        stop() disables and drains the background sender before performing its
        final buffered and aggregated flush. That final flush is synchronous:
        it does not enqueue buffered payloads on the background sender, so it
        does not use sender queue expiry/backpressure or socket_connect_retry
        retries. The timeout below is checked once before each aggregated
        metric, and once before the two buffered-metric batches as a whole,
        not before each individual socket operation, so it is not a strict
        upper bound: an item already being sent when the timeout is spent
        always runs to completion -- up to its full configured
        socket_timeout, or indefinitely if socket_timeout is None -- and a
        telemetry flush piggybacked onto that same send is never itself
        subject to this timeout either. Once the timeout has passed, no
        further flush item is attempted. If a synchronous send fails, stop()
        returns False and the payload is dropped. Applications that require
        buffered payloads to participate in background-sender retries
        should call flush() while the sender is still enabled, or call
        wait_for_pending(timeout) before stop().

        :param timeout: Maximum number of seconds to wait for the background
            sender to drain its queue and exit. None (the default) waits
            indefinitely for a sender that is genuinely busy (e.g. blocked
            inside a slow send()). It does NOT wait indefinitely for a
            payload stuck retrying a connection failure with
            socket_connect_retry enabled: that case is bounded by
            SENDER_UNBOUNDED_STOP_GRACE_SECONDS regardless of this parameter,
            so an Agent that never comes back cannot hang stop() forever.
        :type timeout: float, optional
        :return: True if the background sender drained and stopped, and the
            final flush delivered everything still pending. False if timeout
            (or the grace period above) elapsed first, in which case neither
            the final flush nor the socket close ran (see below) -- either
            because the sender thread is still running, or because it reached
            its shutdown deadline while retrying and had to abandon the
            remaining queued payloads (counted in packets_dropped_writer).
            Also False when the final flush itself failed: the queue drained
            cleanly, but a payload the synchronous sender took over could not
            be delivered and was dropped (also counted in
            packets_dropped_writer). The socket is still closed in that case.
        """

        deadline = None if timeout is None else monotonic() + timeout
        stopped = self.disable_background_sender(timeout)
        self._disable_buffering = True
        self._disable_aggregation = True

        if not stopped:
            with self._sender_condition:
                sender_state = self._sender_state
            if sender_state == SenderState.ABORTED:
                # The sender thread exited by abandoning the remaining queue at
                # its shutdown deadline. Those payloads were accounted as writer
                # drops, so this is still not a clean stop.
                log.warning(
                    "stop() reached the sender shutdown deadline and dropped pending payload(s) "
                    "instead of delivering them (see packets_dropped_writer). "
                    "Skipping the final flush and socket close"
                )
            else:
                # We gave up waiting, so the sender thread is still running and
                # still owns the socket -- it can be parked inside a send() with
                # _socket_lock held. Flushing or closing here would block on that
                # same lock for as long as the sender stays wedged, which would
                # make timeout meaningless: the caller asked for a bounded stop().
                # Pushing more data through that socket could not succeed anyway,
                # and closing it from under a thread mid-write is not safe. Leave
                # it open; the OS reclaims the fd when the process exits, and the
                # sender thread is a daemon so it never holds up interpreter
                # shutdown.
                log.warning(
                    "stop() timed out after %ss with the background sender still running; "
                    "skipping the final flush and socket close",
                    timeout,
                )
            return False

        # Buffering and aggregation are off and the background sender is
        # gone, so these flushes go straight out through the synchronous
        # sender. Run both before inspecting the outcome, then report a failed
        # send to the caller: the payload is dropped, not retried, so a True
        # here would claim a clean stop that didn't happen.
        flushed_aggregated = self._flush_aggregated_metrics(deadline)
        sent_buffered, completed_buffered = self._flush_buffered_metrics(deadline)
        # completed_buffered is False when the deadline was already gone
        # before the second (timestamped) buffer was even attempted -- that
        # buffer's lines are still sitting there, unsent, same as a failed
        # send would leave them, so it must count the same way here.
        flushed_buffered = sent_buffered and completed_buffered
        self.close_socket()

        if not (flushed_aggregated and flushed_buffered):
            log.warning(
                "stop() drained the background sender, but the final flush failed to send "
                "pending payload(s), which were dropped (see packets_dropped_writer)"
            )
            return False

        return True


statsd = DogStatsd()
