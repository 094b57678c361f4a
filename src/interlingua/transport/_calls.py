"""The client's calls besides ``generate``: list models, count tokens, check the configuration.

Each works on the client's :class:`~interlingua.transport._connection.Connection` and so shares its key
handling, limiter, retries, timeouts and error normalization (:func:`request_json`); the provider rules
come from the spec (``models`` / ``count``) or the built-in tables in ``_models.py`` and ``_count.py``.
No client is imported here: :class:`~interlingua.transport.Client`'s methods call these.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

from ..errors import InterlinguaError, TransportError
from ..items import Settings
from ._connection import Connection, where
from ._count import CountEndpoint, count_endpoints
from ._errors import from_response, sendable, transport_error, translate
from ._models import ModelInfo, ModelsEndpoint, catalogue_facts, models_endpoints
from ._redact import redact, scrub_exception
from ._timeouts import Clock

__all__ = ["ConfigProblem", "count_endpoint", "count_tokens", "list_models", "request_json", "validate_config"]

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


def _models_endpoint(conn: Connection) -> ModelsEndpoint | None:
    spec = conn.spec
    return spec.models if spec.models is not None else models_endpoints().get(_base(spec.name))


def count_endpoint(conn: Connection) -> CountEndpoint:
    """The provider's token count endpoint.

    Raises:
        TransportError: ``invalid_request`` for a provider without one (nothing is sent).
    """
    spec = conn.spec
    endpoint = spec.count if spec.count is not None else count_endpoints().get(_base(spec.name))
    if endpoint is None:
        raise transport_error(
            "invalid_request",
            f"{conn.provider} has no token count endpoint (counting is offered by anthropic, gemini and openai-responses); "
            "use interlingua.count_tokens(transcript, model=...) for an offline estimate",
            provider=conn.provider,
        )
    return endpoint


async def request_json(conn: Connection, method: str, url: str, *, params: Mapping[str, str] | None = None, body: Any = None) -> Any:
    """One JSON call through the client's connection: limiter, retries, deadline, errors as ``generate`` has them.

    Raises:
        TransportError: the call failed (stable code); ``provider_error`` for an answer that is not JSON.
    """
    if conn.key is None and conn.spec.requires_key:
        raise transport_error("auth", conn.spec.missing_key(conn.base_url), provider=conn.provider)
    if params:
        url = str(httpx.URL(url, params=dict(params)))
    content = msgspec.json.encode(body) if body is not None else b""
    clock = Clock(conn.timeouts.deadline)
    secrets = conn.secrets()
    attempt = 0
    while True:
        headers: Mapping[str, str] = {}
        try:
            await conn.acquire(clock)
            request_headers = {**conn.headers, "accept": "application/json"}
            if body is not None:
                request_headers["content-type"] = "application/json"
            request_headers = conn.authorize(method, url, request_headers, content)
            conn.log("%s %s (attempt %d)", method, redact(url, secrets, kind="url"), attempt + 1)
            with translate(conn.provider, secrets=secrets):  # a URL httpx cannot take is invalid_request
                request = conn.http.build_request(method, url, content=content or None, headers=request_headers, timeout=conn.timeouts.for_request(False))
                response = await clock.run(conn.http.send(sendable(request, conn.provider), stream=True), conn.provider)
            try:
                headers = response.headers
                with translate(conn.provider, reading=True, started=response.status_code < 300, secrets=secrets):
                    data = await clock.run(response.aread(), conn.provider)
            finally:
                await response.aclose()
            if response.status_code >= 300:
                raise from_response(conn.spec, response.status_code, conn.error_body(response, data[:65536]), secrets=secrets, headers=headers, now=conn.limiter.wall())
            try:
                return msgspec.json.decode(data[:_MAX_BODY])
            except msgspec.DecodeError as exc:
                scrub_exception(exc, secrets)
                raise transport_error("provider_error", f"{conn.provider} answered {method} {httpx.URL(url).path} with a body that is not JSON", provider=conn.provider, status=response.status_code) from exc
        except TransportError as err:
            if await conn.backoff(err, headers, attempt, clock):
                attempt += 1
                continue
            raise where(err, url, attempt + 1) from err.__cause__


async def list_models(conn: Connection) -> list[ModelInfo]:
    """Every model the provider lists (all pages), normalized and merged with the catalogue's facts.

    Raises:
        TransportError: ``invalid_request`` for a provider without a list endpoint; the call's own
            failure otherwise (``auth``, ``network``, ...); ``provider_error`` for an answer that is not
            a model list.
    """
    endpoint = _models_endpoint(conn)
    if endpoint is None:
        raise transport_error("invalid_request", f"{conn.provider} has no model list endpoint", provider=conn.provider)
    url = endpoint.base_url(conn.base_url) + endpoint.path
    out: list[ModelInfo] = []
    token: str | None = None
    for _ in range(_MAX_PAGES):
        params = {endpoint.page_param: token} if token and endpoint.page_param else None
        body = await request_json(conn, "GET", url, params=params)
        try:
            models, token = endpoint.parse(body)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise transport_error("provider_error", f"{conn.provider}'s model list is not in the expected shape ({exc})", provider=conn.provider) from None
        out.extend(catalogue_facts(conn.provider, dataclasses.replace(m, provider=conn.provider)) for m in models)
        if not token or endpoint.page_param is None:
            break
    return out


async def count_tokens(conn: Connection, endpoint: CountEndpoint, body: Any, model: str) -> int:
    """Input tokens of request ``body`` (as ``generate`` builds it for ``model``), counted by ``endpoint``.

    Raises:
        TransportError: the call's own failure; ``provider_error`` for an answer not in the count's shape.
    """
    answer = await request_json(conn, "POST", conn.base_url + endpoint.path(model), body=endpoint.body(body, model))
    try:
        return endpoint.result(answer)
    except ValueError as exc:
        raise transport_error("provider_error", f"{conn.provider}'s count answer is not in the expected shape ({exc})", provider=conn.provider) from None


_LOCAL = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def url_parts(base_url: str) -> tuple[str, str]:
    """``(scheme, host)`` of an http(s) ``base_url`` with a host and, if given, a port from 1 to 65535;
    ``("", "")`` for anything else."""
    try:
        url = httpx.URL(base_url)
        scheme, host, port = url.scheme, url.host, url.port
    except (httpx.InvalidURL, TypeError, ValueError):
        return "", ""
    if port is not None and not 0 < port < 65536:  # httpx takes :99999; the socket cannot
        return "", ""
    return (scheme, host) if scheme in ("http", "https") and host else ("", "")


def validate_config(conn: Connection, model: str | None = None, settings: Settings | None = None) -> list[ConfigProblem]:
    """What is wrong with the client's configuration, found without any network call (empty: nothing).

    Checks: a missing key (and the variables it is read from); a base URL that is malformed, not
    http(s), with a port outside 1 to 65535, or plain http to a remote host with a key; a key given to a local server that takes none;
    ``model`` unknown to the model table; client settings the model cannot take (an output budget above
    its limit, reasoning settings for a model without reasoning, a stop sequence it cannot take);
    ``settings`` are the client's own generation settings.
    """
    spec = conn.spec
    problems: list[ConfigProblem] = []
    if conn.key is None and spec.requires_key:
        problems.append(ConfigProblem("api_key", spec.missing_key(conn.base_url)))
    scheme, host = url_parts(conn.base_url)
    if not scheme:
        problems.append(ConfigProblem("base_url", f"{redact(conn.base_url, conn.secrets(), kind='url')!r} is not an http(s) URL with a host and a port from 1 to 65535 if any"))
    else:
        local = host in _LOCAL or _is_private(host)
        if scheme == "http" and not local and conn.key is not None:
            problems.append(ConfigProblem("base_url", f"plain http to {host}: the API key would cross the network unencrypted; use https"))
        if conn.key is not None and not spec.requires_key and not spec.env_vars and local and conn.signer is None:
            problems.append(ConfigProblem("api_key", f"{spec.name} on {host} takes no key; the one given is sent anyway (drop it, or check the base URL)"))
    if model is not None:
        problems.extend(_model_problems(conn, model, settings))
    return problems


def _is_private(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_private or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _model_problems(conn: Connection, model: str, settings: Settings | None) -> list[ConfigProblem]:
    from ..capabilities import resolve
    from ..models import lookup

    out: list[ConfigProblem] = []
    if not model.strip():
        return [ConfigProblem("model", "the model name is empty")]
    if not lookup(conn.provider, model).known:
        out.append(ConfigProblem("model", f"{model!r} is described neither by the model catalogue nor by an override for {conn.provider}: its capabilities are unknown, preflight cannot check them (check the name)"))
    try:
        caps = resolve(conn.provider, model, mapper=conn.mapper).capabilities
    except (InterlinguaError, TypeError, ValueError):
        return out
    defaults = {o: conn.options[o] for o in conn.spec.option_settings if o in conn.options}
    budget = settings.max_output_tokens if settings is not None and isinstance(settings.max_output_tokens, int) else defaults.get("max_tokens")
    if isinstance(budget, int) and isinstance(caps.max_output_tokens, int) and budget > caps.max_output_tokens:
        out.append(ConfigProblem("settings.max_output_tokens", f"{budget} is above {model}'s output limit of {caps.max_output_tokens} tokens"))
    if settings is not None and settings.reasoning is not msgspec.UNSET and settings.reasoning is not None and caps.reasoning is False:
        out.append(ConfigProblem("settings.reasoning", f"{model} does not reason (model table): the reasoning settings cannot be sent"))
    if settings is not None and isinstance(settings.stop, list) and settings.stop and caps.stop_sequences is False:
        out.append(ConfigProblem("settings.stop", f"{model} takes no stop sequences"))
    return out
