"""Detection never guesses quietly (issue 26), checked on every real stored file of tests/fixtures/stores/.

Each file is split into conversations as ``interlingua migrate`` splits it (a log file, a JSON Lines dataset, a
JSON list, an eval set) and each conversation is detected with ``--from auto``: it must be read by the reader
its folder names, keeping every text of the source (somewhere in the transcript), or be refused with what was
tried. The folder a file sits in is the format its project says it is (README.md beside them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from interlingua._migrate.logs import open_log
from interlingua._migrate.records import _records
from interlingua.compat import FormatDetectionError, read_any
from interlingua.codec import to_builtins
from interlingua.errors import InterlinguaError
from interlingua.items import RawItem

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
FOLDER_FORMAT = {"langchain-lc": "langchain"}
"""Folders not named for their format."""
REFUSED = {
    "adk/conversation_scenario.test.json": "conversation_scenario",  # a plan for a simulated user, no conversation
    "codex/malformed/rollout-66666666-6666-4666-8666-666666666666.jsonl": ":3: not JSON",  # a malformed line
}
"""Real files that must be refused, and what the refusal says."""

FILES = sorted(p for p in STORES.rglob("*") if p.is_file() and p.name != "README.md")


def expected(path: Path) -> str:
    folder = path.relative_to(STORES).parts[0]
    return FOLDER_FORMAT.get(folder, folder)


_TEXT_KEYS = ("text", "content", "value", "body")
_PLACEHOLDERS = re.compile(r"<(?:image|video|audio)>")


def _strings(value: Any, keys: tuple[str, ...] | None, out: list[str]) -> list[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if v.strip() and (keys is None or k in keys):
                    out.append(v)
            else:
                _strings(v, keys, out)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, str):
                if v.strip() and keys is None:
                    out.append(v)
            else:
                _strings(v, keys, out)
    return out


def lost_texts(source: Any, transcript: Any) -> list[str]:
    """The texts of ``source`` (strings under text/content/value/body) found nowhere in ``transcript``. A
    string that is JSON (a ShareGPT or LLaMA-Factory call written as text) counts by its own strings; media
    placeholders (``<image>``) are items of their own, so the text around them counts piece by piece."""
    have = "\x00".join(_strings(to_builtins(transcript), None, []))
    missing: list[str] = []
    for text in _strings(source, _TEXT_KEYS, []):
        try:
            inner = json.loads(text)
        except ValueError:
            inner = None
        pieces = _strings(inner, None, []) if isinstance(inner, dict | list) else [p.strip() for p in _PLACEHOLDERS.split(text)]
        missing.extend(p for p in pieces if p and p not in have)
    return missing


def conversations(path: Path) -> list[tuple[Any, str | None]]:
    """``(value, log format)`` per conversation of ``path``, split as migrate splits it."""
    out: list[tuple[Any, str | None]] = []
    for record in _records(path):
        assert record.error is None, f"{path}: {record.error}"
        out.append((record.value, record.log))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(STORES)))
def test_each_real_file_is_read_by_its_reader_or_refused_saying_why(path: Path) -> None:
    rel = str(path.relative_to(STORES))
    want = expected(path)
    found: list[tuple[str, Any, Any]] = []
    refusals: list[str] = []
    for value, log in conversations(path):
        try:
            if log is not None:
                assert log == want, f"{rel}: detected as a {log} log"
                conv, close = open_log(path, log)
                try:
                    migrated = conv.materialize()
                finally:
                    close()
                source: Any = None
            else:
                migrated = read_any(value)
                source = value
        except (FormatDetectionError, InterlinguaError) as exc:
            refusals.append(str(exc))
            continue
        found.append((migrated.format, migrated, source))
    if rel in REFUSED:
        assert refusals and all(REFUSED[rel] in r for r in refusals), refusals
        return
    assert not refusals, refusals
    assert found
    for fmt, migrated, source in found:
        assert fmt == want, f"{rel}: read as {fmt}, not {want}"
        items = migrated.transcript.items
        assert items
        raw = sum(isinstance(i, RawItem) for i in items)
        assert raw * 2 <= len(items), f"{rel}: {raw} of {len(items)} items kept raw"  # turned raw is a guess, not a reading
        if source is not None:
            assert lost_texts(source, migrated.transcript) == [], f"{rel}: texts of the source not in the transcript"


def test_every_reader_format_has_a_real_file() -> None:
    from interlingua.compat import FORMATS

    agent_and_stored = {"claude-code", "codex", "adk", "mcp-sampling", "vercel-ui", "vercel-model", "openai-finetune", "sharegpt",
                        "llamafactory", "hf-messages", "chatgpt-export", "claude-export", "langchain"}
    assert agent_and_stored <= set(FORMATS)
    covered = {expected(p) for p in FILES}
    assert agent_and_stored <= covered, agent_and_stored - covered


def test_a_refusal_names_what_was_tried() -> None:
    """A shape no reader knows (turns keyed ``q``/``a``) is refused with the list of what detection looked for,
    never read as the last-resort guess."""
    with pytest.raises(FormatDetectionError) as info:
        read_any([{"q": "hi", "a": "Hi Alex! Welcome back."}])
    message = str(info.value)
    assert "looked for" in message and "adk" in message and "openai-chat" in message
