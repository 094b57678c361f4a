"""Append/load/fork/export/import round trips on both backends."""

from __future__ import annotations

import io

import msgspec
import pytest

from interlingua.codec import UnknownItem, encode_envelope, iter_jsonl, to_builtins
from interlingua.errors import DocumentError, VersionError
import json

from interlingua.items import (
    Envelope,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    StopReason,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Usage,
)
from interlingua.store import ConflictError, SessionExistsError, SessionNotFoundError, SessionStore, StoreError


def conversation() -> list:
    return [
        TextItem(role="system", text="Be brief."),
        TextItem(role="user", text="Weather in Paris? ☂ \"quoted\"", message="m1"),
        ReasoningItem(text="look it up", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig==")),
        ToolCallItem(id="toolu_1", name="weather", arguments={"city": "Paris", "n": 1.5}, origin=Origin(provider="anthropic", item_id="x")),
        ToolResultItem(call_id="toolu_1", content=[TextItem(text="12°C")]),
        StructuredItem(data=[1, None, {"k": True}], schema_name="s"),
        RawItem(provider="gemini", value={"executableCode": {"code": "print(1)"}}),
        TextItem(role="assistant", text="12°C and rain."),
    ]


TOOLS = [ToolDefinition(name="weather", description="w", parameters={"type": "object", "properties": {"city": {"type": "string"}}})]


async def test_append_load_round_trip(store: SessionStore) -> None:
    items = conversation()
    sid = await store.create_session({"user": "ada", "n": [1, 2]}, tools=TOOLS, tool_choice=ToolChoice(mode="auto"))
    assert await store.head(sid) == -1
    head = await store.append(sid, items[:3], expected_seq=-1)
    assert head == 2
    head = await store.append(
        sid, items[3:], expected_seq=2, usage=Usage(input_tokens=10, output_tokens=5, details={"raw": 1}), stop_reason=StopReason(reason="end_turn", raw="end_turn")
    )
    assert head == len(items) - 1
    t = await store.load(sid)
    assert to_builtins(t.items) == to_builtins(items)
    assert t.items == items
    assert t.metadata == {"user": "ada", "n": [1, 2]}
    assert t.tools == TOOLS
    assert t.tool_choice == ToolChoice(mode="auto")
    envs = await store.load_envelopes(sid)
    assert [e.seq for e in envs] == list(range(len(items)))
    assert envs[-1].usage == Usage(input_tokens=10, output_tokens=5, details={"raw": 1})
    assert envs[-1].stop_reason == StopReason(reason="end_turn", raw="end_turn")
    assert all(e.usage is msgspec.UNSET for e in envs[:-1])
    assert [e.item for e in envs] == items
    # since_seq
    assert (await store.load(sid, since_seq=5)).items == items[5:]
    streamed = [e async for e in store.stream(sid, page_size=3)]
    assert [e.seq for e in streamed] == list(range(len(items)))
    assert [e.item for e in streamed] == items
    # call_id and role columns are filled for queries
    info = await store.get_session(sid)
    assert info.head_seq == len(items) - 1 and info.length == len(items)


async def test_envelopes_are_appended_with_their_version_usage_and_stop(store: SessionStore) -> None:
    sid = await store.create_session()
    env = Envelope(schema_version="1.0", session_id="elsewhere", seq=99, item=TextItem(role="assistant", text="x"), usage=Usage(output_tokens=1))
    assert await store.append(sid, [env]) == 0
    (got,) = await store.load_envelopes(sid)
    assert got.session_id == sid and got.seq == 0 and got.usage == Usage(output_tokens=1)


async def test_unknown_items_and_newer_minor_are_kept_unchanged(store: SessionStore) -> None:
    unknown = UnknownItem(b'{"type":"hologram","z":{"b":1,"a":[1, 2.50]},"role":"assistant"}', "hologram")
    # A known type with a field a newer minor version added, inside a 1.9 envelope.
    newer = Envelope(schema_version="1.9", session_id="s", seq=0, item=UnknownItem(b'{"type":"text","text":"hi","sparkle":true}', "text"))  # type: ignore[arg-type]
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="a"), unknown, newer])
    envs = await store.load_envelopes(sid)
    assert envs[1].item == unknown and envs[1].item.raw == unknown.raw  # byte for byte, JSONB or not
    assert isinstance(envs[2].item, UnknownItem) and envs[2].item.raw == b'{"type":"text","text":"hi","sparkle":true}'
    assert envs[2].schema_version == "1.9"
    assert (await store.load(sid)).schema_version == "1.9"
    buf = io.BytesIO()
    await store.export_jsonl(sid, buf, header=False)
    lines = buf.getvalue().splitlines()
    assert b'"item":{"type":"hologram","z":{"b":1,"a":[1, 2.50]},"role":"assistant"}' in lines[1]
    assert lines[2].startswith(b'{"schema_version":"1.9"')


