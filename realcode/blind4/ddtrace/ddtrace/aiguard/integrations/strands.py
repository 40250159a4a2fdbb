"""AI Guard integration for AWS Strands Agents SDK.

Two entry points are provided:

**Plugin (recommended)**::

    from ddtrace.aiguard.integrations.strands import AIGuardStrandsPlugin

    agent = Agent(
        model=model,
        plugins=[AIGuardStrandsPlugin()]
    )

**HookProvider (legacy)**::

    from ddtrace.aiguard.integrations.strands import AIGuardStrandsHookProvider

    agent = Agent(
        model=model,
        hooks=[AIGuardStrandsHookProvider()]
    )

Both classes evaluate messages at key lifecycle points:
- ``BeforeModelCallEvent``: Scans user prompts before sending to the LLM
  (skips tool output messages already processed by ``AfterToolCallEvent``)
- ``AfterModelCallEvent``: Scans model text responses for policy violations
  (skips tool calls, which are analyzed individually in ``BeforeToolCallEvent``)
- ``BeforeToolCallEvent``: Scans tool calls before execution
- ``AfterToolCallEvent``: Scans tool results after execution

Parameters:
- ``detailed_error`` (bool): Include AI Guard reasons in blocked messages (default: False)
- ``raise_error_on_tool_calls`` (bool): Raise ``AIGuardAbortError`` on tool call
  violations instead of replacing output (default: False). Model call violations
  (``BeforeModelCallEvent``, ``AfterModelCallEvent``) always raise.
"""

from __future__ import annotations

from typing import Any


# strands-agents is optional. Guard its imports so this module
# always imports cleanly — ``ddtrace.aiguard.__getattr__`` imports it directly
# and relies on both classes being defined (real when strands is present, stub
# otherwise). ``_HAS_STRANDS`` covers the hooks API (HookProvider); the separate
# ``_HAS_PLUGIN_API`` covers the newer Plugin API (strands-agents>=1.29.0).
try:
    from strands.hooks import AfterInvocationEvent as _AfterInvocationEvent
    from strands.hooks import AfterModelCallEvent as _AfterModelCallEvent
    from strands.hooks import AfterToolCallEvent as _AfterToolCallEvent
    from strands.hooks import BeforeInvocationEvent as _BeforeInvocationEvent
    from strands.hooks import BeforeModelCallEvent as _BeforeModelCallEvent
    from strands.hooks import BeforeToolCallEvent as _BeforeToolCallEvent
    from strands.hooks import HookProvider as _StrandsHookProvider
    from strands.hooks import HookRegistry as _StrandsHookRegistry

    _HAS_STRANDS = True
except ImportError:
    _HAS_STRANDS = False

try:
    from strands.plugins import Plugin as _StrandsPlugin
    from strands.plugins import hook

    _HAS_PLUGIN_API = True
except ImportError:
    _HAS_PLUGIN_API = False

from ddtrace.aiguard._api_client import AIGuardAbortError
from ddtrace.aiguard._api_client import AIGuardClient
from ddtrace.aiguard._api_client import Function
from ddtrace.aiguard._api_client import Message
from ddtrace.aiguard._api_client import ToolCall
from ddtrace.aiguard._api_client import new_ai_guard_client
from ddtrace.aiguard._common import evaluate_auto
from ddtrace.aiguard._constants import AI_GUARD
from ddtrace.aiguard._context import reset_aiguard_context_active
from ddtrace.aiguard._context import set_aiguard_context_active
from ddtrace.aiguard.messages import try_format_json
from ddtrace.internal.logger import get_logger


logger = get_logger(__name__)

_BLOCKED_MSG = "[DATADOG AI GUARD] has been canceled for security reasons"
_BLOCKED_TOOL_MSG = "[DATADOG AI GUARD] '{}' has been canceled for security reasons"

_INVOCATION_CTX_KEY = "_dd_ai_guard_ctx"


