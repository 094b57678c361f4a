"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON record a line: ``{"type": "user" | "assistant" | "system" | "summary" | ..., "uuid",
"parentUuid", "sessionId", "timestamp", "cwd", "version", "gitBranch", "isSidechain", "message",
...}``. A ``user`` or ``assistant`` record's ``message`` is an Anthropic message (an ``assistant`` one is
a whole Messages API response: ``id``, ``model``, ``content``, ``stop_reason``, ``usage``; one response
is often written as several records, one per content block, sharing ``message.id``); tool results
come back as ``user`` records of ``tool_result`` blocks. The records form a tree through
``parentUuid`` (``logicalParentUuid`` across a compaction boundary): a rewind, a retry or an edit is a
second child of a record; a sidechain (``isSidechain``: a sub-agent's conversation) has its own root.

Read as (see docs/migrating.md and ADR 0028):

* the **active branch** (the path to the last non-sidechain ``user``/``assistant`` record) is the
  conversation; each other leaf ends an abandoned branch, a :class:`~interlingua.compat.Fork`
  (``at`` = the last shared item, ``-1`` for a sidechain). A file whose records never name a parent
  (the SDK's ``stream-json`` output, hand-written files) is read in file order;
* each ``user`` record's message through the ``anthropic`` mapper's request side, each ``assistant``
  record's through its response side (``origin`` keeps model and ``message.id``); the items of one
  record share a message key (``uuid`` for user records, ``resp:<message.id>`` for responses);
* the record's own fields (everything but ``message``: ``uuid``, ``parentUuid``, ``timestamp``,
  ``toolUseResult``, ...) and the message's fields besides ``content`` (``id``, ``model``, ``usage``,
  ``stop_reason``, ...) go to the first item's ``metadata["claude-code"]``;
* ``system`` records (compaction boundaries, local command output, API errors) are ``raw`` items of
  provider ``claude-code``, in place; ``summary`` records go to the session metadata; records without
  ``uuid`` (``file-history-snapshot``, ``queue-operation``, ...) and ``uuid`` records of other types
  (``progress``, ``attachment``) are skipped, counted in one report entry per type.

Source of the record shape: the files Claude Code writes (no published schema); tested on files
committed by public projects (tests/fixtures/stores/claude-code/README.md).
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
from ._tree import split_tree

__all__ = ["FORMAT", "conversation", "is_web_export", "looks_like", "read"]

FORMAT = "claude-code"

_MESSAGE_TYPES = frozenset({"user", "assistant"})
_SESSION_FIELDS = ("sessionId", "cwd", "version", "gitBranch", "userType", "entrypoint")
KNOWN_TYPES = frozenset({"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment", "result"})


def looks_like(record: Any) -> bool:
    """Whether one parsed line is a Claude Code record (a ``type`` it writes, with ``uuid`` and
    ``sessionId``, or a ``summary``/``file-history-snapshot`` line)."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return False
    kind = record["type"]
    if kind == "summary":
        return "leafUuid" in record
    if kind == "file-history-snapshot":
        return "messageId" in record
    return kind in KNOWN_TYPES and "uuid" in record and ("sessionId" in record or "session_id" in record) and ("parentUuid" in record or kind in _MESSAGE_TYPES and isinstance(record.get("message"), dict))


_PAGE_FIELDS = ("first_id", "last_id", "has_more")


def is_web_export(obj: Any) -> bool:
    """Whether ``obj`` is a Claude Code on the web session export: a page of the session's events as
    claude.ai's sessions API returns it, ``{"data": [event, ...], "first_id", "last_id", "has_more"}``, whose
    events are the Agent SDK's ``stream-json`` records (``{"type": "system" | "user" | "assistant" | "result"
    | "tool_use_summary" | "tool_progress" | "env_manager_log" | ..., "uuid", "session_id", "message"?,
    "parent_tool_use_id"?, "created_at"?}``). No published schema: the shape is the one the API returns,
    as tools that export these sessions (claude-teleport-analyzer's ``EventsResponse``) read it."""
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), list) or not obj["data"]:
        return False
    if not obj.keys() - {"data"} <= {*_PAGE_FIELDS, "session", "session_id"}:
        return False
    return all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in obj["data"]) and any(looks_like(e) for e in obj["data"][:50])


