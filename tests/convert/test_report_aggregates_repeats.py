"""A conversion that makes the same loss once per item reports it as one aggregated entry: its
count and its first places (issue 32: `convert --to pydantic-ai` of a 1,000,000-item transcript held
one "fields that do not come back from pydantic-ai unchanged: id" entry per text, ~600 MB; ADR 0047).

Entries are kept one by one up to ``AGGREGATE_AFTER`` repeats of one action, reason and item type,
so every report of an ordinary conversion is what it was; the ``Report`` API (iteration, the
entries' attributes, ``lines()``) keeps working on aggregated entries.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua._windowed import plan, write_windows
from interlingua.cli import app
from interlingua.compat import write
from interlingua.items import TextItem, Transcript
from interlingua.mapping.report import AGGREGATE_AFTER, Report, ReportEntry

ID_REASON = "fields that do not come back from pydantic-ai unchanged: id"


def chat(n: int) -> Transcript:
    """The issue's shape: alternating user and assistant texts, each with an id (pydantic-ai keeps no id)."""
    return Transcript(schema_version="1.0", items=[TextItem(role="user" if i % 2 == 0 else "assistant", id=f"m{i:07d}", text=f"message {i:07d}") for i in range(n)])


def windowed_report(n: int, window: int = 200) -> Report:
    t = chat(n)
    report = Report()
    assert write_windows(iter(t.items), t, plan(iter(t.items), window=window), target="pydantic-ai", model=None, policy="degrade", out=io.BytesIO(), report=report)
    return report


def test_many_identical_losses_are_one_entry_with_the_count_and_the_first_places() -> None:
    report = windowed_report(1_000)
    ids = [e for e in report if e.reason == ID_REASON]
    assert len(ids) == 1
    (agg,) = ids
    assert (agg.action, agg.item_type, agg.count) == ("degraded", "text", 1_000)
    assert (agg.index, agg.pointer) == (0, None)  # the first occurrence's, as a single entry has them
    assert agg.places == tuple((i, None) for i in range(AGGREGATE_AFTER))
    assert report.total == sum(e.count for e in report) and report.total >= 1_000
    # the whole conversion reports the same losses one by one; aggregated, they are the windows' entry
    whole = write(chat(1_000), "pydantic-ai", policy="degrade").report
    assert sum(1 for e in whole if e.reason == ID_REASON) == 1_000
    assert [e for e in whole.aggregated() if e.reason == ID_REASON] == [agg]


def test_a_few_repeats_are_kept_one_by_one() -> None:
    report = windowed_report(AGGREGATE_AFTER, window=20)
    ids = [e for e in report if e.reason == ID_REASON]
    assert [e.index for e in ids] == list(range(AGGREGATE_AFTER))
    assert all(e.count == 1 and e.places == () for e in ids)
    assert [e for e in write(chat(AGGREGATE_AFTER), "pydantic-ai", policy="degrade").report if e.reason == ID_REASON] == ids


def _retained(n: int) -> int:
    """Bytes the report of a windowed conversion of ``n`` items holds after it (tracemalloc: memory, not time)."""
    t = chat(n)
    the_plan = plan(iter(t.items), window=500)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        report = Report()
        write_windows(iter(t.items), t, the_plan, target="pydantic-ai", model=None, policy="degrade", out=io.BytesIO(), report=report)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert report.total >= n
    return held


def test_the_report_of_a_long_conversion_does_not_grow_with_it() -> None:
    _retained(1_000)  # the first conversion fills caches that stay (the mappers, the catalogue)
    small, large = _retained(1_000), _retained(10_000)
    # one entry per item (before): ~200 bytes each, +1.8 MB from 1,000 to 10,000 items; aggregated: the same few entries
    assert large - small < 200_000, (small, large)


