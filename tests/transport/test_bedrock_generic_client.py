"""``Client("bedrock-converse")`` and ``interlingua replay --provider bedrock-converse`` on 127.0.0.1.

The scripted server recomputes the SigV4 signature from what it received (botocore), so an
unsigned or wrongly signed request fails; answers are recorded Converse bodies and byte-exact
recorded ConverseStream event-stream bodies (tests/fixtures/real/bedrock_converse).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript, to_builtins
from interlingua.errors import TransportError
from interlingua.items import TextItem, Transcript
from interlingua.streaming.events import StreamDone, StreamError, TextDelta
from interlingua.transport import BedrockClient, Client, RecordingTransport, RetryPolicy

from ._server import Reply, ScriptedServer
from .test_bedrock_transport import KEY, MODEL, SECRET, _check_signature, _frames

HERE = Path(__file__).parent.parent / "fixtures" / "real" / "bedrock_converse"
runner = CliRunner()
STREAM_MEDIA = {"content-type": "application/vnd.amazon.eventstream"}


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials from the environment only (no shared config of the machine running the tests)."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)


def _transcript() -> Transcript:
    return Transcript(schema_version="1.0", items=[TextItem(text="Hello!", role="user")])


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _generate(url: str, *, stream: bool, **kw: Any) -> Any:
    async with Client("bedrock-converse", base_url=url, **kw) as client:
        generation = client.generate(_transcript(), model=MODEL, stream=stream)
        if not stream:
            return await generation
        return [ev async for ev in generation]


def test_converse_through_the_generic_client_is_signed_and_decoded() -> None:
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:
        response = _run(_generate(srv.url, stream=False))
        (req,) = srv.received
        _check_signature(req, srv.url)
    assert req.path == "/model/us.amazon.nova-micro-v1%3A0/converse"
    assert req.headers["accept"] == "application/json"
    sent = json.loads(req.body)
    assert "modelId" not in sent and sent["messages"] == [{"role": "user", "content": [{"text": "Hello!"}]}]
    assert SECRET not in req.raw.decode("latin-1")
    assert response.items[0].text.startswith("Hello! How can I assist you")
    assert response.usage.total_tokens == 37


@pytest.mark.parametrize("name", sorted(p.name for p in HERE.glob("*.stream.bin")))
def test_every_recorded_stream_decodes_as_the_dedicated_client_does(name: str) -> None:
    """Cut at arbitrary offsets; the generic client's events equal BedrockClient's on the same bytes."""
    data = (HERE / name).read_bytes()
    chunks = [data[i : i + 89] for i in range(0, len(data), 89)]
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=chunks), Reply(headers=STREAM_MEDIA, chunks=chunks)]) as srv:
        events = _run(_generate(srv.url, stream=True))

        async def dedicated() -> list[Any]:
            async with BedrockClient(credentials=(KEY, SECRET), base_url=srv.url) as client:
                return [ev async for ev in client.converse_stream(_transcript(), model=MODEL)]

        expected = _run(dedicated())
        for req in srv.received:
            _check_signature(req, srv.url)
    assert srv.received[0].path.endswith("/converse-stream")
    assert srv.received[0].headers["accept"] == "application/vnd.amazon.eventstream"
    assert type(events[-1]) is type(expected[-1])
    if isinstance(events[-1], StreamDone):
        assert to_builtins(events[-1].response.to_transcript()) == to_builtins(expected[-1].response.to_transcript())
        assert [e.text for e in events if isinstance(e, TextDelta)] == [e.text for e in expected if isinstance(e, TextDelta)]
    else:
        assert events[-1].error.code == expected[-1].error.code


def test_thinking_stream_keeps_the_bedrock_signature() -> None:
    data = (HERE / "pai_bedrock_model_thinking_part_stream.stream.bin").read_bytes()
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=[data])]) as srv:
        events = _run(_generate(srv.url, stream=True))
    assert isinstance(events[-1], StreamDone)
    items = events[-1].response.items
    assert [type(i).__name__ for i in items] == ["ReasoningItem", "TextItem"]
    assert items[0].opaque.issuer == "bedrock-converse"


def test_cut_stream_is_truncated_and_corrupt_frame_is_a_provider_error() -> None:
    data = (HERE / "pai_bedrock_model_stream.stream.bin").read_bytes()
    corrupt = bytearray(data)
    corrupt[20] ^= 0xFF
    replies = [Reply(headers=STREAM_MEDIA, chunks=[data[: len(data) // 2]]), Reply(headers=STREAM_MEDIA, chunks=[bytes(corrupt)])]
    with ScriptedServer(replies) as srv:
        cut = _run(_generate(srv.url, stream=True, retry=RetryPolicy(max_retries=0)))
        bad = _run(_generate(srv.url, stream=True, retry=RetryPolicy(max_retries=0)))
    assert isinstance(cut[-1], StreamError) and cut[-1].error.code == "truncated"
    assert isinstance(bad[-1], StreamError) and bad[-1].error.code == "provider_error"
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in bad) == 1


def test_exception_frame_ends_the_stream_with_its_code_and_no_upstream_text() -> None:
    frames = _frames([("event", "messageStart", {"role": "assistant"}), ("exception", "throttlingException", {"message": "Too many tokens SECRETISH"})])
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=[frames])]) as srv:
        events = _run(_generate(srv.url, stream=True))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "rate_limit"
    assert "SECRETISH" not in events[-1].error.message


def test_retry_after_throttling_is_signed_again() -> None:
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    throttled = Reply(status=429, headers={"content-type": "application/json", "x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/"}, chunks=[b'{"message": "slow down"}'])
    with ScriptedServer([throttled, Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:
        response = _run(_generate(srv.url, stream=False, retry=RetryPolicy(max_retries=1, base=0.01, cap=0.01)))
        assert len(srv.received) == 2
        for req in srv.received:
            _check_signature(req, srv.url)
    assert response.usage.total_tokens == 37


@pytest.mark.parametrize(
    "status, headers, body, code",
    [
        (429, {"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}, b'{"message": "Too many requests"}', "rate_limit"),
        (400, {}, b'{"__type": "ValidationException", "message": "The model returned the following errors: bad"}', "invalid_request"),
        (400, {"x-amzn-ErrorType": "ValidationException"}, b'{"message": "Input is too long for requested model."}', "context_length"),
        (503, {"x-amzn-ErrorType": "ServiceUnavailableException"}, b"{}", "overloaded"),
    ],
)
def test_http_errors_read_the_error_type_header(status: int, headers: dict[str, str], body: bytes, code: str) -> None:
    replies = [Reply(status=status, headers={"content-type": "application/json", **headers}, chunks=[body])]
    with ScriptedServer(replies) as srv:
        with pytest.raises(TransportError) as info:
            _run(_generate(srv.url, stream=False, retry=RetryPolicy(max_retries=0)))
    assert info.value.code == code and info.value.status == status
    assert "Too many requests" not in str(info.value) and "too long" not in str(info.value)


def test_a_bedrock_api_key_is_a_bearer_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-SENTINEL")
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:
        _run(_generate(srv.url, stream=False))
        (req,) = srv.received
    assert req.headers["authorization"] == "Bearer bedrock-api-key-SENTINEL"
    assert "x-amz-date" not in req.headers


def test_region_option_picks_endpoint_and_signing_region(monkeypatch: pytest.MonkeyPatch) -> None:
    client = Client("bedrock-converse", options={"region": "eu-west-3"})
    assert client.base_url == "https://bedrock-runtime.eu-west-3.amazonaws.com"
    monkeypatch.setenv("AWS_REGION", "ap-south-1")
    assert Client("bedrock-converse").base_url == "https://bedrock-runtime.ap-south-1.amazonaws.com"
    assert SECRET not in repr(client)
    with pytest.raises(ValueError, match="region"):
        Client("bedrock-converse", options={"region": 3})
    with pytest.raises(ValueError, match="unknown option"):
        Client("bedrock-converse", options={"regoin": "us-east-1"})


def test_no_credentials_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(TransportError) as info:
        Client("bedrock-converse")
    assert info.value.code == "auth" and "AWS_BEARER_TOKEN_BEDROCK" in info.value.message


@pytest.mark.parametrize("module", ["botocore.session", "botocore.eventstream"])
def test_missing_botocore_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(TransportError) as info:
        Client("bedrock-converse")
    assert "pip install 'interlingua[bedrock]'" in info.value.message


def test_recorded_fixture_redacts_sigv4_and_the_session_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SESSION_TOKEN", "session-token-SENTINEL-4b1d")
    fixture = tmp_path / "bedrock.jsonl"
    data = (HERE / "pai_bedrock_model_stream.stream.bin").read_bytes()
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=[data])]) as srv:
        live = _run(_generate(srv.url, stream=True, transport=RecordingTransport(fixture)))
        (req,) = srv.received
    assert req.headers["x-amz-security-token"] == "session-token-SENTINEL-4b1d"
    text = fixture.read_text()
    assert SECRET not in text and "Signature=" not in text and "SENTINEL-4b1d" not in text
    assert isinstance(live[-1], StreamDone)


# ------------------------------------------------------------------ the replay command


def _doc(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    path.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"Hello!"}]}')
    return path


def test_replay_command_streams_from_bedrock(tmp_path: Path) -> None:
    data = (HERE / "pai_bedrock_model_stream.stream.bin").read_bytes()
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=[data[i : i + 50] for i in range(0, len(data), 50)])]) as srv:
        result = runner.invoke(app, ["replay", str(_doc(tmp_path)), "--provider", "bedrock-converse", "--model", MODEL, "--base-url", srv.url])
        (req,) = srv.received
        _check_signature(req, srv.url)
    assert result.exit_code == 0, result.stderr
    out = decode_transcript(result.stdout.encode())
    assert [type(i).__name__ for i in out.items] == ["TextItem"] and out.items[0].text
    assert SECRET not in result.stdout + result.stderr


def test_replay_command_no_stream_with_settings(tmp_path: Path) -> None:
    body = (HERE / "pai_bedrock_model.response.json").read_bytes()
    with ScriptedServer([Reply(headers={"content-type": "application/json"}, chunks=[body])]) as srv:
        args = ["replay", str(_doc(tmp_path)), "--provider", "bedrock-converse", "--model", MODEL, "--base-url", srv.url, "--no-stream", "--max-tokens", "64", "--temperature", "0.5"]
        result = runner.invoke(app, args)
        (req,) = srv.received
    assert result.exit_code == 0, result.stderr
    assert json.loads(req.body)["inferenceConfig"] == {"maxTokens": 64, "temperature": 0.5}


def test_replay_command_without_botocore_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "botocore.session", None)
    result = runner.invoke(app, ["replay", str(_doc(tmp_path)), "--provider", "bedrock-converse", "--model", MODEL, "--base-url", "http://127.0.0.1:9"])
    assert result.exit_code == 1
    assert "pip install 'interlingua[bedrock]'" in result.stderr and "Traceback" not in result.stderr


def test_replay_command_from_a_recorded_fixture(tmp_path: Path) -> None:
    fixture = tmp_path / "rec.jsonl"
    data = (HERE / "pai_bedrock_model_stream.stream.bin").read_bytes()
    with ScriptedServer([Reply(headers=STREAM_MEDIA, chunks=[data])]) as srv:
        url = srv.url
        first = runner.invoke(app, ["replay", str(_doc(tmp_path)), "--provider", "bedrock-converse", "--model", MODEL, "--base-url", url, "--record", str(fixture)])
    assert first.exit_code == 0, first.stderr
    assert SECRET not in fixture.read_text()
    again = runner.invoke(app, ["replay", str(_doc(tmp_path)), "--provider", "bedrock-converse", "--model", MODEL, "--base-url", url, "--fixture", str(fixture)])
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
