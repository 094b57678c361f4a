"""Consumer chat exports: ChatGPT ``conversations.json`` (``chatgpt-export``) and Claude.ai exports (``claude-export``).

Both hold each conversation as a tree (a retry or an edit starts a new branch). The active branch is the
transcript; every abandoned branch is a :class:`~interlingua.compat.Fork` of it (its items after the last
node it shares with the active branch), which ``migrate --store`` writes with ``store.fork``.

ChatGPT (the "Export data" archive's ``conversations.json``: a list of conversations). A conversation is
``{id|conversation_id, title, create_time, update_time, current_node, mapping: {node_id: {id, parent,
children, message}}, ...}``; the active branch is ``current_node`` followed up by ``parent`` (without
``current_node``: the last child at each step). A message is ``{id, author: {role, name, metadata},
create_time, update_time, content: {content_type, ...}, status, end_turn, weight, metadata, recipient}``:

* ``text``/``multimodal_text`` ``parts``: strings -> text; ``image_asset_pointer`` parts -> images (an
  artifact source naming ``asset_pointer``); an assistant message whose ``recipient`` is not ``all`` is a
  tool call to that tool (its text, or a ``code`` message's ``text``, the arguments; the call id is the
  message id);
* ``thoughts`` (``thoughts: [{summary, content}]`` or ``parts``) -> reasoning; ``reasoning_recap`` ->
  reasoning whose summary is the recap;
* ``user_editable_context`` (custom instructions) -> system text, one item per field;
* a ``tool`` author's message -> the result of the pending call to that tool (``execution_output`` and
  text content); without one, user text (reported);
* any other content type -> a ``raw`` item (reported).

Claude.ai (Settings > Privacy > Export data: ``conversations.json``, a list). A conversation is ``{uuid,
name, summary, created_at, updated_at, account, chat_messages: [...], current_leaf_message_uuid?}``; a
message ``{uuid, sender: human|assistant, text, content?: [blocks], created_at, updated_at, attachments,
files, parent_message_uuid?, index?}``. With ``parent_message_uuid`` the messages form a tree (the active
leaf: ``current_leaf_message_uuid``, else the last message); without it, the list is the conversation.
``content`` blocks are read as Anthropic blocks (``text``, ``thinking`` -> reasoning, ``tool_use`` -> tool
call, ``tool_result`` -> tool result; others raw, reported); without blocks, ``text``. Attachments with
``extracted_content`` are text documents (``filename``, ``media_type`` from ``file_type``).

Kept: the conversation's fields (all but the tree) in ``metadata[FORMAT]``; each message's fields (ids,
author, timestamps, status, metadata; all but its content) in ``provider_data[FORMAT]["message"]`` of its
first item, whose ``message`` key is the node id (ChatGPT) or message uuid (Claude.ai).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, Item
from ..errors import MappingError
from ..items import ArtifactSource, DocumentItem, ImageItem, Origin, RawItem, ReasoningItem, TextItem, TextSource, ToolResultItem, Transcript
from ..mapping import Report
from ..mapping.arguments import tool_call_from_text
from ..mapping.wire import a_json_type
from ._base import Fork, Migrated, keep_on_message, with_provider_data

__all__ = ["CHATGPT", "CLAUDE", "read_chatgpt", "read_claude"]

CHATGPT = "chatgpt-export"
CLAUDE = "claude-export"
U = msgspec.UNSET
_CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000"


_with_pd = with_provider_data


def _key(value: Any, fallback: str) -> str:
    return value if isinstance(value, str) and 0 < len(value) <= 512 else fallback


class _Branch:
    """Reads the messages of one root-to-leaf path (tool calls wait for their results along it)."""

    def __init__(self, fmt: str, report: Report) -> None:
        self.fmt = fmt
        self.report = report
        self.pending: dict[str, list[str]] = {}


# --------------------------------------------------------------------------- ChatGPT


class _ChatGpt(_Branch):
    def message(self, node_id: str, msg: Mapping[str, Any], where: str) -> list[Item]:
        author: Any = msg.get("author") if isinstance(msg.get("author"), Mapping) else {}
        role = author.get("role")
        content: Any = msg.get("content")
        if not isinstance(content, Mapping) or not isinstance(content.get("content_type"), str):
            raise MappingError(f"{CHATGPT}: {where}/content: expected {{'content_type', ...}}, got {a_json_type(content)}")
        ctype = content["content_type"]
        key = _key(node_id, "node")
        meta: Any = msg.get("metadata") if isinstance(msg.get("metadata"), Mapping) else {}
        slug = meta.get("model_slug")
        origin: Any = Origin(provider=CHATGPT, model=slug) if role == "assistant" and isinstance(slug, str) and slug else U
        parts = content.get("parts")
        texts = [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []
        recipient = msg.get("recipient")
        out: list[Item] = []
        if role == "tool":
            name = author.get("name") if isinstance(author.get("name"), str) else ""
            if ctype in ("execution_output", "text", "code") and (isinstance(content.get("text"), str) or texts):
                text = content["text"] if isinstance(content.get("text"), str) else "".join(texts)
                calls = self.pending.get(name)
                if calls:
                    out.append(ToolResultItem(call_id=calls.pop(0), name=name or U, content=[TextItem(text=text)] if text else [], message=key))
                else:
                    self.report.add("changed", f"a {name or 'tool'} message with no pending call: kept as user text", pointer=where)
                    out.append(_with_pd(TextItem(text=text, role="user", message=key), CHATGPT, orphan_tool=True))
        elif role == "assistant" and isinstance(recipient, str) and recipient != "all" and ctype in ("text", "code"):
            args = content["text"] if ctype == "code" and isinstance(content.get("text"), str) else "".join(texts)
            cid = _key(msg.get("id"), key)
            self.pending.setdefault(recipient, []).append(cid)
            out.append(tool_call_from_text(cid, recipient, args, message=key, origin=origin))
        elif ctype in ("text", "multimodal_text") and isinstance(parts, list) and role in ("system", "user", "assistant"):
            for j, p in enumerate(parts):
                if isinstance(p, str):
                    out.append(TextItem(text=p, role=role, message=key, origin=origin if role == "assistant" else U))
                elif isinstance(p, Mapping) and p.get("content_type") == "image_asset_pointer" and isinstance(p.get("asset_pointer"), str) and p["asset_pointer"]:
                    extra = {k: copy.deepcopy(v) for k, v in p.items() if k not in ("content_type", "asset_pointer")}
                    img = ImageItem(source=ArtifactSource(uri=p["asset_pointer"]), role=role, message=key)
                    out.append(_with_pd(img, CHATGPT, part=extra) if extra else img)
                else:
                    self.report.add("changed", f"a {p.get('content_type') if isinstance(p, Mapping) else a_json_type(p)} part has no canonical form; kept as a raw item", pointer=f"{where}/content/parts/{j}")
                    out.append(RawItem(provider=CHATGPT, value=copy.deepcopy(p), role=role, message=key))
        elif ctype == "thoughts":
            thoughts = content.get("thoughts")
            if isinstance(thoughts, list):
                for t in thoughts:
                    if isinstance(t, Mapping):
                        thought: Any = t.get("content") if isinstance(t.get("content"), str) and t.get("content") else U
                        summary: Any = [t["summary"]] if isinstance(t.get("summary"), str) and t["summary"] else U
                        extra = {k: copy.deepcopy(v) for k, v in t.items() if k not in ("content", "summary")}
                        out.append(_with_pd(ReasoningItem(text=thought, summary=summary, message=key, origin=origin), CHATGPT, thought=extra))
            for p in texts:
                out.append(ReasoningItem(text=p, message=key, origin=origin))
        elif ctype == "reasoning_recap":
            recap: Any = content.get("content") if isinstance(content.get("content"), str) else "".join(texts)
            out.append(_with_pd(ReasoningItem(summary=[recap], message=key, origin=origin), CHATGPT, recap=True))
        elif ctype == "user_editable_context":
            for field in ("user_profile", "user_instructions"):
                if isinstance(content.get(field), str):
                    out.append(_with_pd(TextItem(text=content[field], role="system", message=key), CHATGPT, field=field))
        if not out:
            self.report.add("changed", f"a {role} message of content type {ctype!r} has no canonical form; kept as a raw item", pointer=where)
            out.append(RawItem(provider=CHATGPT, value=copy.deepcopy(dict(content)), role=role if role in ("system", "user", "assistant") else U, message=key))
        own = {k: copy.deepcopy(v) for k, v in msg.items() if k != "content"}
        own_content = {k: copy.deepcopy(v) for k, v in content.items() if k not in ("parts", "text", "thoughts", "user_profile", "user_instructions") and not (ctype == "reasoning_recap" and k == "content")}
        keep_on_message(out, CHATGPT, self.report, pointer=where, message=own, content=own_content)
        return out


def _chatgpt_path(mapping: Mapping[str, Any], leaf: str, where: str) -> list[str]:
    path: list[str] = []
    seen: set[str] = set()
    node: Any = leaf
    while isinstance(node, str):
        if node in seen:
            raise MappingError(f"{CHATGPT}: {where}/mapping/{node}/parent: the parents form a cycle")
        if node not in mapping or not isinstance(mapping[node], Mapping):
            raise MappingError(f"{CHATGPT}: {where}/mapping: node {node!r} is named but not in the mapping")
        seen.add(node)
        path.append(node)
        node = mapping[node].get("parent")
    return path[::-1]


def _leaves(mapping: Mapping[str, Any]) -> list[str]:
    return [k for k, v in mapping.items() if isinstance(v, Mapping) and not v.get("children")]


def _items_of(path: list[str], mapping: Mapping[str, Any], report: Report, where: str) -> tuple[list[Item], list[int]]:
    """Items of a path and, per node, the number of items read up to and including it."""
    reader = _ChatGpt(CHATGPT, report)
    items: list[Item] = []
    ends: list[int] = []
    for node_id in path:
        node = mapping[node_id]
        msg = node.get("message")
        if msg is not None:
            if not isinstance(msg, Mapping):
                raise MappingError(f"{CHATGPT}: {where}/mapping/{node_id}/message: expected an object or null, got {a_json_type(msg)}")
            items.extend(reader.message(node_id, msg, f"{where}/mapping/{node_id}/message"))
        ends.append(len(items))
    return items, ends


def read_chatgpt(obj: Any) -> Migrated:
    """One ChatGPT export conversation -> :class:`Migrated` (the active branch, and a fork per abandoned one).

    Raises:
        MappingError: not a conversation with a node ``mapping``, or a broken tree (the message names the JSON pointer).
    """
    if not isinstance(obj, Mapping) or not isinstance(obj.get("mapping"), Mapping):
        raise MappingError(f"{CHATGPT}: expected a conversation object with a 'mapping' of nodes, got {a_json_type(obj)}")
    mapping = obj["mapping"]
    if not mapping:
        raise MappingError(f"{CHATGPT}: /mapping: the conversation has no nodes")
    report = Report()
    current = obj.get("current_node")
    if current is not None and (not isinstance(current, str) or current not in mapping):
        raise MappingError(f"{CHATGPT}: /current_node: {current!r} is not a node of the mapping")
    if current is None:
        roots = [k for k, v in mapping.items() if isinstance(v, Mapping) and v.get("parent") is None]
        if len(roots) != 1:
            raise MappingError(f"{CHATGPT}: /mapping: expected one root node, found {len(roots)}")
        current = roots[0]
        seen: set[str] = set()
        while isinstance(mapping[current].get("children"), list) and mapping[current]["children"] and current not in seen:
            seen.add(current)
            child = mapping[current]["children"][-1]
            if not isinstance(child, str) or not isinstance(mapping.get(child), Mapping):
                raise MappingError(f"{CHATGPT}: /mapping/{current}/children: {child!r} is not a node of the mapping")
            current = child
    active = _chatgpt_path(mapping, current, "")
    items, _ends = _items_of(active, mapping, report, "")
    on_active = set(active)
    forks: list[Fork] = []
    fork_report = Report()
    for leaf in _leaves(mapping):
        if leaf in on_active:
            continue
        path = _chatgpt_path(mapping, leaf, "")
        shared = 0
        while shared < len(path) and shared < len(active) and path[shared] == active[shared]:
            shared += 1
        branch, ends = _items_of(path, mapping, fork_report, "")
        at = ends[shared - 1] if shared else 0
        if branch[:at] != items[:at]:
            raise AssertionError("a fork's shared part reads differently")  # pragma: no cover - reading is deterministic
        forks.append(Fork(key=leaf, at=at - 1, items=branch[at:]))
    for entry in fork_report:
        report.entries.append(entry)
    meta = {k: copy.deepcopy(v) for k, v in obj.items() if k != "mapping"}
    transcript = Transcript(schema_version=SCHEMA_VERSION, items=items, metadata={CHATGPT: meta} if meta else U)  # type: ignore[arg-type]
    return Migrated(transcript, report, CHATGPT, forks=forks)


# --------------------------------------------------------------------------- Claude.ai


def _claude_message(msg: Mapping[str, Any], i: int, report: Report, pending: set[str]) -> list[Item]:
    where = f"/chat_messages/{i}"
    sender = msg.get("sender")
    role: Any = {"human": "user", "user": "user", "assistant": "assistant"}.get(sender if isinstance(sender, str) else "")
    if role is None:
        raise MappingError(f"{CLAUDE}: {where}/sender: expected 'human' or 'assistant', got {sender!r}")
    key = _key(msg.get("uuid"), f"m{i}")
    out: list[Item] = []
    attachments: Any = msg.get("attachments") or []
    for k, att in enumerate(attachments if isinstance(attachments, list) else []):
        if isinstance(att, Mapping) and isinstance(att.get("extracted_content"), str):
            extra = {x: copy.deepcopy(v) for x, v in att.items() if x not in ("extracted_content", "file_name", "file_type")}
            doc = DocumentItem(
                source=TextSource(text=att["extracted_content"]),
                filename=att["file_name"] if isinstance(att.get("file_name"), str) and att["file_name"] else U,
                media_type=att["file_type"] if isinstance(att.get("file_type"), str) and att["file_type"] else U,
                role=role, message=key,
            )
            out.append(_with_pd(doc, CLAUDE, attachment=extra) if extra else doc)
        else:
            report.add("changed", "an attachment without extracted_content is kept only in provider_data", pointer=f"{where}/attachments/{k}")
    blocks: Any = msg.get("content")
    used_blocks = isinstance(blocks, list) and bool(blocks)
    if used_blocks:
        for j, b in enumerate(blocks):
            ptr = f"{where}/content/{j}"
            t = b.get("type") if isinstance(b, Mapping) else None
            extra = {x: copy.deepcopy(v) for x, v in b.items() if x not in ("type", "text", "thinking", "id", "name", "input", "content", "tool_use_id", "is_error")} if isinstance(b, Mapping) else {}
            item: Any
            if t == "text" and isinstance(b.get("text"), str):
                item = TextItem(text=b["text"], role=role, message=key)
            elif t == "thinking" and isinstance(b.get("thinking"), str) and role == "assistant":
                item = ReasoningItem(text=b["thinking"] or U, message=key)
            elif t == "tool_use" and isinstance(b.get("name"), str):
                cid = _key(b.get("id"), f"call_{key}_{j}")
                pending.add(cid)
                args = b.get("input")
                item = tool_call_from_text(cid, b["name"], msgspec.json.encode(args if args is not None else {}).decode(), message=key)
            elif t == "tool_result" and isinstance(b.get("tool_use_id"), str):
                content = b.get("content")
                texts = [c["text"] for c in content if isinstance(c, Mapping) and isinstance(c.get("text"), str)] if isinstance(content, list) else ([content] if isinstance(content, str) else [])
                item = ToolResultItem(call_id=b["tool_use_id"], name=b["name"] if isinstance(b.get("name"), str) else U, content=[TextItem(text=x) for x in texts if x], is_error=True if b.get("is_error") is True else U, message=key)
                extra["content"] = copy.deepcopy(content) if not (isinstance(content, list) and all(isinstance(c, Mapping) and set(c) <= {"type", "text"} for c in content)) else None
                extra = {x: v for x, v in extra.items() if v is not None}
            else:
                report.add("changed", f"content block {t!r} has no canonical form; kept as a raw item", pointer=ptr)
                out.append(RawItem(provider=CLAUDE, value=copy.deepcopy(b), role=role, message=key))
                continue
            out.append(_with_pd(item, CLAUDE, block=extra) if extra else item)
    else:
        text = msg.get("text")
        if not isinstance(text, str):
            raise MappingError(f"{CLAUDE}: {where}: a message has 'text' or 'content' blocks")
        out.append(TextItem(text=text, role=role, message=key))
    if not out:
        out.append(TextItem(text="", role=role, message=key))
    own = {x: copy.deepcopy(v) for x, v in msg.items() if x not in ("content" if used_blocks else "text",)}
    if isinstance(own.get("attachments"), list):  # those read as documents are items; the rest stay here
        own["attachments"] = [a for a in own["attachments"] if not (isinstance(a, Mapping) and isinstance(a.get("extracted_content"), str))]
    out[0] = _with_pd(out[0], CLAUDE, message=own)
    return out


def read_claude(obj: Any) -> Migrated:
    """One Claude.ai export conversation -> :class:`Migrated` (the active branch, and a fork per abandoned one).

    Raises:
        MappingError: not a conversation with ``chat_messages``, or a broken tree (the message names the JSON pointer).
    """
    if not isinstance(obj, Mapping) or not isinstance(obj.get("chat_messages"), list):
        raise MappingError(f"{CLAUDE}: expected a conversation object with a 'chat_messages' list, got {a_json_type(obj)}")
    messages = obj["chat_messages"]
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise MappingError(f"{CLAUDE}: /chat_messages/{i}: a message is a JSON object, got {a_json_type(m)}")
    report = Report()
    by_id = {m.get("uuid"): i for i, m in enumerate(messages) if isinstance(m.get("uuid"), str)}
    tree = any(isinstance(m.get("parent_message_uuid"), str) for m in messages)

    def path_to(leaf: int) -> list[int]:
        out: list[int] = []
        seen: set[int] = set()
        cur: Any = leaf
        while cur is not None:
            if not isinstance(messages[cur].get("parent_message_uuid"), str | None):
                raise MappingError(f"{CLAUDE}: /chat_messages/{cur}/parent_message_uuid: a message uuid (a string), got {a_json_type(messages[cur].get('parent_message_uuid'))}")
            if cur in seen:
                raise MappingError(f"{CLAUDE}: /chat_messages/{cur}/parent_message_uuid: the parents form a cycle")
            seen.add(cur)
            out.append(cur)
            parent = messages[cur].get("parent_message_uuid")
            if parent is None or parent == _CLAUDE_ROOT:
                break
            if parent not in by_id:
                raise MappingError(f"{CLAUDE}: /chat_messages/{cur}/parent_message_uuid: {parent!r} is not a message of the conversation")
            cur = by_id[parent]
        return out[::-1]

    def read_path(path: list[int], rep: Report) -> tuple[list[Item], list[int]]:
        items: list[Item] = []
        ends: list[int] = []
        pending: set[str] = set()
        for i in path:
            items.extend(_claude_message(messages[i], i, rep, pending))
            ends.append(len(items))
        return items, ends

    forks: list[Fork] = []
    if tree and messages:
        leaf_id = obj.get("current_leaf_message_uuid")
        if leaf_id is not None and (not isinstance(leaf_id, str) or leaf_id not in by_id):
            raise MappingError(f"{CLAUDE}: /current_leaf_message_uuid: {leaf_id!r} is not a message of the conversation")
        leaf = by_id[leaf_id] if leaf_id is not None else len(messages) - 1
        active = path_to(leaf)
        items, _ = read_path(active, report)
        parents = {m.get("parent_message_uuid") for m in messages if isinstance(m.get("parent_message_uuid"), str)}
        fork_report = Report()
        for i, m in enumerate(messages):
            if i in active or m.get("uuid") in parents:
                continue
            path = path_to(i)
            shared = 0
            while shared < len(path) and shared < len(active) and path[shared] == active[shared]:
                shared += 1
            branch, ends = read_path(path, fork_report)
            at = ends[shared - 1] if shared else 0
            forks.append(Fork(key=_key(m.get("uuid"), f"m{i}"), at=at - 1, items=branch[at:]))
        report.entries.extend(fork_report.entries)
    else:
        items, _ = read_path(list(range(len(messages))), report)
    meta = {k: copy.deepcopy(v) for k, v in obj.items() if k != "chat_messages"}
    transcript = Transcript(schema_version=SCHEMA_VERSION, items=items, metadata={CLAUDE: meta} if meta else U)  # type: ignore[arg-type]
    return Migrated(transcript, report, CLAUDE, forks=forks)
