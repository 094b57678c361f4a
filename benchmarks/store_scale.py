"""Store scale: appends per second and latency with 1, 8 and 32 concurrent writers (issue 32).

Run: ``python benchmarks/store_scale.py [--pg URL] [--appends N] [--out FILE]``. Each writer is an
asyncio task; writers are spread over two processes (this machine has two cores), each process with
its own ``SessionStore`` (its own pool), as separate application processes would be. Two layouts:

- **many sessions**: each writer appends to its own session (blind appends);
- **one session**: every writer appends to one session head with ``expected_seq`` (optimistic
  concurrency): a ``ConflictError`` re-reads the head and tries again; attempts and conflicts are
  counted, and latency is per successful append.

Also measured, in the same run: the raw asyncpg floor (one ``INSERT ... RETURNING`` per append on a
plain table, one connection per writer), and the load of a 100,000-item session.
A benchmark, not a test: figures go to docs/store.md, never into assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
import uuid

from interlingua.errors import ConflictError
from interlingua.items import TextItem
from interlingua.store import SessionStore

PROCS = 2


async def _writer_many(store: SessionStore, n: int, lat: list[float]) -> tuple[int, int]:
    sid = await store.create_session(session_id=f"w-{uuid.uuid4()}")
    for i in range(n):
        t = time.perf_counter()
        await store.append(sid, [TextItem(role="user", text=f"message {i} " + "x" * 200)])
        lat.append(time.perf_counter() - t)
    return n, 0


async def _writer_one(store: SessionStore, sid: str, n: int, lat: list[float]) -> tuple[int, int]:
    attempts = conflicts = 0
    head = await store.head(sid)
    done = 0
    while done < n:
        t = time.perf_counter()
        attempts += 1
        try:
            head = await store.append(sid, [TextItem(role="user", text="y" * 200)], expected_seq=head)
            done += 1
            lat.append(time.perf_counter() - t)
        except ConflictError as exc:
            conflicts += 1
            head = exc.actual
    return attempts, conflicts


def _proc(url: str, layout: str, tasks: int, n: int, sid: str, q: mp.Queue, start: float) -> None:  # type: ignore[type-arg]
    async def main() -> None:
        store = await SessionStore.open(url, pool_size=max(5, tasks), max_overflow=0)
        lat: list[float] = []
        while time.time() < start:
            await asyncio.sleep(0.001)
        if layout == "many":
            res = await asyncio.gather(*(_writer_many(store, n, lat) for _ in range(tasks)))
        else:
            res = await asyncio.gather(*(_writer_one(store, sid, n, lat) for _ in range(tasks)))
        await store.close()
        q.put((lat, sum(r[0] for r in res), sum(r[1] for r in res), time.time()))

    asyncio.run(main())


def run_layout(url: str, layout: str, writers: int, n: int) -> dict[str, float]:
    sid = ""
    if layout == "one":
        async def mk() -> str:
            s = await SessionStore.open(url)
            out = await s.create_session(session_id=f"one-{uuid.uuid4()}")
            await s.close()
            return out
        sid = asyncio.run(mk())
    procs = min(PROCS, writers)
    per = [writers // procs + (1 if i < writers % procs else 0) for i in range(procs)]
    q: mp.Queue = mp.Queue()  # type: ignore[type-arg]
    start = time.time() + 1.5
    ps = [mp.Process(target=_proc, args=(url, layout, t, n, sid, q, start)) for t in per]
    for p in ps:
        p.start()
    results = [q.get() for _ in ps]
    for p in ps:
        p.join()
    lat = sorted(x for r in results for x in r[0])
    end = max(r[3] for r in results)
    appends = len(lat)
    return {
        "appends": appends,
        "attempts": sum(r[1] for r in results),
        "conflicts": sum(r[2] for r in results),
        "per_s": appends / (end - start),
        "p50_ms": statistics.median(lat) * 1000,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
    }


def asyncpg_floor(url: str, writers: int, n: int) -> dict[str, float]:
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)

    async def main() -> list[float]:
        admin = await asyncpg.connect(dsn)
        await admin.execute("CREATE TABLE IF NOT EXISTS bench_floor (sid text, seq bigserial, body jsonb, PRIMARY KEY (sid, seq))")
        await admin.close()
        lat: list[float] = []

        async def w() -> None:
            c = await asyncpg.connect(dsn)
            sid = str(uuid.uuid4())
            for i in range(n):
                t = time.perf_counter()
                await c.fetchval("INSERT INTO bench_floor (sid, body) VALUES ($1, $2::jsonb) RETURNING seq", sid, '{"type":"text","text":"' + "x" * 200 + '"}')
                lat.append(time.perf_counter() - t)
            await c.close()

        t0 = time.perf_counter()
        await asyncio.gather(*(w() for _ in range(writers)))
        lat.append(-(time.perf_counter() - t0))
        return lat

    lat = asyncio.run(main())
    wall = -lat.pop()
    lat.sort()
    return {"appends": len(lat), "per_s": len(lat) / wall, "p50_ms": statistics.median(lat) * 1000, "p99_ms": lat[int(len(lat) * 0.99)] * 1000}


def load_100k(url: str) -> float:
    async def main() -> float:
        s = await SessionStore.open(url)
        sid = await s.create_session(session_id=f"big-{uuid.uuid4()}")
        batch = [TextItem(role="user", text=f"item {i}") for i in range(10_000)]
        for _ in range(10):
            await s.append(sid, batch)
        t = time.perf_counter()
        items = await s.load_envelopes(sid)
        took = time.perf_counter() - t
        assert len(items) == 100_000
        await s.close()
        return took

    return asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", default=os.environ.get("INTERLINGUA_TEST_PG_URL"), help="PostgreSQL URL (default $INTERLINGUA_TEST_PG_URL)")
    ap.add_argument("--appends", type=int, default=200, help="appends per writer, many-sessions layout")
    ap.add_argument("--one-appends", type=int, default=25, help="appends per writer, one-session layout")
    ap.add_argument("--writers", default="1,8,32")
    ap.add_argument("--backends", default="sqlite,postgresql")
    args = ap.parse_args()
    rows = []
    tmp = tempfile.mkdtemp()
    for backend in args.backends.split(","):
        if backend == "postgresql" and not args.pg:
            print("no --pg URL: PostgreSQL rows skipped", file=sys.stderr)
            continue
        url = args.pg if backend == "postgresql" else os.path.join(tmp, "scale.db")
        for layout in ("many", "one"):
            for w in (int(x) for x in args.writers.split(",")):
                n = args.appends if layout == "many" else args.one_appends
                r = run_layout(url, layout, w, n)
                rows.append((backend, layout, w, r))
                print(f"| {backend} | {layout} | {w} | {r['appends']} | {r['per_s']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['attempts']} / {r['conflicts']} |", flush=True)
        if backend == "postgresql":
            for w in (int(x) for x in args.writers.split(",")):
                f = asyncpg_floor(url, w, args.appends)
                print(f"| asyncpg floor | many | {w} | {f['appends']} | {f['per_s']:.0f} | {f['p50_ms']:.1f} | {f['p99_ms']:.1f} | - |", flush=True)
        print(f"load of a 100,000-item session ({backend}): {load_100k(url):.2f} s", flush=True)


if __name__ == "__main__":
    main()
