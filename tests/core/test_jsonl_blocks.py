"""iter_jsonl reads whole blocks in one typed pass: every per-line check must still fire.

The block path (`_jsonl._decode_block`) may only accept what the line-by-line path accepts
unchanged; on any doubt it falls back. These tests compare ``iter_jsonl`` with a reference that
decodes each line on its own through ``decode_envelope``, on the canonical example items (every
item type), with bad lines planted among many good ones.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua import codec
from interlingua.codec import _jsonl
from interlingua.codec import Limits, decode_envelope, iter_jsonl
from interlingua.errors import DocumentError, LimitError

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [line for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]
INVALID = [line for line in (CANON / "invalid_items.jsonl").read_bytes().splitlines() if line.strip()]


def _line(seq: int, item: bytes, session: str = "s1", version: str = "1.0") -> bytes:
    return b'{"schema_version":"%s","session_id":"%s","seq":%d,"item":%s}' % (version.encode(), session.encode(), seq, item)


def _good(n: int) -> list[bytes]:
    return [_line(i, VALID[i % len(VALID)]) for i in range(n)]


def _reference(data: bytes, limits: Limits = codec.DEFAULT_LIMITS) -> list[tuple[int, object]]:
    """Each non-blank line decoded alone: (line number, envelope or error problems)."""
    out: list[tuple[int, object]] = []
    for n, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            out.append((n, decode_envelope(line.strip(), limits=limits)))
        except DocumentError as exc:
            out.append((n, [(p.pointer, p.message) for p in exc.problems]))
    return out


def _read(data: bytes, limits: Limits = codec.DEFAULT_LIMITS) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    for rec in iter_jsonl(io.BytesIO(data), errors="yield", limits=limits):
        if rec.error is not None:
            out.append((rec.line, [(p.pointer, p.message.replace("last line is truncated (no newline, does not parse): ", "")) for p in rec.error.problems]))
        else:
            out.append((rec.line, rec.envelope))
    return out


def _deep(levels: int) -> bytes:
    return b'{"type":"tool_call","id":"c1","name":"f","arguments":{"a":' + b"[" * levels + b"1" + b"]" * levels + b"}}"


BAD_LINES = {
    "deep arguments": _line(0, _deep(70)),
    "newer major": _line(0, VALID[0], version="2.0"),
    "newer minor with an unknown item": _line(0, b'{"type":"hologram","x":1}', version="1.1"),
    "older major": _line(0, VALID[0], version="0.9"),
    "negative seq": _line(-1, VALID[0]),
    "empty session": _line(0, VALID[0], session=""),
    "unknown item type": _line(0, b'{"type":"hologram","x":1}'),
    "two envelopes on one line": _line(0, VALID[0]) + b" " + _line(1, VALID[0]),
    "not JSON": b"{not json}",
    "NaN": _line(0, b'{"type":"tool_call","id":"c","name":"f","arguments":{"x":NaN}}'),
    "an invalid item": _line(0, INVALID[0]),
    "a JSON array": b"[1, 2]",
    "bad base64 in an image": _line(0, b'{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo"},"role":"user"}'),
    "bad base64 in a tool result": _line(
        0, b'{"type":"tool_result","call_id":"c1","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"a b="}}]}'
    ),
    "bad base64 behind an escaped tag": _line(0, b'{"type":"image","source":{"type":"\\u0062ase64","media_type":"image/png","data":"!!!!"},"role":"user"}'),
}


PRESERVED = {"newer minor with an unknown item", "unknown item type"}


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_bad_line_among_good_ones_is_reported_on_its_line(name: str) -> None:
    lines = _good(400)
    lines.insert(217, BAD_LINES[name])
    data = b"\n".join(lines) + b"\n"
    got = _read(data)
    assert got == _reference(data)
    line, value = got[217]
    assert line == 218
    if name in PRESERVED:  # kept as an unknown item (preserving mode), not by the block path's typed decode
        assert isinstance(value.item, codec.UnknownItem), value  # type: ignore[attr-defined]
    else:
        assert isinstance(value, list), (name, value)


def test_value_spanning_two_lines_is_not_joined() -> None:
    # `{...,"seq":0,` / `"item":...}` are each invalid alone; a whitespace-agnostic reader would join them
    env = _line(5, VALID[0])
    head, tail = env.split(b',"item":', 1)
    lines = _good(50) + [head + b",", b'"item":' + tail, _line(1, VALID[0]) + b" " + _line(2, VALID[0])] + _good(50)
    data = b"\n".join(lines) + b"\n"
    got = _read(data)
    assert got == _reference(data)
    assert all(isinstance(v, list) for _n, v in got[50:53])


def test_blank_lines_crlf_and_surrounding_space_keep_line_numbers() -> None:
    lines = _good(30)
    lines[3] = b""
    lines[7] = b"  " + lines[7] + b"\r"
    data = b"\n".join(lines) + b"\n\n"
    assert _read(data) == _reference(data)


def test_depth_limit_fires_in_a_large_block() -> None:
    lines = _good(300) + [_line(0, _deep(63))]  # 63 + item + arguments > 64
    data = b"\n".join(lines) + b"\n"
    with pytest.raises(LimitError, match="nesting deeper"):
        list(iter_jsonl(io.BytesIO(data)))
    ok = _good(300) + [_line(0, _deep(40))]
    assert len(list(iter_jsonl(io.BytesIO(b"\n".join(ok) + b"\n")))) == 301


def test_small_limits_disable_the_block_path() -> None:
    lines = _good(40)
    data = b"\n".join(lines) + b"\n"
    limits = Limits(max_item_bytes=150)
    got = _read(data, limits)
    assert got == _reference(data, limits)
    assert any(isinstance(v, list) for _n, v in got)


def test_header_line_then_block() -> None:
    header = b'{"schema_version":"1.0","session":{"id":"s1","created_at":"2026-11-30T00:00:00Z"}}'
    data = header + b"\n" + b"\n".join(_good(400)) + b"\n"
    recs = list(iter_jsonl(io.BytesIO(data), errors="yield"))
    assert recs[0].header is not None and recs[0].error is None, recs[0]
    assert [r.line for r in recs[1:]] == list(range(2, 402))
    assert all(r.envelope is not None for r in recs[1:])


def test_lines_across_block_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_jsonl, "_BLOCK_BYTES", 700)
    lines = _good(200)
    lines[111] = BAD_LINES["deep arguments"]
    data = b"\n".join(lines)  # last line without a newline
    assert _read(data) == _reference(data)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(BAD_LINES)), max_size=4),
    st.lists(st.integers(min_value=0, max_value=299), min_size=4, max_size=4),
    st.sampled_from([200, 1000, 1 << 20]),
)
def test_block_reader_agrees_with_line_reader(bad: list[str], where: list[int], block: int) -> None:
    old = _jsonl._BLOCK_BYTES
    _jsonl._BLOCK_BYTES = block
    try:
        lines = _good(300)
        for name, pos in zip(bad, where):
            lines[pos] = BAD_LINES[name]
        data = b"\n".join(lines) + b"\n"
        assert _read(data) == _reference(data)
    finally:
        _jsonl._BLOCK_BYTES = old


def test_canonical_examples_are_what_the_block_path_reads() -> None:
    # sanity: the good lines really are decoded by the block path, not the fallback
    data = b"\n".join(_good(100)) + b"\n"
    envs = _jsonl._decode_block(data, codec.DEFAULT_LIMITS)
    assert envs is not None and [e.seq for e in envs] == list(range(100))
    assert [json.loads(codec.encode_envelope(e))["item"] for e in envs[: len(VALID)]] == [json.loads(v) for v in VALID]


def _semantic_reference(data: bytes) -> list[tuple[int | None, str, str]]:
    """validate_jsonl_stream's problems when every line goes the careful way (block path off)."""
    from interlingua.validation import validate_jsonl_stream

    old = _jsonl._decode_block
    _jsonl._decode_block = lambda *args: None
    try:
        r = validate_jsonl_stream(io.BytesIO(data), file="f")
    finally:
        _jsonl._decode_block = old  # type: ignore[assignment]
    return [(p.line, p.pointer, p.message) for p in r.problems]


