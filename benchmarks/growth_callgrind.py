#!/usr/bin/env python
"""Instruction counts (callgrind) of the growth table, row (16): per-item cost of convert (ours and
LiteLLM's, same content), validate, store load and ``view`` at each size, as many conversations and
as one conversation holding them all.

Instruction counts do not depend on the load of a shared machine. Each cell is one process under
``valgrind --tool=callgrind --instr-atstart=no``: it reads the prepared input, runs the operation once
uninstrumented (warm-up: caches, compiled checks, imports), collects, then switches instrumentation on
around one more run only (``CALLGRIND_START_INSTRUMENTATION`` / ``STOP`` through a five-line C helper
built here with the system's ``valgrind/callgrind.h``), so the count is the work alone: set-up,
imports and the input's reading are not in it. The cyclic collector stays on, as a caller has it, and
the results are kept until the run ends (as a caller keeps them), so the collector's passes over a
growing heap are counted.

Operations (columns):

* ``convert``: ``convert_request(transcript, source='canonical', target='anthropic', policy='drop')``
  per conversation (the CPU table's convert column);
* ``convert-chat``: ``convert_request(body, source='openai-chat', target='anthropic', policy='drop')``
  per OpenAI Chat request body (row (12)'s call);
* ``litellm``: LiteLLM ``AnthropicConfig().transform_request`` on the same bodies' messages (row (12)'s
  peer call; a fresh copy of the messages is made before instrumentation starts, it changes them);
* ``validate``: ``validate_path`` of the session file;
* ``load``: ``SessionStore.load`` of every session (SQLite; aiosqlite's worker thread is counted);
* ``view``: ``session_sections`` + ``iter_html`` streamed to nowhere.

Per item = Ir / items (canonical items for convert, validate, load and view; OpenAI Chat messages for
convert-chat and litellm, which both convert the same messages)::

    python benchmarks/growth_callgrind.py prepare /tmp/growth --mb 1,10,100
    python benchmarks/growth_callgrind.py run /tmp/growth --mb 1,10,100 --ops convert,litellm --json /tmp/growth/ir.json
    # one cell by hand:
    valgrind --tool=callgrind --instr-atstart=no python benchmarks/growth_callgrind.py cell view one 10 /tmp/growth

Run it with ``PYTHONPATH=<tree>/src`` to count that tree; LiteLLM must be importable for ``litellm``.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 64000
SEED = 20260101
OPS = ("convert", "convert-chat", "litellm", "validate", "load", "view")
SHAPES = ("many", "one")

_HELPER_C = """#include <valgrind/callgrind.h>
void il_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void il_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""


def _helper() -> Any:
    """The start/stop helper, compiled once into a temporary directory (ctypes)."""
    d = Path(tempfile.gettempdir()) / f"il-cg-helper-{os.getuid()}"
    so = d / "cg_helper.so"
    if not so.exists():
        d.mkdir(exist_ok=True)
        (d / "cg_helper.c").write_text(_HELPER_C)
        tmp = d / f"cg_helper.{os.getpid()}.so"
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", str(tmp), str(d / "cg_helper.c")], check=True)
        tmp.replace(so)
    return ctypes.CDLL(str(so))


def _name(shape: str, mb: float) -> str:
    return f"{shape}-{mb:g}"


def prepare(dest: Path, sizes: list[float]) -> None:
    """Write each cell's input: the session file, the OpenAI Chat request bodies and the filled SQLite store."""
    sys.path.insert(0, str(HERE))
    import dataset as D
    from public_path import _grown_sessions

    from interlingua.mapping import get_mapper
    from interlingua.session_file import header_bytes, session_lines
    from interlingua.items import Transcript
    from interlingua.codec import SCHEMA_VERSION
    from interlingua.store import SessionStore

    dest.mkdir(parents=True, exist_ok=True)
    ds = D.build(300, SEED, peers=False)
    oc = get_mapper("openai-chat")
    loop = asyncio.new_event_loop()
    meta: dict[str, Any] = {}
    for shape in SHAPES:
        for mb in sizes:
            name = _name(shape, mb)
            convs = _grown_sessions(ds, mb, one=shape == "one")
            path = dest / f"{name}.jsonl"
            with open(path, "wb") as fh:
                for k, conv in enumerate(convs):
                    sid = f"g{k:06d}"
                    fh.writelines(session_lines(sid, conv, header=header_bytes(sid)))
            bodies = [oc.encode_request(Transcript(schema_version=SCHEMA_VERSION, items=c), model="gpt-4.1", policy="drop").value for c in convs]
            (dest / f"{name}.chat.json").write_text(json.dumps(bodies))
            db = dest / f"{name}.sqlite3"
            if db.exists():
                db.unlink()

            async def fill(convs: list[list[Any]] = convs, db: Path = db) -> list[str]:
                store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
                sids = []
                for conv in convs:
                    sid = await store.create_session()
                    for k in range(0, len(conv), 1000):
                        await store.append(sid, conv[k : k + 1000])
                    sids.append(sid)
                await store.close()
                return sids

            sids = loop.run_until_complete(fill())
            meta[name] = {
                "items": sum(map(len, convs)),
                "conversations": len(convs),
                "messages": sum(len(b["messages"]) for b in bodies),
                "mb": path.stat().st_size / 1e6,
                "sids": sids,
            }
            print(f"{name}: {meta[name]['items']:,} items, {len(convs)} conversations, {meta[name]['mb']:.1f} MB", flush=True)
            (dest / "meta.json").write_text(json.dumps(meta))
    loop.close()


def _work(op: str, shape: str, mb: float, src: Path) -> tuple[Callable[[], Any], Callable[[], None]]:
    """``(run, prepare)`` of one cell: ``prepare`` runs before each run, outside the count."""
    name = _name(shape, mb)
    meta = json.loads((src / "meta.json").read_text())[name]
    nothing: Callable[[], None] = lambda: None  # noqa: E731
    if op in ("convert", "validate", "view"):
        path = str(src / f"{name}.jsonl")
    if op == "convert":
        import io

        import interlingua
        from interlingua.codec import iter_jsonl
        from interlingua.items import Transcript

        by: dict[str, list[Any]] = {}
        with open(path, "rb") as fh:
            for e in iter_jsonl(io.BytesIO(fh.read())):
                by.setdefault(e.session_id, []).append(e.item)
        ts = [Transcript(schema_version="1.0", items=c) for c in by.values()]
        return (lambda: [interlingua.convert_request(t, source="canonical", target="anthropic", model=MODEL, policy="drop") for t in ts]), nothing
    if op in ("convert-chat", "litellm"):
        bodies = json.loads((src / f"{name}.chat.json").read_text())
        if op == "convert-chat":
            import interlingua

            return (lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop") for b in bodies]), nothing
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # type: ignore[import-not-found,unused-ignore]

        cfg = litellm.AnthropicConfig()
        copies: list[Any] = []

        def fresh() -> None:  # LiteLLM changes the messages it is given
            copies[:] = [json.loads(json.dumps(b["messages"])) for b in bodies]

        return (lambda: [cfg.transform_request(model=MODEL, messages=m, optional_params={"max_tokens": MAX_TOKENS}, litellm_params={}, headers={}) for m in copies]), fresh
    if op == "validate":
        from interlingua.validation import validate_path

        return (lambda: validate_path([path])), nothing
    if op == "view":
        from interlingua.view import iter_html, session_sections

        def view() -> None:
            sections, items, count = session_sections(path)
            for _chunk in iter_html(sections, items=items, conversations=count):
                pass

        return view, nothing
    if op == "load":
        from interlingua.store import SessionStore

        loop = asyncio.new_event_loop()
        store = loop.run_until_complete(SessionStore.open(f"sqlite+aiosqlite:///{src / f'{name}.sqlite3'}"))
        sids = meta["sids"]
        return (lambda: [loop.run_until_complete(store.load(s)) for s in sids]), nothing
    raise SystemExit(f"unknown op {op!r}")


def cell(op: str, shape: str, mb: float, src: Path) -> None:
    """One cell (what valgrind runs): warm-up uninstrumented, then one instrumented run."""
    helper = _helper()
    fn, prep = _work(op, shape, mb, src)
    prep()
    fn()
    prep()
    gc.collect()
    helper.il_start()
    kept = fn()
    helper.il_stop()
    del kept


def _ir(path: Path) -> int:
    """The ``totals:`` line (``summary:`` stays 0 when instrumentation starts switched off)."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def count(op: str, shape: str, mb: float, src: Path, python: str, keep: Path | None) -> int:
    """Instructions of one cell's instrumented run."""
    with tempfile.TemporaryDirectory(prefix="cg-growth-") as tmp:
        out = (keep / f"cg.{op}.{_name(shape, mb)}.out") if keep else Path(tmp) / "cg.out"
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", python, str(Path(__file__).resolve()), "cell", op, shape, f"{mb:g}", str(src)]
        proc = subprocess.run(cmd, env=env, capture_output=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{op} {shape} {mb:g}: exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-1500:]}")
        return _ir(out)


def run(src: Path, sizes: list[float], ops: list[str], shapes: list[str], out_json: Path, python: str, keep: Path | None) -> None:
    """Count every cell (sizes x shapes x ops), writing ``out_json`` after each, then print the table."""
    meta = json.loads((src / "meta.json").read_text())
    res: dict[str, Any] = json.loads(out_json.read_text()) if out_json.exists() else {}
    for shape in shapes:
        for mb in sizes:
            name = _name(shape, mb)
            for op in ops:
                if op in res.get(name, {}):
                    continue
                ir = count(op, shape, mb, src, python, keep)
                n = meta[name]["messages"] if op in ("convert-chat", "litellm") else meta[name]["items"]
                res.setdefault(name, {})[op] = {"ir": ir, "n": n, "per_item": ir / n}
                out_json.write_text(json.dumps(res, indent=1))
                print(f"{name} {op}: {ir / 1e6:,.1f}M Ir, {ir / n / 1e3:.1f}k per item", flush=True)
    print(table(res, meta))


def table(res: dict[str, Any], meta: dict[str, Any]) -> str:
    """The Markdown table of per-item instructions (k Ir per item)."""
    ops = [op for op in OPS if any(op in r for r in res.values())]
    lines = ["| input | items | messages | " + " | ".join(f"{op} (kIr/item)" for op in ops) + " |", "| --- | ---: | ---: |" + " ---: |" * len(ops)]
    for name, r in res.items():
        m = meta[name]
        shape, mb = name.split("-", 1)
        label = f"{mb} MB, " + ("one conversation" if shape == "one" else f"{m['conversations']:,} conversations")
        cells = [f"{r[op]['per_item'] / 1e3:.1f}" if op in r else "" for op in ops]
        lines.append(f"| {label} | {m['items']:,} | {m['messages']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="write every cell's input")
    p.add_argument("dest", type=Path)
    p.add_argument("--mb", default="1,10,100")
    c = sub.add_parser("cell", help="one cell (what valgrind runs)")
    c.add_argument("op", choices=OPS)
    c.add_argument("shape", choices=SHAPES)
    c.add_argument("mb", type=float)
    c.add_argument("src", type=Path)
    r = sub.add_parser("run", help="count every cell under callgrind, print the table")
    r.add_argument("src", type=Path)
    r.add_argument("--mb", default="1,10,100")
    r.add_argument("--ops", default=",".join(OPS))
    r.add_argument("--shapes", default=",".join(SHAPES))
    r.add_argument("--json", type=Path, required=True, help="results (resumed if it exists)")
    r.add_argument("--python", default=sys.executable)
    r.add_argument("--keep", type=Path, default=None, help="keep the callgrind outputs in this directory")
    args = ap.parse_args(argv)
    if args.cmd == "prepare":
        prepare(args.dest, [float(x) for x in args.mb.split(",")])
    elif args.cmd == "cell":
        cell(args.op, args.shape, args.mb, args.src)
    else:
        run(args.src, [float(x) for x in args.mb.split(",")], args.ops.split(","), args.shapes.split(","), args.json, args.python, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
