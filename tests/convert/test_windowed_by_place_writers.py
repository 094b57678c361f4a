"""The writers that number by place (``vercel-ui``'s ``msg-N`` ids, the ``m<i>``/``t<i>`` keys their
readers give) write a long conversation window by window, each window numbered from where the
previous one ended, with the bytes and the report of the whole conversion (issue 32: ``convert --to
vercel-ui`` of a 1,000,000-item transcript was converted whole, 2.1 GB peak).

Real conversations: every stored conversation under tests/fixtures/stores/ (read with its format's
reader, so its items carry the readers' place keys) and every real provider request under
tests/fixtures/real/ (read to canonical); the corpus requests: tests/corpus/test_windowed_corpus.py.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from interlingua._windowed import _BY_PLACE, plan, write_windows
from interlingua.cli._convert_io import pretty
from interlingua.codec import decode_transcript
from interlingua.compat import read, write
from interlingua.conversion import convert_request
from interlingua.errors import InterlinguaError
from interlingua.items import TextItem, Transcript
from interlingua.mapping.report import Report

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BY_PLACE = tuple(_BY_PLACE)
"""vercel-ui, vercel-model, openai-finetune, sharegpt."""
STORED = ("vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory", "hf-messages", "chatgpt-export", "claude-export")
REQUESTS = {"anthropic": "anthropic", "bedrock_converse": "bedrock-converse", "cohere": "cohere", "gemini": "gemini", "mistral": "mistral",
            "ollama": "ollama", "openai_chat": "openai-chat", "openai_responses": "openai-responses"}


def _records(path: Path) -> list[Any]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    value = json.loads(path.read_text())
    if isinstance(value, list) and value and isinstance(value[0], dict) and {"conversations", "messages", "mapping", "chat_messages"} & value[0].keys():
        return value
    return [value]


def _real_conversations() -> list[tuple[str, Transcript]]:
    """(name, transcript) of every stored conversation and every real provider request that has a safe cut."""
    out: list[tuple[str, Transcript]] = []
    for fmt in STORED:
        for path in sorted((FIXTURES / "stores" / fmt).glob("*.json*")):
            for n, record in enumerate(_records(path)):
                out.append((f"{fmt}/{path.name}#{n}", read(record, fmt).transcript))
    for folder, fmt in REQUESTS.items():
        for path in sorted((FIXTURES / "real" / folder).glob("*request*.json")):
            body = json.loads(path.read_text())
            if not isinstance(body, dict):
                continue
            try:
                doc = convert_request(body, source=fmt, target="canonical", policy="degrade").value
            except InterlinguaError:
                continue
            out.append((f"{folder}/{path.name}", decode_transcript(json.dumps(doc).encode())))
    return [(name, t) for name, t in out if plan(iter(t.items), window=1).cuts]


REAL = _real_conversations()


def _whole(t: Transcript, target: str, policy: Any) -> tuple[bytes, list[Any]] | None:
    report = Report()
    try:
        value = write(t, target, policy=policy, report=report).value
    except InterlinguaError:
        return None
    return pretty(value), list(report.aggregated())


def _windowed(t: Transcript, target: str, policy: Any, window: int) -> tuple[bool, bytes, list[Any]]:
    out, report = io.BytesIO(), Report()
    ok = write_windows(iter(t.items), t, plan(iter(t.items), window=window), target=target, model=None, policy=policy, out=out, report=report)
    return ok, out.getvalue(), list(report.aggregated())


def _per_item(entries: list[Any]) -> tuple[list[Any], dict[int, list[Any]]]:
    from interlingua._windowed import _local

    per: dict[int, list[Any]] = {}
    for e in entries:
        if (at := _local(e)) is not None:
            per.setdefault(at, []).append(e)
    return [e for e in entries if _local(e) is None], per


def _same(t: Transcript, target: str, policy: Any, window: int) -> bool:
    """The windows write the whole conversion's bytes and report, or decline; True when they wrote."""
    expected = _whole(t, target, policy)
    ok, data, entries = _windowed(t, target, policy, window)
    if expected is None:
        assert not ok, "the whole conversion refuses but the windows wrote"
        return False
    if ok:
        assert data == expected[0]
        assert _per_item(entries) == _per_item(expected[1])
    return ok


def _chat(n: int, *, ids: bool = True) -> Transcript:
    """The issue's shape: alternating user and assistant texts (with ids, or none)."""
    import msgspec

    return Transcript(schema_version="1.0", items=[
        TextItem(role="user" if i % 2 == 0 else "assistant", text=f"message {i:07d}", id=f"m{i:07d}" if ids else msgspec.UNSET) for i in range(n)
    ])


