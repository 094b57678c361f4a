"""What the README and docs claim (recipes, exit codes, flags, formats, OpenTelemetry attributes), checked on the
real commands and the real recorded payloads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
WEATHER = EXAMPLES / "transcripts" / "weather.json"


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args), input=stdin)
    return r.exit_code, r.stdout, r.stderr


# ---------------------------------------------------------------- 5: malformed (not JSON) input exits 1


ANTHROPIC_BODY = EXAMPLES / "payloads" / "anthropic_parallel_tools.request.json"


@pytest.mark.parametrize(
    "args",
    [
        ("convert", "--from", "anthropic", "--to", "openai-chat"),
        ("convert", "--from", "canonical", "--to", "openai-chat"),
        ("validate",),
        ("migrate", "-o", "OUT"),
        ("view",),
    ],
)
def test_input_that_is_not_json_exits_1_as_the_docs_say(tmp_path: Path, args: tuple[str, ...]) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"garbage\n")
    code, out, err = _run(*[str(tmp_path / "out.jsonl") if a == "OUT" else a for a in args], str(garbage))
    assert code == 1, out + err
    assert "JSON" in out + err or "reject" in out + err


def test_store_import_of_input_that_is_not_json_exits_1(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"garbage\n")
    code, _, err = _run("store", "import", "--url", str(tmp_path / "s.sqlite3"), str(garbage))
    assert code == 1, err


def test_capabilities_doc_gives_the_exit_code_the_commands_give() -> None:
    text = (ROOT / "docs" / "capabilities.md").read_text()
    assert "input\n    that is not JSON where JSON is needed" not in text
    assert re.search(r"`1`: refused \([^)]*not JSON", text, re.S), "capabilities.md: exit 1 lists input that is not JSON"


def test_replay_doc_states_the_max_tokens_convert_and_replay_add() -> None:
    body = EXAMPLES / "payloads" / "openai_chat_audio.request.json"
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", "--policy", "drop", "--model", "claude-sonnet-4-5", str(body))
    assert code == 0, err
    sent = json.loads(out)["max_tokens"]
    line = next(ln for ln in err.splitlines() if "max_tokens" in ln and "added" in ln)
    doc = " ".join((ROOT / "docs" / "replay.md").read_text().split())
    said = f"max_tokens {sent} added: required by Anthropic, from the model table (claude-sonnet-4-5*: output limit 64000 needs streaming with the official clients; {sent} is the largest they send without it)"
    assert sent == 21333 and said in line and said in doc
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", "--policy", "drop", str(body))
    assert code == 0, err
    assert json.loads(out)["max_tokens"] == 4096 and "else 4096" in doc
    assert "| `provider_error` |" in doc


def test_format_doc_documents_every_settings_field_and_document_member() -> None:
    text = (ROOT / "docs" / "format.md").read_text()
    settings = json.loads((ROOT / "schemas" / "settings.json").read_text())
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    for name in settings["properties"]:
        assert f"| `{name}` |" in section, name
    for dname, d in settings["$defs"].items():
        assert f"### {dname}" in section
    shape = text.split("A **transcript document** is `", 1)[1].split("`", 1)[0]
    for name in json.loads((ROOT / "schemas" / "transcript.json").read_text())["properties"]:
        assert f'"{name}":' in shape, name
    assert "--setting KEY=JSON" in section


@pytest.mark.parametrize("flag", ["top_k=-1", "nosuch=1", "top_k"])
def test_a_setting_the_schema_refuses_is_a_usage_error_as_format_md_says(flag: str) -> None:
    code, out, err = _run("replay", "--provider", "ollama", "--setting", flag, str(WEATHER))
    assert code == 2 and out == ""
    assert err.startswith("error:") and ("setting" in err)


def test_readme_recipe_from_convert_request_to_a_stored_session(tmp_path: Path) -> None:
    import asyncio

    import msgspec

    import interlingua as il
    from interlingua.store import SessionStore

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "il.decode_transcript(msgspec.json.encode(out.value))" in readme
    body = json.loads(ANTHROPIC_BODY.read_text())
    out = il.convert_request(body, source="anthropic", target="canonical")
    assert isinstance(out.value, dict)  # what the README says it is
    t = il.decode_transcript(msgspec.json.encode(out.value))
    assert t.tools and t.settings

    async def store_it() -> tuple[int, object]:
        store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}")
        try:
            sid = await store.create_session(tools=t.tools, settings=t.settings)
            await store.append(sid, t.items, expected_seq=-1)
            back = await store.load(sid)
            return len(back.items), back.settings
        finally:
            await store.close()

    n, settings = asyncio.run(store_it())
    assert n == len(t.items) and settings == t.settings
    store_doc = (ROOT / "docs" / "store.md").read_text()
    assert "tool_choice=None, settings=None) -> id" in store_doc and "tool_choice=, settings=) -> effective_seq" in store_doc


def test_the_commands_the_readme_says_take_quiet_take_it(tmp_path: Path) -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "long runs of `validate`, `migrate`, `store import` and `store export` show progress on stderr (their `--quiet` turns it off" in readme
    out = tmp_path / "w.jsonl"
    assert _run("validate", "--quiet", str(WEATHER))[0] == 0
    assert _run("migrate", "--quiet", str(WEATHER), "-o", str(out))[0] == 0
    url = str(tmp_path / "s.sqlite3")
    code, sid, err = _run("store", "import", "--quiet", "--url", url, str(out))
    assert code == 0, err
    assert _run("store", "export", "--quiet", "--url", url, sid.strip())[0] == 0


def test_readme_otel_example_gives_the_attributes_it_names() -> None:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"# straight from a provider request: ([^\n]+)\n(interlingua convert [^\n]+)\n", text)
    assert m, "README: the otel example from a provider request"
    names = [n.strip() for n in m.group(1).split(",")]
    args = m.group(2).split()[1:]
    args[-1] = str(ROOT / args[-1])
    code, out, err = _run(*args)
    assert code == 0, err
    attrs = json.loads(out)
    for name in names:
        assert attrs.get(name), name


def test_docs_name_every_builtin_format_and_agree_with_the_benchmarks() -> None:
    from interlingua.mapping.registry import BUILTIN

    readme = (ROOT / "README.md").read_text()
    formats = readme.split("\nFormats: ", 1)[1].split("`--kind", 1)[0]
    for name in BUILTIN:
        assert f"`{name}`" in formats, name
    assert "--dialect" in formats
    bench = (ROOT / "docs" / "benchmarks.md").read_text()
    # the per-command memory table's validate rows of the big JSON Lines files, as the README quotes them
    readme_flat = " ".join(readme.split())
    rows = [ln for ln in bench.splitlines() if ln.startswith("| `validate` | JSON Lines, ") and " sessions, " in ln]
    assert len(rows) == 2, rows
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        size = re.search(r"([\d,]+) MB$", cells[1]).group(1)  # type: ignore[union-attr]
        sessions = re.search(r"JSON Lines, ([\d,]+) sessions", cells[1]).group(1).replace(",", "")  # type: ignore[union-attr]
        peak = round(float(cells[2].removesuffix(" MB")))
        assert f"{size} MB with {int(sessions) // 1000}k sessions: {peak} MB" in readme_flat, row
    plugins = (ROOT / "docs" / "plugins.md").read_text()
    assert "five built-in" not in plugins and "history.json --from openai-chat" not in plugins
    assert (ROOT / "docs" / "capabilities.md").read_text().count("The full syntax:") == 1
    corpus = " ".join((ROOT / "docs" / "corpus.md").read_text().split())
    assert "are not carried by design" not in corpus and "carried in the transcript's `settings`" in corpus


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_readme_pre_commit_snippet_runs_as_written(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    pre_commit = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")
    if pre_commit is None:
        pytest.skip("needs pre-commit (the dev extra)")
    readme = (ROOT / "README.md").read_text()
    block = readme.split("As a pre-commit hook", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    assert "rev: v0.1.0" not in readme and "repo: local" in block
    repo = tmp_path / "project"
    (repo / "transcripts").mkdir(parents=True)
    (repo / "package.json").write_text('{"name": "web"}')
    shutil.copy(WEATHER, repo / "transcripts" / "weather.json")
    (repo / ".pre-commit-config.yaml").write_text("repos:\n" + "".join(f"  {ln}\n" for ln in block.splitlines()))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    ok = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    shutil.copy(EXAMPLES / "transcripts" / "broken.json", repo / "transcripts" / "broken.json")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    bad = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "broken.json" in bad.stdout, bad.stdout + bad.stderr


def test_dir_of_the_package_lists_its_public_names_only() -> None:
    import interlingua as il

    names = dir(il)
    assert "annotations" not in names and "TYPE_CHECKING" not in names
    assert "convert_request" in names and names == sorted(il.__all__)
    assert all(hasattr(il, n) for n in names)
