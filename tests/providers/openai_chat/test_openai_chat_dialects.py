"""The OpenAI-compatible hosts by name (``openai-chat:<dialect>``): their rules, on real recordings.

Recordings: tests/fixtures/real/openai_compatible_hosts (Groq, Cerebras, DeepSeek, Hugging Face, z.ai).
Every request round-trips to the same transcript with an empty report, every response to the same
items, every stream ends in one terminal event. Rules: where reasoning goes back, the budget field,
``top_k``, ``tool_choice`` modes, ``finish_reason`` values outside OpenAI's enum, the CLI ``--dialect``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError, UnknownFormatError
from interlingua.items import ReasoningItem, Settings, StopReason, TextItem, ToolCallItem, ToolChoice, ToolDefinition, Transcript
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.mapping.registry import is_known
from interlingua.providers.openai_chat import DIALECT_RULES, DIALECTS
from interlingua.streaming import StreamDone, collect

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "openai_compatible_hosts"
INDEX = json.loads((REAL / "index.json").read_text())
HOSTS = ("groq", "together", "fireworks", "xai", "cerebras", "deepseek", "openrouter", "vllm", "lmstudio", "llamacpp", "huggingface", "zai", "kimi")


def _norm(t: Transcript) -> Any:
    data = to_builtins(t)
    if data.get("tools") == []:
        del data["tools"]  # an empty tools list is written as none (the OpenAI Chat engine's spelling)
    return data


def _t(*items: Any, **kw: Any) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items), **kw)


def test_every_host_of_the_issue_is_a_dialect_with_a_source() -> None:
    assert set(HOSTS) <= set(DIALECTS)
    for name in HOSTS:
        rules = DIALECT_RULES[name]
        assert rules.source and ("." in rules.source), name
        assert is_known(f"openai-chat:{name}")
        mapper = get_mapper(f"openai-chat:{name}")
        assert mapper.name == "openai-chat" and mapper.dialect == name
        assert get_mapper(f"openai-chat:{name}") is mapper  # loaded once


def test_unknown_dialect_is_a_clear_error() -> None:
    with pytest.raises(UnknownFormatError, match="unknown OpenAI Chat dialect 'nope'; known: openai, deepseek"):
        get_mapper("openai-chat:nope")
    assert not is_known("openai-chat:nope") and not is_known("anthropic:groq") and not is_known("nope:groq")
    with pytest.raises(UnknownFormatError):
        get_mapper("openai-chat:mistral")  # Mistral is its own format


@pytest.mark.parametrize("stem", sorted(INDEX), ids=str)
def test_recorded_host_traffic_round_trips_in_its_dialect(stem: str) -> None:
    entry = INDEX[stem]
    mapper = get_mapper(f"openai-chat:{entry['dialect']}")
    request = json.loads((REAL / entry["files"][0]).read_text())
    decoded = mapper.decode_request(request)
    encoded = mapper.encode_request(decoded.value, model=request["model"])
    assert decoded.report.entries == [] and encoded.report.entries == []
    assert _norm(mapper.decode_request(encoded.value).value) == _norm(decoded.value)
    if len(entry["files"]) < 2:
        return
    answer = REAL / entry["files"][1]
    if answer.suffix == ".json":
        response = mapper.decode_response(json.loads(answer.read_text()))
        assert response.report.entries == []
        back = mapper.encode_response(response.value)
        assert to_builtins(mapper.decode_response(back.value).value.to_transcript()) == to_builtins(response.value.to_transcript())
    else:
        events = collect(mapper, answer.read_bytes())
        assert isinstance(events[-1], StreamDone)
        assert sum(isinstance(e, StreamDone) for e in events) == 1


def test_recorded_reasoning_is_read_in_each_hosts_field_and_sent_back_where_it_is_taken() -> None:
    """z.ai and Cerebras take reasoning back (pydantic-ai sends it); Groq's reasoning stays out."""
    seen = {}
    for stem, entry in INDEX.items():
        answer = REAL / entry["files"][-1]
        if answer.suffix != ".json" or entry["dialect"] not in ("zai", "cerebras", "groq"):
            continue
        body = json.loads(answer.read_text())
        response = get_mapper(f"openai-chat:{entry['dialect']}").decode_response(body).value
        if any(isinstance(i, ReasoningItem) for i in response.items):
            seen[entry["dialect"]] = response
    assert set(seen) == {"zai", "cerebras", "groq"}
    for dialect, field, sent in (("zai", "reasoning_content", True), ("cerebras", "reasoning", True), ("groq", None, False)):
        response = seen[dialect]
        thinking = next(i for i in response.items if isinstance(i, ReasoningItem)).text
        transcript = _t(TextItem(role="user", text="q"), *response.items, TextItem(role="user", text="again"))
        out = get_mapper(f"openai-chat:{dialect}").encode_request(transcript, model="m")
        assistant = out.value["messages"][1]
        if sent:
            assert assistant[field] == thinking and out.report.entries == []
        else:
            assert "reasoning" not in assistant and "reasoning_content" not in assistant
            assert [e.item_type for e in out.report.entries] == ["reasoning"] and "groq" in out.report.entries[0].reason


