"""The pre-commit hook checks transcripts only, in a repository that also holds ordinary JSON.

Runs the real ``pre-commit try-repo`` against this repository (its ``.pre-commit-hooks.yaml``)
in a throwaway git repository; pre-commit installs the hook's environment from this
checkout (about a minute the first time: marked slow).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "examples" / "transcripts"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None or shutil.which("pre-commit") is None, reason="needs git and pre-commit (the dev extra)"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _repo(tmp_path: Path, *, broken: bool) -> Path:
    repo = tmp_path / "project"
    (repo / ".vscode").mkdir(parents=True)
    (repo / "transcripts").mkdir()
    (repo / "package.json").write_text(json.dumps({"name": "web", "version": "1.0.0", "scripts": {"build": "tsc"}}), encoding="utf-8")
    (repo / "tsconfig.json").write_text('{\n  // comments are allowed here\n  "compilerOptions": {"strict": true},\n}\n', encoding="utf-8")
    (repo / ".vscode" / "settings.json").write_text('{"editor.tabSize": 2}\n', encoding="utf-8")
    (repo / "data.jsonl").write_text('{"event": "click"}\n{"event": "view"}\n', encoding="utf-8")
    shutil.copy(TRANSCRIPTS / "weather.json", repo / "transcripts" / "weather.json")
    if broken:
        shutil.copy(TRANSCRIPTS / "broken.json", repo / "transcripts" / "broken.json")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    return repo


def _try_repo(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "VIRTUAL_ENV"))}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(
        ["pre-commit", "try-repo", str(ROOT), "interlingua-validate", "--all-files", "--verbose"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=900,
    )


def test_hook_passes_beside_ordinary_json_and_lists_what_it_skipped(tmp_path: Path, pre_commit_home: Path) -> None:
    proc = _try_repo(_repo(tmp_path, broken=False), pre_commit_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "interlingua validate" in out and "Passed" in out
    # pre-commit may split the files over several runs of the hook: each run lists its own skips.
    skipped = " ".join(line for line in out.splitlines() if line.startswith("skipped "))
    for name in ("package.json", "tsconfig.json", ".vscode/settings.json", "data.jsonl"):
        assert name in skipped, (name, out)
    assert "weather.json" not in skipped
    assert "1 file, 6 items, 0 errors" in out


def test_hook_still_fails_a_broken_transcript(tmp_path: Path, pre_commit_home: Path) -> None:
    proc = _try_repo(_repo(tmp_path, broken=True), pre_commit_home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert "transcripts/broken.json: /items/0/text: 42 is not of type 'string'" in proc.stdout
    assert "package.json" not in proc.stdout.split("skipped", 1)[0]  # only named as skipped
