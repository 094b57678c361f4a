#!/usr/bin/env python
"""Run every interlingua benchmark and write the report (``docs/benchmarks.md``).

Usage::

    pip install -e . -r benchmarks/requirements.txt
    python benchmarks/run.py --size small --out docs/benchmarks.md

Method: for each figure, interlingua, the peer(s) and the floor run in the same process,
alternating (A B F, then F B A, ...), after warm-up rounds; the report quotes the median of
each and the ratio of medians, never a single time. A peer that is not installed is reported
as such (no number is invented). Garbage collection stays enabled as in normal use (its
settings are recorded); ``--gc-freeze`` adds a named variant run after ``gc.freeze()``.

Rows: (1) decode + validate JSONL into typed items, (2) encode typed items to JSONL,
(3) ``interlingua validate`` end to end, (4) peak memory of validation at two file sizes,
(5) OpenAI Chat -> Anthropic request through the canonical form vs LiteLLM, (5b) the four
request-body conversions, (6) stream accumulation vs SSE parsing alone, (7) the session store
on SQLite vs raw ``sqlite3`` and the OpenAI Agents SDK, (8) the same on PostgreSQL (only with
``$INTERLINGUA_TEST_PG_URL``), (9) whole-process start-up of ``interlingua validate`` vs
``python -c "from interlingua import decode_envelope"`` and ``python -c pass``, (10) ``migrate --store`` (SQLite) vs ``migrate -o`` on the same input,
whole processes, (11) peak RSS of ``store import`` of a one-session file of a million items, and
the public-path rows (12)-(16) of ``public_path.py``. Figures not built yet: :data:`PENDING_ROWS`;
add one with :func:`register_row`.

Where the code lives: ``harness.py`` (sizes, targets, measures, the timing loops, the row registry),
``rows/`` (one module per row family, see ``rows/__init__.py``), ``public_path.py`` (what users
call), ``report.py`` (environment and Markdown), ``bounds.py`` (what bounds each missed target);
this module runs them and is the CLI. Beside it: ``check_independent.py`` re-measures the figures with
code written apart, ``callgrind_rows.py`` counts the instructions of the rows' calls for comparing two
source trees, and ``compare_structure.py`` checks that two reports hold the same rows.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bounds as _bounds  # noqa: E402
import harness as _harness  # noqa: E402
import report as _report  # noqa: E402
import rows as _rows  # noqa: E402
from harness import (  # noqa: E402
    _IMPORTS_FROZEN,
    _ROWS,
    PENDING_ROWS,
    SIZES,
    Context,
    Measure,
    Report,
    Row,
    Size,
    _dataset,
    register_row,
)
from report import environment, render  # noqa: E402
from rows.streams import _sse_streams  # noqa: E402

from interlingua.codec import encode_envelope, iter_jsonl  # noqa: E402
from interlingua.validation import validate_path  # noqa: E402

__all__ = ["PENDING_ROWS", "SIZES", "Measure", "Report", "Row", "Size", "main", "register_row", "render", "run"]

_PARTS: tuple[ModuleType, ...] = (
    _harness, _report, _bounds, *(getattr(_rows, n) for n in ("jsonl", "validate", "memory", "startup", "mapping", "streams", "store", "store_cli"))
)


def __getattr__(name: str) -> Any:
    """Every name the single-file ``run.py`` had stays reachable as ``run.<name>`` (the row modules'
    helpers, e.g. ``run.long_stream``, ``run._BYTECODE_READY``): ``public_path.py`` and the tests use
    this module as the harness's namespace."""
    for part in _PARTS:
        if name in vars(part):
            return vars(part)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_rows.install()


