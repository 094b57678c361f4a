"""Gemini ``generateContent`` request body <-> transcript (the providers' API references, GEN ``types.py``).

Request shape: ``{contents:[{role: "user"|"model", parts:[...]}], systemInstruction?: Content,
tools?: [{functionDeclarations:[...]}], toolConfig?: {functionCallingConfig:{mode, allowedFunctionNames?}}}``.

* ``systemInstruction`` parts -> leading ``text(role="system")`` items with message key ``"system"``; its
  other fields (``role: "user"``, as the google-genai SDK sends it) -> ``settings.provider_data["gemini"]
  ["systemInstruction"]``, written back with the system instruction.
* ``contents[i]`` -> items with message key ``f"m{i}"``; role ``model`` -> assistant, anything else -> user
  (a missing role is ``user``, GEN ``Content``).
* A ``functionCall`` without ``id`` gets the canonical id ``f"gemini_m{i}_c{k}"`` (``k`` = ordinal of the call
  in content ``i``); its ``origin`` is ``{provider: "gemini"}`` without ``item_id``, which tells the encoder
  not to send an id back. A call with an id keeps it (``id`` and ``origin.item_id``).
* A ``functionResponse`` without ``id`` answers the earliest unanswered id-less call of the same name
  (Gemini matches by name and order), else the earliest unanswered call of that name that has an id
  (reported: it goes back with that id); with no such call it gets ``f"gemini_m{i}_p{j}_result"`` (reported).
* ``functionDeclarations[]`` -> tool definitions; which schema field was used (``parameters`` or
  ``parametersJsonSchema``) and any other declaration fields go to ``provider_data["gemini"]``.
  A ``parameters`` ``Schema`` becomes JSON Schema (``OBJECT`` -> ``object``, ``nullable`` -> a
  ``"null"`` type) and goes back to Gemini as a ``Schema``.
  A ``parameters`` Schema that would not come back the same (lower-case types) is kept as given in
  ``provider_data["gemini"]["schema"]`` while the parameters are unchanged. Non-function tools
  (``googleSearch``, ``codeExecution``, ...) have no canonical form (reported ``changed``); they and the
  layout of ``tools`` (one object, several ``Tool`` objects) are kept in
  ``settings.provider_data["gemini"]["tools"]`` (:func:`tools_layout`) and written back in place.
* ``toolConfig.functionCallingConfig.mode``: ``AUTO`` -> auto, ``NONE`` -> none, ``ANY`` -> required
  (``tool`` when ``allowedFunctionNames`` names exactly one), ``VALIDATED`` -> auto (reported). A
  ``functionCallingConfig`` the tool choice does not write back the same (``VALIDATED``, several allowed
  names) is kept in ``settings.provider_data["gemini"]["toolConfig"]`` and written back while the tool
  choice reads the same from it and every allowed name is still a tool (ADR 0014).
* ``generationConfig``, ``safetySettings``, ``cachedContent``, ``labels`` and every other top-level key
  -> ``Transcript.settings`` (canonical settings, the rest in ``settings.provider_data["gemini"]``;
  rules in ``_settings.py`` and docs/providers/gemini.md). ``toolConfig`` keys other than
  ``functionCallingConfig`` go to ``settings.provider_data["gemini"]["toolConfig"]``. A ``model`` key
  (Gemini takes the model in the URL) is not read: the caller passes the model to its transport.
* Gemini has no explicit prompt-cache breakpoints (context caching is the separate ``cachedContents``
  API): ``cache_breakpoint`` on an item is left out and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...errors import ConversionError
from ...items import RawItem, Settings, TextItem, ToolChoice, ToolDefinition, Transcript
from ...mapping.protocol import Conversion
from ...mapping.report import Policy, Report
from ...mapping.extras import restore_fields
from ...mapping.settings import settings_of
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import NAME, camel, get, jcopy, keyset, tag_of
from ._parts import PartDecoder, PartEncoder
from ._settings import decode_settings, encode_settings

UNSET = msgspec.UNSET

__all__ = ["decode_request", "decode_tool_choice", "decode_tools", "encode_request", "encode_tool_choice", "encode_tools"]

_CONVERSATION_KEYS = frozenset({"contents", "systemInstruction", "tools", "toolConfig"})
_TOOL_CONFIG = "toolConfig"
_SYSTEM = "systemInstruction"
_TOOLS = "tools"


class _Linker:
    """Links id-less function responses to calls by name and order."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.unanswered: list[tuple[str, str, bool]] = []  # (call_id, name, had_wire_id)

    def call_id(self, i: int) -> Any:
        def make(wire_id: str | None, name: str, k: int) -> str:
            cid = wire_id if wire_id is not None else f"gemini_m{i}_c{k}"
            self.unanswered.append((cid, name, wire_id is not None))
            return cid

        return make

    def result_id(self, i: int) -> Any:
        def make(wire_id: str | None, name: str, j: int) -> str:
            if wire_id is not None:
                self.unanswered = [u for u in self.unanswered if u[0] != wire_id]
                return wire_id
            for had_id in (False, True):
                for pos, (cid, n, h) in enumerate(self.unanswered):
                    if n == name and h == had_id:
                        del self.unanswered[pos]
                        if had_id:
                            self.report.add(
                                "changed",
                                f"functionResponse {name!r} has no id; linked by name to call {cid!r} (sent back with that id)",
                                index=i,
                                item_type="tool_result",
                                pointer=f"/contents/{i}/parts/{j}",
                            )
                        return cid
            rid = f"gemini_m{i}_p{j}_result"
            self.report.add(
                "changed",
                f"functionResponse {name!r} has no id and no unanswered call of that name; linked as {rid!r}",
                index=i,
                item_type="tool_result",
                pointer=f"/contents/{i}/parts/{j}",
            )
            return rid

        return make


