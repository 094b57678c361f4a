"""Generate the item-type x provider matrix in ``docs/providers.md`` by running the mappers.

For each canonical item type (and notable variants), placed in a minimal valid
conversation, and each built-in mapper, ``encode_request`` is run under policy
``error`` and then ``degrade``; the cell says what happened:

* **native**: encoded with an empty report;
* **changed**: encoded, with a `changed` report entry (e.g. a representation change);
* **degraded** / **dropped**: refused under ``error``; under ``degrade`` replaced by a text
  marker (degraded) or left out (dropped), with a report entry;
* **refused**: refused under every policy.

Usage: ``python tools/gen_provider_matrix.py [--check]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from interlingua.codec import decode_item
from interlingua.errors import InterlinguaError
from interlingua.items import TextItem, ToolCallItem, ToolDefinition, Transcript
from interlingua.mapping import get_mapper

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "providers.md"
TARGETS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "bedrock-converse"]
BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"


def _t(*items: object, tools: bool = False) -> Transcript:
    fields: dict = {"schema_version": "1.0", "items": [TextItem(role="user", text="hello"), *items]}
    if tools:
        fields["tools"] = [ToolDefinition(name="get_weather", parameters={"type": "object"})]
    return Transcript(**fields)


def _i(data: str) -> object:
    return decode_item(data)


CALL = '{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}'
PNG = '{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}'
PDF = '{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQ="}'


def _cases() -> list[tuple[str, Transcript]]:
    """One minimal valid conversation per item type and notable variant."""
    answer = TextItem(role="assistant", text="answer")
    return [
        ("text", _t(answer)),
        ("text with url_citation annotation", _t(_i('{"type":"text","role":"assistant","text":"See x.","annotations":[{"kind":"url_citation","url":"https://example.com","start_index":0,"end_index":5}]}'))),
        ("image, base64", _t(_i('{"type":"image","role":"user","source":' + PNG + "}"))),
        ("image, url", _t(_i('{"type":"image","role":"user","source":{"type":"url","url":"https://example.com/a.png"}}'))),
        ("audio, base64 wav", _t(_i('{"type":"audio","role":"user","format":"wav","source":{"type":"base64","media_type":"audio/wav","data":"UklGRg=="}}'))),
        ("document, base64 PDF", _t(_i('{"type":"document","role":"user","media_type":"application/pdf","source":' + PDF + "}"))),
        ("document, plain text", _t(_i('{"type":"document","role":"user","source":{"type":"text","text":"body","media_type":"text/plain"}}'))),
        ("artifact_ref", _t(_i('{"type":"artifact_ref","role":"user","uri":"s3://bucket/a.bin"}'))),
        ("tool_call", _t(_i(CALL), tools=True)),
        ("tool_call, malformed arguments", _t(_i('{"type":"tool_call","id":"call_1","name":"get_weather","arguments_raw":"{\\"city\\": \\"Par","arguments_error":"truncated"}'), tools=True)),
        ("tool_call, id functions.get_weather:0", _t(_i(CALL.replace("call_1", "functions.get_weather:0")), tools=True)),
        ("tool_result, text", _t(_i(CALL), _i('{"type":"tool_result","call_id":"call_1","content":[{"type":"text","text":"18C"}]}'), tools=True)),
        ("tool_result, image", _t(_i(CALL), _i('{"type":"tool_result","call_id":"call_1","content":[{"type":"image","source":' + PNG + "}]}"), tools=True)),
        ("tool_result, is_error", _t(_i(CALL), _i('{"type":"tool_result","call_id":"call_1","is_error":true,"content":[{"type":"text","text":"boom"}]}'), tools=True)),
        ("handoff_call / handoff_result", _t(_i('{"type":"handoff_call","id":"h1","target":"billing","arguments":{}}'), _i('{"type":"handoff_result","call_id":"h1","content":[{"type":"text","text":"ok"}]}'))),
        ("reasoning, text only", _t(_i('{"type":"reasoning","text":"thinking..."}'), answer)),
        ("reasoning, Anthropic signature", _t(_i('{"type":"reasoning","text":"thinking...","opaque":{"namespace":"anthropic.signature","issuer":"anthropic","value":"EqQBCkYIARgC"}}'), answer)),
        ("reasoning, OpenAI encrypted_content", _t(_i('{"type":"reasoning","summary":["s"],"opaque":{"namespace":"openai.encrypted_content","issuer":"openai-responses","value":"gAAAAB"},"origin":{"provider":"openai-responses","item_id":"rs_1"}}'), answer)),
        ("reasoning, Gemini thought signature", _t(_i('{"type":"reasoning","opaque":{"namespace":"gemini.thought_signature","issuer":"gemini","value":"CiQB"}}'), answer)),
        ("reasoning, Bedrock signature", _t(_i('{"type":"reasoning","text":"thinking...","opaque":{"namespace":"bedrock-converse.signature","issuer":"bedrock-converse","value":"EqQBCkYIARgC"}}'), answer)),
        ("structured", _t(_i('{"type":"structured","data":{"answer":42},"schema_name":"Answer"}'))),
        ("refusal", _t(_i('{"type":"refusal","text":"I cannot help with that."}'))),
        ("error", _t(_i('{"type":"error","code":"timeout","message":"timed out","retryable":true}'))),
        ("raw (openai-responses web_search_call)", _t(_i('{"type":"raw","provider":"openai-responses","value":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}}'))),
    ]


def _item_entries(conv: object) -> set[str]:
    """Report actions about the items (the note that the body has no model, pointer ``/model``, is not about them)."""
    return {e.action for e in conv.report if e.pointer != "/model"}  # type: ignore[attr-defined]


def _cell(target: str, t: Transcript) -> str:
    mapper = get_mapper(target)
    try:
        conv = mapper.encode_request(t, policy="error")
    except InterlinguaError:
        try:
            conv = mapper.encode_request(t, policy="degrade")
        except InterlinguaError:
            return "refused"
        actions = _item_entries(conv)
        return "degraded" if "degraded" in actions else "dropped"
    actions = _item_entries(conv)
    if "dropped" in actions:
        return "dropped"
    if "degraded" in actions:
        return "degraded"
    return "changed" if actions else "native"


def render_matrix() -> str:
    head = "| item | " + " | ".join(f"`{t}`" for t in TARGETS) + " |\n|---|" + "---|" * len(TARGETS) + "\n"
    rows = [f"| `{label}` | " + " | ".join(_cell(t, tr) for t in TARGETS) + " |" for label, tr in _cases()]
    return head + "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    doc = OUT.read_text()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    new = doc[:start] + "\n" + render_matrix() + doc[end:]
    if args.check:
        if new != doc:
            print("docs/providers.md matrix is out of date: run `python tools/gen_provider_matrix.py`", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
