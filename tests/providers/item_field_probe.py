"""What a mapper does with one item field, found by running it (the truth the item-field tables are held to).

Each item kind has candidate items (a text, a base64 image, a PDF, a tool call with its tool, reasoning
with each issuer's opaque state, ...); a mapper's *base* item of a kind is the first candidate it encodes
with no report entry about the item (the kind is carried natively). A field is probed by setting it on the
base item, encoding the conversation under policy ``degrade`` and decoding the body again.
"""

from __future__ import annotations

from typing import Any

import msgspec

from interlingua.codec import SCHEMA_VERSION, decode_item
from interlingua.errors import InterlinguaError
from interlingua.items import Settings, TextItem, ToolDefinition, Transcript

MODEL = {"gemini": "gemini-2.5-flash", "bedrock-converse": "amazon.nova-pro-v1:0"}
"""A model per mapper where the mapper's default would change the rules."""

_CALL = '{"type":"tool_call","id":"Ab3dE6gH9","name":"get_weather","arguments":{"city":"Paris"}}'
"""A call whose id every target's id rule takes as it is (Mistral's: nine letters and digits)."""
_PNG = '{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}'
_PDF = '{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQ="}'
_WAV = '{"type":"base64","media_type":"audio/wav","data":"UklGRg=="}'
_OPAQUE = [
    ("anthropic.signature", "anthropic", '"EqQBCkYIARgC"'),
    ("openai.encrypted_content", "openai-responses", '"gAAAAB"'),
    ("gemini.thought_signature", "gemini", '"CiQB"'),
    ("bedrock-converse.signature", "bedrock-converse", '"EqQBCkYIARgC"'),
    ("openrouter.reasoning_details", "openrouter", '[{"type":"reasoning.text","text":"thinking...","format":"unknown","index":0}]'),
]

CANDIDATES: dict[str, list[str]] = {
    "text": ['{"type":"text","role":"assistant","text":"answer"}'],
    "image": ['{"type":"image","role":"user","source":' + _PNG + "}", '{"type":"image","role":"user","source":{"type":"url","url":"https://example.com/a.png"}}'],
    "audio": ['{"type":"audio","role":"user","format":"wav","source":' + _WAV + "}"],
    "video": [
        '{"type":"video","role":"user","source":{"type":"url","url":"https://www.youtube.com/watch?v=9hE5-98ZeCg","media_type":"video/mp4"}}',
        '{"type":"video","role":"user","source":{"type":"base64","media_type":"video/mp4","data":"AAAAGGZ0eXA="}}',
    ],
    "document": [
        '{"type":"document","role":"user","media_type":"application/pdf","source":' + _PDF + "}",
        '{"type":"document","role":"user","source":{"type":"text","text":"body","media_type":"text/plain"}}',
    ],
    "artifact_ref": ['{"type":"artifact_ref","role":"user","uri":"s3://bucket/a.bin"}'],
    "tool_call": [_CALL],
    "tool_result": ['{"type":"tool_result","call_id":"Ab3dE6gH9","content":[{"type":"text","text":"18C"}]}'],
    "handoff_call": ['{"type":"handoff_call","id":"h1","target":"billing","arguments":{}}'],
    "handoff_result": ['{"type":"handoff_result","call_id":"h1","content":[{"type":"text","text":"ok"}]}'],
    "reasoning": ['{"type":"reasoning","text":"thinking..."}']
    + [f'{{"type":"reasoning","text":"thinking...","opaque":{{"namespace":"{ns}","issuer":"{issuer}","value":{value}}}}}' for ns, issuer, value in _OPAQUE]
    + ['{"type":"reasoning","summary":["s"],"opaque":{"namespace":"openai.encrypted_content","issuer":"openai-responses","value":"gAAAAB"},"origin":{"provider":"openai-responses","item_id":"rs_1"}}'],
    "structured": ['{"type":"structured","data":{"answer":42},"schema_name":"Answer"}'],
    "refusal": ['{"type":"refusal","text":"I cannot help with that."}'],
    "error": ['{"type":"error","code":"timeout","message":"timed out","retryable":true}'],
    "raw": [
        '{"type":"raw","provider":"openai-responses","value":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}}',
        '{"type":"raw","provider":"anthropic","value":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}}',
        '{"type":"raw","provider":"gemini","value":{"executableCode":{"language":"PYTHON","code":"print(1)"}}}',
        '{"type":"raw","provider":"bedrock-converse","value":{"guardContent":{"text":{"text":"checked"}}}}',
        '{"type":"raw","provider":"openai-chat","role":"user","value":{"type":"input_audio_ref","ref":"a1"}}',
        '{"type":"raw","provider":"cohere","value":{"role":"x_custom","content":"hi"}}',
        '{"type":"raw","provider":"ollama","value":{"role":"x_custom","content":"hi"}}',
        '{"type":"raw","provider":"mistral","role":"user","value":{"type":"input_audio","input_audio":"UklGRg=="}}',
    ],
}
"""Candidate items per kind, the simplest first (every kind of the union has at least one)."""


