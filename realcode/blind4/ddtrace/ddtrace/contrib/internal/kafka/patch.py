import sys
from time import time
from time import time_ns

import confluent_kafka

from ddtrace import config
from ddtrace.constants import _SPAN_MEASURED_KEY
from ddtrace.constants import SPAN_KIND
from ddtrace.contrib import trace_utils
from ddtrace.contrib.internal.trace_utils import is_tracing_enabled
from ddtrace.contrib.internal.trace_utils import set_service_and_source
from ddtrace.ext import SpanKind
from ddtrace.ext import SpanTypes
from ddtrace.ext import kafka as kafkax
from ddtrace.internal import core
from ddtrace.internal.constants import COMPONENT
from ddtrace.internal.constants import MESSAGING_DESTINATION_NAME
from ddtrace.internal.constants import MESSAGING_SYSTEM
from ddtrace.internal.logger import get_logger
from ddtrace.internal.schema import schematize_messaging_operation
from ddtrace.internal.schema import schematize_service_name
from ddtrace.internal.schema.span_attribute_schema import SpanDirection
from ddtrace.internal.settings import env
from ddtrace.internal.utils import ArgumentError
from ddtrace.internal.utils import get_argument_value
from ddtrace.internal.utils import set_argument_value
from ddtrace.internal.utils.formats import asbool
from ddtrace.internal.utils.version import parse_version
from ddtrace.propagation.http import HTTPPropagator as Propagator
from ddtrace.trace import tracer


_Producer = confluent_kafka.Producer
_Consumer = confluent_kafka.Consumer
_SerializingProducer = confluent_kafka.SerializingProducer if hasattr(confluent_kafka, "SerializingProducer") else None
_DeserializingConsumer = (
    confluent_kafka.DeserializingConsumer if hasattr(confluent_kafka, "DeserializingConsumer") else None
)

log = get_logger(__name__)

# Process-wide cache: bootstrap_servers -> cluster_id.
# Populated by producers (which safely call list_topics); read by consumers
# (which cannot call list_topics without risking a librdkafka crash).
_cluster_id_by_bootstrap: dict[str, str] = {}

config._add(
    "kafka",
    dict(
        _default_service=schematize_service_name("kafka"),
        distributed_tracing_enabled=asbool(env.get("DD_KAFKA_PROPAGATION_ENABLED", default=False)),
        trace_empty_poll_enabled=asbool(env.get("DD_KAFKA_EMPTY_POLL_ENABLED", default=True)),
        propagation_as_span_links="kafka" in config._propagation_as_span_links,
    ),
)


def get_version() -> str:
    return getattr(confluent_kafka, "__version__", "")


def _supported_versions() -> dict[str, str]:
    return {"confluent_kafka": ">=1.9.2"}


KAFKA_VERSION_TUPLE = parse_version(get_version())

_SerializationContext = confluent_kafka.serialization.SerializationContext if KAFKA_VERSION_TUPLE >= (1, 4, 0) else None
_MessageField = confluent_kafka.serialization.MessageField if KAFKA_VERSION_TUPLE >= (1, 4, 0) else None


class TracedProducerMixin:
    def __init__(self, config=None, *args, **kwargs):
        if not config:
            config = kwargs
        super().__init__(config, *args, **kwargs)
        self._dd_bootstrap_servers = (
            config.get("bootstrap.servers")
            if config.get("bootstrap.servers") is not None
            else config.get("metadata.broker.list")
        )

    # Preserve the truthiness behavior exposed by the traced producer across
    # older confluent_kafka versions.
    def __bool__(self):
        return True

    __nonzero__ = __bool__


class TracedConsumerMixin:
    def __init__(self, config=None, *args, **kwargs):
        if not config:
            config = kwargs
        super().__init__(config, *args, **kwargs)
        self._group_id = config.get("group.id", "")
        self._auto_commit = asbool(config.get("enable.auto.commit", True))
        self._dd_bootstrap_servers = (
            config.get("bootstrap.servers")
            if config.get("bootstrap.servers") is not None
            else config.get("metadata.broker.list")
        )


class TracedConsumer(TracedConsumerMixin, confluent_kafka.Consumer):
    pass


class TracedProducer(TracedProducerMixin, confluent_kafka.Producer):
    pass


class TracedDeserializingConsumer(TracedConsumerMixin, confluent_kafka.DeserializingConsumer):
    pass


class TracedSerializingProducer(TracedProducerMixin, confluent_kafka.SerializingProducer):
    pass


