"""Hostile wire input (issue 19, items 2, 3, 8): mutated real payloads never give a traceback.

Every real stream, response and request fixture of every provider is mutated at one place: one field
of one event (or of the body) set to a wrong JSON type, a lone surrogate put into a string, NaN or
Infinity put for a number, or the field replaced by over-deep nesting. Each outcome must be a success
whose result encodes, or a clean error: a ``StreamError`` with a code (``provider_error`` ones carry a
pointer into the stream), or an ``InterlinguaError``; a ``MalformedInputError`` points at the mutated
field or one of its parents/children. Runs are derandomized and bounded so CI is stable.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_item, encode_transcript
from interlingua.errors import DocumentError, InterlinguaError, MalformedInputError
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.streaming import StreamDone, StreamError, collect, is_terminal

REAL = Path(__file__).parent / "fixtures" / "real"
DIRS = {"anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "openrouter": "openai-chat", "openai_chat_extra": "openai-chat", "openai_compatible": "openai-chat", "bedrock_converse": "bedrock-converse", "cohere": "cohere", "mistral": "mistral", "openai_compatible_hosts": "openai-chat"}
STREAMS = sorted((p, DIRS[p.parent.name]) for p in REAL.rglob("*") if p.suffix in (".sse", ".ndjson"))
# Every body of every provider, the corpus subset (corpus/<provider>/) and error bodies included: a body
# left out here is a decoder left unguarded (mistral's was, until its own pre-pass got the same guard).
BODIES = sorted(
    (p, DIRS[p.parent.name], "request" if ".request." in p.name else "response")
    for p in REAL.rglob("*.json")
    if p.name != "index.json"
)
WRONG: list[Any] = [None, [], {}, 7, -1, 1.5, "s", "", True, False, [1, "x"], {"type": []}]
DEEP = "[" * 5000 + "]" * 5000
# What a decoder's internal failure looks like when no typed check caught it first.
_NET = re.compile(r"\((TypeError|KeyError|AttributeError|IndexError|ValueError|ValidationError)\)")
FUZZ = settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)

runner = CliRunner()


# --------------------------------------------------------------------------- mutation helpers


def pointers(value: Any, ptr: str = "") -> list[str]:
    out = [ptr]
    if isinstance(value, dict):
        for k, v in value.items():
            out += pointers(v, f"{ptr}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += pointers(v, f"{ptr}/{i}")
    return out


def _key(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def get_at(doc: Any, ptr: str) -> Any:
    for part in ptr.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[_key(part)]
    return doc


def set_at(doc: Any, ptr: str, value: Any) -> Any:
    """A copy of ``doc`` with the value at ``ptr`` replaced (``value`` is raw JSON text when bytes)."""
    doc = msgspec.json.decode(msgspec.json.encode(doc))
    marker = "\x00MUTATION\x00"
    if ptr == "":
        doc = marker
    else:
        *parents, last = ptr.split("/")[1:]
        cur = doc
        for part in parents:
            cur = cur[int(part)] if isinstance(cur, list) else cur[_key(part)]
        if isinstance(cur, list):
            cur[int(last)] = marker
        else:
            cur[_key(last)] = marker
    raw = value if isinstance(value, bytes) else msgspec.json.encode(value)
    return msgspec.json.encode(doc).replace(msgspec.json.encode(marker), raw)


@st.composite
def mutation(draw: st.DrawFn, doc: Any) -> tuple[str, bytes]:
    """(pointer, mutated JSON text) for one place of ``doc``."""
    ptr = draw(st.sampled_from(pointers(doc)))
    old = get_at(doc, ptr)
    kind = draw(st.sampled_from(["type", "type", "type", "surrogate", "nan", "deep"]))
    if kind == "type":
        new: Any = draw(st.sampled_from(WRONG))
    elif kind == "surrogate":
        text = old if isinstance(old, str) else "x"
        cut = draw(st.integers(0, len(text)))
        esc = msgspec.json.encode(text[:cut])[:-1] + draw(st.sampled_from([b"\\udc00", b"\\ud800", b"\\ud800\\u0041"])) + msgspec.json.encode(text[cut:])[1:]
        new = esc
    elif kind == "nan":
        new = draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999"]))
    else:
        new = DEEP.encode()
    return ptr, set_at(doc, ptr, new)


def _related(a: str, b: str) -> bool:
    """Whether one pointer is the other or inside it."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/") or a == "" or b == ""


def _events(data: bytes, framing: str) -> tuple[list[bytes], bytes]:
    sep = b"\n" if framing == "ndjson" else b"\n\n"
    return data.replace(b"\r\n", b"\n").split(sep), sep


