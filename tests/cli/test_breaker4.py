"""Regressions found by breaker4 (attacks on the output-path rules and migrate's inputs).

* ``-o LOOP`` where LOOP is a loop of symbolic links: convert replaced the link with a regular file
  (the stat failed, so the path was taken for a new file and renamed over), migrate ended in a
  RuntimeError traceback (``Path.resolve`` on the loop). Now every writer refuses it, exit 2, as a
  shell's ``>`` does, and the link is left as it was.
* ``store import X.jsonl`` of a transcript document says ``interlingua migrate X.jsonl -o OUT.jsonl``
  writes a session file, but migrate read the pretty-printed document (``convert --to canonical -o
  X.jsonl`` writes one) line by line and rejected every line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
REQUEST = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.request.json"
runner = CliRunner()


def _loop(tmp_path: Path) -> Path:
    a, b = tmp_path / "loop1", tmp_path / "loop2"
    a.symlink_to(b.name)
    b.symlink_to(a.name)
    return a


def _unchanged(link: Path) -> None:
    assert link.is_symlink() and os.readlink(link) == "loop2"
    assert sorted(p.name for p in link.parent.iterdir() if p.name.startswith(".")) == []  # no temporary file


def _session_file(tmp_path: Path) -> Path:
    doc = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["migrate", str(REQUEST), "--from", "anthropic", "-o", str(doc), "-q"])
    assert res.exit_code == 0, res.stderr
    return doc


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--from", "anthropic", "--to", "openai-chat", str(REQUEST)],
        ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST)],
        ["view", "CANONICAL"],
        ["migrate", str(REQUEST), "--from", "anthropic", "-q"],
    ],
    ids=["convert", "convert-canonical", "view", "migrate"],
)
def test_an_output_that_is_a_symlink_loop_is_refused(tmp_path: Path, args: list[str]) -> None:
    link = _loop(tmp_path)
    extra = ["--rejects", str(tmp_path / "r.jsonl")] if args[0] == "migrate" else []
    if args == ["view", "CANONICAL"]:
        doc = tmp_path / "doc.json"
        assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)]).exit_code == 0
        args = ["view", str(doc)]
    res = runner.invoke(app, [*args, "-o", str(link), *extra])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr and "Traceback" not in res.stderr
    _unchanged(link)


def test_migrate_rejects_to_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "in.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\nnot json\n')
    link = _loop(tmp_path)
    res = runner.invoke(app, ["migrate", str(bad), "-o", str(tmp_path / "out.jsonl"), "--rejects", str(link), "-q"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr
    _unchanged(link)


def test_store_export_to_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(_session_file(tmp_path)), "-q"])
    assert res.exit_code == 0, res.stderr
    sid = res.stdout.split()[0]
    link = _loop(tmp_path)
    res = runner.invoke(app, ["store", "export", "--url", str(db), sid, "-o", str(link), "-q"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr
    _unchanged(link)


def test_write_jsonl_to_a_symlink_loop_raises_oserror(tmp_path: Path) -> None:
    link = _loop(tmp_path)
    with pytest.raises(OSError) as info:
        write_jsonl([], link)
    assert info.value.errno == 40 or "symbolic links" in str(info.value)
    _unchanged(link)


def test_store_import_hint_for_a_pretty_printed_document_named_jsonl_works(tmp_path: Path) -> None:
    doc = tmp_path / "conv.jsonl"  # what `convert --to canonical -o conv.jsonl` writes: one indented document
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)])
    assert res.exit_code == 0, res.stderr
    assert doc.read_bytes().startswith(b"{\n")
    db = tmp_path / "s.db"
    assert runner.invoke(app, ["store", "upgrade", "--url", str(db)]).exit_code == 0
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(doc)])
    assert res.exit_code != 0 and "interlingua migrate" in res.stderr  # the hint this test follows
    out = tmp_path / "sessions.jsonl"
    res = runner.invoke(app, ["migrate", str(doc), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "0 rejected" in res.stderr
    items = json.loads(doc.read_bytes())["items"]
    lines = out.read_bytes().splitlines()
    assert len(lines) == 1 + len(items)  # a header, then one envelope per item
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(out), "-q"])
    assert res.exit_code == 0, res.stderr


def test_migrate_jsonl_still_reads_lines(tmp_path: Path) -> None:
    """A real JSON Lines file (one compact value a line) is still read line by line."""
    body = json.loads(REQUEST.read_bytes())
    src = tmp_path / "two.jsonl"
    src.write_text(json.dumps(body) + "\n" + json.dumps(body) + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--from", "anthropic", "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "migrated 2 conversations" in res.stderr


MISTRAL_IMAGES = ROOT / "tests" / "fixtures" / "real" / "mistral" / "pai_multimodal_tool_returns_model_sees_multiple_images_mistral.1.request.json"


@pytest.mark.parametrize("to", ["anthropic", "canonical"])
def test_bad_base64_in_provider_input_is_not_called_an_invalid_transcript(tmp_path: Path, to: str) -> None:
    """A real Mistral request whose data URL is broken: the file is a provider request, not a
    transcript, so the message names the file and the format (it said ``invalid transcript: <input>``)."""
    text = MISTRAL_IMAGES.read_text()
    assert text.count(";base64,/9j/") >= 1
    bad = tmp_path / "req.json"
    bad.write_text(text.replace(";base64,/9j/", ";base64,!!/9j/", 1))
    # --policy drop: the recorded top_p is a setting Anthropic's current API lacks (refused under error first)
    res = runner.invoke(app, ["convert", "--from", "mistral", "--to", to, "--policy", "drop", str(bad)])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: mistral input read into invalid items") and "invalid transcript" not in last
    assert f"{bad}: /items/" in last and "/source/data: data is not valid base64" in last
    assert res.stdout == ""
    ok = runner.invoke(app, ["convert", "--from", "mistral", "--to", to, "--policy", "drop", str(MISTRAL_IMAGES)])
    assert ok.exit_code == 0, ok.stderr


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_migrate_reject_reason_for_a_lone_surrogate_is_not_truncated(tmp_path: Path, suffix: str) -> None:
    """msgspec says "Input data was truncated" for a lone high surrogate escape; migrate's reject
    file repeated it, which reads as a cut file. It now says what convert says, with the column."""
    body = json.loads(REQUEST.read_bytes())
    body["zz_last"] = "PLACEHOLDER"  # near the end of the record: there msgspec says "truncated"
    raw = json.dumps(body).replace("PLACEHOLDER", "a\\ud800")
    src = tmp_path / f"req{suffix}"
    src.write_text(raw + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--from", "anthropic", "-o", str(out), "-q"])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    [reject] = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    column = raw.index("\\ud800") + 1
    assert reject["reason"].startswith("not JSON: ") and "truncated" not in reject["reason"]
    assert f"column {column}: lone UTF-16 surrogate escape \\ud800" in reject["reason"]
    conv = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src)])
    assert conv.exit_code == 1 and f"column {column}: lone UTF-16 surrogate escape" in conv.stderr


@pytest.mark.parametrize(("provider", "names"), [("openai-chat:nosuch", ["groq", "lmstudio", "openrouter"]), ("openai-chat:", ["groq"]), ("anthropic:groq", ["has no variants"])])
def test_replay_unknown_provider_variant_lists_the_known_hosts(tmp_path: Path, provider: str, names: list[str]) -> None:
    """``--provider openai-chat:<host>`` with a host it does not know said only ``openai-chat:<host>
    (e.g. openai-chat:groq)``: which hosts there are was nowhere on the command line."""
    doc = tmp_path / "t.json"
    assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)]).exit_code == 0
    res = runner.invoke(app, ["replay", str(doc), "--provider", provider, "--model", "m"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert res.stderr.startswith(f"error: unknown provider {provider!r}: ")
    for name in names:
        assert name in res.stderr
    assert res.stdout == ""


REAL = ROOT / "tests" / "fixtures" / "real"


@pytest.mark.parametrize(
    ("recording", "wrong", "right"),
    [
        (REAL / "openai_chat" / "openai_python.stream_text.sse", "anthropic", "openai-chat"),
        (REAL / "openai_chat" / "openai_python.stream_text.sse", "gemini", "openai-chat"),
        (REAL / "anthropic" / "anthropic_sdk.basic_response.sse", "openai-chat", "anthropic"),
        (REAL / "anthropic" / "anthropic_sdk.basic_response.sse", "openai-responses", "anthropic"),
        (REAL / "openai_responses" / "pai_openai_responses_stream.0.response.sse", "anthropic", "openai-responses"),
    ],
)
def test_a_stream_given_the_wrong_from_names_the_format_that_reads_it(recording: Path, wrong: str, right: str) -> None:
    """A real OpenAI Chat stream read as Anthropic failed on its ``[DONE]`` line with
    'invalid JSON ... (at /33)' and no hint that --from was wrong (the hint was for streams whose
    failure had no pointer)."""
    res = runner.invoke(app, ["convert", str(recording), "--from", wrong, "--to", "canonical"])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    last = res.stderr.strip().splitlines()[-1]
    assert f"--from {right}" in last and f"--from {wrong}" not in last, last
    assert runner.invoke(app, ["convert", str(recording), "--from", right, "--to", "canonical"]).exit_code == 0


def test_a_cut_stream_of_the_right_format_gets_no_other_format_hint(tmp_path: Path) -> None:
    recording = REAL / "anthropic" / "anthropic_sdk.basic_response.sse"
    cut = tmp_path / "cut.sse"
    data = recording.read_bytes()
    cut.write_bytes(data[: data.index(b"message_stop")])
    res = runner.invoke(app, ["convert", str(cut), "--from", "anthropic", "--to", "canonical"])
    assert res.exit_code == 1
    assert "try --from" not in res.stderr and "content event" in res.stderr


@pytest.mark.parametrize("value", [[], [1, 2], ["a", None], [True]])
def test_a_list_that_is_not_messages_gets_no_message_list_hint(tmp_path: Path, value: list[object]) -> None:
    """``[1, 2]`` or ``[]`` given to convert was told 'a bare list of messages is not a request body'."""
    path = tmp_path / "x.json"
    path.write_text(json.dumps(value))
    res = runner.invoke(app, ["convert", str(path), "--from", "openai-chat", "--to", "anthropic"])
    assert res.exit_code == 1, res.stderr
    assert "expected a JSON object" in res.stderr and "list of messages" not in res.stderr


def test_a_real_message_list_keeps_its_hint(tmp_path: Path) -> None:
    body = json.loads(REQUEST.read_bytes())
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(body["messages"]))
    res = runner.invoke(app, ["convert", str(path), "--from", "anthropic", "--to", "openai-chat"])
    assert res.exit_code == 1 and "a bare list of messages is not a request body" in res.stderr


@pytest.mark.parametrize("command", [["store", "import", "--url", "DB"], ["migrate", "-o", "OUT"]])
def test_an_input_that_is_a_symlink_loop_says_so(tmp_path: Path, command: list[str]) -> None:
    """store import and migrate said 'no such file' for an input that is a symlink loop."""
    link = _loop(tmp_path)
    args = [str(tmp_path / "s.db") if a == "DB" else str(tmp_path / "o.jsonl") if a == "OUT" else a for a in command]
    res = runner.invoke(app, [*args, str(link)])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "too many levels of symbolic links" in res.stderr.lower() and "no such file" not in res.stderr
    missing = runner.invoke(app, [*args, str(tmp_path / "absent.jsonl")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr
