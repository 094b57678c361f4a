"""The upcaster chain, exercised with a test-only "0.9" schema registered here.

The fake 0.9 shape (defined only in this test): a document ``{"schema_version": "0.9",
"messages": [{"kind": "say", "speaker": "human"|"bot", "words": str}]}``; envelopes
``{"schema_version": "0.9", "conversation": id, "n": seq, "entry": <message>}``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from interlingua.codec import to_builtins
from interlingua.compat import read_any, registered, upcast, upcast_row, upcaster
from interlingua.errors import VersionError

_ROLE = {"human": "user", "bot": "assistant"}


def _item(entry: dict[str, Any]) -> dict[str, Any]:
    return {"type": "text", "role": _ROLE[entry["speaker"]], "text": entry["words"]}


@pytest.fixture
def fake_09() -> Iterator[None]:
    @upcaster("0.8", to="0.9")
    def from_08(obj: dict[str, Any], kind: str) -> dict[str, Any]:
        # 0.8 called the list "turns"
        if kind == "document":
            obj["messages"] = obj.pop("turns")
        obj["schema_version"] = "0.9"
        return obj

    @upcaster("0.9", to="1.0")
    def from_09(obj: dict[str, Any], kind: str) -> dict[str, Any]:
        if kind == "document":
            return {"schema_version": "1.0", "items": [_item(m) for m in obj["messages"]]}
        return {"schema_version": "1.0", "session_id": obj["conversation"], "seq": obj["n"], "item": _item(obj["entry"])}

    yield
    from_08.unregister()  # type: ignore[attr-defined]
    from_09.unregister()  # type: ignore[attr-defined]


DOC_09 = {"schema_version": "0.9", "messages": [{"kind": "say", "speaker": "human", "words": "hello"}, {"kind": "say", "speaker": "bot", "words": "hi!"}]}


def test_old_document_is_read_through_the_chain(fake_09: None) -> None:
    before = copy.deepcopy(DOC_09)
    m = read_any(DOC_09)
    assert DOC_09 == before
    assert m.format == "interlingua"
    assert to_builtins(m.transcript) == {
        "schema_version": "1.0",
        "items": [{"type": "text", "text": "hello", "role": "user"}, {"type": "text", "text": "hi!", "role": "assistant"}],
    }
    assert [str(e) for e in m.report] == ["changed: document upcast from schema_version 0.9 -> 1.0"]


def test_chain_applies_several_steps(fake_09: None) -> None:
    doc = {"schema_version": "0.8", "turns": DOC_09["messages"]}
    out, steps = upcast(doc)
    assert steps == ["0.8 -> 0.9", "0.9 -> 1.0"]
    assert out["items"][0]["text"] == "hello"
    assert registered() == {"0.8": "0.9", "0.9": "1.0"}


def test_old_envelopes_and_store_rows(fake_09: None) -> None:
    envs = [{"schema_version": "0.9", "conversation": "s1", "n": i, "entry": e} for i, e in enumerate(DOC_09["messages"])]
    m = read_any(envs)
    assert m.session_id == "s1"  # envelopes keep their session
    assert [i.text for i in m.transcript.items] == ["hello", "hi!"]
    # A store row: its schema_version column and item JSON. The fake 0.9 upcaster needs the
    # row's envelope columns in its own names, which the caller passes through.
    version, item = upcast_row("0.9", {}, conversation="s1", n=3, entry={"speaker": "bot", "words": "ok"})
    assert (version, item) == ("1.0", {"type": "text", "role": "assistant", "text": "ok"})


def test_current_version_passes_untouched() -> None:
    doc = {"schema_version": "1.0", "items": []}
    out, steps = upcast(doc)
    assert out is doc and steps == []
    assert upcast_row("1.0", {"type": "text", "text": "x", "role": "user"}) == ("1.0", {"type": "text", "text": "x", "role": "user"})


def test_newer_major_is_refused() -> None:
    with pytest.raises(VersionError, match=r"2\.0 is newer than this reader \(1\.0\)"):
        read_any({"schema_version": "2.0", "items": []})
    with pytest.raises(VersionError, match="newer"):
        upcast_row("3.1", {})


def test_older_version_without_upcaster_is_refused_naming_the_chain() -> None:
    with pytest.raises(VersionError, match=r"no upcaster reads schema_version 0\.9 \(registered: none\)"):
        read_any({"schema_version": "0.9", "messages": []})


def test_malformed_or_missing_version() -> None:
    with pytest.raises(VersionError, match="MAJOR.MINOR"):
        upcast({"schema_version": "one"})
    with pytest.raises(VersionError, match="missing"):
        upcast({"items": []})


def test_registration_rules(fake_09: None) -> None:
    with pytest.raises(ValueError, match="already registered"):
        upcaster("0.9", to="1.0")(lambda o, k: o)
    with pytest.raises(ValueError, match="newer"):
        upcaster("1.0", to="0.9")
