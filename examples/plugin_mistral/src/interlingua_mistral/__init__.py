"""Mistral chat completions for interlingua: a worked third-party mapper plugin.

Installed, it registers itself through the ``interlingua.mappers`` entry point as
``mistral``; then ``interlingua convert --to mistral`` and
``interlingua.mapping.get_mapper("mistral")`` find it.

Wire rules (Mistral API reference, "Chat Completion" and the function-calling guide):

* ``messages`` with roles ``system``, ``user``, ``assistant`` and ``tool``;
* ``tool_calls: [{id, type: "function", function: {name, arguments}}]`` with ``arguments`` a
  JSON **string**;
* tool-call ids are exactly 9 characters of ``a-z, A-Z, 0-9``; other ids are replaced
  deterministically (and reported) with :class:`~interlingua.mapping.IdMap`;
* a tool message carries ``tool_call_id`` and the function ``name``.

Supported subset: system, user and assistant text; tool calls and text tool results; tools
and tool choice. Everything else is refused, dropped or degraded per policy, and reported.
"""

from ._mapper import MistralMapper, mapper

__all__ = ["MistralMapper", "mapper"]
