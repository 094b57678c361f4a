"""Tool definitions a history needs: the rule every path to a provider applies.

Some providers refuse a conversation holding tool calls or results when the request defines no
tools (Anthropic Messages: a request with ``tool_use`` blocks and no ``tools`` is a 400; Bedrock
Converse: "The toolConfig field must be defined when using toolUse and toolResult content blocks").
The CLI, :func:`interlingua.convert_request` and the client repair this in the capability preflight
(:func:`interlingua.capabilities.fit`); a mapper's ``encode_request`` applies the same rule through
:func:`require_tool_definitions`, so a body written through the mapper API is never sent without
the definitions either. Both use :func:`synthesized_tools` and :func:`note_synthesized`, so the
report reads the same whatever the path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..errors import ConversionError
from ..items import ToolCallItem, ToolDefinition, Transcript
from .report import Policy, Report

__all__ = ["PERMISSIVE_PARAMETERS", "note_synthesized", "require_tool_definitions", "synthesized_tools"]

PERMISSIVE_PARAMETERS: dict[str, Any] = {"type": "object", "additionalProperties": True}
"""The arguments schema of a synthesized tool definition: any JSON object."""

def synthesized_tools(items: Sequence[Any]) -> list[ToolDefinition]:
    """One definition per tool name called in ``items`` (first-call order): the name and
    :data:`PERMISSIVE_PARAMETERS`. Empty when no :class:`ToolCallItem` names a tool."""
    names: list[str] = []
    for item in items:
        if isinstance(item, ToolCallItem) and item.name not in names:
            names.append(item.name)
    return [ToolDefinition(name=name, parameters=dict(PERMISSIVE_PARAMETERS)) for name in names]


def note_synthesized(tools: list[ToolDefinition], provider: str, report: Report) -> None:
    """Report each synthesized definition (``changed``, pointer ``/tools/<n>``)."""
    for n, tool in enumerate(tools):
        report.add(
            "changed",
            f"the history calls {tool.name!r} but holds no tool definitions, which {provider} requires; "
            "synthesized one from the calls (name and a permissive object schema)",
            item_type="tools",
            pointer=f"/tools/{n}",
        )


def require_tool_definitions(transcript: Transcript, provider: str, policy: Policy, report: Report) -> Transcript:
    """``transcript`` with tool definitions when its history holds tool calls and it defines none.

    Args:
        transcript: The conversation to encode (not mutated).
        provider: The target's registry name, for messages.
        policy: ``error`` refuses; ``drop``/``degrade`` synthesize one definition per called tool
            name (reported ``changed``).
        report: Where the synthesized definitions are reported.

    Returns:
        ``transcript`` itself when it defines tools or holds no tool call; else a copy with
        synthesized ``tools``.

    Raises:
        ConversionError: policy ``error`` and a history with tool calls but no definitions.
    """
    tools = transcript.tools
    if tools is not msgspec.UNSET and tools:
        return transcript
    synthesized = synthesized_tools(transcript.items)
    if not synthesized:
        # no call names a tool: results or handoffs alone are the encoder's to place or refuse
        return transcript
    if policy == "error":
        index = next(n for n, it in enumerate(transcript.items) if isinstance(it, ToolCallItem))
        raise ConversionError(
            f"the history holds tool calls but no tool definitions, which {provider} requires "
            "(pass the tools, or policy drop/degrade to synthesize them from the calls)",
            index=index,
            item_type="tools",
        )
    note_synthesized(synthesized, provider, report)
    return msgspec.structs.replace(transcript, tools=synthesized)
