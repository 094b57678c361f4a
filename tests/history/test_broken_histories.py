"""Real histories broken the ways users break them (a crash after a call, truncation mid-pair, a reused
call id), cut from the real request fixtures: validate reports them, convert and the Client refuse
them under ``error``, repair/convert fix them under ``drop``/``degrade`` into bodies the providers'
SDK types accept, and repair is idempotent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua import IntegrityError, convert_request, repair
from interlingua.codec import decode_transcript, encode_transcript
from interlingua.errors import CapabilityError, ConversionError
from interlingua.history import NO_RESULT_TEXT, check_history
from interlingua.items import ToolCallItem, ToolResultItem, Transcript
from interlingua.validation import validate_document_bytes
from tests.sdk_oracle.bodies import MODELS, decoded_request, request_fixtures
from tests.sdk_oracle.oracle import TARGETS, check_request

# Real request fixtures whose history holds at least one answered tool call.
PAIRED = [
    (src, p)
    for src, p in request_fixtures()
    if any(isinstance(i, ToolResultItem) for i in decoded_request(src, p).items) and any(isinstance(i, ToolCallItem) for i in decoded_request(src, p).items)
]


def _ids(case: tuple[str, Path]) -> str:
    return f"{case[1].parent.name}/{case[1].name}"


def crash_after_call(t: Transcript) -> Transcript:
    """The session as a crash leaves it: cut right after the last tool call (its result never stored)."""
    last = max(i for i, it in enumerate(t.items) if isinstance(it, ToolCallItem))
    return msgspec.structs.replace(t, items=t.items[: last + 1])


def truncated_mid_pair(t: Transcript) -> Transcript:
    """A history trimmed from the front by count, cutting between the first call and its result."""
    first = min(i for i, it in enumerate(t.items) if isinstance(it, ToolCallItem))
    return msgspec.structs.replace(t, items=t.items[first + 1 :])


def result_lost(t: Transcript) -> Transcript:
    """The first tool result lost and the conversation continued after it (a user turn added)."""
    from interlingua.items import TextItem

    first = min(i for i, it in enumerate(t.items) if isinstance(it, ToolResultItem))
    return msgspec.structs.replace(t, items=[*t.items[:first], *t.items[first + 1 :], TextItem(text="and then?", role="user")])


def reused_id(t: Transcript) -> Transcript:
    """The last answered call stored twice in its turn with the same id (a retried call written twice),
    its one result after them. (A call id reused by calls each answered in its own turn is sent as it
    is: providers pair a call with the result right after it.)"""
    res = max(i for i, it in enumerate(t.items) if isinstance(it, ToolResultItem))
    at = next(i for i, it in enumerate(t.items) if isinstance(it, ToolCallItem) and it.id == t.items[res].call_id)
    return msgspec.structs.replace(t, items=[*t.items[: at + 1], t.items[at], *t.items[at + 1 :]])


def with_tools(t: Transcript) -> Transcript:
    """``t`` with a definition for each tool it calls, when it has none."""
    if t.tools:
        return t
    from interlingua.items import ToolDefinition

    names = sorted({i.name for i in t.items if isinstance(i, ToolCallItem)})
    return msgspec.structs.replace(t, tools=[ToolDefinition(name=n, parameters={"type": "object"}) for n in names])


DEFECTS: dict[str, tuple[Callable[[Transcript], Transcript], str]] = {
    "crash_after_call": (crash_after_call, "dangling_call"),
    "truncated_mid_pair": (truncated_mid_pair, "orphan_result"),
    "result_lost": (result_lost, "dangling_call"),
    "reused_id": (reused_id, "duplicate_call_id"),
}


def test_there_are_real_fixtures_to_cut() -> None:
    assert len(PAIRED) >= 5
    assert {src for src, _ in PAIRED} >= {"anthropic", "openai-chat", "openai-responses", "gemini"}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("case", PAIRED, ids=_ids)
def test_defect_is_found_refused_and_repaired(case: tuple[str, Path], defect: str) -> None:
    source, path = case
    cut, rule = DEFECTS[defect]
    broken = cut(decoded_request(source, path))
    found = {f.rule for f in check_history(broken.items, open_end=False)}
    assert rule in found
    # validate reports it: as an error (orphan result, reused id) or as an integrity warning
    result = validate_document_bytes(encode_transcript(broken))
    reported = [p.message for p in result.problems + result.warnings]
    if defect == "crash_after_call":
        # a stored session may end in a call awaiting its result: not a problem in the store ...
        assert not any("dangling_call" in m for m in reported)
    else:
        assert reported, f"validate said nothing about {defect}"
    # ... but it is not sendable: convert refuses under error (given the tool definitions, so that
    # nothing else refuses first)
    with pytest.raises(IntegrityError) as err:
        convert_request(with_tools(broken), source="canonical", target="anthropic", model=MODELS["anthropic"], policy="error")
    assert rule in str(err.value)
    for policy in ("drop", "degrade"):
        fixed = repair(broken, policy)  # type: ignore[arg-type]
        assert fixed.report, "every change is reported"
        assert check_history(fixed.value.items, open_end=False) == []
        assert not repair(fixed.value, policy).report, "repair is idempotent"  # type: ignore[arg-type]
        assert validate_document_bytes(encode_transcript(fixed.value)).ok
        assert broken.items == cut(decoded_request(source, path)).items, "the input is not mutated"


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("case", PAIRED, ids=_ids)
def test_repaired_bodies_pass_every_sdk(case: tuple[str, Path], defect: str) -> None:
    source, path = case
    broken = DEFECTS[defect][0](decoded_request(source, path))
    written = empty = 0
    for policy in ("drop", "degrade"):
        for target in TARGETS:
            try:
                out = convert_request(broken, source="canonical", target=target, model=MODELS[target], policy=policy)
            except (CapabilityError, ConversionError) as exc:
                assert not isinstance(exc, IntegrityError), exc
                empty += "nothing to send" in str(exc)
                continue  # what the target model cannot take at all (e.g. parallel calls): refused with the reason
            # the repaired body is accepted wherever the unbroken history's body is (a few recorded
            # corpus bodies carry shapes of their own that the mapper keeps; not this rule's business)
            try:
                base = check_request(target, convert_request(decoded_request(source, path), source="canonical", target=target, model=MODELS[target], policy=policy).value)
            except (CapabilityError, ConversionError):
                base = []
            assert set(check_request(target, out.value)) <= set(base), (target, policy)
            assert any("no result" in str(e) or "already used" in str(e) or "not an earlier" in str(e) for e in out.report), out.report
            written += 1
    # or the cut left one unpaired item (a call without its result, a result without its call): repaired
    # away, nothing is left, and every target refuses to send an empty request (not an integrity error)
    assert written >= 6 or (empty == 2 * len(TARGETS) and len(broken.items) == 1), (written, empty)


def test_degrade_stub_says_no_result_was_recorded() -> None:
    source, path = next(c for c in PAIRED if c[0] == "anthropic")
    broken = crash_after_call(decoded_request(source, path))
    fixed = repair(broken, "degrade").value
    stub = fixed.items[-1]
    assert isinstance(stub, ToolResultItem) and stub.is_error is True
    assert stub.call_id == broken.items[-1].id and stub.content[0].text == NO_RESULT_TEXT  # type: ignore[union-attr]
    assert stub.name == broken.items[-1].name  # type: ignore[union-attr]


def test_reused_id_is_renamed_on_call_and_result_under_degrade() -> None:
    source, path = PAIRED[0]
    broken = reused_id(decoded_request(source, path))
    fixed = repair(broken, "degrade").value
    calls = [i.id for i in fixed.items if isinstance(i, ToolCallItem)]
    assert len(calls) == len(set(calls)) == len([i for i in broken.items if isinstance(i, ToolCallItem)])
    renamed = calls[-1]
    assert fixed.items[-1].call_id == renamed  # type: ignore[union-attr]


def test_the_issue_case_a_history_ending_in_a_call_is_not_sent_to_anthropic() -> None:
    """The Client refuses it before anything is built or sent (Anthropic answers 400: "tool_use ids were
    found without tool_result blocks immediately after")."""
    from interlingua.transport import Client

    source, path = next(c for c in PAIRED if c[0] == "anthropic")
    broken = crash_after_call(decoded_request(source, path))

    async def run() -> Any:
        async with Client("anthropic", api_key="sk-test", base_url="http://127.0.0.1:9") as client:
            with pytest.raises(IntegrityError):
                client.generate(broken, model="claude-sonnet-4-5")
            gen = client.generate(broken, model="claude-sonnet-4-5", policy="degrade")
            return gen

    gen = asyncio.run(run())
    assert gen is not None


def test_convert_reports_every_repair_with_input_indices() -> None:
    source, path = next(c for c in PAIRED if c[0] == "openai-chat")
    broken = result_lost(decoded_request(source, path))
    out = convert_request(broken, source="canonical", target="openai-chat", model="gpt-4.1", policy="drop")
    entries = [e for e in out.report if e.pointer and e.pointer.startswith("/items/")]
    dropped = {e.index for e in entries if e.action == "dropped"}
    assert dropped, out.report
    assert all(isinstance(broken.items[i], ToolCallItem) for i in dropped if i is not None and "tool_call" in str(broken.items[i].__struct_config__.tag))


def test_session_file_repair_keeps_usage_and_renumbers(tmp_path: Path) -> None:
    from interlingua.history._files import repair_session_file
    from interlingua.items import Envelope, Usage
    from interlingua.session_file import read_sessions

    source, path = next(c for c in PAIRED if c[0] == "anthropic")
    broken = result_lost(decoded_request(source, path))
    lines = []
    for seq, item in enumerate(broken.items):
        env = Envelope(schema_version="1.0", session_id="s1", seq=seq, item=item)
        if isinstance(item, ToolCallItem):
            env.usage = Usage(input_tokens=100 + seq, output_tokens=5)
        lines.append(msgspec.json.encode(env) + b"\n")
    data = b"".join(lines)
    out, repairs = repair_session_file(data, policy="degrade")
    assert repairs[0].report and repairs[0].items_out == repairs[0].items_in + 1
    (block,) = read_sessions(__import__("io").BytesIO(out))
    assert [e.seq for e in block.envelopes] == list(range(len(block.envelopes)))
    assert sum(e.usage is not msgspec.UNSET for e in block.envelopes) == sum(isinstance(i, ToolCallItem) for i in broken.items)
    again, second = repair_session_file(out, policy="degrade")
    assert again == out and not second[0].report


def test_documents_round_trip_through_decode() -> None:
    source, path = PAIRED[0]
    broken = truncated_mid_pair(decoded_request(source, path))
    assert decode_transcript(encode_transcript(broken)).items == broken.items


def test_repair_over_a_whole_store_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from interlingua.cli import app
    from interlingua.items import Envelope
    from interlingua.validation import validate_path

    source, path = next(c for c in PAIRED if c[0] == "anthropic")
    lines = []
    for sid, t in (("crashed", crash_after_call(decoded_request(source, path))), ("lost", result_lost(decoded_request(source, path)))):
        lines += [msgspec.json.encode(Envelope(schema_version="1.0", session_id=sid, seq=n, item=i)) + b"\n" for n, i in enumerate(t.items)]
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(lines))
    url = str(tmp_path / "s.sqlite3")
    runner = CliRunner()
    assert runner.invoke(app, ["store", "import", "--url", url, str(src)]).exit_code == 0
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["repair", "--store", url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 of 2 session(s)" in result.stderr
    assert validate_path([str(out)]).ok
    from interlingua.session_file import read_sessions

    for block in read_sessions(out):
        assert check_history([e.item for e in block.envelopes], open_end=False) == []
    # the store is unchanged: repairing it again reports the same changes
    again = runner.invoke(app, ["repair", "--store", url, "--session", "crashed"])
    assert again.exit_code == 0 and "crashed: degraded" in again.stderr
    assert runner.invoke(app, ["repair", "--store", url, str(src)]).exit_code == 2


def test_what_providers_accept_is_not_refused_at_send() -> None:
    """Seen in recorded requests the providers accepted (pydantic-ai corpus): a call id reused by calls
    each answered in its own turn (Anthropic, tool search), and empty text parts (Gemini, OpenAI
    Responses). validate and repair flag them; convert sends them (each mapper applies its own
    empty-text rule)."""
    from interlingua.items import TextItem, ToolDefinition

    items = [
        TextItem(text="Can I get a refund on order-123?", role="user"),
        ToolCallItem(id="0usajhl5", name="load_capability", arguments={"id": "refunds"}),
        ToolResultItem(call_id="0usajhl5", content=[TextItem(text="use the refund tool")]),
        ToolCallItem(id="0usajhl5", name="search_tools", arguments={"queries": ["lookup_refund_policy"]}),
        ToolResultItem(call_id="0usajhl5", content=[TextItem(text="lookup_refund_policy")]),
        TextItem(text="Yes.", role="assistant"),
        TextItem(text="", role="user"),
        TextItem(text="And order-456?", role="user"),
    ]
    tools = [ToolDefinition(name=n, parameters={"type": "object"}) for n in ("load_capability", "search_tools")]
    t = Transcript(schema_version="1.0", items=items, tools=tools)  # type: ignore[arg-type]
    assert {f.rule for f in check_history(t.items, open_end=False)} == {"duplicate_call_id", "empty_text"}
    out = convert_request(t, source="canonical", target="openai-chat", model="gpt-4.1", policy="error")
    assert [m.get("tool_call_id") for m in out.value["messages"] if m["role"] == "tool"] == ["0usajhl5", "0usajhl5"]
    assert not validate_document_bytes(encode_transcript(t)).ok  # ids are unique in a canonical transcript
    fixed = repair(t, "degrade")
    assert check_history(fixed.value.items, open_end=False) == []