# Keys handled elsewhere (tool plumbing) or control-only (caching/reasoning);
# everything else is a model-visible modality (image, document, video, ...).
_HANDLED_CONTENT_KEYS = frozenset({"text", "toolUse", "toolResult", "json"})
_CONTROL_CONTENT_KEYS = frozenset({"cachePoint", "reasoningContent"})

# APMSP-3089 — non-text content must NOT be silently dropped.
# Dropping every non-text block made a document/image-only prompt produce zero
# AI Guard messages, so evaluation was skipped while the model saw uninspected
# content (a bypass). We emit a placeholder marker for each model-visible
# non-text block so evaluation always triggers.
_NON_TEXT_CONTENT_MARKER = "[non-text content: {kind}]"


def _block_to_text(block: Any) -> str | None:
    """Return the text for a Bedrock Converse content block.

    ``text`` returns its text; ``guardContent`` unwraps inner text; other
    model-visible modalities return a placeholder marker; handled
    (``toolUse``/``toolResult``) or control-only blocks return ``None``.
    """
    if not isinstance(block, dict):
        return None
    if "text" in block:
        return str(block["text"])
    # guardContent wraps text: {"guardContent": {"text": {"text": "..."}}}
    guard_content = block.get("guardContent")
    if isinstance(guard_content, dict):
        text = guard_content.get("text")
        if isinstance(text, dict) and isinstance(text.get("text"), str):
            return str(text["text"])
        return _NON_TEXT_CONTENT_MARKER.format(kind="guardContent")
    for key in block:
        if key in _HANDLED_CONTENT_KEYS or key in _CONTROL_CONTENT_KEYS:
            continue
        return _NON_TEXT_CONTENT_MARKER.format(kind=key)
    return None


def _tool_result_text(tool_result: dict[str, Any]) -> str:
    """Extract text from a Bedrock Converse ToolResult.

    ``text``/``json`` entries are extracted; other modalities return a
    placeholder marker rather than an empty string (APMSP-3089).
    """
    texts = []
    for entry in tool_result.get("content", []):
        if not isinstance(entry, dict):
            continue
        if "text" in entry:
            texts.append(entry["text"])
        elif "json" in entry:
            texts.append(try_format_json(entry["json"]))
        else:
            for key in entry:
                if key in _CONTROL_CONTENT_KEYS:
                    continue
                texts.append(_NON_TEXT_CONTENT_MARKER.format(kind=key))
                break
    return " ".join(texts)


def _convert_strands_messages(
    messages: list[Any],
    system_prompt: str | None = None,
    exclude_tool_results: bool = False,
) -> list[Message]:
    """Convert Strands/Bedrock Converse messages to AI Guard format.

    Strands messages use the Bedrock Converse schema: each message has a
    ``role`` ("user" | "assistant") and ``content`` (list of ContentBlock
    dicts with optional keys ``text``, ``toolUse``, ``toolResult``, etc.).

    :param messages: List of Bedrock Converse message dicts.
    :param system_prompt: Optional system prompt string (``agent.system_prompt``).
    :param exclude_tool_results: If True, skip toolResult blocks (already
        processed in AfterToolCall).
    :returns: List of AI Guard ``Message`` objects.
    """
    result: list[Message] = []

    if system_prompt:
        result.append(Message(role="system", content=system_prompt))

    for msg in messages:
        try:
            if not isinstance(msg, dict):
                continue

            role = msg.get("role", "")
            content = msg.get("content", [])
            if not isinstance(content, list):
                continue

            # Non-text blocks become placeholder markers (see _block_to_text)
            # so a content-only message still produces a Message and evaluation
            # is not skipped (APMSP-3089).
            texts = [text for block in content if (text := _block_to_text(block)) is not None]

            if role == "user":
                if texts:
                    result.append(Message(role="user", content=" ".join(texts)))

                # In Bedrock Converse format, tool results appear in user messages
                if not exclude_tool_results:
                    for block in content:
                        if tr := block.get("toolResult"):
                            result.append(
                                Message(
                                    role="tool",
                                    tool_call_id=tr.get("toolUseId", ""),
                                    content=_tool_result_text(tr),
                                )
                            )

            elif role == "assistant":
                tool_uses = [block["toolUse"] for block in content if "toolUse" in block]
                if tool_uses:
                    result.append(
                        Message(
                            role="assistant",
                            tool_calls=[
                                ToolCall(
                                    id=tu.get("toolUseId", ""),
                                    function=Function(
                                        name=tu.get("name", ""),
                                        arguments=try_format_json(tu.get("input", {})),
                                    ),
                                )
                                for tu in tool_uses
                            ],
                        )
                    )
                if texts:
                    result.append(Message(role="assistant", content=" ".join(texts)))

        except Exception:
            logger.debug("Failed to convert message", exc_info=True)

    return result


