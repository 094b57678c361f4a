"""Codec: byte-stable round trips, read modes, versions, JSON safety and limits."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import msgspec
import pytest

import interlingua as il
from interlingua.codec import KNOWN_ITEM_TYPES, Limits, check_json_safe, decode_item, encode_item, iter_jsonl, to_builtins
from interlingua.errors import DocumentError, LimitError, VersionError
from interlingua.items import Envelope, TextItem, ToolCallItem, Transcript

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [line for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]
INVALID = [line for line in (CANON / "invalid_items.jsonl").read_bytes().splitlines() if line.strip()]


def test_valid_examples_cover_every_item_type() -> None:
    types = {json.loads(line)["type"] for line in VALID}
    assert types == KNOWN_ITEM_TYPES


@pytest.mark.parametrize("line", VALID, ids=lambda b: json.loads(b)["type"])
def test_valid_item_round_trips_byte_for_byte(line: bytes) -> None:
    item = decode_item(line, mode="strict")
    assert encode_item(item) == line


@pytest.mark.parametrize("line", VALID, ids=lambda b: json.loads(b)["type"])
def test_valid_item_in_document_round_trips_byte_for_byte(line: bytes) -> None:
    doc = b'{"schema_version":"1.0","items":[' + line + b"]}"
    assert il.encode_transcript(il.decode_transcript(doc, mode="strict")) == doc


def test_invalid_items_fail_with_pointer(snapshot) -> None:
    messages = []
    for line in INVALID:
        with pytest.raises(DocumentError) as exc:
            decode_item(line, mode="strict", pointer="/items/0")
        assert all(p.pointer.startswith("/items/0") for p in exc.value.problems)
        messages.append(f"{line.decode()} -> {exc.value}")
    assert messages == snapshot


def test_unknown_type_preserved_in_preserving_mode() -> None:
    doc = b'{"schema_version":"1.1","items":[{"type":"text","text":"a","role":"user"},{"type":"hologram","frames":[1, 2],  "fps":24.0}]}'
    t = il.decode_transcript(doc)
    assert isinstance(t.items[1], il.UnknownItem)
    assert t.items[1].type == "hologram"
    assert t.items[1].value == {"type": "hologram", "frames": [1, 2], "fps": 24.0}
    assert il.encode_transcript(t) == doc  # written back unchanged, whitespace included


def test_unknown_type_rejected_in_strict_mode() -> None:
    doc = b'{"schema_version":"1.1","items":[{"type":"hologram"}]}'
    with pytest.raises(DocumentError) as exc:
        il.decode_transcript(doc, mode="strict")
    assert exc.value.problems[0].pointer == "/items/0/type"
    assert "unknown item type" in exc.value.problems[0].message


def test_newer_minor_unknown_field_preserved_same_minor_rejected() -> None:
    item = b'{"type":"text","text":"a","role":"user","tone":"warm"}'
    newer = il.decode_transcript(b'{"schema_version":"1.4","items":[' + item + b"]}")
    assert isinstance(newer.items[0], il.UnknownItem)
    with pytest.raises(DocumentError, match="unknown field `tone`"):
        il.decode_transcript(b'{"schema_version":"1.0","items":[' + item + b"]}")


@pytest.mark.parametrize(
    ("version", "fragment"),
    [("2.0", "newer than this reader (1.0)"), ("0.9", "older than this reader"), ("1", "MAJOR.MINOR"), (1.0, "MAJOR.MINOR")],
)
def test_version_rules(version: object, fragment: str) -> None:
    doc = json.dumps({"schema_version": version, "items": []}).encode()
    with pytest.raises(VersionError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        il.decode_transcript(doc)


def test_missing_version_is_a_version_error() -> None:
    with pytest.raises(VersionError, match="schema_version"):
        il.decode_transcript(b'{"items":[]}')


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_rejected_on_read(literal: bytes) -> None:
    doc = b'{"schema_version":"1.0","items":[{"type":"structured","data":' + literal + b"}]}"
    with pytest.raises(DocumentError, match="invalid JSON"):
        il.decode_transcript(doc)


@pytest.mark.parametrize(
    ("doc", "column"),
    [
        (b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi \\ud800"}]}', 74),
        (b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"\\\\\\ud800"}]}', 73),
    ],
)
def test_a_lone_surrogate_escape_near_the_end_is_named_and_located(doc: bytes, column: int) -> None:
    """msgspec says "Input data was truncated" (no offset) for a high surrogate escape less than six
    bytes before the end; the message said so too, pointing nowhere."""
    with pytest.raises(DocumentError) as exc:
        il.decode_transcript(doc)
    assert doc[column - 1 : column + 5].lower() == b"\\ud800"
    assert f"line 1, column {column}: lone UTF-16 surrogate escape" in str(exc.value)


def test_a_byte_order_mark_is_named() -> None:
    with pytest.raises(DocumentError, match=r"line 1, column 1: the input starts with a UTF-8 byte order mark \(BOM\)"):
        il.decode_transcript(b'\xef\xbb\xbf{"schema_version":"1.0","items":[]}')


def test_a_truly_truncated_document_still_says_truncated() -> None:
    with pytest.raises(DocumentError, match="truncated"):
        il.decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","text":"\\\\ud800')


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, b"bytes", {1: "int key"}, {"t": (1, 2)}, {"s": {1, 2}}])
def test_json_unsafe_values_rejected_on_write(bad: object) -> None:
    item = ToolCallItem(id="c", name="f", arguments={"x": bad})
    with pytest.raises(DocumentError) as exc:
        encode_item(item)
    assert exc.value.problems[0].pointer.startswith("/arguments/x")


def test_deep_nesting_is_a_limit_error_not_a_crash() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    doc = b'{"schema_version":"1.0","items":[{"type":"structured","data":' + deep + b"}]}"
    with pytest.raises(LimitError) as exc:
        il.decode_transcript(doc)
    assert exc.value.problems[0].pointer in ("", "/items/0")


def test_depth_limit_is_configurable() -> None:
    doc = b'{"schema_version":"1.0","items":[{"type":"structured","data":' + b"[" * 10 + b"]" * 10 + b"}]}"
    il.decode_transcript(doc)
    with pytest.raises(LimitError, match="deeper than 5"):
        il.decode_transcript(doc, limits=Limits(max_depth=5))
    with pytest.raises(LimitError):
        check_json_safe({"a": [[[[[[1]]]]]]}, max_depth=3)


def test_item_and_base64_size_limits() -> None:
    big_text = b'{"type":"text","role":"user","text":"' + b"x" * 5000 + b'"}'
    with pytest.raises(LimitError, match="item is"):
        decode_item(big_text, limits=Limits(max_item_bytes=1000))
    img = b'{"type":"image","role":"user","source":{"type":"base64","media_type":"image/png","data":"' + b"A" * 4000 + b'"}}'
    with pytest.raises(LimitError) as exc:
        decode_item(img, limits=Limits(max_base64_bytes=1000), pointer="/items/3")
    assert exc.value.problems[0].pointer == "/items/3/source/data"


def test_huge_string_within_limits_is_fine() -> None:
    text = "y" * 2_000_000
    item = decode_item(json.dumps({"type": "text", "role": "user", "text": text}))
    assert isinstance(item, TextItem) and len(item.text) == 2_000_000


def test_invalid_utf8_is_a_clear_error() -> None:
    with pytest.raises(DocumentError, match="UTF-8"):
        il.decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"\xff\xfe"}]}')


def _env(seq: int, text: str = "hi") -> Envelope:
    return Envelope(schema_version="1.0", session_id="s1", seq=seq, item=TextItem(text=text, role="user"), created_at="2026-11-30T00:00:00Z")


def test_jsonl_round_trip_and_truncated_last_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    assert il.write_jsonl([_env(0), _env(1, "  spaced  ")], path) == 2
    envs = list(iter_jsonl(path))
    assert [e.seq for e in envs] == [0, 1] and envs[1].item.text == "  spaced  "
    data = path.read_bytes()
    path.write_bytes(data + data.splitlines()[0][:30])  # a cut-off last line without newline
    with pytest.raises(DocumentError) as exc:
        list(iter_jsonl(path))
    problem = exc.value.problems[0]
    assert problem.line == 3 and problem.file == str(path) and "truncated" in problem.message


def test_jsonl_last_line_without_newline_is_read() -> None:
    data = il.encode_envelope(_env(0)) + b"\n" + il.encode_envelope(_env(1))
    assert [e.seq for e in iter_jsonl(io.BytesIO(data))] == [0, 1]


def test_jsonl_overlong_line_is_skipped_with_error() -> None:
    data = il.encode_envelope(_env(0, "z" * 5000)) + b"\n" + il.encode_envelope(_env(1)) + b"\n"
    recs = list(iter_jsonl(io.BytesIO(data), limits=Limits(max_line_bytes=1000), errors="yield"))
    assert recs[0].error is not None and "longer than 1000" in str(recs[0].error)
    assert recs[1].envelope is not None and recs[1].envelope.seq == 1


def test_write_jsonl_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"previous\n")
    bad = Envelope(schema_version="1.0", session_id="s", seq=1, item=ToolCallItem(id="c", name="f", arguments={"x": math.nan}))
    with pytest.raises(DocumentError):
        il.write_jsonl([_env(0), bad], path)
    assert path.read_bytes() == b"previous\n"
    assert list(tmp_path.iterdir()) == [path]


def test_decode_never_mutates_and_to_builtins_drops_unset() -> None:
    t = Transcript(schema_version="1.0", items=[TextItem(text="a", role="user")])
    assert to_builtins(t) == {"schema_version": "1.0", "items": [{"type": "text", "text": "a", "role": "user"}]}
    assert msgspec.json.decode(il.encode_transcript(t, indent=2)) == to_builtins(t)


@pytest.mark.parametrize(
    "item",
    [
        {"type": "tool_call", "id": "c", "name": "f", "arguments": {"a": json.loads("[" * 70 + "]" * 70)}},
        {"type": "tool_result", "call_id": "c", "content": [{"type": "structured", "data": json.loads("[" * 70 + "]" * 70)}]},
        {"type": "reasoning", "opaque": {"namespace": "n", "issuer": "i", "value": json.loads("[" * 70 + "]" * 70)}},
    ],
    ids=["arguments", "nested-structured", "opaque"],
)
def test_envelope_depth_limit_holds_on_every_path(item: dict) -> None:
    line = json.dumps({"schema_version": "1.0", "session_id": "s", "seq": 0, "item": item}).encode()
    with pytest.raises(LimitError, match="deeper than 64"):
        il.decode_envelope(line)
    ok = json.dumps({"schema_version": "1.0", "session_id": "s", "seq": 0, "item": item}).replace("[" * 70, "[" * 10).replace("]" * 70, "]" * 10)
    assert il.decode_envelope(ok).seq == 0


def test_envelope_fast_and_careful_paths_agree() -> None:
    for line in VALID:
        env_line = b'{"schema_version":"1.0","session_id":"s","seq":3,"item":' + line + b"}"
        fast = il.decode_envelope(env_line)
        careful = il.decode_envelope(env_line.replace(b'"1.0"', b'"1.1"', 1))  # another minor skips the fast path
        assert il.encode_item(fast.item) == il.encode_item(careful.item) == line


def test_session_header_without_metadata_is_read() -> None:
    header = il.codec.decode_session_header(b'{"schema_version":"1.0","session":{"id":"s1","created_at":"2026-11-30T00:00:00Z"}}')
    assert header.session.id == "s1" and header.session.metadata is msgspec.UNSET
    with pytest.raises(DocumentError) as exc:
        il.codec.decode_session_header(b'{"schema_version":"1.0","session":{"id":"s1","colour":1}}')
    assert exc.value.problems[0].pointer == "/session"


@pytest.mark.parametrize(
    ("data", "pointer"),
    [
        (b'{"schema_version":"1.0","items":"x"}', "/items"),
        (b'{"schema_version":"1.0","items":[],"tools":[{"description":"no name"}]}', "/tools/0"),
    ],
)
def test_frame_validation_errors_carry_pointers_not_invalid_json(data: bytes, pointer: str) -> None:
    with pytest.raises(DocumentError) as exc:
        il.decode_transcript(data)
    problem = exc.value.problems[0]
    assert problem.pointer == pointer and not problem.message.startswith("invalid JSON")


def test_envelope_frame_errors_carry_pointers() -> None:
    with pytest.raises(DocumentError) as exc:
        il.decode_envelope(b'{"schema_version":"1.0","session_id":"s","seq":"0","item":{"type":"text","role":"user","text":"x"}}')
    assert exc.value.problems[0].pointer == "/seq"