def patch():
    if getattr(confluent_kafka, "_datadog_patch", False):
        return
    confluent_kafka._datadog_patch = True

    confluent_kafka.Producer = TracedProducer
    confluent_kafka.Consumer = TracedConsumer
    if _SerializingProducer is not None:
        confluent_kafka.SerializingProducer = TracedSerializingProducer
    if _DeserializingConsumer is not None:
        confluent_kafka.DeserializingConsumer = TracedDeserializingConsumer

    for producer in (TracedProducer, TracedSerializingProducer):
        trace_utils.wrap(producer, "produce", traced_produce)
    for consumer in (TracedConsumer, TracedDeserializingConsumer):
        trace_utils.wrap(consumer, "poll", traced_poll_or_consume)
        trace_utils.wrap(consumer, "commit", traced_commit)

    # Consume is not implemented in deserializing consumers
    trace_utils.wrap(TracedConsumer, "consume", traced_poll_or_consume)


def _safe_unwrap(cls, attr):
    # DEV: Use vars(cls) + delattr rather than iswrapped(cls.attr) + unwrap.
    # Accessing a wrapped C-extension attribute (e.g. TracedProducer.produce) invokes
    # wrapt's tp_descr_get, which calls the inner cimpl method descriptor's tp_descr_get
    # directly — bypassing CPython's wrap_descr_get that normally converts Py_None→NULL.
    # If Py_None reaches descr_check as `obj`, CPython raises:
    #   TypeError: descriptor 'produce' for 'cimpl.Producer' objects
    #              doesn't apply to a 'NoneType' object
    # vars(cls) is a plain dict lookup and delattr removes by key — neither reads the
    # descriptor value, so neither can trigger this code path.
    # The root cause is fixed upstream in wrapt 2.2.0rc10 (commit ae93dd71, 2026-04-17);
    if attr in vars(cls):
        delattr(cls, attr)


def unpatch():
    if getattr(confluent_kafka, "_datadog_patch", False):
        confluent_kafka._datadog_patch = False

    for producer in (TracedProducer, TracedSerializingProducer):
        _safe_unwrap(producer, "produce")
    for consumer in (TracedConsumer, TracedDeserializingConsumer):
        _safe_unwrap(consumer, "poll")
        _safe_unwrap(consumer, "commit")

    # Consume is not implemented in deserializing consumers
    _safe_unwrap(TracedConsumer, "consume")

    confluent_kafka.Producer = _Producer
    confluent_kafka.Consumer = _Consumer
    if _SerializingProducer is not None:
        confluent_kafka.SerializingProducer = _SerializingProducer
    if _DeserializingConsumer is not None:
        confluent_kafka.DeserializingConsumer = _DeserializingConsumer


def traced_produce(func, instance, args, kwargs):
    if not is_tracing_enabled():
        return func(*args, **kwargs)

    topic = get_argument_value(args, kwargs, 0, "topic") or ""
    core.set_item("kafka_topic", topic)
    try:
        value = get_argument_value(args, kwargs, 1, "value")
    except ArgumentError:
        value = None
    message_key = kwargs.get("key", "") or ""
    partition = kwargs.get("partition", -1)
    headers = get_argument_value(args, kwargs, 6, "headers", optional=True) or {}
    with tracer.trace(
        schematize_messaging_operation(kafkax.PRODUCE, provider="kafka", direction=SpanDirection.OUTBOUND),
        span_type=SpanTypes.WORKER,
    ) as span:
        set_service_and_source(span, trace_utils.ext_service(None, config.kafka), config.kafka)
        cluster_id = _get_cluster_id(instance, topic)
        core.set_item("kafka_cluster_id", cluster_id)
        if cluster_id:
            span._set_attribute(kafkax.CLUSTER_ID, cluster_id)

        core.dispatch("kafka.produce.start", (instance, args, kwargs, isinstance(instance, _SerializingProducer), span))

        span._set_attribute(MESSAGING_SYSTEM, kafkax.SERVICE)
        span._set_attribute(COMPONENT, config.kafka.integration_name)
        span._set_attribute(SPAN_KIND, SpanKind.PRODUCER)
        span._set_attribute(kafkax.TOPIC, topic)
        if topic:
            # Should fall back to broker id if topic is not provided but it is not readily available here
            span._set_attribute(MESSAGING_DESTINATION_NAME, topic)

        if _SerializingProducer is not None and isinstance(instance, _SerializingProducer):
            serialized_key = serialize_key(instance, topic, message_key, headers)
            if serialized_key is not None:
                span._set_attribute(kafkax.MESSAGE_KEY, serialized_key)
        else:
            span._set_attribute(kafkax.MESSAGE_KEY, message_key)

        span.set_tag(kafkax.PARTITION, partition)
        span._set_attribute(kafkax.TOMBSTONE, str(value is None))
        span._set_attribute(_SPAN_MEASURED_KEY, 1)
        if instance._dd_bootstrap_servers is not None:
            span._set_attribute(kafkax.HOST_LIST, instance._dd_bootstrap_servers)

        # inject headers with Datadog tags if trace propagation is enabled
        if config.kafka.distributed_tracing_enabled:
            # inject headers with Datadog tags:
            headers = get_argument_value(args, kwargs, 6, "headers", True) or {}
            Propagator.inject(span.context, headers)
            args, kwargs = set_argument_value(args, kwargs, 6, "headers", headers, override_unset=True)
        return func(*args, **kwargs)


