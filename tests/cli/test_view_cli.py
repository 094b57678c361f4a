"""``interlingua view``: inputs (document, session file, stdin, store), output, exit codes."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args), input=stdin)
    return r.exit_code, r.stdout, r.stderr


def _sessions(tmp_path: Path) -> Path:
    out = tmp_path / "w.jsonl"
    code, _, err = _run("migrate", str(WEATHER), "-o", str(out))
    assert code == 0, err
    other = {"schema_version": "1.0", "session_id": "other", "seq": 0, "item": {"type": "text", "role": "user", "text": "second session"}}
    with out.open("ab") as fh:
        fh.write(json.dumps(other).encode() + b"\n")
    return out


def test_document_to_stdout_is_one_page_with_every_item() -> None:
    code, out, _ = _run("view", str(WEATHER))
    assert code == 0
    assert out.startswith("<!DOCTYPE html>") and out.count("<html") == 1
    doc = json.loads(WEATHER.read_text())
    nested = sum(len(i.get("content", [])) for i in doc["items"] if i["type"] == "tool_result")
    assert out.count('<div class="item ') == len(doc["items"]) + nested
    assert "What&#x27;s the weather in Paris?" in out
    assert "<script" not in out


def test_output_file_is_written_whole_and_named(tmp_path: Path) -> None:
    dest = tmp_path / "page.html"
    code, out, err = _run("view", str(WEATHER), "-o", str(dest), "--title", "Paris <weather>")
    assert code == 0 and out == ""
    assert f"wrote {dest}" in err
    page = dest.read_text(encoding="utf-8")
    assert "<title>Paris &lt;weather&gt;</title>" in page
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary file left


def test_stdin() -> None:
    code, out, _ = _run("view", "-", stdin=WEATHER.read_bytes())
    assert code == 0 and "get_weather" in out and "<title>&lt;stdin&gt;</title>" in out


def test_session_file_shows_every_session_or_the_one_picked(tmp_path: Path) -> None:
    src = _sessions(tmp_path)
    code, out, _ = _run("view", str(src))
    assert code == 0 and out.count("<section") == 2 and "second session" in out
    code, out, _ = _run("view", str(src), "--session", "other")
    assert code == 0 and out.count("<section") == 1 and "second session" in out and "Paris" not in out
    code, _, err = _run("view", str(src), "--session", "nosuch")
    assert code == 1 and "no session 'nosuch'" in err


def test_stored_session(tmp_path: Path) -> None:
    src = _sessions(tmp_path)
    url = str(tmp_path / "s.sqlite3")
    code, ids, err = _run("store", "import", "--url", url, str(src))
    assert code == 0, err
    first = ids.split()[0]
    code, out, err = _run("view", "--store", url, "--session", first)
    assert code == 0, err
    assert "get_weather" in out and out.count("<section") == 1
    code, _, err = _run("view", "--store", url, "--session", "nosuch")
    assert code == 1 and "nosuch" in err


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"schema_version": "1.0", "items": [{"type": "text", "text": 5}]}', "/items/0/text"),
        (b'{"schema_version": "1.0", "session_id": "s", "seq": 1, "item": {"type": "text", "text": "x"}}\n', "bad.jsonl:1: /seq"),
        (b"", ""),
    ],
    ids=["bad-item", "bad-seq", "empty"],
)
def test_invalid_input_exits_1_saying_where(tmp_path: Path, content: bytes, where: str) -> None:
    bad = tmp_path / "bad.jsonl" if b"session_id" in content or not content else tmp_path / "bad.json"
    bad.write_bytes(content)
    dest = tmp_path / "out.html"
    code, out, err = _run("view", str(bad), "-o", str(dest))
    assert code == 1, err
    assert err.startswith("error: invalid transcript: ") and str(bad) in err and where in err
    assert not dest.exists() and out == ""


# --------------------------------------------------------------------------- hostile input


class _Tags(HTMLParser):
    """Every start tag of a page with its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


_PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "section", "div", "span", "details", "summary", "pre", "code", "b", "br", "img", "a", "audio", "video"}


