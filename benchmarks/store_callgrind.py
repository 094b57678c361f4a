"""Instruction counts of row (7)'s bulk append, for callgrind (which the load of a shared machine does not change).

One round = the dataset's items (``peers=False``) appended to a fresh session in batches of 100 by
``MODE``: ``store`` (``SessionStore.append`` on SQLite, the aiosqlite worker thread included), ``json``
or ``msgspec`` (the two raw sqlite3 floors of ``run.py``). After one warm-up round it runs ``ROUNDS``
rounds, so the cost of one round is the difference of two runs divided by their difference in rounds::

    valgrind --tool=callgrind --callgrind-out-file=s1.out python benchmarks/store_callgrind.py store 1
    valgrind --tool=callgrind --callgrind-out-file=s3.out python benchmarks/store_callgrind.py store 3
    # per round = (Ir of s3 - Ir of s1) / 2; callgrind_annotate on both for the functions
"""
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import dataset as D  # noqa: E402
from interlingua.codec import to_builtins  # noqa: E402

items = [e.item for e in D.build(300, 20260101, peers=False).envelopes]
mode, rounds = sys.argv[1], int(sys.argv[2])
tmp = tempfile.mkdtemp(prefix="store-callgrind-")
if mode == "store":
    from interlingua.store import SessionStore

    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    store = run(SessionStore.open(f"sqlite+aiosqlite:///{tmp}/s.sqlite3", create=True))

    async def bulk(sid: str) -> None:
        seq = -1
        for k in range(0, len(items), 100):
            seq = await store.append(sid, items[k : k + 100], expected_seq=seq)

    def one() -> None:
        run(bulk(run(store.create_session())))
else:
    import run as R

    fl = R._Sqlite3Floor(Path(tmp) / "f.sqlite3", mode)
    src = [to_builtins(it) for it in items] if mode == "json" else items
    n = [0]

    def one() -> None:
        n[0] += 1
        sid = f"s-{n[0]}"
        fl.create([sid])
        for k in range(0, len(src), 100):
            fl.append(sid, src[k : k + 100])


one()
for _ in range(rounds):
    one()
