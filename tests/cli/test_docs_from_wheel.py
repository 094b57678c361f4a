"""Every shell command in README.md and docs/ runs as written from the built wheel, outside the repository.

The wheel is built from this checkout (``pip wheel --no-deps``) and installed with
``--no-deps`` into a fresh virtual environment; its dependencies come from the test
interpreter's own site-packages through a ``.pth`` line (no download, and the source tree
is not on the path: the test checks ``interlingua`` is imported from the wheel). The
commands run in a scratch directory holding copies of the files they name (``examples/``,
``docs/examples/``, ``tests/fixtures/real/``), in document order, and must exit with the
code the docs state (0 unless the text says otherwise; see ``EXPECTED``).

Placeholders the docs use are filled as a reader would: ``SESSION_ID`` is the id the
preceding ``store import`` printed; ``old-conversations/`` and ``transcripts/`` are made
with a legacy conversation and a transcript; ``chat.json`` is a transcript with a tool call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

pytestmark = pytest.mark.slow

EXPECTED: dict[str, int] = {
    "interlingua validate examples/transcripts/broken.json": 1,  # README: "shows one" (an invalid example)
    "interlingua convert --from canonical --to ollama --model llama3:8b chat.json": 1,  # docs/capabilities.md: exits 1
    "interlingua migrate --to sharegpt dag_compact_after_rewind.jsonl -o out.jsonl": 1,  # docs/migrating.md: 1 rejected
    "interlingua validate dag_compact_after_rewind.jsonl": 1,  # docs/migrating.md: not a transcript yet
}
"""Commands whose documented exit code is not 0."""

CLONE_ONLY = (
    "python -m pip install -e",
    "pip install -e",
    "python benchmarks/",
    "source .ci/",
)
"""Contributor commands that need the source tree (run by CI from the clone, not from a wheel)."""

INSTALLS = ("pip install interlingua", "pip install 'interlingua[")
"""The install lines themselves: the wheel install stands for them (the package is not published here)."""

EXTRA_INLINE = ["interlingua validate examples/transcripts/broken.json"]
"""Commands the README gives inline (in running text) as something to try."""


@dataclass
class DocCommand:
    source: str
    line: int
    text: str


def doc_commands() -> list[DocCommand]:
    """Shell commands from fenced ``bash``/``sh``/``console`` blocks and ``$ `` prompt lines, in order."""
    out: list[DocCommand] = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, re.S | re.M):
            lang, body = m.group(1), m.group(2)
            start = text.count("\n", 0, m.start()) + 2
            prompt_only = lang == "console" or any(ln.startswith("$ ") for ln in body.splitlines())
            if lang not in ("bash", "sh", "shell", "console") and not prompt_only:
                continue
            lines = body.splitlines()
            i = 0
            while i < len(lines):
                raw, n = lines[i], i
                i += 1
                if prompt_only:
                    if not raw.startswith("$ "):
                        continue
                    raw = raw[2:]
                if not raw.strip() or raw.lstrip().startswith("#"):
                    continue
                while raw.endswith("\\") and i < len(lines):
                    raw = raw[:-1] + " " + lines[i].strip()
                    i += 1
                out.append(DocCommand(str(path.relative_to(ROOT)), start + n, raw.strip()))
    return out


def test_the_docs_have_commands_to_run() -> None:
    cmds = doc_commands()
    assert any(c.text.startswith("interlingua convert") for c in cmds)
    assert any("store export" in c.text for c in cmds)
    assert any(c.text.startswith("interlingua replay") for c in cmds)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """(venv bin directory, environment) with the wheel installed and nothing from the source tree."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = next(dist.glob("interlingua-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True).stdout.strip())
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr
    # Dependencies from the test interpreter (a plain path line: its own .pth files, such as an
    # editable install of this checkout, are not processed).
    (site / "_interlingua_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "VIRTUAL_ENV", "PYTHONPATH", "INTERLINGUA_"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    where = subprocess.run([str(py), "-c", "import interlingua; print(interlingua.__file__)"], capture_output=True, text=True, env=env, cwd=tmp, check=True)
    assert where.stdout.strip().startswith(str(site)), where.stdout
    assert (venv / "bin" / "interlingua").exists()
    return venv / "bin", env


def _workdir(tmp: Path) -> Path:
    work = tmp / "work"
    work.mkdir()
    shutil.copytree(ROOT / "examples" / "transcripts", work / "examples" / "transcripts")
    shutil.copytree(ROOT / "examples" / "payloads", work / "examples" / "payloads")
    shutil.copytree(ROOT / "docs" / "examples", work / "docs" / "examples")
    shutil.copytree(ROOT / "tests" / "fixtures" / "real", work / "tests" / "fixtures" / "real")
    # docs/migrating.md: a real Claude Code log with a compaction boundary, named as the docs name it
    shutil.copy(ROOT / "tests" / "fixtures" / "stores" / "claude-code" / "dag_compact_after_rewind.jsonl", work)
    (work / "old-conversations").mkdir()
    legacy = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    (work / "old-conversations" / "chat1.json").write_text(json.dumps(legacy), encoding="utf-8")
    (work / "transcripts").mkdir()
    shutil.copy(ROOT / "examples" / "transcripts" / "weather.json", work / "transcripts" / "weather.json")
    shutil.copy(ROOT / "examples" / "transcripts" / "weather.json", work / "chat.json")
    # docs/history.md: a history cut by a crash (a call without its result, then a new user turn), the
    # same as two sessions of a session file, and a long session to trim
    user = {"type": "text", "role": "user", "text": "What is the weather in Paris?"}
    call = {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}
    again = {"type": "text", "role": "user", "text": "Are you there?"}
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    (work / "crashed.json").write_text(json.dumps({"schema_version": "1.0", "tools": tools, "items": [user, call, again]}), encoding="utf-8")
    lines = []
    for sid, items in (("s", [user, call, again]), ("t", [user, call])):
        lines.append({"schema_version": "1.0", "session": {"id": sid, "tools": tools}})
        lines += [{"schema_version": "1.0", "session_id": sid, "seq": n, "created_at": "2026-01-01T00:00:00Z", "item": it} for n, it in enumerate(items)]
    (work / "sessions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    turns = [{"type": "text", "role": "system", "text": "You are a travel assistant."}]
    for n in range(60):
        turns.append({"type": "text", "role": "user", "text": f"Question {n}: " + "tell me more about the trip " * 40})
        turns.append({"type": "text", "role": "assistant", "text": f"Answer {n}: " + "here is what I know about it " * 40})
    (work / "long-session.json").write_text(json.dumps({"schema_version": "1.0", "items": turns}), encoding="utf-8")
    return work


def test_every_documented_command_runs_from_the_wheel(installed: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _bin, env = installed
    work = _workdir(tmp_path)
    session_id = None
    ran: list[str] = []
    failures: list[str] = []
    commands = doc_commands()
    commands.insert(next(i for i, c in enumerate(commands) if "validate transcripts/" in c.text), *[DocCommand("README.md", 0, c) for c in EXTRA_INLINE])
    for cmd in commands:
        text = cmd.text
        if text.startswith(CLONE_ONLY):
            continue
        if text.startswith("python3 -m venv .venv && "):  # the clone's first command: its interlingua steps
            parts = [p for p in text.split(" && ") if p.startswith("interlingua ")]
            assert len(parts) == 2, text
            text = " && ".join(parts)
        if text.startswith(INSTALLS):
            continue
        if "examples/plugin_perplexity" in text or "--to perplexity" in text:
            continue  # the example plugin is built from the clone; tests/plugins runs it
        if "SESSION_ID" in text:
            assert session_id, "a store import ran before"
            text = text.replace("SESSION_ID", session_id)
        proc = subprocess.run(["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        ran.append(text)
        want = EXPECTED.get(cmd.text, 0)
        if proc.returncode != want or "Traceback" in proc.stderr:
            failures.append(f"{cmd.source}:{cmd.line}: `{text}` exited {proc.returncode}, docs say {want}\n{proc.stderr[-800:]}")
        if text.startswith("interlingua store import") and proc.returncode == 0:
            session_id = proc.stdout.strip().splitlines()[-1]
    assert not failures, "\n\n".join(failures)
    assert len(ran) >= 15, ran
    assert (work / "session.jsonl").exists() and (work / "published-schemas" / "transcript.json").exists()
