"""Generate the item-type x provider matrix and the settings x provider table in ``docs/providers.md`` by running the mappers.

For each canonical item type (and notable variants), placed in a minimal valid
conversation, and each built-in mapper, ``encode_request`` is run under policy
``error`` and then ``degrade``; the cell says what happened:

* **native**: encoded with an empty report;
* **changed**: encoded, with a `changed` report entry (e.g. a representation change);
* **degraded** / **dropped**: refused under ``error``; under ``degrade`` replaced by a text
  marker (degraded) or left out (dropped), with a report entry;
* **refused**: refused under every policy.

The settings table (between ``<!-- settings:begin -->`` and ``<!-- settings:end -->``) encodes, for each
canonical setting, a one-item transcript holding only that setting, compares the body with the body of
the same transcript without it, and decodes it again (see :func:`_setting_cell`).

The declared table (between ``<!-- declared:begin -->`` and ``<!-- declared:end -->``) is each mapper's
``settings_table`` as written (ADR 0042): the wire path of every setting, or why it is not taken
(tests/providers/test_settings_tables.py proves the declarations are what the mappers do).

The item-field table (between ``<!-- item-fields:begin -->`` and ``<!-- item-fields:end -->``) is each mapper's
``item_fields`` as written (ADR 0044): for every field of every item kind, its wire path, "dropped, reported",
"not sent", or "whole item" for a kind the target does not carry as itself (tests/providers/test_item_field_tables.py
proves the declarations are what the mappers do). The response table (between ``<!-- response-fields:begin -->`` and
``<!-- response-fields:end -->``) is the same for a response body, ``encode_response`` / ``decode_response``
(tests/providers/test_response_item_field_tables.py).

Usage: ``python tools/gen_provider_matrix.py [--check]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from interlingua.codec import decode_item
from interlingua.errors import InterlinguaError
from interlingua.items import ReasoningSettings, ResponseFormat, Settings, TextItem, ToolCallItem, ToolDefinition, Transcript
from interlingua.mapping import get_mapper
from interlingua.mapping.settings import settings_of

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "providers.md"
TARGETS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "bedrock-converse", "cohere", "mistral"]
BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"
SETTINGS_BEGIN, SETTINGS_END = "<!-- settings:begin -->", "<!-- settings:end -->"
DECLARED_BEGIN, DECLARED_END = "<!-- declared:begin -->", "<!-- declared:end -->"
FIELDS_BEGIN, FIELDS_END = "<!-- item-fields:begin -->", "<!-- item-fields:end -->"
RESPONSE_FIELDS_BEGIN, RESPONSE_FIELDS_END = "<!-- response-fields:begin -->", "<!-- response-fields:end -->"
DIALECTS = ["deepseek", "openrouter", "ollama"]
"""Further ``openai-chat`` dialects shown as their own settings columns."""
MODEL = "test-model"
"""Model passed to every encode (a body without one is reported, which is not what the tables show)."""


def _t(*items: object, tools: bool = False) -> Transcript:
    # stream: false so a target that needs an explicit stream (Ollama) has nothing to add
    fields: dict = {"schema_version": "1.0", "items": [TextItem(role="user", text="hello"), *items], "settings": Settings(stream=False)}
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
        ("video, YouTube url", _t(_i('{"type":"video","role":"user","source":{"type":"url","url":"https://www.youtube.com/watch?v=9hE5-98ZeCg","media_type":"video/mp4"}}'))),
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


def _cell(target: str, t: Transcript) -> str:
    mapper = get_mapper(target)
    try:
        conv = mapper.encode_request(t, model=MODEL, policy="error")
    except InterlinguaError:
        try:
            conv = mapper.encode_request(t, model=MODEL, policy="degrade")
        except InterlinguaError:
            return "refused"
        actions = {e.action for e in conv.report if e.item_type != "settings"}
        return "degraded" if "degraded" in actions else "dropped"
    # Settings entries (a required max_tokens added, stream reported) belong to the settings table.
    actions = {e.action for e in conv.report if e.item_type != "settings"}
    if "dropped" in actions:
        return "dropped"
    if "degraded" in actions:
        return "degraded"
    return "changed" if actions else "native"


def render_matrix() -> str:
    head = "| item | " + " | ".join(f"`{t}`" for t in TARGETS) + " |\n|---|" + "---|" * len(TARGETS) + "\n"
    rows = [f"| `{label}` | " + " | ".join(_cell(t, tr) for t in TARGETS) + " |" for label, tr in _cases()]
    return head + "\n".join(rows) + "\n"


_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _setting_cases() -> list[tuple[str, Settings]]:
    """One transcript setting per row (stream is false everywhere else, so Ollama adds nothing)."""
    off = {"stream": False}
    return [
        ("max_output_tokens", Settings(max_output_tokens=1024, **off)),
        ("temperature", Settings(temperature=0.5, **off)),
        ("top_p", Settings(top_p=0.9, **off)),
        ("top_k", Settings(top_k=40, **off)),
        ("stop", Settings(stop=["END"], **off)),
        ("seed", Settings(seed=7, **off)),
        ("presence_penalty", Settings(presence_penalty=0.5, **off)),
        ("frequency_penalty", Settings(frequency_penalty=0.5, **off)),
        ("response_format text", Settings(response_format=ResponseFormat(type="text"), **off)),
        ("response_format json_object", Settings(response_format=ResponseFormat(type="json_object"), **off)),
        ("response_format json_schema", Settings(response_format=ResponseFormat(type="json_schema", name="City", schema=_SCHEMA, strict=True), **off)),
        ("reasoning.effort", Settings(reasoning=ReasoningSettings(effort="low"), **off)),
        ("reasoning.budget_tokens", Settings(reasoning=ReasoningSettings(budget_tokens=2048), **off)),
        ("reasoning.summary", Settings(reasoning=ReasoningSettings(summary="auto"), **off)),
        ("reasoning.include_thoughts", Settings(reasoning=ReasoningSettings(include_thoughts=True), **off)),
        ("stream", Settings(stream=True)),
        ("provider_data, own", Settings(provider_data={"<target>": {"x_custom": 1}}, **off)),
        ("provider_data, another provider's", Settings(provider_data={"another": {"x_custom": 1}}, **off)),
    ]


def _setting_mappers() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = [(t, get_mapper(t)) for t in TARGETS]
    chat = get_mapper("openai-chat")
    dialects = [d for d in DIALECTS if d != "mistral"]  # the mistral mapper's engine: its own column
    for n, dialect in enumerate(dialects):
        out.insert(TARGETS.index("openai-chat") + 1 + n, (f"openai-chat ({dialect})", type(chat)(dialect=dialect)))  # type: ignore[call-arg]
    return out


def _changed_paths(body: dict, base: dict, prefix: str = "") -> list[str]:
    """Dotted paths of what ``body`` has that ``base`` does not (one level into single-key objects)."""
    paths = []
    for key, value in body.items():
        if key in ("messages", "contents", "input", "system", "systemInstruction", "instructions", "model"):
            continue
        old = base.get(key)
        if old == value:
            continue
        if isinstance(value, dict) and (isinstance(old, dict) or (len(value) == 1 and old is None and "type" not in value)):
            inner = _changed_paths(value, old if isinstance(old, dict) else {}, f"{prefix}{key}.")
            paths.extend(inner or [f"{prefix}{key}"])
        else:
            paths.append(f"{prefix}{key}")
    return paths


def _setting_cell(mapper: object, label: str, setting: Settings) -> str:
    """What ``mapper`` does with ``setting``: kept / changed (into which field) / dropped / refused / not mapped."""
    name = mapper.name  # type: ignore[attr-defined]
    if setting.provider_data is not msgspec.UNSET and "<target>" in setting.provider_data:
        setting = msgspec.structs.replace(setting, provider_data={name: setting.provider_data["<target>"]})
    item = [TextItem(role="user", text="hello")]
    with_it = Transcript(schema_version="1.0", items=item, settings=setting)
    base = Transcript(schema_version="1.0", items=item, settings=Settings(stream=False))
    base_conv = mapper.encode_request(base, model=MODEL)  # type: ignore[attr-defined]
    base_body = base_conv.value
    # What the target reports for every body (Anthropic's required max_tokens added, Gemini's
    # stream flag living in the URL) is not about the row's setting.
    always = {str(e) for e in base_conv.report}
    prefix = ""
    try:
        conv = mapper.encode_request(with_it, model=MODEL, policy="error")  # type: ignore[attr-defined]
    except InterlinguaError:
        conv = mapper.encode_request(with_it, model=MODEL, policy="degrade")  # type: ignore[attr-defined]
        prefix = "refused; degrade: "
    paths = ", ".join(f"`{p}`" for p in _changed_paths(conv.value, base_body))
    actions = {e.action for e in conv.report if e.item_type == "settings" and str(e) not in always}
    if "changed" in actions and paths:
        return f"{prefix}changed: {paths}"
    if "dropped" in actions and not paths:
        return f"{prefix}dropped"
    if "dropped" in actions:
        return f"{prefix}partly: {paths} (the rest dropped)"
    if not paths:
        return "not mapped"
    back = settings_of(mapper.decode_request(conv.value).value)  # type: ignore[attr-defined]
    field = label.split(" ")[0].split(".")[0].rstrip(",")
    kept = getattr(back, field) == getattr(setting, field)
    return f"{prefix}kept: {paths}" if kept else f"{prefix}lost on the way back: {paths}"


def render_settings() -> str:
    mappers = _setting_mappers()
    head = "| setting | " + " | ".join(f"`{n}`" for n, _ in mappers) + " |\n|---|" + "---|" * len(mappers) + "\n"
    rows = [f"| `{label}` | " + " | ".join(_setting_cell(m, label, s) for _, m in mappers) + " |" for label, s in _setting_cases()]
    return head + "\n".join(rows) + "\n"


def render_declared() -> str:
    """The settings tables as declared: one row per canonical setting, then each mapper's reasons and converters."""
    from interlingua.mapping.settings_table import Unsupported, required_settings

    mappers = _setting_mappers()
    head = "| setting | " + " | ".join(f"`{n}`" for n, _ in mappers) + " |\n|---|" + "---|" * len(mappers) + "\n"
    rows = []
    for name in required_settings():
        cells = []
        for _, m in mappers:
            row = m.settings_table.rows[name]  # type: ignore[attr-defined]
            cells.append("not taken" if isinstance(row, Unsupported) else f"`{row.path}`" + (" (converted)" if row.how else ""))
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    notes = []
    for label, m in mappers:
        table = m.settings_table  # type: ignore[attr-defined]
        why: dict[str, list[str]] = {}
        for name, row in table.rows.items():
            if isinstance(row, Unsupported):
                text = (row.why or "no such field") + ("; refused under policy error" if row.meaning_changes else "")
                why.setdefault(text, []).append(f"`{name}`")
        how = [f"`{name}`: {row.how}" for name, row in table.rows.items() if not isinstance(row, Unsupported) and row.how and name != "model"]
        parts = [f"{', '.join(names)} not taken ({text})" for text, names in why.items()] + how
        notes.append(f"- **`{label}`**: " + "; ".join(parts) + ".")
    return head + "\n".join(rows) + "\n\n" + "\n".join(notes) + "\n"


