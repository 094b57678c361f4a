"""The stream accumulators' fast path (typed decode of the frequent text-delta event) changes nothing.

Each accumulator decodes its most frequent event straight into a closed Struct
(:func:`interlingua.mapping.wire.fast_event`) and runs its checked path for anything else. These tests
run every real stream twice, once as shipped and once with the fast path switched off, and demand
the same events, the same final response and the same errors, on the recordings and on recordings
whose fast-path events were mutated (wrong types, unknown fields, lone surrogates, numbers out of
range, deep nesting): the fast path may only ever skip work the checked path proves unneeded.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.mapping import get_mapper
from interlingua.mapping import wire
from interlingua.streaming import StreamDone, collect

REAL = Path(__file__).parent.parent / "fixtures" / "real"
DIRS = {"anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama", "openai_chat": "openai-chat", "openai_responses": "openai-responses",
        "openrouter": "openai-chat", "openai_chat_extra": "openai-chat", "openai_compatible": "openai-chat"}
STREAMS = sorted((p, DIRS[p.parent.name]) for p in REAL.glob("*/*") if p.suffix in (".sse", ".ndjson") and p.parent.name in DIRS)
MODULES = {name: importlib.import_module(f"interlingua.providers.{name.replace('-', '_')}._stream") for name in set(DIRS.values())}
# Large positive indexes are left out: the Responses accumulator pads content up to a content_index
# (a separate issue); out-of-int64 values are still tried, negative.
WRONG: list[bytes] = [b"null", b"[]", b"{}", b"7", b"-1", b"1.5", b'"s"', b'""', b"true", b"1e400", b"-123456789012345678901234567890", b'"\\ud800"', b"[" * 300 + b"]" * 300]


def _outcome(events: list[Any]) -> list[str]:
    return [repr(e) for e in events]


def run_both(monkeypatch: pytest.MonkeyPatch, fmt: str, blob: bytes) -> tuple[list[Any], list[Any], int]:
    """(events with the fast path, events without it, how many events took the fast path)."""
    mapper = get_mapper(fmt)
    module = MODULES[fmt]
    hits = 0

    def counting(decoder: Any, data: str) -> Any:
        nonlocal hits
        out = wire.fast_event(decoder, data)
        hits += out is not None
        return out

    with monkeypatch.context() as m:
        m.setattr(module, "fast_event", counting)
        fast = collect(mapper, blob)
    with monkeypatch.context() as m:
        m.setattr(module, "fast_event", lambda decoder, data: None)
        slow = collect(mapper, blob)
    return fast, slow, hits


def _events(blob: bytes, framing: str) -> tuple[list[bytes], bytes]:
    sep = b"\n" if framing == "ndjson" else b"\n\n"
    return blob.replace(b"\r\n", b"\n").split(sep), sep


def _payload(event: bytes, framing: str) -> tuple[int, Any] | None:
    for i, line in enumerate(event.split(b"\n")):
        body = line if framing == "ndjson" else (line[5:].strip() if line.startswith(b"data:") else None)
        if body:
            try:
                return i, msgspec.json.decode(body)
            except msgspec.DecodeError:
                return None
    return None


def _pointers(value: Any, ptr: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [ptr]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _pointers(v, (*ptr, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _pointers(v, (*ptr, i))
    return out


def _with(doc: Any, ptr: tuple[Any, ...], raw: bytes) -> bytes:
    """``doc`` as JSON text with the value at ``ptr`` replaced by the raw JSON text ``raw``."""
    marker = "\x00MUTATION\x00"
    doc = msgspec.json.decode(msgspec.json.encode(doc))
    if not ptr:
        return raw
    cur = doc
    for part in ptr[:-1]:
        cur = cur[part]
    cur[ptr[-1]] = marker
    return msgspec.json.encode(doc).replace(msgspec.json.encode(marker), raw)


@pytest.mark.parametrize(("path", "fmt"), STREAMS, ids=lambda v: getattr(v, "name", v))
def test_real_streams_same_events_with_and_without_the_fast_path(monkeypatch: pytest.MonkeyPatch, path: Path, fmt: str) -> None:
    fast, slow, _hits = run_both(monkeypatch, fmt, path.read_bytes())
    assert fast == slow
    assert _outcome(fast) == _outcome(slow)


def test_the_fast_path_is_taken_on_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the tests above: they compare something only if real text deltas do take the fast path."""
    taken: dict[str, int] = {}
    for path, fmt in STREAMS:
        fast, _slow, hits = run_both(monkeypatch, fmt, path.read_bytes())
        taken[fmt] = taken.get(fmt, 0) + hits
        if hits:
            assert isinstance(fast[-1], StreamDone) or fast[-1].error.code  # type: ignore[attr-defined]
    assert all(taken.get(fmt, 0) > 0 for fmt in MODULES), taken


