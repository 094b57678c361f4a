"""Google Agent Development Kit (ADK) sessions and eval sets.

Shapes (source: ``google.adk.sessions.Session``, ``google.adk.events.Event``,
``google.adk.evaluation.eval_set.EvalSet``/``eval_case.EvalCase`` in github.com/google/adk-python;
Pydantic models written with ``model_dump`` in snake_case, or by the API server in camelCase):

* a **Session**: ``{"id", "app_name", "user_id", "state", "events": [Event], "last_update_time"}``, an
  Event ``{"id", "author", "invocation_id", "content": Content, "actions", "timestamp", "branch", ...}``;
* an **eval set** ``{"eval_set_id", "name", "description", "eval_cases": [EvalCase]}``, an EvalCase
  ``{"eval_id", "conversation": [Invocation], "session_input", ...}``, an Invocation ``{"invocation_id",
  "user_content", "final_response", "intermediate_data": {"tool_uses", "tool_responses",
  "intermediate_responses"} | {"invocation_events": [{"author", "content"}]}, "creation_timestamp", "rubrics"}``.

``content`` is a Gemini ``Content`` (``role``, ``parts``); in snake_case (``function_call``,
``inline_data``, ``mime_type``, ...) its keys are turned to the Gemini API's camelCase (never inside a
call's ``args`` or a response's ``response``) and all contents of a conversation are read by the
``gemini`` mapper at once, so calls and their responses pair up. The items of one event share a message
key (the event ``id``); the event's other fields (``author``, ``invocation_id``, ``timestamp``,
``actions``, ...) go to its first item's ``metadata["adk"]``. An event without content (a state change, a
transfer) is a ``raw`` item of provider ``adk`` in place. An eval set holds one conversation per eval
case (``interlingua migrate`` reads each; :func:`split` lists them); a case with only a
``conversation_scenario`` (a plan for a simulated user) is refused: it holds no conversation.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..errors import MappingError
from ..items import RawItem, Transcript
from ..mapping import Report, get_mapper
from ..history._integrity import read_history  # a reused call id renamed (reported) before keep_company would drop the call
from ..mapping.company import keep_company
from ..mapping.wire import a_json_type
from ._base import Migrated

__all__ = ["FORMAT", "is_legacy_eval_data", "looks_like", "read", "split", "unset_nulls"]

FORMAT = "adk"

_OPAQUE = frozenset({"args", "response", "partial_args", "partialArgs"})
_CAMEL = re.compile(r"_([a-z0-9])")


def _key(obj: Any, snake: str) -> Any:
    """``obj[snake]``, else ``obj[snakeInCamelCase]``; ``None`` when absent or ``obj`` is no object."""
    if not isinstance(obj, dict):
        return None
    camel = _CAMEL.sub(lambda m: m.group(1).upper(), snake)
    return obj[snake] if snake in obj else obj.get(camel)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


_LEGACY_KEYS = frozenset({"query", "expected_tool_use", "reference", "expected_intermediate_agent_responses"})


def is_legacy_eval_data(obj: Any) -> bool:
    """ADK's first eval data format (a ``*.test.json`` list of turns ``{"query", "expected_tool_use":
    [{"tool_name", "tool_input"}], "reference", "expected_intermediate_agent_responses"?: [{"author",
    "text"}]}``), which ADK still reads by migrating it to an eval case (``AgentEvaluator``)."""
    return (
        isinstance(obj, list)
        and bool(obj)
        and all(isinstance(t, dict) and isinstance(t.get("query"), str) and t.keys() <= _LEGACY_KEYS and ("reference" in t or "expected_tool_use" in t) for t in obj)
    )


def _legacy_case(turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The eval case ADK makes of the first eval data format: per turn an invocation whose ``user_content``
    is the query, ``tool_uses`` the expected tool uses, ``intermediate_responses`` the expected
    intermediate agent responses and ``final_response`` the reference."""
    conversation = []
    for turn in turns:
        uses: list[dict[str, Any]] = [
            {"name": u.get("tool_name"), "args": u.get("tool_input") if isinstance(u.get("tool_input"), dict) else {}}
            for u in _list(turn.get("expected_tool_use"))
            if isinstance(u, dict)
        ]
        responses = [
            [r.get("author"), [{"text": r["text"]}]]
            for r in _list(turn.get("expected_intermediate_agent_responses"))
            if isinstance(r, dict) and isinstance(r.get("text"), str)
        ]
        reference = turn.get("reference")
        conversation.append({
            "user_content": {"role": "user", "parts": [{"text": turn["query"]}]},
            "final_response": {"role": "model", "parts": [{"text": reference}]} if isinstance(reference, str) else None,
            "intermediate_data": {"tool_uses": uses, "intermediate_responses": responses},
        })
    return {"eval_id": None, "conversation": conversation, "legacy_eval_data": True}


