import abc
from typing import Any  # noqa:F401
from typing import Optional  # noqa:F401

from ddtrace import config
from ddtrace.constants import _SPAN_MEASURED_KEY
from ddtrace.contrib.internal.trace_utils import int_service
from ddtrace.contrib.internal.trace_utils import set_service_and_source
from ddtrace.ext import SpanTypes
from ddtrace.internal.logger import get_logger
from ddtrace.internal.settings.integration import IntegrationConfig
from ddtrace.llmobs._constants import CACHE_READ_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import CACHE_WRITE_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import INPUT_PROMPT
from ddtrace.llmobs._constants import INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import INSTRUMENTATION_METHOD_AUTO
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_CACHE_READ_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_CACHE_WRITE_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_ENABLED_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_MODEL_NAME_TAG_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_MODEL_PROVIDER_TAG_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_OUTPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_SPAN_KIND_TAG_KEY
from ddtrace.llmobs._constants import LLMOBS_APM_SHADOW_TOTAL_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import LLMOBS_STRUCT
from ddtrace.llmobs._constants import OUTPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import PROMPT_TRACKING_INSTRUMENTATION_METHOD
from ddtrace.llmobs._constants import PROXY_REQUEST
from ddtrace.llmobs._constants import REQUEST_BASE_URL
from ddtrace.llmobs._constants import TOTAL_TOKENS_METRIC_KEY
from ddtrace.llmobs._integration_api import annotate
from ddtrace.llmobs._integration_api import is_enabled
from ddtrace.llmobs._utils import _annotate_llmobs_span_data
from ddtrace.llmobs._utils import get_llmobs_span_kind
from ddtrace.llmobs._utils import get_tracked_prompt
from ddtrace.llmobs._utils import set_gen_ai_apm_tags
from ddtrace.trace import Span
from ddtrace.trace import tracer


log = get_logger(__name__)