def decode_tools(tools: Any, report: Report) -> list[ToolDefinition]:
    """``tools[]`` -> tool definitions (function declarations only; others reported).

    A single ``Tool`` object instead of the list (the API accepts it: recorded requests answered 200)
    is read as a one-element list. Tools with no canonical form (``googleSearch``, ...) are reported
    ``changed``: :func:`decode_request` keeps them, and the layout of the list, in the settings' Gemini
    provider data (:func:`tools_layout`), so they go back to Gemini only.
    """
    out: list[ToolDefinition] = []
    if isinstance(tools, Mapping):
        tools = [tools]
    if not isinstance(tools, list):
        raise ConversionError("Gemini tools must be a list (or one Tool object)", item_type="tools")
    for t, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise ConversionError(f"Gemini tools[{t}] is not an object", item_type="tools")
        for key in tool:
            if camel(key) != "functionDeclarations":
                report.add(
                    "changed",
                    f"Gemini tool {camel(key)!r} has no canonical form: kept in the settings' Gemini provider data, sent back to Gemini only",
                    item_type="tools",
                    pointer=f"/tools/{t}/{key}",
                )
        for d, decl in enumerate(get(tool, "functionDeclarations") or []):
            if not isinstance(decl, Mapping) or not isinstance(decl.get("name"), str) or not decl.get("name"):
                raise ConversionError(f"tools[{t}].functionDeclarations[{d}] has no name", item_type="tools")
            fields: dict[str, Any] = {}
            schema_field: str | None = None
            params: Any = UNSET
            original: Any = None
            for key, value in decl.items():
                ck = camel(key)
                if ck in ("name", "description"):
                    continue
                if ck in ("parameters", "parametersJsonSchema") and schema_field is None and isinstance(value, Mapping):
                    schema_field, params = ck, jcopy(dict(value))
                    if ck == "parameters":  # canonical parameters are JSON Schema
                        params = schema_to_json_schema(params)
                        if json_schema_to_schema(params) != value:  # "type": "object" where Gemini writes OBJECT, ...
                            original = jcopy(dict(value))
                else:
                    fields[ck] = jcopy(value)
            pdata: dict[str, Any] = {}
            if schema_field is not None:
                pdata["schema_field"] = schema_field
            if original is not None:
                pdata["schema"] = original
            if fields:
                pdata["fields"] = fields
            desc = decl.get("description")
            out.append(
                ToolDefinition(
                    name=decl["name"],
                    description=desc if isinstance(desc, str) else UNSET,
                    parameters=params,
                    provider_data={"gemini": pdata} if pdata else UNSET,
                )
            )
    return out


