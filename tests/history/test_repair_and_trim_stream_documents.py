"""``interlingua repair`` and ``trim`` of a transcript document read item by item (issue 32).

Both read the document twice with the item-by-item reader (ADR 0013) instead of decoding it whole
(the 1,000,000-item benchmark document peaked at 476 MB for ``repair -o`` and 548 MB for ``trim -o``).
What they write, report and exit with must be what the whole path gives: each case runs the CLI
twice, streamed and with the streamed path switched off (the command then reads the document whole,
as before), with read windows small enough that every document spans several.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import interlingua.session_file  # noqa: F401 - imported before any test patches what it imports
from interlingua import convert_request
from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.history import _document
from interlingua.history._integrity import _USER, _side
from interlingua.history._trim import TurnFacts, _is_instruction

REAL = Path(__file__).parent.parent / "fixtures" / "real"


def _run(args: list[str], path: Path, out: Path, *, streamed: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, str]:
    """The command's exit code, written bytes and stderr; ``streamed=False``: the whole path."""
    with monkeypatch.context() as m:
        m.setattr(_document, "CHUNK_BYTES", 256)  # several read windows for every document here
        if not streamed:
            m.setattr(_document, "scan_document", lambda *a, **k: None)
            m.setattr(_document, "read_trim_facts", lambda *a, **k: None)
        out.unlink(missing_ok=True)
        res = CliRunner().invoke(app, [*args, str(path), "-o", str(out)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, out.read_bytes() if out.exists() else b"", res.stderr


def _same(args: list[str], doc: bytes, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, str]:
    path = tmp / "doc.json"
    path.write_bytes(doc)
    streamed = _run(args, path, tmp / "a.json", streamed=True, monkeypatch=monkeypatch)
    whole = _run(args, path, tmp / "b.json", streamed=False, monkeypatch=monkeypatch)
    assert streamed == whole, (args, doc[:300])
    return streamed


# --------------------------------------------------------------------------- histories


def _item(kind: str, ref: int, size: int) -> dict[str, Any]:
    cid = f"c{ref}"
    text = " ".join(["word"] * size)
    table: dict[str, dict[str, Any]] = {
        "user": {"type": "text", "role": "user", "text": text or "q"},
        "say": {"type": "text", "role": "assistant", "text": text or "a"},
        "system": {"type": "text", "role": "system", "text": text or "be brief"},
        "empty": {"type": "text", "role": "assistant", "text": " "},
        "think": {"type": "reasoning", "text": text or "hmm"},
        "call": {"type": "tool_call", "id": cid, "name": "f", "arguments": {"q": text}},
        "call_2": {"type": "tool_call", "id": f"{cid}_2", "name": "f", "arguments": {}},
        "result": {"type": "tool_result", "call_id": cid, "content": [{"type": "text", "text": text or "ok"}]},
        "error": {"type": "error", "code": "server", "message": "boom"},
        "raw": {"type": "raw", "provider": "x", "value": {"n": ref}},
    }
    return table[kind]


KINDS = ["user", "user", "say", "say", "system", "empty", "think", "call", "call", "call_2", "result", "result", "error", "raw"]

SHELLS = st.fixed_dictionaries(
    {},
    optional={
        "tools": st.just([{"name": "f", "description": "look it up", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]),
        "settings": st.just({"model": "claude-sonnet-4-5", "max_output_tokens": 100}),
        "metadata": st.just({"source": "test", "n": 1}),
        "responses": st.sampled_from([[], [{"item": 0, "usage": {"input_tokens": 12}}, {"item": 3, "usage": {"output_tokens": 3}}, {"item": 9}]]),
    },
)

HISTORIES = st.tuples(
    st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 4), st.integers(0, 30)), max_size=40),
    SHELLS,
    st.sampled_from([None, 1]),  # compact or indented text: the output is re-encoded either way
)


def _doc(items: list[dict[str, Any]], shell: dict[str, Any], indent: int | None) -> bytes:
    return json.dumps({"schema_version": "1.0", "items": items, **shell}, indent=indent).encode()


