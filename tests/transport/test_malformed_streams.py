"""Malformed stream events through ``Client`` and ``interlingua replay`` (issue 19, items 2 and 3).

A wrongly typed field or a lone surrogate in one event must end ``async for`` with the documented
``StreamError`` (code ``provider_error``, pointer to the event), never a ``TypeError``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.streaming import StreamError

from ._server import Reply
from .conftest import REAL, STREAMS, chunks_of
from .test_client import MODELS, run

runner = CliRunner()

# provider -> (bytes to find in its recorded stream, replacement): one wrongly typed field, one lone surrogate
BROKEN = {
    "anthropic": [(b'"content_block":{"type":"text"', b'"content_block":{"type":[]'), (b'"text":"', b'"text":"x\\udc00')],
    "openai-responses": [(b'"content":[]', b'"content":7'), (b'"delta":"', b'"delta":"x\\udc00')],
    "openai-chat": [(b'"content":""', b'"content":{}'), (b'"content":"', b'"content":"x\\udc00')],
    "gemini": [(b'"parts": [', b'"parts": 7, "x": ['), (b'"text": "', b'"text": "x\\udc00')],
    "ollama": [(b'"done":false', b'"done":"no"'), (b'"content":"', b'"content":"x\\udc00')],
}


def _broken(provider: str, which: int) -> bytes:
    raw = (REAL / STREAMS[provider][0]).read_bytes()
    old, new = BROKEN[provider][which]
    assert old in raw, (provider, old)
    return raw.replace(old, new, 1)


@pytest.mark.parametrize("which", [0, 1], ids=["wrong-type", "lone-surrogate"])
@pytest.mark.parametrize("provider", sorted(STREAMS))
async def test_client_stream_ends_with_a_stream_error(provider: str, which: int, serve: Any, transcript: Any) -> None:
    data = _broken(provider, which)
    srv = serve([Reply(200, headers={"content-type": STREAMS[provider][1]}, chunks=chunks_of(data))])
    events = await run(provider, srv.url, transcript)
    last = events[-1]
    assert isinstance(last, StreamError), last
    assert last.error.code == "provider_error" and last.error.retryable is False
    assert last.pointer is not None and re.match(r"^/\d+", last.pointer)
    assert len(srv.received) == 1  # a malformed event is not retried


def test_replay_with_a_malformed_event_exits_1(serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    doc = tmp_path / "t.json"
    doc.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}')
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=chunks_of(_broken("anthropic", 0)))])
    res = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", MODELS["anthropic"], "--base-url", srv.url])
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "provider_error" in res.stderr and "/content_block/type" in res.stderr and "Traceback" not in res.output


