"""The bedrock-converse transport against a scripted server on 127.0.0.1.

The server checks the SigV4 ``Authorization`` header (recomputed with botocore from what it
received, so a wrong signature fails), then answers with a recorded Converse response or the
byte-exact recorded ConverseStream event-stream body (tests/fixtures/real/bedrock_converse).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from interlingua.errors import TransportError
from interlingua.items import TextItem, Transcript
from interlingua.streaming.events import StreamDone, StreamError, TextDelta
from interlingua.transport import BedrockClient

from ._server import Received, Reply, ScriptedServer

HERE = Path(__file__).parent.parent / "fixtures" / "real" / "bedrock_converse"
MODEL = "us.amazon.nova-micro-v1:0"
KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def _transcript() -> Transcript:
    return Transcript(schema_version="1.0", items=[TextItem(text="Hello!", role="user")])


def _check_signature(req: Received, url: str) -> None:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = req.headers.get("authorization", "")
    assert auth.startswith(f"AWS4-HMAC-SHA256 Credential={KEY}/"), auth
    assert "/us-east-1/bedrock/aws4_request" in auth
    signed_headers = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    headers = {h: req.headers[h] for h in signed_headers}
    again = AWSRequest(method=req.method, url=url + req.path, data=req.body, headers=headers)
    again.context["timestamp"] = req.headers["x-amz-date"]
    signer = SigV4Auth(Credentials(KEY, SECRET), "bedrock", "us-east-1")
    canonical = signer.canonical_request(again)
    expected = signer.signature(signer.string_to_sign(again, canonical), again)
    assert auth.endswith(f"Signature={expected}")


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_converse_is_signed_and_decoded() -> None:
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:

        async def go() -> Any:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return await client.converse(_transcript(), model=MODEL)

        response = _run(go())
        (req,) = srv.received
        _check_signature(req, srv.url)
    assert req.path == "/model/us.amazon.nova-micro-v1%3A0/converse"
    sent = json.loads(req.body)
    assert "modelId" not in sent and sent["messages"] == [{"role": "user", "content": [{"text": "Hello!"}]}]
    assert SECRET not in req.raw.decode("latin-1")
    assert response.items[0].text.startswith("Hello! How can I assist you")
    assert response.usage.total_tokens == 37


def test_converse_stream_decodes_recorded_event_stream() -> None:
    data = (HERE / "pai_bedrock_model_thinking_part_stream.stream.bin").read_bytes()
    chunks = [data[i : i + 97] for i in range(0, len(data), 97)]  # frames cut at arbitrary offsets
    with ScriptedServer([Reply(headers={"content-type": "application/vnd.amazon.eventstream"}, chunks=chunks)]) as srv:

        async def go() -> list[Any]:
            async with BedrockClient(credentials=(KEY, SECRET, "session-token"), base_url=srv.url) as client:
                return [ev async for ev in client.converse_stream(_transcript(), model=MODEL)]

        events = _run(go())
        (req,) = srv.received
        _check_signature(req, srv.url)
    assert req.path.endswith("/converse-stream")
    assert req.headers["x-amz-security-token"] == "session-token"
    assert isinstance(events[-1], StreamDone)
    assert any(isinstance(e, TextDelta) for e in events)
    kinds = [type(i).__name__ for i in events[-1].response.items]
    assert kinds == ["ReasoningItem", "TextItem"]
    assert events[-1].response.items[0].opaque.issuer == "bedrock-converse"


def test_cut_event_stream_is_truncated() -> None:
    data = (HERE / "pai_bedrock_model_stream.stream.bin").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/vnd.amazon.eventstream"}, chunks=[data[: len(data) // 2]])]) as srv:

        async def go() -> list[Any]:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return [ev async for ev in client.converse_stream(_transcript(), model=MODEL)]

        events = _run(go())
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "truncated"


def test_corrupt_frame_is_a_provider_error() -> None:
    data = bytearray((HERE / "pai_bedrock_model_stream.stream.bin").read_bytes())
    data[20] ^= 0xFF  # inside the first frame: its CRC no longer matches
    with ScriptedServer([Reply(headers={"content-type": "application/vnd.amazon.eventstream"}, chunks=[bytes(data)])]) as srv:

        async def go() -> list[Any]:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return [ev async for ev in client.converse_stream(_transcript(), model=MODEL)]

        events = _run(go())
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "provider_error"


def test_exception_frame_ends_the_stream_with_its_code() -> None:
    frames = _frames([("event", "messageStart", {"role": "assistant"}), ("exception", "throttlingException", {"message": "Too many tokens SECRETISH"})])
    with ScriptedServer([Reply(headers={"content-type": "application/vnd.amazon.eventstream"}, chunks=[frames])]) as srv:

        async def go() -> list[Any]:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return [ev async for ev in client.converse_stream(_transcript(), model=MODEL)]

        events = _run(go())
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "rate_limit"
    assert "SECRETISH" not in events[-1].error.message


def _frames(messages: list[tuple[str, str, dict[str, Any]]]) -> bytes:
    """AWS event-stream frames (prelude, string headers, payload, CRC32s), checked below against botocore's decoder."""
    import binascii
    import struct

    out = b""
    for message_type, name, payload in messages:
        key = ":event-type" if message_type == "event" else ":exception-type"
        headers = b""
        for hname, hvalue in ((key, name), (":content-type", "application/json"), (":message-type", message_type)):
            hb, vb = hname.encode(), hvalue.encode()
            headers += struct.pack("!B", len(hb)) + hb + struct.pack("!BH", 7, len(vb)) + vb
        body = json.dumps(payload).encode()
        total = 12 + len(headers) + len(body) + 4
        prelude = struct.pack("!II", total, len(headers))
        prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
        frame = prelude + headers + body
        out += frame + struct.pack("!I", binascii.crc32(frame) & 0xFFFFFFFF)
    return out