def traced_poll_or_consume(func, instance, args, kwargs):
    if not is_tracing_enabled():
        return func(*args, **kwargs)

    # we must get start time now since execute before starting a span in order to get distributed context
    # if it exists
    start_ns = time_ns()
    err = None
    result = None
    try:
        result = func(*args, **kwargs)
    except Exception as e:
        err = e
        raise err
    finally:
        if isinstance(result, confluent_kafka.Message):
            # poll returns a single message
            _instrument_message([result], start_ns, instance, err)
        elif isinstance(result, list):
            # consume returns a list of messages,
            _instrument_message(result, start_ns, instance, err)
        elif config.kafka.trace_empty_poll_enabled:
            _instrument_message([None], start_ns, instance, err)

    return result


def _instrument_message(messages, start_ns, instance, err):
    ctx = None
    links = []
    first_message = messages[0] if len(messages) else None
    if config.kafka.distributed_tracing_enabled:
        if config.kafka.propagation_as_span_links:
            # Relate the consume span to every message's producer via span links rather
            # than continuing any single producer's trace. This applies to both poll() (a
            # single message) and consume() (a batch): no producer is privileged as the
            # parent, so no producer trace is polluted by the consume span's children.
            for message in messages:
                if message is None or not message.headers():
                    continue
                link_ctx = Propagator.extract(dict(message.headers()))
                if link_ctx is not None and link_ctx.trace_id is not None:
                    links.append(link_ctx)
        elif first_message is not None and first_message.headers():
            # First message is used to extract context and enrich datadog spans
            # This approach aligns with the opentelemetry confluent kafka semantics
            ctx = Propagator.extract(dict(first_message.headers()))
    with tracer.start_span(
        name=schematize_messaging_operation(kafkax.CONSUME, provider="kafka", direction=SpanDirection.PROCESSING),
        span_type=SpanTypes.WORKER,
        child_of=ctx if ctx is not None and ctx.trace_id is not None else tracer.context_provider.active(),
        activate=True,
    ) as span:
        if links:
            core.dispatch("kafka.consume.link_spans", (span, links))
        set_service_and_source(span, trace_utils.ext_service(None, config.kafka), config.kafka)
        # reset span start time to before function call
        span.start_ns = start_ns
        cluster_id = None

        for message in messages:
            if message is not None and first_message is not None:
                cluster_id = _get_cluster_id(instance, str(first_message.topic()))
                core.set_item("kafka_cluster_id", cluster_id)
                core.set_item("kafka_topic", str(first_message.topic()))
                core.dispatch("kafka.consume.start", (instance, message, span))

        span._set_attribute(MESSAGING_SYSTEM, kafkax.SERVICE)
        span._set_attribute(COMPONENT, config.kafka.integration_name)
        span._set_attribute(SPAN_KIND, SpanKind.CONSUMER)
        if cluster_id:
            span._set_attribute(kafkax.CLUSTER_ID, cluster_id)
        span._set_attribute(kafkax.RECEIVED_MESSAGE, str(first_message is not None))
        span._set_attribute(kafkax.GROUP_ID, instance._group_id)
        if first_message is not None:
            message_key = first_message.key() or ""
            message_offset = first_message.offset() or -1
            topic = str(first_message.topic())
            span._set_attribute(kafkax.TOPIC, topic)
            span._set_attribute(MESSAGING_DESTINATION_NAME, topic)

            # If this is a deserializing consumer, do not set the key as a tag since we
            # do not have the serialization function
            if (
                (_DeserializingConsumer is not None and not isinstance(instance, _DeserializingConsumer))
                or isinstance(message_key, str)
                or isinstance(message_key, bytes)
            ):
                span._set_attribute(kafkax.MESSAGE_KEY, message_key)
            span.set_tag(kafkax.PARTITION, first_message.partition())
            is_tombstone = False
            try:
                is_tombstone = len(first_message) == 0
            except TypeError:  # https://github.com/confluentinc/confluent-kafka-python/issues/1192
                pass
            span._set_attribute(kafkax.TOMBSTONE, str(is_tombstone))
            span.set_tag(kafkax.MESSAGE_OFFSET, message_offset)
        span._set_attribute(_SPAN_MEASURED_KEY, 1)

        if err is not None:
            span.set_exc_info(*sys.exc_info())