def looks_like(obj: Any) -> bool:
    """An ADK Session (``events`` plus ``app_name``/``appName``), eval set (``eval_set_id``/``evalSetId``
    with ``eval_cases``), eval case (``eval_id`` with ``conversation``) or the first eval data format
    (:func:`is_legacy_eval_data`)."""
    if is_legacy_eval_data(obj):
        return True
    if not isinstance(obj, dict):
        return False
    if isinstance(obj.get("events"), list) and (_key(obj, "app_name") is not None or _key(obj, "user_id") is not None):
        return True
    if isinstance(_key(obj, "eval_cases"), list) and _key(obj, "eval_set_id") is not None:
        return True
    return _key(obj, "eval_id") is not None and (isinstance(obj.get("conversation"), list) or _key(obj, "conversation_scenario") is not None)


def split(obj: Any) -> list[Any] | None:
    """The conversations an eval set holds (each eval case, with the set's own fields under
    ``"eval_set"``), or ``None`` when ``obj`` is not an eval set."""
    if not (isinstance(obj, dict) and isinstance(_key(obj, "eval_cases"), list) and _key(obj, "eval_set_id") is not None):
        return None
    head = {k: v for k, v in obj.items() if k not in ("eval_cases", "evalCases")}
    return [{**case, "eval_set": head} if isinstance(case, dict) else case for case in _list(_key(obj, "eval_cases"))]


