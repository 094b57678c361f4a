"""Session files: several sessions per file, headers with settings, one reader for every command."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.errors import DocumentError
from interlingua.items import Settings
from interlingua.session_file import header_bytes, read_conversation, read_sessions, session_lines
from interlingua.codec import read_transcript

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "transcripts"
runner = CliRunner()


def _session_file(tmp_path: Path) -> tuple[Path, list]:
    """Every shipped example transcript as one session of one file, with settings on each header."""
    docs = [read_transcript(p) for p in sorted(EXAMPLES.glob("*.json")) if p.name != "broken.json"] * 3
    out = bytearray()
    for n, doc in enumerate(docs):
        settings = Settings(model="claude-sonnet-4-5", max_output_tokens=100 + n, temperature=0.5)
        header = header_bytes(f"s{n}", tools=doc.tools or None, settings=settings, metadata={"n": n})
        out += b"".join(session_lines(f"s{n}", doc.items, header=header))
    path = tmp_path / "many.jsonl"
    path.write_bytes(bytes(out))
    return path, docs


def test_several_sessions_read_back_one_at_a_time(tmp_path: Path) -> None:
    path, docs = _session_file(tmp_path)
    blocks = list(read_sessions(path))
    assert [b.session_id for b in blocks] == [f"s{n}" for n in range(len(docs))]
    for n, (block, doc) in enumerate(zip(blocks, docs)):
        t = block.transcript()
        assert t.items == doc.items and t.metadata == {"n": n}
        assert t.settings == Settings(model="claude-sonnet-4-5", max_output_tokens=100 + n, temperature=0.5)
        assert [e.seq for e in block.envelopes] == list(range(len(doc.items)))
    # validate accepts the file as written.
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 0


def test_read_conversation_needs_a_pick_among_several(tmp_path: Path) -> None:
    path, docs = _session_file(tmp_path)
    with pytest.raises(DocumentError, match="several sessions .*--session"):
        read_conversation(path)
    assert read_conversation(path, session="s1").items == docs[1].items
    with pytest.raises(DocumentError, match="no session 'nope'"):
        read_conversation(path, session="nope")
    # The same from bytes (stdin), and a document read as a document.
    assert read_conversation(path.read_bytes(), session="s0").items == docs[0].items
    doc = next(p for p in sorted(EXAMPLES.glob("*.json")) if p.name != "broken.json")
    assert read_conversation(doc) == read_transcript(doc)
    with pytest.raises(DocumentError, match="transcript document, not a session file"):
        read_conversation(doc, session="s0")


@pytest.mark.parametrize(
    "lines, where, message",
    [
        ([], None, "no session in the file"),
        (["", "   "], None, "no session in the file"),
        (['{"schema_version":"1.0","session":{"id":"a"}}', '{"schema_version":"1.0","session_id":"b","seq":0,"item":{"type":"text","role":"user","text":"x"}}'], 2, "differs from the header"),
        (['{"schema_version":"1.0","session_id":"a","seq":0,"item":{"type":"text","role":"user","text":"x"}}', '{"schema_version":"1.0","session_id":"a","seq":0,"item":{"type":"text","role":"user","text":"x"}}'], 2, "a second conversation"),
        (['{"schema_version":"1.0","session_id":"a","seq":0,"item":{"type":"text","role":"user","text":"x"}}', '{"schema_version":"1.0","session_id":"b","seq":0,"item":{"type":"text","role":"user","text":"x"}}', '{"schema_version":"1.0","session_id":"a","seq":0,"item":{"type":"text","role":"user","text":"x"}}'], 3, "appears twice"),
        (['{"schema_version":"1.0","session":{"id":"a","metadata":null}}'], 1, "metadata"),
        (['{"schema_version":"1.0","session":{"id":"a","tools":null}}'], 1, "tools"),
        (['{"schema_version":"1.0","session":{"id":"a","extra":1}}'], 1, "unknown field"),
        (['{"schema_version":"1.0","session":{"id":"a","fork_seq":99999999999999999999}}'], 1, ""),
        (['{"schema_version":"1.0","session":{"id":"a","changes":[{"change_no":0,"effective_seq":-5}]}}'], 1, ">= 0"),
        (['{"schema_version":"1.0","session":{"id":"a","settings":{"temperature":"hot"}}}'], 1, "settings"),
    ],
)
def test_bad_session_files_are_refused_with_a_line(tmp_path: Path, lines: list[str], where: int | None, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + ("\n" if lines else ""))
    with pytest.raises(DocumentError) as ei:
        list(read_sessions(path))
    problem = ei.value.problems[0]
    assert problem.file == str(path) and problem.line == where
    assert message in str(problem), str(problem)


def test_a_deep_header_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    deep = "[" * 10_000 + "]" * 10_000
    path = tmp_path / "deep.jsonl"
    path.write_text('{"schema_version":"1.0","session":{"id":"a","metadata":{"x":' + deep + "}}}\n")
    with pytest.raises(DocumentError):
        list(read_sessions(path))
    for argv in (["validate", str(path)], ["store", "import", "--url", str(tmp_path / "s.sqlite3"), str(path)]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 1 and "Traceback" not in result.output, (argv, result.output)


def test_header_never_writes_nulls() -> None:
    line = header_bytes("s", metadata=None, tools=None, tool_choice=None, settings=None, extra={"parent_id": None})
    assert msgspec.json.decode(line) == {"schema_version": "1.0", "session": {"id": "s"}}
