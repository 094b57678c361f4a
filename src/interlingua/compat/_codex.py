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
the history before it). **Skipped**, with a report entry counting each kind: ``event_msg`` (the UI's echo
of the response items: ``user_message``, ``agent_message``, ``agent_reasoning``, ``token_count``,
``exec_command_end``, ...), legacy ``state`` lines, and record types this reader does not know. A file
whose only conversation is in ``event_msg`` records is refused (its text would be lost).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec

from ..errors import InterlinguaError, MappingError
from ..items import RawItem
from ..mapping import Report, get_mapper
from ..mapping.wire import a_json_type
from ._base import Migrated
from ._logs import ListSource, LineSource, LogConversation, not_records

__all__ = ["FORMAT", "conversation", "looks_like", "read"]

FORMAT = "codex"

ENVELOPE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


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
                continue
            if kind == "event_msg":
                events[payload.get("type", "?") if isinstance(payload, dict) else "?"] += 1
                continue
            extra: dict[str, Any] = {"line": n}
            if stamp is not None:
                extra["timestamp"] = stamp
            if context is not None:
                extra["turn_context"] = context
                context = None
            if kind == "compacted":
                report.add("changed", f"{where}: a 'compacted' record (the summary that replaced the history before it) kept as a raw codex item")
                yield RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra})
                produced += 1
                continue
            if kind == "session_meta":  # a second session line (a resumed rollout): kept in place
                yield RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra})
                produced += 1
                continue
            if kind != "response_item":
                skipped[str(kind)] += 1
                continue
            if not isinstance(payload, dict):
                raise MappingError(f"{where}: a response_item whose payload is {a_json_type(payload)}, not a Responses item")
            try:
                conv = responses.decode_request({"input": [payload]})
            except InterlinguaError as exc:
                report.add("degraded", f"{where}: the {payload.get('type')!r} item could not be read ({exc}); kept as a raw codex item")
                yield RawItem(provider=FORMAT, value=payload, metadata={FORMAT: extra})
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
            yield from items
            produced += len(items)
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
