"""Start-up: which modules a command loads, and help that matches how flags parse.

The loading test is about behaviour, not time: it runs the real console entry point in a
fresh interpreter and lists ``sys.modules`` at exit. Start-up time is measured in
``benchmarks/run.py`` (row "start-up").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import interlingua
from interlingua.cli import COMMANDS, app, load_command

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
BROKEN = ROOT / "examples" / "transcripts" / "broken.json"

# Runs the console-script entry point, then writes the loaded module names as JSON to a file.
_WRAPPER = r"""
import atexit, json, os, sys
def _dump():
    with open(os.environ["INTERLINGUA_TEST_MODULES_OUT"], "w") as fh:
        json.dump(sorted(sys.modules), fh)
atexit.register(_dump)
sys.argv = ["interlingua", *sys.argv[1:]]
from interlingua.cli import main
main()
"""

HEAVY = ("sqlalchemy", "alembic", "aiosqlite", "asyncpg", "httpx", "httpcore", "httpx_sse", "rich", "pygments", "pydantic")
HEAVY_OWN = ("interlingua.streaming.driver", "interlingua.store", "interlingua.transport", "interlingua.capabilities")


def _heavy(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if m.split(".")[0] in HEAVY or any(m == h or m.startswith(h + ".") for h in HEAVY_OWN))


def _run_cli(*args: str) -> tuple[int, set[str], str]:
    """Run ``interlingua ARGS`` in a fresh interpreter; (exit code, loaded modules, stderr)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "modules.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env["INTERLINGUA_TEST_MODULES_OUT"] = str(out)
        proc = subprocess.run([sys.executable, "-c", _WRAPPER, *args], capture_output=True, stdin=subprocess.DEVNULL, cwd=ROOT, env=env, timeout=120)
        mods = set(json.loads(out.read_text())) if out.exists() else set()
    return proc.returncode, mods, proc.stderr.decode()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--help",), 0),
        (("--version",), 0),
        (("validate", str(WEATHER)), 0),
        (("validate", "--format", "github", str(BROKEN)), 1),
        (("validate", "--help"), 0),
        (("schema", "text"), 0),
        (("models", "--source"), 0),
        (("models", "--help"), 0),
    ],
)
def test_help_and_validate_load_no_store_http_or_stream_code(args: tuple[str, ...], code: int) -> None:
    got, mods, err = _run_cli(*args)
    assert got == code, err
    assert "interlingua.cli" in mods  # the wrapper really ran the command
    assert _heavy(mods) == []


def test_the_module_check_sees_a_command_that_needs_the_store(tmp_path: Path) -> None:
    """The detector itself works: ``store list`` does load SQLAlchemy (so the test above can fail)."""
    got, mods, err = _run_cli("store", "list", "--url", str(tmp_path / "missing.sqlite3"))
    assert got == 2, err
    assert "sqlalchemy" in mods and "interlingua.store" in mods


def test_listed_help_is_each_commands_own_first_line() -> None:
    for name, (_module, short) in COMMANDS.items():
        cmd = load_command(name)
        assert cmd is not None, name
        assert (cmd.help or "").strip().splitlines()[0] == short, name


def test_version() -> None:
    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0
    assert r.stdout.strip() == f"interlingua {interlingua.__version__}"


def _all_commands() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name in COMMANDS:
        cmd = load_command(name)
        subs = getattr(cmd, "commands", None)
        if subs:
            out.extend((f"{name} {sub}", c) for sub, c in subs.items())
        else:
            out.append((name, cmd))
    return out


@pytest.mark.parametrize("name", [n for n, _ in _all_commands()])
def test_usage_and_flag_help_read_like_a_unix_tool(name: str) -> None:
    r = CliRunner().invoke(app, [*name.split(), "--help"], env={"COLUMNS": "120"})
    assert r.exit_code == 0, r.output
    usage = r.stdout.splitlines()[0]
    assert usage.startswith(f"Usage: interlingua {name} [OPTIONS]")
    assert "{" not in usage and "[[" not in usage and "<" not in usage, usage
    assert "<bool>" not in r.stdout and "<list" not in r.stdout and "<str>" not in r.stdout, r.stdout


