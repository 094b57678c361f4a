"""``interlingua view`` pages in a real headless Chromium: every real fixture, and hostile content.

Each page is loaded in Chromium (Playwright, Debian's chromium). Checked: the page makes no
request at all (every request is recorded), a screenshot is not blank, the DOM holds each item in
order with its type and text, tool calls link to their results, and no script from content runs,
with and without the page's Content-Security-Policy (so the escaping itself is tested, not only
the policy).
"""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import decode_transcript, to_builtins
from interlingua.items import Transcript
from interlingua.view import render_html

from ._pages import REAL, convertible_fixtures, real_fixture_files

pytestmark = pytest.mark.browser

_FIXTURES = convertible_fixtures()


def _load(browser: Any, page_html: str) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.route("**/*", lambda route: route.abort())
    page.set_content(page_html, wait_until="load")
    return page, requests


def _not_blank(png: bytes) -> None:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    lo, hi = img.getextrema()
    assert hi - lo > 100, "the screenshot is blank"
    dark = sum(img.histogram()[:128])
    assert dark > 200, f"only {dark} dark pixels: nothing rendered"


def test_every_fixture_that_converts_is_rendered() -> None:
    """Only error recordings (an error stream or body has no conversation) fail to convert."""
    converted = {p for p, _ in _FIXTURES}
    left = [p.relative_to(REAL).as_posix() for p in real_fixture_files() if p not in converted]
    assert all("error" in name for name in left), left
    assert len(_FIXTURES) >= 200


@pytest.mark.parametrize(("path", "doc"), _FIXTURES, ids=[p.relative_to(REAL).as_posix() for p, _ in _FIXTURES])
def test_real_fixture_renders(browser: Any, path: Path, doc: Transcript) -> None:
    page, requests = _load(browser, render_html(doc, title=path.name))
    try:
        items = [to_builtins(i) for i in doc.items]
        shown = page.eval_on_selector_all(".turn > .item", "els => els.map(e => e.dataset.type)")
        assert shown == [i["type"] for i in items]
        texts = page.eval_on_selector_all(".turn > .item.text > .text", "els => els.map(e => e.textContent)")
        assert texts == [i["text"] for i in items if i["type"] == "text"]
        for call in (i for i in items if i["type"] == "tool_call"):
            if any(r["type"] == "tool_result" and r["call_id"] == call["id"] for r in items):
                href = page.eval_on_selector_all(".item.tool_call a.to-result", "els => els.map(e => e.getAttribute('href'))")
                assert href and all(page.query_selector(h) is not None for h in href)
        reasoning = page.eval_on_selector_all("details.reasoning", "els => els.map(e => e.open)")
        assert reasoning == [False] * sum(i["type"] == "reasoning" for i in items)
        if doc.stop_reason:
            assert page.inner_text(".response").startswith("stop reason: ")
        _not_blank(page.screenshot())
        assert requests == []
    finally:
        page.close()


_HOSTILE = [
    "<script>window.__pwned = 'script'</script>",
    '<img src=x onerror="window.__pwned = \'onerror\'">',
    '"><svg onload="window.__pwned=\'svg\'">',
    "</pre></div><script>window.__pwned='close'</script>",
    "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    "javascript:window.__pwned='js-url'",
    "<a href=\"javascript:window.__pwned='a'\" id=clickme>x</a>",
]

_PIXEL = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201f3a3e6c50000000049454e44ae426082"
)).decode()


