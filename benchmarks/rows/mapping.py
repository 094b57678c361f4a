"""Rows (5) and (5b): the provider mappers on request bodies (OpenAI Chat -> Anthropic through the
canonical form against LiteLLM, and the four request-body conversions)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from harness import (
    TARGETS,
    Context,
    Measure,
    Row,
    Target,
    _IMPORTS_FROZEN,
    _dataset,
    _dict_copy,
    _fmt_s,
    _freeze_after_import,
    _peer,
    _version,
    _x,
    alternate,
)


def _litellm() -> tuple[Measure, Callable[[list[dict[str, Any]]], Any] | None]:
    """LiteLLM's OpenAI-messages -> Anthropic-messages conversion, or a missing Measure."""
    # LiteLLM fetches a model price map over the network at import unless told to use its bundled copy
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    name = f"LiteLLM {_version('litellm')} `anthropic_messages_pt` (OpenAI messages -> Anthropic messages)"
    m, mod = _peer(name, "litellm.litellm_core_utils.prompt_templates.factory")
    if mod is None:
        return m, None
    fn = mod.anthropic_messages_pt
    if "litellm" not in _IMPORTS_FROZEN:
        _freeze_after_import("litellm")
    return m, lambda messages: fn(messages=messages, model="claude-sonnet-4-5", llm_provider="anthropic")


def row_mapping(ctx: Context) -> Row:
    """(5) OpenAI Chat request body -> Anthropic request body, through the canonical form."""
    from interlingua.mapping import get_mapper

    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    transcripts = _dataset.transcripts(ctx.ds)
    # Inputs: each conversation as an OpenAI Chat request body (reasoning has no Chat form: dropped, reported).
    oc_bodies = [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in transcripts]
    nbytes = sum(len(json.dumps(b)) for b in oc_bodies)
    n_msgs = sum(len(b["messages"]) for b in oc_bodies)
    il = Measure("interlingua openai-chat `decode_request` + anthropic `encode_request`", "interlingua", nbytes=nbytes, items=n_msgs)
    ll, ll_fn = _litellm()
    fl = Measure("structural copy of the same OpenAI messages (new dicts/lists)", "floor", nbytes=nbytes, items=n_msgs)
    dec, enc = oc.decode_request, an.encode_request

    def il_run() -> list[Any]:
        return [enc(dec(b).value, model="claude-sonnet-4-5", policy="drop").value for b in oc_bodies]

    contenders: list[Any] = [(il, il_run)]
    if ll_fn is not None:
        ll.nbytes, ll.items = nbytes, n_msgs
        ll.note = "messages only (the transform the issue names); given a fresh copy of the messages each call, the copy outside the timing"
        copies: list[list[Any]] = []

        def ll_prep() -> None:
            copies[:] = [_dict_copy(b["messages"]) for b in oc_bodies]

        contenders.append((ll, lambda: [ll_fn(msgs) for msgs in copies], ll_prep))
    else:
        contenders.append((ll, lambda: None))
    contenders.append((fl, lambda: [_dict_copy(b["messages"]) for b in oc_bodies]))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # correctness (not timing): same number of Anthropic messages on both sides
    ours = il_run()
    if ll_fn is not None:
        theirs = [ll_fn(_dict_copy(b["messages"])) for b in oc_bodies]
        assert [len(a["messages"]) for a in ours] == [len(t) for t in theirs], "LiteLLM and interlingua disagree on message count"
    row = Row("mapping", "(5) OpenAI Chat request -> Anthropic request (via canonical)", il, [ll], fl)
    r_ll = row.ratio_cpu(ll)
    row.targets = [Target(f">= {TARGETS['mapping_vs_litellm']:g}x LiteLLM", None if r_ll is None else r_ll >= TARGETS["mapping_vs_litellm"], _x(r_ll))]
    row.notes.append(
        f"{len(oc_bodies)} conversations as OpenAI Chat request bodies ({n_msgs} messages, {nbytes / 1e6:.1f} MB of JSON): user text "
        "(some with an image part), assistant text + tool call, tool result; interlingua builds typed items, validates and "
        "writes a whole request body, LiteLLM converts the message list"
    )
    return row


def row_mapping_ops(ctx: Context) -> Row:
    """(5b) Canonical -> Anthropic and -> OpenAI Chat request bodies, and back: four calls per conversation."""
    from interlingua.mapping import get_mapper

    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    transcripts = _dataset.transcripts(ctx.ds)
    an_bodies = [an.encode_request(t, model="claude-sonnet-4-5").value for t in transcripts]
    oc_bodies = [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in transcripts]
    nbytes = sum(len(json.dumps(b)) for b in an_bodies) + sum(len(json.dumps(b)) for b in oc_bodies)
    items = 2 * sum(len(t.items) for t in transcripts)
    ops: dict[str, Callable[[], Any]] = {
        "canonical -> anthropic": lambda: [an.encode_request(t, model="claude-sonnet-4-5").value for t in transcripts],
        "canonical -> openai-chat": lambda: [oc.encode_request(t, model="gpt-4.1", policy="drop").value for t in transcripts],
        "anthropic -> canonical": lambda: [an.decode_request(b).value for b in an_bodies],
        "openai-chat -> canonical": lambda: [oc.decode_request(b).value for b in oc_bodies],
    }
    il = Measure("interlingua: the four calls in sequence", "interlingua", nbytes=nbytes, items=items)
    fl = Measure("structural copy of the same four bodies' worth of dicts (both request bodies, twice)", "floor", nbytes=nbytes, items=items)
    parts = [Measure(f"interlingua {k} alone", "interlingua") for k in ops]
    fns = list(ops.values())
    contenders: list[Any] = [
        (il, lambda: [f() for f in fns]),
        (fl, lambda: ([_dict_copy(b) for b in an_bodies], [_dict_copy(b) for b in oc_bodies], [_dict_copy(b) for b in an_bodies], [_dict_copy(b) for b in oc_bodies])),
        *zip(parts, fns),
    ]
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)
    # correctness: Anthropic body -> canonical -> Anthropic body gives the same body, item counts survive
    again = [an.encode_request(an.decode_request(b).value, model="claude-sonnet-4-5").value for b in an_bodies]
    assert again == an_bodies
    assert [len(an.decode_request(b).value.items) for b in an_bodies] == [len(t.items) for t in transcripts]
    row = Row("mapping-ops", "(5b) canonical -> Anthropic and -> OpenAI Chat request bodies, and back", il, [], fl)
    r_fl = row.ratio_cpu(fl)
    row.targets = [Target("report (the issue's target is the LiteLLM ratio in (5))", None)]
    row.extra["ops"] = {m.name: {"median": m.median, "median_cpu": m.median_cpu} for m in parts}
    row.notes.append(
        "per call, CPU medians: " + "; ".join(f"{k}: {_fmt_s(m.median_cpu)}" for k, m in zip(ops, parts))
        + f" ({len(transcripts)} conversations each)"
    )
    row.notes.append("OpenAI Chat has no reasoning form: encoding to it drops the reasoning items (policy drop, each reported)")
    if r_fl is not None:
        row.notes.append(f"interlingua takes {1 / r_fl:.1f}x the time of a bare structural copy of the same data")
    return row
