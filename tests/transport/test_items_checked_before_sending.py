"""Items built in code get the validation reading a file gives, before any request is made."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from interlingua.errors import DocumentError
from interlingua.items import ImageItem, TextItem, ToolResultItem, Transcript
from interlingua.transport import Client

from .conftest import SENTINEL, stream_reply


def send(url: str, transcript: Any) -> Any:
    return Client("openai-chat", api_key=SENTINEL, base_url=url).generate(transcript, model="gpt-4o")


def test_a_role_outside_the_enum_is_refused_with_its_pointer(serve: Any) -> None:
    srv = serve([stream_reply("openai-chat")])
    bad = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi"), TextItem(role="robot", text="x")])  # type: ignore[arg-type]
    with pytest.raises(DocumentError) as err:
        send(srv.url, bad)
    assert err.value.problems[0].pointer == "/items/1/role" and "robot" in str(err.value)
    assert srv.received == []  # before the fix: "role": "robot" went out


@pytest.mark.parametrize("entry", [{"type": "text", "role": "user", "text": "hi"}, "hi", b"{}"])
def test_something_that_is_not_an_item_is_refused(serve: Any, entry: Any) -> None:
    srv = serve([stream_reply("openai-chat")])
    with pytest.raises(DocumentError) as err:
        send(srv.url, Transcript(schema_version="1.0", items=[entry]))
    assert err.value.problems[0].pointer == "/items/0" and type(entry).__name__ in str(err.value)
    assert srv.received == []


def test_a_dict_instead_of_a_transcript_is_refused(serve: Any) -> None:
    with pytest.raises(DocumentError, match="decode_transcript"):
        send("http://127.0.0.1:9", {"schema_version": "1.0", "items": []})


def test_nested_content_is_checked_too(serve: Any) -> None:
    srv = serve([stream_reply("openai-chat")])
    image = ImageItem(source={"kind": "url", "url": 7})  # type: ignore[arg-type]
    bad = Transcript(schema_version="1.0", items=[ToolResultItem(call_id="c1", content=[image])])  # type: ignore[list-item]
    with pytest.raises(DocumentError) as err:
        send(srv.url, bad)
    assert err.value.problems[0].pointer.startswith("/items/0/content/0")
    assert srv.received == []


def test_a_valid_transcript_is_not_changed(serve: Any) -> None:
    good = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi")])
    before = msgspec.json.encode(good)
    send("http://127.0.0.1:9", good)
    assert msgspec.json.encode(good) == before