def _real_docs() -> list[bytes]:
    """Real histories: every recorded request body of these wire formats (tests/fixtures/real, its
    README names each source), read as canonical documents."""
    out = []
    folders = {"anthropic": "anthropic", "openai_chat": "openai-chat", "openai_chat_extra": "openai-chat", "openai_responses": "openai-responses",
               "gemini": "gemini", "mistral": "mistral", "ollama": "ollama", "cohere": "cohere", "bedrock_converse": "bedrock-converse",
               "corpus/anthropic": "anthropic", "corpus/gemini": "gemini", "corpus/openai_chat": "openai-chat", "corpus/openai_responses": "openai-responses"}
    for folder, fmt in folders.items():
        for path in sorted((REAL / folder).glob("*.request.json")):
            try:
                doc = convert_request(json.loads(path.read_text()), source=fmt, target="canonical").value
            except Exception:  # noqa: BLE001 - a body this reader refuses is no history to trim
                continue
            if len(doc.get("items", [])) >= 2:
                out.append(json.dumps(doc).encode())
    return out


REAL_DOCS = _real_docs()


# --------------------------------------------------------------------------- repair


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(HISTORIES, st.sampled_from(["degrade", "drop", "error"]), st.booleans())
def test_repair_streamed_writes_what_the_whole_path_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Any, policy: str, open_end: bool) -> None:
    items, shell, indent = case
    doc = _doc([_item(k, r, n) for k, r, n in items], shell, indent)
    _same(["repair", "--policy", policy, *(["--open-end"] if open_end else [])], doc, tmp_path, monkeypatch)