_SCHEMA_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def schema_to_json_schema(value: Any) -> Any:
    """A Gemini ``Schema`` (``parameters``, GEN ``types.py`` ``Schema``/``Type``) -> JSON Schema.

    ``Type`` values are upper-case enum names (``OBJECT``, ``STRING``, ...) where JSON Schema has
    ``object``, ``string``, ...; ``nullable: true`` is JSON Schema's ``type: [<t>, "null"]``. Every
    other keyword is the same in both. Inverse: :func:`json_schema_to_schema`.
    """
    if isinstance(value, list):
        return [schema_to_json_schema(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: schema_to_json_schema(v) for k, v in value.items()}
    t = out.get("type")
    if isinstance(t, str) and t in _SCHEMA_TYPES:
        out["type"] = t.lower()
        if out.get("nullable") is True and t != "NULL":
            del out["nullable"]
            out["type"] = [t.lower(), "null"]
    return out


def json_schema_to_schema(value: Any) -> Any:
    """JSON Schema -> Gemini ``Schema`` type names (the inverse of :func:`schema_to_json_schema`)."""
    if isinstance(value, list):
        return [json_schema_to_schema(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: json_schema_to_schema(v) for k, v in value.items()}
    t = out.get("type")
    if isinstance(t, list) and len(t) == 2 and "null" in t and all(isinstance(x, str) for x in t):
        inner = next(x for x in t if x != "null")
        if inner.upper() in _SCHEMA_TYPES:
            out["type"], out["nullable"] = inner.upper(), True
    elif isinstance(t, str) and t.upper() in _SCHEMA_TYPES:
        out["type"] = t.upper()
    return out


def tools_layout(tools: Any) -> Any:
    """How a request's ``tools`` were laid out, when :func:`encode_tools` would not write them back the same.

    ``encode_tools`` writes every declaration into one ``Tool`` (``[{functionDeclarations: [...]}]``).
    Gemini also takes tools with no canonical form (``googleSearch``, ``codeExecution``, ``fileSearch``,
    ``urlContext``, ...), declarations split over several ``Tool`` objects, and one ``Tool`` object in
    place of the list (recorded requests answered 200). The layout is the wire ``tools`` value with each
    ``functionDeclarations`` list replaced by the names of its declarations: it is kept in
    ``settings.provider_data["gemini"]["tools"]`` and :func:`apply_tools_layout` rebuilds the same wire.

    Returns:
        The layout, or ``None`` when the tools are one ``Tool`` holding only a non-empty
        ``functionDeclarations`` list (the form ``encode_tools`` writes).
    """
    entries = [tools] if isinstance(tools, Mapping) else tools
    if not isinstance(entries, list) or not all(isinstance(t, Mapping) for t in entries):
        return None
    if (
        isinstance(tools, list)
        and len(entries) == 1
        and keyset(entries[0]) == {"functionDeclarations"}
        and get(entries[0], "functionDeclarations")
    ):
        return None

    def names(tool: Mapping[str, Any]) -> dict[str, Any]:
        return {
            k: [d.get("name") for d in v if isinstance(d, Mapping)] if camel(k) == "functionDeclarations" and isinstance(v, list) else jcopy(v)
            for k, v in tool.items()
        }

    return names(tools) if isinstance(tools, Mapping) else [names(t) for t in entries]


def apply_tools_layout(layout: Any, encoded: list[dict[str, Any]]) -> Any:
    """The ``tools`` value of a request: ``encoded`` (from :func:`encode_tools`) laid out as ``layout``
    (from :func:`tools_layout`) says.

    Each declaration goes where its name was; a declaration the layout does not name (a tool added
    since) joins the last ``Tool`` holding declarations (or a new one at the end); a name with no
    declaration any more is left out, and a ``Tool`` left with nothing is too. Tools with no canonical
    form come back exactly. One ``Tool`` object stays one object while it is one ``Tool``.

    Returns:
        The wire ``tools`` value (a list, or one object), or ``None`` when nothing is left.
    """
    decls: list[dict[str, Any]] = [d for t in encoded for d in t.get("functionDeclarations", [])]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for d in decls:
        by_name.setdefault(d["name"], []).append(d)
    entries = [layout] if isinstance(layout, Mapping) else list(layout) if isinstance(layout, list) else []
    out: list[dict[str, Any]] = []
    last_decls: tuple[int, str] | None = None
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        tool: dict[str, Any] = {}
        for key, value in entry.items():
            if camel(key) == "functionDeclarations" and isinstance(value, list):
                placed = [by_name[n].pop(0) for n in value if isinstance(n, str) and by_name.get(n)]
                if placed:
                    tool[key] = placed
                    last_decls = (len(out), key)
            else:
                tool[key] = jcopy(value)
        if tool or not entry:
            out.append(tool)
    unplaced = {id(d) for xs in by_name.values() for d in xs}
    left = [d for d in decls if id(d) in unplaced]
    if left:
        if last_decls is not None:
            pos, key = last_decls
            out[pos][key].extend(left)
        else:
            out.append({"functionDeclarations": left})
    if not out:
        return None
    return out[0] if isinstance(layout, Mapping) and len(out) == 1 else out


def encode_tools(tools: list[ToolDefinition], report: Report) -> list[dict[str, Any]]:
    """Tool definitions -> ``[{functionDeclarations: [...]}]``.

    The schema goes under ``parametersJsonSchema`` (canonical parameters are JSON Schema) unless the
    definition came from Gemini with ``parameters``. ``strict`` has no Gemini equivalent (reported).
    """
    decls: list[dict[str, Any]] = []
    for n, tool in enumerate(tools):
        pdata = tool.provider_data.get("gemini", {}) if tool.provider_data is not UNSET else {}
        if not isinstance(pdata, Mapping):  # written by hand: not what decode_tools keeps
            report.add("dropped", f"provider_data 'gemini' of tool {tool.name!r} is not an object", index=n, item_type="tools")
            pdata = {}
        for owner in tool.provider_data if tool.provider_data is not UNSET else {}:
            if owner != "gemini":  # another provider's tool fields (e.g. an Anthropic server tool's type)
                report.add("dropped", f"provider_data {owner!r} of tool {tool.name!r} is not for gemini", index=n, item_type="tools")
        decl: dict[str, Any] = {"name": tool.name}
        if tool.description is not UNSET:
            decl["description"] = tool.description
        if tool.parameters is not UNSET:
            schema_field = pdata.get("schema_field", "parametersJsonSchema")
            if schema_field not in ("parameters", "parametersJsonSchema"):
                report.add("changed", f"provider_data gemini.schema_field of tool {tool.name!r} is {schema_field!r}, not 'parameters' or 'parametersJsonSchema'; written as parametersJsonSchema", index=n, item_type="tools")
                schema_field = "parametersJsonSchema"
            params = jcopy(tool.parameters)
            original = pdata.get("schema")
            if schema_field == "parameters" and isinstance(original, Mapping) and schema_to_json_schema(original) == params:
                decl[schema_field] = jcopy(original)  # the Schema as it came, while the canonical one is unchanged
            else:
                decl[schema_field] = json_schema_to_schema(params) if schema_field == "parameters" else params
        fields = pdata.get("fields") or {}
        if not isinstance(fields, Mapping):
            report.add("dropped", f"provider_data gemini.fields of tool {tool.name!r} is not an object", index=n, item_type="tools")
            fields = {}
        for key, value in fields.items():
            decl[key] = jcopy(value)
        if tool.strict is not UNSET:
            report.add("dropped", "tool strict flag has no Gemini equivalent", index=n, item_type="tools")
        decls.append(decl)
    return [{"functionDeclarations": decls}] if decls else []


def decode_tool_choice(config: Any, report: Report) -> ToolChoice | None:
    """``toolConfig`` -> tool choice (``None`` without ``functionCallingConfig``)."""
    fcc = get(config, "functionCallingConfig") if isinstance(config, Mapping) else None
    if not isinstance(fcc, Mapping):
        return None
    mode = get(fcc, "mode", "AUTO")
    names = get(fcc, "allowedFunctionNames") or []
    if mode == "NONE":
        return ToolChoice(mode="none")
    if mode == "ANY":
        if len(names) == 1:
            return ToolChoice(mode="tool", name=names[0])
        if names:
            report.add(
                "changed",
                "allowedFunctionNames with several names has no canonical form: read as any tool (required); "
                "the Gemini form is kept in the settings' provider data and sent back to Gemini only",
                item_type="tool_choice",
            )
        return ToolChoice(mode="required")
    if mode != "AUTO":
        report.add(
            "changed",
            f"functionCallingConfig mode {mode!r} read as auto; the Gemini form is kept in the settings' provider data and sent back to Gemini only",
            item_type="tool_choice",
        )
    return ToolChoice(mode="auto")


def _canonical_fcc(fcc: Mapping[str, Any], choice: ToolChoice) -> bool:
    """Whether :func:`encode_tool_choice` writes ``fcc`` back exactly from the ``choice`` read from it."""
    return encode_tool_choice(choice, Report())["functionCallingConfig"] == {camel(k): v for k, v in fcc.items()}  # either spelling


def _kept_fcc(kept: Any, transcript: Transcript, report: Report) -> Any:
    """The ``functionCallingConfig`` kept from a Gemini request, when it still says what the transcript's
    tool choice says (the same choice read from it, every allowed name still a tool); else ``None``
    (the tool choice was changed: the canonical one is written, and the kept one reported dropped)."""
    if not isinstance(kept, Mapping):
        return None
    choice = transcript.tool_choice
    names = get(kept, "allowedFunctionNames") or []
    tools = {t.name for t in transcript.tools} if transcript.tools is not UNSET else set()
    if choice is not UNSET and decode_tool_choice({"functionCallingConfig": kept}, Report()) == choice and all(n in tools for n in names):
        return jcopy(dict(kept))
    report.add(
        "dropped",
        "functionCallingConfig kept from the Gemini request no longer matches the tool choice or tools; the tool choice is written",
        item_type="tool_choice",
        pointer="/toolConfig/functionCallingConfig",
    )
    return None


def encode_tool_choice(choice: ToolChoice, report: Report) -> dict[str, Any]:
    """Tool choice -> ``{functionCallingConfig: {...}}``."""
    if choice.parallel is not UNSET:
        report.add("dropped", "Gemini has no parallel tool call switch", item_type="tool_choice")
    if choice.mode == "none":
        return {"functionCallingConfig": {"mode": "NONE"}}
    if choice.mode == "required":
        return {"functionCallingConfig": {"mode": "ANY"}}
    if choice.mode == "tool":
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice.name]}}
    return {"functionCallingConfig": {"mode": "AUTO"}}


