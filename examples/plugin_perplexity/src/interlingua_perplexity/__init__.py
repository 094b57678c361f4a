"""Perplexity (Sonar) chat completions for interlingua: a worked third-party mapper plugin.

Installed, it registers itself through the ``interlingua.mappers`` entry point as
``perplexity``; then ``interlingua convert --to perplexity`` and
``interlingua.mapping.get_mapper("perplexity")`` find it. interlingua does not ship this format.

Wire rules (Perplexity API reference, "Chat Completions", ``POST https://api.perplexity.ai/chat/completions``):

* ``messages`` with roles ``system``, ``user`` and ``assistant``, text content;
* after the optional system messages, ``user`` and ``assistant`` must alternate (the API refuses
  two turns of one role in a row), so consecutive turns of one speaker are joined and reported;
* no tool calling: tool calls and results are refused, dropped or degraded per policy;
* a response carries ``citations`` (URLs) and ``search_results`` beside ``choices``; they are kept
  in the response's ``provider_data["perplexity"]`` and written back only here;
* streams are ``chat.completion.chunk`` SSE events; the chunk with a ``finish_reason`` completes the
  response (a ``data: [DONE]`` after it is accepted).

Supported subset: system, user and assistant text. Everything else is refused, dropped or degraded
per policy, and reported.
"""

from ._mapper import PerplexityMapper, mapper

__all__ = ["PerplexityMapper", "mapper"]
