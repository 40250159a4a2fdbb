from typing import Any
from typing import Optional

from ddtrace.internal.constants import COMPONENT
from ddtrace.internal.logger import get_logger
from ddtrace.internal.utils.formats import format_trace_id
from ddtrace.llmobs._constants import CACHE_READ_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import CACHE_WRITE_INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import INPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import OUTPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import PROXY_REQUEST
from ddtrace.llmobs._constants import REASONING_OUTPUT_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import REQUEST_BASE_URL
from ddtrace.llmobs._constants import TOTAL_TOKENS_METRIC_KEY
from ddtrace.llmobs._constants import UNKNOWN_MODEL_PROVIDER
from ddtrace.llmobs._integrations.base import BaseLLMIntegration
from ddtrace.llmobs._integrations.utils import _compute_completion_tokens
from ddtrace.llmobs._integrations.utils import _compute_prompt_tokens
from ddtrace.llmobs._integrations.utils import get_openrouter_cost_metrics
from ddtrace.llmobs._integrations.utils import openai_set_meta_tags_from_chat
from ddtrace.llmobs._integrations.utils import openai_set_meta_tags_from_completion
from ddtrace.llmobs._integrations.utils import openai_set_meta_tags_from_response
from ddtrace.llmobs._utils import _annotate_llmobs_span_data
from ddtrace.llmobs._utils import _get_attr
from ddtrace.llmobs._utils import get_llmobs_trace_id
from ddtrace.llmobs._utils import safe_json
from ddtrace.llmobs.types import Document
from ddtrace.trace import Span


log = get_logger(__name__)

OPENAI_LLM_OPERATIONS = ("completion", "chat", "response")


