"""A Python string may hold a lone surrogate; JSON text may not. Encoding such a value (built in
code, not read from JSON: the readers refuse it) is a DocumentError at its pointer, never a bare
UnicodeEncodeError (found by the codec benchmark work: ``encode_item(TextItem(text="\\ud800"))``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import decode_transcript, encode_envelope, encode_item, encode_transcript, to_builtins
from interlingua.errors import DocumentError
from interlingua.items import Envelope

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "examples" / "transcripts" / "weather.json"


def _string_pointers(value: Any, pointer: str = "") -> list[str]:
    if isinstance(value, str):
        return [pointer]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _string_pointers(v, f"{pointer}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_pointers(v, f"{pointer}/{i}")]
    return []


def _attr(obj: Any, wire: str) -> str:
    return dict(zip(obj.__struct_encode_fields__, obj.__struct_fields__))[wire]


def _set(doc: Any, pointer: str, value: Any) -> None:
    """Set the value at ``pointer`` in a tree of Structs, dicts and lists, in place (as code may)."""
    *parents, last = pointer.split("/")[1:]
    for part in parents:
        if isinstance(doc, list):
            doc = doc[int(part)]
        elif isinstance(doc, msgspec.Struct):
            doc = getattr(doc, _attr(doc, part))
        else:
            doc = doc[part]
    if isinstance(doc, list):
        doc[int(last)] = value
    elif isinstance(doc, msgspec.Struct):
        setattr(doc, _attr(doc, last), value)
    else:
        doc[last] = value


def _with_surrogate(pointer: str) -> Any:
    transcript = decode_transcript(DOC.read_bytes())
    _set(transcript, pointer, "ok\ud800")  # built in code: a JSON reader would refuse it
    return transcript


POINTERS = [p for p in _string_pointers(to_builtins(decode_transcript(DOC.read_bytes()))) if p != "/schema_version" and not p.endswith("/type")]


@pytest.mark.parametrize("pointer", POINTERS)
def test_every_string_of_a_real_transcript(pointer: str) -> None:
    transcript = _with_surrogate(pointer)
    with pytest.raises(DocumentError) as info:
        encode_transcript(transcript)
    assert info.value.problems[0].pointer == pointer
    assert "lone surrogate" in str(info.value)
    index = int(pointer.split("/")[2]) if pointer.startswith("/items/") else None
    if index is not None:
        item = transcript.items[index]
        inner = pointer.split("/", 3)[3] if pointer.count("/") > 2 else ""
        with pytest.raises(DocumentError) as info:
            encode_item(item)
        assert info.value.problems[0].pointer == f"/{inner}"
        with pytest.raises(DocumentError) as info:
            encode_envelope(Envelope(schema_version="1.0", session_id="s", seq=0, item=item))
        assert info.value.problems[0].pointer == f"/item/{inner}"


def test_a_surrogate_in_a_key() -> None:
    transcript = decode_transcript(DOC.read_bytes())
    transcript.metadata = {"k\udc00": 1}
    with pytest.raises(DocumentError, match="lone surrogate"):
        encode_transcript(transcript)