def test_semantic_checks_fire_in_the_block_path() -> None:
    from interlingua.validation import validate_jsonl_stream

    lines = [_line(i, b'{"type":"text","text":"t%d","role":"user","id":"i%d"}' % (i, i)) for i in range(300)]
    lines[10] = _line(10, b'{"type":"text","text":"no role"}')  # top-level content needs a role
    lines[20] = _line(20, b'{"type":"text","text":"dup","role":"user","id":"i3"}')  # duplicate id
    lines[30] = _line(30, b'{"type":"tool_result","call_id":"nope","content":[{"type":"text","text":"x"}]}')  # orphan result
    lines[40] = _line(39, b'{"type":"text","text":"x","role":"user"}')  # seq does not increase
    lines[50] = _line(50, b'{"type":"tool_call","id":"c9","name":"f"}')  # no arguments
    lines[60] = _line(60, b'{"type":"tool_result","call_id":"c9","content":[{"type":"text","text":"x","role":"user"}]}')  # nested role
    data = b"\n".join(lines) + b"\n"
    assert _jsonl._decode_block(data, codec.DEFAULT_LIMITS) is not None  # these lines do take the block path
    r = validate_jsonl_stream(io.BytesIO(data), file="f")
    got = [(p.line, p.pointer, p.message) for p in r.problems]
    assert got == _semantic_reference(data)
    assert [line for line, _p, _m in got] == [11, 21, 31, 41, 51, 61]
    assert r.items == 300


