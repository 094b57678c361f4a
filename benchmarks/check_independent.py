#!/usr/bin/env python
"""Re-measure three rows of docs/benchmarks.md with code written apart from ``benchmarks/run.py``.

Own data (not ``benchmarks/dataset.py``), own timing loop, own peers' calls. It prints CPU-time
ratios (median of alternating rounds) for a reader to compare with the report:

1. decode + validate JSONL: interlingua ``iter_jsonl`` vs pydantic-ai ``validate_json`` vs a bare
   msgspec ``Decoder(Envelope)`` per line, on the same content (the interlingua JSONL is the
   pydantic-ai data read by ``interlingua.compat``);
2. ``interlingua validate FILE`` vs a jsonschema-rs script, each a whole process (CPU from GNU time
   or ``wait4``), on one ~10 MB file;
3. loading a ~10k-item session: ``SessionStore.load`` vs raw ``sqlite3`` + msgspec typed decode;
4. ``iter_jsonl`` over a session file (a header line before each session) vs the same envelopes
   without them;
5. ``interlingua.convert_request`` (OpenAI Chat -> Anthropic) vs LiteLLM's and any-llm's request
   conversion and the mapper pair, on OpenAI Chat bodies written here by hand.

Usage::

    pip install -e . -r benchmarks/requirements.txt
    python benchmarks/check_independent.py [--mb 10] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import msgspec


def cpu() -> float:
    """This process's CPU time, every thread (clock_gettime: ns resolution, unlike getrusage's ticks)."""
    return time.process_time()


def rounds(fns: dict[str, Callable[[], Any]], n: int) -> dict[str, float]:
    """Median CPU seconds of each function; order reversed every other round, one warm-up round."""
    for f in fns.values():
        f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    keys = list(fns)
    for i in range(n):
        for k in keys if i % 2 == 0 else keys[::-1]:
            t = cpu()
            fns[k]()
            times[k].append(cpu() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def conversations(n: int, seed: int = 7) -> list[bytes]:
    """pydantic-ai histories (JSON, one per conversation): user text, thinking + text + tool call, tool return, final text."""
    from pydantic_ai.messages import (
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.usage import RequestUsage

    rnd = random.Random(seed)
    words = "alpha beta gamma delta tool call result model token stream city weather report because however".split()

    def text(lo: int, hi: int) -> str:
        out, size = [], rnd.randint(lo, hi)
        while sum(map(len, out)) + len(out) < size:
            out.append(rnd.choice(words))
        return " ".join(out)

    base = datetime(2026, 3, 1, tzinfo=timezone.utc)
    lines = []
    for c in range(n):
        msgs: list[Any] = []
        for t in range(5):
            at = base + timedelta(hours=c, minutes=t)
            call = f"call_{c}_{t}"
            msgs.append(ModelRequest(parts=[UserPromptPart(content=text(50, 400), timestamp=at)], timestamp=at))
            msgs.append(ModelResponse(
                parts=[ThinkingPart(content=text(600, 2700), signature="s" * 200, provider_name="anthropic"), TextPart(content=text(100, 1500)),
                       ToolCallPart(tool_name="lookup", args={"q": text(5, 40), "n": rnd.randint(1, 99), "flag": True}, tool_call_id=call)],
                usage=RequestUsage(input_tokens=rnd.randint(100, 9000), output_tokens=rnd.randint(10, 900)),
                model_name="claude-sonnet-4-5", provider_name="anthropic", provider_response_id=f"msg_{c}_{t}", timestamp=at, finish_reason="tool_call"))
            msgs.append(ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content=text(50, 800), tool_call_id=call, timestamp=at)], timestamp=at))
            msgs.append(ModelResponse(parts=[TextPart(content=text(100, 1500))], model_name="claude-sonnet-4-5", provider_name="anthropic",
                                      provider_response_id=f"msg_{c}_{t}b", timestamp=at, finish_reason="stop"))
        lines.append(ModelMessagesTypeAdapter.dump_json(msgs))
    return lines


def to_jsonl(pa_lines: list[bytes]) -> bytes:
    """The same histories read by interlingua's compat reader, as envelopes (one session each)."""
    from interlingua.codec import encode_envelope
    from interlingua.compat import read
    from interlingua.items import Envelope

    out = []
    for c, line in enumerate(pa_lines):
        m = read(json.loads(line), "pydantic-ai")
        for seq, item in enumerate(m.transcript.items):
            out.append(encode_envelope(Envelope(schema_version="1.0", session_id=f"s{c}", seq=seq, item=item, created_at="2026-03-01T00:00:00Z")))
    return b"\n".join(out) + b"\n"