def _hostile_doc() -> Transcript:
    h = _HOSTILE
    svg = base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg' onload=\"window.__pwned='svg-data'\"/>").decode()
    doc = {
        "schema_version": "1.0",
        "tools": [{"name": h[2], "description": h[0], "parameters": {"type": "object"}}],
        "metadata": {"note": h[1]},
        "items": [
            {"type": "text", "role": "system", "text": h[0]},
            {"type": "text", "role": "user", "text": "\n".join(h)},
            {"type": "image", "role": "user", "source": {"type": "url", "url": h[5]}},
            {"type": "image", "role": "user", "source": {"type": "base64", "media_type": "image/svg+xml", "data": svg}},
            {"type": "image", "role": "user", "source": {"type": "base64", "media_type": "image/png", "data": _PIXEL}},
            {"type": "document", "role": "user", "title": h[3], "source": {"type": "text", "text": h[4]}},
            {"type": "reasoning", "text": h[1], "opaque": {"namespace": h[2], "issuer": h[0], "value": "x"}},
            {"type": "tool_call", "id": h[2], "name": h[0], "arguments": {"q": h[1]}},
            {"type": "tool_call", "id": "bad-args", "name": "search", "arguments_raw": '{"q": "<script>window.__pwned=1</script>', "arguments_error": h[3]},
            {"type": "tool_result", "call_id": h[2], "content": [{"type": "text", "text": h[3]}], "is_error": True},
            {"type": "refusal", "text": h[6]},
            {"type": "error", "code": "provider_error", "message": h[1], "provider": h[0]},
            {"type": "structured", "data": {"html": h[0]}, "schema_name": h[2]},
            {"type": "raw", "provider": h[0], "value": {"x": h[1]}},
            {"type": "future_item", "payload": h[0]},
            {"type": "text", "role": "assistant", "text": h[4]},
        ],
        "stop_reason": {"reason": "end_turn", "raw": h[0]},
        "response": {"id": h[1], "model": h[0]},
    }
    return decode_transcript(json.dumps(doc))


@pytest.mark.parametrize("csp", [True, False], ids=["with-csp", "csp-removed"])
def test_hostile_content_renders_as_text_and_runs_nothing(browser: Any, csp: bool) -> None:
    doc = _hostile_doc()
    page_html = render_html(doc, title=_HOSTILE[0])
    if not csp:
        page_html, n = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page_html)
        assert n == 1
    page, requests = _load(browser, page_html)
    try:
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.evaluate("document.scripts.length") == 0
        assert page.evaluate("document.querySelectorAll('iframe, svg, object, embed, form').length") == 0
        handlers = page.evaluate("[...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on'))")
        assert handlers == []
        hrefs = page.evaluate("[...document.querySelectorAll('[href],[src]')].map(e => e.getAttribute('href') || e.getAttribute('src'))")
        assert all(h.startswith(("#", "data:image/png;")) for h in hrefs), hrefs
        assert page.evaluate("document.querySelectorAll('img').length") == 1  # the PNG; the SVG is shown as text
        body = page.inner_text("body")
        for text in _HOSTILE:
            assert text.split("\n")[0] in body
        assert page.title() == _HOSTILE[0]
        # the item the reader does not know is shown as JSON, flagged
        assert "unknown item type future_item" in body
        assert page.eval_on_selector_all(".turn > .item", "els => els.length") == len(doc.items)
        assert requests == []
    finally:
        page.close()


def test_session_file_pages_show_each_session_and_usage(browser: Any, tmp_path: Path) -> None:
    from interlingua.session_file import read_sessions

    lines = [
        {"schema_version": "1.0", "session": {"id": "a", "tools": [{"name": "get_weather", "parameters": {"type": "object"}}]}},
        {"schema_version": "1.0", "session_id": "a", "seq": 0, "item": {"type": "text", "role": "user", "text": "hi"}},
        {"schema_version": "1.0", "session_id": "a", "seq": 1, "item": {"type": "text", "role": "assistant", "text": "hello"},
         "usage": {"input_tokens": 3, "output_tokens": 2}, "stop_reason": {"reason": "end_turn", "raw": "stop"}},
        {"schema_version": "1.0", "session_id": "b", "seq": 0, "item": {"type": "text", "role": "user", "text": "second"}},
    ]
    src = tmp_path / "two.jsonl"
    src.write_bytes(b"".join(msgspec.json.encode(line) + b"\n" for line in lines))
    page, requests = _load(browser, render_html(read_sessions(src)))
    try:
        assert page.eval_on_selector_all("section > h2", "els => els.map(e => e.textContent)") == ["session a", "session b"]
        assert page.inner_text(".response") == "stop reason: end_turn (stop) · usage: input 3, output 2 tokens"
        assert requests == []
    finally:
        page.close()
