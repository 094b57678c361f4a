"""Base URLs and listed values no socket or clock can take: a clear error or no value, never a traceback.

Issue 32's cases: ``--base-url "http://[::1"`` (``models --remote``: httpx.InvalidURL; ``replay``: a
ValueError from the URL redaction), ``--base-url http://127.0.0.1:99999/v1`` (an OverflowError inside
an exception group, also from ``generate_sync``), ``check_config``/``Client.validate_config`` silent
about port 99999, and a model list entry ``"created": 10**40`` (an OverflowError in the date).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.errors import TransportError
from interlingua.sync import generate_sync
from interlingua.transport import Client, check_config, redact

from ._server import Reply
from .conftest import SENTINEL

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
MODELS = ROOT / "tests" / "fixtures" / "list_and_count" / "openai.v1_models.json"
runner = CliRunner()

BAD_URLS = ["http://[::1", "http://127.0.0.1:99999/v1", "http://127.0.0.1:0/v1", "http://u:SEC@RET@[::1"]


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize("command", [["models", "--remote", "--provider", "openai-chat"], ["replay", str(WEATHER), "--provider", "openai-chat", "--model", "gpt-4o"]])
def test_a_bad_base_url_is_a_usage_error(url: str, command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    res = runner.invoke(app, [*command, "--base-url", url])
    assert res.exit_code == 2, (res.output, res.exception)
    assert "not an http(s) URL" in res.stderr and "Traceback" not in res.output
    assert "SEC" not in res.output and SENTINEL not in res.output


@pytest.mark.parametrize("url", BAD_URLS)
def test_check_config_and_validate_config_report_the_base_url(url: str) -> None:
    problems = check_config("openai-chat", api_key=SENTINEL, base_url=url)
    assert [p.setting for p in problems] == ["base_url"], problems
    assert [p.setting for p in Client("openai-chat", api_key=SENTINEL, base_url=url).validate_config()] == ["base_url"]
    assert "SEC" not in str(problems)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "https://api.openai.com/v1", "http://[::1]:65535/v1"])
def test_a_good_base_url_is_not_reported(url: str) -> None:
    assert [p for p in check_config("openai-chat", api_key=SENTINEL, base_url=url) if p.setting == "base_url" and "not an http" in p.message] == []


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/v1", "http://[::1"])
def test_generate_sync_raises_a_transport_error_not_a_group(url: str, stream: bool) -> None:
    doc = decode_transcript(WEATHER.read_bytes())
    with pytest.raises(TransportError) as info:
        generate_sync(doc, provider="openai-chat", model="gpt-4o", stream=stream, api_key=SENTINEL, base_url=url)
    assert info.value.code == "invalid_request" and not info.value.retryable
    if "99999" in url:
        assert "port 99999" in str(info.value)


def test_list_models_with_a_bad_url_is_a_transport_error() -> None:
    async def run() -> Any:
        async with Client("openai-chat", api_key=SENTINEL, base_url="http://127.0.0.1:99999/v1") as client:
            return await client.list_models()

    with pytest.raises(TransportError) as info:
        asyncio.run(run())
    assert info.value.code == "invalid_request"


def test_a_created_time_past_year_9999_is_left_out(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.loads(MODELS.read_bytes())  # the real list shape, one entry's "created" out of any clock's range
    body["data"][0]["created"] = 10**40
    body["data"][1]["created"] = 253402300800  # 10000-01-01: one second past datetime's range
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[json.dumps(body).encode()])] * 2)
    res = runner.invoke(app, ["models", "--remote", "--provider", "openai-chat", "--base-url", srv.url, "--json"])
    assert res.exit_code == 0, (res.output, res.exception)
    rows = json.loads(res.stdout)
    assert [r.get("created") for r in rows] == [None, None, "2023-06-16T17:03:22Z"]
    res = runner.invoke(app, ["models", "--remote", "--provider", "openai-chat", "--base-url", srv.url])
    assert res.exit_code == 0 and "model-id-0" in res.stdout


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:SEC@RET@127.0.0.1:1/v1", "http://127.0.0.1:1/v1"),
        ("http://[::1", "http://[::1"),
        ("http://u:SEC@RET@[::1/v1?key=abc", "http://[::1/v1?key=abc"),
        ("https://u:pw@h:99999/v1?api_key=abc", "https://h:99999/v1?api_key=REDACTED"),
    ],
)
def test_url_redaction_cuts_the_user_info_to_the_last_at(url: str, shown: str) -> None:
    assert redact(url, kind="url") == shown
