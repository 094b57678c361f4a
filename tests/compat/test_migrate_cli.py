"""``interlingua migrate``: inputs, outputs, rejects, exit codes, re-runs and bounded memory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_envelope, encode_envelope, iter_jsonl
from interlingua.compat import read_any

EXAMPLES = Path(__file__).parent / "examples"
SRC = Path(__file__).resolve().parents[2] / "src"
runner = CliRunner()


def migrate(*args: str) -> Any:
    return runner.invoke(app, ["migrate", *map(str, args)], catch_exceptions=False)


def validate(*args: Any) -> Any:
    return runner.invoke(app, ["validate", *map(str, args)], catch_exceptions=False)


def envelopes(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of a file, session header lines left out."""
    return [v for v in (json.loads(line) for line in path.read_text().splitlines()) if "session" not in v]


def headers(path: Path) -> dict[str, dict[str, Any]]:
    """The session header lines of a session file, by session id."""
    return {v["session"]["id"]: v["session"] for v in (json.loads(line) for line in path.read_text().splitlines()) if "session" in v}


def conversation(i: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]


def test_directory_of_examples_migrates_every_format(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = migrate(EXAMPLES, "-o", out)
    assert res.exit_code == 0, res.output
    files = sorted(EXAMPLES.glob("*.json"))
    assert f"migrated {len(files)} conversations" in res.output
    assert "0 rejected" in res.output
    envs = list(iter_jsonl(out, mode="strict"))  # valid canonical envelopes
    # ... written exactly as the codec writes them.
    for line in out.read_bytes().splitlines():
        if b'"session":' not in line[:64]:
            assert encode_envelope(decode_envelope(line)) == line
    by_session: dict[str, list[Any]] = {}
    for e in envs:
        by_session.setdefault(e.session_id, []).append(e)
    assert len(by_session) == len(files)
    # Each session holds exactly the items of the reader's transcript, in seq order.
    for f in files:
        m = read_any(json.loads(f.read_text()))
        got = by_session[m.session_id]
        assert [e.seq for e in got] == list(range(len(got)))
        assert [e.item for e in got] == list(m.transcript.items)
        # Tools, tool choice and settings ride on the session's header line.
        head = headers(out)[m.session_id]
        assert [t["name"] for t in head.get("tools", [])] == [t.name for t in (m.transcript.tools or [])]
    assert not (tmp_path / "out.rejects.jsonl").exists()
    assert validate(out).exit_code == 0


def test_rerun_gives_identical_output_and_the_same_sessions(tmp_path: Path) -> None:
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert migrate(EXAMPLES, "-o", out1).exit_code == 0
    assert migrate(EXAMPLES, "-o", out2).exit_code == 0
    assert out1.read_bytes() == out2.read_bytes()
    # Re-running into the same file replaces it: no session appears twice.
    assert migrate(EXAMPLES, "-o", out1).exit_code == 0
    assert out1.read_bytes() == out2.read_bytes()


def test_corrupt_lines_go_to_the_reject_file_exactly(tmp_path: Path) -> None:
    src = tmp_path / "history.jsonl"
    lines = [json.dumps(conversation(i)) for i in range(20)]
    bad = {
        4: '[{"role": "user", "content": "cut off here',
        9: "not json at all",
        13: json.dumps([{"role": "user", "content": "no format"}, 42]),  # valid JSON, unreadable record
        17: json.dumps({"schema_version": "9.0", "items": []}),  # a newer major: refused
    }
    for n, text in bad.items():
        lines[n] = text
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    res = migrate(src, "-o", out)
    assert res.exit_code == 1, res.output
    assert "migrated 16 conversations (32 items)" in res.output and "4 rejected" in res.output
    rejects = envelopes(tmp_path / "out.rejects.jsonl")
    assert [(r["line"], r["record"]) for r in rejects] == [(n + 1, text) for n, text in sorted(bad.items())]
    assert all(r["source"] == str(src) and r["reason"] for r in rejects)
    assert "not JSON" in rejects[0]["reason"] and "newer" in rejects[3]["reason"]
    assert len({e["session_id"] for e in envelopes(out)}) == 16


def test_fail_fast_stops_at_the_first_reject(tmp_path: Path) -> None:
    src = tmp_path / "h.jsonl"
    src.write_text("\n".join([json.dumps(conversation(0)), "{broken", json.dumps(conversation(2))]) + "\n")
    out = tmp_path / "out.jsonl"
    res = migrate(src, "-o", out, "--fail-fast")
    assert res.exit_code == 1
    assert "h.jsonl:2" in res.output and "--fail-fast" in res.output
    assert len({e["session_id"] for e in envelopes(out)}) == 1  # what came before is kept


def test_jsonl_with_one_message_a_line_is_one_conversation(tmp_path: Path) -> None:
    src = tmp_path / "chat.jsonl"
    msgs = json.loads((EXAMPLES / "langchain.json").read_text())
    src.write_text("".join(json.dumps(m) + "\n" for m in msgs))
    out = tmp_path / "out.jsonl"
    assert migrate(src, "-o", out, "--from", "langchain").exit_code == 0
    m = read_any(msgs)
    got = envelopes(out)
    assert {e["session_id"] for e in got} == {m.session_id}
    assert len(got) == len(m.transcript.items)


def test_interlingua_envelopes_keep_their_session(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    assert migrate(EXAMPLES / "openai_chat.json", "-o", first).exit_code == 0
    second = tmp_path / "second.jsonl"
    assert migrate(first, "-o", second).exit_code == 0
    assert second.read_bytes() == first.read_bytes()


def test_warnings_are_printed_and_counted(tmp_path: Path) -> None:
    res = migrate(EXAMPLES / "openai_chat_legacy.json", "-o", tmp_path / "o.jsonl")
    assert res.exit_code == 0
    assert "warning: " in res.output and "deprecated function_call" in res.output
    # 5 from the mapper; the tool definitions are carried by the session header.
    assert "5 warnings" in res.output and "tool definition" not in res.output


def test_explicit_wrong_format_rejects_the_record(tmp_path: Path) -> None:
    res = migrate(EXAMPLES / "gemini.json", "-o", tmp_path / "o.jsonl", "--from", "pydantic-ai")
    assert res.exit_code == 1
    reject = envelopes(tmp_path / "o.rejects.jsonl")[0]
    assert reject["line"] is None and "pydantic-ai" in reject["reason"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "-o", "o.jsonl"], "no such file"),
        (["EX", "-o", "o.jsonl", "--from", "klingon"], "unknown format 'klingon'"),
        (["EX"], "exactly one of -o"),
        (["EX", "-o", "o.jsonl", "--store", "sqlite:///x.db"], "exactly one of -o"),
        (["EX", "-o", "no/such/dir/o.jsonl"], "cannot write"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    res = migrate(*[str(EXAMPLES / "openai_chat.json") if a == "EX" else a for a in args])
    assert res.exit_code == 2
    assert message in res.output


# ----------------------------------------------------------------- scale


_MEASURE = textwrap.dedent(
    """
    import resource, sys
    from interlingua.cli import app
    try:
        app(["migrate", sys.argv[1], "-o", sys.argv[2], "--progress"])
    except SystemExit as exc:
        code = exc.code
    print("RESULT", code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
    """
)


def _run_measured(src: Path, out: Path) -> tuple[int, int, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100"}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(src), str(out)], capture_output=True, text=True, env=env, timeout=300)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("RESULT"))
    _, code, rss_kib = line.split()
    return int(code), int(rss_kib), proc.stderr


def _write_conversations(path: Path, n: int) -> None:
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(json.dumps(conversation(i)) + "\n")


def test_100k_conversations_in_bounded_memory_with_progress(tmp_path: Path) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _write_conversations(small, 10_000)
    _write_conversations(large, 100_000)
    code_s, rss_s, _ = _run_measured(small, tmp_path / "small.out.jsonl")
    code_l, rss_l, err = _run_measured(large, tmp_path / "large.out.jsonl")
    assert code_s == code_l == 0, err
    assert "migrated 100000 conversations (200000 items)" in err
    assert "migrating" in err  # the progress bar was drawn
    # Ten times the input (about 9 MB more) costs no more than a few MB of peak memory.
    assert rss_l - rss_s < 8 * 1024, (rss_s, rss_l)
    with open(tmp_path / "large.out.jsonl", "rb") as fh:
        assert sum(1 for _ in fh) == 300_000  # a header line and two envelopes per session


# ----------------------------------------------------------------- --store


class _FakeStore:
    """The SessionStore calls migrate makes (API of the store branch), kept in memory."""

    sessions: dict[str, dict[str, Any]] = {}

    @classmethod
    async def open(cls, url: str) -> _FakeStore:
        if url == "bad://":
            from interlingua.errors import StoreError

            raise StoreError("unsupported URL")
        return cls()

    async def create_session(self, metadata: Any = None, *, session_id: str, tools: Any = None, tool_choice: Any = None, settings: Any = None) -> str:
        self.sessions.setdefault(session_id, {"items": [], "tools": tools, "tool_choice": tool_choice, "metadata": metadata})
        return session_id

    async def add_session(self, session_id: str, items: list[Any], *, metadata: Any = None, tools: Any = None, tool_choice: Any = None, settings: Any = None, usage: Any = None, stop_reason: Any = None) -> bool:
        if session_id in self.sessions:
            return False
        self.sessions[session_id] = {"items": list(items), "tools": tools, "tool_choice": tool_choice, "metadata": metadata}
        return True

    async def add_sessions(self, sessions: list[Any]) -> list[bool]:
        return [
            await self.add_session(s.session_id, s.items, metadata=s.metadata, tools=s.tools, tool_choice=s.tool_choice, settings=s.settings)
            for s in sessions
        ]

    async def append(self, session_id: str, items: list[Any], expected_seq: int | None = None, *, usage: Any = None, stop_reason: Any = None) -> int:
        from interlingua.errors import ConflictError

        have = self.sessions[session_id]["items"]
        if expected_seq is not None and expected_seq != len(have) - 1:
            raise ConflictError(session_id, expected_seq, len(have) - 1)
        have.extend(items)
        return len(have) - 1

    async def close(self) -> None:
        pass


@pytest.fixture
def fake_store(monkeypatch: pytest.MonkeyPatch) -> type[_FakeStore]:
    import types

    from interlingua.errors import ConflictError

    module = types.ModuleType("interlingua.store")
    module.SessionStore = _FakeStore  # type: ignore[attr-defined]
    from interlingua.store import NewSession

    module.NewSession = NewSession  # type: ignore[attr-defined]
    module.ConflictError = ConflictError  # type: ignore[attr-defined]
    _FakeStore.sessions = {}
    monkeypatch.setitem(sys.modules, "interlingua.store", module)
    return _FakeStore


def test_store_rerun_does_not_duplicate_sessions(fake_store: type[_FakeStore], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = migrate(EXAMPLES, "--store", "sqlite+aiosqlite:///x.db")
    assert res.exit_code == 0, res.output
    n = len(list(EXAMPLES.glob("*.json")))
    assert f"migrated {n} conversations" in res.output and "0 already in the store" in res.output
    first = {k: list(v["items"]) for k, v in fake_store.sessions.items()}
    assert len(first) == n
    # Tools travel with the session in the store (not reported as dropped).
    anthropic = read_any(json.loads((EXAMPLES / "anthropic.json").read_text()))
    assert [t.name for t in fake_store.sessions[anthropic.session_id]["tools"]] == ["get_stock_price"]
    assert fake_store.sessions[anthropic.session_id]["items"] == list(anthropic.transcript.items)
    res = migrate(EXAMPLES, "--store", "sqlite+aiosqlite:///x.db")
    assert res.exit_code == 0
    assert "migrated 0 conversations (0 items)" in res.output and f"{n} already in the store" in res.output
    assert {k: v["items"] for k, v in fake_store.sessions.items()} == first


def test_store_that_cannot_be_opened_exits_2(fake_store: type[_FakeStore]) -> None:
    res = migrate(EXAMPLES, "--store", "bad://")
    assert res.exit_code == 2 and "cannot open the store" in res.output


def test_store_unavailable_in_this_build_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "interlingua.store", None)  # import fails
    res = migrate(EXAMPLES, "--store", "sqlite+aiosqlite:///x.db")
    assert res.exit_code == 2 and "not available in this build" in res.output


def test_scalar_lines_are_rejected_and_stale_rejects_removed(tmp_path: Path) -> None:
    src = tmp_path / "h.jsonl"
    src.write_text(json.dumps(conversation(0)) + "\n42\n")
    out = tmp_path / "out.jsonl"
    assert migrate(src, "-o", out).exit_code == 1
    rejects = tmp_path / "out.rejects.jsonl"
    assert [r["record"] for r in envelopes(rejects)] == ["42"]
    src.write_text(json.dumps(conversation(0)) + "\n")
    assert migrate(src, "-o", out).exit_code == 0
    assert not rejects.exists()


def test_help_lists_the_contract() -> None:
    res = runner.invoke(app, ["migrate", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    for flag in ("--from", "-o", "--store", "--rejects", "--fail-fast", "--progress"):
        assert flag in res.output


def test_transcript_usage_and_stop_reason_ride_on_the_last_envelope(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps({
        "schema_version": "1.0",
        "items": [{"type": "text", "role": "user", "text": "hi"}, {"type": "text", "role": "assistant", "text": "hello"}],
        "usage": {"input_tokens": 3, "output_tokens": 1},
        "stop_reason": {"reason": "end_turn", "raw": "stop"},
    }))
    out = tmp_path / "out.jsonl"
    assert migrate(doc, "-o", out).exit_code == 0
    envs = list(iter_jsonl(out, mode="strict"))
    assert envs[0].usage is msgspec.UNSET
    assert envs[1].usage.input_tokens == 3 and envs[1].stop_reason.reason == "end_turn"


def test_output_inside_an_input_directory_is_not_read_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLES, data)
    out = data / "out.jsonl"
    assert migrate(data, "-o", out).exit_code == 0
    first = out.read_bytes()
    assert migrate(data, "-o", out).exit_code == 0
    assert out.read_bytes() == first


def test_json_file_with_a_list_of_conversations(tmp_path: Path) -> None:
    src = tmp_path / "many.json"
    src.write_text(json.dumps([conversation(0), {"messages": conversation(1)}, {"schema_version": "1.0", "items": []}]))
    out = tmp_path / "out.jsonl"
    res = migrate(src, "-o", out)
    assert res.exit_code == 0 and "migrated 3 conversations (4 items)" in res.output


# ----------------------------------------------------------------- the real session store


def test_real_store_rerun_adds_nothing_and_export_migrates_back(tmp_path: Path) -> None:
    import asyncio

    from interlingua.store import SessionStore

    url = f"sqlite+aiosqlite:///{tmp_path / 'chats.sqlite3'}"
    n = len(list(EXAMPLES.glob("*.json")))
    res = migrate(EXAMPLES, "--store", url, "--rejects", tmp_path / "r.jsonl")
    assert res.exit_code == 0, res.output
    assert f"migrated {n} conversations" in res.output
    res = migrate(EXAMPLES, "--store", url, "--rejects", tmp_path / "r.jsonl")
    assert res.exit_code == 0 and "migrated 0 conversations" in res.output and f"{n} already in the store" in res.output

    anthropic = read_any(json.loads((EXAMPLES / "anthropic.json").read_text()))
    export = tmp_path / "export.jsonl"

    async def check() -> None:
        store = await SessionStore.open(url)
        try:
            sessions = await store.list_sessions(limit=1000)
            assert len(sessions) == n
            loaded = await store.load(anthropic.session_id)
            assert list(loaded.items) == list(anthropic.transcript.items)
            assert [t.name for t in loaded.tools] == ["get_stock_price"]
            await store.export_jsonl(anthropic.session_id, export)  # with its header line
        finally:
            await store.close()

    asyncio.run(check())
    # A store export (header + envelopes) migrates back to the same session, tools included.
    back = tmp_path / "back.jsonl"
    res = migrate(export, "-o", back)
    assert res.exit_code == 0, res.output
    got = envelopes(back)
    assert {e["session_id"] for e in got} == {anthropic.session_id}
    assert len(got) == len(anthropic.transcript.items)
    assert [t["name"] for t in headers(back)[anthropic.session_id]["tools"]] == ["get_stock_price"]  # the header's tools were read


def test_equal_conversations_are_two_sessions_and_the_output_validates(tmp_path: Path) -> None:
    """Two identical conversations in one input used to share a content id: seq 0 twice, invalid output."""
    src = tmp_path / "dupes.json"
    src.write_text(json.dumps([conversation(1), conversation(2), conversation(1)]))
    out = tmp_path / "out.jsonl"
    assert migrate(src, "-o", out).exit_code == 0
    ids = list(headers(out))
    assert len(ids) == 3 and len(set(ids)) == 3
    assert validate(out).exit_code == 0
    # Re-running gives the same ids (nothing is duplicated on re-import).
    again = tmp_path / "again.jsonl"
    assert migrate(src, "-o", again).exit_code == 0
    assert list(headers(again)) == ids


def test_stale_temporary_files_of_killed_runs_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".out.jsonl.{dead}.abcd1234.tmp"
    stale.write_bytes(b"partial")
    res = migrate(EXAMPLES, "-o", out)
    assert res.exit_code == 0 and not stale.exists() and "removed" in res.output
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_killed_migrate_leaves_no_temporary_file_and_keeps_the_old_output(tmp_path: Path) -> None:
    """SIGTERM mid-run: the old output stays, the temporary file is gone. SIGKILL: the next run cleans up."""
    import signal
    import time

    src = tmp_path / "big.jsonl"
    src.write_text("\n".join(json.dumps(conversation(i)) for i in range(40_000)) + "\n")
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old output\n")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        proc = subprocess.Popen([sys.executable, "-c", "from interlingua.cli import main; main()", "migrate", str(src), "-o", str(out)], stderr=subprocess.PIPE)
        for _ in range(400):  # until its temporary file exists
            if any(p.name.endswith(".tmp") for p in tmp_path.iterdir()) or proc.poll() is not None:
                break
            time.sleep(0.01)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert out.read_bytes() == b"old output\n" or proc.returncode == 0
        if sig == signal.SIGTERM:
            assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == [], (proc.returncode, err[-2000:])
    assert migrate(src, "-o", out, "--no-progress").exit_code == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


REAL_RESPONSE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.response.json"


@pytest.mark.parametrize("case", ["every record rejected", "a real response body, not a conversation", "no record at all"])
def test_nothing_migrated_writes_nothing_and_exits_1(tmp_path: Path, case: str) -> None:
    """A session file with no session fails validate and store import: migrate must not write one, and an
    existing output stays as it was (found by a new user: a 0-byte OUT.jsonl after `migrate` of a response)."""
    src = tmp_path / "in"
    src.mkdir()
    if case == "every record rejected":
        (src / "garbage.json").write_text("{not json")
    elif case == "a real response body, not a conversation":
        (src / "r.json").write_bytes(REAL_RESPONSE.read_bytes())
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old output\n")
    args = [src, "-o", out, "--no-progress"] + (["--from", "anthropic"] if "response" in case else [])
    res = migrate(*args)
    assert res.exit_code == 1, res.output
    assert "nothing written to" in res.stderr
    assert out.read_bytes() == b"old output\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    fresh = tmp_path / "fresh.jsonl"
    assert migrate(*[a if a != out else fresh for a in args]).exit_code == 1
    assert not fresh.exists()
