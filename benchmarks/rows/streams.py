"""Rows (6) and (6b): stream accumulation over recorded SSE (and Ollama NDJSON) replayed from memory,
against SSE parsing alone; (6b) on recorded streams lengthened to about 1,000 events."""

from __future__ import annotations

import json
from typing import Any

from harness import FIXTURES, TARGETS, Context, Measure, Row, Target, alternate


def _sse_streams() -> list[tuple[str, str, bytes]]:
    """Recorded streams replayed by (6): (mapper name, file name, bytes)."""
    pick = [
        ("anthropic", "anthropic/pai_anthropic_thinking_part_stream.0.response.sse"),
        ("anthropic", "anthropic/anthropic_sdk.tool_use_response.sse"),
        ("anthropic", "anthropic/anthropic_sdk.basic_response.sse"),
        ("openai-chat", "openai_chat/openai_python.stream_text.sse"),
        ("openai-chat", "openai_chat/openai_python.stream_parallel_tool_calls.sse"),
        ("openai-chat", "openai_chat/openai_python.stream_single_tool_call.sse"),
    ]
    return [(m, f, (FIXTURES / f).read_bytes()) for m, f in pick]


def _parse_only(blob: bytes) -> int:
    """httpx-sse over an in-memory response, ``json.loads`` of every data field except ``[DONE]``."""
    import httpx
    from httpx_sse import EventSource

    n = 0
    resp = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=[blob])
    for sse in EventSource(resp).iter_sse():
        if sse.data and sse.data != "[DONE]":
            json.loads(sse.data)
        n += 1
    return n


