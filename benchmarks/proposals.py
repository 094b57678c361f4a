#!/usr/bin/env python
"""A prototype hot-path change, measured against the library as it is (same run, alternating).

Not used by ``run.py`` and not part of the library. The decode and encode prototypes that
used to live here were adopted by ``interlingua.codec`` (one typed pass per envelope line,
a pointer-free JSON-safety walk). What remains is the evidence for a change we chose *not*
to make: ``fast_sse_frames`` / ``fast_iter_stream`` frame an in-memory SSE body with
``str.split`` instead of httpx-sse. It gives the same events (checked by the harness test)
and meets the stream target, but the project keeps the maintained parser (see the
"What bounds the missed targets" section of docs/benchmarks.md).

Usage: ``python benchmarks/proposals.py [--conversations N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as _run  # noqa: E402


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
    """Measure library vs the SSE framing prototype; print a Markdown table."""
    parser = argparse.ArgumentParser(description="library vs proposed hot paths, same run, alternating")
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    cases: dict[str, list[Any]] = {}
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
    print(f"{len(work)} recorded streams, {stream_bytes / 1e6:.1f} MB; median of {args.rounds} rounds (CPU time)\n")
    print("| case | contender | median CPU | MB/s per CPU-s | vs library |")
    print("| --- | --- | --- | --- | --- |")
    for case, contenders in cases.items():
        for m, _fn in contenders:
            m.nbytes = stream_bytes
        _run.alternate(contenders, args.rounds, 1)
        base = statistics.median(contenders[0][0].cpu_seconds)
        for m, _fn in contenders:
            med = statistics.median(m.cpu_seconds)
            print(f"| {case} | {m.name} | {med * 1000:.1f} ms | {m.nbytes / 1e6 / med:.1f} | {base / med:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