def test_compact_checker_reports_what_item_checker_reports() -> None:
    # validate_jsonl_stream keeps a _CompactChecker per session: same problems, same order, as ItemChecker
    from interlingua.codec import decode_item
    from interlingua.validation._semantic import ItemChecker, _CompactChecker

    items = [decode_item(v) for v in VALID]
    extra = [
        b'{"type":"tool_call","id":"c1","name":"f","arguments":{}}',
        b'{"type":"tool_call","id":"c1","name":"f","arguments":{}}',  # duplicate id
        b'{"type":"tool_result","call_id":"c1","content":[]}',
        b'{"type":"tool_result","call_id":"c2","content":[{"type":"text","text":"x","role":"user"}]}',  # orphan, nested role
        b'{"type":"handoff_call","id":"h1","target":"b"}',
        b'{"type":"handoff_result","call_id":"h1","content":[]}',
        b'{"type":"handoff_result","call_id":"c1","content":[]}',  # a tool call id is not a handoff
        b'{"type":"tool_result","call_id":"h1","content":[]}',  # a handoff id is not a tool call
        b'{"type":"text","text":"x","id":"h1","role":"user"}',  # duplicate of a handoff id
        b'{"type":"text","text":"no role"}',
        b'{"type":"hologram"}',  # unknown: preserved, not checked
    ]
    items += [decode_item(e) for e in extra]
    a, b = ItemChecker(), _CompactChecker()
    for n, item in enumerate(items * 2):
        assert a.check(item, f"/{n}") == b.check(item, f"/{n}"), item


_HEADER = b'{"schema_version":"1.0","session":{"id":"s2","created_at":"2026-01-01T00:00:00Z"}}'


def _regex_runs(data: bytes) -> list[tuple[bytes, bool]]:
    """``_header_runs`` without its pre-check: the line-start regex alone decides."""
    out: list[tuple[bytes, bool]] = []
    start = 0
    for m in _jsonl._HEADER_LINE.finditer(data):
        if not _jsonl._looks_like_header(m.group().strip()):
            continue
        if m.start() > start:
            out.append((data[start : m.start()], False))
        out.append((m.group(), True))
        start = m.end()
    if start < len(data):
        out.append((data[start:], False))
    return out


