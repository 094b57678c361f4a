#!/usr/bin/env python
"""Re-measure the rows of docs/benchmarks.md with code written apart from ``benchmarks/run.py``,
and set each figure beside the report's.

Own data (not ``benchmarks/dataset.py``), own timing loop, own peers' calls. Each check times its
contenders in alternating rounds (order reversed every other round, one untimed warm-up, a collection
before each sample outside the timing), on this process's CPU clock, and prints the ratio of medians
(other / interlingua: above 1, interlingua is faster) with its **noise**: the range of the per-round
ratios (each round's other / interlingua). Given ``--report`` (the ``--json`` file of a ``run.py``
run), it prints the report's figure the same way (its per-round CPU samples give its range) and says
whether the two agree: their ranges overlap.

Checks (``--only`` names):

* ``decode`` (1): interlingua ``iter_jsonl`` vs pydantic-ai ``validate_json`` vs a bare msgspec
  ``Decoder(Envelope)`` per line, on the same content (the interlingua JSONL is the pydantic-ai data
  read by ``interlingua.compat``);
* ``process`` (3b): ``interlingua validate FILE`` vs a jsonschema-rs script, each a whole process (CPU
  from ``wait4``), on one ~10 MB file;
* ``store-load`` (7): loading a ~10k-item session: ``SessionStore.load`` vs raw ``sqlite3`` + msgspec
  typed decode;
* ``session-file`` (1c): ``iter_jsonl`` over a session file (a header line before each session) vs the
  same envelopes without them, pydantic-ai and bare msgspec;
* ``convert-request`` (12): ``interlingua.convert_request`` (OpenAI Chat -> Anthropic) vs LiteLLM's and
  any-llm's request conversion and the mapper pair, on OpenAI Chat bodies written here by hand;
* ``convert-response`` (13): ``interlingua.convert_response`` (Anthropic -> OpenAI Chat) vs any-llm's
  ``_convert_response`` and the mapper pair, on Anthropic response bodies written here by hand;
* ``store-session`` (15, 15b): ``SessionStore.append`` of 10,000 items in one call, and ``load``, vs the
  Agents SDK's ``SQLiteSession`` and ``SQLAlchemySession``;
* ``growth`` (16): per-item CPU of convert, validate, store load and view at two sizes (``--growth-mb``),
  as many conversations and as one, and row (12)'s call on both sides (``convert_request`` from
  OpenAI Chat and LiteLLM's ``transform_request``, per message, on hand-written bodies of about the
  same size); the figure is each operation's max/min over the cells, and LiteLLM / ours per cell.

Usage::

    pip install -e . -r benchmarks/requirements.txt
    python benchmarks/run.py --size small --only convert-request,convert-response,decode-session-file,store-sqlite-session,growth \\
        --out /tmp/r.md --json /tmp/r.json
    python benchmarks/check_independent.py --report /tmp/r.json [--only convert-request,...] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import msgspec

MODEL = "claude-sonnet-4-5"


def cpu() -> float:
    """This process's CPU time, every thread (clock_gettime: ns resolution, unlike getrusage's ticks)."""
    return time.process_time()


Contender = Callable[[], Any] | tuple[Callable[[], Any], Callable[[], Any]]
"""A call, or ``(prepare, call)``: ``prepare`` runs before every call, outside the timing."""


def samples(fns: dict[str, Contender], n: int) -> dict[str, list[float]]:
    """CPU seconds of each contender in ``n`` rounds, order reversed every other round, after one warm-up round."""
    pairs = {k: f if isinstance(f, tuple) else (None, f) for k, f in fns.items()}
    for prep, f in pairs.values():
        if prep is not None:
            prep()
        f()
    times: dict[str, list[float]] = {k: [] for k in pairs}
    keys = list(pairs)
    for i in range(n):
        for k in keys if i % 2 == 0 else keys[::-1]:
            prep, f = pairs[k]
            if prep is not None:
                prep()
            gc.collect()
            t = cpu()
            f()
            times[k].append(cpu() - t)
    return times


def rounds(fns: dict[str, Contender], n: int) -> dict[str, float]:
    """Median CPU seconds of each contender (see :func:`samples`)."""
    return {k: statistics.median(v) for k, v in samples(fns, n).items()}


@dataclass
class Figure:
    """One ratio (other / interlingua) with its noise: the range of the per-round ratios."""

    ratio: float
    lo: float
    hi: float

    @classmethod
    def of(cls, ours: list[float], other: list[float]) -> "Figure":
        per_round = [o / i for i, o in zip(ours, other) if i > 0]
        return cls(statistics.median(other) / statistics.median(ours), min(per_round), max(per_round))

    def __str__(self) -> str:
        return f"{self.ratio:.2f}x [{self.lo:.2f}-{self.hi:.2f}]"


REPORT: dict[str, Any] = {}
"""The ``--json`` of a ``run.py`` run, by row key (empty: no report given)."""


def report_figure(row: str, other: str) -> Figure | None:
    """The report's CPU figure for ``row``: ``other`` is ``"floor"`` or a substring of a peer's name."""
    r = REPORT.get(row)
    if r is None:
        return None
    il = r["interlingua"]["cpu_seconds"]
    cands = [r["floor"]] if other == "floor" and r.get("floor") else [p for p in r["peers"] if other in p["name"]]
    if not cands or cands[0].get("missing") or not cands[0]["cpu_seconds"] or not il:
        return None
    return Figure.of(il, cands[0]["cpu_seconds"])


def show(label: str, ours: Figure | None, row: str = "", other: str = "") -> None:
    """Print our figure, the report's (when given) and whether their ranges overlap."""
    theirs = report_figure(row, other) if row else None
    line = f"  {label}: independent {ours if ours is not None else 'not measured'}"
    if row and not REPORT:
        line += " | report: not given (--report)"
    elif row and theirs is None:
        line += f" | report: row {row!r} / {other!r} not in it"
    elif theirs is not None and ours is not None:
        agree = theirs.lo <= ours.hi and ours.lo <= theirs.hi
        line += f" | report {theirs}: {'agree (ranges overlap)' if agree else 'DIFFER (ranges apart)'}"
    print(line, flush=True)


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
    t = samples({
        "interlingua": lambda: list(iter_jsonl(io.BytesIO(jsonl))),
        "pydantic-ai": lambda: [ModelMessagesTypeAdapter.validate_json(x) for x in pa_lines],
        "msgspec": lambda: [dec(x) for x in lines],
    }, n)
    print(f"(1) decode ({len(jsonl) / 1e6:.1f} MB interlingua, {sum(map(len, pa_lines)) / 1e6:.1f} MB pydantic-ai), CPU:")
    show("vs pydantic-ai", Figure.of(t["interlingua"], t["pydantic-ai"]), "decode", "pydantic-ai")
    show("vs bare msgspec typed decode", Figure.of(t["interlingua"], t["msgspec"]), "decode", "floor")


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


