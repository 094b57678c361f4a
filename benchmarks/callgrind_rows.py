#!/usr/bin/env python
"""Instruction counts (callgrind) of the interlingua side of rows (1), (2), (5), (5b), (6), (12) and (13),
on one fixed input, for comparing two source trees (e.g. before and after a redesign).

Instruction counts do not depend on the load of a shared machine, so two trees can be compared
without alternating rounds. The input is written once (``prepare``) by the tree this script runs
with, as plain files, and both trees then read the same bytes: the canonical JSON Lines, the
conversations as transcript documents, OpenAI Chat and Anthropic request bodies and Anthropic
response bodies. One measurement is a process that builds its inputs, runs the row's call once
untimed (warm-up: caches, compiled checks), then ``ROUNDS`` times; the cost of one round is the
difference of a 3-round and a 1-round process divided by 2, so start-up, imports and set-up cancel::

    python benchmarks/callgrind_rows.py prepare /tmp/cg-input
    valgrind --tool=callgrind --callgrind-out-file=d1.out python benchmarks/callgrind_rows.py row decode 1 /tmp/cg-input
    valgrind --tool=callgrind --callgrind-out-file=d3.out python benchmarks/callgrind_rows.py row decode 3 /tmp/cg-input
    # one round = (Ir of d3 - Ir of d1) / 2

``compare`` does all of that for two trees (``PYTHONPATH=<tree>/src`` each, ``PYTHONHASHSEED=0``)
and prints a Markdown table::

    python benchmarks/callgrind_rows.py compare /tmp/cg-input --before /tmp/pre30/src --after src

Only the library under test changes between the two runs of a row: this script, the input files and
the interpreter are the same.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "real"
MODEL = "claude-sonnet-4-5"
SEED = 20260101

STREAMS = [  # the recorded streams row (6) replays
    ("anthropic", "anthropic/pai_anthropic_thinking_part_stream.0.response.sse"),
    ("anthropic", "anthropic/anthropic_sdk.tool_use_response.sse"),
    ("anthropic", "anthropic/anthropic_sdk.basic_response.sse"),
    ("openai-chat", "openai_chat/openai_python.stream_text.sse"),
    ("openai-chat", "openai_chat/openai_python.stream_parallel_tool_calls.sse"),
    ("openai-chat", "openai_chat/openai_python.stream_single_tool_call.sse"),
]

ROWS = {
    "decode": "(1) `iter_jsonl` of the JSON Lines (-> Envelope structs)",
    "encode": "(2) `encode_envelope` per envelope",
    "mapping": "(5) openai-chat `decode_request` + anthropic `encode_request`",
    "mapping-ops": "(5b) canonical <-> Anthropic and OpenAI Chat request bodies, four calls",
    "stream": "(6) `iter_stream` over 6 recorded streams, 4 replays",
    "convert-request": "(12) `convert_request` openai-chat -> anthropic",
    "convert-response": "(13) `convert_response` anthropic -> openai-chat",
}


def prepare(dest: Path, conversations: int) -> None:
    """Write the fixed input: the benchmark dataset's conversations in every form a row reads."""
    sys.path.insert(0, str(HERE))
    import msgspec

    import dataset as D
    from interlingua.items import ReasoningItem, StopReason, TextItem, ToolCallItem
    from interlingua.mapping import ModelResponse, get_mapper

    dest.mkdir(parents=True, exist_ok=True)
    ds = D.build(conversations, SEED, peers=False)
    transcripts = D.transcripts(ds)
    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    (dest / "dataset.jsonl").write_bytes(ds.jsonl)
    (dest / "transcripts.json").write_bytes(msgspec.json.encode(transcripts))
    (dest / "chat_bodies.json").write_text(json.dumps([oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in transcripts]))
    (dest / "anthropic_bodies.json").write_text(json.dumps([an.encode_request(t, model=MODEL).value for t in transcripts]))
    responses = []
    for n, t in enumerate(transcripts):  # each conversation's last assistant turn that ends in a tool call
        turn: list[Any] = []
        last: list[Any] = []
        for item in t.items:
            if isinstance(item, (ReasoningItem, ToolCallItem)) or (isinstance(item, TextItem) and item.role == "assistant"):
                turn.append(item)
            elif turn and isinstance(item, TextItem):
                turn = []
            if turn and isinstance(turn[-1], ToolCallItem):
                last = list(turn)
        resp = ModelResponse(items=last, model=MODEL, response_id=f"msg_{n:06d}", stop_reason=StopReason(reason="tool_use", raw="tool_use"))
        responses.append(an.encode_response(resp, model=MODEL).value)
    (dest / "anthropic_responses.json").write_text(json.dumps(responses))
    print(f"wrote {dest}: {conversations} conversations, {len(ds.jsonl) / 1e6:.2f} MB of JSON Lines")


