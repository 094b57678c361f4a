"""Regressions for defects found by adversarial testing (each input shape is the one that broke)."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, collect

REAL = Path(__file__).parent / "fixtures" / "real"
DEEP = "[" * 100_000 + "]" * 100_000
runner = CliRunner()


def test_deep_nesting_is_a_clear_error_in_convert(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    for args in (["--from", "anthropic", "--to", "canonical"], ["--from", "anthropic", "--to", "canonical", "--kind", "request"], ["--from", "canonical", "--to", "anthropic"]):
        res = runner.invoke(app, ["convert", *args, str(path)])
        assert res.exit_code == 1, (args, res.output)
        assert "nesting too deep" in res.stderr and "Traceback" not in res.output


def test_deep_nesting_in_a_stream_is_a_stream_error(tmp_path: Path) -> None:
    data = ('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n").encode()
    events = collect(get_mapper("ollama"), data)
    assert events[-1].__class__.__name__ == "StreamError" and len(events) == 1


def test_migrate_rejects_deep_nesting_without_a_traceback(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(deep), "-o", str(out)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    rejects = (tmp_path / "out.rejects.jsonl").read_text()
    assert "nesting too deep" in rejects


def test_migrate_crash_leaves_existing_output_untouched(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import interlingua.cli.migrate as migrate_cli

    def boom(self, migrated, sid):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(migrate_cli._JsonlSink, "write", boom)
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    out = tmp_path / "keep.jsonl"
    out.write_bytes(b"previous content\n")
    res = runner.invoke(app, ["migrate", str(src), "-o", str(out)])
    assert res.exit_code != 0 and isinstance(res.exception, RuntimeError)
    assert out.read_bytes() == b"previous content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.jsonl"]


def test_convert_output_gets_a_plain_file_mode(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src), "-o", str(out)]).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_events_after_the_end_marker_are_reported() -> None:
    stream = (REAL / "openai_chat" / "openai_python.stream_text.sse").read_bytes()
    extra = stream + b'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" EXTRA"}}]}\n\n'
    done = collect(get_mapper("openai-chat"), extra)[-1]
    assert isinstance(done, StreamDone)
    assert any("after the end marker" in str(e) for e in done.report)
    clean = collect(get_mapper("openai-chat"), stream)[-1]
    assert isinstance(clean, StreamDone) and not clean.report


def test_validate_a_directory_with_nothing_to_check_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "dir.json").mkdir()
    for target in (tmp_path / "empty", tmp_path / "dir.json"):
        res = runner.invoke(app, ["validate", str(target)])
        assert res.exit_code == 2 and "no .json or .jsonl files" in res.output
