"""A session file is told from a transcript document by its first line's top-level keys.

Found by a new user: a session whose header's tools hold an array parameter (``"items"`` in the JSON
Schema) was read as a document ("trailing characters") by convert, replay, trim and
``read_transcript``; real case: the Glaive ShareGPT records of LLaMA-Factory, migrated with ``-o``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from interlingua.session_file import looks_like_session_file

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from interlingua.cli import main; main()"]
GLAIVE = ROOT / "tests" / "fixtures" / "stores" / "sharegpt" / "glaive_toolcall_en_demo_3.json"


def test_header_with_items_in_its_tools_is_a_session_file() -> None:
    header = {"schema_version": "1.0", "session": {"id": "s", "tools": [{"name": "f", "parameters": {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}}}]}}
    assert looks_like_session_file(json.dumps(header).encode() + b"\n{}")
    doc = {"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": 'a "session_id" in a text'}]}
    assert not looks_like_session_file(json.dumps(doc).encode() + b"\n")
    assert not looks_like_session_file(json.dumps(doc, indent=2).encode())


def test_migrated_glaive_sessions_convert(tmp_path: Path) -> None:
    out = tmp_path / "sg.jsonl"
    proc = subprocess.run([*CLI, "migrate", str(GLAIVE), "--from", "sharegpt", "-o", str(out), "-q"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ids = [json.loads(line)["session"]["id"] for line in out.read_text().splitlines() if line.startswith('{"schema_version":"1.0","session":')]
    assert len(ids) == 3
    with_tools = 0
    for sid in ids:
        conv = subprocess.run([*CLI, "convert", "--from", "canonical", "--to", "openai-chat", "--model", "gpt-4o", "--session", sid, str(out)], capture_output=True, text=True, timeout=120)
        assert conv.returncode == 0, conv.stderr
        with_tools += bool(json.loads(conv.stdout).get("tools"))
    assert with_tools >= 1  # the sessions whose header tools hold "items" were the ones misread