def build(row: str, src: Path) -> Callable[[], Any]:
    """The row's interlingua call on the prepared input (set-up done here, outside the counted rounds)."""
    import msgspec

    import interlingua
    from interlingua.codec import encode_envelope, iter_jsonl
    from interlingua.items import Transcript
    from interlingua.mapping import get_mapper

    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    jsonl = (src / "dataset.jsonl").read_bytes()
    if row == "decode":
        return lambda: list(iter_jsonl(io.BytesIO(jsonl)))
    if row == "encode":
        envs = list(iter_jsonl(io.BytesIO(jsonl)))
        return lambda: b"".join([encode_envelope(e) + b"\n" for e in envs])
    chat = json.loads((src / "chat_bodies.json").read_text())
    if row == "mapping":
        dec, enc = oc.decode_request, an.encode_request
        return lambda: [enc(dec(b).value, model=MODEL, policy="drop").value for b in chat]
    if row == "mapping-ops":
        ts = msgspec.json.decode((src / "transcripts.json").read_bytes(), type=list[Transcript])
        anb = json.loads((src / "anthropic_bodies.json").read_text())

        def ops() -> Any:
            return (
                [an.encode_request(t, model=MODEL).value for t in ts],
                [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in ts],
                [an.decode_request(b).value for b in anb],
                [oc.decode_request(b).value for b in chat],
            )

        return ops
    if row == "stream":
        from interlingua.streaming import iter_stream

        work = [(get_mapper(m), (FIXTURES / f).read_bytes()) for m, f in STREAMS] * 4
        return lambda: [list(iter_stream(m, b)) for m, b in work]
    if row == "convert-request":
        return lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop").value for b in chat]
    if row == "convert-response":
        resp = json.loads((src / "anthropic_responses.json").read_text())
        return lambda: [interlingua.convert_response(b, source="anthropic", target="openai-chat").value for b in resp]
    raise SystemExit(f"unknown row {row!r}; rows: {', '.join(ROWS)}")


def run_row(row: str, rounds: int, src: Path) -> None:
    """Build, warm up once, freeze what is alive (collections then walk only each round's objects), run ``rounds`` times."""
    fn = build(row, src)
    fn()
    gc.collect()
    gc.freeze()
    for _ in range(rounds):
        fn()


def _ir_from_text(text: str) -> int:
    """The total instruction count (Ir) of a callgrind output file's text."""
    for line in text.splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError("no summary or totals line in the callgrind output")


def _ir(path: Path) -> int:
    return _ir_from_text(path.read_text(errors="replace"))


def count(tree_src: Path, row: str, rounds: int, src: Path, python: str) -> int:
    """Instructions (Ir) of one whole process ``row ROUNDS`` with ``PYTHONPATH=tree_src``."""
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp:
        out = Path(tmp) / "cg.out"
        env = dict(os.environ, PYTHONPATH=str(tree_src), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, str(Path(__file__).resolve()), "row", row, str(rounds), str(src)]
        proc = subprocess.run(cmd, env=env, capture_output=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{row} at {tree_src}: exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-800:]}")
        return _ir(out)


def per_round(tree_src: Path, row: str, src: Path, python: str) -> int:
    """One round's instructions: (3-round process - 1-round process) / 2."""
    return (count(tree_src, row, 3, src, python) - count(tree_src, row, 1, src, python)) // 2


def compare(src: Path, before: Path, after: Path, rows: list[str], python: str) -> str:
    """The Markdown table (row, Ir before, Ir after, change)."""
    lines = ["| row | Ir before | Ir after | change |", "| --- | ---: | ---: | ---: |"]
    for row in rows:
        b, a = per_round(before, row, src, python), per_round(after, row, src, python)
        lines.append(f"| {ROWS[row]} | {b / 1e6:,.1f} M | {a / 1e6:,.1f} M | {(a - b) / b:+.1%} |")
        print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="write the fixed input")
    p.add_argument("dest", type=Path)
    p.add_argument("--conversations", type=int, default=30)
    r = sub.add_parser("row", help="run one row's call ROUNDS times (what valgrind runs)")
    r.add_argument("row", choices=sorted(ROWS))
    r.add_argument("rounds", type=int)
    r.add_argument("src", type=Path)
    c = sub.add_parser("compare", help="count both trees, print the table")
    c.add_argument("src", type=Path)
    c.add_argument("--before", type=Path, required=True, help="the first tree's src/ (PYTHONPATH)")
    c.add_argument("--after", type=Path, required=True, help="the second tree's src/")
    c.add_argument("--rows", default=",".join(ROWS))
    c.add_argument("--python", default=sys.executable)
    args = ap.parse_args(argv)
    if args.cmd == "prepare":
        prepare(args.dest, args.conversations)
    elif args.cmd == "row":
        run_row(args.row, args.rounds, args.src)
    else:
        rows = [x for x in args.rows.split(",") if x]
        bad = [x for x in rows if x not in ROWS]
        if bad:
            ap.error(f"unknown rows {bad}")
        print(compare(args.src, args.before.resolve(), args.after.resolve(), rows, args.python))
    return 0


if __name__ == "__main__":
    sys.exit(main())
