"""``interlingua replay`` end to end against the local server and from fixtures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.items import Settings
from interlingua.cli import app
from interlingua.cli.replay import _call
from interlingua.codec import decode_transcript, to_builtins
from interlingua.mapping import get_mapper
from interlingua.streaming import collect

from ._server import Reply
from .conftest import REAL, STREAMS, stream_reply

runner = CliRunner()
DOC = '{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}'


@pytest.fixture
def doc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    path = tmp_path / "t.json"
    path.write_text(DOC)
    return path


def _expected_stream(provider: str) -> Any:
    return collect(get_mapper(provider), (REAL / STREAMS[provider][0]).read_bytes())[-1].response


def test_stream_prints_a_transcript(serve: Any, doc: Path) -> None:
    srv = serve([stream_reply("anthropic")])
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--max-tokens", "1024", "--base-url", srv.url])
    assert result.exit_code == 0, result.stderr
    out = decode_transcript(result.stdout.encode())
    assert to_builtins(out) == to_builtins(_expected_stream("anthropic").to_transcript())
    # not a terminal: no live text; only the usage line, its cost marked as an estimate from a dated price list
    assert result.stderr.startswith("usage: ") and result.stderr.count("\n") == 1
    assert "estimate; litellm" in result.stderr or "cost unknown" in result.stderr


def test_no_stream(serve: Any, doc: Path) -> None:
    raw = (REAL / "anthropic/pai_anthropic_parallel_tool_calls.0.response.json").read_bytes()
    srv = serve([Reply(200, chunks=[raw])])
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--max-tokens", "1024", "--base-url", srv.url, "--no-stream"])
    assert result.exit_code == 0, result.stderr
    expected = get_mapper("anthropic").decode_response(json.loads(raw)).value
    assert to_builtins(decode_transcript(result.stdout.encode())) == to_builtins(expected.to_transcript())
    assert json.loads(srv.received[0].body)["stream"] is False


def test_record_then_replay_from_fixture(serve: Any, doc: Path, tmp_path: Path) -> None:
    fixture = tmp_path / "rec.jsonl"
    srv = serve([stream_reply("anthropic")])
    args = ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5"]
    first = runner.invoke(app, [*args, "--base-url", srv.url, "--record", str(fixture)])
    second = runner.invoke(app, [*args, "--fixture", str(fixture)])
    assert first.exit_code == 0 and second.exit_code == 0, second.stderr
    assert first.stdout == second.stdout


def test_failure_exits_1_with_the_code(serve: Any, doc: Path) -> None:
    srv = serve([Reply(401, chunks=[b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'])])
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--max-tokens", "1024", "--base-url", srv.url])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: auth: anthropic returned HTTP 401")
    assert "invalid x-api-key" not in result.stderr and result.stdout == ""


def test_truncated_stream_exits_1(serve: Any, doc: Path) -> None:
    reply = stream_reply("anthropic")
    reply.drop_after = len(reply.chunks) - 1
    srv = serve([reply])
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--max-tokens", "1024", "--base-url", srv.url])
    assert result.exit_code == 1 and result.stderr.startswith("error: truncated:")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--provider", "nope"], "unknown provider"),
        (["--provider", "anthropic", "--store", "sqlite:///x.db"], "--store needs --session ID"),
        (["--provider", "anthropic", "--fixture", "/nonexistent.jsonl"], "cannot read fixture"),
    ],
)
def test_usage_errors_exit_2(doc: Path, extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["replay", str(doc), "--model", "m", *extra])
    assert result.exit_code == 2 and message in result.stderr


def test_unreadable_and_invalid_transcripts(tmp_path: Path, doc: Path) -> None:
    missing = runner.invoke(app, ["replay", str(tmp_path / "none.json"), "--provider", "anthropic", "--model", "m"])
    assert missing.exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version":"1.0","items":[{"type":"text"}]}')
    invalid = runner.invoke(app, ["replay", str(bad), "--provider", "anthropic", "--model", "m"])
    assert invalid.exit_code == 1 and "invalid transcript" in invalid.stderr


def test_live_text_goes_to_stderr(serve: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    srv = serve([stream_reply("anthropic")])
    response = asyncio.run(
        _call(
            decode_transcript(DOC), provider="anthropic", model="claude-sonnet-4-5", base_url=srv.url, stream=True, policy="error",
            fixture=None, record=None, live=True, settings=Settings(max_output_tokens=1024),
        )
    )
    err = capsys.readouterr().err
    assert err.startswith("Hello there!\n") and err.splitlines()[1].startswith("usage: ")
    assert response.items[0].text == "Hello there!"


def test_docs_worked_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example in docs/replay.md runs as shown, with no key and no network."""
    root = Path(__file__).parent.parent.parent
    monkeypatch.chdir(root)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    doc = (root / "docs" / "replay.md").read_text()
    block = doc.split("```console\n", 1)[1].split("\n```", 1)[0]
    command, shown = block.split("\n", 2)[:2], block.split("\n", 2)[2]
    args = " ".join(command).replace("\\", " ").split()[2:]  # drop "$ interlingua"
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    warnings = [ln for ln in shown.splitlines() if ln.startswith(("warning: ", "usage: "))]  # stderr, shown first
    assert result.stderr.splitlines() == warnings
    assert result.stdout.strip() == "\n".join(ln for ln in shown.splitlines() if not ln.startswith(("warning: ", "usage: "))).strip()
    assert "REDACTED" in (root / "docs/examples/anthropic_hello.jsonl").read_text()


