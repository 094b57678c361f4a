"""Rows for what users call: ``convert_request`` / ``convert_response``, ``interlingua convert`` as a
whole process, and the store against the OpenAI Agents SDK's ``SQLiteSession``.

The rows of ``run.py`` (5)/(5b) time the mapper pair (``decode_request`` + ``encode_request``); users
call :func:`interlingua.convert_request`, which adds the format check, the canonical limits, the
model's capability preflight and the report around that pair. These rows time the public call
against the peers' own public conversion calls on the same conversations, with the mapper pair
beside them (labelled, as the floor the public call wraps):

* (12) OpenAI Chat request body -> Anthropic request body: LiteLLM
  ``AnthropicConfig().transform_request`` (the whole request body LiteLLM sends) and any-llm's
  Anthropic provider ``_convert_completion_params`` on a validated ``CompletionParams`` (what
  ``any_llm.completion`` does before the HTTP call);
* (12b) canonical conversation -> Anthropic request: pydantic-ai's own mapping of its messages
  (``AnthropicModel._map_message``, what its ``Agent`` does before each request), measured when
  ``pydantic_ai.models.anthropic`` imports (it needs ``anthropic>=1.15``; any-llm pins ``anthropic<1``,
  so one environment holds one or the other);
* (13) Anthropic response body -> OpenAI Chat response body: any-llm ``_convert_response`` on the
  SDK's ``Message`` (validated from the body);
* (14) ``interlingua convert`` whole process vs a script doing the same with each peer;
* (15) the store: appending 10,000 items in one call and loading them, vs ``SQLiteSession`` and
  ``SQLAlchemySession`` (openai-agents).

Registered into ``run.py``'s CLI by :func:`install` (``--only convert-request,...``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 64000  # what interlingua adds from the model table (Anthropic requires max_tokens); given to the peers too
STORE_ITEMS = 10_000

TARGETS = {
    "convert_vs_litellm": 2.0,
    "convert_vs_anyllm": 1.0,
    "convert_vs_pair": 1.3,  # at most this many times the mapper pair
    "store_append_vs_sqlitesession": 1.2,
}


def chat_bodies(R: ModuleType, ctx: Any) -> list[dict[str, Any]]:
    """The dataset's conversations as OpenAI Chat request bodies (reasoning has no Chat form: dropped)."""
    from interlingua.mapping import get_mapper

    oc = get_mapper("openai-chat")
    return [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in R._dataset.transcripts(ctx.ds)]


def _litellm_request(R: ModuleType) -> tuple[Any, Callable[[list[dict[str, Any]]], Any] | None]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    m, mod = R._peer(f"LiteLLM {R._version('litellm')} `AnthropicConfig().transform_request` (the whole request body)", "litellm")
    if mod is None:
        return m, None
    if "litellm" not in R._IMPORTS_FROZEN:
        R._freeze_after_import("litellm")
    cfg = mod.AnthropicConfig()
    return m, lambda messages: cfg.transform_request(model=MODEL, messages=messages, optional_params={"max_tokens": MAX_TOKENS}, litellm_params={}, headers={})


def _anyllm_request(R: ModuleType) -> tuple[Any, Callable[[list[dict[str, Any]]], Any] | None]:
    m, mod = R._peer(
        f"any-llm {R._version('any-llm-sdk')} Anthropic `_convert_completion_params(CompletionParams(...))`",
        "any_llm.providers.anthropic.base",
    )
    if mod is None:
        return m, None
    from any_llm.types.completion import CompletionParams

    convert = mod.BaseAnthropicProvider._convert_completion_params
    return m, lambda messages: convert(CompletionParams(model_id=MODEL, messages=messages, max_tokens=MAX_TOKENS), provider_name="anthropic")