def run(
    size: str,
    *,
    seed: int = 20260101,
    gc_freeze: bool = False,
    memory_mb: tuple[int, int] | None = None,
    workdir: Path | None = None,
    command: str = "",
    log: Callable[[str], None] | None = None,
    only: set[str] | None = None,
) -> Report:
    """Build the dataset, run every registered row, and return the report (not yet rendered).

    Args:
        size: A key of :data:`SIZES`.
        seed: Dataset seed.
        gc_freeze: After the main rows, re-run decode and encode after ``gc.freeze()`` as a named variant.
        memory_mb: The two file sizes of the memory row (MB), instead of the size's own.
        workdir: Where temporary JSONL files go (default: a fresh temporary directory, removed after).
        command: The command line recorded in the report.
        log: Progress messages (e.g. ``print`` to stderr).
        only: Row keys to run (``None``: every registered row).
    """
    say = log or (lambda _msg: None)
    cfg = SIZES[size]
    if memory_mb is not None:
        cfg = replace(cfg, memory_mb=memory_mb)
    env = environment(gc_freeze)
    t0 = time.perf_counter()
    ds = _dataset.build(cfg.conversations, seed)
    say(f"dataset: {cfg.conversations} conversations, {ds.items} items, {len(ds.jsonl) / 1e6:.1f} MB ({time.perf_counter() - t0:.1f} s)")
    own = tempfile.TemporaryDirectory(prefix="interlingua-bench-") if workdir is None else None
    wd = Path(own.name) if own is not None else workdir
    assert wd is not None
    try:
        path = wd / "dataset.jsonl"
        path.write_bytes(ds.jsonl)
        ctx = Context(cfg, ds, wd, path, size)
        rows = []
        for key, builder in _ROWS:
            if only is not None and key not in only:
                continue
            t1 = time.perf_counter()
            built = builder(ctx)
            rows.extend(built if isinstance(built, list) else [built])
            say(f"row {key}: {time.perf_counter() - t1:.1f} s")
        if gc_freeze:
            gc.freeze()
            try:
                for key, builder in _ROWS:
                    if key in ("decode", "encode"):
                        r = builder(ctx)
                        r.key += "-gc-frozen"
                        r.title += " — variant: `gc.freeze()` after building the dataset"
                        rows.append(r)
            finally:
                gc.unfreeze()
    finally:
        if own is not None:
            own.cleanup()
    env["gc"]["frozen_after_imports"] = list(_IMPORTS_FROZEN)
    env["load_average_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    env["seconds"] = round(time.perf_counter() - t0, 1)
    pa_bytes = sum(map(len, ds.pydantic_ai_lines)) if ds.pydantic_ai_lines is not None else None
    info = {
        "conversations": cfg.conversations,
        "messages": cfg.conversations * _dataset.MESSAGES_PER_CONVERSATION,
        "items": ds.items,
        "jsonl_mb": len(ds.jsonl) / 1e6,
        "pydantic_ai_mb": None if pa_bytes is None else pa_bytes / 1e6,
        "images": sum(1 for conv in ds.spec.conversations for t in conv if t.image is not None),
        "rounds": cfg.rounds,
        "warmup": cfg.warmup,
    }
    return Report(size, seed, command, env, info, rows, PENDING_ROWS, skipped=ctx.skipped)


def _profile(report: Report, size: str, seed: int) -> None:
    """Profile the interlingua side of each row that missed a target, into the report.

    Uses ``cProfile`` with the process CPU clock: on a shared machine a wall-clock sampler
    (pyinstrument, py-spy) charges time spent preempted to whatever line was running.
    Deterministic profiling inflates the cost of Python calls, so read the shares, not the totals.
    """
    import cProfile
    import pstats

    missed = {r.key for r in report.rows if any(t.met is False for t in r.targets)}
    if not missed:
        return
    ds = _dataset.build(SIZES[size].conversations, seed, peers=False)
    calls: dict[str, Callable[[], Any]] = {
        "decode": lambda: list(iter_jsonl(io.BytesIO(ds.jsonl))),
        "encode": lambda: [encode_envelope(e) for e in ds.envelopes],
    }
    if "mapping" in missed:
        from interlingua.mapping import get_mapper

        an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
        oc_bodies = [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in _dataset.transcripts(ds)]
        calls["mapping"] = lambda: [an.encode_request(oc.decode_request(b).value, model="claude-sonnet-4-5", policy="drop") for b in oc_bodies]
    if "stream" in missed:
        from interlingua.mapping import get_mapper
        from interlingua.streaming import iter_stream

        work = [(get_mapper(m), b) for m, _f, b in _sse_streams()] * max(4, SIZES[size].conversations // 3)
        calls["stream"] = lambda: [list(iter_stream(m, b)) for m, b in work]
    with tempfile.TemporaryDirectory(prefix="interlingua-bench-prof-") as tmp:
        path = Path(tmp) / "dataset.jsonl"
        path.write_bytes(ds.jsonl)
        calls["validate"] = lambda: validate_path([str(path)])
        for key in [k for k in calls if k in missed]:
            calls[key]()  # warm
            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
            calls[key]()
            profiler.disable()
            buf = io.StringIO()
            stats = pstats.Stats(profiler, stream=buf)
            stats.strip_dirs().sort_stats("tottime").print_stats(14)
            text = buf.getvalue()
            body = text[text.index("ncalls") :] if "ncalls" in text else text
            head = next((ln.strip() for ln in text.splitlines() if "function calls" in ln), "")
            report.profiles[key] = f"{head}\n\n{body}"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny", help="dataset size (tiny: CI smoke run; small: a few minutes; full: the issue's dataset)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"), help="Markdown report to write")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results as JSON")
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--gc-freeze", action="store_true", help="add a named variant of rows 1-2 run after gc.freeze()")
    parser.add_argument("--profile", action="store_true", help="profile (cProfile, CPU clock) the interlingua side of rows that miss a target")
    parser.add_argument("--memory-mb", default=None, help="the memory row's two file sizes in MB, e.g. 64,1024 (default: the size's own)")
    parser.add_argument("--only", default=None, help="comma-separated row keys to run (e.g. decode,store); default: every row")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    memory_mb = None
    if args.memory_mb:
        small_mb, large_mb = (int(x) for x in args.memory_mb.split(","))
        memory_mb = (small_mb, large_mb)
    command = "python benchmarks/run.py " + " ".join(
        [f"--size {args.size}", f"--out {args.out}"]
        + ([f"--memory-mb {args.memory_mb}"] if args.memory_mb else [])
        + ([f"--seed {args.seed}"] if args.seed != 20260101 else [])
        + (["--gc-freeze"] if args.gc_freeze else [])
        + (["--profile"] if args.profile else [])
    )
    log = None if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    only = None if not args.only else set(args.only.split(","))
    report = run(args.size, seed=args.seed, gc_freeze=args.gc_freeze, memory_mb=memory_mb, command=command, log=log, only=only)
    if args.profile:
        _profile(report, args.size, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(report), encoding="utf-8")
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=2, default=str), encoding="utf-8")
    if log:
        log(f"wrote {args.out}")
    return 0


# The rows for what users call (convert_request/convert_response, `interlingua convert`, the store
# against SQLiteSession) live in their own module; registered after (5)-(11), before any run.
import public_path as _public_path  # noqa: E402

_public_path.install(sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