def check_decode(pa_lines: list[bytes], jsonl: bytes, n: int) -> None:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from interlingua.codec import iter_jsonl
    from interlingua.items import Envelope

    dec = msgspec.json.Decoder(Envelope).decode
    lines = jsonl.splitlines()
    med = rounds({
        "interlingua": lambda: list(iter_jsonl(io.BytesIO(jsonl))),
        "pydantic-ai": lambda: [ModelMessagesTypeAdapter.validate_json(x) for x in pa_lines],
        "msgspec": lambda: [dec(x) for x in lines],
    }, n)
    print(f"decode ({len(jsonl) / 1e6:.1f} MB interlingua, {sum(map(len, pa_lines)) / 1e6:.1f} MB pydantic-ai): "
          f"{med['pydantic-ai'] / med['interlingua']:.2f}x pydantic-ai, {med['msgspec'] / med['interlingua']:.2f}x bare msgspec")


RS = r"""
import json, os, sys
import orjson, jsonschema_rs
d = sys.argv[1]
docs = [json.load(open(os.path.join(d, f))) for f in os.listdir(d) if f.endswith(".json")]
v = jsonschema_rs.validator_for(next(s for s in docs if s["$id"].endswith("/envelope.json")),
                                registry=jsonschema_rs.Registry([(s["$id"], s) for s in docs]))
bad = sum(0 if v.is_valid(orjson.loads(line)) else 1 for line in open(sys.argv[2], "rb") if line.strip())
sys.exit(1 if bad else 0)
"""


def child_cpu(cmd: list[str]) -> float:
    """CPU seconds (user + system) of ``cmd`` as a whole process."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, cmd
    return ru.ru_utime + ru.ru_stime


def check_process(jsonl: bytes, mb: int, n: int, tmp: Path) -> None:
    from importlib import resources

    path = tmp / "big.jsonl"
    with open(path, "wb") as fh:
        k = 0
        while fh.tell() < mb * 1_000_000:
            fh.write(jsonl if k == 0 else jsonl.replace(b'"session_id":"s', b'"session_id":"c%d-' % k))
            k += 1
    script = tmp / "rs.py"
    script.write_text(RS)
    schemas = str(resources.files("interlingua") / "schemas")
    cli = str(Path(sys.executable).with_name("interlingua"))
    t: dict[str, list[float]] = {"interlingua": [], "jsonschema-rs": []}
    cmds = {"interlingua": [cli, "validate", str(path)], "jsonschema-rs": [sys.executable, str(script), schemas, str(path)]}
    for i in range(n + 1):
        for k in (list(cmds) if i % 2 == 0 else list(cmds)[::-1]):
            c = child_cpu(cmds[k])
            if i:
                t[k].append(c)
    il, rs = statistics.median(t["interlingua"]), statistics.median(t["jsonschema-rs"])
    print(f"`interlingua validate FILE` whole process, {path.stat().st_size / 1e6:.0f} MB: {il:.2f} s CPU; "
          f"jsonschema-rs script {rs:.2f} s CPU: {rs / il:.2f}x jsonschema-rs")


def check_store_load(jsonl: bytes, n: int, tmp: Path) -> None:
    from interlingua.codec import iter_jsonl
    from interlingua.items import InputItem
    from interlingua.store import SessionStore

    items = [e.item for e in iter_jsonl(io.BytesIO(jsonl))]
    while len(items) < 10_000:
        items = items + items[: 10_000 - len(items)]
    enc = msgspec.json.Encoder().encode
    raw = sqlite3.connect(tmp / "raw.db")
    raw.execute("CREATE TABLE items (sid TEXT, seq INTEGER, item TEXT, PRIMARY KEY (sid, seq))")
    raw.executemany("INSERT INTO items VALUES ('a', ?, ?)", [(i, enc(it).decode()) for i, it in enumerate(items)])
    raw.commit()
    dec = msgspec.json.Decoder(InputItem).decode

    loop = asyncio.new_event_loop()
    store = loop.run_until_complete(SessionStore.open(f"sqlite+aiosqlite:///{tmp / 'store.db'}", create=True))
    sid = loop.run_until_complete(store.create_session())
    for k in range(0, len(items), 100):
        loop.run_until_complete(store.append(sid, items[k : k + 100]))
    med = rounds({
        "interlingua": lambda: loop.run_until_complete(store.load(sid)),
        "raw": lambda: [dec(r[0]) for r in raw.execute("SELECT item FROM items WHERE sid = 'a' ORDER BY seq")],
    }, n)
    assert loop.run_until_complete(store.load(sid)).items == items
    loop.run_until_complete(store.close())
    loop.close()
    print(f"load a {len(items):,}-item session (SQLite): {med['raw'] / med['interlingua']:.2f}x raw sqlite3 + msgspec typed decode")


def chat_requests(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """OpenAI Chat request bodies written by hand (not through any mapper): user text, assistant text +
    one tool call (JSON-string arguments), the tool's answer, assistant text; five turns each."""
    rnd = random.Random(seed)
    words = "river stone lamp orbit signal answer vector lookup table minute because again".split()

    def text(lo: int, hi: int) -> str:
        out: list[str] = []
        while sum(map(len, out)) + len(out) < rnd.randint(lo, hi):
            out.append(rnd.choice(words))
        return " ".join(out)

    bodies = []
    for c in range(n):
        msgs: list[dict[str, Any]] = [{"role": "system", "content": "Answer briefly."}]
        for t in range(5):
            call = f"call_{c}_{t}"
            msgs.append({"role": "user", "content": text(50, 400)})
            msgs.append({"role": "assistant", "content": text(100, 1500), "tool_calls": [
                {"id": call, "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": text(5, 40), "n": rnd.randint(1, 99)})}}]})
            msgs.append({"role": "tool", "tool_call_id": call, "content": text(50, 800)})
            msgs.append({"role": "assistant", "content": text(100, 1500)})
        bodies.append({"model": "gpt-4.1", "messages": msgs})
    return bodies


