#!/usr/bin/env python
"""Prototypes of hot-path fixes, measured against the library as it is (same run, alternating).

Not used by ``run.py`` and not part of the library: evidence for proposed changes to
``interlingua.codec``. Each prototype returns exactly what the library function returns (checked
below before timing) and falls back to the library function for anything unusual, so error
messages, unknown-item preservation and limits stay the library's.

1. ``fast_decode_envelope`` / ``fast_iter_jsonl``: one typed msgspec pass over the line
   (``Decoder(Envelope)``) instead of three (``_read_version``, the shell, the item), no
   per-line ``check_version`` regex, and a depth check on untyped values only instead of
   counting brackets over every byte; the careful path runs only when the fast one fails or
   the line is unusual (so errors, unknown-item preservation and limits stay the library's).
3. ``fast_sse_frames`` / ``fast_iter_stream``: SSE framing of an in-memory body with ``str.split``
   (blank line, then field lines) instead of wrapping the bytes in an ``httpx.Response`` and running
   httpx-sse's line decoder; anything unusual (CR line ends, ``id:``/``retry:`` fields, lines
   without a colon) goes through the library's framing. Same events, same truncation rule.
2. ``fast_check_json_safe``: the same JSON-safety walk without building a JSON pointer for
   every field and without pushing scalar fields on the stack; on any doubt it re-runs the
   library's walk, which raises with the precise pointer.

Usage: ``python benchmarks/proposals.py [--conversations N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import io
import math
import statistics
import sys
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dataset as _dataset  # noqa: E402
import run as _run  # noqa: E402

from interlingua.codec import (  # noqa: E402
    DEFAULT_LIMITS,
    SCHEMA_VERSION,
    Limits,
    Mode,
    check_json_safe,
    decode_envelope,
    encode_envelope,
    iter_jsonl,
)
from interlingua.items import AudioItem, Base64Source, DocumentItem, Envelope, ImageItem  # noqa: E402

_envelope_decoder = msgspec.json.Decoder(Envelope)
_encoder = msgspec.json.Encoder()
_MEDIA = (ImageItem, AudioItem, DocumentItem)


def _base64_ok(item: Any, limits: Limits) -> bool:
    src = getattr(item, "source", None)
    if isinstance(src, Base64Source) and len(src.data) > limits.max_base64_bytes:
        return False
    return all(_base64_ok(sub, limits) for sub in getattr(item, "content", None) or () if isinstance(sub, _MEDIA))


_FREE_FORM = ("arguments", "data", "value", "metadata")
_STRUCT_LEVELS = 8  # deepest typed nesting the schema allows above a free-form value (conservative)


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of plain JSON data, stopping once it exceeds ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > deepest:
            deepest = d
            if d > limit:
                return d
        if type(v) is dict:
            stack.extend((x, d + 1) for x in v.values() if type(x) in (dict, list))
        elif type(v) is list:
            stack.extend((x, d + 1) for x in v if type(x) in (dict, list))
    return deepest


def _free_form_ok(item: Any, limits: Limits) -> bool:
    """The item's untyped JSON (arguments, data, value, metadata, opaque value) nests within the limit.

    Typed fields nest at most ``_STRUCT_LEVELS`` levels by the schema, so only untyped values can
    be deep; this replaces scanning every byte of the line for brackets (``_depth_exceeds``).
    """
    budget = limits.max_depth - _STRUCT_LEVELS
    for name in _FREE_FORM:
        v = getattr(item, name, None)
        if (type(v) is dict or type(v) is list) and v and _depth(v, budget) > budget:
            return False
    opaque = getattr(item, "opaque", None)
    if isinstance(opaque, msgspec.Struct):
        v = opaque.value  # type: ignore[attr-defined]
        if (type(v) is dict or type(v) is list) and _depth(v, budget) > budget:
            return False
    return True


def fast_decode_envelope(raw: bytes, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS) -> Envelope:
    """``decode_envelope`` with a one-pass fast path for ordinary lines.

    One typed msgspec decode of the whole line, then the checks the schema cannot express
    (version, seq, session id, base64 size, depth of untyped values). Anything that fails or
    looks unusual is decoded again by the library's careful path, which gives its exact error.
    """
    if len(raw) <= limits.max_item_bytes:
        try:
            env = _envelope_decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            env = None
        if env is not None and env.schema_version == SCHEMA_VERSION and env.seq >= 0 and env.session_id:
            item = env.item
            media = isinstance(item, _MEDIA) or getattr(item, "content", None)
            if (not media or _base64_ok(item, limits)) and _free_form_ok(item, limits):
                return env
    return decode_envelope(raw, mode=mode, limits=limits)


def fast_iter_jsonl(fh: Any, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The library's ``iter_jsonl`` loop (``errors="raise"``) with :func:`fast_decode_envelope`."""
    readline, cap = fh.readline, limits.max_line_bytes + 1
    while True:
        line = readline(cap)
        if not line:
            return
        if len(line) >= cap or not line.endswith(b"\n"):  # over-long or last line: the library path
            yield from iter_jsonl(io.BytesIO(line + fh.read()), limits=limits)
            return
        stripped = line.strip()
        if stripped:
            yield fast_decode_envelope(stripped, limits=limits)