@pytest.mark.parametrize("target", BY_PLACE)
@pytest.mark.parametrize("window", [1, 2, 5, 16])
def test_a_long_chat_is_written_window_by_window_numbered_as_the_whole(target: str, window: int) -> None:
    t = _chat(80)
    assert _same(t, target, "degrade", window)  # before: vercel-ui declined (its ids msg-N were the window's places)
    assert _same(_chat(81, ids=False), target, "error", window)


def test_the_vercel_ui_ids_past_the_first_window_are_the_whole_lists_places() -> None:
    ok, data, _ = _windowed(_chat(40), "vercel-ui", "degrade", 4)
    assert ok
    ids = [m["id"] for m in json.loads(data)]
    assert ids == [f"msg-{i}" for i in range(40)]


def test_real_conversations_windowed_equal_the_whole_for_every_by_place_writer() -> None:
    # every real conversation at the smallest window sizes (the most cuts): equal bytes and report, or declined
    # (the other policies and window sizes: the property test below)
    written: Counter[str] = Counter()
    keyed: Counter[str] = Counter()  # windowed conversations whose items carry a reader's place key past the first window
    assert len(REAL) > 40
    for name, t in REAL:
        for target in BY_PLACE:
            for policy in ("degrade",):
                for window in (1, 2, 3):
                    if _same(t, target, policy, window):
                        written[target] += 1
                        keyed[target] += any(getattr(it, "message", None) is not None for it in t.items[plan(iter(t.items), window=window).cuts[0]:])
    # before: an item with a message key past the first window sent every by-place writer to the whole conversion
    assert all(keyed[target] > 10 for target in BY_PLACE), (written, keyed)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=st.sampled_from(REAL), target=st.sampled_from(BY_PLACE), policy=st.sampled_from(("error", "drop", "degrade")),
       window=st.integers(1, 12), repeat=st.integers(1, 3))
def test_any_real_conversation_and_window_size_written_by_place_equals_the_whole(case: tuple[str, Transcript], target: str, policy: Any, window: int, repeat: int) -> None:
    _, t = case
    if repeat > 1:  # the conversation several times over (ids renamed per copy: an id used twice is a problem the checks refuse)
        t = Transcript(**{**{f: getattr(t, f) for f in t.__struct_fields__}, "items": _repeated(t.items, repeat)})
    event("windowed" if _same(t, target, policy, window) else "converted whole")


def _repeated(items: list[Any], k: int) -> list[Any]:
    import msgspec

    out: list[Any] = []
    for c in range(k):
        for it in items:
            changes: dict[str, Any] = {}
            for name in ("id", "call_id"):
                value = getattr(it, name, msgspec.UNSET)
                if isinstance(value, str) and c:
                    changes[name] = f"{value}~{c}"
            out.append(msgspec.structs.replace(it, **changes) if changes else it)
    return out


# --------------------------------------------------------------------------- memory


class _Sink(io.RawIOBase):
    """An output that keeps nothing (its bytes are counted)."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.size += len(data)
        return len(data)


def _items(n: int) -> Iterator[Any]:
    # no ids: the id table of the checks is the one thing meant to grow with the conversation
    for i in range(n):
        yield TextItem(role="user" if i % 2 == 0 else "assistant", text=f"message {i:07d}")


def _peak(n: int, target: str) -> tuple[int, int]:
    """tracemalloc peak (bytes) of writing an ``n``-item chat to ``target`` as ``convert`` does: window
    by window, else whole (what the CLI falls back to); and the bytes written."""
    shell = Transcript(schema_version="1.0", items=[])
    sink = _Sink()
    out: Any = sink  # a binary output (IO[bytes]) that keeps nothing
    tracemalloc.start()
    try:
        if not write_windows(_items(n), shell, plan(_items(n), window=100), target=target, model=None, policy="degrade", out=out, report=Report()):
            out.write(pretty(write(Transcript(schema_version="1.0", items=list(_items(n))), target, policy="degrade").value))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, sink.size


@pytest.mark.parametrize("target", BY_PLACE)
def test_peak_memory_of_a_by_place_writer_grows_sub_linearly(target: str) -> None:
    _peak(300, target)  # imports and caches first
    small, small_size = _peak(1_000, target)
    large, large_size = _peak(10_000, target)
    assert large_size > 9 * small_size  # ten times the conversation was written
    # converted whole (before, vercel-ui): ~10x; window by window: one window's worth, the same
    assert large < 2 * small, f"tracemalloc peak {small:,} B at 1,000 items, {large:,} B at 10,000"