def _fill_items(jsonl: bytes, count: int) -> list[Any]:
    """The typed items of ``jsonl``, repeated to ``count``."""
    from interlingua.codec import iter_jsonl

    items = [e.item for e in iter_jsonl(io.BytesIO(jsonl))]
    while len(items) < count:
        items = items + items[: count - len(items)]
    return items


def check_store_load(jsonl: bytes, n: int, tmp: Path) -> None:
    from interlingua.items import InputItem
    from interlingua.store import SessionStore

    items = _fill_items(jsonl, 10_000)
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
    t = samples({
        "interlingua": lambda: loop.run_until_complete(store.load(sid)),
        "raw": lambda: [dec(r[0]) for r in raw.execute("SELECT item FROM items WHERE sid = 'a' ORDER BY seq")],
    }, n)
    assert loop.run_until_complete(store.load(sid)).items == items
    loop.run_until_complete(store.close())
    loop.close()
    print(f"(7) load a {len(items):,}-item session (SQLite), CPU:")
    show("vs raw sqlite3 + msgspec typed decode", Figure.of(t["interlingua"], t["raw"]))


def check_session_file(pa_lines: list[bytes], jsonl: bytes, n: int) -> None:
    """`iter_jsonl` over a session file (a header line before each session) vs the same stream without
    them, pydantic-ai on the same conversations and a bare msgspec typed decode of the envelope lines."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from interlingua.codec import iter_jsonl
    from interlingua.items import Envelope

    out, last = [], None
    for line in jsonl.splitlines(keepends=True):
        sid = json.loads(line)["session_id"]
        if sid != last:
            out.append(json.dumps({"schema_version": "1.0", "session": {"id": sid, "metadata": {"from": "check"}}}).encode() + b"\n")
            last = sid
        out.append(line)
    sess = b"".join(out)
    dec = msgspec.json.Decoder(Envelope).decode
    lines = jsonl.splitlines()
    t = samples({
        "session file": lambda: list(iter_jsonl(io.BytesIO(sess))),
        "bare stream": lambda: list(iter_jsonl(io.BytesIO(jsonl))),
        "pydantic-ai": lambda: [ModelMessagesTypeAdapter.validate_json(x) for x in pa_lines],
        "msgspec": lambda: [dec(x) for x in lines],
    }, n)
    assert list(iter_jsonl(io.BytesIO(sess))) == list(iter_jsonl(io.BytesIO(jsonl)))
    headers = sess.count(b'"session":')
    print(f"(1c) decode a session file ({headers} header lines, {len(sess) / 1e6:.1f} MB), CPU:")
    il = t["session file"]
    show("vs the same envelopes without header lines", Figure.of(il, t["bare stream"]), "decode-session-file", "without their header lines")
    show("vs pydantic-ai", Figure.of(il, t["pydantic-ai"]), "decode-session-file", "pydantic-ai")
    show("vs bare msgspec typed decode", Figure.of(il, t["msgspec"]), "decode-session-file", "floor")


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
    the mapper pair, on hand-written bodies; each peer gets a fresh copy (they change their input),
    made outside the timing."""
    import interlingua
    from interlingua.mapping import get_mapper

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    bodies = chat_requests(n_conv)
    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    fns: dict[str, Contender] = {
        "interlingua": lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop") for b in bodies],
        "mapper pair": lambda: [an.encode_request(oc.decode_request(b).value, model=MODEL, policy="drop") for b in bodies],
    }
    copies: list[Any] = []

    def fresh() -> None:
        copies[:] = [_copy(b["messages"]) for b in bodies]

    try:
        import litellm

        cfg = litellm.AnthropicConfig()
        fns["litellm"] = (fresh, lambda: [cfg.transform_request(model=MODEL, messages=m, optional_params={"max_tokens": 64000}, litellm_params={}, headers={}) for m in copies])
    except ImportError:
        print("(12) convert_request: LiteLLM not installed")
    try:
        from any_llm.providers.anthropic.base import BaseAnthropicProvider
        from any_llm.types.completion import CompletionParams

        conv = BaseAnthropicProvider._convert_completion_params
        fns["any-llm"] = (fresh, lambda: [conv(CompletionParams(model_id=MODEL, messages=m, max_tokens=64000), provider_name="anthropic") for m in copies])
    except ImportError:
        print("(12) convert_request: any-llm not installed")
    t = samples(fns, n)
    il = t["interlingua"]
    pair = Figure.of(il, t["mapper pair"])
    print(f"(12) convert_request, {len(bodies)} hand-written OpenAI Chat bodies -> Anthropic ({statistics.median(il) * 1e3:.1f} ms CPU), "
          f"the call takes {1 / pair.ratio:.2f}x the mapper pair:")
    if "litellm" in t:
        show("vs LiteLLM", Figure.of(il, t["litellm"]), "convert-request", "LiteLLM")
    if "any-llm" in t:
        show("vs any-llm", Figure.of(il, t["any-llm"]), "convert-request", "any-llm")
    show("vs the mapper pair", pair, "convert-request", "floor")


