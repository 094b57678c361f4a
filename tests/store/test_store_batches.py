"""Batched writes: ``add_sessions`` (the ``migrate --store`` path) and streamed ``import_sessions``.

A batch of sessions is one transaction of a few statements; a session file is imported a batch of
envelopes at a time inside one transaction per session, after a first pass has checked the whole
file, so a session of any size is imported in bounded memory and nothing is written when any line
of the file is bad. Every test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sqlalchemy as sa

from interlingua.codec import iter_jsonl
from interlingua.errors import DocumentError, SessionExistsError
from interlingua.items import Settings, TextItem, ToolCallItem, ToolDefinition, Usage
from interlingua.session_file import EnvelopeBatch, SessionEnd, SessionStart, header_bytes, iter_session_parts, read_sessions
from interlingua.store import NewSession, SessionStore

SRC = str(Path(__file__).resolve().parents[2] / "src")
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _session_file(path: Path, sessions: dict[str, int], *, header: bool = True) -> Path:
    """Short text items; ``sessions`` maps ids to their number of items."""
    with open(path, "wb") as fh:
        for sid, n in sessions.items():
            if header:
                fh.write(header_bytes(sid, metadata={"n": n}) + b"\n")
            for s in range(n):
                role = "user" if s % 2 == 0 else "assistant"
                fh.write(b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":{"type":"text","role":"%s","text":"%s %d"}}\n' % (sid.encode(), s, role.encode(), sid.encode(), s))
    return path


async def _count(store: SessionStore, table: str) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one())


# ----------------------------------------------------------------- add_sessions


async def test_add_sessions_writes_each_session_whole_and_skips_stored_ids(store: SessionStore) -> None:
    tools = [ToolDefinition(name="w", parameters={"type": "object", "properties": {"city": {"type": "string"}}})]
    a = [TextItem(role="user", text="weather?"), ToolCallItem(id="c1", name="w", arguments={"city": "Paris"})]
    flags = await store.add_sessions(
        [
            NewSession("a", a, metadata={"k": 1}, tools=tools, settings=Settings(temperature=0.5), usage=Usage(input_tokens=3)),
            NewSession("b", [TextItem(role="user", text="hi")]),
            NewSession("a", [TextItem(role="user", text="another a")]),  # same id later in the batch: skipped
            NewSession("empty", []),
        ]
    )
    assert flags == [True, True, False, True]
    loaded = await store.load("a")
    assert loaded.items == a and loaded.tools == tools and loaded.metadata == {"k": 1} and loaded.settings == Settings(temperature=0.5)
    envs = await store.load_envelopes("a")
    assert envs[-1].usage == Usage(input_tokens=3) and envs[0].usage is not envs[-1].usage
    assert (await store.head("empty")) == -1 and (await store.head("b")) == 0
    assert [c.changed for c in await store.changes("a")] == [{"metadata": {"k": 1}, "tools": tools, "settings": Settings(temperature=0.5)}]
    # Again: every id is stored now, nothing changes; a new id in the same batch is written.
    assert await store.add_sessions([NewSession("b", [TextItem(role="user", text="other")]), NewSession("c", a)]) == [False, True]
    assert (await store.load("b")).items == [TextItem(role="user", text="hi")]
    assert await _count(store, "interlingua_items") == 2 + 1 + 2


async def test_add_sessions_with_one_bad_session_writes_nothing(store: SessionStore) -> None:
    ok = NewSession("ok", [TextItem(role="user", text="fine")])
    with pytest.raises(DocumentError) as err:
        await store.add_sessions([ok, NewSession("bad", [TextItem(role="user", text="x"), ToolCallItem(id="c", name="f", arguments=float("nan"))])])  # type: ignore[arg-type]
    assert err.value.problems[0].pointer.startswith("/1/items/1")
    with pytest.raises(DocumentError) as err:
        await store.add_sessions([ok, NewSession("", [])])
    assert err.value.problems[0].pointer == "/1/session_id"
    assert await store.list_sessions() == []
    assert await _count(store, "interlingua_items") == 0


async def test_add_sessions_of_real_conversations_load_back_equal(store: SessionStore) -> None:
    from interlingua.mapping import get_mapper

    transcripts = [
        get_mapper(name).decode_request(json.loads(p.read_text())).value
        for folder, name in (("anthropic", "anthropic"), ("openai_chat", "openai-chat"), ("gemini", "gemini"))
        for p in sorted((REAL / folder).glob("*.request.json"))
    ]
    assert len(transcripts) >= 10
    news = [
        NewSession(f"s{n}", t.items, tools=t.tools or None, tool_choice=t.tool_choice or None, settings=t.settings or None)
        for n, t in enumerate(transcripts)
    ]
    assert await store.add_sessions(news) == [True] * len(news)
    for new, t in zip(news, transcripts):
        loaded = await store.load(new.session_id)
        assert (loaded.items, loaded.tools, loaded.tool_choice, loaded.settings) == (t.items, t.tools, t.tool_choice, t.settings)


# ----------------------------------------------------------------- streamed import


def test_session_parts_come_in_bounded_batches(tmp_path: Path) -> None:
    path = _session_file(tmp_path / "f.jsonl", {"one": 5, "two": 0, "three": 2})
    parts = list(iter_session_parts(path, batch=2))
    kinds = [(type(p).__name__, p.session_id, getattr(p, "first_seq", None), len(getattr(p, "envelopes", ())), getattr(p, "count", None)) for p in parts]
    assert kinds == [
        ("SessionStart", "one", None, 0, None),
        ("EnvelopeBatch", "one", 0, 2, None),
        ("EnvelopeBatch", "one", 2, 2, None),
        ("EnvelopeBatch", "one", 4, 1, None),
        ("SessionEnd", "one", None, 0, 5),
        ("SessionStart", "two", None, 0, None),
        ("SessionEnd", "two", None, 0, 0),
        ("SessionStart", "three", None, 0, None),
        ("EnvelopeBatch", "three", 0, 2, None),
        ("SessionEnd", "three", None, 0, 2),
    ]
    batch = parts[2]
    assert isinstance(batch, EnvelopeBatch) and batch.line_nos == [4, 5] and [e.seq for e in batch.envelopes] == [2, 3]
    assert isinstance(parts[0], SessionStart) and parts[0].header_line == 1 and isinstance(parts[4], SessionEnd)
    # read_sessions is the same reader, collected: the same envelopes as a plain envelope reader.
    blocks = list(read_sessions(path))
    assert [(b.session_id, len(b.envelopes)) for b in blocks] == [("one", 5), ("two", 0), ("three", 2)]
    assert [e for b in blocks for e in b.envelopes] == list(iter_jsonl(path))


def test_session_parts_raise_at_the_line_of_a_late_problem(tmp_path: Path) -> None:
    path = _session_file(tmp_path / "f.jsonl", {"one": 7})
    lines = path.read_bytes().splitlines(keepends=True)
    lines[6] = lines[6].replace(b'"seq":5', b'"seq":6')
    path.write_bytes(b"".join(lines))
    got = []
    with pytest.raises(DocumentError) as err:
        for part in iter_session_parts(path, batch=2):
            got.append(part)
    assert (err.value.problems[0].line, err.value.problems[0].pointer) == (7, "/seq")
    assert "expected seq 5" in str(err.value)
    assert sum(len(p.envelopes) for p in got if isinstance(p, EnvelopeBatch)) == 4  # streamed before the problem
    with pytest.raises(DocumentError):
        list(read_sessions(path))  # collected: no block at all


async def test_streamed_import_of_a_session_larger_than_a_batch(store: SessionStore, tmp_path: Path) -> None:
    path = _session_file(tmp_path / "big.jsonl", {"big": 4500, "small": 3})
    results = await store.import_sessions(path)
    assert [(r.session_id, r.status, r.items) for r in results] == [("big", "imported", 4500), ("small", "imported", 3)]
    envs = await store.load_envelopes("big")
    assert [e.seq for e in envs] == list(range(4500)) and envs[4499].item == TextItem(role="assistant", text="big 4499")
    assert (await store.get_session("big")).metadata == {"n": 4500}
    # The same file again is a no-op, compared a batch at a time.
    assert [r.status for r in await store.import_sessions(path)] == ["unchanged", "unchanged"]
    # One item changed past the first batches: refused, naming the seq; nothing else changes.
    other = tmp_path / "other.jsonl"
    other.write_bytes(path.read_bytes().replace(b'"text":"big 4321"', b'"text":"big 4321!"'))
    with pytest.raises(SessionExistsError, match="first difference at seq 4321"):
        await store.import_sessions(other)
    shorter = _session_file(tmp_path / "short.jsonl", {"big": 4499}, header=False)
    with pytest.raises(SessionExistsError, match="4500 stored, 4499 in the file"):
        await store.import_sessions(shorter)
    [copy] = await store.import_sessions(shorter, new_ids=True)
    assert copy.status == "imported" and await store.head(copy.session_id) == 4498
    assert await _count(store, "interlingua_items") == 4500 + 3 + 4499


async def test_a_bad_line_anywhere_in_the_file_writes_nothing(store: SessionStore, tmp_path: Path) -> None:
    path = _session_file(tmp_path / "f.jsonl", {"first": 3000, "second": 10})
    lines = path.read_bytes().splitlines(keepends=True)
    bad = 3000 + 2 + 5  # the 6th envelope of the second session
    lines[bad] = lines[bad].replace(b'"seq":5,', b'"seq":5,"created_at":"yesterday",')
    path.write_bytes(b"".join(lines))
    with pytest.raises(DocumentError) as err:
        await store.import_sessions(path)
    problem = err.value.problems[0]
    assert (problem.file, problem.line, problem.pointer) == (str(path), bad + 1, "/created_at")
    # More sessions than ids: refused before the first session is written.
    good = _session_file(tmp_path / "g.jsonl", {"x": 2, "y": 2})
    with pytest.raises(DocumentError, match="more than 1 session"):
        await store.import_sessions(good, session_ids=["only-one"])
    assert await store.list_sessions() == []
    assert await _count(store, "interlingua_items") == 0


_MEASURE = textwrap.dedent(
    """
    import asyncio, resource, sys
    from interlingua.store import SessionStore

    async def main():
        store = await SessionStore.open(sys.argv[2])
        [r] = await store.import_sessions(sys.argv[1])
        await store.close()
        print(r.items, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

    asyncio.run(main())
    """
)


def _import_measured(path: Path, url: str) -> tuple[int, int]:
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(path), url], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=600, check=True)
    items, rss = proc.stdout.split()
    return int(items), int(rss)


def test_import_memory_does_not_grow_with_the_session(tmp_path: Path) -> None:
    """Ten times the items in one session (about 10 MB more input) costs no more than a few MB of peak memory."""
    small = _session_file(tmp_path / "small.jsonl", {"s": 10_000})
    large = _session_file(tmp_path / "large.jsonl", {"s": 100_000})
    n_s, rss_s = _import_measured(small, f"sqlite+aiosqlite:///{tmp_path / 'a.sqlite3'}")
    n_l, rss_l = _import_measured(large, f"sqlite+aiosqlite:///{tmp_path / 'b.sqlite3'}")
    assert (n_s, n_l) == (10_000, 100_000)
    # Holding the whole session (as the import did before it streamed) took ~110 MB more here; streamed, ~8 MB.
    assert rss_l - rss_s < 24 * 1024, (rss_s, rss_l)


def test_head_constant_is_the_newest_migration_script() -> None:
    """Opening a store at head skips Alembic by comparing with ``HEAD``: it must be the scripts' head."""
    from interlingua.store._migrate import HEAD, head_revision

    assert head_revision() == HEAD
