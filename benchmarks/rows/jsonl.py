"""Rows (1) and (2): JSON Lines bytes -> typed, validated envelopes, and back, against pydantic-ai,
bare msgspec and orjson on the same content."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from harness import TARGETS, Context, Measure, Row, Target, _dataset, _floor_orjson, _peer, _version, _x, alternate
from interlingua.codec import encode_envelope, iter_jsonl


def _same_content_note(ds: _dataset.Dataset) -> str:
    pa_bytes = sum(map(len, ds.pydantic_ai_lines)) if ds.pydantic_ai_lines is not None else None
    if not ds.converted or pa_bytes is None:
        return "pydantic-ai not installed: interlingua's own form of the dataset (no origin/usage metadata)"
    return (
        f"same content on both sides: the interlingua JSONL ({len(ds.jsonl) / 1e6:.2f} MB, {ds.items} lines) is the pydantic-ai data "
        f"({pa_bytes / 1e6:.2f} MB, {len(ds.pydantic_ai_lines or [])} lines) read by interlingua's compat reader (`interlingua migrate`): "
        "model, provider and response ids in `origin`, usage, finish reason and timestamps in `metadata`, message timestamps in `created_at`"
    )


def _msgspec_floor(name: str) -> Measure:
    return Measure(name, "floor")


def row_decode(ctx: Context) -> Row:
    """(1) JSONL bytes -> typed, validated items."""
    import msgspec

    from interlingua.items import Envelope

    ds = ctx.ds
    il = Measure("interlingua `iter_jsonl` (-> Envelope structs)", "interlingua", nbytes=len(ds.jsonl), items=ds.items)
    pa, pa_mod = _peer(f"pydantic-ai {_version('pydantic-ai-slim')} `ModelMessagesTypeAdapter.validate_json`", "pydantic_ai.messages")
    fl = _msgspec_floor(f"bare msgspec {_version('msgspec')} typed decode per line (`Decoder(Envelope).decode`, no interlingua checks)")
    fl.nbytes, fl.items = len(ds.jsonl), ds.items
    fo, orjson = _floor_orjson("`orjson.loads` per line (dicts, no validation)")
    fo.nbytes, fo.items = len(ds.jsonl), ds.items
    blob = ds.jsonl
    split = blob.splitlines()
    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, lambda: list(iter_jsonl(io.BytesIO(blob))))]
    if pa_mod is not None and ds.pydantic_ai_lines is not None:
        ta = pa_mod.ModelMessagesTypeAdapter
        lines = ds.pydantic_ai_lines
        pa.nbytes, pa.items = sum(map(len, lines)), ds.items
        pa.note = f"one JSON array per conversation ({len(lines)} lines, {pa.nbytes / 1e6:.2f} MB: its own format); validates its pydantic models"
        contenders.append((pa, lambda: [ta.validate_json(line) for line in lines]))
    else:
        contenders.append((pa, lambda: None))
    dec = msgspec.json.Decoder(Envelope).decode
    fl.note = "the same lines and the same generated Structs; splits lines in memory; checks types only (no version, seq, depth, base64 or limits)"
    contenders.append((fl, lambda: [dec(line) for line in split]))
    if orjson is not None:
        loads = orjson.loads
        fo.note = "extra floor: on interlingua's JSONL, dicts only"
        contenders.append((fo, lambda: [loads(line) for line in split]))
    else:
        contenders.append((fo, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # correctness (not timing): both sides read back what was written
    assert list(iter_jsonl(io.BytesIO(blob))) == ds.envelopes
    assert [dec(line) for line in split] == ds.envelopes
    row = Row("decode", "(1) decode + validate JSONL into typed items, same content", il, [pa, fo], fl)
    r_pa, r_fl = row.ratio_cpu(pa), row.ratio_cpu(fl)
    row.targets = [
        Target(f">= {TARGETS['decode_vs_peer']:g}x pydantic-ai", None if r_pa is None else r_pa >= TARGETS["decode_vs_peer"], _x(r_pa)),
        Target(f">= {TARGETS['decode_vs_floor']:g}x bare msgspec typed decode", None if r_fl is None else r_fl >= TARGETS["decode_vs_floor"], _x(r_fl)),
    ]
    row.notes.append(_same_content_note(ds))
    row.notes.append(
        "interlingua validates: JSON syntax, every field's type against the generated Structs (msgspec), schema_version, seq >= 0, "
        "non-empty session_id, nesting depth, line/item/base64 size limits; reads lines from a file object (BytesIO). "
        "pydantic-ai validates its own models. The msgspec floor checks types only."
    )
    return row


def row_encode(ctx: Context) -> Row:
    """(2) typed items -> JSONL bytes."""
    import msgspec

    ds = ctx.ds
    il = Measure("interlingua `encode_envelope` per item", "interlingua", nbytes=len(ds.jsonl), items=ds.items)
    pa, pa_mod = _peer(f"pydantic-ai {_version('pydantic-ai-slim')} `ModelMessagesTypeAdapter.dump_json`", "pydantic_ai.messages")
    fl = _msgspec_floor(f"bare msgspec {_version('msgspec')} `Encoder().encode` of the same Envelope structs (no checks)")
    fl.nbytes, fl.items = len(ds.jsonl), ds.items
    fo, orjson = _floor_orjson("`orjson.dumps` of the same envelopes as dicts")
    fo.nbytes, fo.items = len(ds.jsonl), ds.items
    envs = ds.envelopes
    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, lambda: b"".join([encode_envelope(e) + b"\n" for e in envs]))]
    if pa_mod is not None and ds.pydantic_ai is not None:
        ta = pa_mod.ModelMessagesTypeAdapter
        convs = ds.pydantic_ai
        pa.nbytes, pa.items = sum(map(len, ds.pydantic_ai_lines or [])), ds.items
        pa.note = "one JSON array per conversation, its own format"
        contenders.append((pa, lambda: b"\n".join([ta.dump_json(c) for c in convs])))
    else:
        contenders.append((pa, lambda: None))
    enc = msgspec.json.Encoder().encode
    fl.note = "the same Structs, one line each, joined the same way"
    contenders.append((fl, lambda: b"".join([enc(e) + b"\n" for e in envs])))
    if orjson is not None:
        dicts = ds.dicts
        dumps = orjson.dumps
        fo.note = "extra floor: plain dicts"
        contenders.append((fo, lambda: b"\n".join([dumps(d) for d in dicts])))
    else:
        contenders.append((fo, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    assert b"".join(encode_envelope(e) + b"\n" for e in envs) == ds.jsonl
    assert b"".join(enc(e) + b"\n" for e in envs) == ds.jsonl
    row = Row("encode", "(2) encode typed items to JSONL, same content", il, [pa, fo], fl)
    r_pa, r_fl = row.ratio_cpu(pa), row.ratio_cpu(fl)
    row.targets = [
        Target(f">= {TARGETS['encode_vs_peer']:g}x pydantic-ai", None if r_pa is None else r_pa >= TARGETS["encode_vs_peer"], _x(r_pa)),
        Target(f">= {TARGETS['encode_vs_floor']:g}x bare msgspec encode", None if r_fl is None else r_fl >= TARGETS["encode_vs_floor"], _x(r_fl)),
    ]
    row.notes.append(_same_content_note(ds))
    row.notes.append(
        "interlingua checks JSON safety before writing (no NaN/Infinity, string keys, no bytes, only JSON types, nesting depth); "
        "pydantic-ai serialises its models; the msgspec floor checks nothing"
    )
    return row
