"""Peak memory of ``convert --from canonical --to <provider>`` does not grow with the conversation
(issue 32: 0.99 GB for ``--to openai-chat`` of a 1M-item transcript, when the body was built whole;
a session file was read whole, its bytes and every envelope).

The request is converted window by window and written as it is produced (ADR 0036); what is left
growing is the id table of the semantic checks, held in memory up to 200,000 ids and spilled to a
temporary SQLite database past that. Memory, not time, is asserted: ``VmHWM`` of the command's own
process (``ru_maxrss`` would report the forking parent's peak when that was higher: Linux keeps it
across ``exec``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_CODE = (
    "import sys; from interlingua.cli import main\n"
    "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
    "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)"
)


def _peak_kb(args: list[str]) -> int:
    proc = subprocess.run([sys.executable, "-c", _CODE, *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.strip().splitlines()[-1])


def _chat(path: Path, n: int) -> Path:
    items = [{"type": "text", "role": "system", "text": "Answer briefly."}]
    items += [{"type": "text", "role": "user" if i % 2 == 0 else "assistant", "id": f"m{i}", "text": f"message {i} " + "x" * 40} for i in range(n)]
    path.write_text(json.dumps({"schema_version": "1.0", "items": items, "tools": [{"name": "lookup", "parameters": {"type": "object"}}]}))
    return path


def _session(path: Path, n: int) -> Path:
    lines = ['{"schema_version":"1.0","session":{"id":"s","tools":[{"name":"lookup","parameters":{"type":"object"}}]}}']
    lines += [
        json.dumps({"schema_version": "1.0", "session_id": "s", "seq": i,
                    "item": {"type": "text", "role": "user" if i % 2 == 0 else "assistant", "id": f"m{i}", "text": f"message {i} " + "x" * 40}})
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("target", "make"), [("openai-chat", _chat), ("anthropic", _chat), ("openai-chat", _session), ("canonical", _session), ("pydantic-ai", _chat)]
)
def test_convert_to_a_provider_memory_does_not_grow_with_the_conversation(tmp_path: Path, target: str, make: object) -> None:
    peaks = []
    for n in (5_000, 50_000):
        doc = make(tmp_path / f"t{n}.{'jsonl' if make is _session else 'json'}", n)  # type: ignore[operator]
        out = tmp_path / f"o{n}.json"
        peaks.append(_peak_kb(["convert", "--from", "canonical", "--to", target, str(doc), "-o", str(out)]))
        body = json.loads(out.read_text())
        written = body if isinstance(body, list) else body["messages" if target != "canonical" else "items"]
        assert len(written) >= n // 2  # the whole conversation was written (pydantic-ai: a request and a response message per user and assistant text)
    growth_mb = (peaks[1] - peaks[0]) / 1024
    # before: the whole body (one dict per message) and every item were held, +~90 MB per 100,000 items
    # pydantic-ai: one report entry per text (its id does not come back), ~450 bytes each, before they were aggregated (ADR 0047)
    assert growth_mb < 15, f"peak grew by {growth_mb:.1f} MB from 5,000 to 50,000 items ({peaks})"