class OpenAIIntegration(BaseLLMIntegration):
    _integration_name = "openai"

    def __init__(self, integration_config, openai):
        # FIXME: this currently does not consider if the tracer is configured to
        # use a different hostname. eg. tracer.configure(host="new-hostname")
        # Ideally the metrics client should live on the tracer or some other core
        # object that is strongly linked with configuration.
        super().__init__(integration_config)
        self._openai = openai
        self._client = None

    def trace(self, operation_id: str, submit_to_llmobs: bool = False, **kwargs: dict[str, Any]) -> Span:
        traced_operations = (
            "createCompletion",
            "createChatCompletion",
            "createEmbedding",
            "createResponse",
            "parseChatCompletion",
            "parseResponse",
            "createRealtimeResponse",
        )
        if operation_id in traced_operations:
            submit_to_llmobs = True
        log.debug("Creating LLM span for openai operation: %s", operation_id)
        return super().trace(operation_id, submit_to_llmobs, **kwargs)

    def _set_base_span_tags(self, span: Span, **kwargs) -> None:
        span._set_attribute(COMPONENT, self.integration_config.integration_name)

        client = "OpenAI"
        if self._is_provider(span, "azure"):
            client = "AzureOpenAI"
        elif self._is_provider(span, "deepseek"):
            client = "Deepseek"
        span._set_attribute("openai.request.provider", client)

    def _get_model_provider(self, span) -> str:
        if self._is_provider(span, "azure"):
            return "azure_openai"
        elif self._is_provider(span, "openai"):
            return "openai"
        elif self._is_provider(span, "deepseek"):
            return "deepseek"
        return UNKNOWN_MODEL_PROVIDER

    def _is_provider(self, span, provider):
        """Check if the traced operation is from the given provider."""
        base_url = None
        if span is not None:
            base_url = span._get_ctx_item(REQUEST_BASE_URL)
        if not base_url:
            base_url = getattr(self._client, "_base_url", None)
        base_url = str(base_url) if base_url else None
        if not base_url or not isinstance(base_url, str):
            return False
        return provider.lower() in base_url.lower()

    def _llmobs_set_tags(
        self,
        span: Span,
        args: list[Any],
        kwargs: dict[str, Any],
        response: Optional[Any] = None,
        operation: str = "",  # oneof "completion", "chat", "embedding", "response"
    ) -> None:
        """Sets meta tags and metrics for span events to be sent to LLMObs."""
        span_kind = (
            "workflow"
            if span._get_ctx_item(PROXY_REQUEST)
            else "llm"
            if operation in OPENAI_LLM_OPERATIONS
            else operation
        )
        model_name = span.get_tag("openai.response.model") or span.get_tag("openai.request.model") or "unknown_model"

        model_provider = self._get_model_provider(span)

        metrics = self._extract_llmobs_metrics_tags(span, response, span_kind, kwargs)
        provider = span.get_tag("openai.request.provider") or "OpenAI"
        span_name = f"{provider}.{span.resource}" if span.resource else None
        # Set kind before helpers so that input/output messages are routed correctly
        _annotate_llmobs_span_data(
            span,
            name=span_name,
            kind=span_kind,
            model_name=model_name,
            model_provider=model_provider,
            metrics=metrics,
        )
        if operation == "completion":
            openai_set_meta_tags_from_completion(span, kwargs, response)
        elif operation == "chat":
            openai_set_meta_tags_from_chat(span, kwargs, response)
        elif operation == "embedding":
            self._llmobs_set_meta_tags_from_embedding(span, kwargs, response)
        elif operation == "response":
            openai_set_meta_tags_from_response(span, kwargs, response, self)
        elif operation == "tool":
            self._llmobs_set_tags_from_tool(span, kwargs, response)

    @staticmethod
    def _llmobs_set_meta_tags_from_embedding(span: Span, kwargs: dict[str, Any], resp: Any) -> None:
        """Extract prompt tags from an embedding and set them as temporary "_ml_obs.meta.*" tags."""
        encoding_format = kwargs.get("encoding_format") or "float"
        metadata = {"encoding_format": encoding_format}
        if kwargs.get("dimensions"):
            metadata["dimensions"] = kwargs.get("dimensions")

        embedding_inputs = kwargs.get("input", "")
        if isinstance(embedding_inputs, str) or isinstance(embedding_inputs[0], int):
            embedding_inputs = [embedding_inputs]
        input_documents: list[Document] = []
        for doc in embedding_inputs:
            input_documents.append(Document(text=str(doc)))
        _annotate_llmobs_span_data(span, metadata=metadata, input_documents=input_documents)
        if span.error or not resp:
            return
        if encoding_format == "float":
            embedding_dim = len(resp.data[0].embedding)
            output_value = f"[{len(resp.data)} embedding(s) returned with size {embedding_dim}]"
        else:
            output_value = f"[{len(resp.data)} embedding(s) returned]"
        _annotate_llmobs_span_data(span, output_value=output_value)

    @staticmethod
    def _llmobs_set_tags_from_tool(span: Span, kwargs: dict[str, Any], response: Any) -> None:
        """Extract tool name, arguments, and output from the request and response to be submitted to LLMObs."""
        tool_id = kwargs.get("tool_id", "unknown_tool_id")
        tool_name = kwargs.get("name", "unknown_tool")
        tool_arguments = kwargs.get("arguments")

        span_name = f"MCP Client Tool Call: {tool_name}"
        span.name = span_name

        _annotate_llmobs_span_data(
            span,
            kind="tool",
            name=span_name,
            input_value=safe_json(tool_arguments) if tool_arguments is not None else "",
            output_value=safe_json(response) if response is not None else "",
            metadata={"tool_id": tool_id},
        )

    def _llmobs_set_tags_from_realtime_response(
        self,
        span: Span,
        model_name: Optional[str],
        input_messages: list[Any],
        output_messages: list[Any],
        metadata: Optional[dict[str, Any]],
        metrics: Optional[dict[str, Any]],
        session_id: Optional[str] = None,
        parent_span: Optional[Span] = None,
    ) -> None:
        """Tag a per-turn Realtime llm span (the model's generation work) built by the state machine.

        Nested under its turn root (a workflow span) via explicit `parent_id`/`trace_id` when
        `parent_span` is given, the same way the tool span nests (the active context has moved on by
        finalize). `session_id` groups all turns of one connection into a single conversation in the
        UI. The turn's timing lives on the span boundaries (the user-speech, llm, and agent-speech
        spans), so there is no separate timing metadata to merge here.
        """
        provider = span.get_tag("openai.request.provider") or "OpenAI"
        model_provider = self._get_model_provider(span)
        parent_id = None
        trace_id = None
        if parent_span is not None:
            parent_id = str(parent_span.span_id)
            trace_id = get_llmobs_trace_id(parent_span) or format_trace_id(parent_span.trace_id)
        _annotate_llmobs_span_data(
            span,
            name=f"{provider}.{span.resource}" if span.resource else None,
            kind="llm",
            model_name=model_name or "unknown_model",
            model_provider=model_provider,
            input_messages=input_messages or None,
            output_messages=output_messages or None,
            metadata=metadata or {},
            metrics=metrics or None,
            session_id=session_id,
            parent_id=parent_id,
            trace_id=trace_id,
        )
        # Mirror the base llmobs_set_tags path: also stamp the LLMObs->APM shadow token metrics so
        # realtime spans are consistent with every other OpenAI span for APM-only users.
        try:
            self._apply_shadow_metrics(span, metrics, "llm", model_name=model_name, model_provider=model_provider)
        except Exception:
            log.debug("Error applying shadow metrics for realtime span %s", span, exc_info=True)

    def _llmobs_set_tags_from_realtime_workflow(
        self,
        span: Span,
        name: str,
        session_id: Optional[str] = None,
        parent_span: Optional[Span] = None,
        input_value: Any = None,
        output_value: Any = None,
        metadata: Optional[dict[str, Any]] = None,
    ) -> None:
        """Tag a workflow-kind span in the realtime turn tree.

        Used for the turn root (the whole perceived turn), the user-speech window, and the agent-speech
        window. Nested under `parent_span` via explicit `parent_id`/`trace_id` when a parent is
        given; the turn root has none (it is the root of the turn's trace, grouped by `session_id`).
        These are timing regions, so the audio bytes ride on the llm span, not here.
        """
        parent_id = None
        trace_id = None
        if parent_span is not None:
            parent_id = str(parent_span.span_id)
            trace_id = get_llmobs_trace_id(parent_span) or format_trace_id(parent_span.trace_id)
        _annotate_llmobs_span_data(
            span,
            name=name,
            kind="workflow",
            parent_id=parent_id,
            trace_id=trace_id,
            session_id=session_id,
            # Pass raw values; _annotate_llmobs_span_data serializes them (avoid double-encoding).
            input_value=input_value if input_value is not None else "",
            output_value=output_value if output_value is not None else "",
            metadata=metadata,
        )

    def _set_apm_shadow_tags(self, span, args, kwargs, response=None, operation=""):
        span_kind = (
            "workflow"
            if span._get_ctx_item(PROXY_REQUEST)
            else "llm"
            if operation in OPENAI_LLM_OPERATIONS
            else operation
        )
        metrics = self._extract_llmobs_metrics_tags(span, response, span_kind, kwargs)
        model_name = span.get_tag("openai.response.model") or span.get_tag("openai.request.model")
        model_provider = self._get_model_provider(span)
        self._apply_shadow_metrics(
            span,
            metrics,
            span_kind,
            model_name=model_name,
            model_provider=model_provider,
        )

    @staticmethod
    def _extract_llmobs_metrics_tags(
        span: Span, resp: Any, span_kind: str, kwargs: dict[str, Any]
    ) -> Optional[dict[str, Any]]:
        """Extract metrics from a chat/completion and set them as a temporary "_ml_obs.metrics" tag."""
        if span_kind == "workflow":
            return None

        token_usage = None

        # in the streamed responses case, `resp` is a list with `usage` being stored in the first element
        if resp and isinstance(resp, list) and _get_attr(resp[0], "usage", None):
            token_usage = _get_attr(resp[0], "usage", {})
        elif resp and _get_attr(resp, "usage", None):
            token_usage = _get_attr(resp, "usage", {})
        if token_usage is not None:
            prompt_tokens = _get_attr(token_usage, "prompt_tokens", 0)
            completion_tokens = _get_attr(token_usage, "completion_tokens", 0)
            input_tokens = _get_attr(token_usage, "input_tokens", 0)
            output_tokens = _get_attr(token_usage, "output_tokens", 0)

            input_tokens = prompt_tokens or input_tokens
            output_tokens = completion_tokens or output_tokens

            metrics = {
                INPUT_TOKENS_METRIC_KEY: input_tokens,
                OUTPUT_TOKENS_METRIC_KEY: output_tokens,
                TOTAL_TOKENS_METRIC_KEY: input_tokens + output_tokens,
            }
            # Chat completions returns `prompt_tokens_details` while responses api returns `input_tokens_details`
            prompt_tokens_details = _get_attr(token_usage, "prompt_tokens_details", {}) or _get_attr(
                token_usage, "input_tokens_details", {}
            )
            cached_tokens = _get_attr(prompt_tokens_details, "cached_tokens", None)
            if cached_tokens is not None:
                metrics[CACHE_READ_INPUT_TOKENS_METRIC_KEY] = cached_tokens
            cache_write_tokens = _get_attr(prompt_tokens_details, "cache_write_tokens", None)
            if cache_write_tokens is not None:
                metrics[CACHE_WRITE_INPUT_TOKENS_METRIC_KEY] = cache_write_tokens
            # Chat completion returns `completion_tokens_details` while responses api returns `output_tokens_details`
            reasoning_output_tokens_details = _get_attr(token_usage, "completion_tokens_details", {}) or _get_attr(
                token_usage, "output_tokens_details", {}
            )
            reasoning_output_tokens = _get_attr(reasoning_output_tokens_details, "reasoning_tokens", None)
            if reasoning_output_tokens is not None:
                metrics[REASONING_OUTPUT_TOKENS_METRIC_KEY] = reasoning_output_tokens
            metrics.update(get_openrouter_cost_metrics(token_usage))
            return metrics
        elif kwargs.get("stream") and isinstance(resp, list):
            # `_compute_completion_tokens` expects the chat/completion shape: a list of message
            # dicts. A Responses API `resp` is a single pydantic object, and iterating one yields
            # (field, value) tuples, so estimating from it raises and loses every tag on the span.
            # A completed Responses stream never reaches here (it carries `usage`); a truncated one
            # does, which is why this only surfaces when a stream ends early.
            prompt_tokens = _compute_prompt_tokens(kwargs.get("prompt", None), kwargs.get("messages", None))
            completion_tokens = _compute_completion_tokens(resp)
            total_tokens = prompt_tokens + completion_tokens

            return {
                INPUT_TOKENS_METRIC_KEY: prompt_tokens,
                OUTPUT_TOKENS_METRIC_KEY: completion_tokens,
                TOTAL_TOKENS_METRIC_KEY: total_tokens,
            }
        return None

    def _get_base_url(self, **kwargs: dict[str, Any]) -> Optional[str]:
        instance = kwargs.get("instance")
        client = getattr(instance, "_client", None)
        base_url = getattr(client, "_base_url", None) if client else None
        return str(base_url) if base_url else None