async def test_newer_major_and_bad_unknown_items_are_refused(store: SessionStore) -> None:
    sid = await store.create_session()
    with pytest.raises(VersionError, match="newer"):
        await store.append(sid, [TextItem(role="user", text="ok"), Envelope(schema_version="2.0", session_id="s", seq=0, item=TextItem(text="x"))])
    with pytest.raises(DocumentError, match="newer minor"):
        # A known type with unknown fields is not an unknown item at this version.
        await store.append(sid, [UnknownItem(b'{"type":"text","text":"hi","sparkle":true}', "text")])
    with pytest.raises(DocumentError):
        await store.append(sid, [UnknownItem(b'{"no_type":1}')])
    assert await store.head(sid) == -1


async def test_fork_takes_items_and_settings_up_to_the_seq(store: SessionStore) -> None:
    items = conversation()
    sid = await store.create_session({"v": 1}, tools=TOOLS)
    await store.append(sid, items[:4])
    assert await store.update_session(sid, metadata={"v": 2}) == 4
    await store.append(sid, items[4:])
    await store.update_session(sid, tools=None)

    early = await store.fork(sid, 2)
    t = await store.load(early)
    assert t.items == items[:3]
    assert t.metadata == {"v": 1} and t.tools == TOOLS
    late = await store.fork(sid, 3)  # the change at seq 4 was made after item 3: in effect for the fork's next item
    assert (await store.load(late)).metadata == {"v": 2}
    full = await store.fork(sid, len(items) - 1, new_session_id="my-fork")
    assert full == "my-fork"
    tf = await store.load(full)
    assert tf.items == items and tf.tools is msgspec.UNSET and tf.metadata == {"v": 2}
    info = await store.get_session(early)
    assert (info.parent_id, info.fork_seq, info.head_seq) == (sid, 2, 2)
    assert [c.effective_seq for c in await store.changes(full)] == [0, 4, len(items)]

    # The fork continues on its own; the parent is unchanged.
    assert await store.append(early, [TextItem(role="user", text="other branch")], expected_seq=2) == 3
    assert (await store.load(sid)).items == items
    empty = await store.fork(sid, -1)
    assert (await store.load(empty)).items == []
    with pytest.raises(StoreError, match="0..7"):
        await store.fork(sid, len(items))
    with pytest.raises(StoreError, match="exists"):
        await store.fork(sid, 1, new_session_id="my-fork")
    with pytest.raises(SessionNotFoundError):
        await store.fork("nope", 0)
    assert {s.id for s in await store.list_sessions(parent_id=sid)} == {early, late, full, empty}


