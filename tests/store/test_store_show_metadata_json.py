"""`store show` prints a session's metadata as JSON (what a user can paste back), not a Python dict."""

from __future__ import annotations

import asyncio
import json

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.items import TextItem
from interlingua.store import SessionStore

runner = CliRunner()
META = {"who": "cli", "tags": ["a", "b"], "ok": True, "none": None, "name": "café"}


def test_show_prints_metadata_as_json(sqlite_url: str) -> None:
    async def seed() -> None:
        store = await SessionStore.open(sqlite_url)
        try:
            await store.create_session(META, session_id="s-meta")
            await store.append("s-meta", [TextItem(role="user", text="hi")])
        finally:
            await store.close()

    asyncio.run(seed())
    r = runner.invoke(app, ["store", "show", "--url", sqlite_url, "s-meta"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("metadata: ")]
    assert json.loads(line.removeprefix("metadata: ")) == META
    assert "'who'" not in line and "True" not in line and "None" not in line