def row_convert_request(R: ModuleType, ctx: Any) -> Any:
    """(12) ``convert_request`` (OpenAI Chat -> Anthropic) vs LiteLLM and any-llm, the mapper pair beside them."""
    import interlingua
    from interlingua.mapping import get_mapper

    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    bodies = chat_bodies(R, ctx)
    nbytes = sum(len(json.dumps(b)) for b in bodies)
    n_msgs = sum(len(b["messages"]) for b in bodies)
    il = R.Measure("interlingua `convert_request(body, source='openai-chat', target='anthropic', model=..., policy='drop')`", "interlingua", nbytes=nbytes, items=n_msgs)
    pair = R.Measure("interlingua mapper pair alone: openai-chat `decode_request` + anthropic `encode_request` (no limits, no preflight)", "floor", nbytes=nbytes, items=n_msgs)
    ll, ll_fn = _litellm_request(R)
    al, al_fn = _anyllm_request(R)
    dec, enc = oc.decode_request, an.encode_request

    def il_run() -> list[Any]:
        return [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop").value for b in bodies]

    def pair_run() -> list[Any]:
        return [enc(dec(b).value, model=MODEL, policy="drop").value for b in bodies]

    contenders: list[Any] = [(il, il_run), (pair, pair_run)]
    copies: list[list[Any]] = []

    def prep() -> None:  # the peers change the messages they are given: a fresh copy each call, outside the timing
        copies[:] = [R._dict_copy(b["messages"]) for b in bodies]

    for m, fn in ((ll, ll_fn), (al, al_fn)):
        if fn is not None:
            m.nbytes, m.items = nbytes, n_msgs
            m.note = "given a fresh copy of the messages each call (the peer changes them), the copy outside the timing"
            contenders.append((m, lambda fn=fn: [fn(msgs) for msgs in copies], prep))
    R.alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # correctness (not timing): the same Anthropic messages count on every side
    ours = il_run()
    for fn in (ll_fn, al_fn):
        if fn is not None:
            theirs = [fn(R._dict_copy(b["messages"])) for b in bodies]
            assert [len(a["messages"]) for a in ours] == [len(t["messages"]) for t in theirs], "a peer and interlingua disagree on the message count"
    row = R.Row("convert-request", "(12) `convert_request`: OpenAI Chat request -> Anthropic request, the public call", il, [ll, al], pair)
    r_ll, r_al, r_pair = row.ratio_cpu(ll), row.ratio_cpu(al), row.ratio_cpu(pair)
    row.targets = [
        R.Target(f">= {TARGETS['convert_vs_litellm']:g}x LiteLLM", None if r_ll is None else r_ll >= TARGETS["convert_vs_litellm"], R._x(r_ll)),
        R.Target(f">= {TARGETS['convert_vs_anyllm']:g}x any-llm", None if r_al is None else r_al >= TARGETS["convert_vs_anyllm"], R._x(r_al)),
        R.Target(
            f"<= {TARGETS['convert_vs_pair']:g}x the mapper pair",
            None if r_pair is None else 1 / r_pair <= TARGETS["convert_vs_pair"],
            "" if r_pair is None else f"{1 / r_pair:.2f}x",
        ),
    ]
    row.notes.append(
        f"{len(bodies)} conversations as OpenAI Chat request bodies ({n_msgs} messages, {nbytes / 1e6:.1f} MB of JSON), no tool "
        "definitions: interlingua's preflight synthesizes them from the calls (Anthropic refuses tool_use blocks without `tools`), "
        "LiteLLM adds a placeholder tool; every side writes `max_tokens`"
    )
    row.notes.append(
        "the public call = format check + decode + canonical limits + capability preflight (`fit`) + encode + report; the floor "
        "is the mapper pair it wraps (the figure of rows (5)/(5b))"
    )
    return row


def _pydantic_ai_mapper(R: ModuleType) -> tuple[Any, Callable[[list[Any]], Any] | None]:
    m, mod = R._peer(f"pydantic-ai {R._version('pydantic-ai-slim')} `AnthropicModel._map_message` (its own mapping)", "pydantic_ai.models.anthropic")
    if mod is None:
        m.note = "not importable here: pydantic-ai's Anthropic model needs anthropic>=1.15, which any-llm (anthropic<1) excludes; run this row in an environment with it"
        return m, None
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.providers.anthropic import AnthropicProvider

    model = mod.AnthropicModel(MODEL, provider=AnthropicProvider(api_key="not-used"))
    params = ModelRequestParameters()
    loop = asyncio.new_event_loop()
    return m, lambda messages: loop.run_until_complete(model._map_message(messages, params, {}))


def row_convert_request_pydantic_ai(R: ModuleType, ctx: Any) -> Any:
    """(12b) canonical conversation -> Anthropic request: ``convert_request`` vs pydantic-ai's own mapping."""
    import interlingua
    from interlingua.mapping import get_mapper

    an = get_mapper("anthropic")
    transcripts = R._dataset.transcripts(ctx.ds)
    nbytes = len(ctx.ds.jsonl)
    n_items = sum(len(t.items) for t in transcripts)
    il = R.Measure("interlingua `convert_request(transcript, source='canonical', target='anthropic', model=...)`", "interlingua", nbytes=nbytes, items=n_items)
    enc = R.Measure("interlingua anthropic `encode_request` alone (no validation, no preflight)", "floor", nbytes=nbytes, items=n_items)
    pa, pa_fn = _pydantic_ai_mapper(R)
    contenders: list[Any] = [
        (il, lambda: [interlingua.convert_request(t, source="canonical", target="anthropic", model=MODEL, policy="drop").value for t in transcripts]),
        (enc, lambda: [an.encode_request(t, model=MODEL, policy="drop").value for t in transcripts]),
    ]
    if pa_fn is not None and ctx.ds.pydantic_ai is not None:
        pa.nbytes, pa.items = nbytes, n_items
        msgs = ctx.ds.pydantic_ai
        contenders.append((pa, lambda: [pa_fn(m) for m in msgs]))
    R.alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    row = R.Row("convert-request-pydantic-ai", "(12b) canonical conversation -> Anthropic request vs pydantic-ai's own mapping", il, [pa], enc)
    r = row.ratio_cpu(pa)
    row.targets = [R.Target("report (same content: the dataset's conversations in each library's own form)", None, R._x(r))]
    row.notes.append(
        "interlingua validates the transcript (schema and semantic checks, as for a file), preflights it for the model and encodes; "
        "pydantic-ai maps its `ModelMessage` list to Anthropic `MessageParam`s (no validation)"
    )
    return row


def _response_bodies(ctx: Any, R: ModuleType) -> list[dict[str, Any]]:
    """Anthropic response bodies: each conversation's last assistant turn (reasoning, text, tool call) as the API returns it."""
    from interlingua.items import ReasoningItem, StopReason, TextItem, ToolCallItem
    from interlingua.mapping import ModelResponse, get_mapper

    an = get_mapper("anthropic")
    out = []
    for n, t in enumerate(R._dataset.transcripts(ctx.ds)):
        # the assistant turn before the last tool result: reasoning, text, tool call
        turn: list[Any] = []
        for item in t.items:
            if isinstance(item, (ReasoningItem, ToolCallItem)) or (isinstance(item, TextItem) and item.role == "assistant"):
                turn.append(item)
            elif turn and isinstance(item, TextItem):
                turn = []  # a user turn starts a new exchange
            if turn and isinstance(turn[-1], ToolCallItem):
                last = list(turn)
        resp = ModelResponse(items=last, model=MODEL, response_id=f"msg_{n:06d}", stop_reason=StopReason(reason="tool_use", raw="tool_use"))
        out.append(an.encode_response(resp, model=MODEL).value)
    return out


def row_convert_response(R: ModuleType, ctx: Any) -> Any:
    """(13) ``convert_response`` (Anthropic -> OpenAI Chat) vs any-llm's response conversion."""
    import interlingua
    from interlingua.mapping import get_mapper

    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    bodies = _response_bodies(ctx, R)
    nbytes = sum(len(json.dumps(b)) for b in bodies)
    il = R.Measure("interlingua `convert_response(body, source='anthropic', target='openai-chat')`", "interlingua", nbytes=nbytes, items=len(bodies))
    pair = R.Measure("interlingua mapper pair alone: anthropic `decode_response` + openai-chat `encode_response`", "floor", nbytes=nbytes, items=len(bodies))
    al, mod = R._peer(f"any-llm {R._version('any-llm-sdk')} Anthropic `_convert_response(Message.model_validate(body))`", "any_llm.providers.anthropic.utils")
    contenders: list[Any] = [
        (il, lambda: [interlingua.convert_response(b, source="anthropic", target="openai-chat").value for b in bodies]),
        (pair, lambda: [oc.encode_response(an.decode_response(b).value).value for b in bodies]),
    ]
    if mod is not None:
        from anthropic.types import Message

        conv = mod._convert_response
        al.nbytes, al.items = nbytes, len(bodies)
        contenders.append((al, lambda: [conv(Message.model_validate(b)) for b in bodies]))
    R.alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    row = R.Row("convert-response", "(13) `convert_response`: Anthropic response -> OpenAI Chat response, the public call", il, [al], pair)
    r_al = row.ratio_cpu(al)
    row.targets = [R.Target(">= 1x any-llm (report)", None if r_al is None else r_al >= 1.0, R._x(r_al))]
    row.notes.append(f"{len(bodies)} Anthropic response bodies (each conversation's last assistant turn: thinking, text, tool use)")
    return row


_PEER_SCRIPT = {
    "litellm": (
        "import json,os,sys;os.environ.setdefault('LITELLM_LOCAL_MODEL_COST_MAP','True');import litellm;"
        "b=json.load(open(sys.argv[1]));"
        f"out=litellm.AnthropicConfig().transform_request(model='{MODEL}',messages=b['messages'],optional_params={{'max_tokens':{MAX_TOKENS}}},litellm_params={{}},headers={{}});"
        "json.dump(out,open(sys.argv[2],'w'),indent=2)"
    ),
    "any_llm": (
        "import json,sys;from any_llm.providers.anthropic.base import BaseAnthropicProvider as P;from any_llm.types.completion import CompletionParams as C;"
        "b=json.load(open(sys.argv[1]));"
        f"out=P._convert_completion_params(C(model_id='{MODEL}',messages=b['messages'],max_tokens={MAX_TOKENS}),provider_name='anthropic');"
        "json.dump(out,open(sys.argv[2],'w'),indent=2)"
    ),
}


def row_convert_cli(R: ModuleType, ctx: Any) -> Any:
    """(14) ``interlingua convert`` as a whole process vs a script doing the same with each peer."""
    import importlib.util

    bodies = chat_bodies(R, ctx)
    # one conversation as long as all of them (what a user converts: one request body)
    big = {"model": "gpt-4.1", "messages": [m for b in bodies for m in b["messages"]]}
    src = ctx.workdir / "chat-request.json"
    src.write_text(json.dumps(big))
    out = ctx.workdir / "converted.json"
    cli = R._cli_command()
    il = R.Measure(f"`interlingua convert --from openai-chat --to anthropic --model {MODEL} --policy drop` ({src.stat().st_size / 1e6:.1f} MB)", "interlingua", nbytes=src.stat().st_size, items=len(big["messages"]))
    fl = R.Measure('`python -c "import json, interlingua"` (start-up floor)', "floor")
    contenders: list[Any] = [
        (il, [*cli, "convert", "--from", "openai-chat", "--to", "anthropic", "--model", MODEL, "--policy", "drop", str(src), "-o", str(out)]),
        (fl, [sys.executable, "-c", "import json, interlingua"]),
    ]
    peers = []
    for mod, label in (("litellm", f"LiteLLM {R._version('litellm')}"), ("any_llm", f"any-llm {R._version('any-llm-sdk')}")):
        m = R.Measure(f"`python -c` script: json.load, {label} conversion, json.dump (indent 2)", "peer", nbytes=il.nbytes, items=il.items)
        if importlib.util.find_spec(mod) is None:
            m.missing, m.note = True, f"{R.NOT_INSTALLED} (pip install -r benchmarks/requirements.txt)"
        else:
            contenders.append((m, [sys.executable, "-c", _PEER_SCRIPT[mod], str(src), str(ctx.workdir / f"out-{mod}.json")]))
        peers.append(m)
    R.alternate_processes(contenders, ctx.size.rounds, max(ctx.size.warmup, 1), cwd=ctx.workdir)
    row = R.Row("convert-cli", "(14) `interlingua convert` whole process vs a peer script doing the same", il, peers, fl)
    row.targets = [R.Target("report", None, "; ".join(f"{p.name.split(' conversion')[0]}: {R._x(row.ratio_cpu(p))}" for p in peers if not p.missing))]
    row.notes.append("each sample is a fresh process (CPU: the child's user + system time); the peers import their whole package as a user's script does")
    return row


def row_store_sqlite_session(R: ModuleType, ctx: Any) -> Any:
    """(15) append 10,000 items in one call, and load them: ``SessionStore`` vs ``SQLiteSession`` and ``SQLAlchemySession``."""
    from interlingua.codec import to_builtins
    from interlingua.store import SessionStore

    items = [e.item for e in ctx.ds.envelopes]
    while len(items) < STORE_ITEMS:
        items = items + items
    items = items[:STORE_ITEMS]
    dicts = [to_builtins(it) for it in items]
    loop = asyncio.new_event_loop()
    run_ = loop.run_until_complete
    wd = Path(tempfile.mkdtemp(prefix="store15-", dir=ctx.workdir))
    store = run_(SessionStore.open(f"sqlite+aiosqlite:///{wd / 'il.sqlite3'}", create=True))
    il = R.Measure("interlingua `SessionStore.append(sid, items)` (SQLite), 10,000 typed items in one call", "interlingua", items=STORE_ITEMS)
    ls = R.Measure("interlingua `SessionStore.load(sid)` (SQLite), 10,000 items", "interlingua", items=STORE_ITEMS)
    sq, sq_mod = R._peer(f"OpenAI Agents SDK {R._version('openai-agents')} `SQLiteSession.add_items` (dicts)", "agents.memory.sqlite_session")
    sa, sa_mod = R._peer(f"OpenAI Agents SDK {R._version('openai-agents')} `SQLAlchemySession.add_items` (SQLite, dicts)", "agents.extensions.memory.sqlalchemy_session")
    sq_load = R.Measure(sq.name.replace("add_items", "get_items"), "peer", missing=sq.missing, items=STORE_ITEMS)
    sa_load = R.Measure(sa.name.replace("add_items", "get_items"), "peer", missing=sa.missing, items=STORE_ITEMS)
    n = [0]
    sids: dict[str, Any] = {}

    def fresh(kind: str) -> Callable[[], None]:
        def prep() -> None:
            n[0] += 1
            if kind == "il":
                sids["il"] = run_(store.create_session())
            elif kind == "sq":
                sids["sq"] = sq_mod.SQLiteSession(f"s{n[0]}", str(wd / "agents-sqlite.db"))
            else:
                from sqlalchemy.ext.asyncio import create_async_engine

                if "engine" not in sids:
                    sids["engine"] = create_async_engine(f"sqlite+aiosqlite:///{wd / 'agents-sa.sqlite3'}")
                sids["sa"] = sa_mod.SQLAlchemySession(f"s{n[0]}", engine=sids["engine"], create_tables=True)

        return prep

    contenders: list[Any] = [(il, lambda: run_(store.append(sids["il"], items)), fresh("il"))]
    if sq_mod is not None:
        sq.items = STORE_ITEMS
        contenders.append((sq, lambda: run_(sids["sq"].add_items(dicts)), fresh("sq")))
    if sa_mod is not None:
        sa.items = STORE_ITEMS
        contenders.append((sa, lambda: run_(sids["sa"].add_items(dicts)), fresh("sa")))
    R.alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # loads of the last filled sessions
    loads: list[Any] = [(ls, lambda: run_(store.load(sids["il"])))]
    if sq_mod is not None:
        loads.append((sq_load, lambda: run_(sids["sq"].get_items())))
    if sa_mod is not None:
        loads.append((sa_load, lambda: run_(sids["sa"].get_items())))
    R.alternate(loads, ctx.size.rounds, ctx.size.warmup)
    assert len(run_(store.load(sids["il"])).items) == STORE_ITEMS
    run_(store.close())
    if "engine" in sids:
        run_(sids["engine"].dispose())
    row = R.Row("store-sqlite-session", "(15) store: append 10,000 items in one call vs the Agents SDK's sessions (SQLite)", il, [sq, sa], None)
    r = row.ratio_cpu(sq)
    row.targets = [R.Target(f">= {TARGETS['store_append_vs_sqlitesession']:g}x `SQLiteSession` (append)", None if r is None else r >= TARGETS["store_append_vs_sqlitesession"], R._x(r))]
    load_row = R.Row("store-sqlite-session-load", "(15b) store: load those 10,000 items vs the Agents SDK's sessions", ls, [sq_load, sa_load], None)
    load_row.targets = [R.Target("report", None, R._x(load_row.ratio_cpu(sq_load)))]
    row.notes.append(
        "one session per sample, created outside the timing; interlingua appends typed items (validated, encoded once); the SDK's "
        "sessions take the same items as dicts (json.dumps each); CPU of this process (aiosqlite's and SQLiteSession's worker threads included)"
    )
    return [row, load_row]


def session_file_bytes(ds: Any) -> bytes:
    """The dataset as a session file: a header line (``session_file.header_bytes``, what ``migrate -o``
    and ``store export`` write) before each session's envelope lines."""
    from interlingua.codec import encode_envelope
    from interlingua.session_file import header_bytes

    by: dict[str, list[bytes]] = {}
    for e in ds.envelopes:
        by.setdefault(e.session_id, []).append(encode_envelope(e) + b"\n")
    return b"".join(header_bytes(sid, metadata={"source": "benchmark"}) + b"\n" + b"".join(lines) for sid, lines in by.items())


def row_decode_session_file(R: ModuleType, ctx: Any) -> Any:
    """(1c) ``iter_jsonl`` over a session file (header lines between the sessions) vs the bare stream and pydantic-ai."""
    import io

    import msgspec

    from interlingua.codec import iter_jsonl
    from interlingua.items import Envelope

    ds = ctx.ds
    sess = session_file_bytes(ds)
    bare = ds.jsonl
    sessions = len({e.session_id for e in ds.envelopes})
    il = R.Measure(f"interlingua `iter_jsonl` over the session file ({sessions} header lines, {len(sess) / 1e6:.1f} MB)", "interlingua", nbytes=len(sess), items=ds.items)
    il_bare = R.Measure("interlingua `iter_jsonl` over the same envelopes without their header lines", "interlingua", nbytes=len(bare), items=ds.items)
    pa, pa_mod = R._peer(f"pydantic-ai {R._version('pydantic-ai-slim')} `ModelMessagesTypeAdapter.validate_json`", "pydantic_ai.messages")
    fl = R.Measure(f"bare msgspec {R._version('msgspec')} `Decoder(Envelope).decode` per line (headers skipped, no checks)", "floor", nbytes=len(sess), items=ds.items)
    dec = msgspec.json.Decoder(Envelope).decode
    split = [line for line in sess.splitlines() if b'"item"' in line[:4096]]
    contenders: list[Any] = [
        (il, lambda: list(iter_jsonl(io.BytesIO(sess)))),
        (il_bare, lambda: list(iter_jsonl(io.BytesIO(bare)))),
        (fl, lambda: [dec(line) for line in split]),
    ]
    if pa_mod is not None and ds.pydantic_ai_lines is not None:
        ta, lines = pa_mod.ModelMessagesTypeAdapter, ds.pydantic_ai_lines
        pa.nbytes, pa.items = sum(map(len, lines)), ds.items
        contenders.append((pa, lambda: [ta.validate_json(line) for line in lines]))
    R.alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    assert list(iter_jsonl(io.BytesIO(sess))) == list(iter_jsonl(io.BytesIO(bare))) == ds.envelopes
    row = R.Row("decode-session-file", "(1c) decode + validate a session file (the files `migrate -o` and `store export` write)", il, [il_bare, pa], fl)
    r_bare, r_pa, r_fl = row.ratio_cpu(il_bare), row.ratio_cpu(pa), row.ratio_cpu(fl)
    row.targets = [
        R.Target("session file at the bare-stream speed (>= 0.9x)", None if r_bare is None else r_bare >= 0.9, R._x(r_bare)),
        R.Target(">= 3x pydantic-ai (as row (1))", None if r_pa is None else r_pa >= 3.0, R._x(r_pa)),
        R.Target(">= 0.85x bare msgspec typed decode (as row (1))", None if r_fl is None else r_fl >= 0.85, R._x(r_fl)),
    ]
    row.notes.append(f"{sessions} sessions, a header line (`session_file.header_bytes`, with metadata) before each; the same envelopes as row (1)")
    return row


GROWTH_MB = {"tiny": (1, 4), "small": (1, 10, 100), "full": (1, 10, 100)}
"""The input sizes of the growth table, per ``--size`` (``INTERLINGUA_BENCH_GROWTH_MB=1,10`` overrides)."""


def _grown_sessions(ds: Any, target_mb: float, *, one: bool) -> list[list[Any]]:
    """The dataset's items repeated until their JSON is ``target_mb``: as many conversations as it takes
    (each the size of the dataset's), or ``one`` conversation holding them all."""
    from interlingua.codec import encode_envelope

    per = [[e.item for e in ds.envelopes if e.session_id == sid] for sid in dict.fromkeys(e.session_id for e in ds.envelopes)]
    size = len(ds.jsonl) / max(1, len(ds.envelopes))  # bytes per item, about
    want = int(target_mb * 1e6 / size)
    out: list[list[Any]] = []
    total = 0
    while total < want:
        for conv in per:
            out.append(conv)
            total += len(conv)
            if total >= want:
                break
    if one:  # ids are unique in a conversation: each repetition's ids get a suffix
        import msgspec

        def renamed(item: Any, r: int) -> Any:
            if r == 0:
                return item
            changes = {f: f"{getattr(item, f)}-r{r}" for f in ("id", "call_id") if isinstance(getattr(item, f, None), str)}
            return msgspec.structs.replace(item, **changes) if changes else item

        return [[renamed(it, r) for r, conv in enumerate(out) for it in conv]]
    del encode_envelope
    return out


def row_growth(R: ModuleType, ctx: Any) -> Any:
    """(16) Per-item cost of convert, validate, store load and ``view`` as the input grows (many
    conversations, and one conversation as large as all of them): flat within 10% is the goal."""
    import io
    import statistics
    import time

    import interlingua
    from interlingua.codec import SCHEMA_VERSION
    from interlingua.items import Transcript
    from interlingua.session_file import header_bytes, session_lines
    from interlingua.store import SessionStore
    from interlingua.validation import validate_path
    from interlingua.view import iter_html, session_sections
    from interlingua.mapping import get_mapper

    ll, ll_fn = _litellm_request(R)
    env = os.environ.get("INTERLINGUA_BENCH_GROWTH_MB")
    sizes = tuple(float(x) for x in env.split(",")) if env else GROWTH_MB.get(ctx.size_name, (1, 4))
    rounds = max(3, min(ctx.size.rounds, 3))
    loop = asyncio.new_event_loop()
    run_ = loop.run_until_complete
    table: dict[str, dict[str, float]] = {}

    def per_item(fn: Callable[[], Any], n: int, prep: Callable[[], Any] = lambda: None) -> float:
        prep()
        fn()  # warm-up
        samples = []
        for _ in range(rounds):
            import gc

            prep()  # outside the timing (LiteLLM changes the messages it is given: a fresh copy)
            gc.collect()
            t = time.process_time()
            fn()
            samples.append((time.process_time() - t) / n)
        return statistics.median(samples)

    for shape in ("many", "one"):
        for mb in sizes:
            convs = _grown_sessions(ctx.ds, mb, one=shape == "one")
            n = sum(map(len, convs))
            key = f"{mb:g} MB, {'one conversation' if shape == 'one' else f'{len(convs)} conversations'}"
            path = ctx.workdir / f"growth-{shape}-{mb:g}.jsonl"
            with open(path, "wb") as fh:
                for k, conv in enumerate(convs):
                    sid = f"g{k:06d}"
                    fh.writelines(session_lines(sid, conv, header=header_bytes(sid)))
            transcripts = [Transcript(schema_version=SCHEMA_VERSION, items=conv) for conv in convs]
            row: dict[str, float] = {"items": n, "mb": path.stat().st_size / 1e6}
            row["convert"] = per_item(lambda: [interlingua.convert_request(t, source="canonical", target="anthropic", model=MODEL, policy="drop") for t in transcripts], n)
            row["validate"] = per_item(lambda: validate_path([str(path)]), n)

            def view() -> None:
                sections, _items, count = session_sections(str(path))
                for _chunk in iter_html(sections, items=_items, conversations=count):
                    pass

            row["view"] = per_item(view, n)
            # row (12)'s call on both sides, the same OpenAI Chat bodies (per message)
            oc = get_mapper("openai-chat")
            bodies = [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in transcripts]
            msgs = sum(len(b["messages"]) for b in bodies)
            row["messages"] = msgs
            row["convert-chat"] = per_item(lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop") for b in bodies], msgs)
            if ll_fn is not None:
                copies: list[Any] = []
                row["litellm"] = per_item(lambda: [ll_fn(m) for m in copies], msgs, prep=lambda: copies.__setitem__(slice(None), [R._dict_copy(b["messages"]) for b in bodies]))
            del bodies
            db = ctx.workdir / f"growth-{shape}-{mb:g}.sqlite3"
            store = run_(SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True))
            sids = []
            for conv in convs:
                sid = run_(store.create_session())
                for k in range(0, len(conv), 1000):
                    run_(store.append(sid, conv[k : k + 1000]))
                sids.append(sid)
            row["load"] = per_item(lambda: [run_(store.load(sid)) for sid in sids], n)
            run_(store.close())
            db.unlink()
            path.unlink()
            del transcripts, convs
            table[key] = row
    ops = ("convert", "validate", "load", "view", "convert-chat")
    spread = {op: max(r[op] for r in table.values()) / min(r[op] for r in table.values()) for op in ops}
    il = R.Measure("per-item CPU of each operation, at each size (see the table in the notes)", "interlingua")
    row_ = R.Row("growth", "(16) growth: per-item cost from the smallest to the largest input, and one huge conversation", il, [], None)
    row_.targets = [R.Target(f"{op} per item flat within 10% (max/min over every size and shape)", spread[op] <= 1.10, f"{spread[op]:.2f}x") for op in ops]
    if all("litellm" in r for r in table.values()):
        ll_spread = max(r["litellm"] for r in table.values()) / min(r["litellm"] for r in table.values())
        ratios = [r["litellm"] / r["convert-chat"] for r in table.values()]
        row_.targets.append(R.Target("report: LiteLLM per message (max/min), and LiteLLM / our convert-chat per cell", None, f"{ll_spread:.2f}x; " + ", ".join(f"{x:.2f}x" for x in ratios)))
    row_.extra["growth"] = table
    cols = (*ops, "litellm")
    lines = ["| input | items | messages | " + " | ".join(f"{op} (us/{'message' if op in ('convert-chat', 'litellm') else 'item'})" for op in cols) + " |", "|---|---:|---:|" + "---:|" * len(cols)]
    for key, r in table.items():
        lines.append(f"| {key} ({r['mb']:.1f} MB) | {int(r['items']):,} | {int(r['messages']):,} | " + " | ".join(f"{r[op] * 1e6:.1f}" if op in r else "" for op in cols) + " |")
    row_.notes.append("\n".join(lines))
    row_.notes.append(
        f"CPU medians of {rounds} runs per cell (process time, this process; aiosqlite's worker thread included for load); convert = "
        "`convert_request(transcript, source='canonical', target='anthropic', policy='drop')` per conversation; validate = "
        "`validate_path` of the session file; view = `session_sections` + `iter_html` streamed to nowhere; load = `SessionStore.load` per session; "
        "convert-chat = row (12)'s call `convert_request(body, source='openai-chat', target='anthropic')` on the conversations as OpenAI Chat "
        "bodies, litellm = LiteLLM `AnthropicConfig().transform_request` on the same bodies' messages (a fresh copy each run, outside the timing), "
        f"both per message (the peer: {ll.name}{'' if ll_fn is not None else ', not installed'})"
    )
    return row_


ROWS: list[tuple[str, Callable[[ModuleType, Any], Any]]] = [
    ("growth", row_growth),
    ("decode-session-file", row_decode_session_file),
    ("convert-request", row_convert_request),
    ("convert-request-pydantic-ai", row_convert_request_pydantic_ai),
    ("convert-response", row_convert_response),
    ("convert-cli", row_convert_cli),
    ("store-sqlite-session", row_store_sqlite_session),
]


def install(R: ModuleType) -> None:
    """Register these rows with ``run.py``'s :func:`register_row` (run as a script or imported)."""
    for key, fn in ROWS:
        R.register_row(key)(lambda ctx, fn=fn: fn(R, ctx))
