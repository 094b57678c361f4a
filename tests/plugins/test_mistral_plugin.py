"""The worked Mistral plugin: conformance, discovery through its entry point, the CLI."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from _mistral_support import EXAMPLE, MISTRAL_EP
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.mapping import available, get_mapper
from interlingua.streaming.driver import collect
from interlingua.streaming.events import StreamDone

from test_conformance import TestMistralConformance  # noqa: E402, F401  (the plugin's own suite, collected here)

REAL = Path(__file__).parents[1] / "fixtures" / "real"


def test_pyproject_declares_the_entry_point() -> None:
    data = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["entry-points"]["interlingua.mappers"] == {"mistral": MISTRAL_EP.value}


def test_found_through_the_entry_point(entry_points) -> None:
    entry_points.append(MISTRAL_EP)
    assert "mistral" in available()
    m = get_mapper("mistral")
    assert m.name == "mistral" and m.id_rule is not None and m.id_rule.exact_length == 9


def test_convert_to_mistral_from_the_cli(entry_points, tmp_path: Path) -> None:
    entry_points.append(MISTRAL_EP)
    src = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", "mistral", "-o", str(out)])
    assert result.exit_code == 0, result.output
    body = json.loads(out.read_text())
    calls = [c for m in body["messages"] for c in m.get("tool_calls", [])]
    results = [m for m in body["messages"] if m["role"] == "tool"]
    assert calls and all(len(c["id"]) == 9 and c["id"].isalnum() and isinstance(c["function"]["arguments"], str) for c in calls)
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
    assert all(r["name"] == c["function"]["name"] for r, c in zip(results, calls, strict=True))
    assert "call_" in result.output or "tool-call id" in result.output  # the id change is reported as a warning


def test_stream_accumulates(entry_points) -> None:
    entry_points.append(MISTRAL_EP)
    events = collect(get_mapper("mistral"), (EXAMPLE / "tests" / "data" / "stream_tool_call.sse").read_bytes())
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert [type(i).__name__ for i in done.response.items] == ["TextItem", "ToolCallItem"]
    assert done.response.items[1].id == "D681PevKs" and done.response.items[1].arguments == {"city": "Paris"}


def test_installed_plugin_is_found_by_a_real_interlingua_process(tmp_path: Path) -> None:
    """No monkeypatching: a dist-info with the plugin's entry points on sys.path, as pip leaves it.

    (Building a wheel here would need network or build tools; the manual check is
    ``pip install -e examples/plugin_mistral`` then ``interlingua convert --to mistral``.)
    """
    import subprocess
    import sys

    dist = tmp_path / "site" / "interlingua_mistral-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: interlingua-mistral\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[interlingua.mappers]\nmistral = interlingua_mistral:mapper\n")
    src = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"
    root = Path(__file__).parents[2]
    env = {"PYTHONPATH": ":".join([str(tmp_path / "site"), str(EXAMPLE / "src"), str(root / "src")]), "PATH": "/usr/bin:/bin"}
    code = "import sys; from interlingua.cli import main; sys.argv = ['interlingua', *sys.argv[1:]]; main()"
    proc = subprocess.run([sys.executable, "-c", code, "convert", str(src), "--from", "openai-chat", "--to", "mistral"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert all(len(c["id"]) == 9 for m in body["messages"] for c in m.get("tool_calls", []))


def test_a_broken_plugin_does_not_break_other_formats(entry_points, tmp_path: Path) -> None:
    import importlib.metadata

    entry_points.append(importlib.metadata.EntryPoint(name="broken", value="no_such_module_xyz:mapper", group="interlingua.mappers"))
    src = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"
    ok = CliRunner().invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", "anthropic"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", "broken"])
    assert bad.exit_code == 2
    assert "'broken' could not be loaded from entry point 'broken' = 'no_such_module_xyz:mapper'" in bad.output
    assert "ModuleNotFoundError" in bad.output