async def test_export_import_round_trip(store: SessionStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    items = conversation()
    sid = await store.create_session({"k": "v"}, tools=TOOLS)
    await store.append(sid, items[:2])
    await store.update_session(sid, metadata={"k": "w"}, tool_choice=ToolChoice(mode="tool", name="weather"))
    await store.append(sid, items[2:], usage=Usage(input_tokens=1), stop_reason=StopReason(reason="tool_use", raw="tool_use"))
    path = tmp_path / "s.jsonl"
    assert await store.export_jsonl(sid, path) == len(items)
    assert await store.import_jsonl(path) == sid  # its own id: already there with this content
    [copy] = await store.import_sessions(path, new_ids=True)
    new = copy.session_id
    assert new != sid and copy.status == "imported" and copy.source_id == sid
    a, b = await store.load_envelopes(sid), await store.load_envelopes(new)
    assert [(e.seq, e.item, e.created_at, e.usage, e.stop_reason, e.schema_version) for e in a] == [
        (e.seq, e.item, e.created_at, e.usage, e.stop_reason, e.schema_version) for e in b
    ]
    ta, tb = await store.load(sid), await store.load(new)
    assert (ta.metadata, ta.tools, ta.tool_choice) == (tb.metadata, tb.tools, tb.tool_choice) == ({"k": "w"}, TOOLS, ToolChoice(mode="tool", name="weather"))
    assert [(c.effective_seq, c.changed) for c in await store.changes(sid)] == [(c.effective_seq, c.changed) for c in await store.changes(new)]
    # Export of the import is the same stream apart from the session id.
    path2 = tmp_path / "s2.jsonl"
    await store.export_jsonl(new, path2)
    body = lambda p: [l.replace(sid.encode(), b"ID").replace(new.encode(), b"ID") for l in p.read_bytes().splitlines()[1:]]  # noqa: E731
    assert body(path) == body(path2)
    # Without the header the file is a plain envelope stream the codec reads.
    plain = tmp_path / "plain.jsonl"
    await store.export_jsonl(sid, plain, header=False)
    assert [e.item for e in iter_jsonl(plain)] == items
    again = await store.import_jsonl(plain, session_id="chosen")
    assert again == "chosen" and (await store.load(again)).items == items
    assert await store.import_jsonl(plain, session_id="chosen") == "chosen"  # same content: a no-op
    other = tmp_path / "other.jsonl"
    other.write_bytes(plain.read_bytes().replace(b"Paris", b"Lyon"))
    with pytest.raises(SessionExistsError, match="session chosen exists with different items"):
        await store.import_jsonl(other, session_id="chosen")
    assert (await store.load("chosen")).items == items


async def test_import_refuses_bad_files_before_writing(store: SessionStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    def line(seq: int, sid: str = "s", text: str = "x") -> bytes:
        return encode_envelope(Envelope(schema_version="1.0", session_id=sid, seq=seq, item=TextItem(role="user", text=text))) + b"\n"

    cases = {
        "gap": (line(0) + line(2), 2, "/seq"),
        "second session not from seq 0": (line(0) + line(1, sid="t"), 2, "/seq"),
        "a session twice": (line(0) + line(0, sid="t") + line(0), 3, ""),
        "header of another session": (b'{"schema_version":"1.0","session":{"id":"h"}}\n' + line(0), 2, "/session_id"),
        "empty": (b"", None, ""),
        "blank lines only": (b"\n  \n", None, ""),
        "null tools in the header": (b'{"schema_version":"1.0","session":{"id":"s","tools":null}}\n' + line(0), 1, "/session/tools"),
        "unknown header field": (b'{"schema_version":"1.0","session":{"id":"s","colour":"red"}}\n' + line(0), 1, "/session"),
        "negative effective_seq": (b'{"schema_version":"1.0","session":{"id":"s","changes":[{"change_no":0,"effective_seq":-5}]}}\n' + line(0), 1, "/session/changes/0/effective_seq"),
        "huge change_no": (b'{"schema_version":"1.0","session":{"id":"s","changes":[{"change_no":9223372036854775808,"effective_seq":0}]}}\n' + line(0), 1, "/session/changes/0/change_no"),
        "duplicate change_no": (b'{"schema_version":"1.0","session":{"id":"s","changes":[{"change_no":0,"effective_seq":0},{"change_no":0,"effective_seq":0}]}}\n' + line(0), 1, "/session/changes/1/change_no"),
        "bad item": (line(0) + b'{"schema_version":"1.0","session_id":"s","seq":1,"item":{"type":"text"}}\n', 2, "/item"),
        "newer major": (line(0) + line(1).replace(b'"1.0"', b'"2.0"'), 2, "/schema_version"),
        "truncated": (line(0) + line(1)[:-10], 2, ""),
    }
    for name, (data, bad_line, pointer) in cases.items():
        p = tmp_path / f"{name}.jsonl"
        p.write_bytes(data)
        with pytest.raises(DocumentError) as ei:
            await store.import_jsonl(p)
        prob = ei.value.problems[0]
        assert (prob.file, prob.line) == (str(p), bad_line), name
        assert prob.pointer.startswith(pointer), (name, prob)
    assert await store.list_sessions() == []


async def test_conflict_and_not_found(store: SessionStore) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="a")], expected_seq=-1)
    with pytest.raises(ConflictError) as ei:
        await store.append(sid, [TextItem(role="user", text="b")], expected_seq=-1)
    assert (ei.value.expected, ei.value.actual) == (-1, 0)
    with pytest.raises(ConflictError):
        await store.append(sid, [], expected_seq=5)
    assert await store.append(sid, [], expected_seq=0) == 0
    assert await store.append(sid, [TextItem(role="user", text="b")]) == 1
    for call in (
        store.append("missing", [TextItem(role="user", text="a")]),
        store.append("missing", [TextItem(role="user", text="a")], expected_seq=-1),
        store.load("missing"),
        store.delete_session("missing"),
        store.update_session("missing", metadata={}),
        store.export_jsonl("missing", io.BytesIO()),
    ):
        with pytest.raises(SessionNotFoundError):
            await call