def test_frames_helper_matches_botocore_decoder() -> None:
    from botocore.eventstream import EventStreamBuffer

    buf = EventStreamBuffer()
    buf.add_data(_frames([("event", "messageStart", {"role": "assistant"})]))
    (message,) = list(buf)
    assert message.headers[":event-type"] == "messageStart" and json.loads(message.payload) == {"role": "assistant"}


@pytest.mark.parametrize(
    "status, headers, body, code",
    [
        (429, {"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}, b'{"message": "Too many requests"}', "rate_limit"),
        (400, {}, b'{"__type": "ValidationException", "message": "The model returned the following errors: bad"}', "invalid_request"),
        (403, {}, b'{"message": "The security token included in the request is invalid."}', "auth"),
        (503, {"x-amzn-ErrorType": "ServiceUnavailableException"}, b"{}", "overloaded"),
    ],
)
def test_http_errors_are_normalized(status: int, headers: dict[str, str], body: bytes, code: str) -> None:
    with ScriptedServer([Reply(status=status, headers={"content-type": "application/json", **headers}, chunks=[body])]) as srv:

        async def go() -> Any:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return await client.converse(_transcript(), model=MODEL)

        with pytest.raises(TransportError) as info:
            _run(go())
    assert info.value.code == code and info.value.status == status
    assert "Too many requests" not in str(info.value) and "bad" not in info.value.message.split("(")[0]


def test_missing_botocore_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "botocore.auth", None)
    with pytest.raises(TransportError) as info:
        BedrockClient(credentials=(KEY, SECRET))
    assert "interlingua[bedrock]" in info.value.message


def test_signature_check_catches_a_wrong_key() -> None:
    """The server-side check recomputes the signature: a request signed with another secret fails it."""
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:

        async def go() -> Any:
            async with BedrockClient(credentials=(KEY, SECRET + "x"), base_url=srv.url) as client:
                return await client.converse(_transcript(), model=MODEL)

        _run(go())
        (req,) = srv.received
        with pytest.raises(AssertionError):
            _check_signature(req, srv.url)
