"""``migrate --store`` on a full disk names the store, not standard output (issue 32: "error: cannot write
standard output: No space left on device", rc 2, although nothing was written to stdout)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.cli import migrate as migrate_cli


@pytest.mark.parametrize(("url", "shown"), [("s.db", "the store s.db"), ("postgresql://u:secret@127.0.0.1:5432/db", "the store postgresql://u:***@127.0.0.1:5432/db")])
def test_a_full_disk_under_the_store_names_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, shown: str) -> None:
    def full(*_a: object, **_k: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(migrate_cli, "run", full)
    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    result = CliRunner().invoke(app, ["migrate", "--from", "openai-chat", "--store", url, str(src)])
    assert result.exit_code == 2
    assert f"cannot write {shown}: No space left on device" in result.output
    assert "standard output" not in result.output
    assert "secret" not in result.output
