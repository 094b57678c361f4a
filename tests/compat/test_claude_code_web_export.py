"""Claude Code on the web session exports (issue 26: "Also the web export JSON").

A session run on claude.ai (Claude Code on the web, ``claude --remote``) is exported as a page of its events
as the sessions API returns them: ``{"data": [event, ...], "first_id", "last_id", "has_more"}``, each event an
Agent SDK ``stream-json`` record (``type``, ``uuid``, ``session_id``, ``message``, ``parent_tool_use_id``,
``created_at``). No export file under a permissive license was found in a public repository (one recording,
in webedt/monorepo ``cli/EXAMPLE_RUNS.md``, carries no license): the export below is written here from the
field names of that API (claude-teleport-analyzer ``src/types.rs``, ``EventsResponse``/``SessionEvent``), and
the JSON Lines form of the same records is the one the real Claude Code files in tests/fixtures/stores use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import detect_format, read_any
from interlingua.items import RawItem, TextItem, ToolCallItem, ToolResultItem
from interlingua.session_file import read_sessions

SID = "b33bc460-769d-42a3-a984-f88597f7b3e8"
runner = CliRunner()


def export(has_more: bool = False) -> dict[str, Any]:
    def ev(kind: str, n: int, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "uuid": f"00000000-0000-4000-8000-{n:012d}", "session_id": SID, "created_at": f"2025-12-24T16:38:{n:02d}Z", **fields}

    events = [
        {"type": "env_manager_log", "uuid": "e0", "created_at": "2025-12-24T16:37:51Z", "data": {"category": "init", "content": "Fetching repository", "level": "info"}},
        ev("system", 1, subtype="init", model="claude-sonnet-4-20250514", cwd="/home/user/hello-world", claude_code_version="2.0.59", tools=["Read", "Write"]),
        ev("user", 2, message={"role": "user", "content": "Create hello.txt saying hi"}, parent_tool_use_id=None),
        ev("assistant", 3, message={"id": "msg_01", "role": "assistant", "model": "claude-sonnet-4-20250514", "content": [
            {"type": "thinking", "thinking": "A Write call.", "signature": "EqQB"},
            {"type": "tool_use", "id": "toolu_01", "name": "Write", "input": {"file_path": "hello.txt", "content": "hi"}},
        ]}),
        ev("tool_progress", 4, tool_name="Write", tool_use_id="toolu_01", elapsed_time_seconds=0),
        ev("user", 5, message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "File created"}]}, parent_tool_use_id=None),
        ev("assistant", 6, message={"id": "msg_02", "role": "assistant", "model": "claude-sonnet-4-20250514", "content": [{"type": "text", "text": "Created hello.txt."}]}),
        ev("result", 7, subtype="success", duration_ms=5982, is_error=False, num_turns=2, result="Created hello.txt."),
    ]
    return {"data": events, "first_id": events[0]["uuid"], "last_id": events[-1]["uuid"], "has_more": has_more}


def counts(page: dict[str, Any]) -> dict[str, int]:
    """Counted from the export itself."""
    want = {"texts": 0, "calls": 0, "results": 0, "reasoning": 0, "system": 0}
    for e in page["data"]:
        if e["type"] == "system":
            want["system"] += 1
        if e["type"] not in ("user", "assistant"):
            continue
        content = e["message"]["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            key = {"text": "texts", "tool_use": "calls", "tool_result": "results", "thinking": "reasoning"}[block["type"]]
            want[key] += 1
    return want


def test_an_export_is_detected_and_read_whole() -> None:
    page = export()
    assert detect_format(page) == "claude-code"
    migrated = read_any(page)
    items = migrated.transcript.items
    want = counts(page)
    assert sum(isinstance(i, TextItem) for i in items) == want["texts"] == 2
    assert [i.id for i in items if isinstance(i, ToolCallItem)] == ["toolu_01"]
    assert [i.call_id for i in items if isinstance(i, ToolResultItem)] == ["toolu_01"]
    assert sum(type(i).__name__ == "ReasoningItem" for i in items) == want["reasoning"]
    assert sum(isinstance(i, RawItem) for i in items) == want["system"]  # the init record, in place
    assert migrated.source_session_id == SID
    kept = migrated.transcript.metadata["claude-code"]
    assert kept["events_page"] == {"first_id": "e0", "last_id": page["last_id"], "has_more": False}
    reasons = [str(e) for e in migrated.report]
    assert any("'env_manager_log'" in r for r in reasons) and any("'tool_progress'" in r for r in reasons) and any("'result'" in r for r in reasons)


def test_a_page_with_more_events_says_so() -> None:
    migrated = read_any(export(has_more=True))
    assert any("has_more" in str(e) for e in migrated.report)


def test_the_export_and_its_records_as_json_lines_read_the_same(tmp_path: Path) -> None:
    page = export()
    lines = tmp_path / "session.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in page["data"]))
    as_file = tmp_path / "session.json"
    as_file.write_text(json.dumps(page, indent=2))
    out_lines, out_export = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert runner.invoke(app, ["migrate", str(lines), "-o", str(out_lines), "--quiet"]).exit_code == 0
    res = runner.invoke(app, ["migrate", str(as_file), "-o", str(out_export), "--quiet"])
    assert res.exit_code == 0, res.output
    with open(out_lines, "rb") as a, open(out_export, "rb") as b:
        (one,), (two,) = list(read_sessions(a)), list(read_sessions(b))
    assert one.session_id == two.session_id == SID
    assert [e.item for e in one.envelopes] == [e.item for e in two.envelopes]
    # convert reads the export as one conversation too
    conv = runner.invoke(app, ["convert", "--from", "claude-code", "--to", "canonical", str(as_file)])
    assert conv.exit_code == 0, conv.output
    from interlingua.codec import decode_transcript

    assert decode_transcript(conv.stdout.encode()).items == [e.item for e in one.envelopes]


def test_an_object_that_only_looks_like_a_page_is_not_an_export() -> None:
    from interlingua.compat import FormatDetectionError

    try:
        found = detect_format({"data": [{"role": "user", "content": "hi"}], "has_more": False})
    except FormatDetectionError:
        found = None
    assert found != "claude-code"
    page = export()
    page["other"] = 1  # an unknown top-level member: not the sessions API's page
    from interlingua.compat._claude_code import is_web_export

    assert not is_web_export(page)
