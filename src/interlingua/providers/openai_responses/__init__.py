"""OpenAI Responses API mapper (registry name ``openai-responses``).

Request bodies, response objects and SSE streams of ``POST /v1/responses`` <-> canonical items.
The rules and their sources are listed in ``docs/providers/openai_responses.md``.
"""

from ._mapper import OpenAIResponsesMapper
from ._stream import ResponsesAccumulator

__all__ = ["OpenAIResponsesMapper", "ResponsesAccumulator", "mapper"]

for _cls in (OpenAIResponsesMapper, ResponsesAccumulator):
    _cls.__module__ = __name__
del _cls

mapper = OpenAIResponsesMapper()
"""The module-level mapper the registry loads."""