def _unsafe(page: str) -> list[str]:
    """What in ``page`` could run script or load anything: foreign tags, event handlers, links out."""
    parser = _Tags()
    parser.feed(page)
    parser.close()
    bad = [f"<{t}>" for t, _ in parser.tags if t not in _PAGE_TAGS]
    bad += [f"{t} {k}" for t, a in parser.tags for k in a if k.startswith("on") or k in ("style", "srcdoc", "formaction")]
    bad += [f"{t} href={a['href']!r}" for t, a in parser.tags if "href" in a and not (a["href"] or "").startswith("#")]
    bad += [f"{t} src" for t, a in parser.tags if "src" in a and not (a["src"] or "").startswith(("data:image/", "data:audio/", "data:video/"))]
    if [t for t, _ in parser.tags].count("meta") != 4 or page.count("<style>") != 1:
        bad.append("head changed")
    return bad


def _string_pointers(value: Any, ptr: str = "") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _string_pointers(v, f"{ptr}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_pointers(v, f"{ptr}/{i}")]
    return [ptr] if isinstance(value, str) else []


def _put(doc: Any, ptr: str, value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    *parents, last = ptr.split("/")[1:]
    cur = doc
    for part in parents:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    cur[int(last) if isinstance(cur, list) else last] = value
    return doc


_HOSTILE = st.sampled_from(
    ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' onmouseover='x", "javascript:alert(1)", "</pre></div>", "<!--", "&amp;", "<base href=//evil>", "\u2028\x00"]
)
_WEATHER_DOC = json.loads(WEATHER.read_text())


@settings(max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(ptr=st.sampled_from(_string_pointers(_WEATHER_DOC)), text=st.lists(st.one_of(_HOSTILE, st.text(max_size=8)), min_size=1, max_size=4).map("".join))
def test_hostile_text_in_any_string_field_stays_text(ptr: str, text: str) -> None:
    """Any string of the document (ids, names, arguments, metadata, media types) replaced by markup:
    the page is invalid input (exit 1) or a page whose tags are only the viewer's own."""
    code, out, err = _run("view", "-", stdin=json.dumps(_put(_WEATHER_DOC, ptr, text)).encode())
    assert code in (0, 1), err
    if code == 0:
        assert _unsafe(out) == []
    else:
        assert err.startswith("error: invalid transcript: ") and "Traceback" not in err


@pytest.mark.parametrize("kind", ["call", "media", "result", "source", "_class__", "_init__", "_repr__", "_getattribute__", "_eq__", "_unknown"])
def test_item_types_of_a_newer_version_named_like_renderer_internals_show_as_unknown(kind: str) -> None:
    """The renderer dispatched on ``getattr(self, "_" + type)``: a newer version's item named ``call`` or
    ``_class__`` reached a helper or a dunder (a TypeError traceback, or an unescaped object repr in the page)."""
    doc = {
        "schema_version": "1.1",
        "items": [
            {"type": "tool_call", "id": "c1", "name": "f", "arguments": {}},
            {"type": kind, "role": "user", "note": "<b>x</b>"},
            {"type": "tool_result", "call_id": "c1", "content": [{"type": "text", "text": "r"}]},
        ],
    }
    code, out, err = _run("view", "-", stdin=json.dumps(doc).encode())
    assert code == 0, err
    assert f"unknown item type {kind}" in out and "&lt;b&gt;x&lt;/b&gt;" in out
    assert 'class="to-result"' in out and 'class="to-call"' in out
    assert _unsafe(out) == [] and "Renderer" not in out and "NotImplemented" not in out


def test_a_title_or_file_name_that_is_not_utf8_is_shown_replaced(tmp_path: Path) -> None:
    """``--title $'\\xfe'`` or a file named with non-UTF-8 bytes (lone surrogates in Python) was a
    UnicodeEncodeError traceback when the page was encoded."""
    name = os.fsdecode(b"w\xff.json")
    src = tmp_path / name
    src.write_bytes(WEATHER.read_bytes())
    dest = tmp_path / "out.html"
    code, out, err = _run("view", str(src), "--title", os.fsdecode(b"t\xfe<i>"), "-o", str(dest))
    assert code == 0, err
    page = dest.read_text(encoding="utf-8")
    assert "<title>t\ufffd&lt;i&gt;</title>" in page
    code, out, err = _run("view", str(src))
    assert code == 0, err
    assert "w\ufffd.json</h1>" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "out.html"])
