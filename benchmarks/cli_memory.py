"""Table (4b): whole-process peak RSS of every command on the big inputs, one command at a time.

Each command runs as its own process (``python -c`` running ``interlingua.cli.main``) and reports
``VmHWM`` of its own /proc/self/status as it ends (``ru_maxrss`` would report the forking parent's
peak). The inputs are made by ``run.py``'s generators (``_big_transcript``, ``_one_session``,
``_many_sessions``), in ``--dir`` (default a new temporary folder; check its disk first: the 1 GB
file needs ~1.1 GB). One JSON line per command is appended to ``DIR/results.jsonl`` and printed.

Run: ``python benchmarks/cli_memory.py doc|session|big [--only convert:pydantic-ai,view,...] [--dir DIR]``
(``doc``: a transcript document of 1,000,000 items; ``session``: a session file of one
1,000,000-item session; ``big``: 270,000 sessions, ~1.07 GB, ``convert`` picks the middle one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

_PEAK = (
    "import sys\nfrom interlingua.cli import main\ncode = 0\n"
    "try:\n    main()\nexcept SystemExit as e:\n    code = e.code if isinstance(e.code, int) else (1 if e.code else 0)\n"
    "sys.stderr.write('\\nVmHWM ' + [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0] + '\\n')\n"
    "sys.exit(code)\n"
)

TARGETS = ("canonical", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock-converse", "mistral", "ollama", "cohere",
           "otel", "pydantic-ai", "langchain", "vercel-ui", "vercel-model", "openai-finetune", "sharegpt")
"""Every `convert --to` format."""


def run(work: Path, label: str, what: str, args: list[str]) -> dict[str, object]:
    """One command as its own process: its peak RSS (MB), exit code, wall time and last stderr line."""
    err = work / "stderr.txt"
    t0 = time.perf_counter()
    with open(err, "wb") as fh:
        proc = subprocess.run([sys.executable, "-c", _PEAK, *args], stdout=subprocess.DEVNULL, stderr=fh, check=False)
    wall = time.perf_counter() - t0
    lines = err.read_bytes().decode(errors="replace").rstrip().splitlines()
    peak = int(lines[-1].split()[1]) if lines and lines[-1].startswith("VmHWM ") else 0
    said = [line for line in lines[:-1] if line.strip()]
    rec = {"label": label, "input": what, "peak_mb": round(peak / 1024, 1), "rc": proc.returncode, "wall": round(wall, 1),
           "stderr_lines": len(said), "last": said[-1][:300] if said else "", "args": args}
    with open(work / "results.jsonl", "a") as fh:
        fh.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)
    for name in ("o.json", "o.jsonl", "o.html", "o.rejects.jsonl"):
        (work / name).unlink(missing_ok=True)
    return rec


def every(work: Path, path: Path, what: str, *, session: str | None, only: set[str] | None) -> None:
    """Every command on ``path``: ``convert --to`` each format, ``migrate -o``, ``validate``, ``view -o``,
    ``repair -o``, ``trim -o`` (to 2,000 tokens; of ``session`` in a file of many sessions), ``store import``
    (a new SQLite file) and, when ``session`` is given, ``store export`` of it."""
    extra = ["--session", session] if session and what.startswith("JSON Lines") else []
    for t in TARGETS:
        if only is None or f"convert:{t}" in only:
            run(work, f"convert --from canonical --to {t} --policy degrade" + (" " + " ".join(extra) if extra else ""), what,
                ["convert", "--from", "canonical", "--to", t, "--policy", "degrade", str(path), *extra, "-o", str(work / "o.json")])
    for name, args in (("migrate -o", ["migrate", "-q", str(path), "-o", str(work / "o.jsonl")]), ("validate", ["validate", str(path)]),
                       ("view -o", ["view", str(path), "-o", str(work / "o.html")]),
                       ("repair -o", ["repair", str(path), "-o", str(work / ("o.jsonl" if path.suffix == ".jsonl" else "o.json"))]),
                       ("trim -o", ["trim", "-q", "--max-input-tokens", "2000", str(path), *extra, "-o", str(work / "o.json")])):
        if only is None or name in only:
            run(work, name, what, args)
    if only is None or "store" in only:
        db = work / "s.sqlite3"
        db.unlink(missing_ok=True)
        run(work, "store import", what, ["store", "import", "-q", str(path), "--url", str(db)])
        if session:
            run(work, f"store export {session}", what, ["store", "export", "-q", session, "--url", str(db), "-o", str(work / "o.jsonl")])
        db.unlink(missing_ok=True)


def main() -> None:
    import run as bench

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", choices=("doc", "session", "big"))
    ap.add_argument("--only", default="", help="comma-separated: convert:<format>, migrate -o, validate, view -o, repair -o, trim -o, store")
    ap.add_argument("--dir", type=Path, default=None)
    a = ap.parse_args()
    work = a.dir or Path(tempfile.mkdtemp(prefix="cli-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    if a.input == "doc":
        path = work / "doc.json"
        if not path.exists():
            bench._big_transcript(1_000_000, path)
        every(work, path, f"transcript document, 1,000,000 items, {path.stat().st_size / 1e6:.0f} MB", session=None, only=only)
    elif a.input == "session":
        path = work / "session.jsonl"
        if not path.exists():
            bench._one_session(1_000_000, path)
        every(work, path, f"session file, one session of 1,000,000 items, {path.stat().st_size / 1e6:.0f} MB", session="big", only=only)
    else:
        path = work / "big.jsonl"
        if not path.exists():
            bench._many_sessions(1074, 270_000, path)
        every(work, path, f"JSON Lines, 270,000 sessions, {path.stat().st_size / 1e6:.0f} MB", session="sess-0135000", only=only)
    os.environ.get("KEEP_INPUTS") or path.unlink()


if __name__ == "__main__":
    main()