@pytest.mark.parametrize("at", range(len(REAL_DOCS)))
def test_repair_of_real_histories_streamed_is_whole(at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _same(["repair"], REAL_DOCS[at], tmp_path, monkeypatch)
    assert code == 0 and out


def test_real_histories_are_there() -> None:
    assert len(REAL_DOCS) >= 100


def test_a_sound_document_is_streamed_and_rewritten_as_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sound case is the streamed one (nothing decoded whole): checked by switching the whole
    path off entirely."""
    items = [it for n in range(50) for it in (_item("user", 0, 3), _item("call", n, 2), _item("result", n, 2), _item("say", 0, 5))]
    path = tmp_path / "doc.json"
    path.write_bytes(_doc(items, {"metadata": {"k": "v"}}, 2))
    monkeypatch.setattr(_document, "CHUNK_BYTES", 512)
    import interlingua.history as history

    def refuse(*a: Any, **k: Any) -> Any:
        raise AssertionError("the document was repaired whole")

    monkeypatch.setattr(history, "repair", refuse)
    res = CliRunner().invoke(app, ["repair", str(path), "-o", str(tmp_path / "o.json")])
    assert res.exit_code == 0, res.output
    assert "nothing to repair" in res.stderr
    got = json.loads((tmp_path / "o.json").read_bytes())
    assert got == {"schema_version": "1.0", "items": items, "metadata": {"k": "v"}}


def test_repair_error_policy_streamed_lists_every_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [_item("user", 0, 1), _item("result", 7, 1), _item("call", 1, 1), _item("say", 0, 1)]
    code, out, err = _same(["repair", "--policy", "error"], _doc(items, {}, None), tmp_path, monkeypatch)
    assert code == 1 and out == b""
    assert "orphan_result" in err and "dangling_call" in err


@pytest.mark.parametrize(
    "doc",
    [
        b'{"items":[{"type":"text","role":"user","text":"hi"}],"schema_version":"1.0"}',  # version after items: read whole
        b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"},]}',  # trailing comma
        b'{"schema_version":"1.0","items":[{"type":"text","role":"user"}]}',  # an item missing its text
        b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]',  # cut short
        b'{"schema_version":"9.0","items":[]}',
        b'{"schema_version":"1.0","items":[],"tools":[{"name":3}]}',
        b"[]",
        b"",
    ],
)
@pytest.mark.parametrize("command", [["repair"], ["trim", "--max-input-tokens", "5"]])
def test_bad_documents_fail_as_before(doc: bytes, command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _same(command, doc, tmp_path, monkeypatch)
    if doc.startswith(b'{"items"'):
        assert code == 0
    else:
        assert code in (1, 2) and out == b"" and "Traceback" not in err and err.startswith("error: ")


# --------------------------------------------------------------------------- trim


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(HISTORIES, st.integers(0, 400), st.integers(0, 3), st.booleans())
def test_trim_streamed_writes_what_the_whole_path_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Any, budget: int, keep_first: int, marker: bool) -> None:
    items, shell, indent = case
    doc = _doc([_item(k, r, n) for k, r, n in items], shell, indent)
    _same(["trim", "--max-input-tokens", str(budget), "--keep-first", str(keep_first), *(["--marker"] if marker else [])], doc, tmp_path, monkeypatch)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(REAL_DOCS), st.integers(0, 3000), st.booleans())
def test_trim_of_real_histories_streamed_is_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doc: bytes, budget: int, marker: bool) -> None:
    _same(["trim", "--max-input-tokens", str(budget), *(["--marker"] if marker else [])], doc, tmp_path, monkeypatch)


def test_trim_by_the_documents_model_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [_item("user", 0, 5), _item("say", 0, 5)] * 20
    code, _, err = _same(["trim"], _doc(items, {"settings": {"model": "claude-sonnet-4-5"}}, None), tmp_path, monkeypatch)
    assert code == 0 and "kept 40 of 40 item(s)" in err
    code, _, err = _same(["trim"], _doc(items, {}, None), tmp_path, monkeypatch)
    assert code == 2 and "settings name no model" in err


def _turn_starts_by_rule(items: list[Any]) -> list[int]:
    """The turn starts as the rule says them, item by item, with every later item at hand: a user
    item after a non-user one (neutral items do not end a user run, system/developer items are
    skipped), not inside a call/result exchange (any call before it whose id has a result at or
    after it), not right after reasoning."""
    starts = []
    prev_user = False
    for i, item in enumerate(items):
        if _is_instruction(item):
            continue
        side = _side(item)
        if side == _USER:
            spanned = any(
                getattr(c, "__struct_config__").tag in ("tool_call", "handoff_call")
                and any(getattr(r, "call_id", None) == c.id for r in items[i:])
                for c in items[:i]
            ) or (i > 0 and getattr(items[i - 1].__struct_config__, "tag", None) == "reasoning")
            if not prev_user and not spanned:
                starts.append(i)
            prev_user = True
        elif side != 3:
            prev_user = False
    return starts


@settings(max_examples=300, deadline=None)
@given(HISTORIES)
def test_turn_facts_find_the_turn_starts_the_rule_gives(case: Any) -> None:
    """The compact facts (one entry per candidate, per call id) give the starts the rule gives
    with every item at hand, and the running estimate before each is the items' own."""
    items, shell, indent = case
    t = decode_transcript(_doc([_item(k, r, n) for k, r, n in items], shell, indent))
    facts = TurnFacts()
    for it in t.items:
        facts.feed(it)
    flat = facts.turn_starts()
    got = [tuple(flat[k : k + 3]) for k in range(0, len(flat), 3)]
    assert [i for i, _, _ in got] == _turn_starts_by_rule(t.items)
    for i, tokens, count in got:
        before = [it for it in t.items[:i] if not _is_instruction(it)]
        assert tokens == sum(TurnFacts.cost_of(it) for it in before) and count == len(before)


# --------------------------------------------------------------------------- memory


def _peak(fn: Any) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _long_doc(path: Path, turns: int, calls: bool, broken: bool = False) -> None:
    """``turns`` turns: user text, (a call and its result), assistant text; ``broken``: every tenth
    call without its result (a dangling call: a stub result added, or the call dropped)."""
    with open(path, "wb") as fh:
        fh.write(b'{"schema_version":"1.0","items":[')
        for n in range(turns):
            exchange = [_item("call", n, 3)] if broken and n % 10 == 0 else [_item("call", n, 3), _item("result", n, 6)]
            part = [_item("user", 0, 8), *(exchange if calls else []), _item("say", 0, 12)]
            fh.write((b"," if n else b"") + b",".join(json.dumps(p).encode() for p in part))
        fh.write(b'],"metadata":{"k":"v"}}')


@pytest.mark.parametrize("calls", [False, True], ids=["text", "calls"])
@pytest.mark.parametrize("command", ["repair", "trim"])
def test_memory_is_bounded_by_turns_and_call_ids_not_items(command: str, calls: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Peak traced memory of the streamed path for N and 10N turns. What grows is what each pass must
    remember: ``repair`` one entry per call id (a result must find its call, an id must not repeat),
    ``trim`` a running estimate per turn and the first call / last result per call id; never the
    items. The whole path holds every item decoded: its peak is linear in the items' size."""
    monkeypatch.setattr(_document, "CHUNK_BYTES", 1 << 16)
    peaks = {}
    for turns in (2_000, 20_000):
        path = tmp_path / f"doc{turns}.json"
        _long_doc(path, turns, calls)
        out = tmp_path / "o.json"

        def go() -> None:
            with open(path, "rb") as fh, open(out, "wb") as sink:
                if command == "repair":
                    facts = _document.scan_document(fh, "degrade")
                    assert facts is not None
                    _document.write_repaired(fh, sink, facts, "degrade")
                else:
                    from interlingua.history._trim import plan_trim

                    facts = _document.read_trim_facts(fh)
                    assert facts is not None and facts.turns is not None
                    plan = plan_trim(facts.turns, 0, 2_000)
                    assert plan.dropped
                    _document.write_trimmed(fh, sink, facts, plan)

        peaks[turns] = _peak(go)
        assert json.loads(out.read_bytes())["metadata"] == {"k": "v"}
    whole = _peak(lambda: decode_transcript(path.read_bytes()))
    items = 20_000 * (4 if calls else 2)
    per_item = (peaks[20_000] - peaks[2_000]) / (items * 0.9)
    # measured: text turns repair ~10, trim ~50 bytes per added item; with calls ~110 and ~80; the
    # items decoded whole ~350-470 bytes each
    assert per_item < (20 if command == "repair" and not calls else 150), (peaks, per_item)
    assert peaks[20_000] < whole / 3, (peaks, whole)
    if command == "repair" and not calls:
        assert peaks[20_000] < 2 * peaks[2_000], peaks  # nothing per turn: sub-linear


def test_trim_of_a_document_is_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document without ``responses`` records is trimmed without the whole path (switched off here)."""
    import interlingua.history as history

    def refuse(*a: Any, **k: Any) -> Any:
        raise AssertionError("the document was trimmed whole")

    monkeypatch.setattr(history, "trim", refuse)
    monkeypatch.setattr(_document, "CHUNK_BYTES", 512)
    items = [_item("system", 0, 2)] + [it for n in range(40) for it in (_item("user", 0, 3), _item("call", n, 2), _item("result", n, 2), _item("say", 0, 5))]
    path = tmp_path / "doc.json"
    path.write_bytes(_doc(items, {}, None))
    res = CliRunner().invoke(app, ["trim", "--max-input-tokens", "200", "--marker", str(path), "-o", str(tmp_path / "o.json")])
    assert res.exit_code == 0, res.output
    got = json.loads((tmp_path / "o.json").read_bytes())["items"]
    assert got[0] == items[0] and got[1]["text"].startswith("[") and got[-4:] == items[-4:]
    assert "kept" in res.stderr.splitlines()[-1]


@pytest.mark.parametrize("policy", ["degrade", "drop"])
def test_memory_of_repairing_a_broken_document_is_bounded_by_its_findings(policy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document that needs repair (a dangling call every tenth turn) is rewritten round by round
    through temporary files: what grows is the call ids and the findings (and their report), not the
    items."""
    monkeypatch.setattr(_document, "CHUNK_BYTES", 1 << 16)
    peaks = {}
    for turns in (2_000, 20_000):
        path = tmp_path / f"doc{turns}.json"
        _long_doc(path, turns, True, broken=True)
        out = tmp_path / "o.json"

        def go() -> None:
            with open(path, "rb") as fh, open(out, "wb") as sink:
                facts = _document.scan_document(fh, policy)  # type: ignore[arg-type]
                assert facts is not None and facts.scanner is not None and len(facts.scanner.findings) == turns // 10
                report = _document.write_repaired(fh, sink, facts, policy)  # type: ignore[arg-type]
                assert len(report) == turns // 10

        peaks[turns] = _peak(go)
        items = json.loads(out.read_bytes())["items"]
        assert len(items) == turns * 4 - (0 if policy == "degrade" else turns // 10 * 2)  # a stub result added, or the call left out
    whole = _peak(lambda: decode_transcript(path.read_bytes()))
    per_item = (peaks[20_000] - peaks[2_000]) / (20_000 * 4 * 0.9)
    # per call id: the scans of two rounds and the report's entries; the items decoded whole ~470 each
    assert per_item < 300, (peaks, per_item)
    assert peaks[20_000] < whole / 2, (peaks, whole)
