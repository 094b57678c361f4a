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

Rows measured today: (1) decode + validate JSONL into typed items, (2) encode typed items
to JSONL, (3) ``interlingua validate`` end to end, (4) peak memory of validation at two file
sizes. Rows for the provider mappers and the session store are extension points: see
:data:`PENDING_ROWS` and :func:`register_row`.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import dataset as _dataset  # noqa: E402

from interlingua.codec import encode_envelope, iter_jsonl  # noqa: E402
from interlingua.validation import load_schema, schema_names, validate_path  # noqa: E402

__all__ = ["PENDING_ROWS", "SIZES", "Measure", "Report", "Row", "Size", "main", "register_row", "render", "run"]

NOT_INSTALLED = "not installed"


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Size:
    """How big a run is.

    Attributes:
        conversations: Conversations of 20 messages in the dataset.
        rounds: Timed rounds per figure (each contender once per round).
        warmup: Untimed rounds before them.
        jsonschema_every: Python ``jsonschema`` validates every n-th line only (it is slow); its
            time is scaled to the whole file by bytes, and the report says so.
        memory_mb: The two JSONL sizes (MB) whose validation peak RSS is compared.
    """

    conversations: int
    rounds: int
    warmup: int
    jsonschema_every: int
    memory_mb: tuple[int, int]


SIZES: dict[str, Size] = {
    "tiny": Size(conversations=8, rounds=3, warmup=1, jsonschema_every=8, memory_mb=(1, 4)),
    "small": Size(conversations=300, rounds=7, warmup=1, jsonschema_every=40, memory_mb=(16, 128)),
    "full": Size(conversations=2000, rounds=7, warmup=1, jsonschema_every=100, memory_mb=(64, 1024)),
}

TARGETS = {
    "decode_vs_peer": 3.0,
    "decode_vs_floor": 1.0,
    "encode_vs_peer": 5.0,
    "validate_mb_s": 40.0,
    "validate_vs_jsonschema": 25.0,
    # bounded memory: peak RSS may grow by at most this share of the input growth
    # (or by memory_slack_mb, whichever is larger: small runs are within measurement noise)
    "memory_growth_share": 0.05,
    "memory_slack_mb": 2.0,
}


# --------------------------------------------------------------------------- results


@dataclass
class Measure:
    """One contender of one figure.

    Attributes:
        name: What ran (library and call).
        role: ``"interlingua"``, ``"peer"`` or ``"floor"``.
        seconds: Every timed sample (wall-clock seconds), in order.
        cpu_seconds: The same samples as CPU time of this process (``time.process_time``): on a
            shared, loaded machine this is the work done, without the time spent preempted.
        nbytes: Input (or output) bytes one sample processes; for MB/s.
        items: Items one sample processes.
        scale: Multiplier applied to the samples (a subsample scaled to the whole input).
        note: Anything the reader needs (subsample, not installed, ...).
        missing: True when the contender could not run (peer not installed).
    """

    name: str
    role: str
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    nbytes: int = 0
    items: int = 0
    scale: float = 1.0
    note: str = ""
    missing: bool = False

    @property
    def median(self) -> float | None:
        """Median sample in seconds, scaled; ``None`` when it did not run."""
        if self.missing or not self.seconds:
            return None
        return statistics.median(self.seconds) * self.scale

    @property
    def median_cpu(self) -> float | None:
        """Median CPU time in seconds, scaled; ``None`` when it did not run."""
        if self.missing or not self.cpu_seconds:
            return None
        return statistics.median(self.cpu_seconds) * self.scale

    @property
    def mb_s(self) -> float | None:
        """Throughput in MB/s (10^6 bytes) at the wall-clock median."""
        med = self.median
        return None if med is None or med <= 0 or not self.nbytes else self.nbytes / 1e6 / med

    @property
    def mb_s_cpu(self) -> float | None:
        """Throughput in MB/s per CPU second (one core's throughput) at the CPU-time median."""
        med = self.median_cpu
        return None if med is None or med <= 0 or not self.nbytes else self.nbytes / 1e6 / med


@dataclass
class Target:
    """A goal for a figure and whether the run met it (``None``: could not be judged)."""

    text: str
    met: bool | None


