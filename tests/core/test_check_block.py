"""The fused per-block semantic checks of ``validate`` report exactly what the per-line checks report.

``validation._streams._check_block`` proves most items clean without calling :meth:`_CompactChecker.check`
and hands every other item to it. These tests compare it with the careful path (the block
decoder switched off, so each line goes through ``checker.check`` on its own) on every
canonical example item and on items built to break each rule: duplicate ids, ids shared with
call ids, orphan results, tool and handoff ids crossed, missing and nested roles, malformed
arguments, unknown item types, ``seq`` that does not increase, a header naming another session,
many sessions, and tiny state budgets that spill to the temporary database.
"""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua import codec
from interlingua.validation import _streams
from interlingua.codec import _jsonl
from interlingua.validation import validate_jsonl_stream

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [line for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]

_TRICKY = [
    b'{"type":"text","text":"t","role":"user","id":"i1"}',
    b'{"type":"text","text":"t","role":"assistant","id":"c1"}',  # an item id equal to a call id
    b'{"type":"text","text":"no role"}',
    b'{"type":"text","text":"no role","id":"i2"}',
    b'{"type":"tool_call","id":"c1","name":"f","arguments":{}}',
    b'{"type":"tool_call","id":"c2","name":"f","arguments":{"a":1}}',
    b'{"type":"tool_call","id":"c3","name":"f"}',  # neither arguments nor arguments_raw
    b'{"type":"tool_call","id":"c4","name":"f","arguments":{},"arguments_raw":"{"}',  # both
    b'{"type":"tool_call","id":"c5","name":"f","arguments_raw":"{","arguments_error":"bad"}',
    b'{"type":"tool_call","id":"c6","name":"f","arguments":{},"arguments_error":"bad"}',  # error without raw
    b'{"type":"tool_result","call_id":"c1","content":[]}',
    b'{"type":"tool_result","call_id":"c2","id":"r2","content":[{"type":"text","text":"x"}]}',
    b'{"type":"tool_result","call_id":"c1","content":[{"type":"text","text":"x","role":"user"}]}',  # nested role
    b'{"type":"tool_result","call_id":"h1","content":[]}',  # a handoff id is not a tool call
    b'{"type":"tool_result","call_id":"i1","content":[]}',  # an item id is not a tool call
    b'{"type":"tool_result","call_id":"c1","id":"c1","content":[]}',  # its own id is the call id
    b'{"type":"handoff_call","id":"h1","target":"b"}',
    b'{"type":"handoff_result","call_id":"h1","content":[]}',
    b'{"type":"handoff_result","call_id":"c1","content":[]}',  # a tool call id is not a handoff
    b'{"type":"handoff_result","call_id":"h1","content":[{"type":"text","text":"x","role":"user"}]}',
]
# (an unknown item type, or a negative seq, sends the whole block to the line path: not here)


def _line(seq: int, item: bytes, session: str) -> bytes:
    return b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":%s}' % (session.encode(), seq, item)


def _problems(data: bytes, *, block: bool, **budget: int) -> tuple[int, list[tuple[int | None, str, str]], list[tuple[int | None, str, str]]]:
    old_block, old_budget = _jsonl._decode_block, dict(_streams._TABLE_BUDGET)
    if not block:
        _jsonl._decode_block = lambda *args: None
    _streams._TABLE_BUDGET.clear()
    _streams._TABLE_BUDGET.update(budget)
    try:
        r = validate_jsonl_stream(io.BytesIO(data), file="f")
    finally:
        _jsonl._decode_block = old_block  # type: ignore[assignment]
        _streams._TABLE_BUDGET.clear()
        _streams._TABLE_BUDGET.update(old_budget)
    return r.items, [(p.line, p.pointer, p.message) for p in r.problems], [(p.line, p.pointer, p.message) for p in r.warnings]


def _assert_same(data: bytes, **budget: int) -> list[tuple[int | None, str, str]]:
    body = data.split(b"\n", 1)[1] if data.startswith(b'{"schema_version":"1.0","session":') else data
    assert _jsonl._decode_block(body, codec.DEFAULT_LIMITS) is not None  # the fast path really runs
    fast = _problems(data, block=True, **budget)
    assert fast == _problems(data, block=False, **budget)
    return fast[1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(_TRICKY + VALID), st.integers(-1, 2)), min_size=1, max_size=80),
    st.booleans(),
    st.sampled_from([{}, {"max_entries": 2, "max_sessions": 1}, {"max_entries": 3, "max_sessions": 2}, {"max_entries": 1, "max_sessions": 4}]),
)
def test_block_checks_equal_line_checks(lines: list[tuple[int, bytes, int]], header: bool, budget: dict[str, int]) -> None:
    seqs: dict[str, int] = {}
    out = [b'{"schema_version":"1.0","session":{"id":"s0","created_at":"2026-01-01T00:00:00Z"}}'] if header else []
    for s, item, step in lines:
        sid = f"s{s}"
        seqs[sid] = max(0, seqs.get(sid, 0) + step)  # step <= 0: a seq that does not increase
        out.append(_line(seqs[sid], item, sid))
    _assert_same(b"\n".join(out) + b"\n", **budget)


