"""The examples in docs/testing.md and docs/plugins.md run as written."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PLUGIN = "interlingua.testing.pytest_plugin"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks(doc: str) -> list[str]:
    return BLOCK.findall((ROOT / "docs" / doc).read_text(encoding="utf-8"))


def _test_modules(doc: str) -> dict[str, str]:
    out = {}
    for block in _blocks(doc):
        first = block.splitlines()[0]
        m = re.fullmatch(r"# (?:tests/)?(test_\w+)\.py.*", first)
        if m:
            out[m.group(1)] = block
    return out


def test_testing_md_examples_pass_in_a_user_project(pytester: pytest.Pytester) -> None:
    modules = _test_modules("testing.md")
    assert set(modules) == {"test_agent_validity", "test_agent_snapshots", "test_agent_properties"}
    pytester.makepyfile(**modules)
    pytester.runpytest_subprocess("-p", PLUGIN, "-q", "--import-mode=importlib", "--snapshot-update").assert_outcomes(passed=8)
    result = pytester.runpytest_subprocess("-p", PLUGIN, "-q", "--import-mode=importlib")
    result.assert_outcomes(passed=8)
    shown = next(b for b in re.findall(r"```json\n(.*?)```", (ROOT / "docs" / "testing.md").read_text(), re.S))
    stored = (pytester.path / "__snapshots__" / "test_agent_snapshots" / "test_conversation.json").read_text()
    assert re.sub(r"\s", "", shown) == re.sub(r"\s", "", stored)


def test_plugins_md_snippets_run() -> None:
    snippets = [b for b in _blocks("plugins.md") if not b.startswith("# tests/")]
    assert len(snippets) == 3
    for code in snippets:
        exec(compile(code, "docs/plugins.md", "exec"), {})


def test_plugins_md_conformance_example_passes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    (name, code), = _test_modules("plugins.md").items()
    example = ROOT / "examples" / "plugin_perplexity"
    shutil.copytree(example / "tests" / "data", pytester.path / "tests" / "data")
    # a subprocess of its own (an in-process run re-imports hypothesis' strategy classes after the first one)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(example / "src"), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(**{name: code})
    result = pytester.runpytest_subprocess("-q", "--import-mode=importlib")
    result.assert_outcomes(passed=6, skipped=4)  # skips: no subset strategy, no wire strategy, no samples, no id rule (no tools)
