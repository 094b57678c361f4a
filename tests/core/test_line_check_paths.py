"""The compiled line check and the pure-Python one give the same answers (issue 31, ADR 0046).

``interlingua.codec._linecheck`` (C, built at install time when a compiler is there) and
``_line_shape.pure_line_shape`` compute the JSON Lines block proof's figures. Checked here:

- the figures themselves, equal on generated near-miss bytes (punctuation, line ends, CR, BOM,
  backslashes and quotes, non-UTF-8 bytes), on every span kind the reader passes, on the fixtures
  and on the corpus's raw files;
- what users see, equal both ways: ``iter_jsonl`` records (line numbers, envelopes, error pointers
  and messages) and ``decode_items_block`` on generated streams of real items with planted
  defects (nesting at the depth limit, strings holding braces, escaped quotes and ``\\n`` escapes,
  CR/LF, BOM, non-UTF-8, split and joined lines, header lines), and on the corpus's requests
  written as a session file;
- which path is active: the compiled one whenever it is built, unless ``INTERLINGUA_PURE_PYTHON``
  forces the pure one (CI runs the codec tests both ways).

The comparisons need the compiled module; without it they are skipped with that reason (the
pure path is then the only one, and the rest of the suite tests it).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from interlingua import codec
from interlingua.codec import Limits, iter_jsonl
from interlingua.codec import _jsonl, _line_shape
from interlingua.codec._line_shape import pure_header_hint, pure_header_lines, pure_line_shape
from interlingua.items import Envelope

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CANON = FIXTURES / "canonical"
VALID = [line for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]
PACKAGE_DIR = Path(codec.__file__).parent
_HEADER = b'{"schema_version":"1.0","session":{"id":"s2"}}'
"""A session header line (what ``session_file.header_bytes("s2")`` writes)."""

sys.path.insert(0, str(ROOT / "tests"))
from corpus import _engine  # type: ignore[import-not-found,unused-ignore]  # noqa: E402


def _compiled() -> tuple[Callable[..., tuple[int, int, bool]] | None, Callable[..., bool] | None, Callable[..., list[int]] | None]:
    try:
        from interlingua.codec import _linecheck  # type: ignore[attr-defined,unused-ignore]  # noqa: PLC0415
    except ImportError:
        return None, None, None
    return _linecheck.line_shape, _linecheck.header_hint, _linecheck.header_lines


COMPILED, COMPILED_HINT, COMPILED_LINES = _compiled()
needs_compiled = pytest.mark.skipif(
    COMPILED is None, reason="the compiled line check is not built here (no C compiler at install time, or INTERLINGUA_NO_EXTENSIONS=1)"
)


def _built_library() -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        lib = PACKAGE_DIR / f"_linecheck{suffix}"
        if lib.is_file():
            return lib
    return None


# --------------------------------------------------------------------------- which path is active


def test_the_compiled_path_is_active_when_built_unless_forced_off() -> None:
    if os.environ.get("INTERLINGUA_PURE_PYTHON", "") not in ("", "0"):
        assert not _line_shape.ACCELERATED
        assert _line_shape.line_shape is pure_line_shape
        return
    if _built_library() is None:
        pytest.skip("the compiled line check is not built beside interlingua/codec (no C compiler at install time): the pure path is the one in use")
    assert _line_shape.ACCELERATED, "interlingua.codec._linecheck is built but the pure-Python line check was chosen"
    assert _line_shape.line_shape is COMPILED


@needs_compiled
def test_the_environment_variable_forces_the_pure_path() -> None:
    code = "from interlingua.codec import _line_shape as m; print(m.ACCELERATED, m.line_shape is m.pure_line_shape)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    forced = subprocess.run([sys.executable, "-c", code], env={**env, "INTERLINGUA_PURE_PYTHON": "1"}, capture_output=True, text=True, check=True)
    assert forced.stdout.split() == ["False", "True"]
    env.pop("INTERLINGUA_PURE_PYTHON", None)
    chosen = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert chosen.stdout.split() == ["True", "False"]


# --------------------------------------------------------------------------- the figures

# Bytes that matter to the proof, and bytes around them that must not.
_ALPHABET = st.sampled_from(
    [b"{", b"}", b"[", b"]", b",", b":", b"\n", b"\r", b" ", b'"', b"\\", b'\\"', b"\\n", b"a", b"1", b"\xef\xbb\xbf", b"\xff", b"\x80", b"\x00", b"}\n{", b"{{", b"[[", b"\x7b", b"\x5b", b"\xfb", b"\xdb"]
)
_CHUNKS = st.lists(_ALPHABET, max_size=120).map(b"".join)


def _spans(data: bytes) -> Iterator[tuple[int, int]]:
    """The spans the reader passes (whole data; one past the first line end to one past the last) and odd ones."""
    n = len(data)
    first, last = data.find(b"\n") + 1, data.rfind(b"\n") + 1
    yield 0, n
    yield first, last
    yield 0, last
    yield first, n
    yield min(1, n), max(n - 1, min(1, n))


@needs_compiled
@settings(max_examples=600)
@given(_CHUNKS, st.integers(min_value=-1, max_value=8), st.booleans())
@example(b"", 1, False)
@example(b"\n", 1, False)
@example(b'{"a":[1]}\n{}\n', 2, False)
@example(b"}\n{", 1, True)
@example(b"{" * 40 + b"\n" + b"[" * 17 + b"\n", 3, False)
def test_figures_are_equal_on_near_miss_bytes(data: bytes, limit: int, as_bytearray: bool) -> None:
    assert COMPILED is not None
    buf: bytes | bytearray = bytearray(data) if as_bytearray else data
    for start, end in _spans(data):
        assert COMPILED(buf, start, end, limit) == pure_line_shape(buf, start, end, limit), (data, start, end, limit)


@needs_compiled
@settings(max_examples=150)
@given(st.integers(min_value=0, max_value=70), st.integers(min_value=1, max_value=9000), st.integers(min_value=1, max_value=70))
def test_bracket_counts_past_the_vector_width_are_equal(brackets: int, filler: int, limit: int) -> None:
    # long lines: the compiled count goes 16 bytes at a time, with a byte-wise tail
    line = b"{" + b'"k":"' + b"x" * filler + b'",' + b"[" * brackets + b"]" * brackets + b"}"
    data = (line + b"\n") * 3
    assert COMPILED is not None
    assert COMPILED(data, 0, len(data), limit) == pure_line_shape(data, 0, len(data), limit)


@needs_compiled
@settings(max_examples=300)
@given(st.lists(st.sampled_from([_HEADER, b'{"schema_version":"1.0","session_id":"s","seq":0,"item":{"type":"text","text":"\\"session\\""}}',
                                 b'{"a":"' + b"x" * 41 + b'","session":1}', b'{"a":"' + b"x" * 42 + b'","session":1}', b" " + _HEADER, b"", b'"session"']), max_size=8),
       st.sampled_from([b"\n", b"\r\n"]))
def test_the_header_hint_finds_every_header_line(lines: list[bytes], end: bytes) -> None:
    assert COMPILED_HINT is not None
    data = end.join(lines) + end
    for start, stop in _spans(data):
        hint = COMPILED_HINT(data, start, stop)
        span = data[start:stop]
        headers = [run for run, is_header in _jsonl._header_runs(span if span.endswith(b"\n") else span + b"\n") if is_header]
        assert hint or not headers, (span, headers)  # a header line is never missed
        assert not hint or pure_header_hint(data, start, stop)  # it looks at fewer places than the search


_NEAR_HEADERS = [
    _HEADER,
    b'{"schema_version":"1.0","session_id":"s","seq":0,"item":{"type":"text","text":"\\"session\\""}}',
    b'{"a":"' + b"x" * 40 + b'","session":1}',  # the word at offset 49: a candidate
    b'{"a":"' + b"x" * 41 + b'","session":1}',  # at 50: not one
    b'{"a":"' + b"x" * 41 + b'","session":1,"session":2}',
    b'{"session":1,"a":"' + b"x" * 60 + b'","session":2}',
    b" " + _HEADER,  # not at the line start
    b"[" + _HEADER[1:],
    b'{"session"',
    b'{"sessio',
    b"",
    b'"session"',
    b"{",
]


@needs_compiled
@settings(max_examples=400)
@given(st.lists(st.sampled_from(_NEAR_HEADERS), max_size=8), st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.booleans())
@example([_HEADER], b"\n", False, False)
@example([b'{"a":"' + b"x" * 40 + b'","session":1}'], b"\n", True, False)
def test_the_header_lines_are_the_same_both_ways(lines: list[bytes], end: bytes, last_open: bool, as_bytearray: bool) -> None:
    # the candidate header lines, compiled and pure, on every span starting at a line start
    assert COMPILED_LINES is not None
    data: bytes | bytearray = end.join(lines) + (b"" if last_open else end)
    if as_bytearray:
        data = bytearray(data)
    for start, stop in _spans(bytes(data)):
        got = COMPILED_LINES(data, start, stop)
        assert got == pure_header_lines(data, start, stop), (bytes(data[start:stop]), got)
        # a candidate is a line start, and every header line the regex finds is among them
        assert all(at == start or data[at - 1 : at] == b"\n" for at in got)
        span = bytes(data[start:stop])
        whole = span[: span.rfind(b"\n") + 1]
        expected = [start + m.start() for m in _jsonl._HEADER_LINE.finditer(whole)]
        assert expected == got


@needs_compiled
def test_a_span_outside_the_data_is_refused() -> None:
    assert COMPILED is not None
    with pytest.raises(ValueError, match="not within"):
        COMPILED(b"{}\n", 0, 4, 3)
    with pytest.raises(ValueError, match="not within"):
        COMPILED(b"{}\n", 2, 1, 3)
    with pytest.raises(TypeError):
        COMPILED("{}\n", 0, 3, 3)
    assert COMPILED_HINT is not None
    with pytest.raises(ValueError, match="not within"):
        COMPILED_HINT(b"{}\n", 0, 4)
    assert COMPILED_LINES is not None
    with pytest.raises(ValueError, match="not within"):
        COMPILED_LINES(b"{}\n", 2, 1)
    with pytest.raises(TypeError):
        COMPILED_LINES("{}\n", 0, 3)


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".sse", ".ndjson"))


@needs_compiled
def test_figures_are_equal_on_the_fixtures() -> None:
    files = _fixture_files()
    assert len(files) > 50
    assert COMPILED is not None
    for path in files:
        data = path.read_bytes()
        for start, end in _spans(data):
            for limit in (1, 3, 63):
                assert COMPILED(data, start, end, limit) == pure_line_shape(data, start, end, limit), (path, start, end, limit)
            assert COMPILED_LINES is not None
            assert COMPILED_LINES(data, start, end) == pure_header_lines(data, start, end), (path, start, end)


# --------------------------------------------------------------------------- what users see


def _line(seq: int, item: bytes, session: str = "s1") -> bytes:
    return b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":%s}' % (session.encode(), seq, item)


def _nested(levels: int) -> bytes:
    return b'{"type":"tool_call","id":"c1","name":"f","arguments":{"a":' + b"[" * levels + b"1" + b"]" * levels + b"}}"


def _text(text: str) -> bytes:
    return b'{"type":"message","role":"user","content":[{"type":"text","text":' + json.dumps(text).encode() + b"}]}"



# Defects planted among good lines: each is one line (or a change of the line endings around it).
_DEFECTS: list[Callable[[int], bytes]] = [
    lambda i: _line(i, _nested(62)),  # at the depth limit: the item, its arguments and 62 arrays = 64 levels
    lambda i: _line(i, _nested(63)),  # one past it
    lambda i: _line(i, _nested(61)),
    lambda i: _line(i, _text('}\n{ "a": [1, {"b": "}"}] }')),  # a JSON-escaped line end between braces
    lambda i: _line(i, _text('say \\"hi\\" {[')),
    lambda i: _line(i, _text("{" * 70)),  # brackets in a string count: the careful path decides
    lambda i: _line(i, _text("caf\u00e9 \u2028 \U0001f600")),
    lambda i: _line(i, VALID[i % len(VALID)]) + b"\r",
    lambda i: b"\xef\xbb\xbf" + _line(i, VALID[i % len(VALID)]),
    lambda i: _line(i, b'{"type":"message","role":"user","content":[{"type":"text","text":"\xff\xfe"}]}'),
    lambda i: _line(i, VALID[0]).replace(b',"item":', b',\n"item":'),  # one value over two lines
    lambda i: _line(i, VALID[0]) + b" " + _line(i + 1, VALID[1]),  # two values on one line
    lambda i: _line(i, VALID[0])[:-1],  # cut short
    lambda i: b"",
    lambda i: b"   ",
    lambda i: _HEADER,
    lambda i: b'{"session":{"id":"s2","schema_version":"1.0"}}',  # a header line of the wrong shape
    lambda i: _line(i, b'{"type":"hologram","x":{"y":[1,2]}}'),
    lambda i: _line(-1, VALID[0]),
    lambda i: b"[" * 70 + b"]" * 70,
    lambda i: b'{"a":1}}\n{{"b":2}',
]


@st.composite
def _streams(draw: st.DrawFn) -> bytes:
    n = draw(st.integers(min_value=1, max_value=60))
    lines = [_line(i, VALID[draw(st.integers(0, len(VALID) - 1))]) for i in range(n)]
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=len(lines)))
        lines.insert(at, draw(st.sampled_from(_DEFECTS))(at))
    end = draw(st.sampled_from([b"\n", b"\r\n"]))
    return end.join(lines) + draw(st.sampled_from([end, b"", end + end]))


def _records(data: bytes, limits: Limits) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    for rec in iter_jsonl(io.BytesIO(data), errors="yield", limits=limits):
        if rec.error is not None:
            out.append((rec.line, [(p.pointer, p.message, p.line) for p in rec.error.problems]))
        else:
            out.append((rec.line, rec.envelope))
    return out


def _both(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> tuple[Any, Any]:
    """``read()`` with the compiled figures, then with the pure ones."""
    assert COMPILED is not None
    with monkeypatch.context() as m:
        m.setattr(_jsonl, "line_shape", COMPILED)
        m.setattr(_jsonl, "header_lines", COMPILED_LINES)
        compiled = read()
    with monkeypatch.context() as m:
        m.setattr(_jsonl, "line_shape", pure_line_shape)
        m.setattr(_jsonl, "header_lines", pure_header_lines)
        pure = read()
    return compiled, pure


@needs_compiled
@settings(max_examples=120)
@given(_streams(), st.sampled_from([codec.DEFAULT_LIMITS, Limits(max_depth=8)]))
def test_iter_jsonl_reads_near_miss_streams_the_same_both_ways(data: bytes, limits: Limits) -> None:
    with pytest.MonkeyPatch.context() as mp:
        compiled, pure = _both(mp, lambda: _records(data, limits))
    assert compiled == pure


@needs_compiled
@settings(max_examples=120)
@given(_streams(), st.sampled_from([codec.DEFAULT_LIMITS, Limits(max_depth=8)]))
def test_decode_items_block_answers_the_same_both_ways(data: bytes, limits: Limits) -> None:
    # the store's and the document stream's block path: the items alone, no final line end
    items = [line[line.find(b'"item":') + 7 : -1] if line.startswith(b'{"schema_version"') and line.endswith(b"}") else line for line in data.split(b"\n")]
    block = b"\n".join(items)
    with pytest.MonkeyPatch.context() as mp:
        compiled, pure = _both(mp, lambda: _jsonl.decode_items_block(block, len(items), limits))
    assert compiled == pure


@needs_compiled
def test_a_stream_over_several_blocks_reads_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    # > 1 MB: block boundaries, the line two blocks share, a header line and a deep line in the middle
    lines = [_line(i, VALID[i % len(VALID)]) for i in range(12000)]
    lines[6000:6000] = [_HEADER, _line(6000, _nested(62)), _line(6001, _nested(63))]
    data = b"\n".join(lines) + b"\n"
    assert len(data) > 2 * _jsonl._BLOCK_BYTES
    compiled, pure = _both(monkeypatch, lambda: _records(data, codec.DEFAULT_LIMITS))
    assert compiled == pure
    assert [n for n, v in compiled if isinstance(v, list)] == [6003]  # the line one past the depth limit


# --------------------------------------------------------------------------- the corpus


def _corpus_requests() -> list[tuple[str, Path]]:
    corpus = _engine.corpus_dir()
    if not (corpus / "manifest.tsv").is_file():
        pytest.skip(f"the corpus is not at {corpus} (set INTERLINGUA_CORPUS)")
    return [(e.format, Path(e.file)) for e in _engine.manifest(corpus)]


@needs_compiled
def test_the_corpus_reads_the_same_both_ways(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    from interlingua.errors import InterlinguaError
    from interlingua.mapping import get_mapper
    from interlingua.session_file import header_bytes

    entries = _corpus_requests()
    root = _engine.unpack(tmp_path_factory.mktemp("corpus"))
    assert COMPILED is not None
    parts: list[bytes] = []
    sessions = 0
    for fmt, rel in entries:
        raw = (root / rel).read_bytes()
        for start, end in _spans(raw):  # pretty JSON bodies and SSE streams: many lines, many brackets
            assert COMPILED(raw, start, end, 63) == pure_line_shape(raw, start, end, 63), rel
            assert COMPILED_LINES is not None
            assert COMPILED_LINES(raw, start, end) == pure_header_lines(raw, start, end), rel
        if not rel.name.endswith(".request.json"):
            continue
        try:
            transcript = get_mapper(fmt).decode_request(json.loads(raw)).value
        except (InterlinguaError, ValueError):
            continue
        sid = f"s{sessions}"
        sessions += 1
        parts.append(header_bytes(sid) + b"\n")
        parts.extend(codec.encode_envelope(Envelope(schema_version=codec.SCHEMA_VERSION, session_id=sid, seq=i, item=item)) + b"\n" for i, item in enumerate(transcript.items))
    assert sessions > 1000
    data = b"".join(parts)
    compiled, pure = _both(monkeypatch, lambda: _records(data, codec.DEFAULT_LIMITS))
    assert compiled == pure
    assert len(compiled) == len(parts)
