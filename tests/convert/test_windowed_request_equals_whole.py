"""A request converted window by window (``interlingua._windowed``, what ``convert --from canonical
--to <provider>`` does for a document file) writes the bytes and the report of the whole conversion.

For every target: generated transcripts cut at random window sizes, every real fixture request read
to canonical (the corpus requests: tests/corpus/test_windowed_corpus.py), the issue's 1M-item shape
at small scale, and the cases that must fall back to the whole conversion (which then decides).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from interlingua._windowed import plan, write_windows
from interlingua.cli._convert_io import pretty as _pretty
from interlingua.conversion import convert_request
from interlingua.errors import InterlinguaError
from interlingua.items import Origin, Settings, StopReason, TextItem, ToolCallItem, ToolChoice, ToolDefinition, ToolResultItem, Transcript, Usage
from interlingua.mapping.registry import available
from interlingua.mapping.report import Report
from interlingua.testing.strategies import generation_settings
from interlingua.testing.strategies import items as item_lists

WRITERS = ("pydantic-ai", "langchain", "vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "otel")
"""The framework and stored-conversation writers (a message list, or a record holding one: ADR 0047's run)."""
TARGETS = (*available(), *WRITERS)
"""Every provider mapper, and every writer `convert --to` windows."""
WINDOWED = TARGETS
"""The targets a long chat is written window by window for (every one: the writers that number by place,
``vercel-ui``'s ``msg-N`` ids, number each window from where the previous one ended)."""
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
FORMAT_DIRS = {"anthropic": "anthropic", "bedrock_converse": "bedrock-converse", "cohere": "cohere", "gemini": "gemini", "mistral": "mistral",
               "ollama": "ollama", "openai_chat": "openai-chat", "openai_chat_extra": "openai-chat", "openai_responses": "openai-responses"}


def whole(t: Transcript, target: str, policy: Any, model: str | None = None) -> tuple[bytes, list[Any]] | InterlinguaError:
    report = Report()
    try:
        if target == "otel":
            from interlingua.otel import to_otel

            body = to_otel(t, policy=policy, report=report).value
        elif target in WRITERS:  # what `convert --to` of a framework writes (ADR 0011)
            from interlingua.compat import write

            body = write(t, target, policy=policy, report=report).value
        else:
            body = convert_request(t, source="canonical", target=target, policy=policy, model=model, report=report).value
    except InterlinguaError as exc:
        return exc
    return _pretty(body), list(report.aggregated())  # the windows aggregate repeats (ADR 0047): compared as aggregated


def windowed(t: Transcript, target: str, policy: Any, window: int, model: str | None = None) -> tuple[bool, bytes, list[Any]]:
    out, report = io.BytesIO(), Report()
    ok = write_windows(iter(t.items), t, plan(iter(t.items), window=window), target=target, model=model, policy=policy, out=out, report=report)
    return ok, out.getvalue(), list(report.aggregated())


def assert_same(t: Transcript, target: str, policy: Any, window: int, model: str | None = None) -> bool:
    """The windowed conversion equals the whole one (bytes and report), or declines; True when it did not decline."""
    expected = whole(t, target, policy, model)
    ok, data, entries = windowed(t, target, policy, window, model)
    if isinstance(expected, InterlinguaError):
        assert not ok, f"the whole conversion refuses ({expected}) but the windows wrote a body"
        return False
    if ok:
        assert data == expected[0]
        assert by_item(entries) == by_item(expected[1])
    return ok


def by_item(entries: list[Any]) -> tuple[list[Any], dict[int, list[Any]]]:
    """The report as the windows promise it: the entries about no item in order, and each item's
    entries in order (a mapper that reports in several passes over the items interleaves them
    differently when the passes run window by window; ADR 0036)."""
    from interlingua._windowed import _local

    about_none = [e for e in entries if _local(e) is None]
    per: dict[int, list[Any]] = {}
    for e in entries:
        if _local(e) is not None:
            per.setdefault(_local(e), []).append(e)
    return about_none, per


def chat(n: int, *, system: bool = True, origin: str | None = None) -> Transcript:
    """The issue's shape: alternating user and assistant texts with ids, after a system prompt."""
    its: list[Any] = [TextItem(role="system", text="Answer briefly.")] if system else []
    for i in range(n):
        its.append(TextItem(role="user" if i % 2 == 0 else "assistant", id=f"m{i:07d}", text=f"message {i:07d}  ",
                            origin=Origin(provider=origin) if origin and i % 2 else msgspec.UNSET))
    return Transcript(schema_version="1.0", items=its)


@pytest.mark.parametrize("target", WINDOWED)
@pytest.mark.parametrize("window", [1, 2, 7])
def test_a_long_chat_is_written_window_by_window_as_the_whole(target: str, window: int) -> None:
    # a trailing space on every assistant text: a mapper that treats the last assistant message as a
    # prefill changes it, so a window must not end the body there (each is converted with the next one's first item)
    assert assert_same(chat(60), target, "degrade", window)
    assert assert_same(chat(61, system=False), target, "error", window, model="some-model")


@pytest.mark.parametrize("target", WINDOWED)
def test_the_model_is_the_whole_transcripts_choice(target: str) -> None:
    # settings.model carried only when every item was made by the target: a window of user texts alone must not decide
    t = chat(40, origin=target)
    t.settings = Settings(model="made-up-model-7")
    assert assert_same(t, target, "degrade", 3)
    t = chat(40, origin="somebody-else")
    t.settings = Settings(model="made-up-model-7")
    assert assert_same(t, target, "degrade", 3)


def test_a_transcript_with_a_problem_is_converted_whole() -> None:
    t = chat(40)
    t.items.append(ToolResultItem(call_id="nowhere", content=[TextItem(text="x")]))
    # the history integrity rules see the whole transcript: under error the whole refuses the
    # result whose call is not in the history, under degrade it leaves it out (reported); either
    # way the windows decline and the whole conversion decides
    assert isinstance(whole(t, "openai-chat", "error"), InterlinguaError)
    repaired = whole(t, "openai-chat", "degrade")
    assert not isinstance(repaired, InterlinguaError)
    assert any(e.index == len(t.items) - 1 for e in repaired[1])
    for policy in ("error", "degrade"):
        assert windowed(t, "openai-chat", policy, 2)[0] is False


def test_a_system_prompt_in_the_middle_falls_back_where_it_changes_the_shape() -> None:
    t = chat(40)
    t.items.insert(21, TextItem(role="system", text="From now on, answer in French."))
    for target in TARGETS:
        assert_same(t, target, "degrade", 3)  # equal, or declined (the whole conversion decides)


def _segments(draw: st.DrawFn) -> Transcript:
    """Random items (every kind, tool calls and their results) in segments joined by an assistant
    answer and a user text (the safe boundaries), call ids renamed per segment."""
    its: list[Any] = []
    if draw(st.booleans()):
        its.append(TextItem(role=draw(st.sampled_from(("system", "developer"))), text="prompt"))
    for s in range(draw(st.integers(1, 5))):
        seg = draw(item_lists(max_size=6))
        for it in seg:
            if isinstance(it, ToolCallItem):
                it.id = f"s{s}_{it.id}"
            elif isinstance(it, ToolResultItem):
                it.call_id = f"s{s}_{it.call_id}"
        its.extend(seg)
        its.append(TextItem(role="assistant", text=f"answer {s}"))
        its.append(TextItem(role="user", text=f"question {s}"))
    names = sorted({i.name for i in its if isinstance(i, ToolCallItem)})
    fields: dict[str, Any] = {}
    if names:
        fields["tools"] = [ToolDefinition(name=n, description="tool", parameters={"type": "object"}) for n in names]
        if draw(st.booleans()):
            fields["tool_choice"] = ToolChoice(mode=draw(st.sampled_from(("auto", "required", "none"))))
    # the document's other members: a stored session's usage and stop reason (of its last answer), settings, metadata
    if draw(st.booleans()):
        fields["settings"] = draw(generation_settings())
    if draw(st.booleans()):
        fields["usage"] = Usage(input_tokens=draw(st.integers(0, 99)), output_tokens=draw(st.integers(0, 99)))
        fields["stop_reason"] = StopReason(reason=draw(st.sampled_from(("end_turn", "max_tokens", "tool_use"))))
    if draw(st.booleans()):
        fields["metadata"] = {"k": draw(st.text(max_size=5))}
    return Transcript(schema_version="1.0", items=its, **fields)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), target=st.sampled_from(TARGETS), policy=st.sampled_from(("error", "drop", "degrade")), window=st.integers(1, 6))
