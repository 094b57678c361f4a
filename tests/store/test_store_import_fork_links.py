"""``store import`` restores which session is a fork of which (issue 26): the header's ``parent_id`` and
``fork_seq`` (and ``created_at``) go back into the store, a parent is written before its forks whatever
the order of the file, and a fork whose parent is in neither the file nor the store is refused with
the file, line and field, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.errors import DocumentError
from interlingua.items import StopReason, TextItem, ToolDefinition, Usage
from interlingua.mapping import get_mapper
from interlingua.store import SessionStore

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
runner = CliRunner()


async def _source_store(tmp_path: Path) -> tuple[SessionStore, list[str]]:
    """A SQLite store holding a real conversation, a fork of it, a fork of that fork and an empty fork;
    returns it and the ids, parents after their forks (the order the file is written in)."""
    request = json.loads((REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json").read_text())
    transcript = get_mapper("anthropic").decode_request(request).value
    store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / 'source.sqlite3'}")
    tools = transcript.tools if transcript.tools is not msgspec.UNSET else None
    main = await store.create_session({"project": "family"}, tools=tools, session_id="main")
    await store.append(main, transcript.items, usage=Usage(input_tokens=500), stop_reason=StopReason(reason="tool_use", raw="tool_use"))
    child = await store.fork(main, 6, new_session_id="main@retry")
    await store.update_session(child, tools=[ToolDefinition(name="lookup", parameters={"type": "object"})])
    await store.append(child, [TextItem(role="user", text="Only Alice, please.")])
    grandchild = await store.fork(child, 7, new_session_id="main@retry@again")
    await store.append(grandchild, [TextItem(role="assistant", text="Alice is 34.")])
    empty = await store.fork(main, -1, new_session_id="main@empty")
    return store, [grandchild, empty, child, main]


async def _export_all(store: SessionStore, ids: list[str], path: Path) -> bytes:
    parts = []
    for sid in ids:
        one = path.with_name(f"{sid}.jsonl")
        await store.export_jsonl(sid, one)
        parts.append(one.read_bytes())
    path.write_bytes(b"".join(parts))
    return path.read_bytes()


async def test_export_import_export_keeps_forks(store: SessionStore, tmp_path: Path) -> None:
    source, ids = await _source_store(tmp_path)
    try:
        exported = await _export_all(source, ids, tmp_path / "all.jsonl")
        before = {i.id: (i.parent_id, i.fork_seq, i.created_at) for i in await source.list_sessions()}
    finally:
        await source.close()
    # forks stand before their parents in the file: the parents are written first all the same
    results = await store.import_sessions(tmp_path / "all.jsonl")
    assert [(r.session_id, r.status) for r in results] == [(i, "imported") for i in ids]
    after = {i.id: (i.parent_id, i.fork_seq, i.created_at) for i in await store.list_sessions()}
    assert after == before
    assert before["main@retry@again"][:2] == ("main@retry", 7) and before["main@empty"][:2] == ("main", -1)
    assert {i.id for i in await store.list_sessions(parent_id="main")} == {"main@retry", "main@empty"}
    assert await _export_all(store, ids, tmp_path / "again.jsonl") == exported
    # importing the file again changes nothing
    assert {r.status for r in await store.import_sessions(tmp_path / "all.jsonl")} == {"unchanged"}


async def test_new_ids_keep_the_links_between_the_copies(store: SessionStore, tmp_path: Path) -> None:
    source, ids = await _source_store(tmp_path)
    try:
        await _export_all(source, ids, tmp_path / "all.jsonl")
    finally:
        await source.close()
    results = await store.import_sessions(tmp_path / "all.jsonl", new_ids=True)
    new = {r.source_id: r.session_id for r in results}
    infos = {i.id: i for i in await store.list_sessions()}
    assert infos[new["main@retry@again"]].parent_id == new["main@retry"]
    assert infos[new["main@retry"]].parent_id == new["main"] and infos[new["main@retry"]].fork_seq == 6
    assert infos[new["main"]].parent_id is None


async def test_a_fork_of_a_stored_session_imports_alone(store: SessionStore, tmp_path: Path) -> None:
    source, ids = await _source_store(tmp_path)
    try:
        await _export_all(source, ["main"], tmp_path / "main.jsonl")
        await _export_all(source, ["main@retry"], tmp_path / "fork.jsonl")
    finally:
        await source.close()
    await store.import_sessions(tmp_path / "main.jsonl")
    (result,) = await store.import_sessions(tmp_path / "fork.jsonl")
    assert (await store.get_session(result.session_id)).parent_id == "main"


def _header(line: bytes, **changes: object) -> bytes:
    record = json.loads(line)
    record["session"].update(changes)
    return json.dumps(record, separators=(",", ":")).encode()


async def _fork_file(tmp_path: Path, **changes: object) -> Path:
    """The fork's own file (parent not in it), its header changed by ``changes``."""
    source, _ids = await _source_store(tmp_path)
    try:
        await _export_all(source, ["main@retry"], tmp_path / "fork.jsonl")
    finally:
        await source.close()
    path = tmp_path / "fork.jsonl"
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([_header(lines[0], **changes), *lines[1:]]) + b"\n")
    return path


async def test_a_fork_without_its_parent_is_refused_naming_file_and_line(store: SessionStore, tmp_path: Path) -> None:
    path = await _fork_file(tmp_path)
    with pytest.raises(DocumentError) as ei:
        await store.import_sessions(path)
    problem = ei.value.problems[0]
    assert (problem.file, problem.line, problem.pointer) == (str(path), 1, "/session/parent_id")
    assert "'main'" in problem.message and "neither in this file nor in the store" in problem.message
    assert await store.list_sessions() == []