def test_every_rule_fires_in_the_block_path() -> None:
    # one planted fault per rule among clean lines: the fast path must hand each to the checker
    lines = [_line(i, b'{"type":"tool_call","id":"c%d","name":"f","arguments":{}}' % i, "s1") for i in range(200)]
    faults = {
        20: b'{"type":"text","text":"no role"}',
        40: b'{"type":"tool_call","id":"c3","name":"f","arguments":{}}',
        60: b'{"type":"tool_result","call_id":"nope","content":[]}',
        80: b'{"type":"tool_result","call_id":"c1","content":[{"type":"text","text":"x","role":"user"}]}',
        100: b'{"type":"tool_call","id":"x1","name":"f"}',
        120: b'{"type":"tool_call","id":"x2","name":"f","arguments":{},"arguments_raw":"{"}',
        140: b'{"type":"tool_call","id":"x3","name":"f","arguments":{},"arguments_error":"e"}',
        160: b'{"type":"handoff_result","call_id":"c5","content":[]}',
    }
    for n, item in faults.items():
        lines[n] = _line(n, item, "s1")
    lines[180] = _line(170, b'{"type":"text","text":"x","role":"user"}', "s1")
    got = _assert_same(b"\n".join(lines) + b"\n")
    assert [line for line, _p, _m in got] == [21, 41, 61, 81, 101, 121, 141, 161, 181]


def test_integrity_warnings_agree_across_blocks_and_sessions() -> None:
    # the integrity rules are fed inside the block loop: each warning keeps its line, whichever
    # block and session it falls in (a dangling call, a reasoning cut off, an empty text, a result
    # out of its turn, a duplicate result; the pending call at a session's end is no warning)
    turn = [
        b'{"type":"reasoning","text":"r"}',
        b'{"type":"text","text":"q","role":"user"}',
        b'{"type":"tool_call","id":"c1","name":"f","arguments":{}}',
        b'{"type":"text","text":"next","role":"user"}',
        b'{"type":"tool_result","call_id":"c1","content":[]}',
        b'{"type":"text","text":" ","role":"assistant"}',
        b'{"type":"tool_call","id":"c2","name":"f","arguments":{}}',
        b'{"type":"tool_result","call_id":"c2","content":[]}',
        b'{"type":"tool_result","call_id":"c2","content":[]}',
        b'{"type":"tool_call","id":"c3","name":"f","arguments":{}}',
    ]
    lines = [_line(i, item, f"s{s}") for s in range(3000) for i, item in enumerate(turn)]
    data = b"\n".join(lines) + b"\n"
    assert len(data) > 2 * _jsonl._BLOCK_BYTES  # several blocks
    block, line = _problems(data, block=True), _problems(data, block=False)
    assert block == line
    warned = sorted({((n or 0) - 1) % len(turn) for n, _p, _m in block[2]})
    assert warned == [1, 2, 4, 5, 8], block[2][:10]  # (a separated reasoning is located at the item after it)


def test_interleaved_sessions_agree() -> None:
    # many sessions, one after another, every canonical example item in each
    items = [v for v in VALID if b'"role"' in v or b'"tool_call"' in v]
    lines = []
    for s in range(40):
        for i, item in enumerate(items):
            lines.append(_line(i, item.replace(b'"id":"', b'"id":"s%d-' % s), f"sess-{s}"))
    data = b"\n".join(lines) + b"\n"
    assert _problems(data, block=True) == _problems(data, block=False)


def test_a_spill_in_the_middle_of_a_block_keeps_later_ids() -> None:
    # session a outgrows the budget alone: its ids move to the database in the middle of the block;
    # the ids it adds after that must still be found when a comes back after b
    lines = [_line(i, b'{"type":"tool_call","id":"a%d","name":"f","arguments":{}}' % i, "a") for i in range(7)]
    lines.append(_line(0, b'{"type":"text","text":"x","role":"user"}', "b"))
    lines.append(_line(7, b'{"type":"tool_result","call_id":"a6","content":[]}', "a"))
    lines.append(_line(8, b'{"type":"tool_call","id":"a6","name":"f","arguments":{}}', "a"))  # a duplicate
    lines.append(_line(9, b'{"type":"tool_result","call_id":"a0","content":[]}', "a"))
    got = _assert_same(b"\n".join(lines) + b"\n", max_entries=4, max_sessions=10)
    # a coming back after b is itself a problem now (a session's lines are contiguous, as store import
    # asks: ADR 0018); its ids are still checked from where they were
    assert got == [(9, "", "session 'a' appears twice in the file (a session's lines must be contiguous)"), (10, "/item/id", "duplicate item id 'a6' (a tool_call reusing an id: `interlingua repair` renames it)")]