def test_any_transcript_windowed_equals_the_whole_conversion(data: st.DataObject, target: str, policy: Any, window: int) -> None:
    t = data.draw(st.composite(_segments)())
    event("windowed" if assert_same(t, target, policy, window) else "converted whole")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), target=st.sampled_from(WRITERS), policy=st.sampled_from(("error", "drop", "degrade")), window=st.integers(1, 6))
def test_any_transcript_written_by_a_writer_windowed_equals_the_whole(data: st.DataObject, target: str, policy: Any, window: int) -> None:
    # the writers alone (a record holding the message list is windowed too: ADR 0047)
    t = data.draw(st.composite(_segments)())
    event("windowed" if assert_same(t, target, policy, window) else "converted whole")


# --------------------------------------------------------------------------- real requests


def _real_requests() -> list[tuple[str, Path]]:
    out = []
    for folder, fmt in FORMAT_DIRS.items():
        for path in sorted((REAL / folder).glob("*request*.json")):
            out.append((fmt, path))
    return out


def _canonical(fmt: str, body: Any) -> Transcript | None:
    from interlingua.codec import decode_transcript

    try:
        doc = convert_request(body, source=fmt, target="canonical", policy="degrade").value
    except InterlinguaError:
        return None
    return decode_transcript(json.dumps(doc).encode())


