"""``interlingua migrate --store`` writes batches of conversations, one transaction each, on SQLite and PostgreSQL.

A conversation the store refuses (PostgreSQL cannot store U+0000) sends its batch down the one-at-a-time
path: only that record is rejected, the others are stored; ``--fail-fast`` stops at it with what came
before stored and nothing after. Re-running adds nothing.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.store import SessionStore
from interlingua.store._schema import ITEMS

runner = CliRunner()


def _conversations(path: Path, n: int, *, nul_at: int | None = None) -> Path:
    with open(path, "w") as fh:
        for i in range(n):
            text = f"question {i}" + ("\u0000" if i == nul_at else "")
            body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": f"answer {i}"}]}
            fh.write(json.dumps(body) + "\n")
    return path


def _stored(url: str) -> dict[str, list[str]]:
    async def body() -> dict[str, list[str]]:
        store = await SessionStore.open(url)
        try:
            out: dict[str, list[str]] = {info.id: [] for info in await store.list_sessions(limit=10_000)}
            async with store.engine.connect() as conn:
                rows = await conn.execute(sa.select(ITEMS.c.session_id, ITEMS.c.item).order_by(ITEMS.c.session_id, ITEMS.c.seq))
                for sid, item in rows:
                    out[sid].append((json.loads(item) if isinstance(item, str) else item)["text"])
            return out
        finally:
            await store.close()

    return asyncio.run(body())


def test_batches_refused_records_and_reruns(db_url: str, backend: str, tmp_path: Path) -> None:
    src = _conversations(tmp_path / "in.jsonl", 620, nul_at=580)  # two batches: 500, then 120 (the one refused)
    rejects = tmp_path / "rejects.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--store", db_url, "--rejects", str(rejects)])
    stored = _stored(db_url)
    texts = sorted(t[0] for t in stored.values())
    if backend == "postgresql":
        assert res.exit_code == 1, res.output
        assert "migrated 619 conversations (1238 items)" in res.stderr and "1 rejected" in res.stderr
        [reject] = [json.loads(line) for line in rejects.read_text().splitlines()]
        assert reject["line"] == 581 and "U+0000" in reject["reason"]
        assert len(stored) == 619 and "question 580\x00" not in texts
    else:
        assert res.exit_code == 0, res.output
        assert len(stored) == 620 and "question 580\x00" in texts
    assert all(v == [v[0], "answer " + v[0].split()[1].rstrip("\x00")] for v in stored.values())
    again = runner.invoke(app, ["migrate", str(src), "--store", db_url, "--rejects", str(rejects)])
    assert "migrated 0 conversations (0 items)" in again.stderr and f"{len(stored)} already in the store" in again.stderr
    assert _stored(db_url) == stored


def test_fail_fast_stops_inside_a_batch(db_url: str, backend: str, tmp_path: Path) -> None:
    src = _conversations(tmp_path / "in.jsonl", 30, nul_at=10 if backend == "postgresql" else None)
    if backend == "sqlite":
        lines = src.read_text().splitlines()
        lines[10] = "not json"
        src.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, ["migrate", str(src), "--store", db_url, "--fail-fast", "--rejects", str(tmp_path / "r.jsonl")])
    assert res.exit_code == 1 and "stopped at the first reject" in res.stderr, res.output
    assert "in.jsonl:11" in res.stderr
    stored = _stored(db_url)
    assert sorted(int(v[0].split()[1]) for v in stored.values()) == list(range(10))  # the ten before it, nothing after