@dataclass
class Row:
    """One figure: interlingua against peers and a floor."""

    key: str
    title: str
    interlingua: Measure
    peers: list[Measure]
    floor: Measure | None
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def ratio(self, other: Measure) -> float | None:
        """``other.median / interlingua.median`` (wall clock): how many times faster interlingua is."""
        a, b = self.interlingua.median, other.median
        return None if a is None or b is None or a <= 0 else b / a

    def ratio_cpu(self, other: Measure) -> float | None:
        """The same ratio on CPU-time medians."""
        a, b = self.interlingua.median_cpu, other.median_cpu
        return None if a is None or b is None or a <= 0 else b / a


@dataclass
class Report:
    """Everything a run measured, plus where and how."""

    size: str
    seed: int
    command: str
    environment: dict[str, Any]
    dataset: dict[str, Any]
    rows: list[Row]
    pending: list[dict[str, str]]
    profiles: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``--json``, medians and ratios included."""
        rows = []
        for r in self.rows:
            d = asdict(r)
            d["interlingua"]["median"] = r.interlingua.median
            d["interlingua"]["median_cpu"] = r.interlingua.median_cpu
            for p, m in zip(d["peers"], r.peers):
                p["median"], p["median_cpu"] = m.median, m.median_cpu
                p["ratio"], p["ratio_cpu"] = r.ratio(m), r.ratio_cpu(m)
            if r.floor is not None:
                d["floor"]["median"], d["floor"]["median_cpu"] = r.floor.median, r.floor.median_cpu
                d["floor"]["ratio"], d["floor"]["ratio_cpu"] = r.ratio(r.floor), r.ratio_cpu(r.floor)
            d["targets"] = [asdict(t) for t in r.targets]
            rows.append(d)
        return {
            "size": self.size,
            "seed": self.seed,
            "command": self.command,
            "environment": self.environment,
            "dataset": self.dataset,
            "rows": rows,
            "pending": self.pending,
        }


# --------------------------------------------------------------------------- timing


def alternate(contenders: list[tuple[Measure, Callable[[], Any]]], rounds: int, warmup: int) -> None:
    """Time every contender ``rounds`` times, alternating, after ``warmup`` untimed rounds.

    The order flips every round (A B C, C B A, ...) so drift in machine load is spread
    evenly. A full collection runs before each sample (outside the timed region) so one
    contender's garbage is not charged to the next; gc stays enabled while timing.
    """
    live = [(m, fn) for m, fn in contenders if not m.missing]
    for _ in range(warmup):
        for _m, fn in live:
            fn()
    for r in range(rounds):
        for m, fn in live if r % 2 == 0 else live[::-1]:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            result = fn()
            t1 = time.perf_counter()
            m.cpu_seconds.append(time.process_time() - c0)
            m.seconds.append(t1 - t0)
            del result


def _peer(name: str, module: str, *, note: str = "") -> tuple[Measure, Any]:
    """A peer Measure and its module, or a missing Measure when the module is not importable."""
    try:
        mod = __import__(module, fromlist=["_"])
    except ImportError:
        return Measure(name, "peer", missing=True, note=f"{NOT_INSTALLED} (pip install -r benchmarks/requirements.txt)"), None
    return Measure(name, "peer", note=note), mod


def _floor_orjson(name: str) -> tuple[Measure, Any]:
    m, mod = _peer(name, "orjson")
    m.role = "floor"
    return m, mod


# --------------------------------------------------------------------------- rows


@dataclass
class Context:
    """What every row builder gets."""

    size: Size
    ds: _dataset.Dataset
    workdir: Path
    jsonl_path: Path


RowBuilder = Callable[[Context], Row]
_ROWS: list[tuple[str, RowBuilder]] = []

PENDING_ROWS: list[dict[str, str]] = [
    {
        "row": "provider mappers: decode/encode provider requests and responses",
        "compare": "interlingua.providers.<name>.mapper vs the provider SDK's own pydantic types "
        "(openai, anthropic, google-genai) and pydantic-ai's model adapters on the same conversations",
        "floor": "orjson.loads / orjson.dumps of the provider JSON",
        "hook": "add to_<peer>(spec) in benchmarks/dataset.py and a @register_row builder in benchmarks/run.py",
    },
    {
        "row": "session store: append and load a session, list sessions",
        "compare": "interlingua store (SQLite, PostgreSQL) vs writing/reading the same JSONL file",
        "floor": "raw INSERT/SELECT of the JSONL lines as blobs through the same driver",
        "hook": "same: one @register_row builder; the dataset's envelopes are the input",
    },
]
"""Figures the issue asks for whose code lives on other branches: listed in the report, not measured."""


def register_row(key: str) -> Callable[[RowBuilder], RowBuilder]:
    """Decorator adding a row builder; rows run in registration order.

    A builder takes a :class:`Context` and returns a :class:`Row` whose measures it timed with
    :func:`alternate`. This is the extension point for the provider-mapper and store rows.
    """

    def deco(fn: RowBuilder) -> RowBuilder:
        _ROWS.append((key, fn))
        return fn

    return deco


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


@register_row("decode")
def row_decode(ctx: Context) -> Row:
    """(1) JSONL bytes -> typed, validated items."""
    ds = ctx.ds
    il = Measure("interlingua `iter_jsonl` (-> Envelope structs)", "interlingua", nbytes=len(ds.jsonl), items=ds.items)
    pa, pa_mod = _peer(f"pydantic-ai {_version('pydantic-ai-slim')} `ModelMessagesTypeAdapter.validate_json`", "pydantic_ai.messages")
    fl, orjson = _floor_orjson("`orjson.loads` per line (dicts, no validation)")
    fl.nbytes, fl.items = len(ds.jsonl), ds.items
    blob = ds.jsonl
    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, lambda: list(iter_jsonl(io.BytesIO(blob))))]
    if pa_mod is not None and ds.pydantic_ai_lines is not None:
        ta = pa_mod.ModelMessagesTypeAdapter
        lines = ds.pydantic_ai_lines
        pa.nbytes, pa.items = sum(map(len, lines)), ds.items
        pa.note = f"one JSON array per conversation ({len(lines)} lines, {pa.nbytes / 1e6:.1f} MB: its own format)"
        contenders.append((pa, lambda: [ta.validate_json(line) for line in lines]))
    else:
        contenders.append((pa, lambda: None))
    if orjson is not None:
        split = blob.splitlines()
        loads = orjson.loads
        fl.note = "on interlingua's JSONL"
        contenders.append((fl, lambda: [loads(line) for line in split]))
    else:
        contenders.append((fl, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # correctness (not timing): both sides read back what was written
    assert list(iter_jsonl(io.BytesIO(blob))) == ds.envelopes
    row = Row("decode", "(1) decode + validate JSONL into typed items", il, [pa], fl)
    r_pa, r_fl = row.ratio_cpu(pa), row.ratio_cpu(fl)
    row.targets = [
        Target(f">= {TARGETS['decode_vs_peer']:g}x pydantic-ai", None if r_pa is None else r_pa >= TARGETS["decode_vs_peer"]),
        Target(f">= {TARGETS['decode_vs_floor']:g}x orjson.loads", None if r_fl is None else r_fl >= TARGETS["decode_vs_floor"]),
    ]
    row.notes.append("the single-line API `decode_envelope` is what `iter_jsonl` calls per line; reading is from memory (BytesIO)")
    return row


@register_row("encode")
def row_encode(ctx: Context) -> Row:
    """(2) typed items -> JSONL bytes."""
    ds = ctx.ds
    il = Measure("interlingua `encode_envelope` per item", "interlingua", nbytes=len(ds.jsonl), items=ds.items)
    pa, pa_mod = _peer(f"pydantic-ai {_version('pydantic-ai-slim')} `ModelMessagesTypeAdapter.dump_json`", "pydantic_ai.messages")
    fl, orjson = _floor_orjson("`orjson.dumps` of the same envelopes as dicts")
    fl.nbytes, fl.items = len(ds.jsonl), ds.items
    envs = ds.envelopes
    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, lambda: b"".join([encode_envelope(e) + b"\n" for e in envs]))]
    if pa_mod is not None and ds.pydantic_ai is not None:
        ta = pa_mod.ModelMessagesTypeAdapter
        convs = ds.pydantic_ai
        pa.nbytes, pa.items = sum(map(len, ds.pydantic_ai_lines or [])), ds.items
        pa.note = "one JSON array per conversation"
        contenders.append((pa, lambda: b"\n".join([ta.dump_json(c) for c in convs])))
    else:
        contenders.append((pa, lambda: None))
    if orjson is not None:
        dicts = ds.dicts
        dumps = orjson.dumps
        contenders.append((fl, lambda: b"\n".join([dumps(d) for d in dicts])))
    else:
        contenders.append((fl, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    assert b"".join(encode_envelope(e) + b"\n" for e in envs) == ds.jsonl
    row = Row("encode", "(2) encode typed items to JSONL", il, [pa], fl)
    r_pa = row.ratio_cpu(pa)
    row.targets = [Target(f">= {TARGETS['encode_vs_peer']:g}x pydantic-ai", None if r_pa is None else r_pa >= TARGETS["encode_vs_peer"])]
    row.notes.append("interlingua checks JSON safety (`check_json_safe`) before every encode; orjson and pydantic-ai do not")
    return row


def _schema_registry_py() -> Any:
    from referencing import Registry, Resource

    return Registry().with_resources((load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in schema_names())


@register_row("validate")
def row_validate(ctx: Context) -> Row:
    """(3) ``interlingua validate`` end to end on a JSONL file vs JSON Schema validators."""
    ds, path = ctx.ds, ctx.jsonl_path
    nbytes = path.stat().st_size
    il = Measure("interlingua `validation.validate_path` (schema + semantic checks)", "interlingua", nbytes=nbytes, items=ds.items)
    js, jsonschema = _peer(f"jsonschema {_version('jsonschema')} Draft202012Validator", "jsonschema")
    jr, jsonschema_rs = _peer(f"jsonschema-rs {_version('jsonschema-rs')}", "jsonschema_rs")
    fl, orjson = _floor_orjson("raw decode: read file + `orjson.loads` per line")
    fl.nbytes, fl.items = nbytes, ds.items

    def il_run() -> Any:
        result = validate_path([str(path)])
        assert result.ok, result.problems[:3]
        return result

    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, il_run)]
    loads = orjson.loads if orjson is not None else json.loads
    lines = ds.jsonl.splitlines()
    envelope = load_schema("envelope")
    if jsonschema is not None:
        v = jsonschema.Draft202012Validator(envelope, registry=_schema_registry_py())
        every = ctx.size.jsonschema_every
        sub = lines[::every]
        sub_bytes = sum(len(x) + 1 for x in sub)
        js.nbytes, js.items, js.scale = nbytes, ds.items, nbytes / sub_bytes
        js.note = f"every {every}th line ({len(sub)} lines, {sub_bytes / 1e6:.2f} MB), time scaled x{js.scale:.1f} to the file by bytes"

        def js_run() -> None:
            validate = v.validate
            for line in sub:
                validate(loads(line))

        contenders.append((js, js_run))
    else:
        contenders.append((js, lambda: None))
    if jsonschema_rs is not None:
        reg = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in schema_names()])
        vr = jsonschema_rs.validator_for(envelope, registry=reg)
        jr.nbytes, jr.items = nbytes, ds.items
        jr.note = "same schemas through its Registry; reads the file, decodes each line with orjson, `validate`"

        def jr_run() -> None:
            validate = vr.validate
            with open(path, "rb") as fh:
                for line in fh:
                    validate(loads(line))

        contenders.append((jr, jr_run))
    else:
        contenders.append((jr, lambda: None))
    if orjson is not None:

        def fl_run() -> int:
            n = 0
            with open(path, "rb") as fh:
                for line in fh:
                    loads(line)
                    n += 1
            return n

        contenders.append((fl, fl_run))
    else:
        contenders.append((fl, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)

    row = Row("validate", "(3) `interlingua validate` end to end on the JSONL file", il, [js, jr], fl)
    r_js, mb_s = row.ratio_cpu(js), il.mb_s_cpu
    row.targets = [
        Target(
            f">= {TARGETS['validate_mb_s']:g} MB/s on one core",
            None if mb_s is None else mb_s >= TARGETS["validate_mb_s"],
        ),
        Target(f">= {TARGETS['validate_vs_jsonschema']:g}x jsonschema", None if r_js is None else r_js >= TARGETS["validate_vs_jsonschema"]),
    ]
    row.notes.append("single-threaded; the peers check the JSON Schema only, interlingua also runs the semantic checks (ids, call links, roles, seq)")
    row.extra["cli"] = _time_cli(path)
    cli = row.extra["cli"]
    row.notes.append(
        f"CLI once as a subprocess (`interlingua validate FILE`, exit {cli['exit']}): {cli['seconds']:.2f} s wall, "
        f"{nbytes / 1e6 / cli['seconds']:.1f} MB/s including {cli['startup_seconds']:.2f} s interpreter + import start-up"
    )
    return row


def _cli_command() -> list[str]:
    script = Path(sys.executable).with_name("interlingua")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from interlingua.cli import main; main()"]


def _time_cli(path: Path) -> dict[str, Any]:
    """Time ``interlingua validate PATH`` once as a subprocess, and the bare start-up once."""
    t0 = time.perf_counter()
    start = subprocess.run([sys.executable, "-c", "import interlingua.cli"], capture_output=True, check=False)
    startup = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = subprocess.run([*_cli_command(), "validate", str(path)], capture_output=True, check=False)
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "startup_seconds": startup,
        "exit": proc.returncode,
        "startup_exit": start.returncode,
        "summary": proc.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""],
    }


_MEMORY_CHILD = r"""
import json, resource, sys, time

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None