def _every_target(t: Transcript) -> int:
    """Both window sizes for every target, under every policy: how many conversions were windowed."""
    n = 0
    for target in TARGETS:
        for policy in ("error", "degrade"):
            for window in (1, 2):
                n += assert_same(t, target, policy, window)
    return n


def test_every_real_fixture_request_windowed_equals_the_whole_conversion() -> None:
    windowed_n = 0
    cases = _real_requests()
    assert len(cases) > 40
    for fmt, path in cases:
        body = json.loads(path.read_text())
        if not isinstance(body, dict):
            continue
        t = _canonical(fmt, body)
        if t is not None:
            windowed_n += _every_target(t)
    assert windowed_n > 100  # real conversations with several turns are written window by window



@pytest.mark.parametrize("target", TARGETS)
def test_an_untitled_document_past_the_first_window(target: str) -> None:
    # Bedrock Converse names an untitled document by its place among the conversation's documents:
    # its mapper says so (window_dependent) and the request is converted whole
    from interlingua.items import Base64Source, DocumentItem

    t = chat(30)
    pdf = "JVBERi0xLjQK"
    t.items.insert(3, DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data=pdf), media_type="application/pdf"))
    t.items.insert(25, DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data=pdf), media_type="application/pdf"))
    ok = assert_same(t, target, "degrade", 4)
    if target == "bedrock-converse":
        assert not ok


# --------------------------------------------------------------------------- the command