@settings(max_examples=200, deadline=None)
@given(pad=st.integers(0, 80), where=st.sampled_from(["key", "value", "header"]), n=st.integers(1, 6))
def test_header_pre_check_agrees_with_the_regex(pad: int, where: str, n: int) -> None:
    """The cheap ``"session"`` search may skip the header regex only where the regex finds nothing:
    the word as a string value (as in tool arguments), as a key at any offset, and a real header."""
    text = b'"' + b"x" * pad + b'"'
    if where == "key":
        odd = b'{"a":' + text + b',"session":1}'
    elif where == "value":
        odd = _line(0, b'{"type":"text","text":' + text + b',"metadata":{"tags":["session"]}}')
    else:
        odd = _HEADER
    lines = [*_good(n), odd, *_good(n)]
    data = b"\n".join(lines) + b"\n"
    assert list(_jsonl._header_runs(data)) == _regex_runs(data)
    if where == "header":
        assert any(is_header for _, is_header in _regex_runs(data))


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.builds(lambda pad, lead: lead + b'{"' + b"k" * pad + b'":1,"session":{"id":"s"}}', st.integers(0, 60), st.sampled_from([b"", b" ", b"\t"])),
            st.builds(lambda pad: b'{"a":"' + b"x" * pad + b'","session":1,"session":2}', st.integers(0, 60)),
            st.just(_HEADER),
            st.just(b'{"schema_version":"1.0","session":{"id":"s3"},"item":{}}'),  # has "item": not a header
            st.just(b'"session"'),
            st.just(b""),
        ),
        max_size=8,
    ),
    last_newline=st.booleans(),
)
def test_header_search_finds_the_lines_the_regex_finds(lines: list[bytes], last_newline: bool) -> None:
    """The C-speed search for header lines cuts every input as the line-start regex does: leading
    whitespace, ``"session"`` at any offset or twice in a line, a last line without its line end."""
    data = b"\n".join([*_good(2), *lines]) + (b"\n" if last_newline else b"")
    assert list(_jsonl._header_runs(data)) == _regex_runs(data)


def test_a_session_file_reads_on_the_block_path_as_its_bare_stream() -> None:
    # the case: a session file (a header line before each session's envelopes, as `migrate -o`
    # and `store export` write) reads to the same envelopes as the stream without its headers, with the
    # envelope lines decoded in blocks (no line of a block goes down the line-by-line path)
    sessions = [[_line(i, b'{"type":"text","text":"t%d","role":"user"}' % i, session=f"s{k}") for i in range(40)] for k in range(30)]
    headers = [_HEADER.replace(b'"s2"', b'"s%d"' % k) for k in range(30)]
    with_headers = b"".join(h + b"\n" + b"\n".join(lines) + b"\n" for h, lines in zip(headers, sessions))
    bare = b"".join(b"\n".join(lines) + b"\n" for lines in sessions)
    parts = list(_jsonl.jsonl_parts(io.BytesIO(with_headers), mode="preserving", limits=codec.DEFAULT_LIMITS, errors="raise", file_label=None))
    assert all(type(p) is tuple for p in parts)  # every envelope came in a decoded block
    assert sum(len(p[1]) for p in parts) == 30 * 40
    assert list(iter_jsonl(io.BytesIO(with_headers))) == list(iter_jsonl(io.BytesIO(bare)))


def _tokens(value: object) -> list[bytes]:
    """``value`` as compact JSON, one token per element (strings, numbers, literals and punctuation)."""
    if isinstance(value, dict):
        out = [b"{"]
        for i, (k, v) in enumerate(value.items()):
            out += ([b","] if i else []) + [json.dumps(k).encode(), b":"] + _tokens(v)
        return [*out, b"}"]
    if isinstance(value, list):
        out = [b"["]
        for i, v in enumerate(value):
            out += ([b","] if i else []) + _tokens(v)
        return [*out, b"]"]
    return [json.dumps(value).encode()]


_PUNCT = st.text(alphabet="{}[],: ax", max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PUNCT, min_size=3, max_size=3), st.integers(0, 10_000), st.integers(1, 3))
def test_a_value_broken_over_lines_with_punctuation_in_its_strings_is_never_read_as_lines(texts: list[str], at: int, breaks: int) -> None:
    """The block's line-structure proof looks at punctuation only (strings included): a line end
    inside a value must still send the block down the line-by-line path, whatever the strings hold."""
    env = {
        "schema_version": "1.0", "session_id": texts[0] or "s", "seq": 7,
        "item": {"type": "tool_call", "id": "c1", "name": "f", "arguments": {texts[1]: [texts[2], {"k": texts[0]}]}},
    }
    tokens = _tokens(env)
    cuts = {(at * (i + 1) * 7919) % (len(tokens) - 1) + 1 for i in range(breaks)}
    broken = b"".join((b"\n" if i in cuts else b"") + t for i, t in enumerate(tokens))
    lines = [*_good(20), broken, _line(1, VALID[0]) + _line(2, VALID[0]), *_good(20)]
    data = b"\n".join(lines) + b"\n"
    assert _read(data) == _reference(data)
    assert _jsonl._decode_block(data, codec.DEFAULT_LIMITS) is None


