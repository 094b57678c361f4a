"""Codex rollouts: an ``event_msg`` user/agent message is the UI's echo of a ``response_item`` message,
except when no such message holds its text; then it is the only record of that text and is kept in
place (issue 26: the real rollout below keeps its prompt only as an event)."""

from __future__ import annotations

import json
from pathlib import Path

from interlingua.compat import read
from interlingua.items import TextItem, ToolCallItem

CODEX = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "codex" / "sessions"
SPAWN = next((CODEX / "2026" / "01" / "03").glob("rollout-*22222222*.jsonl"))
LISTING = next((CODEX / "2026" / "01" / "02").glob("rollout-*11111111*.jsonl"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_prompt_only_in_an_event_starts_the_session() -> None:
    records = _lines(SPAWN)
    prompts = [r["payload"]["message"] for r in records if r.get("type") == "event_msg" and r["payload"].get("type") == "user_message"]
    messages = [r for r in records if r.get("type") == "response_item" and r["payload"].get("type") == "message"]
    assert prompts == ["Spawn a synthetic researcher."] and not messages  # the independent count: one prompt, no message holds it
    m = read(records, "codex")
    items = list(m.transcript.items)
    assert isinstance(items[0], TextItem) and items[0].role == "user" and items[0].text == "Spawn a synthetic researcher."
    assert isinstance(items[1], ToolCallItem)
    assert any("kept as text in place" in e.reason for e in m.report)


def test_an_echo_is_skipped_whichever_side_comes_first() -> None:
    records = _lines(LISTING)  # event_msg user_message before its response_item, agent_message likewise
    texts = [it.text for it in read(records, "codex").transcript.items if isinstance(it, TextItem)]
    assert texts.count("List the synthetic files.") == 1
    assert texts.count("The synthetic files are alpha.txt and beta.txt.") == 1
    # the response_item first, its echo after: still one
    head, user_event, user_item = records[0], records[2], records[3]
    swapped = [head, user_item, user_event]
    assert [it.text for it in read(swapped, "codex").transcript.items if isinstance(it, TextItem)] == ["List the synthetic files."]


def test_same_text_in_a_later_turn_without_its_message_is_kept() -> None:
    head = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}
    msg = {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]}}
    ev = {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "go on"}}
    ctx = {"timestamp": "t", "type": "turn_context", "payload": {"model": "m"}}
    items = read([head, msg, ev, ctx, ev], "codex").transcript.items
    assert [(it.role, it.text) for it in items] == [("user", "go on"), ("user", "go on")]


def test_agent_message_without_its_message_is_assistant_text() -> None:
    head = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}
    ev = {"timestamp": "t", "type": "event_msg", "payload": {"type": "agent_message", "message": "done"}}
    items = read([head, ev], "codex").transcript.items
    assert [(it.role, it.text) for it in items] == [("assistant", "done")]


def test_event_images_are_reported_not_lost_silently() -> None:
    head = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}
    ev = {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "look", "images": ["data:image/png;base64,AAAA"]}}
    m = read([head, ev], "codex")
    assert [it.text for it in m.transcript.items] == ["look"]
    assert any(e.action == "dropped" and "images" in e.reason for e in m.report)
