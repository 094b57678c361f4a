"""``interlingua validate`` runs without typer for its plain command lines, and prints what the typer app prints.

:mod:`interlingua.cli._validate_fast` takes ``validate PATH...`` with the command's own options and
declines everything else. Checked here on real command lines, each run twice in a fresh interpreter:
through the console entry point (``main``: the fast path when it takes the line) and through the typer
app alone (``_app.run``); stdout, stderr and exit code must be the same bytes. The parser itself is
checked against click's parsing of the same command (hypothesis): whatever it takes, click takes too,
with the same values. And the plain lines really load no typer (``sys.modules`` at exit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.cli import load_command
from interlingua.cli._validate_fast import parse

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
BROKEN = ROOT / "examples" / "transcripts" / "broken.json"
CLAUDE_LOG = ROOT / "tests" / "fixtures" / "stores" / "claude-code" / "representative_messages.jsonl"  # not a transcript: the stored-format hint

_MAIN = """
import atexit, json, os, sys
atexit.register(lambda: json.dump(sorted(sys.modules), open(os.environ["MODULES_OUT"], "w")))
sys.argv = ["interlingua", *sys.argv[1:]]
from interlingua.cli import main
main()
"""

_TYPER = """
import sys
sys.argv = ["interlingua", *sys.argv[1:]]
from interlingua.cli._app import run
run()
"""


def _files(tmp: Path) -> dict[str, str]:
    """Inputs beside the examples: an envelope stream, one with a bad line, ANSI in a message, other JSON."""
    transcript = json.loads(WEATHER.read_text())
    lines = [
        msgspec.json.encode({"schema_version": "1.0", "session_id": "s1", "seq": i, "item": item}).decode() for i, item in enumerate(transcript["items"])
    ]
    (tmp / "session.jsonl").write_text("\n".join(lines) + "\n")
    (tmp / "bad.jsonl").write_text("\n".join([*lines[:2], '{"schema_version": "1.0", "session_id": "s1", "seq": 2, "item": {"type": "text"}}', "{not json"]) + "\n")
    (tmp / "ansi.json").write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "\x1b[31mred\x1b[0m", "text": "hi"}]}))
    (tmp / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    (tmp / "dir").mkdir()
    (tmp / "dir" / "a.json").write_text(WEATHER.read_text())
    (tmp / "dir" / "b.jsonl").write_text((tmp / "session.jsonl").read_text())
    return {"weather": str(WEATHER), "broken": str(BROKEN), "claude": str(CLAUDE_LOG), **{p.stem if p.is_file() else p.name: str(p) for p in tmp.iterdir()}}


LINES = [
    ["{weather}"],
    ["{broken}"],
    ["{broken}", "--format", "github"],
    ["--format=json", "{broken}", "{weather}"],
    ["{session}", "{bad}"],
    ["{bad}", "--format", "json", "-q"],
    ["{ansi}"],
    ["{ansi}", "--format", "github"],
    ["{claude}"],
    ["{claude}", "--format", "json"],
    ["{dir}", "--strict"],
    ["--strict", "--no-strict", "{broken}"],
    ["{package}", "{weather}", "--only-transcripts"],
    ["{package}", "--only-transcripts", "--format", "json"],
    ["{package}"],
    ["missing.json", "{weather}"],
    ["{weather}", "--quiet", "--format", "text"],
    # declined by the fast path: the typer app's own answers
    [],
    ["--help"],
    ["{weather}", "--format", "yaml"],
    ["{weather}", "--format"],
    ["{weather}", "-qq"],
    ["--", "{weather}"],
    ["{weather}", "--strict=1"],
    ["{weather}", "--nope"],
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _files(tmp_path_factory.mktemp("validate-inputs"))


def _run(code: str, args: list[str], tmp: Path) -> tuple[int, bytes, bytes, set[str]]:
    out = tmp / "modules.json"
    out.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["MODULES_OUT"] = str(out)
    proc = subprocess.run([sys.executable, "-c", code, "validate", *args], capture_output=True, stdin=subprocess.DEVNULL, cwd=ROOT, env=env, timeout=120)
    mods = set(json.loads(out.read_text())) if out.exists() else set()
    return proc.returncode, proc.stdout, proc.stderr, mods


@pytest.mark.parametrize("line", LINES, ids=[" ".join(x) or "(none)" for x in LINES])
def test_both_paths_print_the_same(line: list[str], files: dict[str, str], tmp_path: Path) -> None:
    args = [a.format(**files) for a in line]
    code, out, err, mods = _run(_MAIN, args, tmp_path)
    typer_code, typer_out, typer_err, _ = _run(_TYPER, args, tmp_path)
    assert (code, out.decode(), err.decode()) == (typer_code, typer_out.decode(), typer_err.decode())
    fast = parse(["validate", *args]) is not None
    assert ("typer" in mods) is not fast  # the plain lines load no typer; the others went to the typer app
    if fast:
        assert code in (0, 1, 2) and out  # a real result, not a refusal of the line


def test_the_plain_lines_do_load_no_typer_click_store_or_http(files: dict[str, str], tmp_path: Path) -> None:
    code, _, _, mods = _run(_MAIN, [files["weather"], files["session"]], tmp_path)
    assert code == 0
    assert "interlingua.validation" in mods  # it really validated
    heavy = {"typer", "click", "rich", "sqlalchemy", "httpx", "interlingua.mapping", "interlingua.conversion", "interlingua.transport", "interlingua.store"}
    assert sorted(m for m in mods if m in heavy or m.split(".")[0] in heavy) == []


_TOKENS = st.sampled_from(["a.json", "b.jsonl", "-", "--strict", "--no-strict", "--only-transcripts", "--quiet", "-q", "--format", "--format=json", "text", "json", "github", "yaml", "-qq", "--", "--help", "--strict=1", "-x", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=8))
def test_what_the_fast_parser_takes_click_parses_the_same(tokens: list[str]) -> None:
    parsed = parse(["validate", *tokens])
    if parsed is None:
        return
    command = load_command("validate")
    ctx = command.make_context("validate", list(tokens))  # raises a click usage error when click refuses it
    params = ctx.params
    assert list(params["paths"]) == parsed.paths
    fmt = getattr(params["fmt"], "value", params["fmt"])  # the choice's value, converted to the enum by typer or not
    assert (params["strict"], fmt, params["only_transcripts"], params["quiet"]) == (parsed.strict, parsed.fmt, parsed.only_transcripts, parsed.quiet)


def test_stdin_on_a_terminal_and_completion_go_to_the_typer_app(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    assert parse(["validate", "x.json"]) is not None
    monkeypatch.setattr(sys, "stdin", Tty())
    assert parse(["validate", "-"]) is None  # the typer command says "no input" and exits 2
    assert parse(["validate", "x.json"]) is not None
    monkeypatch.setenv("_INTERLINGUA_COMPLETE", "bash_complete")
    assert parse(["validate", "x.json"]) is None
    assert parse(["convert", "x.json"]) is None
