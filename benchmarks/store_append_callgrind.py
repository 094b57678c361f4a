"""Instruction counts of row (15): 10,000 items appended in one call, for callgrind.

Callgrind counts every thread of the process (the caller's and aiosqlite's or ``asyncio.to_thread``'s
worker), and its counts do not depend on the load of a shared machine. One round = the row's 10,000
items (the benchmark dataset's items, repeated) appended to a fresh session by ``MODE``:

* ``store``: ``SessionStore.append(sid, items)`` on SQLite (typed items, validated and encoded);
* ``sqlitesession``: the OpenAI Agents SDK's ``SQLiteSession.add_items`` of the same items as dicts
  (run it with an interpreter that has ``openai-agents``);
* ``prepare``: ``prepare_rows`` alone (the caller's thread of ``store``);
* ``insert``: the store's ``_append_sync`` alone, on a plain ``sqlite3`` connection with the store's
  pragmas, rows prepared outside the round (the database's thread of ``store``).

After one warm-up round it runs ``ROUNDS`` rounds, so one round costs the difference of two runs
divided by their difference in rounds::

    valgrind --tool=callgrind --callgrind-out-file=a1.out python benchmarks/store_append_callgrind.py store 1
    valgrind --tool=callgrind --callgrind-out-file=a3.out python benchmarks/store_append_callgrind.py store 3
    # per round = (Ir of a3 - Ir of a1) / 2

``measure MODE...`` does both runs for each mode and prints the per-round counts.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ITEMS = 10_000


def _items() -> list[Any]:
    sys.path.insert(0, str(HERE))
    import dataset as D

    items = [e.item for e in D.build(300, 20260101, peers=False).envelopes]
    while len(items) < ITEMS:
        items = items + items
    return items[:ITEMS]


def _round(mode: str, tmp: str) -> Callable[[], None]:
    items = _items()
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    n = [0]
    if mode == "sqlitesession":
        from agents.memory.sqlite_session import SQLiteSession  # type: ignore[import-not-found]

        from interlingua.codec import to_builtins

        dicts = [to_builtins(it) for it in items]

        def one() -> None:
            n[0] += 1
            run(SQLiteSession(f"s{n[0]}", f"{tmp}/agents.sqlite3").add_items(dicts))

        return one
    from interlingua.store import SessionStore

    store = run(SessionStore.open(f"sqlite+aiosqlite:///{tmp}/s.sqlite3", create=True))
    if mode == "store":
        return lambda: (run(store.append(run(store.create_session()), items)), None)[1]
    from interlingua.store import _rows

    if mode == "prepare":
        return lambda: (_rows.prepare_rows(items), None)[1]
    if mode == "insert":
        import sqlite3
        from datetime import UTC, datetime

        from interlingua.store import _driver as S

        procs = S._item_bind_processors(store.engine.dialect)
        rows = _rows.prepare_rows(items)
        sids = [run(store.create_session()) for _ in range(8)]
        run(store.close())
        db = sqlite3.connect(f"{tmp}/s.sqlite3", isolation_level=None)
        for p in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"):
            db.execute("PRAGMA " + p)
        now_v = procs[0](datetime.now(UTC))

        def one() -> None:
            S._append_sync(db, sids[n[0]], rows, None, now_v, procs)
            n[0] += 1

        return one
    raise SystemExit(f"unknown mode {mode!r}")


def measure(modes: list[str]) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for mode in modes:
        counts = []
        for rounds in (1, 3):
            with tempfile.TemporaryDirectory() as d:
                out = f"{d}/cg.out"
                subprocess.run(
                    ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, mode, str(rounds)],
                    env=env, check=True, capture_output=True,
                )
                text = Path(out).read_text(errors="replace")
                counts.append(int(re.search(r"^summary:\s+(\d+)", text, re.M).group(1)))  # type: ignore[union-attr]
        print(f"{mode}: {(counts[1] - counts[0]) / 2 / 1e6:.1f}M Ir per round", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "measure":
        measure(sys.argv[2:])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            one = _round(sys.argv[1], tmp)
            one()
            for _ in range(int(sys.argv[2])):
                one()
