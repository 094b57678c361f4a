"""``store import``'s memory does not grow with the number of sessions in the file (issue 32: a 1 GB file
of 270,000 sessions peaked at 254 MB, one import plan and one result object per session, about 600
bytes each). A guard, not a timing: the tracemalloc peak of importing 10N small sessions exceeds that
of N by less than a bound far below what one object per session costs.

The pages of the import's table and the results held in memory are set small (as a file far larger
than them would see them), so both imports are past them and what remains is what grows per session.
Cyclic garbage (SQLAlchemy's statements) is collected every 32 sessions: Python collects it when it
reaches a share of the heap, whatever the number of sessions, and it would blur what is held.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from interlingua.session_file import header_bytes
from interlingua.store import SessionStore, _import_plan, _import_table

N = 150
"""Sessions in the smaller file; the larger holds 10N."""

BOUND = 300 * 1024
"""Bytes the peak may grow from N to 10N sessions: under 228 bytes per added session (measured with
the plans in a table: -0.1 to +0.1 MB, noise). One plan and one result object per session (before
issue 32) grew it by 688 bytes per session: +0.93 MB from 150 to 1,500 sessions."""


def _write(path: Path, sessions: int, prefix: str = "session") -> Path:
    """Small sessions, half with a header (metadata), half bare; two text items of 4 KB each (so that
    N sessions are more than the reader's 1 MB block, which both files then fill)."""
    text = b"x" * 4096
    with open(path, "wb") as fh:
        for n in range(sessions):
            sid = f"{prefix}-{n:07d}"
            if n % 2:
                fh.write(header_bytes(sid, metadata={"n": n}) + b"\n")
            for s in range(2):
                fh.write(b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":{"type":"text","role":"user","text":"%s"}}\n' % (sid.encode(), s, text))
    return path


async def _peak(tmp_path: Path, sessions: int) -> tuple[int, int]:
    """(tracemalloc peak bytes of one import of ``sessions`` sessions, number of results read back)."""
    path = _write(tmp_path / f"f{sessions}.jsonl", sessions)
    store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / f's{sessions}.sqlite3'}", create=True)
    try:
        await store.import_sessions(_write(tmp_path / f"warm{sessions}.jsonl", 3, prefix="warm"))  # one-time caches (statements, imports)
        tracemalloc.start()
        try:
            results = await store.import_sessions(path)
            count = sum(1 for r in results if r.status == "imported")  # iterating reads the table a page at a time
            results.close()
            return tracemalloc.get_traced_memory()[1], count
        finally:
            tracemalloc.stop()
    finally:
        await store.close()


def test_import_peak_does_not_grow_with_the_number_of_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_import_table, "PAGE", 32)
    monkeypatch.setattr(_import_table, "KEEP", 32)
    written = 0
    real = _import_plan._import_streamed

    async def collecting(*args: Any) -> Any:
        nonlocal written
        written += 1
        if written % 32 == 0:
            gc.collect()
        return await real(*args)

    monkeypatch.setattr(_import_plan, "_import_streamed", collecting)
    small, n_small = asyncio.run(_peak(tmp_path, N))
    large, n_large = asyncio.run(_peak(tmp_path, 10 * N))
    assert (n_small, n_large) == (N, 10 * N)
    assert large - small < BOUND, f"peak {small} B for {N} sessions, {large} B for {10 * N}: +{(large - small) / (9 * N):.0f} B a session"