@links_empty_ids
@guarded("gemini", "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """Gemini request body -> transcript (rules in the module docstring).

    Raises:
        ConversionError: ``contents`` missing or not a list of contents.
    """
    report = Report()
    contents = get(body, "contents")
    if not isinstance(contents, list):
        raise ConversionError("Gemini request has no contents list")
    items: list[Item] = []
    system = get(body, "systemInstruction")
    if isinstance(system, Mapping):
        dec = PartDecoder("system", "system", report, _no_calls, _no_results, pointer="/systemInstruction")
        items.extend(dec.decode(list(system.get("parts") or [])))
    linker = _Linker(report)
    for i, content in enumerate(contents):
        if not isinstance(content, Mapping) or not isinstance(content.get("parts", []), list):
            raise ConversionError(f"contents[{i}] is not a Gemini content", index=i)
        speaker = "assistant" if content.get("role") == "model" else "user"
        dec = PartDecoder(speaker, f"m{i}", report, linker.call_id(i), linker.result_id(i), pointer=f"/contents/{i}", index=i, keep_empty=True)
        items.extend(dec.decode(list(content.get("parts") or [])))
    tools: Any = UNSET
    if has_tools := get(body, "tools"):
        tools = decode_tools(has_tools, report)
    tool_config = get(body, "toolConfig")
    choice = decode_tool_choice(tool_config, report)
    settings = decode_settings(body, _CONVERSATION_KEYS)
    kept: dict[str, Any] = {}  # wire the canonical fields do not hold, written back to Gemini only
    if isinstance(tool_config, Mapping):
        # toolConfig parts with no canonical form (includeServerSideToolInvocations, retrievalConfig, ...)
        rest = {k: jcopy(v) for k, v in tool_config.items() if camel(k) != "functionCallingConfig"}
        fcc = get(tool_config, "functionCallingConfig")
        if isinstance(fcc, Mapping) and choice is not None and not _canonical_fcc(fcc, choice):
            rest["functionCallingConfig"] = jcopy(dict(fcc))  # VALIDATED, several allowedFunctionNames, ...
        if rest:
            kept[_TOOL_CONFIG] = rest
    if isinstance(system, Mapping):
        if extras := {k: jcopy(v) for k, v in system.items() if k != "parts"}:  # role: "user", ...
            kept[_SYSTEM] = extras
    if has_tools and (layout := tools_layout(has_tools)) is not None:
        kept[_TOOLS] = layout
    if kept:
        base = settings if isinstance(settings, Settings) else Settings()
        pd = dict(base.provider_data) if base.provider_data is not UNSET else {}
        pd[NAME] = {**pd.get(NAME, {}), **kept}
        settings = msgspec.structs.replace(base, provider_data=pd)
    return Conversion(
        Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, tool_choice=choice or UNSET, settings=settings),  # type: ignore[arg-type]
        report,
    )


def _no_calls(wire_id: str | None, name: str, k: int) -> str:
    raise ConversionError("systemInstruction cannot hold a function call", item_type="tool_call")


def _no_results(wire_id: str | None, name: str, j: int) -> str:
    raise ConversionError("systemInstruction cannot hold a function response", item_type="tool_result")


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Gemini request body.

    ``model`` is not written into the body (Gemini takes it in the URL); it is used to check that thought
    signatures were issued by the same model, and to pick ``responseSchema`` for models without
    ``responseJsonSchema``. System and developer text goes to ``systemInstruction``
    (text found after the first turn is moved there and reported). Settings go to ``generationConfig``
    and the other top-level keys (``_settings.encode_settings``); ``cache_breakpoint`` is reported.

    Raises:
        ConversionError: under policy ``error``, for content Gemini cannot carry.
        MalformedArgumentsError: under policy ``error``, for a call without an arguments object.
    """
    report = Report()
    items = list(transcript.items)
    enc = PartEncoder(policy, report, model)
    enc.index_calls(items)
    system_parts: list[dict[str, Any]] = []
    seen_turn = False
    for idx, item in enumerate(items):
        report_breakpoints(item, idx, report)
        role = getattr(item, "role", UNSET)
        if role in ("system", "developer"):
            if isinstance(item, RawItem):
                if item.provider == NAME:
                    system_parts.append(jcopy(item.value))
                else:
                    report.add("dropped", f"raw item of {item.provider} cannot be sent to Gemini", index=idx, item_type="raw")
                continue
            if isinstance(item, TextItem):
                if seen_turn:
                    report.add("changed", "system text after the first turn moved to systemInstruction", index=idx, item_type="text")
                if item.text == "":
                    report.add("dropped", "empty system text not sent", index=idx, item_type="text")
                    continue
                system_parts.append({"text": item.text})
            else:
                tag = tag_of(item)
                for t in report.unsupported(policy, f"Gemini systemInstruction takes text only, not {tag}", index=idx, item_type=tag):
                    system_parts.append({"text": t.text})
            continue
        seen_turn = True
        enc.add(idx, item)
    body: dict[str, Any] = {"contents": enc.finish()}
    rest = encode_settings(settings_of(transcript), model, policy, report)
    system_kept = rest.pop(_SYSTEM, None)
    layout = rest.pop(_TOOLS, None)
    tool_config = rest.pop(_TOOL_CONFIG, None)
    if system_parts:
        body["systemInstruction"] = {"parts": system_parts}
        if isinstance(system_kept, Mapping):  # fields of the systemInstruction Content (role: "user")
            restore_fields(body["systemInstruction"], {k: v for k, v in system_kept.items() if k != "parts"})
    encoded_tools = encode_tools(transcript.tools, report) if transcript.tools is not UNSET and transcript.tools else []
    if layout is not None:
        if (laid := apply_tools_layout(layout, encoded_tools)) is not None:
            body["tools"] = laid
    elif encoded_tools:
        body["tools"] = encoded_tools
    if transcript.tool_choice is not UNSET:
        body["toolConfig"] = encode_tool_choice(transcript.tool_choice, report)
    if isinstance(tool_config, Mapping):
        tool_config = dict(tool_config)
        kept_fcc = _kept_fcc(tool_config.pop("functionCallingConfig"), transcript, report) if "functionCallingConfig" in tool_config else None
        body["toolConfig"] = {**jcopy(tool_config), **body.get("toolConfig", {})}
        if kept_fcc is not None:
            body["toolConfig"]["functionCallingConfig"] = kept_fcc
    body.update(rest)
    return Conversion(body, report)


def report_breakpoints(item: Any, idx: int, report: Report) -> None:
    """Report (``dropped``) the prompt-cache breakpoint of ``item`` and of each part of its ``content``.

    Gemini has no per-part cache breakpoint, in a request or a response body (context caching is the
    separate cachedContents API; Gemini API reference "Context caching").
    """
    nested = getattr(item, "content", None)
    for part in [item, *(nested if isinstance(nested, list) else [])]:
        if getattr(part, "cache_breakpoint", UNSET) is not UNSET:
            report.add(
                "dropped",
                "prompt-cache breakpoint has no Gemini form (Gemini caches implicitly or through the cachedContents API)",
                index=idx,
                item_type=tag_of(part),
            )
