"""A SQLite store on read-only media can still be listed, shown, exported and viewed.

It answered "unable to open database file" to every command: the store opened the file for
writing and switched it to WAL. The test mounts a read-only bind of a temporary folder (root in a
sandbox that allows mounts); where mounting is not allowed it skips, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from interlingua.errors import StoreError
from interlingua.items import TextItem
from interlingua.store import SessionStore


@contextlib.contextmanager
def _read_only_view(folder: Path, mount_point: Path) -> Iterator[Path]:
    mount_point.mkdir()
    try:
        subprocess.run(["mount", "--bind", str(folder), str(mount_point)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot bind-mount here (needs root and mount rights): {exc}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount_point)], check=True, capture_output=True)
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False, capture_output=True)


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from interlingua.cli import main; main()", *argv], capture_output=True, text=True, timeout=120)


@pytest.fixture
def read_only_store(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "data"
    folder.mkdir()

    async def fill() -> None:
        store = await SessionStore.open(folder / "s.db")
        await store.create_session(session_id="abc")
        await store.append("abc", [TextItem(role="user", text="hello from a read-only disk")], expected_seq=-1)
        await store.close()

    asyncio.run(fill())
    with _read_only_view(folder, tmp_path / "ro") as ro:
        if os.access(ro, os.W_OK):
            pytest.skip("the bind mount is writable here")
        yield ro / "s.db"


def test_reading_commands_work_on_read_only_media(read_only_store: Path, tmp_path: Path) -> None:
    url = str(read_only_store)
    listed = _cli("store", "list", "--url", url)
    assert listed.returncode == 0, listed.stderr
    assert "abc" in listed.stdout
    shown = _cli("store", "show", "--url", url, "abc")
    assert shown.returncode == 0 and "hello from a read-only disk" in shown.stdout, shown.stderr
    exported = _cli("store", "export", "--url", url, "abc")
    assert exported.returncode == 0 and "hello from a read-only disk" in exported.stdout, exported.stderr
    page = tmp_path / "v.html"
    viewed = _cli("view", "--store", url, "--session", "abc", "-o", str(page))
    assert viewed.returncode == 0, viewed.stderr
    assert "hello from a read-only disk" in page.read_text()
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["s.db"]  # nothing written beside it


async def test_python_api_reads_and_refuses_writes_clearly(read_only_store: Path) -> None:
    store = await SessionStore.open(read_only_store)
    try:
        assert store.read_only
        envs = await store.load_envelopes("abc")
        assert [e.item.text for e in envs] == ["hello from a read-only disk"]  # type: ignore[union-attr]
        with pytest.raises(StoreError, match="readonly"):
            await store.append("abc", [TextItem(role="user", text="more")])
    finally:
        await store.close()


def test_writing_command_fails_cleanly(read_only_store: Path, tmp_path: Path) -> None:
    src = tmp_path / "one.jsonl"
    src.write_text(
        '{"schema_version":"1.0","session_id":"x","seq":0,"created_at":"2024-01-01T00:00:00Z",'
        '"item":{"type":"text","role":"user","text":"hi"}}\n'
    )
    proc = _cli("store", "import", "--url", str(read_only_store), "--id", "new", str(src))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "readonly" in proc.stderr