def anthropic_responses(n: int, seed: int = 13) -> list[dict[str, Any]]:
    """Anthropic Messages response bodies written by hand: a thinking block, text and a tool call, with usage."""
    rnd = random.Random(seed)
    words = "harbor copper thread pulse margin ledger quiet fold answer tool".split()

    def text(lo: int, hi: int) -> str:
        out: list[str] = []
        while sum(map(len, out)) + len(out) < rnd.randint(lo, hi):
            out.append(rnd.choice(words))
        return " ".join(out)

    return [
        {
            "id": f"msg_{c:06d}", "type": "message", "role": "assistant", "model": MODEL,
            "content": [
                {"type": "thinking", "thinking": text(600, 2700), "signature": "s" * 200},
                {"type": "text", "text": text(100, 1500)},
                {"type": "tool_use", "id": f"toolu_{c:06d}", "name": "lookup", "input": {"q": text(5, 40), "n": rnd.randint(1, 99), "flag": True}},
            ],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": rnd.randint(100, 9000), "output_tokens": rnd.randint(10, 900)},
        }
        for c in range(n)
    ]


def check_convert_response(n_resp: int, n: int) -> None:
    """`convert_response` (Anthropic -> OpenAI Chat) vs any-llm's response conversion (from the SDK's
    validated ``Message``, as any-llm gets it) and the mapper pair, on hand-written bodies."""
    import interlingua
    from interlingua.mapping import get_mapper

    bodies = anthropic_responses(n_resp)
    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    fns: dict[str, Contender] = {
        "interlingua": lambda: [interlingua.convert_response(b, source="anthropic", target="openai-chat") for b in bodies],
        "mapper pair": lambda: [oc.encode_response(an.decode_response(b).value) for b in bodies],
    }
    try:
        from anthropic.types import Message
        from any_llm.providers.anthropic.utils import _convert_response

        fns["any-llm"] = lambda: [_convert_response(Message.model_validate(b)) for b in bodies]
    except ImportError:
        print("(13) convert_response: any-llm not installed")
    t = samples(fns, n)
    il = t["interlingua"]
    print(f"(13) convert_response, {len(bodies)} hand-written Anthropic responses -> OpenAI Chat ({statistics.median(il) * 1e3:.1f} ms CPU):")
    if "any-llm" in t:
        show("vs any-llm", Figure.of(il, t["any-llm"]), "convert-response", "any-llm")
    show("vs the mapper pair", Figure.of(il, t["mapper pair"]), "convert-response", "floor")