def _copy(o: Any) -> Any:
    return {k: _copy(v) for k, v in o.items()} if type(o) is dict else [_copy(v) for v in o] if type(o) is list else o


def check_convert_request(n_conv: int, n: int) -> None:
    """`convert_request` (OpenAI Chat -> Anthropic) vs LiteLLM's and any-llm's request conversion, and
    the mapper pair, on hand-written bodies; each peer gets a fresh copy (they change their input)."""
    import interlingua
    from interlingua.mapping import get_mapper

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    bodies = chat_requests(n_conv)
    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    fns: dict[str, Callable[[], Any]] = {
        "interlingua": lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model="claude-sonnet-4-5", policy="drop") for b in bodies],
        "mapper pair": lambda: [an.encode_request(oc.decode_request(b).value, model="claude-sonnet-4-5", policy="drop") for b in bodies],
    }
    copies: dict[str, list[Any]] = {}
    try:
        import litellm

        cfg = litellm.AnthropicConfig()

        def ll() -> Any:
            ms = [_copy(b["messages"]) for b in bodies]
            t = cpu()
            [cfg.transform_request(model="claude-sonnet-4-5", messages=m, optional_params={"max_tokens": 64000}, litellm_params={}, headers={}) for m in ms]
            copies.setdefault("litellm", []).append(cpu() - t)

        fns["litellm"] = ll
    except ImportError:
        print("convert_request: LiteLLM not installed")
    try:
        from any_llm.providers.anthropic.base import BaseAnthropicProvider
        from any_llm.types.completion import CompletionParams

        def al() -> Any:
            ms = [_copy(b["messages"]) for b in bodies]
            t = cpu()
            [BaseAnthropicProvider._convert_completion_params(CompletionParams(model_id="claude-sonnet-4-5", messages=m, max_tokens=64000), provider_name="anthropic") for m in ms]
            copies.setdefault("any-llm", []).append(cpu() - t)

        fns["any-llm"] = al
    except ImportError:
        print("convert_request: any-llm not installed")
    med = rounds(fns, n)
    for k, v in copies.items():  # the peers' own time, without the copy they were given
        med[k] = statistics.median(v[1:])
    il = med["interlingua"]
    out = [f"{med[k] / il:.2f}x {k}" for k in med if k != "interlingua"]
    print(f"convert_request, {len(bodies)} hand-written OpenAI Chat bodies -> Anthropic: {il * 1e3:.1f} ms CPU; " + ", ".join(out)
          + f" (the public call takes {il / med['mapper pair']:.2f}x the mapper pair)")


def check_session_file(jsonl: bytes, n: int) -> None:
    """`iter_jsonl` over a session file (a header line before each session) vs the same stream without them."""
    from interlingua.codec import iter_jsonl

    out, last = [], None
    for line in jsonl.splitlines(keepends=True):
        sid = json.loads(line)["session_id"]
        if sid != last:
            out.append(json.dumps({"schema_version": "1.0", "session": {"id": sid, "metadata": {"from": "check"}}}).encode() + b"\n")
            last = sid
        out.append(line)
    sess = b"".join(out)
    med = rounds({"session file": lambda: list(iter_jsonl(io.BytesIO(sess))), "bare stream": lambda: list(iter_jsonl(io.BytesIO(jsonl)))}, n)
    headers = sess.count(b'"session":')
    print(f"decode a session file ({headers} header lines): {med['bare stream'] / med['session file']:.2f}x the bare stream")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", type=int, default=300)
    ap.add_argument("--mb", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    pa_lines = conversations(args.conversations)
    jsonl = to_jsonl(pa_lines)
    with tempfile.TemporaryDirectory() as tmp:
        check_decode(pa_lines, jsonl, args.rounds)
        check_process(jsonl, args.mb, args.rounds, Path(tmp))
        check_store_load(jsonl, args.rounds, Path(tmp))
    check_session_file(jsonl, args.rounds)
    check_convert_request(min(args.conversations, 200), args.rounds)


if __name__ == "__main__":
    main()
