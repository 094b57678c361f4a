"""The benchmark harness: sizes and targets, results (:class:`Measure`, :class:`Row`, :class:`Report`),
the alternating timing loops (in process and whole processes), the peers' look-up and the row registry.

Every row module (``benchmarks/rows/``, ``benchmarks/public_path.py``) builds on these; ``run.py`` runs
the registered rows and ``report.py`` writes the Markdown. Nothing here knows a particular row.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import dataset as _dataset  # noqa: E402

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
    process_mb: tuple[int, ...] = (10, 100)
    migrate_mb: int = 20
    """Input size (MB) of the ``migrate --store`` vs ``migrate -o`` row."""
    import_items: int = 1_000_000
    """Items of the one-session file whose ``store import`` peak RSS is measured."""


SIZES: dict[str, Size] = {
    "tiny": Size(conversations=8, rounds=3, warmup=1, jsonschema_every=8, memory_mb=(1, 4), process_mb=(1,), migrate_mb=1, import_items=20_000),
    "small": Size(conversations=300, rounds=7, warmup=1, jsonschema_every=40, memory_mb=(16, 128)),
    "full": Size(conversations=2000, rounds=7, warmup=1, jsonschema_every=100, memory_mb=(64, 1024), migrate_mb=50),
}

TARGETS = {
    "decode_vs_peer": 3.0,
    "decode_vs_floor": 0.85,
    "encode_vs_peer": 5.0,
    "encode_vs_floor": 0.6,
    "validate_mb_s": 40.0,
    "validate_vs_jsonschema": 40.0,
    "process_vs_jsonschema_rs": 1.0,
    "process_vs_jsonschema": 40.0,
    # bounded memory: peak RSS may grow by at most this share of the input growth
    # (or by memory_slack_mb, whichever is larger: small runs are within measurement noise)
    "memory_growth_share": 0.05,
    "memory_slack_mb": 2.0,
    "cli_peak_mb": 100.0,
    "mapping_vs_litellm": 3.0,
    # stream accumulation may take at most this many times the parse-only time
    "stream_vs_parse": 1.3,
    "store_bulk_vs_raw": 0.5,
    "store_bulk_vs_agents": 1.5,
    "store_load_vs_agents": 1.0,
    "store_load_vs_raw": 0.5,
    # `interlingua validate small.json`, whole process, at most this many times the library's decode path alone
    # (`python -c "from interlingua import decode_envelope"`: the models, the codec and its decoders; the package
    # import itself is lazy and loads none of them)
    "startup_vs_import": 2.0,
    # `interlingua migrate IN --store DB` (SQLite), whole process, at most this many times `migrate IN -o OUT.jsonl`
    "migrate_store_vs_o": 3.0,
    # `interlingua store import` of a one-session file of ~1M items: peak RSS (MB) of the whole process
    "import_peak_mb": 300.0,
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
    rss_kb: list[int] = field(default_factory=list)
    """Whole-process rows: each run's peak RSS (KB, ``ru_maxrss`` of the child)."""

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
    measured: str = ""
    """The measured value the target is judged on (e.g. ``2.81x``), for the targets table."""


def _x(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}x"


def _fmt_s(x: float | None) -> str:
    """Seconds as ``12.3 ms`` or ``1.23 s``; ``—`` when there is none."""
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


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
    skipped: list[str] = field(default_factory=list)

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
            "skipped": self.skipped,
        }


# --------------------------------------------------------------------------- timing


