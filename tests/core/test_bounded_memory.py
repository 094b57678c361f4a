"""Bounded memory paths give the results of the in-memory ones.

``validate`` of JSON Lines keeps per-session state in a :class:`_SessionTable` that spills to a
temporary SQLite database past a budget; with tiny budgets (every few lines spill) the problems,
their order and locations must be those of an unbounded run.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.validation import _streams
from interlingua.validation import validate_jsonl_stream

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [line for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


def _line(seq: int, item: bytes, session: str) -> bytes:
    return b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":%s}' % (session.encode(), seq, item)


def _problems(data: bytes, **budget: int) -> list[tuple[int | None, str, str]]:
    old = dict(_streams._TABLE_BUDGET)
    _streams._TABLE_BUDGET.clear()
    _streams._TABLE_BUDGET.update(budget)
    try:
        r = validate_jsonl_stream(io.BytesIO(data), file="f")
    finally:
        _streams._TABLE_BUDGET.clear()
        _streams._TABLE_BUDGET.update(old)
    return [(p.line, p.pointer, p.message) for p in r.problems]


# items whose checks depend on state: ids, tool calls and their results, handoffs
_ITEMS = st.sampled_from(
    [
        b'{"type":"text","text":"t","role":"user","id":"i1"}',
        b'{"type":"text","text":"t","role":"user","id":"i2"}',
        b'{"type":"tool_call","id":"c1","name":"f","arguments":{}}',
        b'{"type":"tool_call","id":"c2","name":"f","arguments":{}}',
        b'{"type":"tool_result","call_id":"c1","content":[]}',
        b'{"type":"tool_result","call_id":"c2","content":[]}',
        b'{"type":"handoff_call","id":"h1","target":"b"}',
        b'{"type":"handoff_result","call_id":"h1","content":[]}',
        b'{"type":"handoff_result","call_id":"c1","content":[]}',
        b'{"type":"text","text":"no role"}',
        *VALID,
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 5), _ITEMS, st.integers(-1, 3)), min_size=1, max_size=60), st.integers(1, 4), st.integers(1, 3))
def test_spilled_state_finds_the_same_problems(lines: list[tuple[int, bytes, int]], entries: int, sessions: int) -> None:
    seqs: dict[str, int] = {}
    out = []
    for s, item, step in lines:
        sid = f"s{s}"
        seqs[sid] = seqs.get(sid, 0) + step  # step <= 0: a seq that does not increase
        out.append(_line(seqs[sid], item, sid))
    data = b"\n".join(out) + b"\n"
    expected = _problems(data)
    assert _problems(data, max_entries=entries, max_sessions=sessions) == expected


def test_spilling_really_happens_and_the_database_goes_away() -> None:
    lines = []
    for s in range(50):
        lines.append(_line(0, b'{"type":"tool_call","id":"c%d","name":"f","arguments":{}}' % s, f"s{s}"))
    for s in range(50):  # every session comes back after it was spilled
        lines.append(_line(1, b'{"type":"tool_result","call_id":"c%d","content":[]}' % s, f"s{s}"))
        lines.append(_line(2, b'{"type":"tool_result","call_id":"nope","content":[]}', f"s{s}"))
        lines.append(_line(2, b'{"type":"text","text":"x","role":"user","id":"c%d"}' % s, f"s{s}"))
    data = b"\n".join(lines) + b"\n"
    tables: list[_streams.SessionTable] = []
    real = _streams.SessionTable

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, **kw: int) -> None:
            super().__init__(**kw)
            tables.append(self)

    _streams.SessionTable = Spy  # type: ignore[misc]
    try:
        got = _problems(data, max_entries=4, max_sessions=3)
    finally:
        _streams.SessionTable = real  # type: ignore[misc]
    assert tables[0].spills > 10 and tables[0].db is None  # spilled, then closed (the file is gone)
    # per session: its lines are not contiguous (as store import says), the orphan result, the seq
    # that did not increase, the duplicate id; the checks go on with the state spilled before
    assert len(got) == 200
    assert got[:4] == [
        (51, "", "session 's0' appears twice in the file (a session's lines must be contiguous)"),
        (52, "/item/call_id", "tool_result refers to 'nope', which is not an earlier tool_call"),
        (53, "/seq", "expected seq 3 in session 's0' (seqs run 0, 1, 2, ...), got 2"),
        (53, "/item/id", "duplicate item id 'c0'"),
    ]
    assert got == _problems(data)


def test_one_session_larger_than_the_budget() -> None:
    lines = [_line(i, b'{"type":"tool_call","id":"c%d","name":"f","arguments":{}}' % i, "big") for i in range(40)]
    lines += [_line(40 + i, b'{"type":"tool_result","call_id":"c%d","content":[]}' % i, "big") for i in range(40)]
    lines.append(_line(80, b'{"type":"text","text":"x","role":"user","id":"c0"}', "big"))
    data = b"\n".join(lines) + b"\n"
    got = _problems(data, max_entries=5)
    assert got == [(81, "/item/id", "duplicate item id 'c0'")] == _problems(data)


@pytest.mark.parametrize("budget", [{"max_entries": 1}, {"max_sessions": 1}])
def test_real_session_files_validate_the_same_with_tiny_budgets(budget: dict[str, int]) -> None:
    files = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.jsonl"))
    assert files
    for f in files:
        data = f.read_bytes()
        assert _problems(data, **budget) == _problems(data), f