_SCALAR = (str, int, bool, type(None))


def fast_check_json_safe(value: Any, *, max_depth: int = DEFAULT_LIMITS.max_depth) -> None:
    """``check_json_safe`` without per-field pointers; re-runs the library walk on any doubt."""
    unset = msgspec.UNSET
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        v, depth = pop()
        if depth > max_depth:
            break
        t = type(v)
        if t is dict:
            for k, sub in v.items():
                if type(k) is not str:
                    return check_json_safe(value, max_depth=max_depth)
                if type(sub) not in _SCALAR:
                    push((sub, depth + 1))
        elif t is list:
            for sub in v:
                if type(sub) not in _SCALAR:
                    push((sub, depth + 1))
        elif t is float:
            if not math.isfinite(v):
                break
        elif isinstance(v, msgspec.Struct):
            for sub in msgspec.structs.astuple(v):
                if sub is unset or type(sub) in _SCALAR:
                    continue
                push((sub, depth + 1 if type(sub) in (dict, list) else depth))
        elif t not in _SCALAR:
            break  # anything else: let the library decide (and raise with a pointer)
    else:
        return None
    return check_json_safe(value, max_depth=max_depth)


def fast_encode_envelope(envelope: Envelope) -> bytes:
    """``encode_envelope`` with :func:`fast_check_json_safe`."""
    fast_check_json_safe(envelope)
    return _encoder.encode(envelope)


def _check_errors_match(envs: list[Envelope]) -> None:
    """Unsafe values raise the library's error (same pointer) through the prototype too."""
    from interlingua.errors import DocumentError
    from interlingua.items import TextItem, ToolCallItem

    bad = [
        msgspec.structs.replace(envs[0], item=ToolCallItem(id="c", name="f", arguments={"x": [1.0, float("nan")]})),
        msgspec.structs.replace(envs[0], item=TextItem(text=b"bytes", role="user")),  # type: ignore[arg-type]
        msgspec.structs.replace(envs[0], item=ToolCallItem(id="c", name="f", arguments={1: "non-string key"})),  # type: ignore[dict-item]
    ]
    for env in bad:
        errors = []
        for fn in (encode_envelope, fast_encode_envelope):
            try:
                fn(env)
            except DocumentError as exc:
                errors.append(str(exc))
        assert len(errors) == 2 and errors[0] == errors[1], errors


def fast_sse_frames(blob: bytes) -> Any:
    """SSE events of a whole in-memory body, as :func:`interlingua.streaming.framing.iter_frames` gives them."""
    from interlingua.streaming.events import RawEvent
    from interlingua.streaming.framing import _tail_is_complete_event, iter_frames

    text = blob.decode("utf-8")
    if "\r" in text:
        yield from iter_frames("sse", blob)
        return
    blocks = text.split("\n\n")
    tail = blocks.pop()  # after the last blank line: an unterminated event (or "")
    parsed = []
    for block in blocks:
        event, data = None, []
        for line in block.split("\n"):
            if line.startswith("data:"):
                v = line[5:]
                data.append(v[1:] if v.startswith(" ") else v)
            elif line.startswith("event:"):
                v = line[6:]
                event = v[1:] if v.startswith(" ") else v
            elif line and not line.startswith(":"):  # id:, retry:, a field without colon: the library's careful path
                yield from iter_frames("sse", blob)
                return
        if data:
            parsed.append(RawEvent(event if event not in (None, "message") else None, "\n".join(data)))
    if tail.strip():
        if any(ln and not ln.startswith((":", "data:", "event:")) for ln in tail.split("\n")):
            yield from iter_frames("sse", blob)
            return
        if _tail_is_complete_event(tail.encode()):
            parsed.extend(fast_sse_frames((tail + "\n\n").encode()))
    yield from parsed