class AIGuardStrandsIntegration:
    """Shared AI Guard evaluation logic for Strands Agents.

    ``AIGuardStrandsPlugin`` (Plugin API) and ``AIGuardStrandsHookProvider``
    (legacy HookProvider API) are thin wrappers that wire lifecycle events
    to the ``_on_*_base`` methods defined here.

    Subclasses only need to forward Strands lifecycle events to the
    ``_on_*_base`` methods.  This class is **not** intended for direct use.
    """

    def __init__(self, *, detailed_error: bool = False, raise_error_on_tool_calls: bool = False):
        self._client: AIGuardClient = new_ai_guard_client()
        self._detailed_error = detailed_error
        self._raise_error_on_tool_calls = raise_error_on_tool_calls
        logger.debug("%s initialized with client: %s", type(self).__name__, self._client)

    def _blocked_message(self, tool_name: str | None = None, reason: str | None = None) -> str:
        if tool_name:
            msg = _BLOCKED_TOOL_MSG.format(tool_name)
        else:
            msg = _BLOCKED_MSG
        if self._detailed_error and reason:
            msg += f": {reason}"
        return msg

    def _on_before_invocation_base(self, event: _BeforeInvocationEvent) -> None:
        """Mark the AI Guard context active for the entire agent invocation.

        Activating at invocation start (rather than per model call) guarantees
        that provider-level integrations (e.g. OpenAI) consistently skip their
        own evaluation while Strands owns the lifecycle. The token is stored
        on ``invocation_state`` so it is per-invocation and survives nested or
        concurrent agent calls that share a single plugin/hook instance.
        """
        event.invocation_state[_INVOCATION_CTX_KEY] = set_aiguard_context_active()

    def _on_after_invocation_base(self, event: _AfterInvocationEvent) -> None:
        """Reset the AI Guard context at the end of the agent invocation.

        Paired with ``_on_before_invocation_base``. Strands fires this in a
        ``finally`` block so it runs even when the model or tool hooks raised
        ``AIGuardAbortError``.
        """
        token = event.invocation_state.pop(_INVOCATION_CTX_KEY, None)
        if token is not None:
            reset_aiguard_context_active(token)

    def _on_before_model_call_base(self, event: _BeforeModelCallEvent) -> None:
        """Evaluate prompt messages before sending to the model.

        Skips tool output messages (already processed in AfterToolCall).
        On block: always raises ``AIGuardAbortError``. The AI Guard context is
        owned by ``_on_before_invocation_base`` / ``_on_after_invocation_base``
        so this hook does not touch it.
        """
        try:
            messages = event.agent.messages
            system_prompt = event.agent.system_prompt
            # Exclude_tool_results=True because tool outputs were
            # already scanned in AfterToolCall; re-scanning would be redundant.
            ai_guard_messages = _convert_strands_messages(messages, system_prompt, exclude_tool_results=True)
            if ai_guard_messages:
                evaluate_auto(self._client, ai_guard_messages, AI_GUARD.INTEGRATION_STRANDS)
        except AIGuardAbortError:
            raise
        except Exception:
            logger.debug("Failed to evaluate model invocation", exc_info=True)

    def _on_after_model_call_base(self, event: _AfterModelCallEvent) -> None:
        """Evaluate model response for policy violations.

        Only analyzes assistant text content (tool calls are analyzed
        individually in BeforeToolCall). On block: always raises
        ``AIGuardAbortError``.
        """
        try:
            if not event.stop_response:
                return
            message = event.stop_response.message
            if not message:
                return
            # Only analyze text content from the assistant response.
            # Tool calls (toolUse blocks) are analyzed individually in BeforeToolCall.
            text_only_message = {
                "role": message.get("role", "assistant"),
                "content": [block for block in message.get("content", []) if "text" in block],
            }
            if not text_only_message["content"]:
                return
            ai_guard_messages = _convert_strands_messages([text_only_message])
            if ai_guard_messages:
                evaluate_auto(self._client, ai_guard_messages, AI_GUARD.INTEGRATION_STRANDS)
        except AIGuardAbortError:
            raise
        except Exception:
            logger.debug("Failed to evaluate model invocation", exc_info=True)

    def _build_tool_call_messages(self, event: _BeforeToolCallEvent | _AfterToolCallEvent) -> tuple[list[Message], str]:
        """Build AI Guard messages for a tool call event.

        Extracts the tool_use fields from the event, converts the agent's
        conversation history, and appends an assistant message representing the
        pending (or executed) tool call.

        :returns: ``(ai_guard_messages, tool_name)``
        """
        tool_use = event.tool_use
        tool_name = tool_use.get("name", "")
        tool_use_id = tool_use.get("toolUseId", "")
        tool_input = tool_use.get("input", {})

        ai_guard_messages = _convert_strands_messages(event.agent.messages)
        ai_guard_messages.append(
            Message(
                role="assistant",
                tool_calls=[
                    ToolCall(
                        id=tool_use_id,
                        function=Function(
                            name=tool_name,
                            arguments=try_format_json(tool_input),
                        ),
                    )
                ],
            )
        )
        return ai_guard_messages, tool_name

    def _on_before_tool_call_base(self, event: _BeforeToolCallEvent) -> None:
        """Evaluate a tool call before execution.

        Builds the conversation history including the pending tool call
        and evaluates it against security policies. On block: cancels the tool
        with a descriptive message.
        """
        tool_name = ""
        try:
            ai_guard_messages, tool_name = self._build_tool_call_messages(event)
            evaluate_auto(self._client, ai_guard_messages, AI_GUARD.INTEGRATION_STRANDS)
        except AIGuardAbortError as e:
            if self._raise_error_on_tool_calls:
                raise
            event.cancel_tool = self._blocked_message(tool_name=tool_name, reason=e.reason)
        except Exception:
            logger.debug("Failed to evaluate tool invocation", exc_info=True)

    def _on_after_tool_call_base(self, event: _AfterToolCallEvent) -> None:
        """Evaluate tool result after execution.

        Builds the conversation history including the tool call and its result,
        then evaluates against security policies. On block: replaces the tool
        result content with a blocked message.
        """
        tool_name = ""
        try:
            ai_guard_messages, tool_name = self._build_tool_call_messages(event)

            # Append the tool result
            tool_use_id = event.tool_use.get("toolUseId", "")
            ai_guard_messages.append(
                Message(
                    role="tool",
                    tool_call_id=tool_use_id,
                    content=_tool_result_text(event.result),
                )
            )

            evaluate_auto(self._client, ai_guard_messages, AI_GUARD.INTEGRATION_STRANDS)
        except AIGuardAbortError as e:
            if self._raise_error_on_tool_calls:
                raise
            blocked_text = self._blocked_message(tool_name=tool_name, reason=e.reason)
            # Replace the tool result content with a single blocked message block
            event.result["content"] = [{"text": blocked_text}]
        except Exception:
            logger.debug("Failed to evaluate tool result", exc_info=True)


