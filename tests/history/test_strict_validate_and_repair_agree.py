"""``validate --strict`` and ``repair`` / ``convert`` act on the same breaks: one scanner
(:class:`interlingua.history.IntegrityScanner`) decides both, so a history ``validate --strict``
passes is one ``repair`` leaves alone, and what ``repair`` writes passes ``validate --strict``.

A new user found a call without a result, followed by the assistant's text, that ``repair`` and
``convert`` acted on while ``validate --strict`` passed it (it counted as *pending*, awaiting its
result at the end); and ``validate --strict`` hid an empty text when an unknown item was in the same
document. Both are cases here, beside hypothesis-made histories and real request histories cut after a
call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua import convert_request, repair
from interlingua.cli import app
from interlingua.codec import decode_transcript, encode_transcript
from interlingua.history import RULES, check_history
from interlingua.items import ToolCallItem, ToolResultItem, Transcript
from interlingua.validation import validate_document_bytes

REAL = Path(__file__).parent.parent / "fixtures" / "real"
runner = CliRunner()


def _strict(doc: dict[str, Any]) -> list[str]:
    """Every problem and warning ``validate --strict`` gives for ``doc``."""
    result = validate_document_bytes(json.dumps(doc).encode(), mode="strict")
    return [f"{p.pointer}: {p.message}" for p in (*result.problems, *result.warnings)]


def _integrity(doc: dict[str, Any]) -> list[str]:
    return [e for e in _strict(doc) if any(f"[{r}]" in e for r in RULES) or "duplicate item id" in e or "is not an earlier" in e]


def _doc(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"schema_version": "1.0", "items": items}


# --------------------------------------------------------------------------- the new user's cases


def test_a_call_the_assistant_went_on_after_is_flagged_by_strict_and_repaired_the_same(tmp_path: Path) -> None:
    items = [
        {"type": "text", "role": "user", "text": "What is the weather in Paris?"},
        {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "text", "role": "assistant", "text": "It is sunny."},
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_doc(items)))
    checked = runner.invoke(app, ["validate", "--strict", str(path)])
    assert checked.exit_code == 1, checked.output
    assert "/items/1: tool_call 'call_1' has no result, and the assistant went on after it (item 2)" in checked.output
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 0  # a warning without --strict
    for argv in (["repair", "--open-end", str(path)], ["repair", str(path)]):
        fixed = runner.invoke(app, argv)
        assert fixed.exit_code == 0, fixed.output
        assert "added a stub result" in fixed.stderr
        out = tmp_path / "r.json"
        out.write_text(fixed.stdout)
        assert runner.invoke(app, ["validate", "--strict", str(out)]).exit_code == 0


def test_a_call_at_the_very_end_is_still_pending() -> None:
    """What the rule keeps: a stored session in progress ends in its calls (reasoning before them)."""
    items = [
        {"type": "text", "role": "user", "text": "weather?"},
        {"type": "text", "role": "assistant", "text": "Let me look."},
        {"type": "reasoning", "text": "need the tool"},
        {"type": "tool_call", "id": "a", "name": "f", "arguments": {}},
        {"type": "tool_call", "id": "b", "name": "f", "arguments": {}},
    ]
    assert _integrity(_doc(items)) == []
    t = decode_transcript(json.dumps(_doc(items)).encode())
    assert not repair(t, open_end=True).report


def test_a_result_after_the_text_that_followed_its_call_is_in_turn() -> None:
    """An Anthropic assistant message may hold text after a ``tool_use``: its result in the next
    message is in turn (nothing flags it)."""
    items = [
        {"type": "text", "role": "user", "text": "weather?"},
        {"type": "tool_call", "id": "a", "name": "f", "arguments": {}},
        {"type": "text", "role": "assistant", "text": "Looking it up."},
        {"type": "tool_result", "call_id": "a", "content": [{"type": "text", "text": "sunny"}]},
    ]
    assert _integrity(_doc(items)) == []


def test_strict_reports_empty_text_beside_an_unknown_item(tmp_path: Path) -> None:
    doc = _doc([
        {"type": "text", "role": "user", "text": "hi"},
        {"type": "x_future_item", "data": 1},
        {"type": "text", "role": "assistant", "text": "  "},
    ])
    found = _strict(doc)
    assert any("unknown item type 'x_future_item'" in e for e in found), found
    assert "/items/2: text item holds no visible text [empty_text]" in found
    path = tmp_path / "u.json"
    path.write_text(json.dumps(doc))
    checked = runner.invoke(app, ["validate", "--strict", str(path)])
    assert checked.exit_code == 1 and "[empty_text]" in checked.output and "2 errors" in checked.output, checked.output


def test_strict_reports_a_dangling_call_beside_an_unknown_item() -> None:
    """Only unknown types failed: the unknown item is neutral, as the preserving reader keeps it."""
    doc = _doc([
        {"type": "text", "role": "user", "text": "hi"},
        {"type": "tool_call", "id": "a", "name": "f", "arguments": {}},
        {"type": "x_future_item"},
        {"type": "text", "role": "user", "text": "and?"},
    ])
    assert any("[dangling_call]" in e for e in _strict(doc))


def test_an_item_that_fails_its_schema_makes_no_partner_look_broken() -> None:
    """A tool result refused by the schema (``content`` not a list) must not make its call look
    dangling: only the one-item rules are reported beside it."""
    doc = _doc([
        {"type": "text", "role": "user", "text": "hi"},
        {"type": "tool_call", "id": "a", "name": "f", "arguments": {}},
        {"type": "tool_result", "call_id": "a", "content": 5},
        {"type": "text", "role": "user", "text": " "},
    ])
    found = _strict(doc)
    assert not [e for e in found if "[dangling_call]" in e], found
    assert "/items/3: text item holds no visible text [empty_text]" in found


def test_strict_jsonl_reports_empty_text_beside_an_unknown_item(tmp_path: Path) -> None:
    lines = [
        {"schema_version": "1.0", "session_id": "s", "seq": 0, "item": {"type": "text", "role": "user", "text": "hi"}},
        {"schema_version": "1.0", "session_id": "s", "seq": 1, "item": {"type": "x_future_item"}},
        {"schema_version": "1.0", "session_id": "s", "seq": 2, "item": {"type": "text", "role": "assistant", "text": ""}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    checked = runner.invoke(app, ["validate", "--strict", str(path)])
    assert checked.exit_code == 1 and "[empty_text]" in checked.output, checked.output


# --------------------------------------------------------------------------- many histories


def _item(kind: str, ref: int) -> dict[str, Any]:
    cid = f"c{ref}"
    return {
        "user": {"type": "text", "role": "user", "text": "question"},
        "say": {"type": "text", "role": "assistant", "text": "answer"},
        "empty": {"type": "text", "role": "assistant", "text": " "},
        "think": {"type": "reasoning", "text": "thinking"},
        "refuse": {"type": "refusal", "text": "no"},
        "call": {"type": "tool_call", "id": cid, "name": "f", "arguments": {}},
        "result": {"type": "tool_result", "call_id": cid, "content": [{"type": "text", "text": "ok"}]},
        "error": {"type": "error", "code": "server", "message": "boom"},
    }[kind]


HISTORIES = st.lists(
    st.tuples(st.sampled_from(["user", "say", "empty", "think", "refuse", "call", "call", "result", "result", "error"]), st.integers(0, 3)),
    max_size=14,
).map(lambda xs: _doc([_item(k, r) for k, r in xs]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HISTORIES)
def test_strict_validate_and_repair_agree(doc: dict[str, Any]) -> None:
    """``validate --strict`` finds a break exactly when ``repair --open-end`` changes something, and
    what ``repair`` writes (stored session or request) passes ``validate --strict``."""
    t = decode_transcript(json.dumps(doc).encode())
    stored = repair(t, policy="degrade", open_end=True)
    assert bool(_integrity(doc)) == bool(stored.report), (_integrity(doc), [str(e) for e in stored.report])
    assert bool(check_history(t.items)) == bool(stored.report)
    for policy in ("degrade", "drop"):
        for open_end in (True, False):
            fixed = repair(t, policy=policy, open_end=open_end).value  # type: ignore[arg-type]
            out = json.loads(encode_transcript(fixed))
            assert _integrity(out) == [], (policy, open_end, _integrity(out))
            assert not check_history(fixed.items, open_end=False) or open_end


def _answered_bodies() -> list[tuple[str, Path]]:
    out = []
    for folder, fmt in {"anthropic": "anthropic", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "gemini": "gemini"}.items():
        for path in sorted((REAL / folder).glob("*.request.json")):
            t = convert_request(json.loads(path.read_text()), source=fmt, target="canonical").value
            kinds = [i["type"] for i in t["items"]]
            if "tool_call" in kinds and "tool_result" in kinds:
                out.append((fmt, path))
    return out


ANSWERED = _answered_bodies()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ANSWERED), st.data())
def test_real_histories_cut_after_a_call_agree(case: tuple[str, Path], data: st.DataObject) -> None:
    """Real histories with a call's result replaced by assistant text (the new user's shape) or cut
    after a call: ``validate --strict`` flags exactly what ``repair --open-end`` repairs."""
    fmt, path = case
    t = decode_transcript(json.dumps(convert_request(json.loads(path.read_text()), source=fmt, target="canonical").value).encode())
    results = [n for n, i in enumerate(t.items) if isinstance(i, ToolResultItem)]
    at = data.draw(st.sampled_from(results))
    from interlingua.items import TextItem

    shape = data.draw(st.sampled_from(["text", "cut"]))
    items = list(t.items[:at]) + ([TextItem(text="Done.", role="assistant")] if shape == "text" else [])
    cut = Transcript(schema_version=t.schema_version, items=items)
    doc = json.loads(encode_transcript(cut))
    stored = repair(cut, open_end=True)
    assert bool(_integrity(doc)) == bool(stored.report), (_integrity(doc), [str(e) for e in stored.report])
    call_id = t.items[at].call_id  # type: ignore[attr-defined]
    if shape == "text" and not any(isinstance(i, ToolResultItem) and i.call_id == call_id for i in items):
        assert any(f"{call_id!r} has no result" in e and "[dangling_call]" in e for e in _integrity(doc)), _integrity(doc)
    assert _integrity(json.loads(encode_transcript(stored.value))) == []