def check_store_session(jsonl: bytes, n: int, tmp: Path) -> None:
    """`SessionStore.append` of 10,000 items in one call (a fresh session each sample, made outside the
    timing), and `load`, vs the Agents SDK's `SQLiteSession` and `SQLAlchemySession` given the same items as dicts."""
    from interlingua.codec import to_builtins
    from interlingua.store import SessionStore

    items = _fill_items(jsonl, 10_000)
    dicts = [to_builtins(it) for it in items]
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    store = run(SessionStore.open(f"sqlite+aiosqlite:///{tmp / 'append.db'}", create=True))
    made = {"n": 0}
    cur: dict[str, Any] = {}

    def new(kind: str, make: Callable[[str], Any]) -> Callable[[], None]:
        def prep() -> None:
            made["n"] += 1
            cur[kind] = make(f"s{made['n']}")

        return prep

    fns: dict[str, Contender] = {"interlingua": (new("il", lambda _s: run(store.create_session())), lambda: run(store.append(cur["il"], items)))}
    loads: dict[str, Contender] = {"interlingua": lambda: run(store.load(cur["il"]))}
    engine = None
    try:
        from agents.memory.sqlite_session import SQLiteSession

        fns["SQLiteSession"] = (new("sq", lambda s: SQLiteSession(s, str(tmp / "sq.db"))), lambda: run(cur["sq"].add_items(dicts)))
        loads["SQLiteSession"] = lambda: run(cur["sq"].get_items())
    except ImportError:
        print("(15) store: openai-agents not installed")
    try:
        from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp / 'sa.db'}")
        fns["SQLAlchemySession"] = (new("sa", lambda s: SQLAlchemySession(s, engine=engine, create_tables=True)), lambda: run(cur["sa"].add_items(dicts)))
        loads["SQLAlchemySession"] = lambda: run(cur["sa"].get_items())
    except ImportError:
        pass
    t = samples(fns, n)
    lt = samples(loads, n)
    assert len(run(store.load(cur["il"])).items) == len(items)
    run(store.close())
    if engine is not None:
        run(engine.dispose())
    loop.close()
    il, ll = t["interlingua"], lt["interlingua"]
    print(f"(15) store, {len(items):,} items (SQLite), CPU: append in one call {statistics.median(il) * 1e3:.1f} ms, load {statistics.median(ll) * 1e3:.1f} ms")
    for peer in ("SQLiteSession", "SQLAlchemySession"):
        if peer in t:
            show(f"append vs {peer}", Figure.of(il, t[peer]), "store-sqlite-session", peer)
    for peer in ("SQLiteSession", "SQLAlchemySession"):
        if peer in lt:
            show(f"load vs {peer}", Figure.of(ll, lt[peer]), "store-sqlite-session-load", peer)


