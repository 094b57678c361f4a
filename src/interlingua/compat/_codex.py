"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, also ``.jsonl.zst``).

Two layouts are read (both written by ``codex-rs``; source: the ``RolloutLine``/``RolloutItem`` types of
``codex-rs/protocol`` in github.com/openai/codex):

* **envelope** (current): every line ``{"timestamp", "type", "payload"}``, ``type`` one of
  ``session_meta`` (the session: ``id``, ``cwd``, ``cli_version``, ``originator``, ``git``, ``instructions``,
  ...), ``response_item`` (a Responses API item: ``message``, ``reasoning``, ``function_call``,
  ``function_call_output``, ``custom_tool_call``, ``local_shell_call``, ``web_search_call``, ...),
  ``turn_context`` (the turn's model, cwd, approval and sandbox policy, effort), ``event_msg`` (what the UI
  showed) and ``compacted`` (a compaction's summary and replacement history);
* **legacy** (2025 releases before the envelope): a first line ``{"id", "timestamp", ...}`` with the
  session, then one Responses item a line, and ``{"record_type": "state"}`` lines (some envelope files hold those too).

Each ``response_item`` payload is read by the ``openai-responses`` mapper, on its own (its items get the
message key ``codex:<line>``); the line's ``timestamp`` and the ``turn_context`` before it go to the
first item's ``metadata["codex"]``. ``session_meta`` is the session metadata (its ``id`` the session id).
``compacted`` records are ``raw`` items of provider ``codex`` in place (the model saw the summary, not
the history before it). An ``event_msg`` ``user_message`` (``agent_message``) is the UI's echo of a
``response_item`` user (assistant) message with the same text, before or after it in the same turn, and
is skipped; one whose text no such message holds (some rollouts keep the prompt only there) is kept as a
user (assistant) text item at its place, and reported. **Skipped**, with a report entry counting each
kind: the other ``event_msg`` records (``agent_reasoning``, ``token_count``, ``exec_command_end``, ...,
also the UI's echo), legacy ``state`` lines, and record types this reader does not know. A file whose
only records are UI events without text is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec

from ..errors import InterlinguaError, MappingError
from ..items import RawItem, TextItem
from ..mapping import Report, get_mapper
from ..mapping.wire import a_json_type
from ._base import Migrated
from ._logs import ListSource, LineSource, LogConversation, not_records

__all__ = ["FORMAT", "conversation", "looks_like", "read"]

FORMAT = "codex"

ENVELOPE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_EVENT_ROLES = {"user_message": "user", "agent_message": "assistant"}


_OUTPUTS = ("custom_tool_call_output", "function_call_output")


def _input_parts(payload: dict[str, Any]) -> dict[str, Any] | None:
    """A tool output whose ``output`` list holds ``output_text`` parts, with those as ``input_text`` parts
    (what the Responses API takes back: ``ResponseCustomToolCallOutputParam.output`` and
    ``FunctionCallOutput.output`` are a string or a list of ``input_text``/``input_image``/``input_file``
    parts, openai SDK ``openai.types.responses``); ``None`` when there is nothing to change."""
    if payload.get("type") not in _OUTPUTS or not isinstance(payload.get("output"), list):
        return None
    parts = payload["output"]
    if not any(isinstance(p, dict) and p.get("type") == "output_text" for p in parts):
        return None
    fixed = [{**p, "type": "input_text"} if isinstance(p, dict) and p.get("type") == "output_text" else p for p in parts]
    return {**payload, "output": fixed}


def _message_text(payload: Any) -> tuple[str, str] | None:
    """(role, text) of a Responses ``message`` item (its ``input_text``/``output_text`` parts joined), else ``None``."""
    if not isinstance(payload, dict) or payload.get("type", "message") != "message" or payload.get("role") not in ("user", "assistant"):
        return None
    content = payload.get("content")
    if isinstance(content, str):
        return payload["role"], content.strip()
    if not isinstance(content, list):
        return None
    texts = [c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
    return payload["role"], "".join(texts).strip()


class _Echoes:
    """Pairs ``event_msg`` user/agent messages with the ``response_item`` messages they echo, within a turn.

    An event whose message came earlier in the turn is an echo at once; one whose message has not come
    yet is pending: the items after it are held (a turn's worth at most) until its message comes (the
    event is dropped) or the turn ends (a ``turn_context``, the next ``user_message`` event, the end of the
    file: the event is kept as text in its place)."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str]] = Counter()  # this turn's response_item messages not yet matched
        self.held: list[Any] = []  # items, and pending events as [role, text, item]
        self.pending = 0
        self.kept = 0
        self.echoes: Counter[str] = Counter()

    def event(self, kind: str, text: str, item: Any) -> Iterator[Any]:
        role = _EVENT_ROLES[kind]
        if kind == "user_message":  # a new prompt: what is pending had its chance
            yield from self.end_turn(clear=False)
        if self.seen[(role, text)] > 0:
            self.seen[(role, text)] -= 1
            self.echoes[kind] += 1
            return
        self.held.append([role, text, item, kind])
        self.pending += 1

    def message(self, payload: Any) -> None:
        rt = _message_text(payload)
        if rt is None:
            return
        for entry in self.held:
            if isinstance(entry, list) and entry[2] is not None and (entry[0], entry[1]) == rt:
                self.echoes[entry[3]] += 1
                entry[2] = None  # an echo: dropped
                self.pending -= 1
                return
        self.seen[rt] += 1

    def item(self, item: Any) -> Iterator[Any]:
        if self.pending:
            self.held.append(item)
        else:
            yield item

    def end_turn(self, clear: bool = True) -> Iterator[Any]:
        for entry in self.held:
            if not isinstance(entry, list):
                yield entry
            elif entry[2] is not None:
                self.kept += 1
                yield entry[2]
        self.held, self.pending = [], 0
        if clear:
            self.seen.clear()


def looks_like(first: Any) -> bool:
    """Whether the first line of a file starts a Codex rollout (an envelope ``session_meta``, or the
    legacy session line ``{"id", "timestamp"}`` with at most the legacy session fields)."""
    if not isinstance(first, dict):
        return False
    if first.get("type") in ENVELOPE_TYPES and "payload" in first:  # some writers leave out "timestamp"
        return True
    return isinstance(first.get("id"), str) and "timestamp" in first and "type" not in first and "role" not in first and not first.keys() - {"id", "timestamp", "instructions", "git"}


def read(obj: Any) -> Migrated:
    """A list of Codex rollout records (a rollout file's lines, parsed) -> :class:`Migrated`.

    Raises:
        MappingError: not a list of records, a record that is not an object, or nothing but UI events.
    """
    if not isinstance(obj, list):
        raise not_records(FORMAT, obj)
    return conversation(ListSource(obj, FORMAT)).materialize()


def conversation(source: ListSource | LineSource) -> LogConversation:
    """The rollout in ``source``: the session line is read now, the items as they are iterated.

    Raises:
        MappingError: the first record is not a Codex session line; a record is not an object.
        DocumentError: a line is not JSON (from a :class:`LineSource`).
    """
    scan = source.scan()
    first = next(scan, None)
    if first is None:
        raise MappingError(f"{source.name}: empty: not a Codex rollout")
    _n, head = first
    if not looks_like(head):
        raise MappingError(f"{source.where(0)}: not a Codex rollout's first line (a session_meta record, or a legacy {{id, timestamp}} line), got {_shape(head)}")
    legacy = head.get("type") not in ENVELOPE_TYPES
    report = Report()
    meta: dict[str, Any] = {}
    session_id = None
    if legacy:
        meta = {"legacy": True, "session": head}
        session_id = head.get("id")
    elif head.get("type") == "session_meta" and isinstance(head.get("payload"), dict):
        meta = {"session_meta": head["payload"], "timestamp": head.get("timestamp")}
        session_id = head["payload"].get("id")
    responses = get_mapper("openai-responses")

    def main() -> Iterator[Any]:
        skipped: Counter[str] = Counter()
        events: Counter[str] = Counter()
        context: Any = None
        produced = 0
        echoes = _Echoes()
        start = 0 if not legacy and head.get("type") != "session_meta" else 1
        i = start - 1
        for i, (n, rec) in enumerate(_rest(scan, head, start), start=start):
            where = source.where(i)
            if not isinstance(rec, dict):
                raise MappingError(f"{where}: {a_json_type(rec)} is not a Codex record")
            if rec.get("record_type") == "state":  # a bookkeeping line, in both layouts
                skipped["state"] += 1
                continue
            if legacy:
                kind: Any = "response_item"
                payload: Any = rec
                stamp: Any = None
            else:
                kind, payload, stamp = rec.get("type"), rec.get("payload"), rec.get("timestamp")
            if kind == "turn_context":
                context = payload
                yield from echoes.end_turn()
                continue
            if kind == "event_msg":
                etype = payload.get("type", "?") if isinstance(payload, dict) else "?"
                if etype in _EVENT_ROLES and isinstance(payload.get("message"), str) and payload["message"].strip():
                    meta_e: dict[str, Any] = {"line": n, "event": etype}
                    if stamp is not None:
                        meta_e["timestamp"] = stamp
                    images = [k for k in ("images", "local_images") if payload.get(k)]
                    if images:
                        report.add("dropped", f"{where}: the {etype} event's {' and '.join(images)} are not read (only its text, if no response_item holds it)")
                    text_item = TextItem(text=payload["message"], role=_EVENT_ROLES[etype], message=f"codex:{n}", metadata={FORMAT: meta_e})  # type: ignore[arg-type]
                    yield from echoes.event(etype, payload["message"].strip(), text_item)
                    continue
                events[etype] += 1
                continue
            extra: dict[str, Any] = {"line": n}
            if stamp is not None:
                extra["timestamp"] = stamp
            if context is not None:
                extra["turn_context"] = context
                context = None
            if kind == "compacted":
                report.add("changed", f"{where}: a 'compacted' record (the summary that replaced the history before it) kept as a raw codex item")
                yield from echoes.item(RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra}))
                produced += 1
                continue
            if kind == "session_meta":  # a second session line (a resumed rollout): kept in place
                yield from echoes.item(RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra}))
                produced += 1
                continue
            if kind != "response_item":
                skipped[str(kind)] += 1
                continue
            if not isinstance(payload, dict):
                raise MappingError(f"{where}: a response_item whose payload is {a_json_type(payload)}, not a Responses item")
            if (fixed := _input_parts(payload)) is not None:
                report.add("changed", f"{where}: the {payload['type']!r} output's 'output_text' parts read as 'input_text' (a tool output sent back to the Responses API holds input parts)")
                payload = fixed
            try:
                conv = responses.decode_request({"input": [payload]})
            except InterlinguaError as exc:
                report.add("degraded", f"{where}: the {payload.get('type')!r} item could not be read ({exc}); kept as a raw codex item")
                yield from echoes.item(RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra}))
                produced += 1
                continue
            for entry in conv.report.entries:
                report.add(entry.action, f"{where}: {entry.reason}", item_type=entry.item_type)
            items = list(conv.value.items)
            if not items:
                report.add("dropped", f"{where}: a {payload.get('type')!r} item gave nothing")
                continue
            key = f"codex:{n}"
            for j, item in enumerate(items):
                changes: dict[str, Any] = {}
                if getattr(item, "message", msgspec.UNSET) is not msgspec.UNSET:
                    changes["message"] = key
                if j == 0:
                    changes["metadata"] = {FORMAT: extra}
                items[j] = msgspec.structs.replace(item, **changes) if changes else item
            echoes.message(payload)
            for item in items:
                yield from echoes.item(item)
            produced += len(items)
        yield from echoes.end_turn()
        produced += echoes.kept
        if echoes.kept:
            report.add("changed", f"codex: {echoes.kept} event_msg user/agent message(s) that no response_item message holds kept as text in place (the only record of that text)")
        for k, v in echoes.echoes.items():
            events[k] += v
        if events:
            kinds = ", ".join(f"{k} x{v}" for k, v in sorted(events.items()))
            if not produced:
                raise MappingError(f"{source.name}: no response_item records; only UI events ({kinds}), which echo the conversation and are not read")
            report.add("dropped", f"codex: {sum(events.values())} event_msg record(s) skipped (the UI's echo of the response items: {kinds})")
        for k, v in sorted(skipped.items()):
            report.add("dropped", f"codex: {v} {k!r} record(s) skipped (not part of the conversation)")

    return LogConversation(FORMAT, session_id if isinstance(session_id, str) else None, {FORMAT: meta}, report, main)


def _rest(scan: Iterator[tuple[int, Any]], head: Any, start: int) -> Iterator[tuple[int, Any]]:
    if start == 0:
        yield 1, head
    yield from scan


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with keys {sorted(value)[:6]}"
    return a_json_type(value)