def fast_iter_stream(mapper: Any, blob: bytes) -> Any:
    """:func:`interlingua.streaming.iter_stream` for an in-memory SSE body, over :func:`fast_sse_frames`."""
    from interlingua.items import ErrorItem
    from interlingua.streaming.driver import _finish
    from interlingua.streaming.events import StreamError, is_terminal

    if mapper.framing != "sse":
        from interlingua.streaming import iter_stream

        yield from iter_stream(mapper, blob)
        return
    acc = mapper.accumulator()
    try:
        frames = list(fast_sse_frames(blob))
    except UnicodeDecodeError:
        yield StreamError(ErrorItem(code="provider_error", message="stream is not valid UTF-8", retryable=False))
        return
    for frame in frames:
        for ev in acc.feed(frame):
            yield ev
            if is_terminal(ev):
                return
    yield from _finish(acc)


def main(argv: list[str] | None = None) -> int:
    """Measure library vs prototype for decode and encode; print a Markdown table."""
    parser = argparse.ArgumentParser(description="library vs proposed hot paths, same run, alternating")
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    ds = _dataset.build(args.conversations, peers=False)
    lines = ds.jsonl.splitlines()
    envs = ds.envelopes
    # same results before timing
    assert [fast_decode_envelope(x) for x in lines] == [decode_envelope(x) for x in lines] == envs
    assert list(fast_iter_jsonl(io.BytesIO(ds.jsonl))) == envs
    assert [fast_encode_envelope(e) for e in envs] == [encode_envelope(e) for e in envs]
    _check_errors_match(envs)
    import orjson

    cases = {
        "decode JSONL -> Envelopes": [
            (_run.Measure("library iter_jsonl", "interlingua"), lambda: list(iter_jsonl(io.BytesIO(ds.jsonl)))),
            (_run.Measure("library decode_envelope per line", "peer"), lambda: [decode_envelope(x) for x in lines]),
            (_run.Measure("prototype fast_decode_envelope per line", "peer"), lambda: [fast_decode_envelope(x) for x in lines]),
            (_run.Measure("prototype fast_iter_jsonl", "peer"), lambda: list(fast_iter_jsonl(io.BytesIO(ds.jsonl)))),
            (_run.Measure("orjson.loads per line (floor)", "floor"), lambda: [orjson.loads(x) for x in lines]),
        ],
        "encode Envelope -> line": [
            (_run.Measure("library encode_envelope", "interlingua"), lambda: [encode_envelope(e) for e in envs]),
            (_run.Measure("prototype fast_encode_envelope", "peer"), lambda: [fast_encode_envelope(e) for e in envs]),
            (_run.Measure("orjson.dumps of dicts (floor)", "floor"), lambda: [orjson.dumps(d) for d in ds.dicts]),
        ],
    }
    from interlingua.mapping import get_mapper
    from interlingua.streaming import iter_stream

    work = [(get_mapper(m), b) for m, _f, b in _run._sse_streams()] * max(4, args.conversations // 3)
    assert [list(fast_iter_stream(m, b)) for m, b in work] == [list(iter_stream(m, b)) for m, b in work]
    cases["stream accumulation (recorded SSE, from memory)"] = [
        (_run.Measure("library iter_stream", "interlingua"), lambda: [list(iter_stream(m, b)) for m, b in work]),
        (_run.Measure("prototype fast_iter_stream", "peer"), lambda: [list(fast_iter_stream(m, b)) for m, b in work]),
        (_run.Measure("httpx-sse + json.loads (floor)", "floor"), lambda: [_run._parse_only(b) for _m, b in work]),
    ]
    stream_bytes = sum(len(b) for _m, b in work)
    print(f"{args.conversations} conversations, {ds.items} items, {len(ds.jsonl) / 1e6:.1f} MB; median of {args.rounds} rounds (CPU time)\n")
    print("| case | contender | median CPU | MB/s per CPU-s | vs library |")
    print("| --- | --- | --- | --- | --- |")
    for case, contenders in cases.items():
        for m, _fn in contenders:
            m.nbytes = stream_bytes if case.startswith("stream") else len(ds.jsonl)
        _run.alternate(contenders, args.rounds, 1)
        base = statistics.median(contenders[0][0].cpu_seconds)
        for m, _fn in contenders:
            med = statistics.median(m.cpu_seconds)
            print(f"| {case} | {m.name} | {med * 1000:.1f} ms | {m.nbytes / 1e6 / med:.1f} | {base / med:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
