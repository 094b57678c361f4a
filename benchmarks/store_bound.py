"""What bounds row (7)'s bulk append on SQLite: the database's own work for the store's rows.

One round = the dataset's items appended to one fresh session in batches of 100, rows already
prepared (no validation or encoding timed), synchronously on a plain ``sqlite3`` connection with
the store's pragmas: the store's own ``_append_sync`` on its schema (and two variants of it), against
the floor's statements on the floor's schema with the same JSON texts. CPU-time medians of
alternating rounds. Run: ``python benchmarks/store_bound.py [ROUNDS]``.
"""
import asyncio
import atexit
import shutil
import sqlite3
import statistics as st
import sys
import tempfile
import time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import dataset as D
from datetime import datetime, UTC
from interlingua.store import SessionStore, _rows
from interlingua.store import _driver as S
_TMP = tempfile.mkdtemp(prefix="store-bound-")
atexit.register(shutil.rmtree, _TMP, True)
_n = iter(range(1000))


def _dir() -> str:
    d = f"{_TMP}/{next(_n)}"
    __import__("os").mkdir(d)
    return d


ds = D.build(300, 20260101, peers=False)
items = [e.item for e in ds.envelopes]
batches = [items[k:k+100] for k in range(0, len(items), 100)]
prepared = [_rows.prepare_rows(b) for b in batches]
loop = asyncio.new_event_loop(); run = loop.run_until_complete
def store_db(drop_index):
    d = _dir()
    st_ = run(SessionStore.open(f"sqlite+aiosqlite:///{d}/s.sqlite3", create=True))
    procs = S._item_bind_processors(st_.engine.dialect)
    run(st_.close())
    db = sqlite3.connect(f"{d}/s.sqlite3", isolation_level=None)
    for p in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"): db.execute("PRAGMA " + p)
    if drop_index: db.execute("DROP INDEX ix_interlingua_items_session_id_call_id")
    return db, procs
A, procs = store_db(False); B, _ = store_db(True)
P, _ = store_db(True)
P.execute("CREATE INDEX ix_interlingua_items_session_id_call_id ON interlingua_items (session_id, call_id) WHERE call_id IS NOT NULL")
W, _ = store_db(False)
ddl = W.execute("SELECT sql FROM sqlite_master WHERE name = 'interlingua_items'").fetchone()[0]
W.execute("DROP TABLE interlingua_items")
W.execute(ddl + " WITHOUT ROWID")
W.execute("CREATE INDEX ix_interlingua_items_session_id_call_id ON interlingua_items (session_id, call_id)")
now_v = procs[0](datetime.now(UTC))
C = sqlite3.connect(_dir() + "/f.sqlite3", isolation_level=None)
for p in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"): C.execute("PRAGMA " + p)
C.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, head_seq INTEGER NOT NULL)")
C.execute("CREATE TABLE items (session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, type TEXT NOT NULL, created_at TEXT NOT NULL, item TEXT NOT NULL, PRIMARY KEY (session_id, seq))")
E = sqlite3.connect(_dir() + "/g.sqlite3", isolation_level=None)
for p in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"): E.execute("PRAGMA " + p)
E.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, head_seq INTEGER NOT NULL)")
E.execute("CREATE TABLE items (session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, type TEXT NOT NULL, created_at DATETIME NOT NULL, item JSON NOT NULL, PRIMARY KEY (session_id, seq))")
texts = [[(r.type, str(r.item)) for r in rows] for rows in prepared]
k = [0]
def ours(db):
    k[0] += 1; sid = f"ilb-session-{k[0]:08d}"
    db.execute(f"INSERT INTO interlingua_sessions (id, created_at, updated_at, head_seq) VALUES (?, ?, ?, -1)", (sid, now_v, now_v))
    a = time.process_time(); seq = -1
    for rows in prepared:
        seq, _ = S._append_sync(db, sid, rows, seq, now_v, procs)
    return time.process_time() - a
def floor(C=C):
    k[0] += 1; sid = f"flb-session-{k[0]:08d}"
    C.execute("INSERT INTO sessions VALUES (?, -1)", (sid,))
    a = time.process_time()
    for tx in texts:
        C.execute("BEGIN IMMEDIATE")
        (head,) = C.execute("UPDATE sessions SET head_seq = head_seq + ? WHERE id = ? RETURNING head_seq", (len(tx), sid)).fetchone()
        first = head - len(tx) + 1
        C.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?)", [(sid, first + j, t, now_v, e) for j, (t, e) in enumerate(tx)])
        C.execute("COMMIT")
    return time.process_time() - a
R = {"store schema (11 columns, PK + call_id index + FK)": [], "store schema without the call_id index": [], "store schema, call_id index partial (WHERE call_id IS NOT NULL)": [], "store schema, items WITHOUT ROWID (PK is the table)": [], "floor schema (5 columns, PK + FK), same texts": [], "floor schema, item JSON + created_at DATETIME (NUMERIC affinity)": []}
fs = [lambda: ours(A), lambda: ours(B), lambda: ours(P), lambda: ours(W), floor, lambda: floor(E)]
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 9):
    for (name, v), f in zip(R.items(), fs):
        v.append(f())
for name, v in R.items():
    print(f"{name:66s} median {st.median(v)*1e3:6.1f} ms  min {min(v)*1e3:6.1f} ms")
