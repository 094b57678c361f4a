"""Amazon Bedrock Runtime Converse / ConverseStream over HTTP (optional extra ``interlingua[bedrock]``).

Sources: AWS Bedrock API reference "Converse" (``POST /model/{modelId}/converse``) and
"ConverseStream" (``POST /model/{modelId}/converse-stream``, response
``application/vnd.amazon.eventstream``); AWS General Reference "Signature Version 4" (service name
``bedrock``); botocore ``auth.SigV4Auth`` and ``eventstream.EventStreamBuffer``; error type in the
``x-amzn-ErrorType`` header or the body's ``__type`` (``ThrottlingException``, ``ValidationException``, ...).

Bedrock authenticates with AWS SigV4, which signs the method, URL, headers and body of each request,
so it does not fit the key-in-a-header :class:`~interlingua.transport.ProviderSpec` of the generic
client; :class:`BedrockClient` sends and signs itself and reuses the client's error rules. botocore is
imported only when a client is made; without it :class:`~interlingua.errors.TransportError` names the extra.
The mapper (``interlingua.providers.bedrock_converse``) stays pure.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx
import msgspec

from ..errors import DocumentError, MalformedInputError, TransportError
from ..items import ErrorItem, Transcript
from ..mapping import ModelResponse, get_mapper
from ..mapping.report import Policy
from ..streaming.events import RawEvent, StreamError, StreamEvent, is_terminal
from ._errors import from_response, sendable, transport_error, translate
from ._spec import ProviderSpec, error_token

__all__ = ["BedrockClient", "bedrock_converse", "event_stream_frames"]

NAME = "bedrock-converse"
SERVICE = "bedrock"
"""SigV4 signing name of Bedrock Runtime (botocore ``bedrock-runtime`` metadata ``signingName``)."""

_TYPES = {
    "ValidationException": "invalid_request",
    "AccessDeniedException": "auth",
    "UnrecognizedClientException": "auth",
    "ExpiredTokenException": "auth",
    "ResourceNotFoundException": "not_found",
    "ThrottlingException": "rate_limit",
    "ServiceQuotaExceededException": "rate_limit",
    "ModelTimeoutException": "timeout",
    "InternalServerException": "server",
    "ServiceUnavailableException": "overloaded",
    "ModelNotReadyException": "overloaded",
    "ModelErrorException": "provider_error",
}
"""Bedrock Runtime error shapes (botocore ``bedrock-runtime`` operation errors) -> stable codes."""


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    etype = body.get("__type") if isinstance(body, dict) else None
    token = error_token(etype.split("#")[-1].split(":")[0]) if isinstance(etype, str) else None
    code = _TYPES.get(token or "")
    message = body.get("message") if isinstance(body, dict) else None
    # Read, never passed on: an over-long prompt is a ValidationException told apart only by its text.
    if code == "invalid_request" and isinstance(message, str) and ("too long" in message.lower() or "context" in message.lower() and "exceed" in message.lower()):
        code = "context_length"
    return code, token


def _path(model: str, stream: bool) -> str:
    return f"/model/{quote(model, safe='')}/{'converse-stream' if stream else 'converse'}"


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "modelId"}


def _region(options: Mapping[str, Any], session: Any) -> str:
    region = options.get("region")
    if region is not None and (not isinstance(region, str) or not region):
        raise ValueError(f"option region must be an AWS region name such as 'us-east-1', got {region!r}")
    found = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or session.get_config_variable("region")
    return str(found or "us-east-1")


class _Signer:
    """SigV4 (botocore credential chain) or a Bedrock API key (``Authorization: Bearer``).

    Sources: AWS Bedrock user guide "Use an Amazon Bedrock API key" (bearer token, environment
    variable ``AWS_BEARER_TOKEN_BEDROCK``); AWS General Reference "Signature Version 4"; botocore
    ``auth.SigV4Auth`` and ``session.Session.get_credentials``.
    """

    def __init__(self, api_key: str | None, options: Mapping[str, Any]) -> None:
        botocore_session = _botocore("session")
        _botocore("eventstream")  # streams need it whichever way the requests are authenticated
        profile = options.get("profile")
        if profile is not None and (not isinstance(profile, str) or not profile):
            raise ValueError(f"option profile must be an AWS profile name, got {profile!r}")
        session = botocore_session.Session(profile=profile) if profile else botocore_session.get_session()
        try:
            self.region = _region(options, session)
            creds = None if api_key else session.get_credentials()
        except _botocore("exceptions").BotoCoreError as exc:
            raise TransportError("auth", f"cannot read the AWS configuration for bedrock-converse ({type(exc).__name__})", provider=NAME) from None
        self.base_url: str | None = f"https://bedrock-runtime.{self.region}.amazonaws.com"
        self._key = api_key
        if api_key:
            self._sigv4 = None
            self.secrets: tuple[str, ...] = (api_key,)
            return
        if creds is None:
            raise TransportError(
                "auth",
                "no AWS credentials for bedrock-converse: set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) or configure "
                "AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or a role)",
                provider=NAME,
            )
        frozen = creds.get_frozen_credentials()
        self.secrets = tuple(s for s in (frozen.secret_key, frozen.token) if s)
        self._sigv4 = _botocore("auth").SigV4Auth(creds, SERVICE, self.region)

    def __repr__(self) -> str:
        return f"<bedrock signer region={self.region!r}>"

    def sign(self, method: str, url: str, headers: Mapping[str, str], body: bytes) -> dict[str, str]:
        """``headers`` plus ``Authorization`` (and SigV4's ``X-Amz-Date`` / ``X-Amz-Security-Token``)."""
        if self._sigv4 is None:
            return {**headers, "authorization": f"Bearer {self._key}"}
        signed = _botocore("awsrequest").AWSRequest(method=method, url=url, data=body, headers=dict(headers))
        self._sigv4.add_auth(signed)
        return dict(signed.headers.items())


async def _aframes(response: httpx.Response) -> AsyncIterator[RawEvent]:
    """A ConverseStream body (AWS event-stream, ``application/vnd.amazon.eventstream``) -> events as bytes arrive."""
    buffer = _botocore("eventstream").EventStreamBuffer()
    async for chunk in response.aiter_bytes():
        buffer.add_data(chunk)
        for frame in event_stream_frames(buffer):
            yield frame


def _error_body(headers: Mapping[str, str], body: bytes) -> bytes:
    folded = _fold_header(headers, body)
    return msgspec.json.encode(folded) if folded else body


bedrock_converse = ProviderSpec(
    name=NAME,
    default_base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    env_vars=("AWS_BEARER_TOKEN_BEDROCK",),
    path=_path,
    auth_headers=lambda key: {},
    prepare_body=_body,
    error_code=_error_code,
    requires_key=False,
    options=frozenset({"region", "profile"}),
    signer=_Signer,
    frames=_aframes,
    error_body=_error_body,
    quota_error=lambda body: isinstance(body, dict) and str(body.get("__type", "")).split("#")[-1].split(":")[0] == "ServiceQuotaExceededException",
    accept=lambda stream: "application/vnd.amazon.eventstream" if stream else "application/json",
    stream_by_url=True,
)
"""Bedrock Converse HTTP rules for :class:`~interlingua.transport.Client` (``Client("bedrock-converse")``).

``modelId`` moves from the body to the URL path (``/model/{modelId}/converse`` or
``/converse-stream``). Auth: a Bedrock API key (``api_key=`` or ``AWS_BEARER_TOKEN_BEDROCK``) as a
bearer token, otherwise SigV4 with botocore's credential chain (options ``region``, ``profile``;
the region also picks the endpoint, else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / the profile's,
else ``us-east-1``). Streams are AWS event-stream frames decoded by botocore. Needs the extra
``interlingua[bedrock]``; without botocore making the client raises ``TransportError`` naming it.
"""


def _botocore(module: str) -> Any:
    try:
        return importlib.import_module(f"botocore.{module}")
    except ImportError as exc:
        raise TransportError(
            "invalid_request", "the bedrock-converse transport needs botocore: pip install 'interlingua[bedrock]'", provider=NAME
        ) from exc


def _fold_header(headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    if "x-amzn-errortype" in {k.lower() for k in headers}:
        etype = next(v for k, v in headers.items() if k.lower() == "x-amzn-errortype")
        try:
            parsed = msgspec.json.decode(body) if body else {}
        except msgspec.DecodeError:
            parsed = {}
        if isinstance(parsed, dict) and "__type" not in parsed:
            return {**parsed, "__type": etype}
    return {}


def event_stream_frames(buffer: Any) -> list[RawEvent]:
    """AWS event-stream messages held by a botocore ``EventStreamBuffer`` -> :class:`RawEvent` records.

    ``:message-type: event`` -> ``RawEvent(event=<:event-type>, data=<payload>)``; ``exception`` ->
    ``RawEvent(event=<:exception-type>, ...)`` (the accumulator ends the stream with its code); any
    other message type -> ``RawEvent(event="internalServerException")``.

    Raises:
        MalformedInputError: a frame with a bad length, checksum or header (botocore ``ParserError``).
    """
    eventstream = _botocore("eventstream")
    out: list[RawEvent] = []
    try:
        for message in buffer:
            headers = message.headers
            kind = headers.get(":message-type")
            payload = message.payload.decode("utf-8", errors="replace")
            if kind == "event":
                out.append(RawEvent(event=str(headers.get(":event-type")), data=payload))
            elif kind == "exception":
                out.append(RawEvent(event=str(headers.get(":exception-type")), data=payload))
            else:
                out.append(RawEvent(event="internalServerException", data="{}"))
    except eventstream.ParserError as exc:
        raise MalformedInputError("", f"malformed AWS event-stream frame ({type(exc).__name__})", provider=NAME) from exc
    return out


class BedrockClient:
    """Send transcripts to Bedrock Converse / ConverseStream, signed with SigV4.

    Args:
        region: AWS region (``us-east-1``); picks the default endpoint and signs for it.
        credentials: ``(access_key, secret_key)`` or ``(access_key, secret_key, session_token)``; ``None``:
            botocore's default credential chain (environment, shared config, instance roles).
        base_url: Endpoint override (a VPC endpoint, a local test server).
        timeout: httpx timeout.
        transport: httpx transport override (tests).

    Raises:
        TransportError: ``invalid_request`` when botocore is missing (names the extra), ``auth`` when
            no credentials are found.
    """

    def __init__(
        self,
        *,
        region: str = "us-east-1",
        credentials: tuple[str, ...] | None = None,
        base_url: str | None = None,
        timeout: float | httpx.Timeout = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        auth = _botocore("auth")
        botocore_credentials = _botocore("credentials")
        if credentials is None:
            session = _botocore("session").get_session()
            found = session.get_credentials()
            if found is None:
                raise TransportError("auth", "no AWS credentials found for bedrock-converse", provider=NAME)
            creds = found
        else:
            creds = botocore_credentials.Credentials(*credentials)
        self._signer = auth.SigV4Auth(creds, SERVICE, region)
        self._secrets = [s for s in (getattr(creds, "secret_key", None), getattr(creds, "token", None)) if s]
        self.base_url = (base_url or f"https://bedrock-runtime.{region}.amazonaws.com").rstrip("/")
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._mapper = get_mapper(NAME)

    async def __aenter__(self) -> BedrockClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    def _request(self, transcript: Transcript, model: str, stream: bool, policy: Policy) -> httpx.Request:
        awsrequest = _botocore("awsrequest")
        body = self._mapper.encode_request(transcript, model=model, policy=policy).value
        data = msgspec.json.encode(bedrock_converse.prepare_body(body, model, stream, {}))
        url = self.base_url + bedrock_converse.path(model, stream)
        headers = {"Content-Type": "application/json", "Accept": "application/vnd.amazon.eventstream" if stream else "application/json"}
        signed = awsrequest.AWSRequest(method="POST", url=url, data=data, headers=headers)
        self._signer.add_auth(signed)
        return self._http.build_request("POST", url, content=data, headers=dict(signed.headers.items()))

    def _error(self, response: httpx.Response, body: bytes) -> TransportError:
        folded = _fold_header(response.headers, body)
        raw = msgspec.json.encode(folded) if folded else body
        return from_response(bedrock_converse, response.status_code, raw, secrets=self._secrets)

    async def converse(self, transcript: Transcript, *, model: str, policy: Policy = "error") -> ModelResponse:
        """One ``Converse`` call -> the canonical response.

        Raises:
            ConversionError: the transcript cannot be written under ``policy``.
            TransportError: the exchange failed (stable code, status; never the upstream body).
        """
        request = self._request(transcript, model, False, policy)
        with translate(NAME, secrets=self._secrets):
            response = await self._http.send(sendable(request, NAME))
            body = await response.aread()
        if response.status_code >= 300:
            raise self._error(response, body)
        try:
            parsed = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            raise transport_error("provider_error", "bedrock-converse returned a body that is not JSON", provider=NAME, status=response.status_code) from exc
        return self._mapper.decode_response(parsed).value

    async def converse_stream(self, transcript: Transcript, *, model: str, policy: Policy = "error") -> AsyncIterator[StreamEvent]:
        """One ``ConverseStream`` call -> canonical stream events, ending with exactly one terminal event.

        Frames are decoded by botocore's ``EventStreamBuffer`` as bytes arrive; a malformed frame or
        event ends the stream with a ``provider_error`` StreamError, a cut stream with ``truncated``.

        Raises:
            ConversionError: the transcript cannot be written under ``policy``.
            TransportError: the request failed before the stream began.
        """
        eventstream = _botocore("eventstream")
        request = self._request(transcript, model, True, policy)
        with translate(NAME, secrets=self._secrets):
            response = await self._http.send(sendable(request, NAME), stream=True)
        try:
            if response.status_code >= 300:
                with translate(NAME, reading=True, secrets=self._secrets):
                    body = await response.aread()
                raise self._error(response, body)
            acc = self._mapper.accumulator()
            buffer = eventstream.EventStreamBuffer()
            index = -1
            with translate(NAME, reading=True, started=True, secrets=self._secrets):
                async for chunk in response.aiter_bytes():
                    buffer.add_data(chunk)
                    try:
                        frames = event_stream_frames(buffer)
                        for frame in frames:
                            index += 1
                            for ev in acc.feed(frame):
                                yield ev
                                if is_terminal(ev):
                                    return
                    except (MalformedInputError, DocumentError) as exc:
                        pointer = getattr(exc, "pointer", "")
                        yield StreamError(ErrorItem(code="provider_error", message=f"malformed bedrock-converse stream event: {pointer or '/'}", retryable=False, provider=NAME), partial=acc.partial(), pointer=f"/{index}{pointer}")  # type: ignore[attr-defined]
                        return
            for ev in acc.finish():
                yield ev
                if is_terminal(ev):
                    return
        finally:
            await response.aclose()
