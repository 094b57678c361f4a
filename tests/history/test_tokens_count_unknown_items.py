"""Issue 32: token counting (the fingerprints of request prefixes that reported usage seeds) on a
transcript holding an item of a type this version does not know (kept as read, preserving mode) and
``responses``: counted from the item's own JSON, never ``TypeError: Encoding objects of type
UnknownItem is unsupported``."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.history import count_tokens
from interlingua.history._tokens import prefix_fingerprints

ISSUE = {
    "schema_version": "1.0",
    "items": [{"type": "zz", "text": "Q", "role": "user"}, {"type": "text", "text": "A", "role": "assistant"}],
    "responses": [{"item": 1, "stop_reason": {"reason": "end_turn"}}],
}


def test_the_issue_case_is_trimmed(tmp_path: Path) -> None:
    src = tmp_path / "x.json"
    src.write_text(json.dumps(ISSUE))
    out = tmp_path / "o.json"
    result = CliRunner().invoke(app, ["trim", str(src), "--max-input-tokens", "300", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["items"] == ISSUE["items"]  # the unknown item kept as read


def test_an_unknown_item_counts_by_its_json() -> None:
    small = decode_transcript(json.dumps(ISSUE).encode())
    big = dict(ISSUE, items=[{"type": "zz", "text": "Q " * 400, "role": "user"}, ISSUE["items"][1]])
    larger = decode_transcript(json.dumps(big).encode())
    assert count_tokens(larger).input_tokens > count_tokens(small).input_tokens


_unknown = st.fixed_dictionaries({"type": st.sampled_from(["zz", "future_kind"]), "payload": st.text(max_size=20)})
_text = st.fixed_dictionaries({"type": st.just("text"), "text": st.text(min_size=1, max_size=20), "role": st.sampled_from(["user", "assistant"])})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_unknown, _text), min_size=1, max_size=6))
def test_prefix_fingerprints_of_any_mix(items: list[dict[str, object]]) -> None:
    doc = {"schema_version": "1.0", "items": items, "responses": [{"item": len(items) - 1, "stop_reason": {"reason": "end_turn"}}]}
    transcript = decode_transcript(json.dumps(doc).encode())
    prints = prefix_fingerprints(transcript)
    assert len(prints) == len(items) + 1
    again = decode_transcript(json.dumps(doc).encode())
    assert prefix_fingerprints(again) == prints  # equal prefixes, equal prints
    count_tokens(transcript)
