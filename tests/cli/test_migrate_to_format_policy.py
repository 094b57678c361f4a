"""``migrate --to NAME --policy``: the same policies as ``convert`` (issue 26). A Claude Code compaction
boundary is a raw item ShareGPT has no form for: ``error`` (the default) refuses the session, ``drop``
leaves it out and reports it, ``degrade`` writes a text marker; every other turn is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "claude-code" / "dag_compact_after_rewind.jsonl"
runner = CliRunner()


def migrate(*args: Any) -> Any:
    return runner.invoke(app, ["migrate", *map(str, args)], catch_exceptions=False)


def active_texts() -> list[str]:
    """The active branch's texts, counted from the raw records (the last leaf's parent chain, across the compaction)."""
    recs = [json.loads(line) for line in REAL.read_text().splitlines() if line.strip()]
    by_id = {r["uuid"]: r for r in recs}
    chain, node = [], recs[-1]
    while node is not None:
        chain.append(node)
        node = by_id.get(node.get("parentUuid") or node.get("logicalParentUuid"))  # a compaction boundary links back logically
    msgs = [r for r in reversed(chain) if isinstance(r.get("message"), dict)]
    return [b["text"] for r in msgs for b in r["message"]["content"] if b.get("type") == "text"]


def test_error_refuses_the_session(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = migrate("--to", "sharegpt", "--policy", "error", REAL, "-o", out)
    assert res.exit_code == 1
    reason = json.loads((tmp_path / "out.rejects.jsonl").read_text().splitlines()[0])["reason"]
    assert "raw item has no ShareGPT form" in reason and "--policy drop" in reason  # says how to write it anyway
    assert not out.exists()


def test_drop_writes_every_turn_and_reports_the_raw_item(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = migrate("--to", "sharegpt", "--policy", "drop", REAL, "-o", out)
    assert res.exit_code == 0, res.output
    assert "dropped: item 6 raw: raw item has no ShareGPT form" in res.output
    # the read-back check leaves the dropped item out: the other items are still checked one by one
    assert "read back as" not in res.output and "degraded: item 7 text: fields that do not come back" in res.output
    first = json.loads(out.read_text().splitlines()[0])
    assert [t["value"] for t in first["conversations"]] == active_texts()


def test_degrade_writes_a_marker_in_place(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = migrate("--to", "sharegpt", "--policy", "degrade", REAL, "-o", out)
    assert res.exit_code == 0, res.output
    values = [t["value"] for t in json.loads(out.read_text().splitlines()[0])["conversations"]]
    assert len(values) == len(active_texts()) + 1 and "raw item has no ShareGPT form" in values[6]


@pytest.mark.parametrize("args", [["--policy", "drop"], ["--policy", "sometimes", "--to", "sharegpt"]])
def test_policy_without_to_or_unknown_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    res = migrate(*args, REAL, "-o", tmp_path / "out.jsonl")
    assert res.exit_code == 2
