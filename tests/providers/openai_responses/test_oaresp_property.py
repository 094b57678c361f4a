"""Property tests: generated Responses requests and canonical transcripts within the supported
subset round-trip unchanged (up to the representation choices in conftest)."""

from __future__ import annotations

import copy
import json

import msgspec

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import to_builtins
from interlingua.items import (
    Base64Source,
    FileSource,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    RefusalItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.providers.openai_responses import mapper as oar_mapper

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=12)
b64 = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", min_size=4, max_size=16)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), text)
json_object = st.dictionaries(ident, st.one_of(json_scalar, st.lists(json_scalar, max_size=3)), max_size=4)

# --------------------------------------------------------------------------- wire strategies

input_text = st.builds(lambda t: {"type": "input_text", "text": t}, text)
# ResponseInputImageParam.detail is Required: a body the SDK accepts has it (an absent one is written
# "auto", tested in test_oracle_classes.py).
detail = st.sampled_from(["auto", "low", "high", "original"])


@st.composite
def input_image(draw):
    kind = draw(st.sampled_from(["url", "data", "file"]))
    part = {"type": "input_image"}
    if kind == "url":
        part["image_url"] = "https://example.com/" + draw(ident) + ".png"
    elif kind == "data":
        part["image_url"] = f"data:image/{draw(st.sampled_from(['png', 'jpeg']))};base64,{draw(b64)}"
    else:
        part["file_id"] = "file-" + draw(ident)
    d = draw(detail)
    if d is not None:
        part["detail"] = d
    return part


@st.composite
def input_file(draw):
    kind = draw(st.sampled_from(["data", "id", "url"]))
    if kind == "data":
        return {"type": "input_file", "file_data": f"data:application/pdf;base64,{draw(b64)}", "filename": draw(ident) + ".pdf"}
    if kind == "id":
        return {"type": "input_file", "file_id": "file-" + draw(ident)}
    return {"type": "input_file", "file_url": "https://example.com/" + draw(ident) + ".pdf"}


user_part = st.one_of(input_text, input_image(), input_file())
annotation = st.builds(lambda u, s, e: {"type": "url_citation", "url": "https://" + u + ".example", "title": u, "start_index": s, "end_index": s + e}, ident, st.integers(0, 50), st.integers(0, 50))
output_text = st.builds(lambda t, a: {"type": "output_text", "text": t, "annotations": a}, text, st.lists(annotation, max_size=2))
refusal = st.builds(lambda t: {"type": "refusal", "refusal": t}, text)


@st.composite
def wire_item(draw, call_ids):
    kind = draw(st.sampled_from(["easy", "strict", "assistant_out", "assistant_easy", "call", "output", "reasoning", "raw"]))
    if kind == "easy":
        return {"role": draw(st.sampled_from(["user", "system", "developer"])), "content": draw(text)}
    if kind == "strict":
        return {"type": "message", "role": draw(st.sampled_from(["user", "system", "developer"])), "content": draw(st.lists(user_part, min_size=1, max_size=4))}
    if kind == "assistant_out":
        return {"type": "message", "id": "msg_" + draw(ident), "role": "assistant", "status": "completed", "content": draw(st.lists(st.one_of(output_text, refusal), min_size=1, max_size=3))}
    if kind == "assistant_easy":
        return {"role": "assistant", "content": draw(text)}
    if kind == "call":
        call_id = "call_" + draw(ident)
        call_ids.append(call_id)
        item = {"type": "function_call", "call_id": call_id, "name": draw(ident), "arguments": json.dumps(draw(json_object), separators=(",", ":"), ensure_ascii=False)}
        if draw(st.booleans()):
            item["id"] = "fc_" + draw(ident)
        return item
    if kind == "output":
        call_id = draw(st.sampled_from(call_ids)) if call_ids and draw(st.booleans()) else "call_" + draw(ident)
        output = draw(st.one_of(text, st.lists(user_part, min_size=2, max_size=3)))
        return {"type": "function_call_output", "call_id": call_id, "output": output}
    if kind == "reasoning":
        item = {"type": "reasoning", "id": "rs_" + draw(ident), "summary": [{"type": "summary_text", "text": t} for t in draw(st.lists(text, max_size=3))]}
        if draw(st.booleans()):
            item["content"] = [{"type": "reasoning_text", "text": draw(text)}]
        if draw(st.booleans()):
            item["encrypted_content"] = "gAAAA" + draw(b64)
        return item
    return draw(st.sampled_from([{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}, {"type": "item_reference", "id": "msg_9"}]))