def row_stream(ctx: Context) -> Row:
    """(6) Stream accumulation over recorded SSE, replayed from memory."""
    from interlingua.mapping import get_mapper
    from interlingua.streaming import StreamDone, iter_stream

    streams = _sse_streams()
    replays = max(4, ctx.size.conversations // 3)
    work = [(get_mapper(m), blob) for m, _f, blob in streams] * replays
    nbytes = sum(len(b) for _m, b in work)
    events = sum(_parse_only(b) for _m, b in work[: len(streams)]) * replays
    il = Measure("interlingua `iter_stream(mapper, bytes)` to the terminal event", "interlingua", nbytes=nbytes, items=events)
    fl = Measure("httpx-sse `EventSource.iter_sse` + `json.loads` of each data field", "floor", nbytes=nbytes, items=events)

    def il_run() -> int:
        n = 0
        for mapper, blob in work:
            for _ev in iter_stream(mapper, blob):
                n += 1
        return n

    alternate([(il, il_run), (fl, lambda: [_parse_only(b) for _m, b in work])], ctx.size.rounds, ctx.size.warmup)
    for mapper, blob in work[: len(streams)]:
        last = list(iter_stream(mapper, blob))[-1]
        assert isinstance(last, StreamDone), (mapper, last)
    row = Row("stream", "(6) stream accumulation (recorded SSE replayed from memory)", il, [], fl)
    r_fl = row.ratio_cpu(fl)
    limit = TARGETS["stream_vs_parse"]
    row.targets = [Target(f"<= {limit:g}x the parse-only time", None if r_fl is None else 1 / r_fl <= limit if r_fl > 0 else None)]
    row.notes.append(
        f"{len(streams)} recorded streams ({', '.join(f for _m, f, _b in streams)}) replayed {replays} times each: "
        f"{len(work)} streams, {events} SSE events, {nbytes / 1e6:.2f} MB"
    )
    if r_fl is not None and r_fl > 0:
        row.notes.append(f"interlingua takes {1 / r_fl:.2f}x the parse-only time (CPU); both parse with httpx-sse, interlingua adds the accumulator and the events")
    return row


# --------------------------------------------------------------------------- long streams (about 1,000 events)

LONG_STREAM_EVENTS = 1000

_LONG_STREAM_FIXTURES = [
    ("anthropic", "anthropic/pai_anthropic_thinking_part_stream.0.response.sse"),
    ("openai-chat", "openai_chat/openai_python.stream_text.sse"),
    ("openai-responses", "openai_responses/pai_openai_responses_stream.1.response.sse"),
    ("gemini", "gemini/pai_google_streaming_tool_call_thought_signature.1.response.sse"),
    ("ollama", "ollama/ollama_docs.chat_stream_text.response.ndjson"),
]


def _sse_data(event: bytes) -> Any:
    for line in event.split(b"\n"):
        if line.startswith(b"data:"):
            try:
                return json.loads(line[5:].strip())
            except ValueError:
                return None
    return None


def _is_text_delta(mapper: str, d: Any) -> bool:
    """A recorded event that only adds text (repeating it keeps the stream valid)."""
    if not isinstance(d, dict):
        return False
    if mapper == "anthropic":
        return d.get("type") == "content_block_delta" and (d.get("delta") or {}).get("type") in ("text_delta", "thinking_delta")
    if mapper == "openai-chat":
        ch = d.get("choices") or [{}]
        delta = ch[0].get("delta") or {}
        return ch[0].get("finish_reason") is None and set(delta) == {"content"}
    if mapper == "openai-responses":
        return d.get("type") in ("response.output_text.delta", "response.reasoning_summary_text.delta")
    if mapper == "gemini":
        c = (d.get("candidates") or [{}])[0]
        parts = (c.get("content") or {}).get("parts") or []
        return "finishReason" not in c and bool(parts) and all(set(p) == {"text"} for p in parts)
    if mapper == "ollama":
        return d.get("done") is False and not (d.get("message") or {}).get("tool_calls")
    return False


def long_stream(mapper: str, blob: bytes, events: int = LONG_STREAM_EVENTS) -> tuple[bytes, int]:
    """A recorded stream lengthened to about ``events`` events by repeating its run of text deltas.

    Everything before the first and after the last text delta is kept as recorded; Responses
    ``sequence_number`` values are renumbered so they stay increasing. Returns (bytes, events).
    """
    nd = mapper == "ollama"
    evs = [e for e in blob.split(b"\n") if e.strip()] if nd else [e for e in blob.replace(b"\r\n", b"\n").split(b"\n\n") if e.strip()]
    parsed = [json.loads(e) if nd else _sse_data(e) for e in evs]
    idx = [i for i, d in enumerate(parsed) if _is_text_delta(mapper, d)]
    assert idx, f"{mapper}: no text deltas to repeat"
    first, last = idx[0], idx[-1]
    run_ = evs[first : last + 1]
    reps = max(1, (events - (len(evs) - len(run_))) // len(run_))
    out = evs[:first] + run_ * reps + evs[last + 1 :]
    if any(b'"sequence_number"' in e for e in out):
        renum = []
        for k, e in enumerate(out):
            head, _, body = e.partition(b"data: ")
            d = json.loads(body)
            d["sequence_number"] = k
            renum.append(head + b"data: " + json.dumps(d, separators=(",", ":")).encode())
        out = renum
    sep = b"\n" if nd else b"\n\n"
    return sep.join(out) + sep, len(out)


def _parse_only_any(mapper: str, blob: bytes) -> int:
    """The parse-only floor: httpx-sse + ``json.loads`` (SSE), or ``json.loads`` per line (Ollama NDJSON)."""
    if mapper == "ollama":
        n = 0
        for line in blob.split(b"\n"):
            if line.strip():
                json.loads(line)
                n += 1
        return n
    return _parse_only(blob)


def row_stream_long(ctx: Context) -> list[Row]:
    """(6b) Stream accumulation on ~1,000-event streams, one row per provider."""
    from interlingua.mapping import get_mapper
    from interlingua.streaming import StreamDone, iter_stream

    rows = []
    replays = max(2, ctx.size.conversations // 40)
    for name, fixture in _LONG_STREAM_FIXTURES:
        blob, n_events = long_stream(name, (FIXTURES / fixture).read_bytes())
        mapper = get_mapper(name)
        last = list(iter_stream(mapper, blob))[-1]
        assert isinstance(last, StreamDone), (name, last)
        il = Measure(f"interlingua `iter_stream` ({name})", "interlingua", nbytes=len(blob) * replays, items=n_events * replays)
        fl = Measure("httpx-sse `iter_sse` + `json.loads` per data field" if name != "ollama" else "`json.loads` per NDJSON line", "floor", nbytes=len(blob) * replays, items=n_events * replays)

        def il_run(mapper: Any = mapper, blob: bytes = blob) -> int:
            n = 0
            for _ in range(replays):
                for _ev in iter_stream(mapper, blob):
                    n += 1
            return n

        def fl_run(name: str = name, blob: bytes = blob) -> int:
            return sum(_parse_only_any(name, blob) for _ in range(replays))

        alternate([(il, il_run), (fl, fl_run)], ctx.size.rounds, ctx.size.warmup)
        row = Row(f"stream-long-{name}", f"(6b) stream accumulation, ~{LONG_STREAM_EVENTS:,}-event stream: {name}", il, [], fl)
        r = row.ratio_cpu(fl)
        limit = TARGETS["stream_vs_parse"]
        row.targets = [Target(f"<= {limit:g}x the parse-only time", None if not r else 1 / r <= limit, "—" if not r else f"{1 / r:.2f}x parse-only")]
        row.notes.append(
            f"`{fixture}` lengthened to {n_events} events ({len(blob) / 1e3:.0f} kB) by repeating its run of text deltas "
            f"(`benchmarks/rows/streams.py` `long_stream`), replayed {replays} times from memory; ends with StreamDone"
        )
        if r:
            row.notes.append(f"interlingua takes {1 / r:.2f}x the parse-only CPU time; both parse the same bytes, interlingua adds the accumulator and typed events")
        rows.append(row)
    return rows