def read(obj: Any) -> Migrated:
    """A list of Claude Code records (a session file's lines, parsed), or a Claude Code on the web session
    export (:func:`is_web_export`) -> :class:`Migrated`, the active branch as its transcript and the
    abandoned branches as its forks. An export's page fields (``first_id``, ``last_id``, ``has_more``) are
    kept in ``metadata["claude-code"]["events_page"]``; a page with ``has_more: true`` is reported (the
    events after ``last_id`` are not in the file).

    Raises:
        MappingError: not a list of records (nor an export), a record without ``type``, or no
            ``user``/``assistant`` record.
    """
    if is_web_export(obj):
        migrated = conversation(ListSource(obj["data"], f"{FORMAT} export /data")).materialize()
        page = {k: obj[k] for k in (*_PAGE_FIELDS, "session", "session_id") if k in obj}
        if page:
            meta = dict(migrated.transcript.metadata) if migrated.transcript.metadata is not msgspec.UNSET else {}
            meta[FORMAT] = {**meta.get(FORMAT, {}), "events_page": page}
            migrated.transcript = msgspec.structs.replace(migrated.transcript, metadata=meta)
        if obj.get("has_more") is True:
            migrated.report.add("dropped", f"claude-code: the export is one page of the session's events (has_more: true): the events after {obj.get('last_id')!r} are not in it")
        return migrated
    if not isinstance(obj, list):
        raise not_records(FORMAT, obj)
    return conversation(ListSource(obj, FORMAT)).materialize()


def conversation(source: ListSource | LineSource) -> LogConversation:
    """Index ``source`` (one pass) and return the conversation, its items read on demand.

    Raises:
        MappingError: a record is not an object or has no ``type``; no ``user``/``assistant`` record.
        DocumentError: a line is not JSON (from a :class:`LineSource`).
    """
    ids: list[str | None] = []
    parents: list[str | None] = []
    types: list[str] = []
    session: dict[str, Any] = {}
    summaries: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    active_leaf = last_message = None
    agent: str | None = None
    linked = False
    for i, (_n, rec) in enumerate(source.scan()):
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            what = "no 'type'" if isinstance(rec, dict) else a_json_type(rec)
            raise MappingError(f"{source.where(i)}: not a Claude Code record ({what})")
        kind = rec["type"]
        uuid = rec.get("uuid") if isinstance(rec.get("uuid"), str) else None
        parent = rec.get("parentUuid") if isinstance(rec.get("parentUuid"), str) else None
        if parent is None and isinstance(rec.get("logicalParentUuid"), str):
            parent = rec["logicalParentUuid"]  # a compaction boundary: the history goes on above it
        linked = linked or parent is not None
        if agent is None and isinstance(rec.get("agentId"), str) and rec.get("isSidechain"):
            agent = rec["agentId"]
        ids.append(uuid)
        parents.append(parent)
        types.append(kind)
        for key in _SESSION_FIELDS:
            if key not in session and isinstance(rec.get(key), str):
                session[key] = rec[key]
        if "sessionId" not in session and isinstance(rec.get("session_id"), str):
            session["sessionId"] = rec["session_id"]
        if kind == "summary":
            summaries.append({k: v for k, v in rec.items() if k != "type"})
        elif kind not in _MESSAGE_TYPES and kind != "system":
            skipped[kind] += 1
        elif kind in _MESSAGE_TYPES:
            if not isinstance(rec.get("message"), dict):
                raise MappingError(f"{source.where(i)}: a {kind!r} record without a 'message' object")
            last_message = i
            if not rec.get("isSidechain"):
                active_leaf = i
    if last_message is None:
        raise MappingError(f"{source.name}: no 'user' or 'assistant' record: not a Claude Code session")
    if active_leaf is None:  # a sub-agent's own file (subagents/agent-<id>.jsonl): every record is a sidechain
        active_leaf = last_message
        if "sessionId" in session and agent is not None:
            session["sessionId"] = f"{session['sessionId']}@agent-{agent}"
    report = Report()
    for kind, count in sorted(skipped.items()):
        report.add("dropped", f"claude-code: {count} {kind!r} record(s) skipped (not part of the model's conversation)")
    metadata: dict[str, Any] = {FORMAT: dict(session)}
    if summaries:
        metadata[FORMAT]["summaries"] = summaries
    wanted = [k in _MESSAGE_TYPES or k == "system" for k in types]
    if linked:
        tree = split_tree(ids, parents, active_leaf)
        active = tree.active
        branches = [(b, [i for i in b.nodes if wanted[i]]) for b in tree.branches]
        branches = [(b, nodes) for b, nodes in branches if any(types[i] in _MESSAGE_TYPES for i in nodes)]
        if tree.dangling:
            report.add("changed", f"claude-code: {len(tree.dangling)} record(s) name a parent that is not in the file; each starts its branch")
    else:
        active, branches = list(range(len(types))), []
    if branches:
        report.add("changed", f"claude-code: {len(branches)} abandoned branch(es) (rewinds, retries, edits, sidechains) kept as forks of the session")
    last_item: dict[int, int] = {}

    def main() -> Iterator[Any]:
        count = 0
        for i in active:
            if wanted[i]:
                for item in _items(source.get(i), source.where(i), report):
                    yield item
                    count += 1
            last_item[i] = count - 1  # the last item at or before this record

    def forks() -> Iterator[tuple[str, int, Iterator[Any]]]:
        for b, nodes in branches:
            at = -1 if b.joins is None else last_item.get(b.joins, -1)
            key = ids[b.leaf] or f"line-{b.leaf + 1}"
            yield key, at, (item for i in nodes for item in _items(source.get(i), source.where(i), report))

    sid = session.get("sessionId")
    return LogConversation(FORMAT, sid, metadata, report, main, forks)