from interlingua.validation import validate_path
import_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:  # reset the high-water mark so the peak below is that of validation alone (Linux)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    reset = True
except OSError:
    reset = False
base = status("VmRSS") or import_peak
t0 = time.perf_counter()
result = validate_path([sys.argv[1]])
seconds = time.perf_counter() - t0
peak = (status("VmHWM") if reset else None) or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"ok": result.ok, "items": result.items, "baseline_kb": base, "import_peak_kb": import_peak,
                  "peak_kb": peak, "hwm_reset": reset, "seconds": seconds}))
"""


def _grow_jsonl(base: bytes, target_bytes: int, dest: Path) -> tuple[int, int]:
    """Write copies of ``base`` (each copy's sessions renamed) until ``target_bytes``; returns (bytes, copies)."""
    written, k = 0, 0
    with open(dest, "wb") as fh:
        while written < target_bytes:
            chunk = base if k == 0 else base.replace(b'"session_id":"conv-', b'"session_id":"r%05d-' % k)
            fh.write(chunk)
            written += len(chunk)
            k += 1
    return written, k


@register_row("memory")
def row_memory(ctx: Context) -> Row:
    """(4) Peak RSS of ``validate_path`` in a fresh subprocess at two file sizes."""
    small_mb, large_mb = ctx.size.memory_mb
    runs = []
    for mb in (small_mb, large_mb):
        dest = ctx.workdir / f"memory-{mb}mb.jsonl"
        nbytes, copies = _grow_jsonl(ctx.ds.jsonl, mb * 1_000_000, dest)
        proc = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(dest)], capture_output=True, check=True)
        out = json.loads(proc.stdout)
        out["nbytes"] = nbytes
        out["sessions"] = copies * ctx.size.conversations
        runs.append(out)
        dest.unlink()
    a, b = runs
    il = Measure("interlingua `validate_path`: peak RSS (MB)", "interlingua", note="lower is better; see the memory table")
    fl = Measure("the same subprocess after `import interlingua.validation`, before validating", "floor")
    row = Row("memory", "(4) peak RSS of validating a large JSONL (fresh subprocess)", il, [], fl)
    row.extra["memory"] = runs
    growth_mb = (b["peak_kb"] - a["peak_kb"]) / 1024
    input_growth_mb = (b["nbytes"] - a["nbytes"]) / 1e6
    share = growth_mb / input_growth_mb if input_growth_mb else 0.0
    row.extra["growth_mb"], row.extra["input_growth_mb"], row.extra["share"] = growth_mb, input_growth_mb, share
    row.targets = [
        Target(
            f"flat: peak grows by <= {TARGETS['memory_growth_share']:.0%} of the input growth (or <= {TARGETS['memory_slack_mb']:g} MB)",
            (share <= TARGETS["memory_growth_share"] or growth_mb <= TARGETS["memory_slack_mb"]) and a["ok"] and b["ok"],
        )
    ]
    added_sessions = b["sessions"] - a["sessions"]
    row.extra["kb_per_session"] = growth_mb * 1024 / added_sessions if added_sessions else None
    row.notes.append(
        f"files are copies of the dataset with sessions renamed per copy ({a['sessions']} and {b['sessions']} sessions), so the "
        "number of sessions grows with the size; `validate_jsonl_stream` keeps per-session state for the whole file "
        "(an `ItemChecker` with the ids and call ids seen, and the last seq)"
        + (f": about {row.extra['kb_per_session']:.1f} KB per 30-item session here" if added_sessions else "")
    )
    return row