class BaseLLMIntegration:
    _integration_name = "baseLLM"

    def __init__(self, integration_config: IntegrationConfig) -> None:
        self.integration_config = integration_config

    @property
    def llmobs_enabled(self) -> bool:
        """Return whether submitting llmobs payloads is enabled."""
        return is_enabled()

    @abc.abstractmethod
    def _set_base_span_tags(self, span: Span, **kwargs) -> None:
        """Set default LLM span attributes when possible."""
        pass

    def _annotate_integration_tag(self, span: Span) -> None:
        if not self.llmobs_enabled:
            return
        _annotate_llmobs_span_data(span, tags={LLMOBS_STRUCT.INTEGRATION: self._integration_name})

    def trace(self, operation_id: str, submit_to_llmobs: bool = False, **kwargs) -> Span:
        """
        Start a LLM request span.
        Reuse the service of the application since we'll tag downstream request spans with the LLM name.
        Eventually those should also be internal service spans once peer.service is implemented.
        """
        span_name = kwargs.get("span_name", None) or f"{self._integration_name}.request"
        span_type = SpanTypes.LLM if (submit_to_llmobs and self.llmobs_enabled) else None
        parent_context = kwargs.get("parent_context") or tracer.context_provider.active()

        span = tracer.start_span(
            span_name,
            child_of=parent_context,
            resource=operation_id,
            span_type=span_type,
            activate=kwargs.get("activate", True),
        )
        service = int_service(None, self.integration_config) or ""
        set_service_and_source(span, service, self.integration_config)

        log.debug("Creating LLM span with type %s", span.span_type)
        # determine if the span represents a proxy request
        base_url = self._get_base_url(**kwargs)
        if base_url:
            # Used to detect providers downstream.
            span._set_ctx_item(REQUEST_BASE_URL, base_url)
        if self._is_instrumented_proxy_url(base_url):
            span._set_ctx_item(PROXY_REQUEST, True)
        # Enable trace metrics for these spans so users can see per-service openai usage in APM.
        span._set_attribute(_SPAN_MEASURED_KEY, 1)
        self._set_base_span_tags(span, **kwargs)
        self._annotate_integration_tag(span)
        if span_type == SpanTypes.LLM:
            self._stamp_llmobs_span_kind_at_start(span, operation_id, **kwargs)
        return span

    def _stamp_llmobs_span_kind_at_start(self, span: Span, operation_id: str = "", **kwargs: Any) -> None:
        """Stamp span kind (and agent name when available) into the span's LLMObs meta_struct at creation.

        Called automatically by ``BaseLLMIntegration.trace()`` and ``LlmTracingSubscriber.on_started``.
        Integrations should not call this directly; instead override ``_llmobs_span_kind`` and
        ``_llmobs_agent_name_at_start``.
        """
        if span.span_type != SpanTypes.LLM:
            return
        span_kind = self._llmobs_span_kind(operation_id, span, **kwargs)
        if span_kind is None:
            return
        agent_name = self._llmobs_agent_name_at_start(span, **kwargs)
        if agent_name:
            _annotate_llmobs_span_data(span, kind=span_kind, name=agent_name)
        else:
            _annotate_llmobs_span_data(span, kind=span_kind)

    def _llmobs_agent_name_at_start(self, span: Span, **kwargs: Any) -> Optional[str]:
        """Return the LLMObs name to stamp alongside the agent kind at start, or None to defer to finish.

        Integrations that have the agent name available at trace()-call time should override this.
        The finish-time write in _llmobs_set_tags still runs and is idempotent.
        """
        return None

    def _llmobs_span_kind(self, operation_id: str, span: Span, **kwargs: Any) -> Optional[str]:
        """Return the LLMObs span kind to stamp at creation, or None to skip start-time stamping.

        Override in integrations that signal agent spans via a kwarg other than ``kind``
        (e.g. ``operation="agent"``).  Must be determinable at ``trace()`` call time —
        do NOT rely on data available only at span finish, because child spans resolve
        agent attribution when they are activated.
        """
        return "agent" if kwargs.get("kind") == "agent" else None

    def llmobs_set_tags(
        self,
        span: Span,
        args: list[Any],
        kwargs: dict[str, Any],
        response: Optional[Any] = None,
        operation: str = "",
    ) -> None:
        """Extract input/output information from the request and response to be submitted to LLMObs."""
        try:
            self._set_apm_shadow_tags(span, args, kwargs, response, operation)
        except Exception:
            log.debug("Error setting APM shadow tags for span %s", span, exc_info=True)
        if not self.llmobs_enabled:
            return
        try:
            self._llmobs_set_tags(span, args, kwargs, response, operation)
        except Exception:
            log.error("Error extracting LLMObs fields for span %s, likely due to malformed data", span, exc_info=True)
        if get_llmobs_span_kind(span) == "llm" and span._get_ctx_item(INPUT_PROMPT) is None:
            try:
                prompt = get_tracked_prompt(args, kwargs)
                if prompt is not None:
                    annotate(
                        span,
                        prompt=prompt,
                        tags={PROMPT_TRACKING_INSTRUMENTATION_METHOD: INSTRUMENTATION_METHOD_AUTO},
                        _suppress_span_kind_error=True,
                        _telemetry_source="auto_prompt_tracking",
                    )
            except Exception:
                log.debug("Error auto-tagging prompt for span %s", span, exc_info=True)

    @abc.abstractmethod
    def _llmobs_set_tags(
        self,
        span: Span,
        args: list[Any],
        kwargs: dict[str, Any],
        response: Optional[Any] = None,
        operation: str = "",
    ) -> None:
        raise NotImplementedError()

    def _set_apm_shadow_tags(
        self,
        span: Span,
        args: list[Any],
        kwargs: dict[str, Any],
        response: Optional[Any] = None,
        operation: str = "",
    ) -> None:
        """Extract token metrics from the response and set shadow tags on the APM span.

        Override in subclasses that have token metric extraction.
        Runs regardless of whether LLMObs is enabled.
        """
        pass

    def _apply_shadow_metrics(
        self,
        span: Span,
        metrics: Optional[dict],
        span_kind: str,
        model_name: Optional[str] = None,
        model_provider: Optional[str] = None,
    ) -> None:
        """Set shadow metric/tag values on the APM span from extracted metrics."""
        span.set_tag(LLMOBS_APM_SHADOW_SPAN_KIND_TAG_KEY, span_kind)
        span._set_attribute(LLMOBS_APM_SHADOW_ENABLED_METRIC_KEY, 1 if self.llmobs_enabled else 0)
        if model_name:
            span.set_tag(LLMOBS_APM_SHADOW_MODEL_NAME_TAG_KEY, model_name)
        if model_provider:
            span.set_tag(LLMOBS_APM_SHADOW_MODEL_PROVIDER_TAG_KEY, model_provider)
        # Only when LLMObs is off; otherwise _prepare_llmobs_span_data emits these at span finish
        # with better values. set_gen_ai_apm_tags also marks the span as artificially tagged, so
        # the backend can tell these apart from user-set gen_ai.* tags and skip creating a
        # duplicate LLMObs span for it.
        if not self.llmobs_enabled:
            llmobs_data = {
                LLMOBS_STRUCT.META: {
                    LLMOBS_STRUCT.MODEL_NAME: model_name,
                    LLMOBS_STRUCT.MODEL_PROVIDER: model_provider,
                },
                LLMOBS_STRUCT.METRICS: metrics,
            }
            set_gen_ai_apm_tags(span, llmobs_data, span_kind)
        if span_kind in ("llm", "embedding") and metrics:
            for llmobs_key, shadow_key in (
                (INPUT_TOKENS_METRIC_KEY, LLMOBS_APM_SHADOW_INPUT_TOKENS_METRIC_KEY),
                (OUTPUT_TOKENS_METRIC_KEY, LLMOBS_APM_SHADOW_OUTPUT_TOKENS_METRIC_KEY),
                (TOTAL_TOKENS_METRIC_KEY, LLMOBS_APM_SHADOW_TOTAL_TOKENS_METRIC_KEY),
                (CACHE_READ_INPUT_TOKENS_METRIC_KEY, LLMOBS_APM_SHADOW_CACHE_READ_INPUT_TOKENS_METRIC_KEY),
                (CACHE_WRITE_INPUT_TOKENS_METRIC_KEY, LLMOBS_APM_SHADOW_CACHE_WRITE_INPUT_TOKENS_METRIC_KEY),
            ):
                value = metrics.get(llmobs_key)
                if value is not None:
                    span._set_attribute(shadow_key, value)

    def _get_base_url(self, **kwargs: dict[str, Any]) -> Optional[str]:
        return None

    def _is_instrumented_proxy_url(self, base_url: Optional[str] = None) -> bool:
        if not base_url:
            return False
        instrumented_proxy_urls = config._llmobs_instrumented_proxy_urls or set()
        return base_url in instrumented_proxy_urls
