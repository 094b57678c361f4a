"""`interlingua store ...` commands and their exit codes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.items import TextItem, ToolCallItem, Usage
from interlingua.store import SessionStore

runner = CliRunner()


def _seed(url: str) -> str:
    async def body() -> str:
        store = await SessionStore.open(url)
        try:
            sid = await store.create_session({"who": "cli"}, session_id="sess-1")
            await store.append(sid, [TextItem(role="user", text="hello there"), ToolCallItem(id="c1", name="f", arguments={"a": 1})], usage=Usage(input_tokens=4, output_tokens=2))
            return sid
        finally:
            await store.close()

    return asyncio.run(body())


def test_export_import_list_show(sqlite_url: str, tmp_path: Path) -> None:
    sid = _seed(sqlite_url)
    out = runner.invoke(app, ["store", "export", "--url", sqlite_url, sid])
    assert out.exit_code == 0, out.output
    lines = out.stdout_bytes.splitlines()
    assert json.loads(lines[0])["session"]["metadata"] == {"who": "cli"}
    assert [json.loads(l)["seq"] for l in lines[1:]] == [0, 1]
    f = tmp_path / "s.jsonl"
    assert runner.invoke(app, ["store", "export", "--url", sqlite_url, sid, "-o", str(f)]).exit_code == 0
    assert f.read_bytes() == out.stdout_bytes

    other = f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}"
    assert runner.invoke(app, ["store", "upgrade", "--url", other]).exit_code == 0
    imp = runner.invoke(app, ["store", "import", "--url", other, str(f)])
    assert imp.exit_code == 0, imp.output
    new_id = imp.stdout.strip()
    assert new_id == sid  # the file's id is kept
    again = runner.invoke(app, ["store", "import", "--url", other, str(f)])
    assert again.exit_code == 0 and again.stdout.strip() == sid and "unchanged" in again.stderr
    third = f"sqlite+aiosqlite:///{tmp_path / 'third.sqlite3'}"
    copies = [runner.invoke(app, ["store", "import", "--url", third, str(f), "--new-id"]) for _ in range(2)]
    assert all(c.exit_code == 0 for c in copies) and len({c.stdout.strip() for c in copies} - {"", sid}) == 2

    lst = runner.invoke(app, ["store", "list", "--url", other, "--json"])
    assert lst.exit_code == 0
    assert [json.loads(l)["id"] for l in lst.stdout.splitlines()] == [new_id]
    table = runner.invoke(app, ["store", "list", "--url", other], env={"COLUMNS": "200"})
    assert new_id in table.stdout

    show = runner.invoke(app, ["store", "show", "--url", other, new_id], env={"COLUMNS": "200"})
    assert show.exit_code == 0, show.output
    assert "hello there" in show.stdout and "tool_call" in show.stdout and "in=4 out=2" in show.stdout and 'metadata: {"who": "cli"}' in show.stdout

    plain = runner.invoke(app, ["store", "export", "--url", other, new_id, "--no-header"])
    assert [json.loads(l)["seq"] for l in plain.stdout_bytes.splitlines()] == [0, 1]


def test_exit_codes(sqlite_url: str, tmp_path: Path) -> None:
    _seed(sqlite_url)
    assert runner.invoke(app, ["store", "show", "--url", sqlite_url, "nope"]).exit_code == 1
    assert runner.invoke(app, ["store", "export", "--url", sqlite_url, "nope"]).exit_code == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version":"1.0","session_id":"s","seq":3,"item":{"type":"text","text":"x","role":"user"}}\n')
    r = runner.invoke(app, ["store", "import", "--url", sqlite_url, str(bad)])
    assert r.exit_code == 1 and "bad.jsonl:1" in r.stderr and "seq" in r.stderr
    assert runner.invoke(app, ["store", "import", "--url", sqlite_url, str(tmp_path / "missing.jsonl")]).exit_code == 2
    # A database without the schema: exit 2 naming the command.
    empty = f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
    r = runner.invoke(app, ["store", "list", "--url", empty])
    assert r.exit_code == 2 and "no database file" in r.stderr and not (tmp_path / "empty.sqlite3").exists()
    (tmp_path / "empty.sqlite3").write_bytes(b"")  # exists, holds no schema
    r = runner.invoke(app, ["store", "list", "--url", empty])
    assert r.exit_code == 2 and "interlingua store upgrade" in r.stderr
    r = runner.invoke(app, ["store", "list", "--url", "mysql://u@h/d"])
    assert r.exit_code == 2 and "unsupported" in r.stderr
    assert runner.invoke(app, ["store", "bogus"]).exit_code == 2


def test_show_reports_quarantined_rows(sqlite_url: str) -> None:
    import sqlalchemy as sa

    from interlingua.store._engine import JsonText
    from interlingua.store._schema import ITEMS

    sid = _seed(sqlite_url)

    async def corrupt() -> None:
        store = await SessionStore.open(sqlite_url)
        async with store.engine.begin() as conn:
            await conn.execute(sa.update(ITEMS).where(ITEMS.c.seq == 1).values(item=JsonText('{"type":"tool_call"}'), raw_json='{"type":"tool_call"}'))
        await store.close()

    asyncio.run(corrupt())
    r = runner.invoke(app, ["store", "show", "--url", sqlite_url, sid], env={"COLUMNS": "200"})
    assert r.exit_code == 1
    assert "hello there" in r.stdout and "1 quarantined row" in r.stdout and "seq 1:" in r.stdout


def test_import_creates_a_missing_sqlite_file(sqlite_url: str, tmp_path: Path) -> None:
    sid = _seed(sqlite_url)
    f = tmp_path / "s.jsonl"
    assert runner.invoke(app, ["store", "export", "--url", sqlite_url, sid, "-o", str(f)]).exit_code == 0
    fresh = tmp_path / "fresh.sqlite3"
    r = runner.invoke(app, ["store", "import", "--url", str(fresh), str(f)])
    assert r.exit_code == 0, r.output
    new_id = r.stdout.strip()
    shown = runner.invoke(app, ["store", "list", "--url", str(fresh), "--json"])
    assert shown.exit_code == 0 and new_id in shown.stdout