def test_the_cli_prints_one_line_for_the_repeats_windowed_or_whole(tmp_path: Path) -> None:
    doc = tmp_path / "chat.json"
    doc.write_bytes(msgspec.json.encode(chat(1_000)))
    runner = CliRunner()
    from_file = runner.invoke(app, ["convert", "--from", "canonical", "--to", "pydantic-ai", "--policy", "degrade", str(doc), "-o", str(tmp_path / "o.json")])
    from_stdin = runner.invoke(app, ["convert", "--from", "canonical", "--to", "pydantic-ai", "--policy", "degrade"], input=doc.read_bytes())  # read whole
    line = f"warning: degraded 1,000 x: text: {ID_REASON} (first at item 0, item 1, item 2, ...)"
    for r in (from_file, from_stdin):
        assert r.exit_code == 0, r.stderr
        assert r.stderr.splitlines().count(line) == 1, r.stderr
        assert not any(ID_REASON in x and x != line for x in r.stderr.splitlines())
    assert json.loads((tmp_path / "o.json").read_bytes()) == json.loads(from_stdin.stdout)


def test_an_aggregated_entry_keeps_the_entry_api() -> None:
    report = Report(aggregate=True)
    for i in range(3 * AGGREGATE_AFTER):
        report.add("dropped", "image parts are not supported", index=i, item_type="image", pointer=f"/items/{i}")
    (agg,) = list(report)
    assert isinstance(agg, ReportEntry) and len(report) == 1 and bool(report)
    assert (agg.action, agg.reason, agg.index, agg.item_type, agg.pointer, agg.count) == ("dropped", "image parts are not supported", 0, "image", "/items/0", 300)
    assert str(agg) == "dropped 300 x: image: image parts are not supported (first at item 0 /items/0, item 1 /items/1, item 2 /items/2, ...)"
    assert dataclasses.replace(agg, reason="redacted").count == 300  # what the transport's redaction does
    assert report.to_builtins() == [{
        "action": "dropped", "reason": "image parts are not supported", "index": 0, "item_type": "image", "pointer": "/items/0", "count": 300,
        "places": [{"index": i, "pointer": f"/items/{i}"} for i in range(AGGREGATE_AFTER)],
    }]
    json.dumps(report.to_builtins())  # JSON-ready
    assert Report([ReportEntry("changed", "x")]).to_builtins() == [{"action": "changed", "reason": "x", "index": None, "item_type": None, "pointer": None, "count": 1}]


def test_a_report_changed_from_outside_still_aggregates() -> None:
    report = Report(aggregate=True)
    for i in range(AGGREGATE_AFTER + 1):
        report.add("dropped", "x", index=i)
    report.entries.insert(0, ReportEntry("changed", "first"))  # as code that edits ``entries`` directly does
    report.add("dropped", "x", index=999)
    assert [(e.action, e.count) for e in report] == [("changed", 1), ("dropped", AGGREGATE_AFTER + 2)]
    report.entries.clear()
    report.add("dropped", "x", index=1)
    assert [(e.action, e.count, e.index) for e in report] == [("dropped", 1, 1)]


entries = st.builds(
    ReportEntry, st.sampled_from(["dropped", "degraded", "changed"]), st.sampled_from(["a", "b", "c"]), st.one_of(st.none(), st.integers(0, 50)),
    st.sampled_from([None, "text", "image"]), st.one_of(st.none(), st.sampled_from(["/items/1", "/model"])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(entries, max_size=400))
def test_aggregation_loses_no_occurrence(given_entries: list[Any]) -> None:
    exact = Report(list(given_entries))
    folded = exact.aggregated()
    assert folded.total == len(given_entries) and len(exact) == len(given_entries)  # the exact report is unchanged
    keys = lambda es: [(e.action, e.reason, e.item_type) for e in es]  # noqa: E731
    for e in folded:
        same = [x for x in given_entries if (x.action, x.reason, x.item_type) == (e.action, e.reason, e.item_type)]
        if len(same) > AGGREGATE_AFTER:  # one entry: the count and the first places, in order
            assert keys(folded).count((e.action, e.reason, e.item_type)) == 1
            assert e.count == len(same) and e.places == tuple((x.index, x.pointer) for x in same[:AGGREGATE_AFTER])
            assert (e.index, e.pointer) == (same[0].index, same[0].pointer)
        else:  # kept one by one, as given
            assert e.count == 1 and e in same
    if len(given_entries) <= AGGREGATE_AFTER:
        assert folded.entries == given_entries and exact.lines() == [f"warning: {e}" for e in given_entries]