if _HAS_PLUGIN_API:

    class AIGuardStrandsPlugin(AIGuardStrandsIntegration, _StrandsPlugin):  # type: ignore[misc]
        """AI Guard security plugin for Strands Agents.

        Uses the Strands ``Plugin`` API with ``@hook`` decorators.  Pass an
        instance via the ``plugins`` parameter::

            agent = Agent(plugins=[AIGuardStrandsPlugin()])

        Requires ``strands-agents>=1.29.0``.
        """

        name = "ai-guard"

        def __init__(self, *, detailed_error: bool = False, raise_error_on_tool_calls: bool = False):
            _StrandsPlugin.__init__(self)
            AIGuardStrandsIntegration.__init__(
                self, detailed_error=detailed_error, raise_error_on_tool_calls=raise_error_on_tool_calls
            )

        @hook  # type: ignore[misc]
        def on_before_invocation(self, event: _BeforeInvocationEvent) -> None:
            self._on_before_invocation_base(event)

        @hook  # type: ignore[misc]
        def on_after_invocation(self, event: _AfterInvocationEvent) -> None:
            self._on_after_invocation_base(event)

        @hook  # type: ignore[misc]
        def on_before_model_call(self, event: _BeforeModelCallEvent) -> None:
            self._on_before_model_call_base(event)

        @hook  # type: ignore[misc]
        def on_after_model_call(self, event: _AfterModelCallEvent) -> None:
            self._on_after_model_call_base(event)

        @hook  # type: ignore[misc]
        def on_before_tool_call(self, event: _BeforeToolCallEvent) -> None:
            self._on_before_tool_call_base(event)

        @hook  # type: ignore[misc]
        def on_after_tool_call(self, event: _AfterToolCallEvent) -> None:
            self._on_after_tool_call_base(event)