def _payload_lines(event: bytes, framing: str) -> list[tuple[int, Any]]:
    """(line number in the event, decoded JSON) for each JSON payload line of one framed event."""
    out = []
    for i, line in enumerate(event.split(b"\n")):
        body = line if framing == "ndjson" else (line[5:].strip() if line.startswith(b"data:") else None)
        if body:
            try:
                out.append((i, msgspec.json.decode(body)))
            except msgspec.DecodeError:
                pass
    return out


def check_stream_outcome(mapper: Any, data: bytes) -> Any:
    events = collect(mapper, data)  # must not raise
    assert events and is_terminal(events[-1]) and sum(map(is_terminal, events)) == 1
    last = events[-1]
    if isinstance(last, StreamDone):
        assert isinstance(last.response, ModelResponse)
        encode_transcript(last.response.to_transcript())  # a success must encode (no lone surrogate survives)
    else:
        assert isinstance(last, StreamError) and last.error.code
        assert not _NET.search(last.error.message), last.error.message
        if last.pointer is not None:
            assert re.match(r"^/\d+(/|$)", last.pointer), last.pointer
        if isinstance(last.partial, ModelResponse):
            encode_transcript(last.partial.to_transcript())
    return last


# --------------------------------------------------------------------------- streams


@FUZZ
@given(data=st.data())
def test_mutated_real_streams_never_raise(data: st.DataObject) -> None:
    path, fmt = data.draw(st.sampled_from(STREAMS), label="fixture")
    mapper = get_mapper(fmt)
    raw = path.read_bytes()
    events, sep = _events(raw, mapper.framing)
    candidates = [(i, li, obj) for i, ev in enumerate(events) for li, obj in _payload_lines(ev, mapper.framing)]
    i, li, obj = data.draw(st.sampled_from(candidates), label="event")
    ptr, new = data.draw(mutation(obj), label="mutation")
    lines = events[i].split(b"\n")
    lines[li] = new if mapper.framing == "ndjson" else b"data: " + new
    mutated = sep.join([*events[:i], b"\n".join(lines), *events[i + 1 :]])
    last = check_stream_outcome(mapper, mutated)
    if isinstance(last, StreamError) and last.pointer is not None and last.pointer.count("/") > 1:
        inner = "/" + last.pointer.split("/", 2)[2]
        assert _related(inner, ptr), (last.pointer, ptr)


@pytest.mark.parametrize(("path", "fmt"), STREAMS, ids=lambda v: getattr(v, "name", v))
def test_every_field_of_every_event_set_to_a_wrong_type(path: Path, fmt: str) -> None:
    """Exhaustive over fields (two wrong types): the class of bug is any field of any event.

    Events of a shape already mutated (the same pointers, numbers aside, and the same ``type``) are
    skipped: a long stream of text deltas made this quadratic (a 300-event Mistral stream ran for
    over 20 minutes) without reaching any field the first delta did not."""
    mapper = get_mapper(fmt)
    events, sep = _events(path.read_bytes(), mapper.framing)
    shapes: set[tuple[Any, ...]] = set()
    for i, ev in enumerate(events):
        for li, obj in _payload_lines(ev, mapper.framing):
            shape = (repr(obj.get("type") if isinstance(obj, dict) else None), *sorted({re.sub(r"/\d+(?=/|$)", "/N", p) for p in pointers(obj)}))
            if shape in shapes:
                continue
            shapes.add(shape)
            for ptr in pointers(obj)[1:]:
                for wrong in (None, [], {}, 7, "s", True):
                    lines = ev.split(b"\n")
                    new = set_at(obj, ptr, wrong)
                    lines[li] = new if mapper.framing == "ndjson" else b"data: " + new
                    check_stream_outcome(mapper, sep.join([*events[:i], b"\n".join(lines), *events[i + 1 :]]))


# --------------------------------------------------------------------------- bodies


def check_body_outcome(fmt: str, kind: str, text: bytes, ptr: str) -> None:
    mapper = get_mapper(fmt)
    try:
        body = msgspec.json.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return  # not JSON: the CLI and the client refuse it before any decoder (tested below)
    except RecursionError:
        return
    decode = mapper.decode_request if kind == "request" else mapper.decode_response
    try:
        value = decode(body).value
    except MalformedInputError as exc:
        assert not _NET.search(exc.reason) or _related(exc.pointer, ptr), (str(exc), ptr)
        assert _related(exc.pointer, ptr), (str(exc), ptr)
        return
    except InterlinguaError:
        return
    transcript = value if kind == "request" else value.to_transcript()
    try:
        encode_transcript(transcript)
    except DocumentError as exc:  # a clean refusal on write (e.g. nesting too deep), never a crash
        assert exc.problems


@FUZZ
@given(data=st.data())
def test_mutated_real_bodies_never_raise(data: st.DataObject) -> None:
    path, fmt, kind = data.draw(st.sampled_from(BODIES), label="fixture")
    doc = msgspec.json.decode(path.read_bytes())
    ptr, text = data.draw(mutation(doc), label="mutation")
    check_body_outcome(fmt, kind, text, ptr)