def _cli(args: list[str]) -> tuple[int, bytes, str]:
    from typer.testing import CliRunner

    from interlingua.cli import app

    result = CliRunner().invoke(app, ["convert", *args], catch_exceptions=False)
    return result.exit_code, result.stdout_bytes, result.stderr


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "gemini", "openai-responses", "bedrock-converse", *(w for w in WINDOWED if w in WRITERS)])
def test_convert_writes_the_windowed_body_of_a_document_file(tmp_path: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``convert --from canonical --to <provider> FILE``: the same stdout, ``-o`` file and warnings
    whether the request is converted in windows of 3 items or whole."""
    import interlingua._windowed as windows

    t = chat(41)
    t.items.insert(8, ToolCallItem(id="call 1", name="lookup", arguments={"q": "x"}))
    t.items.insert(9, ToolResultItem(call_id="call 1", content=[TextItem(text="found")]))
    t.tools = [ToolDefinition(name="lookup", parameters={"type": "object"})]
    doc = tmp_path / "t.json"
    doc.write_bytes(msgspec.json.encode(t))
    args = ["--from", "canonical", "--to", target, str(doc)]
    calls: list[bool] = []
    real = windows.write_windows

    def spy(*a: Any, **k: Any) -> bool:
        calls.append(real(*a, **k))
        return calls[-1]

    monkeypatch.setattr(windows, "write_windows", spy)
    monkeypatch.setattr(windows, "WINDOW_ITEMS", 3)
    small = _cli(args)
    _cli([*args, "-o", str(tmp_path / "small.json")])
    assert calls == [True, True]
    monkeypatch.setattr(windows, "WINDOW_ITEMS", 10**9)
    big = _cli(args)
    assert calls[-1] is False  # no cut: converted whole
    assert small[0] == big[0] == 0
    assert small[1] == big[1] == (tmp_path / "small.json").read_bytes()
    assert sorted(small[2].splitlines()) == sorted(big[2].splitlines())


def test_convert_of_a_refused_request_says_what_the_whole_conversion_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import interlingua._windowed as windows

    t = chat(40)
    t.items.append(ToolResultItem(call_id="nowhere", content=[TextItem(text="x")]))
    doc = tmp_path / "t.json"
    doc.write_bytes(msgspec.json.encode(t))
    out = tmp_path / "o.json"
    monkeypatch.setattr(windows, "WINDOW_ITEMS", 3)
    for target in ("openai-chat", "anthropic"):  # the history integrity rules; Anthropic's refusal of tool use without `tools` first
        expected = whole(t, target, "error")
        assert isinstance(expected, InterlinguaError)
        code, _, err = _cli(["--from", "canonical", "--to", target, str(doc), "-o", str(out)])
        assert code == 1 and str(expected).splitlines()[0] in err
        assert not out.exists() and not list(tmp_path.glob(".o.json.*"))
    code, _, err = _cli(["--from", "canonical", "--to", "openai-chat", str(doc), "-o", str(out)])
    assert "/items/41" in err and "nowhere" in err


def _session_file(path: Path, sessions: dict[str, Transcript]) -> Path:
    from interlingua.session_file import header_bytes, session_lines

    with open(path, "wb") as fh:
        for sid, t in sessions.items():
            head = header_bytes(sid, tools=t.tools or None, settings=t.settings or None)
            fh.writelines(session_lines(sid, t.items, header=head, stop_reason=StopReason(reason="end_turn")))
    return path


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "canonical", "pydantic-ai"])
def test_convert_of_a_session_file_streams_its_session(tmp_path: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session of a session file is read a batch of envelopes at a time (before: the whole file's
    bytes, then every envelope): the same output as the whole reader's conversion, with ``--session``
    among several sessions too; several sessions without ``--session`` still says to pick one."""
    import interlingua._windowed as windows
    from interlingua.session_file import read_conversation

    a, b = chat(31), chat(20, system=False)
    a.tools = [ToolDefinition(name="lookup", parameters={"type": "object"})]
    a.settings = Settings(max_output_tokens=512)  # one every target takes (Anthropic's Messages API takes no sampling settings)
    one = _session_file(tmp_path / "one.jsonl", {"s1": a})
    two = _session_file(tmp_path / "two.jsonl", {"s0": b, "s1": a, "s2": b})
    monkeypatch.setattr(windows, "WINDOW_ITEMS", 4)
    expected = read_conversation(one)
    want = whole(expected, target, "error")[0] if target != "canonical" else _pretty(convert_request(expected, source="canonical", target=target).value)
    for args in ([str(one)], [str(two), "--session", "s1"]):
        code, out, err = _cli(["--from", "canonical", "--to", target, *args])
        assert code == 0, err
        assert out == want
    code, out, err = _cli(["--from", "canonical", "--to", target, str(two)])
    assert code == 2 and "--session" in err and not out


def test_a_session_choice_is_refused_as_the_whole_reader_refuses_it(tmp_path: Path) -> None:
    from interlingua.errors import DocumentError
    from interlingua.session_file import read_conversation

    many = _session_file(tmp_path / "many.jsonl", {f"s{i}": chat(4, system=False) for i in range(8)})
    for session in (None, "nope"):
        with pytest.raises(DocumentError) as whole:
            read_conversation(many, session=session)
        code, out, err = _cli(["--from", "canonical", "--to", "openai-chat", str(many), *(["--session", session] if session else [])])
        assert code == (2 if session is None else 1) and not out
        assert str(whole.value.problems[0].message) in err


def _with_audio_and_parallel_calls(n: int) -> Transcript:
    """``chat(n)`` with, in its second half, a user audio clip and an assistant turn of two tool
    calls (and their results): what an unknown model's wire-format defaults may refuse, past the first window."""
    from interlingua.items import AudioItem, Base64Source

    t = chat(n)
    at = n // 2 + (1 - n // 2 % 2)  # a user text in the second half
    t.items[at + 1 : at + 1] = [
        AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), role="user"),
        ToolCallItem(id="c1", name="lookup", arguments={"q": 1}),
        ToolCallItem(id="c2", name="lookup", arguments={"q": 2}),
        ToolResultItem(call_id="c1", content=[TextItem(text="one")]),
        ToolResultItem(call_id="c2", content=[TextItem(text="two")]),
    ]
    t.tools = [ToolDefinition(name="lookup", parameters={"type": "object"})]
    return t


@pytest.mark.parametrize("target", available())
@pytest.mark.parametrize("model", [None, "made-up-model-7"])
def test_an_unknown_model_or_none_is_reported_once_as_the_whole_reports_it(target: str, model: str | None) -> None:
    # the unknown-model warning names what the wire format's defaults would have refused in the
    # whole transcript (information only): gathered window by window, said once
    t = _with_audio_and_parallel_calls(60)
    assert assert_same(t, target, "degrade", 5, model=model)
    expected = whole(t, target, "degrade", model)
    assert not isinstance(expected, InterlinguaError)
    warnings = [e for e in expected[1] if "not in the model catalogue" in e.reason]
    assert len(warnings) == (1 if model else 0)


