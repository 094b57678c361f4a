"""Candidate item-table layouts and insert statements for row (15)'s append, in callgrind instructions.

Each variant is the database side of one ``SessionStore.append`` of the row's 10,000 items (rows
prepared by the store's ``prepare_rows`` outside the round): ``BEGIN IMMEDIATE``, the head
``UPDATE ... RETURNING``, the item inserts, ``COMMIT``, on a plain ``sqlite3`` connection with the
store's pragmas (WAL, ``synchronous = NORMAL``, ``foreign_keys = ON``), the items table created by
the variant's DDL. ``VARIANT`` is ``LAYOUT-INSERT``:

* layout ``rowid`` (revision 0004: a rowid table, its ``(session_id, seq)`` primary key index, the
  ``(session_id, call_id)`` index), ``partial`` (that index only where ``call_id IS NOT NULL``),
  ``noindex`` (no call-id index: the floor of any index choice), ``worowid`` (``WITHOUT ROWID``, full
  index), ``worowid_partial``;
* insert ``em`` (``executemany``, 8 values a row, as revision 0004's store binds them), ``multi``
  (multi-row ``INSERT ... VALUES`` of up to ``MULTI_ROWS`` rows, the session id, schema version and
  timestamp bound once per statement, 5 values a row), and either with ``_nofk`` (the per-row
  foreign-key look-up switched off for the append: the head UPDATE has just found the session row and
  holds the write lock).

One round costs the difference of a 2-round and a 1-round run (``PYTHONHASHSEED=0``); the rows are
prepared once, outside valgrind::

    python benchmarks/store_append_variants.py rows /tmp/rows.json
    STORE_APPEND_ROWS=/tmp/rows.json python benchmarks/store_append_variants.py measure rowid-em partial-em worowid-em
    python benchmarks/store_append_variants.py cpu rowid-em partial-em   # CPU medians, alternating (a quick screen)
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
MULTI_ROWS = 200

_ITEMS_DDL = (
    "CREATE TABLE interlingua_items (session_id VARCHAR(128) NOT NULL, seq BIGINT NOT NULL, schema_version VARCHAR(16) NOT NULL, "
    "type VARCHAR(64) NOT NULL, role VARCHAR(32), call_id VARCHAR, created_at DATETIME NOT NULL, item JSON NOT NULL, raw_json TEXT, "
    "usage JSON, stop_reason JSON, response JSON, CONSTRAINT pk_interlingua_items PRIMARY KEY (session_id, seq), "
    "FOREIGN KEY(session_id) REFERENCES interlingua_sessions (id) ON DELETE CASCADE){suffix}"
)
_SESSIONS_DDL = "CREATE TABLE interlingua_sessions (id VARCHAR(128) NOT NULL PRIMARY KEY, updated_at DATETIME NOT NULL, head_seq BIGINT NOT NULL)"
_INDEX = "CREATE INDEX ix_interlingua_items_session_id_call_id ON interlingua_items (session_id, call_id){where}"
_COLS = "session_id, seq, schema_version, type, role, call_id, created_at, item"
_EM_SQL = f"INSERT INTO interlingua_items ({_COLS}) VALUES (?, ?, ?, ?, NULLIF(?, 0), NULLIF(?, 0), ?, ?)"


def _db(path: str, layout: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    for p in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"):
        db.execute("PRAGMA " + p)
    db.execute(_SESSIONS_DDL)
    db.execute(_ITEMS_DDL.format(suffix=" WITHOUT ROWID" if layout.startswith("worowid") else ""))
    if layout != "noindex":
        db.execute(_INDEX.format(where=" WHERE call_id IS NOT NULL" if layout in ("partial", "worowid_partial") else ""))
    return db


class _Row(NamedTuple):
    schema_version: str
    type: str
    role: str | None
    call_id: str | None
    item: str


def _rows() -> list[_Row]:
    """The row (15) items as the store prepares them; read from ``$STORE_APPEND_ROWS`` when set (written
    by ``rows PATH``), so a callgrind run does not build the dataset under valgrind."""
    import msgspec

    cached = os.environ.get("STORE_APPEND_ROWS")
    if cached:
        return [_Row(*r) for r in msgspec.json.decode(Path(cached).read_bytes())]
    sys.path.insert(0, str(HERE))
    from store_append_callgrind import _items

    from interlingua.store._rows import prepare_rows

    return [_Row(r.schema_version, r.type, r.role, r.call_id, r.item) for r in prepare_rows(_items())]


def _multi_sql(n: int) -> str:
    rows = ", ".join(
        f"(?1, ?{k}, ?2, ?{k + 1}, NULLIF(?{k + 2}, 0), NULLIF(?{k + 3}, 0), ?3, ?{k + 4})" for k in range(4, 4 + 5 * n, 5)
    )
    return f"INSERT INTO interlingua_items ({_COLS}) VALUES {rows}"


def _round(variant: str, tmp: str) -> Any:
    layout, insert = variant.split("-", 1)
    nofk = insert.endswith("_nofk")
    insert = insert.removesuffix("_nofk")
    rows = _rows()
    now_v = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    db = _db(f"{tmp}/v.sqlite3", layout)
    n = [0]

    def one() -> None:
        n[0] += 1
        sid = f"session-{n[0]:04d}-5f0c1e2a9b7d4c3e8a6f"
        db.execute("INSERT INTO interlingua_sessions VALUES (?, ?, -1)", (sid, now_v))
        if nofk:
            db.execute("PRAGMA foreign_keys = OFF")
        db.execute("BEGIN IMMEDIATE")
        head = db.execute("UPDATE interlingua_sessions SET head_seq = head_seq + ?, updated_at = ? WHERE id = ? RETURNING head_seq", (len(rows), now_v, sid)).fetchall()[0][0]
        first = head - len(rows) + 1
        if insert == "em":
            db.executemany(_EM_SQL, [(sid, j, r.schema_version, r.type, r.role or 0, r.call_id or 0, now_v, r.item) for j, r in enumerate(rows, first)])
        elif insert == "multi":
            for start in range(0, len(rows), MULTI_ROWS):
                chunk = rows[start : start + MULTI_ROWS]
                params: list[Any] = [sid, rows[0].schema_version, now_v]
                for j, r in enumerate(chunk, first + start):
                    params += (j, r.type, r.role or 0, r.call_id or 0, r.item)
                db.execute(_multi_sql(len(chunk)), params)
        else:
            raise SystemExit(f"unknown insert {insert!r}")
        db.execute("COMMIT")
        if nofk:
            db.execute("PRAGMA foreign_keys = ON")

    return one


def measure(variants: list[str]) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for variant in variants:
        counts = []
        for rounds in (1, 2):
            with tempfile.TemporaryDirectory() as d:
                out = f"{d}/cg.out"
                subprocess.run(
                    ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, variant, str(rounds)],
                    env=env, check=True, capture_output=True,
                )
                counts.append(int(re.search(r"^summary:\s+(\d+)", Path(out).read_text(errors="replace"), re.M).group(1)))  # type: ignore[union-attr]
        print(f"{variant}: {(counts[1] - counts[0]) / 1e6:.1f}M Ir per round", flush=True)


def cpu(variants: list[str], rounds: int = 15) -> None:
    """CPU-time medians of alternating rounds in one process (load-dependent: a quick screen only)."""
    import statistics
    import time

    with tempfile.TemporaryDirectory() as tmp:
        ones = {}
        for v in variants:
            os.mkdir(f"{tmp}/{v}")
            ones[v] = _round(v, f"{tmp}/{v}")
            ones[v]()
        times: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(rounds):
            for v, one in ones.items():
                t = time.process_time()
                one()
                times[v].append(time.process_time() - t)
    base = statistics.median(times[variants[0]])
    for v in variants:
        m = statistics.median(times[v])
        print(f"{v}: {m * 1e3:.1f} ms CPU median ({base / m:.2f}x {variants[0]})", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "measure":
        measure(sys.argv[2:])
    elif sys.argv[1] == "rows":
        import msgspec

        Path(sys.argv[2]).write_bytes(msgspec.json.encode(_rows()))
    elif sys.argv[1] == "cpu":
        cpu(sys.argv[2:])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            one = _round(sys.argv[1], tmp)
            one()
            for _ in range(int(sys.argv[2])):
                one()