FUZZ = settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], database=None)


@FUZZ
@given(data=st.data())
def test_mutated_fast_path_events_give_the_checked_paths_outcome(monkeypatch: pytest.MonkeyPatch, data: st.DataObject) -> None:
    """One field of one event (a text delta most often) set to a wrong type, a hostile value, or an
    unknown field added: with and without the fast path, the same events and the same error."""
    path, fmt = data.draw(st.sampled_from(STREAMS), label="fixture")
    mapper = get_mapper(fmt)
    events, sep = _events(path.read_bytes(), mapper.framing)
    candidates = [(i, p) for i, ev in enumerate(events) if (p := _payload(ev, mapper.framing)) is not None]
    i, (li, obj) = data.draw(st.sampled_from(candidates), label="event")
    ptr = data.draw(st.sampled_from(_pointers(obj)), label="pointer")
    if data.draw(st.booleans(), label="add an unknown field") and isinstance(obj, dict):
        target = obj
        for part in ptr:
            target = target[part] if isinstance(target, (dict, list)) else target
        new = _with(obj, ptr, msgspec.json.encode({**target, "zz_unknown": 1})) if isinstance(target, dict) else _with(obj, ptr, b"{}")
    else:
        new = _with(obj, ptr, data.draw(st.sampled_from(WRONG), label="value"))
    lines = events[i].split(b"\n")
    lines[li] = new if mapper.framing == "ndjson" else b"data: " + new
    blob = sep.join([*events[:i], b"\n".join(lines), *events[i + 1 :]])
    fast, slow, _hits = run_both(monkeypatch, fmt, blob)
    assert _outcome(fast) == _outcome(slow)