# --------------------------------------------------------------------------- --store / --session


def _store_cli(tmp_path: Path, session: str, *extra: str) -> Any:
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    return url, runner.invoke(
        app,
        ["replay", "docs/examples/hello.json", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", "docs/examples/anthropic_hello.jsonl", "--store", url, "--session", session, *extra],
    )


def test_store_appends_the_output_to_the_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import interlingua.store as store_mod
    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"

    async def setup() -> None:
        async with await store_mod.SessionStore.open(url) as store:
            await store.create_session(session_id="s1")
            await store.append("s1", decode_transcript(Path("docs/examples/hello.json").read_bytes()).items)

    async def load() -> Any:
        async with await store_mod.SessionStore.open(url) as store:
            return await store.load("s1"), await store.load_envelopes("s1")

    asyncio.run(setup())
    _, result = _store_cli(tmp_path, "s1")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and "appended 1 item(s) to session s1 (head 2)" in result.stderr
    transcript, envelopes = asyncio.run(load())
    assert [i.text for i in transcript.items] == ["Answer in two words.", "Say hello.", "Hello there!"]
    assert envelopes[-1].stop_reason.reason == "end_turn" and envelopes[-1].usage.output_tokens == 6


def test_store_unknown_session_fails_before_sending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import interlingua.store as store_mod

    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    fixture = tmp_path / "empty.jsonl"
    fixture.write_text("")
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"

    async def setup() -> None:
        async with await store_mod.SessionStore.open(url) as store:
            await store.create_session(session_id="other")

    asyncio.run(setup())
    result = runner.invoke(
        app,
        ["replay", "docs/examples/hello.json", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", str(fixture), "--store", url, "--session", "nope"],
    )
    assert result.exit_code == 1 and "nope" in result.stderr  # an empty fixture proves nothing was sent


def test_store_conflict_when_the_session_moved_during_the_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import interlingua.cli.replay as replay_mod
    import interlingua.store as store_mod

    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    real_call = replay_mod._call

    async def setup() -> None:
        async with await store_mod.SessionStore.open(url) as store:
            await store.create_session(session_id="s1")
            await store.append("s1", decode_transcript(Path("docs/examples/hello.json").read_bytes()).items)

    async def racing_call(*args: Any, **kw: Any) -> Any:
        async with await store_mod.SessionStore.open(url) as store:  # another writer appends meanwhile
            await store.append("s1", decode_transcript(DOC).items)
        return await real_call(*args, **kw)

    asyncio.run(setup())
    monkeypatch.setattr(replay_mod, "_call", racing_call)
    _, result = _store_cli(tmp_path, "s1")
    assert result.exit_code == 1 and "expected head 1, actual head 2" in result.stderr


def _stored(url: str, session: str, path: str) -> None:
    import interlingua.store as store_mod

    async def setup() -> None:
        async with await store_mod.SessionStore.open(url) as store:
            await store.create_session(session_id=session)
            await store.append(session, decode_transcript(Path(path).read_bytes()).items)

    asyncio.run(setup())


@pytest.mark.parametrize("stored_doc", ["examples/transcripts/weather.json", "docs/examples/hello.json"])
def test_store_refuses_a_transcript_that_is_not_the_stored_conversation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stored_doc: str) -> None:
    """A stale or unrelated TRANSCRIPT with --store: nothing is sent, nothing appended (the answer would
    continue another conversation). The stored session: a different conversation, or one item longer."""
    import interlingua.store as store_mod

    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    _stored(url, "s1", stored_doc)

    async def head() -> int:
        async with await store_mod.SessionStore.open(url) as store:
            return await store.head("s1")

    before = asyncio.run(head())
    if stored_doc == "docs/examples/hello.json":  # the stored session moved on: the file is now stale
        _, first = _store_cli(tmp_path, "s1")
        assert first.exit_code == 0, first.stderr
        before = asyncio.run(head())
    fixture = tmp_path / "empty.jsonl"
    fixture.write_text("")  # an empty fixture: any request would fail the call, so exit 1 alone proves nothing
    result = runner.invoke(
        app,
        ["replay", "docs/examples/hello.json", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", str(fixture), "--store", url, "--session", "s1"],
    )
    assert result.exit_code == 1
    assert "is not the conversation session s1 holds" in result.stderr and "nothing was sent" in result.stderr
    assert asyncio.run(head()) == before


def test_store_without_transcript_continues_the_stored_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    _stored(url, "s1", "docs/examples/hello.json")
    result = runner.invoke(
        app,
        ["replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", "docs/examples/anthropic_hello.jsonl", "--store", url, "--session", "s1"],
    )
    assert result.exit_code == 0, result.stderr
    assert "appended 1 item(s) to session s1 (head 2)" in result.stderr


def test_store_missing_database_is_a_usage_error_and_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent.parent.parent)
    db = tmp_path / "none.sqlite3"
    result = runner.invoke(
        app,
        ["replay", "docs/examples/hello.json", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", "docs/examples/anthropic_hello.jsonl", "--store", str(db), "--session", "s1"],
    )
    assert result.exit_code == 2 and "no database file" in result.stderr
    assert not db.exists()