# --------------------------------------------------------------------------- environment


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def environment(gc_freeze: bool) -> dict[str, Any]:
    """Machine, interpreter, package versions and GC settings."""
    return {
        "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{_cpu_model()}, {os.cpu_count()} logical CPUs, {_mem_total()} RAM",
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "load_average_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "gc": {
            "enabled": gc.isenabled(),
            "thresholds": gc.get_threshold(),
            "frozen_variant": gc_freeze,
        },
        "versions": {
            d: _version(d)
            for d in ("interlingua", "msgspec", "pydantic", "pydantic-core", "pydantic-ai-slim", "orjson", "jsonschema", "jsonschema-rs")
        },
    }


# --------------------------------------------------------------------------- run / render


def _fmt_s(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def _fmt_x(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}x"


def _fmt_mb(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def _met(t: Target) -> str:
    return {True: "met", False: "**missed**", None: "not judged"}[t.met]


def run(
    size: str,
    *,
    seed: int = 20260101,
    gc_freeze: bool = False,
    memory_mb: tuple[int, int] | None = None,
    workdir: Path | None = None,
    command: str = "",
    log: Callable[[str], None] | None = None,
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
        ctx = Context(cfg, ds, wd, path)
        rows = []
        for key, builder in _ROWS:
            t1 = time.perf_counter()
            rows.append(builder(ctx))
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
    return Report(size, seed, command, env, info, rows, PENDING_ROWS)


def render(report: Report) -> str:
    """The report as Markdown."""
    env, info = report.environment, report.dataset
    out: list[str] = []
    w = out.append
    w("# Benchmarks")
    w("")
    w("Generated by `benchmarks/run.py`; do not edit by hand (re-run it). Every figure below ran interlingua,")
    w("the peer(s) and the floor **in the same process run, alternating, after warm-up**; each time is the")
    w(f"**median of {info['rounds']} rounds** (after {info['warmup']} warm-up round), and each ratio is a ratio of medians.")
    w("Ratio = other's median / interlingua's median, so above 1 means interlingua is faster. The floor is the")
    w("physical limit we compare against (raw JSON decode/encode with no validation). Each sample records wall-clock")
    w("time and this process's CPU time (`time.process_time`); on a shared machine the CPU time is the work done")
    w("without the time spent waiting for a core, so **targets are judged on CPU-time medians** (both are shown).")
    w("CPU time is not immune to a busy neighbour (shared caches, a shared physical core): on a shared machine absolute")
    w("figures vary between runs by up to ~2x, while ratios (same run, alternating) move much less.")
    w("")
    w("## Summary")
    w("")
    w("| figure | interlingua median (wall / CPU) | interlingua MB/s (wall / per CPU-s) | peer | peer median (wall / CPU) | ratio (wall / CPU) | floor | floor median (wall / CPU) | ratio to floor (wall / CPU) | targets |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in report.rows:
        if r.key.startswith("memory"):
            continue
        targets = "; ".join(f"{t.text}: {_met(t)}" for t in r.targets)
        fl = r.floor
        for i, p in enumerate(r.peers or [None]):
            first = i == 0
            cells = [
                r.title,
                f"{_fmt_s(r.interlingua.median)} / {_fmt_s(r.interlingua.median_cpu)}",
                f"{_fmt_mb(r.interlingua.mb_s)} / {_fmt_mb(r.interlingua.mb_s_cpu)}",
                "—" if p is None else p.name + (f" ({p.note})" if p.missing else ""),
                "—" if p is None else f"{_fmt_s(p.median)} / {_fmt_s(p.median_cpu)}",
                "—" if p is None else f"{_fmt_x(r.ratio(p))} / {_fmt_x(r.ratio_cpu(p))}",
                "—" if fl is None else fl.name + (f" ({fl.note})" if fl.missing else ""),
                "—" if fl is None else f"{_fmt_s(fl.median)} / {_fmt_s(fl.median_cpu)}",
                "—" if fl is None else f"{_fmt_x(r.ratio(fl))} / {_fmt_x(r.ratio_cpu(fl))}",
                targets,
            ]
            if not first:
                cells = [c if j in (3, 4, 5) else "″" for j, c in enumerate(cells)]
            w("| " + " | ".join(cells) + " |")
    for r in report.rows:
        if r.key != "memory":
            continue
        a, b = r.extra["memory"]
        targets = "; ".join(f"{t.text}: {_met(t)}" for t in r.targets)
        w(
            f"| {r.title} | peak RSS {a['peak_kb'] / 1024:.1f} MB at {a['nbytes'] / 1e6:.0f} MB, {b['peak_kb'] / 1024:.1f} MB at "
            f"{b['nbytes'] / 1e6:.0f} MB | — | — | — | peak ratio {b['peak_kb'] / a['peak_kb']:.2f}x for {b['nbytes'] / a['nbytes']:.1f}x the input | "
            f"RSS after import | {a['baseline_kb'] / 1024:.1f} MB | — | {targets} |"
        )
    for r in report.rows:
        if r.key != "memory":
            continue
        a, b = r.extra["memory"]
        w("")
        w("## (4) Memory: peak RSS of validating a large JSONL")
        w("")
        w("| file | items | sessions | peak RSS | RSS after import (floor) | added by validation | time |")
        w("| --- | --- | --- | --- | --- | --- | --- |")
        for m in (a, b):
            w(
                f"| {m['nbytes'] / 1e6:.0f} MB | {m['items']} | {m['sessions']} | {m['peak_kb'] / 1024:.1f} MB | {m['baseline_kb'] / 1024:.1f} MB | "
                f"{(m['peak_kb'] - m['baseline_kb']) / 1024:.1f} MB | {m['seconds']:.2f} s |"
            )
        w("")
        w(
            f"Peak RSS grew by {r.extra['growth_mb']:.1f} MB while the input grew by {r.extra['input_growth_mb']:.0f} MB "
            f"({r.extra['share']:.1%} of it). Target — {'; '.join(f'{t.text}: {_met(t)}' for t in r.targets)}."
        )
        for n in r.notes:
            w(f"- {n}")
    w("")
    w("## Details")
    for r in report.rows:
        if r.key == "memory":
            continue
        w("")
        w(f"### {r.title}")
        w("")
        w("| role | contender | median wall | median CPU | min wall | max wall | MB/s wall | MB/s per CPU-s | items/s (wall) | ratio wall | ratio CPU | note |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for m in [r.interlingua, *r.peers, *([r.floor] if r.floor else [])]:
            med = m.median
            lo = None if m.missing or not m.seconds else min(m.seconds) * m.scale
            hi = None if m.missing or not m.seconds else max(m.seconds) * m.scale
            ips = "—" if med is None or not m.items else f"{m.items / med:,.0f}"
            own = m is r.interlingua
            w(
                f"| {m.role} | {m.name} | {_fmt_s(med)} | {_fmt_s(m.median_cpu)} | {_fmt_s(lo)} | {_fmt_s(hi)} | {_fmt_mb(m.mb_s)} | "
                f"{_fmt_mb(m.mb_s_cpu)} | {ips} | {'1.00x' if own else _fmt_x(r.ratio(m))} | {'1.00x' if own else _fmt_x(r.ratio_cpu(m))} | {m.note} |"
            )
        w("")
        for t in r.targets:
            w(f"- target {t.text}: {_met(t)}")
        for n in r.notes:
            w(f"- {n}")
    if report.profiles:
        w("")
        w("## Where the time goes (interlingua side of the rows that missed a target)")
        w("")
        w("`cProfile` on the process CPU clock (`--profile`), top functions by own time. Deterministic profiling")
        w("inflates Python call overhead, so read the shares, not the totals.")
        w("Prototype fixes for these paths, measured against the library in the same run: `python benchmarks/proposals.py`.")
        for key, text in report.profiles.items():
            w("")
            w(f"### {key}")
            w("")
            w("```")
            w(text.rstrip())
            w("```")
    w("")
    w("## Not measured yet (extension points)")
    w("")
    w("These figures belong to code on other branches; `benchmarks/run.py` has `register_row` and")
    w("`benchmarks/dataset.py` a `to_<peer>` builder slot for each. No number is given until they run.")
    w("")
    for p in report.pending:
        w(f"- **{p['row']}** — compare {p['compare']}; floor: {p['floor']}; how: {p['hook']}.")
    w("")
    w("## Dataset")
    w("")
    pa = "not built (pydantic-ai not installed)" if info["pydantic_ai_mb"] is None else f"{info['pydantic_ai_mb']:.1f} MB"
    w(
        f"Seeded (`--seed {report.seed}`), generated by `benchmarks/dataset.py`: {info['conversations']} conversations x 20 messages "
        f"= {info['messages']} messages, {info['items']} interlingua items, {info['jsonl_mb']:.1f} MB of interlingua JSONL; "
        f"the same conversations as pydantic-ai `ModelMessage` lists: {pa}. {info['images']} user turns carry a ~2 KB base64 image."
    )
    w("Per turn: user text 50-400 chars; assistant reasoning 600-2700 chars with a 200-char signature, text 100-1500 chars,")
    w("one tool call with 3-6 argument keys; tool result 50-800 chars; final assistant text 100-1500 chars.")
    w("The `full` size (2,000 conversations, ~60k items, ~57 MB) is the issue's dataset.")
    w("")
    w("## Machine and versions")
    w("")
    w(f"- date: {env['date_utc']}; run took {env['seconds']} s")
    w(f"- machine: {env['machine']}; {env['platform']}")
    w(f"- load average (1, 5, 15 min) at start: {_load(env.get('load_average_start'))}; at end: {_load(env.get('load_average_end'))} (the machine is shared; other work was running)")
    w(f"- {env['python']}")
    w("- " + ", ".join(f"{k} {v}" for k, v in env["versions"].items()))
    g = env["gc"]
    w(
        f"- GC: {'enabled' if g['enabled'] else 'disabled'}, thresholds {tuple(g['thresholds'])}; figures are with gc enabled as measured"
        + ("; the `gc-frozen` rows are a named variant run after `gc.freeze()`" if g["frozen_variant"] else "")
        + "; a full collection runs before each timed sample, outside the timing"
    )
    w("")
    w("## Reproduce")
    w("")
    w("```sh")
    w("pip install -e . -r benchmarks/requirements.txt")
    w(report.command or f"python benchmarks/run.py --size {report.size} --out docs/benchmarks.md")
    w("```")
    w("")
    w("Sizes: " + "; ".join(f"`{k}` {v.conversations} conversations, {v.rounds} rounds, memory at {v.memory_mb[0]} and {v.memory_mb[1]} MB" for k, v in SIZES.items()) + ".")
    w("`--size full` is the issue's dataset and includes the optional 1 GB memory run (`--memory-mb A,B` sets the two sizes at any")
    w("size); `tiny` is what CI runs (`.ci/run`), with no timing assertions.")
    w("")
    return "\n".join(out)


def _load(x: Any) -> str:
    return "unknown" if not x else ", ".join(f"{v:.2f}" for v in x)


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
    report = run(args.size, seed=args.seed, gc_freeze=args.gc_freeze, memory_mb=memory_mb, command=command, log=log)
    if args.profile:
        _profile(report, args.size, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(report), encoding="utf-8")
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=2, default=str), encoding="utf-8")
    if log:
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