@pytest.mark.parametrize(("path", "fmt", "kind"), BODIES, ids=lambda v: getattr(v, "name", v))
def test_every_field_of_every_body_set_to_a_wrong_type(path: Path, fmt: str, kind: str) -> None:
    doc = msgspec.json.decode(path.read_bytes())
    for ptr in pointers(doc):
        for wrong in (None, [], {}, 7, "s", True):
            check_body_outcome(fmt, kind, set_at(doc, ptr, wrong), ptr)


# --------------------------------------------------------------------------- the cases from the issue


def _first_line_with(data: bytes, needle: bytes) -> int:
    return next(i for i, ln in enumerate(data.split(b"\n")) if needle in ln)


def test_anthropic_content_block_type_list_is_a_stream_error_with_pointer() -> None:
    raw = (REAL / "anthropic/anthropic_sdk.basic_response.sse").read_bytes()
    bad = raw.replace(b'"content_block":{"type":"text"', b'"content_block":{"type":[]', 1)
    assert bad != raw
    last = collect(get_mapper("anthropic"), bad)[-1]
    assert isinstance(last, StreamError) and last.error.code == "provider_error"
    assert last.pointer is not None and re.fullmatch(r"/\d+/content_block/type", last.pointer)
    assert "/content_block/type" in last.error.message and last.error.provider == "anthropic"


def test_responses_item_content_null_is_not_a_crash() -> None:
    raw = (REAL / "openai_responses/pai_openai_responses_stream.1.response.sse").read_bytes()
    lines = raw.split(b"\n")
    i = _first_line_with(raw, b'"type":"response.output_item.added"')
    original = lines[i]
    assert b'"content":[]' in original
    lines[i] = original.replace(b'"content":[]', b'"content":null')
    last = check_stream_outcome(get_mapper("openai-responses"), b"\n".join(lines))
    assert isinstance(last, StreamDone)
    wrong = raw.replace(original, original.replace(b'"content":[]', b'"content":7'))
    err = collect(get_mapper("openai-responses"), wrong)[-1]
    assert isinstance(err, StreamError) and err.pointer is not None and err.pointer.endswith("/item/content")


STREAM_SAMPLES = {
    "gemini": "gemini/pai_google_streaming_tool_call_thought_signature.0.response.sse",
    "ollama": "ollama/ollama_docs.chat_stream_text.response.ndjson",
    "openai-chat": "openai_chat/openai_python.stream_text.sse",
    "openai-responses": "openai_responses/pai_openai_responses_stream.1.response.sse",
    "anthropic": "anthropic/anthropic_sdk.basic_response.sse",
    "bedrock-converse": "bedrock_converse/pai_bedrock_model_stream.stream.ndjson",
}


def _poison_first_string_number(raw: bytes, fmt: str, what: bytes) -> bytes:
    """Put ``what`` (raw JSON) for the first text delta / usage number of the stream."""
    if what == b"surrogate":
        bad, n = re.subn(rb'("(?:text|content|delta|name)":\s*")', rb"\1x\\udc00y", raw, count=1)
        assert n == 1, fmt
        return bad
    m = re.search(rb'("(?:input_tokens|output_tokens|prompt_tokens|completion_tokens|promptTokenCount|candidatesTokenCount|eval_count|prompt_eval_count|total_duration|sequence_number|index|contentBlockIndex)":\s*)(\d+)', raw)
    assert m, fmt
    return raw[: m.start(2)] + what + raw[m.end(2) :]


@pytest.mark.parametrize("fmt", sorted(STREAM_SAMPLES))
@pytest.mark.parametrize("what", [b"surrogate", b"NaN", b"Infinity", b"-Infinity"])
def test_lone_surrogates_nan_and_infinity_end_every_stream_with_an_error(fmt: str, what: bytes) -> None:
    raw = (REAL / STREAM_SAMPLES[fmt]).read_bytes()
    bad = _poison_first_string_number(raw, fmt, what)
    assert bad != raw
    last = collect(get_mapper(fmt), bad)[-1]
    assert isinstance(last, StreamError) and last.error.code == "provider_error", last
    assert last.pointer is not None and re.fullmatch(r"/\d+", last.pointer)
    assert ("surrogate" in last.error.message) if what == b"surrogate" else ("NaN and Infinity" in last.error.message)


def test_ollama_body_with_nan_is_refused_not_streamed(tmp_path: Path) -> None:
    body = (REAL / "ollama/ollama_docs.chat_tools_nostream.response.json").read_bytes()
    bad = re.sub(rb'("eval_count":\s*)\d+', rb"\1NaN", body, count=1)
    assert bad != body
    path = tmp_path / "resp.json"
    path.write_bytes(bad)
    res = runner.invoke(app, ["convert", "--from", "ollama", "--to", "canonical", str(path)])
    assert res.exit_code == 1 and "NaN and Infinity are not valid JSON" in res.stderr and "column" in res.stderr  # malformed: 1
    assert "Traceback" not in res.output and res.stdout == ""