@pytest.mark.parametrize(
    ("changes", "pointer", "words"),
    [
        ({"fork_seq": 99}, "/session/fork_seq", "beyond this session's own items"),
        ({"parent_id": "main@retry"}, "/session/parent_id", "names itself"),
    ],
    ids=["fork-seq-beyond-its-items", "its-own-parent"],
)
async def test_impossible_fork_links_are_refused(store: SessionStore, tmp_path: Path, changes: dict, pointer: str, words: str) -> None:
    path = await _fork_file(tmp_path, **changes)
    with pytest.raises(DocumentError) as ei:
        await store.import_sessions(path)
    problem = ei.value.problems[0]
    assert (problem.line, problem.pointer) == (1, pointer) and words in problem.message
    assert await store.list_sessions() == []


async def test_a_fork_beyond_its_stored_parent_and_a_cycle_are_refused(store: SessionStore, tmp_path: Path) -> None:
    source, _ids = await _source_store(tmp_path)
    try:
        await _export_all(source, ["main@retry", "main@retry@again"], tmp_path / "two.jsonl")
    finally:
        await source.close()
    path = tmp_path / "two.jsonl"
    lines = path.read_bytes().splitlines()
    # main@retry (header on line 1) now names its own fork as its parent: a cycle
    path.write_bytes(b"\n".join([_header(lines[0], parent_id="main@retry@again", fork_seq=0), *lines[1:]]) + b"\n")
    with pytest.raises(DocumentError, match="cycle of forks"):
        await store.import_sessions(path)
    assert await store.list_sessions() == []

    # a stored parent shorter than the fork says
    await store.create_session(session_id="main")
    await store.append("main", [TextItem(role="user", text="hi")])
    sub = tmp_path / "sub"
    sub.mkdir()
    fork = await _fork_file(sub)
    with pytest.raises(DocumentError, match=r"fork_seq 6 is beyond the items of the stored parent 'main' \(0\.\.0\)"):
        await store.import_sessions(fork)
    assert [i.id for i in await store.list_sessions()] == ["main"]


def test_cli_import_of_migrated_claude_code_branches_restores_the_forks(tmp_path: Path) -> None:
    """A real Claude Code log with a rewind (tests/fixtures/stores/claude-code, see its README):
    ``migrate -o`` writes the abandoned branch as a fork; ``store import`` of that file links it as
    ``migrate --store`` does; a file holding only the fork is refused with exit 1."""
    projects = tmp_path / "projects" / "-tmp"
    projects.mkdir(parents=True)
    shutil.copy(STORES / "claude-code" / "dag_compact_after_rewind.jsonl", projects / "s1.jsonl")
    out = tmp_path / "claude.jsonl"
    res = runner.invoke(app, ["migrate", str(projects.parent), "-o", str(out)])
    assert res.exit_code == 0, res.output
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.sqlite3'}"
    # the fork first in the file
    lines = out.read_bytes().splitlines(keepends=True)
    starts = [n for n, line in enumerate(lines) if line.startswith(b'{"schema_version":"1.0","session":')]
    blocks: list[bytes] = [b"".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)])]
    reordered = tmp_path / "reordered.jsonl"
    forks_first = [blk for blk in blocks if b"@" in blk.split(b"\n", 1)[0]] + [blk for blk in blocks if b"@" not in blk.split(b"\n", 1)[0]]
    reordered.write_bytes(b"".join(forks_first))
    res = runner.invoke(app, ["store", "import", "--url", url, str(reordered)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["store", "list", "--url", url, "--json"])
    listed = {r["id"]: (r["parent_id"], r["fork_seq"]) for r in map(json.loads, res.stdout.splitlines())}
    assert listed == {"s1": (None, None), "s1@b1a": ("s1", 1)}

    only_fork = tmp_path / "only_fork.jsonl"
    only_fork.write_bytes(next(b for b in blocks if b"s1@b1a" in b.split(b"\n", 1)[0]))
    res = runner.invoke(app, ["store", "import", "--url", f"sqlite+aiosqlite:///{tmp_path / 'd.sqlite3'}", str(only_fork)])
    assert res.exit_code == 1
    assert f"{only_fork}:1" in res.stderr and "/session/parent_id" in res.stderr and "neither in this file nor in the store" in res.stderr


async def test_pass_one_keeps_no_session_header(store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the passes each session is a row of the import's temporary table (its ids, header line,
    item count and fork link), not its header (metadata, tools, settings) nor a Python object: holding
    them took `store import` of a 1 GB file of 270,000 sessions past 250 MB (issue 32). The import
    still restores every header value and fork link (the test above compares the exports)."""
    from interlingua.store import _import_plan

    source, ids = await _source_store(tmp_path)
    try:
        await _export_all(source, ids, tmp_path / "all.jsonl")
    finally:
        await source.close()
    held: list[tuple[object, ...]] = []
    real = _import_plan.link_forks

    def spy(table: _import_plan.PlanTable, label: str | None) -> None:
        held.extend((row[1], row[4], parent, seq) for row, parent, seq in table.links())
        assert len(table) == 4 and [row[1] for row in table.rows()] == ids
        real(table, label)

    monkeypatch.setattr(_import_plan, "link_forks", spy)
    results = await store.import_sessions(tmp_path / "all.jsonl")
    assert len(results) == 4 and (results.imported, results.unchanged) == (4, 0)
    # the forks' links as the headers wrote them; the root's header has none
    assert held == [("main@retry@again", 9, "main@retry", 7), ("main@empty", 0, "main", -1), ("main@retry", 8, "main", 6)]
    info = {i.id: i for i in await store.list_sessions()}
    assert info["main@retry"].tools is not None and info["main@retry"].parent_id == "main"