def check_growth(sizes_mb: list[float], n: int, tmp: Path) -> None:
    """Per-item CPU of convert, validate, store load and view at each size, as many conversations and
    as one conversation holding them all (own conversations: their call ids differ, so one
    conversation of all of them is valid); each operation's figure is max/min over the cells."""
    import interlingua
    from interlingua.codec import iter_jsonl
    from interlingua.items import Transcript
    from interlingua.store import SessionStore
    from interlingua.validation import validate_path
    from interlingua.view import iter_html, session_sections

    per_conv = len(to_jsonl(conversations(4))) / 4
    per_body = len(json.dumps(chat_requests(4))) / 4
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm

        cfg: Any = litellm.AnthropicConfig()
    except ImportError:
        cfg = None
        print("(16) growth: LiteLLM not installed (its column is left out)")
    loop = asyncio.new_event_loop()
    run = loop.run_until_complete
    ops = ("convert", "validate", "load", "view", "convert-chat")
    cells: dict[str, dict[str, list[float]]] = {}
    for mb in sizes_mb:
        envs = list(iter_jsonl(io.BytesIO(to_jsonl(conversations(max(1, round(mb * 1e6 / per_conv)), seed=29)))))
        for shape in ("many", "one"):
            by: dict[str, list[Any]] = {}
            for e in envs:
                by.setdefault("one" if shape == "one" else e.session_id, []).append(e.item)
            convs = list(by.values())
            items = sum(map(len, convs))
            path = tmp / f"growth-{shape}-{mb:g}.jsonl"
            with open(path, "wb") as fh:
                for sid, conv in by.items():
                    fh.write(json.dumps({"schema_version": "1.0", "session": {"id": sid}}).encode() + b"\n")
                    for seq, it in enumerate(conv):
                        fh.write(b'{"schema_version":"1.0","session_id":%s,"seq":%d,"item":%s}\n' % (json.dumps(sid).encode(), seq, msgspec.json.encode(it)))
            transcripts = [Transcript(schema_version="1.0", items=c) for c in convs]
            store = run(SessionStore.open(f"sqlite+aiosqlite:///{tmp / f'growth-{shape}-{mb:g}.db'}", create=True))
            sids = []
            for conv in convs:
                sid = run(store.create_session())
                for k in range(0, len(conv), 1000):
                    run(store.append(sid, conv[k : k + 1000]))
                sids.append(sid)

            def view(path: Path = path) -> None:
                sections, count_items, count = session_sections(str(path))
                for _chunk in iter_html(sections, items=count_items, conversations=count):
                    pass

            # row (12)'s call on both sides: hand-written OpenAI Chat bodies of about the same size
            # (one body holding every conversation's messages for the one-conversation shape)
            bodies = chat_requests(max(1, round(mb * 1e6 / per_body)), seed=31)
            if shape == "one":
                bodies = [{"model": "gpt-4.1", "messages": [m for b in bodies for m in b["messages"]]}]
            msgs = sum(len(b["messages"]) for b in bodies)
            copies: list[Any] = []

            def chat(bodies: list[dict[str, Any]] = bodies) -> list[Any]:
                return [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop") for b in bodies]

            def fresh(bodies: list[dict[str, Any]] = bodies) -> None:  # LiteLLM changes the messages it is given
                copies[:] = [_copy(b["messages"]) for b in bodies]

            def peer() -> list[Any]:
                return [cfg.transform_request(model=MODEL, messages=m, optional_params={"max_tokens": 64000}, litellm_params={}, headers={}) for m in copies]

            fns: dict[str, Contender] = {
                "convert": lambda: [interlingua.convert_request(x, source="canonical", target="anthropic", model=MODEL, policy="drop") for x in transcripts],
                "validate": lambda path=path: validate_path([str(path)]),
                "load": lambda: [run(store.load(s)) for s in sids],
                "view": view,
                "convert-chat": chat,
            }
            if cfg is not None:
                fns["litellm"] = (fresh, peer)
            t = samples(fns, n)
            run(store.close())
            cells[f"{mb:g} MB, {'one conversation' if shape == 'one' else f'{len(convs)} conversations'} ({items:,} items, {msgs:,} messages)"] = {
                op: [x / (msgs if op in ("convert-chat", "litellm") else items) for x in t[op]] for op in t
            }
    loop.close()
    print(f"(16) growth, per-item CPU (us, median of {n} rounds; convert-chat and litellm per message) at {', '.join(f'{m:g}' for m in sizes_mb)} MB:")
    for key, c in cells.items():
        print(f"    {key}: " + ", ".join(f"{op} {statistics.median(c[op]) * 1e6:.1f}" for op in c))
    rep = REPORT.get("growth")
    if cfg is not None:
        ll = [statistics.median(c["litellm"]) for c in cells.values()]
        print(f"  litellm per message max/min over the cells: {max(ll) / min(ll):.2f}x; LiteLLM / our convert-chat per cell: "
              + ", ".join(f"{statistics.median(c['litellm']) / statistics.median(c['convert-chat']):.2f}x" for c in cells.values()))
    for op in ops:
        meds = [statistics.median(c[op]) for c in cells.values()]
        spread = max(meds) / min(meds)
        noise = max((max(c[op]) - min(c[op])) / statistics.median(c[op]) for c in cells.values())
        line = f"  {op} max/min over the cells: independent {spread:.2f}x (noise: per-cell samples spread up to {noise:.0%})"
        if rep is not None:
            table = {k: r for k, r in rep["extra"]["growth"].items() if op in r}
            if not table:
                print(line + f" | report: no {op} column", flush=True)
                continue
            theirs = max(r[op] for r in table.values()) / min(r[op] for r in table.values())
            agree = abs(theirs - spread) <= max(noise, 0.1) * max(theirs, spread)
            line += f" | report {theirs:.2f}x over {len(table)} cells: {'agree (within the noise)' if agree else 'DIFFER (beyond the noise)'}"
        else:
            line += " | report: not given (--report)" if not REPORT else " | report: no growth row"
        print(line, flush=True)


CHECKS = ("decode", "process", "store-load", "session-file", "convert-request", "convert-response", "store-session", "growth")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", type=int, default=300)
    ap.add_argument("--mb", type=int, default=10, help="size of the whole-process validate file")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--growth-mb", default="1,10", help="the growth check's sizes (MB)")
    ap.add_argument("--only", default=",".join(CHECKS), help=f"comma-separated checks: {', '.join(CHECKS)}")
    ap.add_argument("--report", type=Path, default=None, help="a run.py --json file: print its figures beside these")
    args = ap.parse_args()
    only = [c for c in args.only.split(",") if c]
    bad = [c for c in only if c not in CHECKS]
    if bad:
        ap.error(f"unknown checks {bad}; choose from {', '.join(CHECKS)}")
    if args.report is not None:
        data = json.loads(args.report.read_text(encoding="utf-8"))
        REPORT.update({r["key"]: r for r in data["rows"]})
        print(f"report: {args.report} (size {data['size']}, {data['environment'].get('date_utc', '?')}, {len(REPORT)} rows)")
    pa_lines = conversations(args.conversations)
    jsonl = to_jsonl(pa_lines)
    with tempfile.TemporaryDirectory() as tmp:
        for name in only:
            fn: dict[str, Callable[[], None]] = {
                "decode": lambda: check_decode(pa_lines, jsonl, args.rounds),
                "process": lambda: check_process(jsonl, args.mb, args.rounds, Path(tmp)),
                "store-load": lambda: check_store_load(jsonl, args.rounds, Path(tmp)),
                "session-file": lambda: check_session_file(pa_lines, jsonl, args.rounds),
                "convert-request": lambda: check_convert_request(min(args.conversations, 200), args.rounds),
                "convert-response": lambda: check_convert_response(args.conversations, args.rounds),
                "store-session": lambda: check_store_session(jsonl, args.rounds, Path(tmp)),
                "growth": lambda: check_growth([float(x) for x in args.growth_mb.split(",")], max(3, args.rounds // 2), Path(tmp)),
            }
            fn[name]()


if __name__ == "__main__":
    main()