def alternate(contenders: list[tuple[Measure, Callable[[], Any]]] | list[Any], rounds: int, warmup: int) -> None:
    """Time every contender ``rounds`` times, alternating, after ``warmup`` untimed rounds.

    The order flips every round (A B C, C B A, ...) so drift in machine load is spread
    evenly. A full collection runs before each sample (outside the timed region) so one
    contender's garbage is not charged to the next; gc stays enabled while timing.

    A contender is ``(measure, fn)`` or ``(measure, fn, prepare)``: ``prepare()`` runs before
    every call of ``fn`` (warm-up included), outside the timed region (e.g. creating the empty
    sessions an append then fills).
    """
    live = [(c[0], c[1], c[2] if len(c) > 2 else None) for c in contenders if not c[0].missing]
    for _ in range(warmup):
        for _m, fn, prep in live:
            if prep is not None:
                prep()
            fn()
    for r in range(rounds):
        for m, fn, prep in live if r % 2 == 0 else live[::-1]:
            if prep is not None:
                prep()
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
    size_name: str = ""
    skipped: list[str] = field(default_factory=list)
    """Figures a builder did not run in this environment, and why (shown in the report)."""


RowBuilder = Callable[[Context], "Row | list[Row]"]
_ROWS: list[tuple[str, RowBuilder]] = []

PENDING_ROWS: list[dict[str, str]] = [
    {
        "row": "provider responses: decode provider response bodies, and the remaining mappers (Responses, Gemini, Ollama)",
        "compare": "interlingua.providers.<name>.mapper `decode_response` vs the provider SDK's own pydantic types "
        "(openai, anthropic, google-genai) on the same responses",
        "floor": "orjson.loads of the provider JSON",
        "hook": "a builder in benchmarks/rows/mapping.py next to row_mapping, listed in rows/__init__.py (the request rows (5)/(5b) are measured)",
    },
    {
        "row": "session store: list sessions, stream a long session, export/import JSONL speed",
        "compare": "interlingua store (SQLite, PostgreSQL) vs the same raw driver floor as (7)/(8)",
        "floor": "raw SELECT / COPY through the same driver",
        "hook": "extend _store_rows in benchmarks/rows/store.py (append and load are measured in (7)/(8), `migrate --store` in (10), "
        "the peak RSS of `store import` in (11))",
    },
]
"""Figures the issue asks for whose code lives on other branches: listed in the report, not measured."""


def register_row(key: str) -> Callable[[RowBuilder], RowBuilder]:
    """Decorator adding a row builder; rows run in registration order (a key registered again keeps its place).

    A builder takes a :class:`Context` and returns a :class:`Row` whose measures it timed with
    :func:`alternate`. This is the extension point for the provider-mapper and store rows.
    """

    def deco(fn: RowBuilder) -> RowBuilder:
        for i, (k, _fn) in enumerate(_ROWS):
            if k == key:  # registered again (the CLI module loaded twice): same place, newest builder
                _ROWS[i] = (key, fn)
                return fn
        _ROWS.append((key, fn))
        return fn

    return deco


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


# --------------------------------------------------------------------------- whole processes


_BYTECODE_READY: list[bool] = []


def _ensure_bytecode() -> None:
    """Compile interlingua's modules to ``__pycache__`` once, before any whole-process row.

    An installed wheel has its bytecode (pip compiles it); an editable checkout run with
    ``PYTHONDONTWRITEBYTECODE=1`` (or read-only) would compile every module from source at every
    start (30-40 ms CPU of `interlingua validate`'s ~150 ms, measured), which times the compiler,
    not the library. The peers' packages are installed wheels and already have theirs.
    """
    if _BYTECODE_READY:
        return
    import compileall

    import interlingua

    compileall.compile_dir(str(Path(interlingua.__file__).parent), quiet=1)
    _BYTECODE_READY.append(True)


def _cli_command() -> list[str]:
    _ensure_bytecode()
    script = Path(sys.executable).with_name("interlingua")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from interlingua.cli import main; main()"]


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


_GNU_TIME = Path("/usr/bin/time")