def transcript(item: Any) -> Transcript:
    """A minimal valid conversation around ``item``: a user turn first, the call before a result, an answer after reasoning."""
    kind = item.__struct_config__.tag
    items: list[Any] = [TextItem(role="user", text="hello")]
    if kind == "tool_result":
        items.append(decode_item(_CALL))
    if kind == "handoff_result":
        items.append(decode_item(CANDIDATES["handoff_call"][0]))
    items.append(item)
    if kind == "reasoning":
        items.append(TextItem(role="assistant", text="answer"))
    tools = [ToolDefinition(name="get_weather", parameters={"type": "object"})]
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, settings=Settings(stream=False))


def index_of(item: Any) -> int:
    """The index of the probed item in :func:`transcript`."""
    kind = item.__struct_config__.tag
    return 2 if kind in ("tool_result", "handoff_result") else 1


def encode(mapper: Any, item: Any) -> Any:
    """``mapper.encode_request`` of :func:`transcript` under policy ``degrade`` (``None``: refused)."""
    try:
        return mapper.encode_request(transcript(item), model=MODEL.get(mapper.name), policy="degrade")
    except InterlinguaError:
        return None


def about(conv: Any, item: Any) -> list[str]:
    """The report entries about the probed item: by index or pointer, or by kind where a mapper rewriting
    another format's body knows no index (Mistral's entries about the Chat body it adapts)."""
    i = index_of(item)
    kind = item.__struct_config__.tag
    return [
        str(e) for e in conv.report if e.index == i or (e.pointer or "").startswith(f"/items/{i}") or (e.index is None and e.pointer is None and e.item_type == kind)
    ]


def base_item(mapper: Any, kind: str) -> Any:
    """The first candidate of ``kind`` that ``mapper`` carries natively (encoded, nothing reported about it), or ``None``."""
    for text in CANDIDATES[kind]:
        item = decode_item(text)
        conv = encode(mapper, item)
        if conv is not None and not about(conv, item):
            return item
    return None


def with_field(base: Any, name: str, value: Any) -> Any:
    """``base`` with field ``name`` set to ``value``, validated as the codec would (``None`` when the result is invalid)."""
    try:
        return msgspec.convert(msgspec.to_builtins(msgspec.structs.replace(base, **{name: value})), type(base))
    except (msgspec.ValidationError, TypeError, ValueError):
        return None


def decoded_value(mapper: Any, conv: Any, item: Any, name: str) -> Any:
    """The field ``name`` of the probed item as the mapper reads its own body back (``UNSET`` when the item is not found)."""
    try:
        back = mapper.decode_request(conv.value).value
    except InterlinguaError:
        return msgspec.UNSET
    kind = item.__struct_config__.tag
    same = [i for i in back.items if i.__struct_config__.tag == kind]
    if kind == "text":  # the first user text is the context, the probed text is the last one
        same = same[1:]
    return getattr(same[-1], name, msgspec.UNSET) if same else msgspec.UNSET
