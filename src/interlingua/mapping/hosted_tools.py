"""Tools a provider runs itself (hosted or built-in tools), kept for the same provider.

A request's ``tools`` list can hold, beside function tools, tools with no canonical form: OpenAI
Responses ``web_search``, ``file_search``, ``code_interpreter``, ``image_generation``, ``mcp``,
``tool_search``, ``namespace`` (OAI ``types/responses/tool_param.py``), OpenRouter's server tools in
Chat Completions (``{"type": "openrouter:web_search", "parameters": {...}}``, openrouter.ai docs
"Server tools"). No other provider can run them, and a canonical
:class:`~interlingua.items.ToolDefinition` is a function the model calls and the caller answers, so
they are not tool definitions. They are request settings of that provider: kept as given in
``settings.provider_data[<mapper>]["tools"]`` and written back, at their positions, to the same
provider only (every other target reports the provider data as dropped, ADR 0007 and ADR 0009).

Shape of the kept list: the wire ``tools`` list with ``null`` where a canonical tool definition
stands, so the order comes back (``[{"type": "web_search"}, null]`` is a web search tool, then the
transcript's first tool).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import msgspec

from ..items import Settings

__all__ = ["HOSTED_TOOLS_KEY", "hosted_tools", "merge_hosted_tools", "with_hosted_tools", "without_hosted_tools"]

HOSTED_TOOLS_KEY = "tools"
"""Key of the kept list in a mapper's own ``settings.provider_data`` (the wire key it came from)."""


def hosted_tools(wire_tools: Sequence[Any], canonical: Sequence[bool]) -> list[Any] | None:
    """The list to keep for ``wire_tools``: each entry whose ``canonical`` flag is false as given (a
    deep copy), ``None`` for the others; ``None`` when every entry is canonical.

    Args:
        wire_tools: The request's ``tools`` list.
        canonical: One flag per entry: whether it became a canonical tool definition.
    """
    if all(canonical):
        return None
    return [None if ok else copy.deepcopy(tool) for tool, ok in zip(wire_tools, canonical)]


def with_hosted_tools(settings: Settings | msgspec.UnsetType, name: str, kept: list[Any] | None) -> Settings | msgspec.UnsetType:
    """``settings`` with ``kept`` at ``provider_data[name]["tools"]`` (unchanged when ``kept`` is ``None``)."""
    if kept is None:
        return settings
    base = settings if isinstance(settings, Settings) else Settings()
    data = dict(base.provider_data) if isinstance(base.provider_data, dict) else {}
    own = dict(data.get(name) or {})
    own[HOSTED_TOOLS_KEY] = kept
    data[name] = own
    return msgspec.structs.replace(base, provider_data=data)


def without_hosted_tools(settings: Settings, name: str) -> tuple[Settings, list[Any] | None]:
    """``settings`` without the kept list of ``name`` (so it is not written as a setting), and that list.

    A value at the key that is not a list is left in the settings (it is then a plain setting).
    """
    data = settings.provider_data if isinstance(settings.provider_data, dict) else None
    own = data.get(name) if data is not None else None
    if not isinstance(own, dict) or not isinstance(own.get(HOSTED_TOOLS_KEY), list):
        return settings, None
    kept = copy.deepcopy(own[HOSTED_TOOLS_KEY])
    rest = {k: v for k, v in own.items() if k != HOSTED_TOOLS_KEY}
    new_data = {k: v for k, v in data.items() if k != name} if data is not None else {}
    if rest:
        new_data[name] = rest
    return msgspec.structs.replace(settings, provider_data=new_data if new_data else msgspec.UNSET), kept


def merge_hosted_tools(encoded: Sequence[dict[str, Any]], kept: list[Any] | None) -> list[Any]:
    """The wire ``tools`` list: the ``encoded`` canonical tools fill the ``None`` slots of ``kept`` in
    order; canonical tools beyond the slots follow at the end; slots left over (a tool the transcript no
    longer has) are left out."""
    if not kept:
        return list(encoded)
    out: list[Any] = []
    rest = list(encoded)
    for entry in kept:
        if entry is None:
            if rest:
                out.append(rest.pop(0))
        else:
            out.append(copy.deepcopy(entry))
    return out + rest