def render_item_fields(direction: str = "request") -> str:
    """The item-field tables as declared (ADR 0044) for ``direction`` (``request`` or ``response``): one row per
    field of every item kind, then each mapper's notes."""
    from interlingua.mapping.item_fields import CALL_IDS, Mapped, NotSent, Unsupported, WholeItem, item_kinds, required_item_fields

    mappers = _setting_mappers()
    head = "| item field | " + " | ".join(f"`{n}`" for n, _ in mappers) + " |\n|---|" + "---|" * len(mappers) + "\n"
    common = ("id", "metadata", "origin")
    rows = []
    for tag, _ in item_kinds():
        for name in required_item_fields(tag):
            field = name.partition(".")[2]
            cells = []
            for _, m in mappers:
                row = m.item_fields.row(name, direction=direction)  # type: ignore[attr-defined]
                if isinstance(row, WholeItem):
                    cells.append("whole item")
                elif isinstance(row, Mapped):
                    cells.append(f"`{row.path}`" + (" (converted)" if row.how else ""))
                elif isinstance(row, Unsupported):
                    cells.append("dropped, reported")
                else:
                    cells.append("not sent")
            if field in common and name not in CALL_IDS and set(cells) <= {"whole item", "not sent"}:
                continue  # the transcript's own fields: one line below the table
            if set(cells) == {"whole item"}:
                continue  # a kind no mapper carries as itself: the item matrix above says what happens to it
            rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    notes = []
    for label, m in mappers:
        table = m.item_fields  # type: ignore[attr-defined]
        whole = [f"`{kind}` {row.why}" for kind, row in table.whole_kinds(direction).items()]
        why: dict[str, list[str]] = {}
        for name, row in table.declared(direction):
            if isinstance(row, (Unsupported, NotSent)) and not (isinstance(row, NotSent) and name.partition(".")[2] in common):
                why.setdefault(("dropped, reported: " if isinstance(row, Unsupported) else "not sent: ") + row.why, []).append(f"`{name}`")
        how = [f"`{name}`: {row.how}" for name, row in table.declared(direction) if isinstance(row, Mapped) and row.how]
        parts = whole + [f"{', '.join(names)} {text}" for text, names in why.items()] + how
        notes.append(f"- **`{label}`**: " + "; ".join(parts) + ".")
    tail = (
        "\nEvery mapper leaves out the transcript's own fields, `id` (but a call's id), `metadata` and `origin` (but "
        "where a row above says otherwise): they are not conversation content. `provider_data` and `message` are "
        "handled the same way by every mapper (a provider's own fields written back to it, others reported; items "
        "sharing a `message` key written as one message).\n\n"
    )
    if direction == "response":
        tail = (
            "\nAs in a request, the transcript's own `id`, `metadata` and `origin` are left out but where a row above "
            "says otherwise, and `provider_data` is written back to its own provider only.\n\n"
        )
    return head + "\n".join(rows) + "\n" + tail + "\n".join(notes) + "\n"


def _replace(doc: str, begin: str, end: str, text: str) -> str:
    start, stop = doc.index(begin) + len(begin), doc.index(end)
    return doc[:start] + "\n" + text + doc[stop:]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    doc = OUT.read_text()
    new = _replace(doc, BEGIN, END, render_matrix())
    new = _replace(new, SETTINGS_BEGIN, SETTINGS_END, render_settings())
    new = _replace(new, DECLARED_BEGIN, DECLARED_END, render_declared())
    new = _replace(new, FIELDS_BEGIN, FIELDS_END, render_item_fields())
    new = _replace(new, RESPONSE_FIELDS_BEGIN, RESPONSE_FIELDS_END, render_item_fields("response"))
    if args.check:
        if new != doc:
            print("docs/providers.md matrix, settings or item-field table is out of date: run `python tools/gen_provider_matrix.py`", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