else:

    class AIGuardStrandsPlugin:  # type: ignore[no-redef]
        """Stub used when the Strands Plugin API is unavailable (strands-agents missing or < 1.29.0)."""

        def __init__(self, *args: Any, **kwargs: Any):
            logger.warning(
                "AIGuardStrandsPlugin could not be loaded. "
                "Please install strands-agents>=1.29.0: pip install 'strands-agents>=1.29.0'"
            )


if _HAS_STRANDS:

    class AIGuardStrandsHookProvider(AIGuardStrandsIntegration, _StrandsHookProvider):  # type: ignore[misc]
        """AI Guard security hook provider for Strands Agents (legacy).

        Uses the Strands ``HookProvider`` API with manual ``register_hooks``.
        Pass an instance via the ``hooks`` parameter::

            agent = Agent(hooks=[AIGuardStrandsHookProvider()])

        .. note::
            Prefer :class:`AIGuardStrandsPlugin` with ``plugins=`` for new code.
        """

        def register_hooks(self, registry: _StrandsHookRegistry, **kwargs: Any) -> None:
            """Register AI Guard callbacks for agent lifecycle events."""
            registry.add_callback(_BeforeInvocationEvent, self._on_before_invocation_base)
            registry.add_callback(_AfterInvocationEvent, self._on_after_invocation_base)
            registry.add_callback(_BeforeModelCallEvent, self._on_before_model_call_base)
            registry.add_callback(_AfterModelCallEvent, self._on_after_model_call_base)
            registry.add_callback(_AfterToolCallEvent, self._on_after_tool_call_base)
            registry.add_callback(_BeforeToolCallEvent, self._on_before_tool_call_base)

else:

    class AIGuardStrandsHookProvider:  # type: ignore[no-redef]
        """Stub used when strands-agents is not installed."""

        def __init__(self, *args: Any, **kwargs: Any):
            logger.warning(
                "AIGuardStrandsHookProvider could not be loaded. "
                "Please install strands-agents: pip install strands-agents"
            )

        def register_hooks(self, registry: Any, **kwargs: Any) -> None:
            pass
