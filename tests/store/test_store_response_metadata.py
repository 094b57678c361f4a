"""The store keeps each response's metadata (id, model, provider fields) beside its usage and stop
reason: a session file with responses goes through ``import`` and ``export`` byte for byte, ``load``
gives every :class:`ResponseRecord` as the file has it, and token counting seeds from a stored session
as from the file (issue 27).

The sessions are built from real two-exchange recordings (pydantic-ai cassettes, see
tests/fixtures/real/README.md): the second request's history, in which the first response's output
ends at a known item, then the second response's output, each response's last envelope carrying
that response's usage, stop reason and metadata as the provider reported them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION, encode_envelope
from interlingua.history import count_tokens
from interlingua.items import Envelope, ResponseInfo, TextItem, Transcript, Usage
from interlingua.mapping import get_mapper
from interlingua.session_file import header_bytes, read_sessions
from interlingua.store import SessionStore

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RECORDINGS = [
    ("anthropic", "anthropic/pai_anthropic_parallel_tool_calls"),
    ("gemini", "gemini/pai_google_thinking_part"),
    ("openai-chat", "openai_chat/pai_openai_instructions_with_tool_calls"),
    ("openai-responses", "openai_responses/pai_openai_responses_thinking_with_tool_calls"),
]


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _session_file(fmt: str, stem: str, sid: str) -> tuple[bytes, list]:
    """A session file (as ``store export`` writes one) of a real recording; and its two responses."""
    mapper = get_mapper(fmt)
    q0, q1 = (mapper.decode_request(_load(REAL / f"{stem}.{n}.request.json")).value for n in (0, 1))
    r0, r1 = (mapper.decode_response(_load(REAL / f"{stem}.{n}.response.json")).value for n in (0, 1))
    items = [*q1.items, *r1.items]
    first_end = len(q0.items) + len(r0.items) - 1
    # the second request's history holds the first response's output where it ended
    assert type(items[first_end]) is type(r0.items[-1]) and first_end < len(q1.items)
    ends = {first_end: r0, len(items) - 1: r1}
    stamp = "2026-01-02T03:04:05Z"
    tools = q1.tools if q1.tools is not msgspec.UNSET else None
    settings = q1.settings if q1.settings is not msgspec.UNSET else None
    change: dict = {"change_no": 0, "effective_seq": 0, "created_at": stamp}
    if tools:
        change["tools"] = msgspec.to_builtins(tools)
    if settings is not None:
        change["settings"] = msgspec.to_builtins(settings)
    extra: dict = {"created_at": stamp}
    if len(change) > 3:
        extra["changes"] = [change]
    lines = [header_bytes(sid, tools=tools or None, settings=settings, extra=extra)]
    for seq, item in enumerate(items):
        env = Envelope(schema_version=SCHEMA_VERSION, session_id=sid, seq=seq, item=item, created_at=f"2026-01-02T03:04:{seq:02d}Z")  # type: ignore[arg-type]
        response = ends.get(seq)
        if response is not None:
            if response.usage is not None:
                env.usage = response.usage
            if response.stop_reason is not None:
                env.stop_reason = response.stop_reason
            info = response.info()
            assert info is not None and info.id is not msgspec.UNSET  # each recording reports its response id
            env.response = info
        lines.append(encode_envelope(env))
    return b"".join(line + b"\n" for line in lines), [r0, r1]


@pytest.mark.parametrize(("fmt", "stem"), RECORDINGS, ids=[r[0] for r in RECORDINGS])
async def test_session_file_with_responses_round_trips_through_the_store(store: SessionStore, tmp_path: Path, fmt: str, stem: str) -> None:
    data, responses = _session_file(fmt, stem, f"real-{fmt}")
    src = tmp_path / "in.jsonl"
    src.write_bytes(data)
    (result,) = await store.import_sessions(src)
    assert result.status == "imported"
    out = tmp_path / "out.jsonl"
    await store.export_jsonl(result.session_id, out)
    assert out.read_bytes() == data

    # load gives each response's record as the file's reader does, metadata included
    loaded = await store.load(result.session_id)
    (block,) = read_sessions(src)
    from_file = block.transcript()
    assert loaded.responses == from_file.responses
    assert [r.response for r in loaded.responses] == [r.info() for r in responses]  # type: ignore[union-attr]
    assert loaded.usage == responses[-1].usage
    # a stored conversation is not one response's output: the top-level `response` (which makes
    # `convert` write a response body) stays unset, as in the file's transcript
    assert loaded.response is msgspec.UNSET and from_file.response is msgspec.UNSET

    # the same file again is recognised as the same content (metadata compared too)
    (again,) = await store.import_sessions(src)
    assert again.status == "unchanged"


@pytest.mark.parametrize(("fmt", "stem"), RECORDINGS, ids=[r[0] for r in RECORDINGS])
async def test_reported_usage_of_a_stored_prefix_is_authoritative(store: SessionStore, tmp_path: Path, fmt: str, stem: str) -> None:
    data, responses = _session_file(fmt, stem, f"count-{fmt}")
    src = tmp_path / "in.jsonl"
    src.write_bytes(data)
    (result,) = await store.import_sessions(src)
    loaded = await store.load(result.session_id)
    last = responses[-1]
    model = last.info().model

    # the conversation so far plus a new user turn: the last response's reported input count covers
    # everything before that response's output; only its output and the new turn are estimated
    sid = result.session_id
    await store.append(sid, [TextItem(role="user", text="Thanks. One more question, please.")])
    extended = await store.load(sid)
    counted = count_tokens(extended, model=model)
    assert counted.method == "seeded"
    assert counted.seeded_items == len(loaded.items) - len(last.items)
    assert counted.input_tokens == last.usage.input_tokens + counted.estimated_tokens
    assert count_tokens(extended, model=model) == count_tokens(_with_item(block_transcript(src), extended.items[-1]), model=model)

    # the stored model is what tells whose count it is: another model's request is estimated
    other = count_tokens(extended, model="some-other-model-entirely")
    assert other.method == "estimate" and other.seeded_items == 0


def block_transcript(path: Path) -> Transcript:
    (block,) = read_sessions(path)
    return block.transcript()


def _with_item(transcript: Transcript, item: Any) -> Transcript:
    return msgspec.structs.replace(transcript, items=[*transcript.items, item])


async def test_append_keeps_response_metadata_and_load_returns_it(store: SessionStore) -> None:
    info = ResponseInfo(id="chatcmpl-1", model="gpt-4.1-mini", provider_data={"openai-chat": {"body": {"created": 1744810634, "system_fingerprint": "fp_1"}}})
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="hi")])
    await store.append(sid, [TextItem(role="assistant", text="hello")], usage=Usage(input_tokens=5, output_tokens=1), response=info)
    t = await store.load(sid)
    assert t.response is msgspec.UNSET
    assert [(r.item, r.response) for r in t.responses] == [(1, info)]  # type: ignore[union-attr]
    forked = await store.load(await store.fork(sid, 1))
    assert forked.responses == t.responses


async def test_invalid_response_metadata_is_refused_with_nothing_written(store: SessionStore) -> None:
    from interlingua.errors import DocumentError

    sid = await store.create_session()
    with pytest.raises(DocumentError, match="/0/response"):
        await store.append(sid, [TextItem(role="user", text="hi")], response={"id": "x"})  # type: ignore[arg-type]
    with pytest.raises(DocumentError, match="/0/response"):
        await store.append(sid, [TextItem(role="user", text="hi")], response=ResponseInfo(id=float("nan")))  # type: ignore[arg-type]
    assert await store.head(sid) == -1


@pytest.mark.parametrize(("fmt", "stem"), RECORDINGS[:2], ids=[r[0] for r in RECORDINGS[:2]])
async def test_migrate_keeps_every_response_record(db_url: str, tmp_path: Path, fmt: str, stem: str) -> None:
    """A transcript document with per-response records (what ``store export`` -> ``convert --to
    canonical`` gives) migrated to a session file and to a store keeps every record where it was
    (both dropped all but the last response's usage, silently)."""
    from typer.testing import CliRunner

    from interlingua.cli import app
    from interlingua.codec import encode_transcript

    data, _responses = _session_file(fmt, stem, f"migrate-{fmt}")
    src = tmp_path / "in.jsonl"
    src.write_bytes(data)
    original = block_transcript(src)
    assert isinstance(original.responses, list) and len(original.responses) == 2
    doc = tmp_path / "doc.json"
    doc.write_bytes(encode_transcript(original))
    runner = CliRunner()
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(doc), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert block_transcript(out).responses == original.responses
    res = await asyncio.to_thread(runner.invoke, app, ["migrate", str(doc), "--store", db_url])  # the CLI runs its own event loop
    assert res.exit_code == 0, res.output
    store = await SessionStore.open(db_url)
    try:
        (info,) = await store.list_sessions()
        assert (await store.load(info.id)).responses == original.responses
    finally:
        await store.close()
