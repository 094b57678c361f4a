"""The benchmark harness runs end to end at the tiny size and reports every figure.

No timing assertions: these tests only keep ``benchmarks/run.py`` from rotting (every row
present, medians and ratios computed, peers either measured or reported as not installed).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from interlingua.codec import iter_jsonl
from interlingua.validation import validate_bytes

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
ROWS = ("decode", "encode", "validate", "memory", "memory-cli")
TIMED_NEW = (
    "mapping", "mapping-ops", "stream", "store-bulk", "store-conv", "store-load", "store-load-large", "validate-process-1", "startup", "migrate-store",
    *(f"stream-long-{p}" for p in ("anthropic", "openai-chat", "openai-responses", "gemini", "ollama")),
)
PG_ROWS = ("pg-bulk", "pg-conv", "pg-load", "pg-load-large")
PUBLIC_ROWS = (
    "growth", "decode-session-file", "convert-request", "convert-request-pydantic-ai", "convert-response", "convert-cli",
    "store-sqlite-session", "store-sqlite-session-load",
)
"""What users call (issue 31, benchmarks/public_path.py): reported, with peers that may be missing."""
PG = bool(os.environ.get("INTERLINGUA_TEST_PG_URL"))


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    qualname = f"interlingua_bench_{name}"
    if qualname in sys.modules:
        return sys.modules[qualname]
    spec = importlib.util.spec_from_file_location(qualname, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualname] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    run = _load("run")
    out = tmp_path_factory.mktemp("bench") / "benchmarks.md"
    argv = ["--size", "tiny", "--out", str(out), "--json", str(out.with_suffix(".json")), "--gc-freeze", "--profile", "--quiet"]
    assert run.main(argv) == 0
    return out.read_text(encoding="utf-8"), json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))


def test_every_row_has_medians_and_ratios(tiny: tuple[str, dict[str, Any]]) -> None:
    _md, data = tiny
    rows = {r["key"]: r for r in data["rows"]}
    assert set(ROWS) | set(TIMED_NEW) | set(PUBLIC_ROWS) | set(PG_ROWS if PG else ()) | {"decode-gc-frozen", "encode-gc-frozen", "store-import-rss"} == set(rows)
    for key in ("decode", "encode", "validate", "decode-gc-frozen", "encode-gc-frozen", *TIMED_NEW, *(PG_ROWS if PG else ())):
        row = rows[key]
        il = row["interlingua"]
        assert il["median"] > 0 and il["median_cpu"] > 0
        assert len(il["seconds"]) == len(il["cpu_seconds"]) == data["dataset"]["rounds"]
        assert row["targets"], key
        for m in [*row["peers"], *([row["floor"]] if row["floor"] is not None else [])]:
            if m["missing"]:
                assert m["median"] is None and "not installed" in m["note"]
            else:
                assert m["median"] > 0 and m["ratio"] > 0 and m["ratio_cpu"] > 0
                assert len(m["seconds"]) == len(il["seconds"])
    assert set(rows["mapping-ops"]["extra"]["ops"]) == {
        f"interlingua {op} alone" for op in ("canonical -> anthropic", "canonical -> openai-chat", "anthropic -> canonical", "openai-chat -> canonical")
    }
    if not PG:
        assert any("PostgreSQL: skipped" in s for s in data["skipped"])
    runs = rows["store-import-rss"]["extra"]["import_rss"]
    assert [r["items"] for r in runs] == [2_000, 20_000] and all(r["maxrss_kb"] > 0 for r in runs)
    mem = rows["memory"]["extra"]["memory"]
    assert len(mem) == 2 and all(m["ok"] and m["peak_kb"] > 0 for m in mem)
    assert mem[1]["nbytes"] > mem[0]["nbytes"]
    # (4b): every CLI run measured its own peak; the big transcript converts, the big message is refused
    cli = rows["memory-cli"]
    # every command on the transcript, the session file and the JSON Lines file (issue 32), the big message twice
    runs = cli["extra"]["runs"]
    assert len(runs) == 24 and all(r["peak_kb"] > 0 for r in runs)
    assert sum("message" in r["input"] for r in runs) == 2
    assert [r["rc"] for r in runs] == [1 if "message" in r["input"] else 0 for r in runs]
    assert len(cli["targets"]) == 4 and all(t["met"] is not None for t in cli["targets"])


def test_peers_run_when_installed(tiny: tuple[str, dict[str, Any]]) -> None:
    _md, data = tiny
    rows = {r["key"]: r for r in data["rows"]}
    expect = {
        "decode": {"pydantic_ai": rows["decode"]["peers"][0]},
        "validate": {"jsonschema": rows["validate"]["peers"][0], "jsonschema_rs": rows["validate"]["peers"][1]},
        "mapping": {"litellm": rows["mapping"]["peers"][0]},
        **{k: {"agents": rows[k]["peers"][0]} for k in ("store-bulk", "store-conv", "store-load", "store-load-large")},
    }
    for peers in expect.values():
        for module, measure in peers.items():
            assert measure["missing"] is (not _installed(module)), (module, measure["note"])
    # The floor is bare msgspec (always there); orjson is an extra peer row.
    assert rows["decode"]["floor"]["missing"] is False
    assert rows["decode"]["peers"][1]["missing"] is (not _installed("orjson"))


def test_markdown_report_has_each_figure_machine_and_command(tiny: tuple[str, dict[str, Any]]) -> None:
    md, data = tiny
    summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    for title in (
        "(1) decode + validate",
        "(2) encode",
        "(3) validation in process",
        "(3b) `interlingua validate FILE`, whole process",
        "(6b) stream accumulation, ~1,000-event stream",
        "(4) peak RSS",
        "(5) OpenAI Chat request -> Anthropic request",
        "(5b) canonical -> Anthropic and -> OpenAI Chat",
        "(6) stream accumulation",
        "(7) store (SQLite): bulk append",
        "(7) store (SQLite): per-conversation append",
        "(7) store (SQLite): load one session",
        "(9) start-up: `interlingua validate small.json`",
    ):
        assert title in summary
    # each timed figure's first line carries "wall / CPU" medians and ratios
    for line in summary.splitlines():
        if line.startswith(("| (1)", "| (2)", "| (3)", "| (5)", "| (5b)", "| (6)", "| (7)", "| (8)", "| (9)")):
            assert re.search(r"\| [\d.]+ (ms|s) / [\d.]+ (ms|s) \|", line), line
            assert re.search(r"[\d.]+x / [\d.]+x", line) or "not installed" in line, line
    assert "variant: `gc.freeze()`" in summary
    for needle in ("## Machine and versions", "msgspec", "GC:", "## Reproduce", "python benchmarks/run.py --size tiny", "## Not measured yet"):
        assert needle in md
    assert data["pending"], "figures not built yet stay listed"
    if not PG:
        assert "## Not run in this environment" in md and "INTERLINGUA_TEST_PG_URL" in md


def test_alternate_flips_order_after_untimed_warmup() -> None:
    run = _load("run")
    calls: list[str] = []
    a, b = run.Measure("a", "interlingua"), run.Measure("b", "peer")
    missing = run.Measure("c", "peer", missing=True)
    run.alternate([(a, lambda: calls.append("a")), (b, lambda: calls.append("b")), (missing, lambda: calls.append("c"))], rounds=3, warmup=1)
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]
    assert len(a.seconds) == len(b.seconds) == len(a.cpu_seconds) == 3
    assert missing.seconds == [] and missing.median is None


def test_alternate_runs_prepare_outside_the_timing_before_every_call() -> None:
    run = _load("run")
    calls: list[str] = []
    a, b = run.Measure("a", "interlingua"), run.Measure("b", "floor")
    run.alternate([(a, lambda: calls.append("a"), lambda: calls.append("pa")), (b, lambda: calls.append("b"))], rounds=2, warmup=1)
    assert calls == ["pa", "a", "b", "pa", "a", "b", "b", "pa", "a"]
    assert len(a.seconds) == len(b.seconds) == 2


def test_dataset_is_seeded_valid_and_the_same_in_both_forms() -> None:
    dataset = _load("dataset")
    one, two = dataset.build(3, seed=7, peers=False), dataset.build(3, seed=7, peers=False)
    assert one.jsonl == two.jsonl
    assert dataset.build(3, seed=8, peers=False).jsonl != one.jsonl
    result = validate_bytes(one.jsonl)
    assert result.ok, result.problems[:3]
    import io

    assert list(iter_jsonl(io.BytesIO(one.jsonl))) == one.envelopes
    assert one.items >= 3 * 30
    calls = [e.item.id for e in one.envelopes if type(e.item).__name__ == "ToolCallItem"]
    assert len(calls) == 3 * dataset.TURNS
    if _installed("pydantic_ai"):
        pa = dataset.to_pydantic_ai(one.spec)
        assert [len(conv) for conv in pa] == [dataset.MESSAGES_PER_CONVERSATION] * 3
        pa_calls = [p.tool_call_id for conv in pa for m in conv for p in m.parts if getattr(p, "part_kind", "") == "tool-call"]
        assert pa_calls == calls


def test_a_missing_peer_is_reported_not_invented() -> None:
    run = _load("run")
    measure, module = run._peer("nothing", "interlingua_no_such_peer_module")
    assert module is None and measure.missing and measure.median is None
    assert "not installed" in measure.note and "benchmarks/requirements.txt" in measure.note
    row = run.Row("x", "(x) figure", run.Measure("il", "interlingua", seconds=[1.0], cpu_seconds=[1.0]), [measure], None)
    assert row.ratio(measure) is None and row.ratio_cpu(measure) is None


def test_prototype_sse_framing_gives_the_library_events_on_every_recorded_stream_and_every_cut() -> None:
    """The stream prototype in benchmarks/proposals.py must stay equivalent, truncation included."""
    proposals = _load("proposals")
    from interlingua.mapping import get_mapper
    from interlingua.streaming import iter_stream
    from interlingua.streaming.framing import iter_frames

    fixtures = sorted((ROOT / "tests" / "fixtures" / "real").glob("*/*.sse"))
    assert fixtures
    for path in fixtures:
        blob = path.read_bytes()
        assert list(proposals.fast_sse_frames(blob)) == list(iter_frames("sse", blob)), path.name
        for cut in range(0, len(blob), max(1, len(blob) // 40)):
            assert list(proposals.fast_sse_frames(blob[:cut])) == list(iter_frames("sse", blob[:cut])), (path.name, cut)
    for name, rel in (("anthropic", "anthropic/anthropic_sdk.tool_use_response.sse"), ("openai-chat", "openai_chat/openai_python.stream_text.sse")):
        blob = (ROOT / "tests" / "fixtures" / "real" / rel).read_bytes()
        mapper = get_mapper(name)
        assert list(proposals.fast_iter_stream(mapper, blob)) == list(iter_stream(mapper, blob))
        half = blob[: len(blob) // 2]
        assert list(proposals.fast_iter_stream(mapper, half)) == list(iter_stream(mapper, half))


def test_long_streams_are_valid_and_about_a_thousand_events() -> None:
    from interlingua.mapping import get_mapper
    from interlingua.streaming import StreamDone, TextDelta, iter_stream

    run = _load("run")
    for name, fixture in run._LONG_STREAM_FIXTURES:
        blob, n = run.long_stream(name, (run.FIXTURES / fixture).read_bytes())
        assert 900 <= n <= 1100, (name, n)
        events = list(iter_stream(get_mapper(name), blob))
        assert isinstance(events[-1], StreamDone), (name, events[-1])
        assert sum(isinstance(e, TextDelta) for e in events) > 300 or name == "anthropic", name
        assert run._parse_only_any(name, blob) >= n - 5


def test_dataset_sides_hold_the_same_content() -> None:
    if not _installed("pydantic_ai"):
        pytest.skip("pydantic-ai not installed")
    dataset = _load("dataset")
    ds = dataset.build(3)
    assert ds.converted
    reasoning = [e.item for e in ds.envelopes if type(e.item).__name__ == "ReasoningItem"]
    assert reasoning and all(r.origin.model == dataset.MODEL and r.origin.provider == "anthropic" and r.origin.response_id for r in reasoning)
    assert all("usage" in r.metadata["pydantic_ai"] for r in reasoning)
    assert all(e.created_at for e in ds.envelopes)
    pa_bytes = sum(map(len, ds.pydantic_ai_lines))
    assert 0.8 < len(ds.jsonl) / pa_bytes < 1.2  # same content, two formats
