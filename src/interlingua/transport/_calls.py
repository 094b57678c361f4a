"""The client's calls besides ``generate``: list models, count tokens, check the configuration.

They share the client's key handling, limiter, retries, timeouts and error normalization
(:func:`request_json`); the provider rules come from the spec (``models`` / ``count``) or the
built-in tables in ``_models.py`` and ``_count.py``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from ..errors import InterlinguaError, TransportError
from ._count import CountEndpoint, count_endpoints
from ._errors import from_response, transport_error, translate
from ._models import ModelInfo, ModelsEndpoint, catalogue_facts, models_endpoints
from ._redact import redact, scrub_exception

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["ConfigProblem", "check_config", "count_tokens", "list_models", "request_json", "validate_config"]

_MAX_PAGES = 100
_MAX_BODY = 16 * 1024 * 1024


@dataclass(frozen=True)
class ConfigProblem:
    """One problem :meth:`Client.validate_config` found.

    Attributes:
        setting: What it is about (``api_key``, ``base_url``, ``model``, ``settings.max_output_tokens``, ...).
        message: What is wrong and what to do.
    """

    setting: str
    message: str

    def __str__(self) -> str:
        return f"{self.setting}: {self.message}"


def _base(name: str) -> str:
    return name.partition(":")[0]


def _models_endpoint(client: Client) -> ModelsEndpoint | None:
    spec = client._spec
    return spec.models if spec.models is not None else models_endpoints().get(_base(spec.name))


def _count_endpoint(client: Client) -> CountEndpoint | None:
    spec = client._spec
    return spec.count if spec.count is not None else count_endpoints().get(_base(spec.name))


async def request_json(client: Client, method: str, url: str, *, params: Mapping[str, str] | None = None, body: Any = None) -> Any:
    """One JSON call through the client: limiter, retries, deadline, errors as ``generate`` has them.

    Raises:
        TransportError: the call failed (stable code); ``provider_error`` for an answer that is not JSON.
    """
    from ._client import _Clock, _where

    if client._key is None and client._spec.requires_key:
        raise transport_error("auth", client._spec.missing_key(client.base_url), provider=client.provider)
    if params:
        url = str(httpx.URL(url, params=dict(params)))
    content = msgspec.json.encode(body) if body is not None else b""
    clock = _Clock(client.timeouts.deadline)
    secrets = client._secrets()
    attempt = 0
    while True:
        headers: Mapping[str, str] = {}
        try:
            await client._acquire(clock)
            request_headers = {**client._headers, "accept": "application/json"}
            if body is not None:
                request_headers["content-type"] = "application/json"
            if client._signer is not None:
                request_headers = client._signer.sign(method, url, request_headers, content)
            elif client._key is not None:
                request_headers.update(client._spec.auth_headers(client._key.reveal()))
            request = client._http.build_request(method, url, content=content or None, headers=request_headers, timeout=client.timeouts.for_request(False))
            client._log("%s %s (attempt %d)", method, redact(url, secrets, kind="url"), attempt + 1)
            with translate(client.provider, secrets=secrets):
                response = await clock.run(client._http.send(request, stream=True), client.provider)
            try:
                headers = response.headers
                with translate(client.provider, reading=True, started=response.status_code < 300, secrets=secrets):
                    data = await clock.run(response.aread(), client.provider)
            finally:
                await response.aclose()
            if response.status_code >= 300:
                raise from_response(client._spec, response.status_code, client._error_body(response, data[:65536]), secrets=secrets, headers=headers, now=client.limiter.wall())
            try:
                return msgspec.json.decode(data[:_MAX_BODY])
            except msgspec.DecodeError as exc:
                scrub_exception(exc, secrets)
                raise transport_error("provider_error", f"{client.provider} answered {method} {httpx.URL(url).path} with a body that is not JSON", provider=client.provider, status=response.status_code) from exc
        except TransportError as err:
            if await client._backoff(err, headers, attempt, clock):
                attempt += 1
                continue
            raise _where(err, url, attempt + 1) from err.__cause__


async def list_models(client: Client) -> list[ModelInfo]:
    """Every model the provider lists (all pages), normalized and merged with the catalogue's facts.

    Raises:
        TransportError: ``invalid_request`` for a provider without a list endpoint; the call's own
            failure otherwise (``auth``, ``network``, ...); ``provider_error`` for an answer that is not
            a model list.
    """
    endpoint = _models_endpoint(client)
    if endpoint is None:
        raise transport_error("invalid_request", f"{client.provider} has no model list endpoint", provider=client.provider)
    url = endpoint.base_url(client.base_url) + endpoint.path
    out: list[ModelInfo] = []
    token: str | None = None
    for _ in range(_MAX_PAGES):
        params = {endpoint.page_param: token} if token and endpoint.page_param else None
        body = await request_json(client, "GET", url, params=params)
        try:
            models, token = endpoint.parse(body)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise transport_error("provider_error", f"{client.provider}'s model list is not in the expected shape ({exc})", provider=client.provider) from None
        out.extend(catalogue_facts(client.provider, dataclasses.replace(m, provider=client.provider)) for m in models)
        if not token or endpoint.page_param is None:
            break
    return out


async def count_tokens(client: Client, transcript: Any, *, model: str, **kwargs: Any) -> int:
    """Input tokens of the request ``generate`` would send, counted by the provider's count endpoint.

    Raises:
        TransportError: ``invalid_request`` for a provider without a count endpoint (use the offline
            ``interlingua.count_tokens`` estimate); the call's own failure otherwise.
        CapabilityError, ConversionError, DocumentError: as :meth:`Client.generate`.
    """
    endpoint = _count_endpoint(client)
    if endpoint is None:
        raise transport_error(
            "invalid_request",
            f"{client.provider} has no token count endpoint (counting is offered by anthropic, gemini and openai-responses); "
            "use interlingua.count_tokens(transcript, model=...) for an offline estimate",
            provider=client.provider,
        )
    generation = client.generate(transcript, model=model, stream=False, **kwargs)
    body = msgspec.json.decode(generation._prepared.body)
    answer = await request_json(client, "POST", client.base_url + endpoint.path(model), body=endpoint.body(body, model))
    try:
        return endpoint.result(answer)
    except ValueError as exc:
        raise transport_error("provider_error", f"{client.provider}'s count answer is not in the expected shape ({exc})", provider=client.provider) from None


_LOCAL = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def validate_config(client: Client, model: str | None = None) -> list[ConfigProblem]:
    """What is wrong with the client's configuration, found without any network call (empty: nothing).

    Checks: a missing key (and the variables it is read from); a base URL that is malformed, not
    http(s), or plain http to a remote host with a key; a key given to a local server that takes none;
    ``model`` unknown to the model table; client settings the model cannot take (an output budget above
    its limit, reasoning settings for a model without reasoning, a stop sequence it cannot take).
    """
    spec = client._spec
    problems: list[ConfigProblem] = []
    if client._key is None and spec.requires_key:
        problems.append(ConfigProblem("api_key", spec.missing_key(client.base_url)))
    try:
        url = httpx.URL(client.base_url)
        scheme, host = url.scheme, url.host
    except (httpx.InvalidURL, TypeError, ValueError):
        scheme = host = ""
    if scheme not in ("http", "https") or not host:
        problems.append(ConfigProblem("base_url", f"{redact(client.base_url, client._secrets(), kind='url')!r} is not an http(s) URL with a host"))
    else:
        local = host in _LOCAL or _is_private(host)
        if scheme == "http" and not local and client._key is not None:
            problems.append(ConfigProblem("base_url", f"plain http to {host}: the API key would cross the network unencrypted; use https"))
        if client._key is not None and not spec.requires_key and not spec.env_vars and local and client._signer is None:
            problems.append(ConfigProblem("api_key", f"{spec.name} on {host} takes no key; the one given is sent anyway (drop it, or check the base URL)"))
    if model is not None:
        problems.extend(_model_problems(client, model))
    return problems


def check_config(provider: Any, *, model: str | None = None, **kwargs: Any) -> list[ConfigProblem]:
    """:meth:`Client.validate_config` for a client not made yet: what ``Client(provider, **kwargs)`` would
    refuse (an unknown provider or ``openai-chat:<host>`` dialect, an unknown option, a key a header cannot
    carry) is a problem in the list too, instead of an exception. No network.

    Args:
        provider: As :class:`Client`.
        model: Also check this model (see :meth:`Client.validate_config`).
        **kwargs: :class:`Client`'s keywords (``api_key``, ``base_url``, ``options``, ``settings``, ...).
    """
    from ._client import Client

    try:
        client = Client(provider, **kwargs)
    except TransportError as exc:
        return [ConfigProblem("provider" if exc.code == "invalid_request" else "api_key", exc.message)]
    except ValueError as exc:
        return [ConfigProblem("options", str(exc))]
    return validate_config(client, model)


def _is_private(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_private or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _model_problems(client: Client, model: str) -> list[ConfigProblem]:
    from ..capabilities import resolve
    from ..models import lookup

    out: list[ConfigProblem] = []
    if not model.strip():
        return [ConfigProblem("model", "the model name is empty")]
    if not lookup(client.provider, model).known:
        out.append(ConfigProblem("model", f"{model!r} is described neither by the model catalogue nor by an override for {client.provider}: its capabilities are unknown, preflight cannot check them (check the name)"))
    try:
        caps = resolve(client.provider, model, mapper=client.mapper).capabilities
    except (InterlinguaError, TypeError, ValueError):
        return out
    settings = client.settings
    defaults = {o: client.options[o] for o in client._spec.option_settings if o in client.options}
    budget = settings.max_output_tokens if settings is not None and isinstance(settings.max_output_tokens, int) else defaults.get("max_tokens")
    if isinstance(budget, int) and isinstance(caps.max_output_tokens, int) and budget > caps.max_output_tokens:
        out.append(ConfigProblem("settings.max_output_tokens", f"{budget} is above {model}'s output limit of {caps.max_output_tokens} tokens"))
    if settings is not None and settings.reasoning is not msgspec.UNSET and settings.reasoning is not None and caps.reasoning is False:
        out.append(ConfigProblem("settings.reasoning", f"{model} does not reason (model table): the reasoning settings cannot be sent"))
    if settings is not None and isinstance(settings.stop, list) and settings.stop and caps.stop_sequences is False:
        out.append(ConfigProblem("settings.stop", f"{model} takes no stop sequences"))
    return out