async def test_create_is_idempotent_with_an_id_and_delete(store: SessionStore) -> None:
    import asyncio

    ids = await asyncio.gather(*(store.create_session({"n": i}, session_id="fixed") for i in range(10)))
    assert set(ids) == {"fixed"}
    assert len(await store.list_sessions()) == 1
    assert len(await store.changes("fixed")) == 1  # the winner's metadata only
    await store.append("fixed", [TextItem(role="user", text="a")])
    assert await store.create_session({"other": 1}, session_id="fixed") == "fixed"
    assert (await store.load("fixed")).items == [TextItem(role="user", text="a")]
    await store.delete_session("fixed")
    assert await store.list_sessions() == []
    with pytest.raises(DocumentError):
        await store.create_session(session_id="")
    with pytest.raises(DocumentError):
        await store.create_session(session_id="x" * 129)


async def test_update_session_history(store: SessionStore) -> None:
    sid = await store.create_session()
    assert await store.changes(sid) == []
    await store.append(sid, [TextItem(role="user", text="a")])
    assert await store.update_session(sid, tools=TOOLS) == 1
    assert await store.update_session(sid, metadata={"a": 1}) == 1
    await store.append(sid, [TextItem(role="user", text="b")])
    assert await store.update_session(sid, metadata=None) == 2
    assert await store.update_session(sid) == 2  # nothing given: nothing recorded
    ch = await store.changes(sid)
    assert [(c.change_no, c.effective_seq, c.changed) for c in ch] == [(0, 1, {"tools": TOOLS}), (1, 1, {"metadata": {"a": 1}}), (2, 2, {"metadata": None})]
    info = await store.get_session(sid)
    assert info.metadata is None and info.tools == TOOLS


async def test_identical_timestamps_keep_seq_order(store: SessionStore) -> None:
    import sqlalchemy as sa

    from interlingua.store._schema import ITEMS

    sid = await store.create_session()
    items = [TextItem(role="user", text=str(i)) for i in range(30)]
    await store.append(sid, items)  # one batch: one timestamp
    envs = await store.load_envelopes(sid)
    assert len({e.created_at for e in envs}) == 1
    assert [e.item for e in envs] == items
    # Timestamps running backwards do not reorder anything either.
    async with store.engine.begin() as conn:
        await conn.execute(sa.update(ITEMS).where(ITEMS.c.session_id == sid).values(created_at=sa.func.current_timestamp()))
    await store.append(sid, [TextItem(role="user", text="later")])
    assert [e.item for e in await store.load_envelopes(sid)] == [*items, TextItem(role="user", text="later")]