def _items(rec: dict[str, Any], where: str, report: Report) -> list[Any]:
    """The canonical items of one ``user``/``assistant``/``system`` record."""
    envelope = {k: v for k, v in rec.items() if k != "message"}
    kind = rec["type"]
    if kind == "system":
        return [RawItem(provider=FORMAT, value=rec)]
    message = rec["message"]
    anthropic = get_mapper("anthropic")
    extra = {k: v for k, v in message.items() if k not in ("content", "role")}
    items: list[Any]
    conv: Any
    try:
        if kind == "assistant" and message.get("type") == "message" and isinstance(message.get("content"), list):
            conv = anthropic.decode_response(message)
            items = list(conv.value.items)
        else:
            conv = anthropic.decode_request({"messages": [{"role": message.get("role", kind), "content": message.get("content")}]})
            key = rec.get("uuid") or f"cc:{where}"
            items = [msgspec.structs.replace(it, message=key) if getattr(it, "message", msgspec.UNSET) is not msgspec.UNSET else it for it in conv.value.items]
    except InterlinguaError as exc:
        report.add("degraded", f"{where}: the message could not be read ({exc}); kept as a raw claude-code item")
        return [RawItem(provider=FORMAT, value=rec)]
    for entry in conv.report.entries:
        report.add(entry.action, f"{where}: {entry.reason}", item_type=entry.item_type)
    if not items:
        report.add("dropped", f"{where}: a {kind!r} record with empty content; its fields are kept as a raw claude-code item")
        return [RawItem(provider=FORMAT, value=rec)]
    meta = dict(envelope)
    if extra:
        meta["message"] = extra
    items[0] = msgspec.structs.replace(items[0], metadata={FORMAT: meta})
    uuid = rec.get("uuid")
    if uuid is not None:
        items[1:] = [msgspec.structs.replace(it, metadata={FORMAT: {"uuid": uuid}}) for it in items[1:]]
    return items