def camel(value: Any) -> Any:
    """A snake_case Gemini ``Content`` (or part) with its keys in the API's camelCase; the values of
    ``args`` and ``response`` (the caller's own data) are left as they are."""
    if isinstance(value, dict):
        return {_CAMEL.sub(lambda m: m.group(1).upper(), k): (v if k in _OPAQUE else camel(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def read(obj: Any) -> Migrated:
    """An ADK Session, eval case or single-case eval set -> :class:`Migrated`.

    Raises:
        MappingError: not one of those shapes; an eval set of several cases (read each, see
            :func:`split`); a case without a conversation; a content the gemini mapper refuses.
    """
    if is_legacy_eval_data(obj):
        return _case(_legacy_case(obj))
    if not isinstance(obj, dict):
        raise MappingError(f"adk: expected a Session, an eval set or an eval case object, got {a_json_type(obj)}")
    cases = split(obj)
    if cases is not None:
        if len(cases) != 1:
            raise MappingError(f"adk: an eval set of {len(cases)} eval cases is {len(cases)} conversations; read each case (interlingua.compat._adk.split, or interlingua migrate)")
        obj = cases[0]
        if not isinstance(obj, dict):
            raise MappingError(f"adk: /eval_cases/0 is {a_json_type(obj)}, not an eval case")
    if isinstance(obj.get("events"), list):
        return _session(obj)
    if _key(obj, "eval_id") is not None or obj.get("legacy_eval_data") is True:
        return _case(obj)
    raise MappingError(f"adk: an object with keys {sorted(obj)[:8]} is neither a Session (events) nor an eval case (eval_id, conversation)")


def _decode(entries: list[tuple[dict[str, Any], str, dict[str, Any] | None]], report: Report) -> list[Any]:
    """Read ``(content, message key, metadata)`` entries (a ``None`` content's metadata becomes a raw
    item) through the gemini mapper, all at once; each content's items get its key, the first its metadata."""
    contents = [camel(c) for c, _k, _m in entries if c is not None]
    conv = get_mapper("gemini").decode_request({"contents": contents}) if contents else None
    by_message: dict[str, list[Any]] = {}
    if conv is not None:
        for e in conv.report.entries:
            report.add(e.action, f"adk: {e.reason}", item_type=e.item_type)
        for item in conv.value.items:
            by_message.setdefault(getattr(item, "message", None) or "", []).append(item)
    out: list[Any] = []
    k = 0
    for content, key, meta in entries:
        if content is None:
            out.append(RawItem(provider=FORMAT, value=meta))
            continue
        items = by_message.pop(f"m{k}", [])
        k += 1
        if not items:
            report.add("dropped", f"adk: the content of {key} gave no item (no part the gemini mapper reads)")
            continue
        items = [msgspec.structs.replace(it, message=key) for it in items]
        if meta:
            items[0] = msgspec.structs.replace(items[0], metadata={FORMAT: meta})
        out.extend(items)
    for rest in by_message.values():  # items the mapper gave no message key (none expected)
        out.extend(rest)
    kept_raw = sum(1 for it in out if isinstance(it, RawItem) and it.provider != FORMAT)
    if kept_raw:  # never quietly: a part the gemini reader has no form for stays, and is said
        report.add("changed", f"adk: {kept_raw} part(s) kept as raw gemini items (no canonical form for them)", item_type="raw")
    return out


def unset_nulls(value: Any) -> Any:
    """``value`` without its ``null`` members, at every depth but inside a call's ``args`` or a response's
    ``response`` (the caller's own data). ADK writes its Pydantic models with ``model_dump()``, so a ``Part``
    of an eval set made by older releases lists every field, ``null`` for unset (``{"video_metadata": null,
    "thought": null, ..., "text": "hi"}``); a ``None`` field of ``google.genai.types.Part`` is an unset one.
    Without this the Gemini reader saw several part kinds at once and kept the part raw (issue 26: the user
    texts of adk-samples' travel-concierge eval sets)."""
    if isinstance(value, dict):
        return {k: (v if k in _OPAQUE else unset_nulls(v)) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [unset_nulls(v) for v in value]
    return value


def _content(value: Any, where: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("parts"), list):
        raise MappingError(f"adk: {where} is {a_json_type(value)}, not a Content with 'parts'")
    parts = [unset_nulls(p) for p in value["parts"] if isinstance(p, dict) and any(v is not None for v in p.values())]
    return {**value, "parts": parts} if parts else None


def _session(obj: dict[str, Any]) -> Migrated:
    report = Report()
    entries: list[tuple[Any, str, Any]] = []
    partial = 0
    for i, event in enumerate(obj["events"]):
        if not isinstance(event, dict):
            raise MappingError(f"adk: /events/{i} is {a_json_type(event)}, not an Event")
        if event.get("partial"):
            partial += 1
            continue
        meta = {k: v for k, v in event.items() if k != "content"}
        content = _content(event.get("content"), f"/events/{i}/content")
        key: str = event["id"] if isinstance(event.get("id"), str) and event["id"] else f"adk:{i}"
        if content is None:
            entries.append((None, key, event))
            continue
        content.setdefault("role", "user" if event.get("author") == "user" else "model")
        entries.append((content, key, meta))
    if partial:
        report.add("dropped", f"adk: {partial} partial (streaming) event(s) skipped; the final event holds their content")
    items = _decode(entries, report)
    session = {k: v for k, v in obj.items() if k != "events"}
    transcript = Transcript(schema_version=_version(), items=items, metadata={FORMAT: session})
    sid = obj.get("id") if isinstance(obj.get("id"), str) and obj["id"] else None
    return Migrated(keep_company(read_history(transcript, report), report), report, FORMAT, sid)


def _case(obj: dict[str, Any]) -> Migrated:
    report = Report()
    conversation = obj.get("conversation")
    if not isinstance(conversation, list):
        what = "a conversation_scenario (a plan for a simulated user)" if _key(obj, "conversation_scenario") is not None else "no 'conversation'"
        raise MappingError(f"adk: eval case {_key(obj, 'eval_id')!r} has {what}, not a conversation")
    entries: list[tuple[Any, str, Any]] = []
    for t, inv in enumerate(conversation):
        if not isinstance(inv, dict):
            raise MappingError(f"adk: /conversation/{t} is {a_json_type(inv)}, not an Invocation")
        base = _key(inv, "invocation_id")
        base = base if isinstance(base, str) and base else f"turn-{t}"
        meta = {k: v for k, v in inv.items() if k not in ("user_content", "userContent", "final_response", "finalResponse", "intermediate_data", "intermediateData")}
        user = _content(_key(inv, "user_content"), f"/conversation/{t}/user_content")
        if user is not None:
            entries.append(({**user, "role": user.get("role") or "user"}, f"{base}:user", meta))
        data = _key(inv, "intermediate_data")
        events = _key(data, "invocation_events")
        if isinstance(events, list):
            for j, ev in enumerate(events):
                c = _content(ev.get("content") if isinstance(ev, dict) else None, f"/conversation/{t}/intermediate_data/invocation_events/{j}/content")
                if c is not None:
                    entries.append(({**c, "role": c.get("role") or "model"}, f"{base}:event-{j}", {"author": ev.get("author")}))
        else:
            uses = [u for u in _list(_key(data, "tool_uses")) if isinstance(u, dict)]
            if uses:
                entries.append(({"role": "model", "parts": [{"function_call": {k: v for k, v in u.items() if v is not None}} for u in uses]}, f"{base}:tool-uses", None))
            responses = [r for r in _list(_key(data, "tool_responses")) if isinstance(r, dict)]
            if responses:
                entries.append(({"role": "user", "parts": [{"function_response": {k: v for k, v in r.items() if v is not None}} for r in responses]}, f"{base}:tool-responses", None))
            for j, pair in enumerate(_list(_key(data, "intermediate_responses"))):
                if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], list):
                    c = _content({"role": "model", "parts": pair[1]}, f"/conversation/{t}/intermediate_data/intermediate_responses/{j}")
                    if c is not None:
                        entries.append((c, f"{base}:response-{j}", {"author": pair[0]}))
        final = _content(_key(inv, "final_response"), f"/conversation/{t}/final_response")
        if final is not None:
            entries.append(({**final, "role": final.get("role") or "model"}, f"{base}:final", None))
        elif _key(inv, "final_response") is not None:
            report.add("dropped", f"adk: /conversation/{t}/final_response has no part with a value")
    items = _decode(entries, report)
    case = {k: v for k, v in obj.items() if k != "conversation"}
    transcript = Transcript(schema_version=_version(), items=items, metadata={FORMAT: case})
    return Migrated(keep_company(read_history(transcript, report), report), report, FORMAT, None)


def _version() -> str:
    from ..codec import SCHEMA_VERSION

    return SCHEMA_VERSION
