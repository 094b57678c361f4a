"""The providers' own input-token count endpoints, through a :class:`~interlingua.transport.Client`.

The request is built exactly as :meth:`Client.generate` builds it (preflight, integrity rules,
mapper, auth), then sent to the provider's count endpoint instead of the generation one:

* Anthropic ``POST /v1/messages/count_tokens`` (Messages API reference, "Count message tokens"): the
  body's ``model``, ``messages``, ``system``, ``tools``, ``tool_choice``, ``thinking``;
  answer ``{"input_tokens": N}``.
* Gemini ``POST /models/{model}:countTokens`` (Gemini API reference, ``models.countTokens``): the
  generation body wrapped as ``generateContentRequest`` with ``model: "models/{model}"``;
  answer ``{"totalTokens": N}``.
* OpenAI Responses ``POST /responses/input_tokens`` (API reference, "Get input token counts"): the
  body without ``stream``, ``store``, ``max_output_tokens``; answer ``{"input_tokens": N}``.

Other providers have no count endpoint: :class:`TypeError` says so.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import quote

import msgspec

from ..items import Transcript
from ..mapping.report import Policy
from ._errors import from_response, transport_error, translate

__all__ = ["COUNTABLE", "count_input_tokens"]

COUNTABLE = ("anthropic", "gemini", "openai-responses")
"""Wire formats whose provider has an input-token count endpoint."""

_ANTHROPIC_KEYS = ("model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers")
_OPENAI_DROP = ("stream", "store", "max_output_tokens", "stream_options", "service_tier", "background", "include")


def _endpoint(provider: str, base: str, model: str, body: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
    if provider == "anthropic":
        return base + "/v1/messages/count_tokens", {k: v for k, v in body.items() if k in _ANTHROPIC_KEYS}, "input_tokens"
    if provider == "gemini":
        name = model.removeprefix("models/")
        request = {"model": f"models/{name}", **{k: v for k, v in body.items() if k != "model"}}
        return f"{base}/models/{quote(name, safe='-._~')}:countTokens", {"generateContentRequest": request}, "totalTokens"
    if provider == "openai-responses":
        return base + "/responses/input_tokens", {k: v for k, v in body.items() if k not in _OPENAI_DROP}, "input_tokens"
    raise TypeError(f"{provider} has no input-token count endpoint (those that do: {', '.join(COUNTABLE)}); use the offline estimate")


async def count_input_tokens(client: Any, transcript: Transcript, *, model: str, policy: Policy = "error") -> int:
    """The input tokens the provider counts for ``transcript`` as a request to ``model``.

    Args:
        client: A :class:`~interlingua.transport.Client` of a wire format in :data:`COUNTABLE`.
        transcript: The history (preflight and the integrity rules apply, as for ``generate``).
        model: Target model.
        policy: As for ``generate``.

    Returns:
        The provider's count (an exact figure).

    Raises:
        TypeError: the provider has no count endpoint.
        TransportError: the call failed (status, provider's error code), or the answer holds no count.
        IntegrityError, CapabilityError, BudgetError: as ``generate`` (nothing is sent).
    """
    if client.provider not in COUNTABLE:
        _endpoint(client.provider, "", model, {})  # raises the TypeError
    prepared = client.generate(transcript, model=model, stream=False, policy=policy)._prepared
    body = msgspec.json.decode(prepared.body)
    url, payload, field = _endpoint(client.provider, client.base_url, model, body)
    counted = dataclasses.replace(prepared, url=url, body=msgspec.json.encode(payload))
    secrets = client._secrets()
    with translate(client.provider, secrets=secrets):
        response = await client._http.send(client._request(counted))
    if response.status_code >= 300:
        raise from_response(client._spec, response.status_code, client._error_body(response, response.content), secrets=secrets)
    try:
        value = msgspec.json.decode(response.content)[field]
    except (msgspec.DecodeError, KeyError, TypeError) as exc:
        raise transport_error("provider_error", f"the count answer holds no {field}", provider=client.provider, status=response.status_code) from exc
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise transport_error("provider_error", f"the count answer's {field} is not a count", provider=client.provider, status=response.status_code)
    return value