def traced_commit(func, instance, args, kwargs):
    if not is_tracing_enabled():
        return func(*args, **kwargs)

    cluster_id = getattr(instance, "_dd_cluster_id", "")
    if not cluster_id:
        message = get_argument_value(args, kwargs, 0, "message", optional=True)
        if message is not None and hasattr(message, "topic"):
            cluster_id = _get_cluster_id(instance, message.topic())
        else:
            offsets = get_argument_value(args, kwargs, 1, "offsets", optional=True)
            if offsets:
                cluster_id = _get_cluster_id(instance, offsets[0].topic)
    core.set_item("kafka_cluster_id", cluster_id)

    core.dispatch("kafka.commit.start", (instance, args, kwargs))
    return func(*args, **kwargs)


def serialize_key(instance, topic, key, headers):
    if _SerializationContext is not None and _MessageField is not None:
        ctx = _SerializationContext(topic, _MessageField.KEY, headers)
        if hasattr(instance, "_key_serializer") and instance._key_serializer is not None:
            try:
                key = instance._key_serializer(key, ctx)
                return key
            except Exception:
                log.debug("Failed to set Kafka Consumer key tag: %s", str(key))
                return None
        else:
            log.warning("Failed to set Kafka Consumer key tag, no method available to serialize key: %s", str(key))
            return None


def _get_cluster_id(instance, topic):
    # Check success cache
    if instance and getattr(instance, "_dd_cluster_id", None):
        return instance._dd_cluster_id

    # Do not call list_topics on Consumer instances.  Calling the metadata API
    # on a Consumer handle causes librdkafka to create internal topic handles
    # (rd_kafka_topic_t) and background metadata-refresh tasks that persist
    # even after partitions are revoked during a rebalance.  Those dangling
    # internal references can be accessed concurrently with the consumer's own
    # queue operations, producing a use-after-free inside
    # rd_kafka_q_serve_rkmessages (librdkafka issue #4214).
    # Producers are not affected by consumer-group rebalancing, so the call is
    # safe for them.
    #
    # For DSM correctness we still want a real cluster ID on consumers so that
    # offset checkpoints are stored under the same key as producer offsets.
    # We achieve this by reading the _cluster_id_by_bootstrap cache
    # populated by producers on the same bootstrap address.
    if isinstance(instance, _Consumer) or (
        _DeserializingConsumer is not None and isinstance(instance, _DeserializingConsumer)
    ):
        if bootstrap := getattr(instance, "_dd_bootstrap_servers", None):
            if cached := _cluster_id_by_bootstrap.get(bootstrap):
                instance._dd_cluster_id = cached
                return cached

        return ""

    # Check failure cache - skip for 5 minutes if we fail
    last_failure = getattr(instance, "_dd_cluster_id_failure_time", 0)
    if time() - last_failure < 300:
        return ""

    if getattr(instance, "list_topics", None) is None:
        return ""

    try:
        cluster_metadata = instance.list_topics(topic=topic, timeout=1.0)
        if cluster_metadata and getattr(cluster_metadata, "cluster_id", None):
            instance._dd_cluster_id = cluster_metadata.cluster_id
            if bootstrap := getattr(instance, "_dd_bootstrap_servers", None):
                _cluster_id_by_bootstrap[bootstrap] = cluster_metadata.cluster_id
            return cluster_metadata.cluster_id
    except Exception:
        # Cache the failure time to avoid repeated slow calls
        instance._dd_cluster_id_failure_time = time()
        log.debug("Failed to get Kafka cluster ID, will retry after 5 minutes")

    return ""
