"""The benchmarks stay split by row family behind one CLI (issue 30), and their helper scripts run.

No timing: these check the layout (module sizes, the row keys ``--only`` takes and their order, the
names ``public_path.py`` reads from ``run.py``), the callgrind driver's row calls on a prepared input,
and how ``check_independent.py`` reads a report's figures.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"

ROW_KEYS = [
    "decode", "encode", "validate", "memory", "memory-cli", "validate-process", "startup", "mapping", "mapping-ops", "stream",
    "stream-long", "store", "store-pg", "migrate-store", "store-import-rss",
    # public_path.py's rows, registered after them
    "growth", "decode-session-file", "convert-request", "convert-request-pydantic-ai", "convert-response", "convert-cli",
    "store-sqlite-session",
]
"""The ``--only`` keys in the order the report shows them (the single-file run.py's order)."""


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    qualname = f"interlingua_bench_{name}"
    if qualname in sys.modules:
        return sys.modules[qualname]
    spec = importlib.util.spec_from_file_location(qualname, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualname] = module
    spec.loader.exec_module(module)
    return module


def test_no_benchmark_module_is_over_800_lines() -> None:
    sizes = {p.relative_to(BENCH).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in BENCH.rglob("*.py")}
    assert "rows/__init__.py" in sizes and "harness.py" in sizes
    assert {name: n for name, n in sizes.items() if n > 800} == {}


def test_the_cli_registers_every_row_once_in_the_reports_order() -> None:
    run = _load("run")
    assert [key for key, _fn in run._ROWS] == ROW_KEYS
    run._rows.install()  # registering again (run.py loaded twice) keeps one entry per key, in place
    assert [key for key, _fn in run._ROWS] == ROW_KEYS


def test_every_name_public_path_reads_from_run_resolves() -> None:
    run = _load("run")
    names = set(re.findall(r"\bR\.([A-Za-z_]\w*)", (BENCH / "public_path.py").read_text(encoding="utf-8")))
    assert {"Measure", "Row", "alternate", "_peer", "_dataset"} <= names
    assert sorted(n for n in names if not hasattr(run, n)) == []
    assert run._IMPORTS_FROZEN is run._harness._IMPORTS_FROZEN  # one shared state, not a copy
    with pytest.raises(AttributeError):
        run.no_such_name  # noqa: B018


def test_the_callgrind_driver_runs_every_row_on_its_prepared_input(tmp_path: Path) -> None:
    cg = _load("callgrind_rows")
    cg.prepare(tmp_path, 2)
    assert {p.name for p in tmp_path.iterdir()} == {
        "dataset.jsonl", "transcripts.json", "chat_bodies.json", "anthropic_bodies.json", "anthropic_responses.json",
    }
    for row in cg.ROWS:
        out = cg.build(row, tmp_path)()
        assert out, row
    assert cg._ir_from_text("events: Ir\nsummary: 12345\n") == 12345


def test_the_growth_counter_prepares_every_cell_and_runs_each_operation(tmp_path: Path) -> None:
    import shutil

    if shutil.which("cc") is None:
        pytest.skip("no C compiler for the callgrind start/stop helper")
    gc_ = _load("growth_callgrind")
    gc_.prepare(tmp_path, [0.05])
    meta = __import__("json").loads((tmp_path / "meta.json").read_text())
    assert set(meta) == {"many-0.05", "one-0.05"} and meta["one-0.05"]["conversations"] == 1
    assert meta["one-0.05"]["items"] == meta["many-0.05"]["items"] > 0
    ops = [op for op in gc_.OPS if op != "litellm" or importlib.util.find_spec("litellm") is not None]
    for shape in gc_.SHAPES:
        for op in ops:
            run, prep = gc_._work(op, shape, 0.05, tmp_path)
            prep()
            assert run() is not None or op == "view", (op, shape)
        gc_.cell("validate", shape, 0.05, tmp_path)  # outside valgrind the start/stop requests do nothing
    res = {"many-0.05": {"convert": {"ir": 2000, "n": 10, "per_item": 200.0}}}
    assert "| 0.05 MB, " in gc_.table(res, meta) and "| 0.2 |" in gc_.table(res, meta)


def test_check_independent_reads_a_reports_figures_with_their_range(capsys: pytest.CaptureFixture[str]) -> None:
    ci = _load("check_independent")
    fig = ci.Figure.of([1.0, 2.0, 1.0], [2.0, 2.0, 3.0])
    assert (fig.ratio, fig.lo, fig.hi) == (2.0, 1.0, 3.0)
    row = {
        "key": "convert-request",
        "interlingua": {"cpu_seconds": [1.0, 1.0, 1.0]},
        "peers": [{"name": "LiteLLM 1 `x`", "missing": False, "cpu_seconds": [2.0, 2.2, 1.8]}, {"name": "any-llm 1", "missing": True, "cpu_seconds": []}],
        "floor": {"name": "pair", "missing": False, "cpu_seconds": [0.5, 0.5, 0.5]},
    }
    ci.REPORT.clear()
    try:
        ci.REPORT["convert-request"] = row
        litellm = ci.report_figure("convert-request", "LiteLLM")
        assert litellm is not None and (litellm.ratio, litellm.lo, litellm.hi) == (2.0, 1.8, 2.2)
        assert ci.report_figure("convert-request", "floor").ratio == 0.5
        assert ci.report_figure("convert-request", "any-llm") is None  # missing in the report: nothing invented
        ci.show("vs LiteLLM", ci.Figure(2.1, 1.9, 2.3), "convert-request", "LiteLLM")
        ci.show("vs pair", ci.Figure(0.9, 0.8, 1.0), "convert-request", "floor")
    finally:
        ci.REPORT.clear()
    out = capsys.readouterr().out.splitlines()
    assert "agree (ranges overlap)" in out[0] and "DIFFER (ranges apart)" in out[1]


def test_report_structure_ignores_figures_and_sees_a_changed_row(tmp_path: Path) -> None:
    cs = _load("compare_structure")
    a = "| (1) decode | 12.5 ms / 11.0 ms | 2.81x | met |\n- run in /tmp/interlingua-bench-ab12/x.jsonl\n"
    b = "| (1) decode | 1.20 s / 990.1 ms | 0.91x | **missed** |\n- run in /tmp/interlingua-bench-zz9_/x.jsonl\n"
    assert cs.structure(a) == cs.structure(b)
    (tmp_path / "a.md").write_text(a)
    (tmp_path / "b.md").write_text(b)
    (tmp_path / "c.md").write_text(a.replace("(1) decode", "(1) decoding"))
    assert cs.main([str(tmp_path / "a.md"), str(tmp_path / "b.md")]) == 0
    assert cs.main([str(tmp_path / "a.md"), str(tmp_path / "c.md")]) == 1
    assert cs.main([str(tmp_path / "a.md"), str(tmp_path / "missing.md")]) == 2
