"""The pytest plugin and the syrupy extension, used from a separate test project as a user would."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PLUGIN = "interlingua.testing.pytest_plugin"

GOOD = {"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "hi"}]}


def test_entry_point_is_declared_in_pyproject() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry_points = data["project"]["entry-points"]["pytest11"]
    assert PLUGIN in entry_points.values()
    module, _, attr = entry_points[PLUGIN].partition(":")
    assert module == PLUGIN and attr == ""


def test_assert_valid_transcript_passes_and_fails_with_item_and_pointer(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user="""
        import json
        from interlingua.items import TextItem, Transcript

        GOOD = {"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "hi"}]}
        ORPHAN = {"schema_version": "1.0", "items": [
            {"type": "text", "role": "user", "text": "hi"},
            {"type": "tool_result", "call_id": "call_9", "content": [{"type": "text", "text": "42"}]},
        ]}

        def test_good_dict(assert_valid_transcript):
            assert_valid_transcript(GOOD)

        def test_good_struct(assert_valid_transcript):
            assert_valid_transcript(Transcript(schema_version="1.0", items=[TextItem(role="user", text="x")]))

        def test_good_path(assert_valid_transcript, tmp_path):
            p = tmp_path / "t.json"
            p.write_text(json.dumps(GOOD))
            assert_valid_transcript(p)

        def test_orphan_result(assert_valid_transcript):
            assert_valid_transcript(ORPHAN)

        def test_wrong_type_from_path(assert_valid_transcript, tmp_path):
            p = tmp_path / "bad.json"
            p.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": 3}]}))
            assert_valid_transcript(str(p))

        def test_unknown_item_strict(assert_valid_transcript):
            doc = {"schema_version": "1.0", "items": [{"type": "hologram", "role": "user"}]}
            assert_valid_transcript(doc)  # preserving: kept
            assert_valid_transcript(doc, strict=True)
        """
    )
    result = pytester.runpytest("-p", PLUGIN, "-q")
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*item 1 (tool_result) at /items/1/call_id: tool_result refers to 'call_9'*",
            "*item 0 (text) at /items/0/text: 3 is not of type 'string'*bad.json*",
            "*item 0 (hologram) at /items/0*",
        ]
    )


def test_direct_import_works_without_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from interlingua.testing import assert_valid_transcript, TranscriptAssertionError

        def test_it():
            with pytest.raises(TranscriptAssertionError) as info:
                assert_valid_transcript({"schema_version": "1.0", "items": [{"type": "text", "text": "no role"}]})
            assert info.value.problems and info.value.problems[0].pointer.startswith("/items/0")
        """
    )
    pytester.runpytest("-q").assert_outcomes(passed=1)


SNAPSHOT_TEST = """
import datetime, uuid
from interlingua.items import TextItem, ToolCallItem, ToolResultItem, Transcript, Origin
from interlingua.testing.snapshot import TranscriptSnapshotExtension

RUN = uuid.uuid4().hex[:8]

def conversation(text="Paris"):
    call = "call_" + RUN
    return Transcript(schema_version="1.0", items=[
        TextItem(role="user", text="weather in " + text + "? ünïcode"),
        ToolCallItem(id=call, name="get_weather", arguments={"city": text}, origin=Origin(provider="openai-chat", response_id="chatcmpl-" + RUN)),
        ToolResultItem(call_id=call, content=[TextItem(text="sunny")]),
    ], metadata={"created_at": datetime.datetime.now().isoformat()})

def test_plain(snapshot):
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="fixed ✓")])
    assert t == snapshot(extension_class=TranscriptSnapshotExtension)

def test_normalized(transcript_snapshot):
    assert conversation(TEXT) == transcript_snapshot
"""


def test_transcript_snapshots_are_stable_readable_json(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_snap=SNAPSHOT_TEST.replace("TEXT", '"Paris"'))
    pytester.runpytest("-p", PLUGIN, "-q", "--snapshot-update").assert_outcomes(passed=2)
    files = sorted(p for p in pytester.path.rglob("__snapshots__/**/*.json"))
    assert [p.name for p in files] == ["test_normalized.json", "test_plain.json"]
    normalized = files[0].read_text(encoding="utf-8")
    data = json.loads(normalized)
    assert data["items"][1]["id"] == "<call-1>" and data["items"][2]["call_id"] == "<call-1>"
    assert data["items"][1]["origin"]["response_id"] == "<response-1>"
    assert data["metadata"]["created_at"] == "<timestamp>"
    assert "ünïcode" in normalized and '\n  "items": [' in normalized
    assert json.loads(files[1].read_text(encoding="utf-8"))["items"] == [{"role": "user", "text": "fixed ✓", "type": "text"}]
    # a second run with new random ids and a new time still matches
    pytester.runpytest("-p", PLUGIN, "-q").assert_outcomes(passed=2)
    # a real change is caught
    pytester.makepyfile(test_snap=SNAPSHOT_TEST.replace("TEXT", '"Rome"'))
    result = pytester.runpytest("-p", PLUGIN, "-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*Rome*"])
