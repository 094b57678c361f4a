"""Properties: canonical data passes through the compat path unchanged.

* Any valid transcript, stored as a document, reads back equal through ``read_any``
  (detected as ``interlingua``) with an empty report and the same content-derived id.
* Stored as envelopes of one session (``-o`` output), it reads back with the same items
  and keeps the session id.
* An OpenAI Chat conversation encoded by the mapper and read back by the compat reader
  gives the mapper's own decoding (compat adds nothing of its own for provider formats).
"""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings

from interlingua.codec import SCHEMA_VERSION, encode_transcript, to_builtins
from interlingua.compat import detect_format, read_any, session_id_for
from interlingua.items import Transcript
from interlingua.mapping import get_mapper
from interlingua.testing.strategies import transcripts

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(transcripts())
def test_canonical_document_reads_back_unchanged(t: Transcript) -> None:
    doc = msgspec.json.decode(encode_transcript(t))
    assert detect_format(doc) == "interlingua"
    m = read_any(doc)
    assert to_builtins(m.transcript) == to_builtins(t)
    assert not m.report
    assert m.session_id == session_id_for(t)


@SETTINGS
@given(transcripts(max_items=8))
def test_envelopes_of_one_session_read_back_with_their_id(t: Transcript) -> None:
    if not t.items:
        return
    envs = [{"schema_version": SCHEMA_VERSION, "session_id": "s-1", "seq": i, "item": to_builtins(item)} for i, item in enumerate(t.items)]
    m = read_any(envs)
    assert m.session_id == "s-1"
    assert to_builtins(m.transcript.items) == to_builtins(list(t.items))


@SETTINGS
@given(transcripts(["text", "tool_call", "tool_result"], max_items=8))
def test_openai_chat_lists_read_as_the_mapper_reads_them(t: Transcript) -> None:
    mapper = get_mapper("openai-chat")
    body = mapper.encode_request(t, policy="drop").value
    expected = mapper.decode_request({"messages": body["messages"]}).value
    assert read_any(body["messages"], "openai-chat").transcript == expected
