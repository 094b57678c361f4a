"""The worked Perplexity plugin: conformance, discovery through its entry point, the CLI."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from _perplexity_support import EXAMPLE, PERPLEXITY_EP
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.mapping import available, get_mapper
from interlingua.streaming.driver import collect
from interlingua.streaming.events import StreamDone

from test_conformance import TestPerplexityConformance  # noqa: E402, F401  (the plugin's own suite, collected here)

REAL = Path(__file__).parents[1] / "fixtures" / "real"
SRC = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"


def test_pyproject_declares_the_entry_point() -> None:
    data = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["entry-points"]["interlingua.mappers"] == {"perplexity": PERPLEXITY_EP.value}


def test_found_through_the_entry_point(entry_points) -> None:
    entry_points.append(PERPLEXITY_EP)
    assert "perplexity" in available()
    m = get_mapper("perplexity")
    assert m.name == "perplexity" and m.id_rule is None


HISTORY = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "How tall is the Eiffel Tower?"},
        {"role": "user", "content": "In metres."},
        {"role": "assistant", "content": "330 m."},
        {"role": "user", "content": "And the Statue of Liberty?"},
    ],
}


def test_convert_to_perplexity_from_the_cli(entry_points, tmp_path: Path) -> None:
    entry_points.append(PERPLEXITY_EP)
    src, out = tmp_path / "history.json", tmp_path / "out.json"
    src.write_text(json.dumps(HISTORY))
    result = CliRunner().invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", "perplexity", "-o", str(out)])
    assert result.exit_code == 0, result.output
    body = json.loads(out.read_text())
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]  # alternating
    assert body["messages"][1]["content"] == "How tall is the Eiffel Tower?\n\nIn metres."
    assert "consecutive user turns joined" in result.output  # reported as a warning
    refused = CliRunner().invoke(app, ["convert", str(SRC), "--from", "openai-chat", "--to", "perplexity"])
    assert refused.exit_code == 1 and "tools are not supported" in refused.output  # a tool history: preflight refuses


def test_stream_accumulates_text_and_citations(entry_points) -> None:
    entry_points.append(PERPLEXITY_EP)
    for name in ("stream_text.sse", "stream_done.sse"):
        events = collect(get_mapper("perplexity"), (EXAMPLE / "tests" / "data" / name).read_bytes())
        done = events[-1]
        assert isinstance(done, StreamDone), name
        assert [type(i).__name__ for i in done.response.items] == ["TextItem"]
    assert done.response.items[0].text == "Bonjour !"
    first = collect(get_mapper("perplexity"), (EXAMPLE / "tests" / "data" / "stream_text.sse").read_bytes())[-1]
    assert first.response.provider_data["perplexity"]["citations"] == ["https://www.toureiffel.paris/en/the-monument/key-figures"]


def test_installed_plugin_is_found_by_a_real_interlingua_process(tmp_path: Path) -> None:
    """No monkeypatching: a dist-info with the plugin's entry points on sys.path, as pip leaves it.

    (Building a wheel here would need network or build tools; the manual check is
    ``pip install -e examples/plugin_perplexity`` then ``interlingua convert --to perplexity``.)
    """
    import subprocess
    import sys

    dist = tmp_path / "site" / "interlingua_perplexity-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: interlingua-perplexity\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[interlingua.mappers]\nperplexity = interlingua_perplexity:mapper\n")
    root = Path(__file__).parents[2]
    env = {"PYTHONPATH": ":".join([str(tmp_path / "site"), str(EXAMPLE / "src"), str(root / "src")]), "PATH": "/usr/bin:/bin"}
    code = "import sys; from interlingua.cli import main; sys.argv = ['interlingua', *sys.argv[1:]]; main()"
    src = tmp_path / "history.json"
    src.write_text(json.dumps(HISTORY))
    proc = subprocess.run([sys.executable, "-c", code, "convert", str(src), "--from", "openai-chat", "--to", "perplexity"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["messages"] and all(m["role"] in ("system", "user", "assistant") for m in body["messages"])


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