def _child_rusage(cmd: list[str]) -> dict[str, Any]:
    """Run ``cmd`` as a whole process: wall time, its own CPU time (user + system) and peak RSS.

    Through GNU ``time`` when it is installed: Linux keeps a process's peak RSS across ``exec``, so a
    child forked straight from this (large) benchmark process would report this process's size;
    ``time`` is small and forks the command itself. Otherwise ``os.wait4`` (peak RSS then an upper bound).
    """
    t0 = time.perf_counter()
    if _GNU_TIME.exists():
        with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
            proc = subprocess.run([str(_GNU_TIME), "-q", "-f", "%U %S %M", "-o", tf.name, *cmd], capture_output=True, check=False)
            wall = time.perf_counter() - t0
            user, system, rss = tf.read().split()[-3:]
        return {"wall": wall, "cpu": float(user) + float(system), "maxrss_kb": int(rss), "rc": proc.returncode, "out": proc.stdout, "err": proc.stderr}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    out = p.stdout.read()
    _pid, status, ru = os.wait4(p.pid, 0)
    p.stdout.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": time.perf_counter() - t0, "cpu": ru.ru_utime + ru.ru_stime, "maxrss_kb": ru.ru_maxrss, "rc": p.returncode, "out": out}


def _time_process(m: Measure, cmd: list[str], scale: Callable[[dict[str, Any]], float] | None = None) -> Callable[[], Any]:
    """A contender for :func:`alternate_process`: runs ``cmd``, records its own CPU time (and peak RSS)."""

    def run_() -> dict[str, Any]:
        r = _child_rusage(cmd)
        assert r["rc"] == 0, (cmd, r["out"][-400:])
        cpu = r["cpu"] if scale is None else scale(r)
        m.seconds.append(r["wall"] if scale is None else r["wall"] * cpu / max(r["cpu"], 1e-9))
        m.cpu_seconds.append(cpu)
        m.rss_kb.append(r["maxrss_kb"])
        return r

    return run_


def alternate_process(contenders: list[tuple[Measure, Callable[[], Any]]], rounds: int, warmup: int) -> None:
    """:func:`alternate` for whole processes: each run records its own child's CPU time (not this process's)."""
    live = [c for c in contenders if not c[0].missing]
    for _ in range(warmup):
        for m, fn in live:
            fn()
            m.seconds.pop()
            m.cpu_seconds.pop()
            m.rss_kb.pop()
    for r in range(rounds):
        for _m, fn in live if r % 2 == 0 else live[::-1]:
            fn()


# --------------------------------------------------------------------------- shared inputs and peers

FIXTURES = HERE.parent / "tests" / "fixtures" / "real"


_IMPORTS_FROZEN: list[str] = []


def alternate_processes(contenders: list[tuple[Measure, list[str]]], rounds: int, warmup: int, *, cwd: Path | None = None) -> None:
    """Like :func:`alternate`, for whole processes: each sample runs one command to its end.

    Wall time is measured around the run; CPU time is the child's own user + system time
    (``getrusage(RUSAGE_CHILDREN)`` before and after), so this process's work is not counted.
    A command that exits non-zero is an error (a start-up figure of a failing command means nothing).
    """
    import resource

    def once(cmd: list[str]) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    live = [(m, cmd) for m, cmd in contenders if not m.missing]
    for _ in range(warmup):
        for _m, cmd in live:
            once(cmd)
    for r in range(rounds):
        for m, cmd in live if r % 2 == 0 else live[::-1]:
            wall, cpu = once(cmd)
            m.seconds.append(wall)
            m.cpu_seconds.append(cpu)


def _freeze_after_import(what: str) -> None:
    """Move everything alive now (the heavy peer modules just imported) to the permanent GC generation.

    LiteLLM and the Agents SDK import hundreds of thousands of objects; without this the full
    collection :func:`alternate` runs before each sample takes ~0.5 s. Applies to every contender
    of the rows measured after it; recorded in the report.
    """
    gc.collect()
    gc.freeze()
    _IMPORTS_FROZEN.append(what)


def _dict_copy(o: Any) -> Any:
    """A structural copy (new dicts and lists, shared strings): the least work any converter does."""
    if type(o) is dict:
        return {k: _dict_copy(v) for k, v in o.items()}
    if type(o) is list:
        return [_dict_copy(v) for v in o]
    return o