@pytest.mark.parametrize(
    "dialect, field",
    [("fireworks", "reasoning_content"), ("xai", "reasoning_content"), ("vllm", "reasoning"), ("lmstudio", "reasoning_content"),
     ("llamacpp", "reasoning_content"), ("kimi", "reasoning_content"), ("huggingface", "reasoning"), ("together", None), ("openai", None)],
)
def test_reasoning_goes_back_in_the_dialects_field(dialect: str, field: str | None) -> None:
    transcript = _t(TextItem(role="user", text="q"), ReasoningItem(text="because"), TextItem(role="assistant", text="a"), TextItem(role="user", text="more"))
    out = get_mapper(f"openai-chat:{dialect}").encode_request(transcript, model="m", policy="drop")
    assistant = out.value["messages"][1]
    if field is None:
        assert set(assistant) == {"role", "content"} and out.report.entries[0].item_type == "reasoning"
    else:
        assert assistant[field] == "because" and out.report.entries == []
    assert get_mapper(f"openai-chat:{dialect}").capabilities(None).reasoning is (field is not None)


@pytest.mark.parametrize("dialect, field", [("groq", "max_completion_tokens"), ("cerebras", "max_completion_tokens"), ("together", "max_tokens"), ("vllm", "max_tokens"), ("openai", "max_completion_tokens")])
def test_output_budget_field(dialect: str, field: str) -> None:
    out = get_mapper(f"openai-chat:{dialect}").encode_request(_t(TextItem(role="user", text="q"), settings=Settings(max_output_tokens=64)), model="m").value
    assert out[field] == 64 and {"max_tokens", "max_completion_tokens"} - {field} & set(out) == set()


@pytest.mark.parametrize("dialect, takes", [("vllm", True), ("llamacpp", True), ("together", True), ("fireworks", True), ("lmstudio", True), ("groq", False), ("xai", False)])
def test_top_k(dialect: str, takes: bool) -> None:
    transcript = _t(TextItem(role="user", text="q"), settings=Settings(top_k=40))
    mapper = get_mapper(f"openai-chat:{dialect}")
    if takes:
        assert mapper.encode_request(transcript, model="m").value["top_k"] == 40
    else:  # a sampling setting left out is reported (it does not change what the output means)
        out = mapper.encode_request(transcript, model="m")
        assert "top_k" not in out.value
        assert [e.pointer for e in out.report.entries] == ["/settings/top_k"] and dialect in out.report.entries[0].reason