@st.composite
def request_body(draw):
    call_ids: list[str] = []
    body: dict = {"model": "gpt-5", "input": draw(st.lists(wire_item(call_ids), max_size=8))}
    if draw(st.booleans()):
        body["instructions"] = draw(text.filter(bool))
    if draw(st.booleans()):
        body["tools"] = [
            {"type": "function", "name": n, "description": d, "parameters": {"type": "object", "properties": p}, "strict": s}
            for n, d, p, s in draw(st.lists(st.tuples(ident, text, json_object, st.booleans()), max_size=3))
        ]
        body["tool_choice"] = draw(st.sampled_from(["auto", "none", "required"]))
    return body


@SETTINGS
@given(body=request_body())
def test_generated_requests_round_trip(body, oar, wire):
    before = copy.deepcopy(body)
    decoded = oar.decode_request(body)
    assert decoded.report.entries == []
    encoded = oar.encode_request(decoded.value, model="gpt-5")
    assert encoded.report.entries == []
    assert wire.request(encoded.value) == wire.request(body)
    again = oar.decode_request(encoded.value)
    assert to_builtins(again.value) == to_builtins(decoded.value)
    assert body == before


# --------------------------------------------------------------------------- canonical strategies


def _own(prefix, draw):
    return Origin(provider="openai-responses", item_id=prefix + draw(ident))


@st.composite
def canonical_item(draw, key, call_ids):
    kind = draw(st.sampled_from(["text", "image", "assistant", "refusal", "call", "result", "reasoning", "raw"]))
    if kind == "text":
        return TextItem(text=draw(text), role=draw(st.sampled_from(["user", "system", "developer"])), message=key)
    if kind == "image":
        source = draw(
            st.one_of(
                st.builds(lambda i: UrlSource(url=f"https://example.com/{i}.png"), ident),
                st.builds(lambda d: Base64Source(media_type="image/png", data=d), b64),
                st.builds(lambda i: FileSource(file_id="file-" + i, provider="openai"), ident),
            )
        )
        return ImageItem(source=source, role="user", message=key, detail=draw(st.sampled_from(["auto", "low", "high", "original"])))
    if kind == "assistant":
        return TextItem(text=draw(text), role="assistant", message=key, origin=_own("msg_", draw) if draw(st.booleans()) else msgspec.UNSET)
    if kind == "refusal":
        return RefusalItem(text=draw(text), message=key, origin=_own("msg_", draw))
    if kind == "call":
        call_id = "call_" + draw(ident)
        call_ids.append(call_id)
        return ToolCallItem(id=call_id, name=draw(ident), arguments=draw(json_object), message=key, origin=_own("fc_", draw) if draw(st.booleans()) else msgspec.UNSET)
    if kind == "result":
        call_id = draw(st.sampled_from(call_ids)) if call_ids else "call_" + draw(ident)
        return ToolResultItem(call_id=call_id, content=[TextItem(text=draw(text))], message=key)
    if kind == "reasoning":
        opaque = OpaqueReasoning(namespace="openai.encrypted_content", issuer="openai-responses", value="gAAAA" + draw(b64)) if draw(st.booleans()) else msgspec.UNSET
        return ReasoningItem(summary=draw(st.lists(text, max_size=3)), text=draw(st.one_of(st.just(msgspec.UNSET), text)), opaque=opaque, origin=_own("rs_", draw), message=key)
    return RawItem(provider="openai-responses", value={"type": "web_search_call", "id": "ws_" + draw(ident), "status": "completed"}, message=key)


@st.composite
def transcript(draw):
    call_ids: list[str] = []
    n = draw(st.integers(0, 8))
    return Transcript(schema_version="1.0", items=[draw(canonical_item(f"m{i}", call_ids)) for i in range(n)])


@SETTINGS
@given(t=transcript())
def test_generated_transcripts_round_trip_unchanged(t, oar):
    before = to_builtins(t)
    encoded = oar.encode_request(t, model="gpt-5")
    assert encoded.report.entries == []
    back = oar.decode_request(encoded.value)
    assert back.report.entries == []
    assert to_builtins(back.value.items) == before["items"]
    assert to_builtins(t) == before


def test_the_module_mapper_is_the_registered_one(oar):
    assert oar is oar_mapper