def test_flags_parse_as_their_help_shows() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["validate", "--help"], env={"COLUMNS": "120"})
    assert "--strict / --no-strict" in r.stdout
    assert runner.invoke(app, ["validate", "--no-strict", str(WEATHER)]).exit_code == 0
    assert runner.invoke(app, ["validate", "--strict", str(WEATHER)]).exit_code == 0
    bad = runner.invoke(app, ["validate", "--strict=true", str(WEATHER)])
    assert bad.exit_code == 2  # no value is shown in the help, none is taken
    assert runner.invoke(app, ["validate", "--format", "json", str(WEATHER)]).exit_code == 0


def test_usage_lines_name_arguments_plainly() -> None:
    runner = CliRunner()
    cases = {
        "validate": "Usage: interlingua validate [OPTIONS] PATH...",
        "convert": "Usage: interlingua convert [OPTIONS] [INPUT]",
        "migrate": "Usage: interlingua migrate [OPTIONS] INPUT...",
        "replay": "Usage: interlingua replay [OPTIONS] [TRANSCRIPT]",
    }
    for name, usage in cases.items():
        r = runner.invoke(app, [name, "--help"], env={"COLUMNS": "120"})
        assert r.stdout.splitlines()[0] == usage


def test_format_names_in_from_to_help_come_from_the_registry_plugins_included() -> None:
    from interlingua.mapping import available, get_mapper
    from interlingua.mapping.registry import register

    unregister = register("toy-help-format", get_mapper("openai-chat"), source="test")
    try:
        r = CliRunner().invoke(app, ["convert", "--help"])
        assert r.exit_code == 0
        text = " ".join(r.stdout.split()).replace("- ", "-")  # help wraps at hyphens
        from_help = text[text.index("--from FORMAT") : text.index("--to FORMAT")]
        to_help = text[text.index("--to FORMAT") : text.index("--kind")]
        for name in ["canonical", *available()]:
            assert name in from_help and name in to_help, name
        assert "toy-help-format" in from_help
        replay = " ".join(CliRunner().invoke(app, ["replay", "--help"]).stdout.split()).replace("- ", "-")
        assert "toy-help-format" in replay and "anthropic" in replay
    finally:
        unregister()


def test_unknown_command_suggests_a_lazily_loaded_one() -> None:
    r = CliRunner().invoke(app, ["valdate"])
    assert r.exit_code == 2
    assert "Did you mean 'validate'" in r.output


@pytest.mark.parametrize(
    ("words", "cword", "expected", "absent"),
    [
        ("interlingua va", 1, "validate", "store"),
        ("interlingua validate --f", 2, "--format", "--strict"),
        ("interlingua store ", 2, "list", "validate"),
    ],
)
def test_shell_completion_through_the_console_entry_point(words: str, cword: int, expected: str, absent: str) -> None:
    """click's completion protocol (what the sourced bash script runs at each TAB) answers with the
    commands and options that match, through the real entry point in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update({"_INTERLINGUA_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)})
    code = "import sys; sys.argv = ['interlingua']; from interlingua.cli import main; main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    answers = proc.stdout.split()
    assert expected in answers
    assert absent not in answers


def test_shell_completion_script_is_printed() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["_INTERLINGUA_COMPLETE"] = "source_bash"
    code = "import sys; sys.argv = ['interlingua']; from interlingua.cli import main; main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "_INTERLINGUA_COMPLETE=complete_bash" in proc.stdout
    assert "complete " in proc.stdout


def test_startup_leaves_the_collector_on_for_the_command(tmp_path: Path) -> None:
    """main() holds the cyclic collector off only during start-up: the command itself runs with it on."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import gc, sys\n"
        "import interlingua.cli._validate_run as v\n"  # the command body both entry paths run
        "orig = v.validate_path\n"
        "def spy(*a, **k):\n"
        "    print('gc-enabled', gc.isenabled(), file=sys.stderr)\n"
        "    return orig(*a, **k)\n"
        "v.validate_path = spy\n"
        f"sys.argv = ['interlingua', 'validate', {str(WEATHER)!r}]\n"
        "from interlingua.cli import main\n"
        "main()\n"
    )
    assert __import__("gc").isenabled()
    import interlingua.cli  # importing the module (as a library does) leaves the collector as it was

    assert __import__("gc").isenabled()
    proc = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "gc-enabled True" in proc.stderr