def test_a_header_like_line_that_is_an_envelope_reads_as_one_in_blocks_and_alone() -> None:
    """``"session"`` near the start and no ``"item"`` in the first 4 KB looks like a session header;
    if the line decodes as an envelope it is one, on the block path and on the line-by-line path."""
    odd = b'{"schema_version":"1.0","session_id":"session","seq":3,"response":{"id":"' + b"r" * 5000 + b'"},"item":' + VALID[0] + b"}"
    assert _jsonl._looks_like_header(odd)
    in_block = [*_good(3), odd, *_good(3)]
    data = b"\n".join(in_block) + b"\n"
    assert _jsonl._decode_block(data, codec.DEFAULT_LIMITS) is not None
    got = _read(data)
    assert got == _reference(data)
    assert got[3][1].session_id == "session"  # type: ignore[union-attr]
    alone = _read(odd + b"\n")  # the first line always goes the careful way
    mixed = _read(b"\n".join([*_good(3), odd, BAD_LINES["NaN"]]) + b"\n")  # a bad line sends the block line by line
    assert alone == [(1, got[3][1])]
    assert mixed[3] == (4, got[3][1])
    broken_header = b'{"schema_version":"1.0","session":{"id":""}}'
    assert isinstance(_read(broken_header + b"\n")[0][1], list)  # a real but invalid header is still reported


def test_a_file_of_session_headers_and_envelopes_reads_as_before() -> None:
    """Session files (a header per session) take the whole-block attempt, fail it, and are read in runs."""
    parts = []
    for s in range(30):
        parts.append(_HEADER.replace(b'"s2"', b'"s%d"' % s))
        parts += [_line(i, VALID[i % len(VALID)], session=f"s{s}") for i in range(20)]
    data = b"\n".join(parts) + b"\n"
    recs = list(iter_jsonl(io.BytesIO(data), errors="yield"))
    assert [r.line for r in recs] == list(range(1, len(parts) + 1))
    assert sum(r.header is not None for r in recs) == 30 and all(r.error is None for r in recs)
    assert len(list(iter_jsonl(io.BytesIO(data)))) == 600


@settings(max_examples=200, deadline=None)
@given(st.lists(_PUNCT, min_size=2, max_size=2), st.integers(0, 10_000))
def test_an_items_block_with_a_broken_value_is_refused(texts: list[str], at: int) -> None:
    """The store's and the document reader's item blocks use the same punctuation proof."""
    item = {"type": "tool_call", "id": "c1", "name": "f", "arguments": {texts[0]: [texts[1], {"k": texts[0]}]}}
    tokens = _tokens(item)
    cut = at % (len(tokens) - 1) + 1
    broken = b"".join(tokens[:cut]) + b"\n" + b"".join(tokens[cut:])
    good = VALID[:5]
    assert _jsonl.decode_items_block(b"\n".join([*good, b"".join(tokens)]), 6) is not None
    assert _jsonl.decode_items_block(b"\n".join([*good, broken]), 6) is None
    assert _jsonl.decode_items_block(b"\n".join([*good, broken, b"".join(tokens) + b" " + b"".join(tokens)]), 7) is None


def test_a_wrapping_reader_sees_every_byte_through_its_read() -> None:
    # the block reader reads the io module's own files into a reused buffer (`readinto`); a wrapper
    # that counts what `read` returns and passes other attributes through must still see every byte
    class Counting:
        def __init__(self, raw: io.BytesIO) -> None:
            self.raw, self.seen = raw, 0

        def read(self, size: int = -1) -> bytes:
            data = self.raw.read(size)
            self.seen += len(data)
            return data

        def readline(self, size: int = -1) -> bytes:
            data = self.raw.readline(size)
            self.seen += len(data)
            return data

        def __getattr__(self, name: str) -> object:
            return getattr(self.raw, name)

    data = b"\n".join(_good(3000)) + b"\n"
    reader = Counting(io.BytesIO(data))
    assert list(iter_jsonl(reader)) == [env for _n, env in _reference(data)]  # type: ignore[arg-type]
    assert reader.seen == len(data)
    assert list(iter_jsonl(io.BytesIO(data))) == [env for _n, env in _reference(data)]