def test_an_unknown_models_warning_names_what_the_defaults_refuse_past_the_first_window() -> None:
    t = _with_audio_and_parallel_calls(60)
    ok, _, entries = windowed(t, "anthropic", "degrade", 5, model="made-up-model-7")
    assert ok
    (warning,) = [e.reason for e in entries if "not in the model catalogue" in e.reason]
    assert "audio input is not supported" in warning


@pytest.mark.parametrize("max_output", [None, 100, 16_000])
def test_the_context_fit_is_the_whole_transcripts(max_output: int | None) -> None:
    # gpt-4o's context window is known (128,000 tokens): the check is on the whole transcript's
    # estimate, never a window's; a transcript whose every window fits but whose whole does not is refused
    t = chat(1_400)
    for it in t.items[1:]:
        it.text += " word" * 80  # about 86 tokens an item: the whole about 120,000, a window of 50 about 4,300
    if max_output is not None:
        t.settings = Settings(max_output_tokens=max_output)
    expected = whole(t, "openai-chat", "error", "gpt-4o")
    ok = assert_same(t, "openai-chat", "error", 50, model="gpt-4o")
    if max_output == 16_000:  # gpt-4o's output limit: the whole does not fit with it, every window would
        from interlingua.errors import BudgetError

        assert isinstance(expected, BudgetError) and not ok
    else:
        assert not isinstance(expected, InterlinguaError) and ok  # the cheap bound says it fits: windows


def test_reported_usage_leaves_the_context_fit_to_the_whole_conversion() -> None:
    from interlingua.items import ResponseRecord

    t = chat(200)
    t.responses = [ResponseRecord(item=2, usage=Usage(input_tokens=200_000, output_tokens=5))]
    assert isinstance(whole(t, "openai-chat", "error", "gpt-4o"), InterlinguaError)  # the reported usage says it does not fit
    assert windowed(t, "openai-chat", "error", 20, model="gpt-4o")[0] is False
    assert assert_same(t, "openai-chat", "drop", 20, model="gpt-4o")  # no context check under drop


def test_a_kept_source_spelling_is_written_as_the_whole_conversion_writes_it() -> None:
    # an OpenAI Chat request read to canonical keeps the body's own spelling for OpenAI Chat (ADR 0027:
    # here a content given as one text part, late in the conversation), placed by the whole body's paths
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Answer briefly."}]
    for i in range(40):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"})
    messages[35]["content"] = [{"type": "text", "text": "message 34, as parts"}]
    t = convert_request({"model": "gpt-4o", "messages": messages}, source="openai-chat", target="canonical").value
    from interlingua.codec import decode_transcript

    t = decode_transcript(json.dumps(t).encode())
    expected = whole(t, "openai-chat", "degrade")
    assert not isinstance(expected, InterlinguaError) and b'"message 34, as parts"\n' in expected[0]
    assert json.loads(expected[0])["messages"][35]["content"] == messages[35]["content"]  # the source's spelling, written back
    assert_same(t, "openai-chat", "degrade", 3)
    assert assert_same(t, "anthropic", "degrade", 3)  # another target ignores the entries: windows


@pytest.mark.parametrize("policy", ["drop", "degrade"])
def test_a_refusal_mistral_cannot_carry_is_reported_at_its_item(policy: Any) -> None:
    """Hypothesis found it: Mistral reported a dropped refusal with no item index, so the windowed
    conversion placed the entry elsewhere in the report than the whole conversion did."""
    from interlingua.items import ImageItem, RefusalItem
    from interlingua.items import Base64Source

    t = Transcript(schema_version="1.0", items=[
        RefusalItem(text="0"), TextItem(text="0", role="user"), ImageItem(source=Base64Source(media_type="image/png", data="AA=="), role="user"),
        RefusalItem(text=""), TextItem(text="answer 0", role="assistant"), TextItem(text="question 0", role="user"),
        RefusalItem(text="no"), TextItem(text="question 1", role="user"),
    ])
    expected = whole(t, "mistral", policy)
    assert not isinstance(expected, InterlinguaError)
    refusals = [e for e in expected[1] if e.item_type == "refusal"]
    assert [e.index for e in refusals] == [0, 6]
    for window in (1, 2, 3):
        assert_same(t, "mistral", policy, window)
