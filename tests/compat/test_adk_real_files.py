"""Google ADK sessions and eval sets committed by public projects, read by the ``adk`` reader (issue 26).

The files (tests/fixtures/stores/adk/, project, path and commit in its README) are sessions saved from real
runs of google/adk-samples agents (``*.session.json``, snake_case, as ``model_dump(exclude_none=True)``
writes them) and eval sets made from real runs (``*.test.json``, an older release that writes every
``Part`` field, ``null`` for unset). Every count is taken from the raw JSON here, independently of the reader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import _adk, detect_format, read_any
from interlingua.items import RawItem, TextItem, ToolCallItem, ToolResultItem
from interlingua.session_file import read_sessions

ADK = Path(__file__).parents[1] / "fixtures" / "stores" / "adk"
SESSIONS = ["customer_service_123.session.json", "image_search_denim_skirt.session.json"]
EVAL_SETS = ["travel_concierge_inspire.test.json", "travel_concierge_pretrip.test.json"]


def load(name: str) -> Any:
    return json.loads((ADK / name).read_text())


def _parts(content: Any) -> list[dict[str, Any]]:
    return [p for p in (content or {}).get("parts") or [] if isinstance(p, dict)]


def _count_parts(parts: list[dict[str, Any]], want: dict[str, list[Any]]) -> None:
    for p in parts:
        if p.get("text") is not None and not p.get("thought"):
            want["texts"].append(p["text"])
        if p.get("function_call") is not None:
            want["calls"].append((p["function_call"]["name"], p["function_call"].get("args") or {}))
        if p.get("function_response") is not None:
            want["results"].append(p["function_response"]["name"])


def session_counts(session: dict[str, Any]) -> dict[str, list[Any]]:
    want: dict[str, list[Any]] = {"texts": [], "calls": [], "results": [], "bare": []}
    for event in session["events"]:
        parts = _parts(event.get("content"))
        if not parts:
            want["bare"].append(event["id"])  # a state change, a transfer: no content
        _count_parts(parts, want)
    return want


def case_counts(case: dict[str, Any]) -> dict[str, list[Any]]:
    want: dict[str, list[Any]] = {"texts": [], "calls": [], "results": [], "bare": []}
    for inv in case["conversation"]:
        _count_parts(_parts(inv.get("user_content")), want)
        data = inv.get("intermediate_data") or {}
        for use in data.get("tool_uses") or []:
            want["calls"].append((use["name"], use.get("args") or {}))
        for response in data.get("tool_responses") or []:
            want["results"].append(response["name"])
        for _author, parts in data.get("intermediate_responses") or []:
            _count_parts([p for p in parts if isinstance(p, dict)], want)
        _count_parts(_parts(inv.get("final_response")), want)
    return want


def check(items: list[Any], want: dict[str, list[Any]]) -> None:
    texts = [i.text for i in items if isinstance(i, TextItem)]
    calls = [(i.name, i.arguments) for i in items if isinstance(i, ToolCallItem)]
    results = [i for i in items if isinstance(i, ToolResultItem)]
    raws = [i for i in items if isinstance(i, RawItem)]
    assert texts == want["texts"]
    assert calls == want["calls"]
    assert [r.name for r in results] == want["results"]
    ids = {i.id for i in items if isinstance(i, ToolCallItem)}
    assert all(r.call_id in ids for r in results)  # every result answers a call of the session
    assert len(raws) == len(want["bare"]) and all(r.provider == "adk" for r in raws)
    assert len(items) == len(texts) + len(calls) + len(results) + len(raws)  # nothing else, nothing lost


@pytest.mark.parametrize("name", SESSIONS)
def test_real_sessions_are_read_whole(name: str) -> None:
    session = load(name)
    assert detect_format(session) == "adk"
    migrated = read_any(session)
    want = session_counts(session)
    assert want["texts"] and want["calls"] and want["results"]
    check(migrated.transcript.items, want)
    assert migrated.source_session_id == session["id"]
    kept = migrated.transcript.metadata["adk"]
    assert kept["app_name"] == session["app_name"] and kept["user_id"] == session["user_id"] and kept["state"] == session["state"]
    # the event's own fields stay on its first item, its id is the message key
    first = next(i for i in migrated.transcript.items if not isinstance(i, RawItem))
    event = next(e for e in session["events"] if _parts(e.get("content")))
    assert first.message == event["id"]
    assert first.metadata["adk"]["author"] == event["author"] and first.metadata["adk"]["timestamp"] == event["timestamp"]


def test_a_real_call_keeps_its_adk_id_and_its_result_pairs_by_it() -> None:
    session = load("image_search_denim_skirt.session.json")  # calls with ADK's own ids ("af-...")
    calls = [p["function_call"] for e in session["events"] for p in _parts(e.get("content")) if p.get("function_call")]
    items = read_any(session).transcript.items
    got = [i for i in items if isinstance(i, ToolCallItem)]
    assert [c.id for c in got] == [c["id"] for c in calls]
    results = [i for i in items if isinstance(i, ToolResultItem)]
    answered = [p["function_response"]["id"] for e in session["events"] for p in _parts(e.get("content")) if p.get("function_response")]
    assert [r.call_id for r in results] == answered


def test_calls_without_ids_pair_with_their_responses_in_order() -> None:
    session = load("customer_service_123.session.json")  # an older ADK: calls and responses without ids
    items = read_any(session).transcript.items
    calls = [i for i in items if isinstance(i, ToolCallItem)]
    results = [i for i in items if isinstance(i, ToolResultItem)]
    assert len({c.id for c in calls}) == len(calls) == len(results)
    assert [r.call_id for r in results] == [c.id for c in calls] and [r.name for r in results] == [c.name for c in calls]


@pytest.mark.parametrize("name", EVAL_SETS)
def test_real_eval_sets_with_null_part_fields_keep_every_text(name: str) -> None:
    """An older ADK wrote every Part field (``"video_metadata": null, ..., "text": "..."``): each text was
    kept as a raw part (the user's "Inspire me about the Americas" among them), with no report entry."""
    evalset = load(name)
    assert detect_format(evalset) == "adk"
    (case,) = _adk.split(evalset)
    migrated = read_any(case)
    want = case_counts(evalset["eval_cases"][0])
    assert want["texts"] and want["calls"]
    check(migrated.transcript.items, want)
    assert not any(isinstance(i, RawItem) for i in migrated.transcript.items)
    kept = migrated.transcript.metadata["adk"]
    assert kept["session_input"] == evalset["eval_cases"][0]["session_input"]
    assert kept["eval_set"]["eval_set_id"] == evalset["eval_set_id"]


def test_nulls_inside_call_arguments_are_the_callers_data() -> None:
    part = {"function_call": {"id": None, "name": "f", "args": {"x": None}}, "text": None}
    assert _adk.unset_nulls(part) == {"function_call": {"name": "f", "args": {"x": None}}}


def test_migrate_a_folder_of_real_adk_files(tmp_path: Path) -> None:
    folder = tmp_path / "adk"
    folder.mkdir()
    for name in SESSIONS + EVAL_SETS:
        (folder / name).write_bytes((ADK / name).read_bytes())
    out = tmp_path / "adk.jsonl"
    res = CliRunner().invoke(app, ["migrate", str(folder), "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    with open(out, "rb") as fh:
        got = {b.session_id: b for b in read_sessions(fh)}
    assert len(got) == 4  # two sessions (their own ids), one conversation per eval case
    for name in SESSIONS:
        session = load(name)
        want = session_counts(session)
        check([e.item for e in got[session["id"]].envelopes], want)


def test_a_part_the_gemini_reader_keeps_raw_is_reported() -> None:
    session = load("customer_service_123.session.json")
    session["events"][0]["content"]["parts"].append({"executable_code": {"code": "print(1)", "language": "PYTHON"}})
    migrated = read_any(session)
    raws = [i for i in migrated.transcript.items if isinstance(i, RawItem)]
    assert [r.value for r in raws] == [{"executableCode": {"code": "print(1)", "language": "PYTHON"}}]
    assert any("1 part(s) kept as raw gemini items" in str(e) for e in migrated.report)


LEGACY = ["customer_service_full_conversation.test.json", "data_science_simple.test.json"]


@pytest.mark.parametrize("name", LEGACY)
def test_real_files_of_the_first_eval_data_format(name: str) -> None:
    """ADK's first ``*.test.json`` format (a list of ``{query, expected_tool_use, reference}`` turns), still
    committed by many adk-samples agents: refused before ("some messages have no 'role'"), read now as the eval
    case ADK itself migrates it to."""
    turns = load(name)
    assert detect_format(turns) == "adk"
    migrated = read_any(turns)
    want: dict[str, list[Any]] = {"texts": [], "calls": [], "results": [], "bare": []}
    for turn in turns:
        want["texts"].append(turn["query"])
        want["calls"].extend((u["tool_name"], u.get("tool_input") or {}) for u in turn["expected_tool_use"])
        want["texts"].extend(r["text"] for r in turn.get("expected_intermediate_agent_responses") or [])
        want["texts"].append(turn["reference"])
    assert want["calls"]
    check(migrated.transcript.items, want)
    roles = [i.role for i in migrated.transcript.items if isinstance(i, TextItem)]
    assert roles == ["user", "assistant"] * len(turns)