def test_invalid_surrogate_pair_in_a_body_is_invalid_json_not_a_stream(tmp_path: Path) -> None:
    """Item 8: the error says what is wrong and where, instead of guessing "stream"."""
    path = tmp_path / "req.json"
    path.write_bytes(b'{"model":"claude-sonnet-4-5","max_tokens":5,\n"messages":[{"role":"user","content":"x\\ud800\\u0041"}]}')
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(path)])
    assert res.exit_code == 1, res.output  # malformed input, as README states
    assert "invalid JSON at line 2, column" in res.stderr and "surrogate" in res.stderr
    assert "truncated" not in res.stderr and "is it an anthropic stream" not in res.stderr


def test_duplicate_type_key_is_named_not_blamed_on_the_mode() -> None:
    """Item 8: a duplicated ``type`` counts with its last value (ADR 0015) and the error says so."""
    raw = '{"type":"tool_call","id":"c1","name":"f","arguments":{},"type":"text"}'
    for mode in ("preserving", "strict"):
        with pytest.raises(DocumentError) as exc:
            decode_item(raw, mode=mode)  # type: ignore[arg-type]
        msg = exc.value.problems[0].message
        assert "a key given more than once counts with its last value" in msg and "preserving mode" not in msg


def test_unknown_type_in_strict_mode_still_points_to_preserving_mode() -> None:
    with pytest.raises(DocumentError) as exc:
        decode_item('{"type":"hologram"}', mode="strict")
    assert "unknown item type 'hologram'" in exc.value.problems[0].message and "preserving mode" in exc.value.problems[0].message


def test_wrong_types_in_response_bodies_point_at_the_field() -> None:
    body = msgspec.json.decode((REAL / "gemini/pai_google_thinking_part.0.response.json").read_bytes())
    body["candidates"][0]["content"]["parts"] = 7
    with pytest.raises(MalformedInputError) as exc:
        get_mapper("gemini").decode_response(body)
    assert exc.value.pointer == "/candidates/0/content/parts" and exc.value.provider == "gemini"
    for fmt in sorted(set(DIRS.values())):  # every mapper (mistral's own pre-pass was a TypeError here)
        for kind in ("request", "response"):
            decode = getattr(get_mapper(fmt), f"decode_{kind}")
            with pytest.raises(MalformedInputError) as root:
                decode([])
            assert root.value.pointer == "" and "JSON object" in root.value.reason


# --------------------------------------------------------------------------- the CLI


def _mutated_files(tmp_path: Path) -> list[tuple[str, Path]]:
    out = []
    raw = (REAL / "anthropic/anthropic_sdk.basic_response.sse").read_bytes()
    out.append(("anthropic", tmp_path / "a.sse"))
    out[-1][1].write_bytes(raw.replace(b'"content_block":{"type":"text"', b'"content_block":{"type":[]', 1))
    for fmt, rel in STREAM_SAMPLES.items():
        p = tmp_path / f"{fmt}.surrogate{Path(rel).suffix}"
        p.write_bytes(_poison_first_string_number((REAL / rel).read_bytes(), fmt, b"surrogate"))
        out.append((fmt, p))
    body = msgspec.json.decode((REAL / "anthropic/pai_anthropic_parallel_tool_calls.0.response.json").read_bytes())
    p = tmp_path / "anthropic.response.json"
    p.write_bytes(set_at(body, "/content", {"type": []}))
    out.append(("anthropic", p))
    req = msgspec.json.decode((REAL / "gemini/pai_google_thinking_part.0.request.json").read_bytes())
    p = tmp_path / "gemini.request.json"
    p.write_bytes(set_at(req, "/systemInstruction/parts", 7))
    out.append(("gemini", p))
    return out


def test_convert_on_mutated_files_exits_1_without_a_traceback(tmp_path: Path) -> None:
    for fmt, path in _mutated_files(tmp_path):
        proc = subprocess.run(
            [sys.executable, "-c", "from interlingua.cli import main; main()", "convert", "--from", fmt, "--to", "canonical", str(path)],
            capture_output=True,
            check=False,
        )
        assert proc.returncode in (1, 2), (path.name, proc.returncode, proc.stderr)
        assert b"Traceback" not in proc.stderr and proc.stdout == b"", (path.name, proc.stderr)
        assert proc.stderr.startswith(b"error: "), proc.stderr
        if path.suffix in (".sse", ".ndjson"):
            assert proc.returncode == 1 and b"provider_error" in proc.stderr and b"(at /" in proc.stderr