def test_index_that_is_not_an_integer_takes_the_checked_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``"index": 0.0`` or ``true`` is refused by the checked path; the typed fast decode must not accept it."""
    base = (REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.response.sse").read_bytes()
    for bad in (b'"index":0.0,', b'"index":true,', b'"index":"0",'):
        blob = base.replace(b'"type":"content_block_delta","index":0,', b'"type":"content_block_delta",' + bad, 1)
        assert blob != base
        fast, slow, _ = run_both(monkeypatch, "anthropic", blob)
        assert _outcome(fast) == _outcome(slow)
        assert fast[-1].error.code == "provider_error"  # type: ignore[union-attr]


# --------------------------------------------------------------------------- each fast event kind

FAST_KINDS = {
    "anthropic": {"content_block_delta/text_delta", "content_block_delta/thinking_delta", "content_block_delta/signature_delta",
                  "content_block_delta/input_json_delta", "content_block_stop", "content_block_start"},
    "openai-responses": {"response.output_text.delta", "response.function_call_arguments.delta", "response.output_item.added"},
    "openai-chat": {"chat.completion.chunk/content", "chat.completion.chunk/tool_calls"},
}


def _kind(payload: Any) -> str:
    kind = str(payload.get("type")) if isinstance(payload, dict) else "?"
    if kind == "content_block_delta" and isinstance(payload.get("delta"), dict):
        kind += "/" + str(payload["delta"].get("type"))
    if isinstance(payload, dict) and payload.get("object") == "chat.completion.chunk":
        deltas = [c.get("delta") for c in payload.get("choices") or [] if isinstance(c, dict)]
        kind = "chat.completion.chunk/" + ",".join(sorted({k for d in deltas if isinstance(d, dict) for k in d}))
    return kind


def _fast_kinds(monkeypatch: pytest.MonkeyPatch, fmt: str, blob: bytes) -> set[str]:
    """The event kinds (``type``, and the delta's type) that took the fast path in one run over ``blob``."""
    module, seen = MODULES[fmt], set()

    def recording(decoder: Any, data: str) -> Any:
        out = wire.fast_event(decoder, data)
        if out is not None:
            seen.add(_kind(msgspec.json.decode(data)))
        return out

    with monkeypatch.context() as m:
        m.setattr(module, "fast_event", recording)
        collect(get_mapper(fmt), blob)
    return seen


def _shape(value: Any) -> Any:
    """The keys of ``value`` and its objects (not the values): two events of one shape test the same fields."""
    if isinstance(value, dict):
        return tuple((k, _shape(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_shape(v) for v in value[:1])
    return None


def _fast_event_sites(fmt: str) -> list[tuple[Path, int, str]]:
    """(stream, event index, kind): the first real event of each shape of each fast kind of ``fmt``."""
    sites: dict[Any, tuple[Path, int, str]] = {}
    for path, f in STREAMS:
        if f != fmt:
            continue
        events, _sep = _events(path.read_bytes(), get_mapper(fmt).framing)
        for i, ev in enumerate(events):
            got = _payload(ev, "sse")
            if got is not None and (kind := _kind(got[1])) in FAST_KINDS[fmt]:
                sites.setdefault((kind, _shape(got[1])), (path, i, f"{kind}@{path.name}:{i}"))
    return sorted(sites.values(), key=lambda s: s[2])


def test_every_fast_event_kind_is_taken_on_real_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the comparisons: each kind the fast paths decode does take the fast path on a real recording."""
    for fmt, kinds in FAST_KINDS.items():
        seen: set[str] = set()
        for path, f in STREAMS:
            if f == fmt:
                seen |= _fast_kinds(monkeypatch, fmt, path.read_bytes())
        assert kinds <= seen, (fmt, kinds - seen)


@pytest.mark.parametrize(("fmt", "site"), [(fmt, site) for fmt in FAST_KINDS for site in _fast_event_sites(fmt)], ids=lambda v: v[2] if isinstance(v, tuple) else v)
def test_every_field_of_each_fast_event_kind_mutated(monkeypatch: pytest.MonkeyPatch, fmt: str, site: tuple[Path, int, str]) -> None:
    """Every field of the first real event of each fast kind set to each wrong value, and an unknown field
    added at every object: with and without the fast path, the same events and the same error."""
    path, i, _kind_name = site
    mapper = get_mapper(fmt)
    events, sep = _events(path.read_bytes(), mapper.framing)
    li, obj = _payload(events[i], mapper.framing)  # type: ignore[misc]
    variants = []
    for ptr in _pointers(obj):
        variants += [_with(obj, ptr, raw) for raw in WRONG]
        target: Any = obj
        for part in ptr:
            target = target[part]
        if isinstance(target, dict):
            variants.append(_with(obj, ptr, msgspec.json.encode({**target, "zz_unknown": 1})))
    for new in variants:
        lines = events[i].split(b"\n")
        lines[li] = b"data: " + new
        blob = sep.join([*events[:i], b"\n".join(lines), *events[i + 1 :]])
        fast, slow, _hits = run_both(monkeypatch, fmt, blob)
        assert _outcome(fast) == _outcome(slow), new


@pytest.mark.parametrize(("path", "fmt"), STREAMS, ids=lambda v: getattr(v, "name", v))
def test_streams_cut_after_every_event_give_the_same_partial(monkeypatch: pytest.MonkeyPatch, path: Path, fmt: str) -> None:
    """Text deltas are joined once per run: a stream cut anywhere (``truncated``, with the partial
    response) gives the same partial with and without the fast path."""
    events, sep = _events(path.read_bytes(), get_mapper(fmt).framing)
    for cut in range(1, len(events)):
        fast, slow, _hits = run_both(monkeypatch, fmt, sep.join(events[:cut]) + sep)
        assert _outcome(fast) == _outcome(slow), cut


def test_gemini_usage_updates_share_nothing_with_the_final_response() -> None:
    """The fast path hands each chunk's decoded usageMetadata to its UsageUpdate: clearing those as they
    arrive leaves the final response's usage as it is in a run that does not touch them."""
    from interlingua.streaming import UsageUpdate, iter_stream

    for path, fmt in STREAMS:
        if fmt != "gemini":
            continue
        events, sep = _events(path.read_bytes(), "sse")
        events = [e for e in events if e.strip()]
        # whole, and cut before the last chunk (the partial then holds a fast-path chunk's usage)
        for blob in (sep.join(events) + sep, sep.join(events[:-1]) + sep):
            untouched = collect(get_mapper(fmt), blob)[-1]
            cleared = []
            for ev in iter_stream(get_mapper(fmt), blob):
                if isinstance(ev, UsageUpdate) and isinstance(ev.usage.details, dict):
                    ev.usage.details.clear()
                cleared.append(ev)
            assert repr(cleared[-1]) == repr(untouched), path.name