@pytest.mark.parametrize("dialect, mode, ok", [("kimi", "required", False), ("kimi", "none", True), ("zai", "none", False), ("zai", "auto", True), ("zai", "tool", False), ("groq", "required", True), ("groq", "tool", True)])
def test_tool_choice_modes(dialect: str, mode: str, ok: bool) -> None:
    choice = ToolChoice(mode="tool", name="f") if mode == "tool" else ToolChoice(mode=mode)  # type: ignore[arg-type]
    transcript = _t(TextItem(role="user", text="q"), tools=[ToolDefinition(name="f", parameters={"type": "object"})], tool_choice=choice)
    mapper = get_mapper(f"openai-chat:{dialect}")
    if ok:
        assert "tool_choice" in mapper.encode_request(transcript, model="m").value
        return
    with pytest.raises(ConversionError, match="tool_choice"):
        mapper.encode_request(transcript, model="m")
    out = mapper.encode_request(transcript, model="m", policy="drop")
    assert "tool_choice" not in out.value and any(e.item_type == "tool_choice" for e in out.report.entries)


@pytest.mark.parametrize("dialect, finish, reason", [("zai", "sensitive", "content_filter"), ("zai", "network_error", "error"), ("zai", "model_context_window_exceeded", "max_tokens"), ("together", "eos", "end_turn")])
def test_finish_reasons_outside_openai_enum(dialect: str, finish: str, reason: str) -> None:
    mapper = get_mapper(f"openai-chat:{dialect}")
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": finish}]}
    response = mapper.decode_response(body).value
    assert response.stop_reason == StopReason(reason=reason, raw=finish)  # type: ignore[arg-type]
    assert mapper.encode_response(response).value["choices"][0]["finish_reason"] == finish
    assert get_mapper("openai-chat").decode_response(body).value.stop_reason.reason == "other"  # OpenAI itself has no such value
    stream = (
        'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n'
        f'data: {{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{}},"finish_reason":"{finish}"}}]}}\n\n'
        "data: [DONE]\n\n"
    )
    done = collect(mapper, stream.encode())[-1]
    assert isinstance(done, StreamDone) and done.response.stop_reason == StopReason(reason=reason, raw=finish)  # type: ignore[arg-type]


def test_convert_dialect_option(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "q"}, {"type": "reasoning", "text": "think"}, {"type": "text", "role": "assistant", "text": "a"}, {"type": "text", "role": "user", "text": "more"}]}))
    runner = CliRunner()
    result = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", "openai-chat", "--dialect", "zai", "--model", "glm-4.6"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["messages"][1]["reasoning_content"] == "think"
    same = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", "openai-chat:zai", "--model", "glm-4.6"])
    assert same.exit_code == 0 and json.loads(same.stdout) == json.loads(result.stdout)
    groq = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", "openai-chat", "--dialect", "groq", "--model", "openai/gpt-oss-120b", "--policy", "drop"])
    assert groq.exit_code == 0 and "reasoning" not in json.loads(groq.stdout)["messages"][1] and "groq" in groq.stderr
    bad = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", "anthropic", "--dialect", "groq"])
    assert bad.exit_code == 2 and "--dialect needs --to openai-chat" in bad.stderr
    unknown = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", "openai-chat", "--dialect", "nope"])
    assert unknown.exit_code == 2 and "unknown format 'openai-chat:nope'" in unknown.stderr


def test_reading_a_dialect_body_as_another_dialect_loses_nothing() -> None:
    """Reading accepts every dialect's fields: a z.ai body read as plain openai-chat keeps its reasoning."""
    stem = next(s for s, e in INDEX.items() if e["dialect"] == "zai" and e["files"][-1].endswith(".json"))
    body = json.loads((REAL / INDEX[stem]["files"][-1]).read_text())
    plain = get_mapper("openai-chat").decode_response(body).value
    zai = get_mapper("openai-chat:zai").decode_response(body).value
    assert to_builtins(plain.items) == to_builtins(zai.items)
    _ = ModelResponse, ToolCallItem