async def test_item_json_comes_back_exactly(store: SessionStore) -> None:
    """JSONB sorts keys and re-renders numbers; the store still returns the same bytes."""
    from interlingua.codec import encode_item

    item = ToolCallItem(
        id="c", name="f", arguments={"zeta": 1, "a": {"y": [3, 2], "b": None}, "big": 1e20, "neg0": -0.0, "small": 1e-7, "i": 10**30, "s": "ünï"}
    )
    sid = await store.create_session({"z": 1, "a": 2})
    await store.append(sid, [item])
    (back,) = (await store.load(sid)).items
    assert encode_item(back) == encode_item(item)
    fork = await store.fork(sid, 0)
    assert encode_item((await store.load(fork)).items[0]) == encode_item(item)
    assert list((await store.get_session(sid)).metadata) == ["z", "a"]  # type: ignore[arg-type]
    tools = [ToolDefinition(name="t", parameters={"type": "object", "properties": {"zz": {"type": "string"}, "aa": {"type": "integer"}}})]
    await store.update_session(sid, tools=tools)
    assert list((await store.load(sid)).tools[0].parameters["properties"]) == ["zz", "aa"]  # type: ignore[index]


async def test_fork_before_the_first_setting_has_none(store: SessionStore) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text=str(i)) for i in range(3)])
    await store.update_session(sid, metadata={"late": True}, tools=TOOLS)
    early = await store.get_session(await store.fork(sid, 1))
    assert (early.metadata, early.tools) == (None, None)
    late = await store.get_session(await store.fork(sid, 2))
    assert (late.metadata, late.tools) == ({"late": True}, TOOLS)


async def test_import_reports_header_and_backend_problems_with_lines(store: SessionStore, tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = encode_envelope(Envelope(schema_version="1.0", session_id="s", seq=0, item=TextItem(role="user", text="x"))) + b"\n"
    p = tmp_path / "h.jsonl"
    p.write_bytes(b'{"schema_version":"1.0","session":{"tools":[{"description":"nameless"}]}}\n' + good)
    with pytest.raises(DocumentError) as ei:
        await store.import_jsonl(p)
    assert (ei.value.problems[0].line, ei.value.problems[0].pointer) == (1, "/session/tools/0")
    p.write_bytes(b'{"schema_version":"1.0","session":{"changes":[{"change_no":"zero"}]}}\n' + good)
    with pytest.raises(DocumentError) as ei:
        await store.import_jsonl(p)
    assert ei.value.problems[0].line == 1 and ei.value.problems[0].pointer == "/session/changes/0/change_no"
    nul = encode_envelope(Envelope(schema_version="1.0", session_id="s", seq=1, item=TextItem(role="user", text="a\x00b"))) + b"\n"
    p.write_bytes(good + nul)
    if store.backend == "postgresql":
        with pytest.raises(DocumentError) as ei:
            await store.import_jsonl(p)
        assert (ei.value.problems[0].file, ei.value.problems[0].line, ei.value.problems[0].pointer) == (str(p), 2, "/item")
        assert await store.list_sessions() == []
    else:
        assert (await store.load(await store.import_jsonl(p))).items[1] == TextItem(role="user", text="a\x00b")


async def test_export_with_header_is_a_valid_stream_for_every_reader(store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The session header line follows schemas/session_header.json; validate and iter_jsonl accept it."""
    from interlingua.codec import iter_jsonl
    from interlingua.items import ToolDefinition
    from interlingua.validation import validate_path
    from interlingua.validation._schemas import _validator

    sid = await store.create_session(metadata={"team": "a"})
    await store.update_session(sid, tools=[ToolDefinition(name="get_weather", parameters={"type": "object"})])
    await store.append(sid, [TextItem(role="user", text="hi"), TextItem(role="assistant", text="hello")])
    path = tmp_path / "s.jsonl"
    await store.export_jsonl(sid, path)
    first = json.loads(path.read_text().splitlines()[0])
    assert "session" in first and list(_validator("session_header").iter_errors(first)) == []
    assert [e.seq for e in iter_jsonl(path)] == [0, 1]
    result = validate_path([str(path)])
    assert result.ok and result.items == 2, result.problems
