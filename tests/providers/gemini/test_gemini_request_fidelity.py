"""Issue 13 item 2 (Gemini): a request round trip writes back the wire the canonical form cannot hold.

Each class is checked on real recorded requests (pydantic-ai cassettes, copied to
``tests/fixtures/real/corpus/gemini``; the whole corpus too when present): Gemini -> transcript ->
Gemini, directly and through the transcript DOCUMENT (JSON bytes), compared with the corpus test's
equivalences; and the same transcript to another provider, where what only Gemini can take is reported.

Classes: ``systemInstruction.role``; ``toolConfig.functionCallingConfig`` with mode ``VALIDATED`` or
several ``allowedFunctionNames``; tools with no canonical form (``googleSearch``, ``fileSearch``, ...)
and the layout of ``tools`` (one ``Tool`` object, declarations split over several); a Gemini
``parameters`` Schema spelled in lower case; empty text parts; ``functionResponse.response``
``{"output": {...}}``.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import decode_transcript, encode_transcript
from interlingua.items import StructuredItem, TextItem, ToolChoice, ToolDefinition, ToolResultItem
from interlingua.mapping import get_mapper

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from corpus import _engine  # noqa: E402

gemini = get_mapper("gemini")
REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "corpus" / "gemini"

# (file, what it holds)
FILES = {
    "pai__test_google__test_google_instructions_only_with_tool_calls.0.request.json":
        "systemInstruction role, ANY with two allowedFunctionNames, an empty user text part",
    "pai__test_google__test_google_prompted_output_with_tools.1.request.json": "functionCallingConfig mode VALIDATED",
    "pai__test_google__test_google_vertex_tool_combination_omits_include_server_side_tool_invocations.0.request.json":
        "googleSearch before a functionDeclarations Tool",
    "pai__test_openai__test_multiple_agent_tool_calls.1.request.json": "tools as one Tool object, a lower-case parameters Schema",
    "pai__test_google__test_google_model_empty_assistant_response.0.request.json": "an empty model turn ({text: ''})",
    "pai__test_google__test_google_model_file_search_grounding_gemini_3_False.3.request.json": "fileSearch and includeServerSideToolInvocations",
}


def load(name: str) -> dict[str, Any]:
    return json.loads((REAL / name).read_text(encoding="utf-8"))


def same(a: Any, b: Any) -> bool:
    return _engine.normalize("gemini", a) == _engine.normalize("gemini", b)


def test_fixture_files_present() -> None:
    assert all((REAL / f).is_file() for f in FILES)


@pytest.mark.parametrize("name", sorted(FILES), ids=lambda n: FILES[n])
def test_real_request_round_trips_exactly(name: str) -> None:
    body = load(name)
    before = copy.deepcopy(body)
    dec = gemini.decode_request(body)
    out = gemini.encode_request(dec.value, policy="error")
    assert same(out.value, body), list(_engine.differences(_engine.normalize("gemini", body), _engine.normalize("gemini", out.value)))
    assert not out.report, out.report.lines()
    # through the document: the kept wire survives JSON bytes
    doc = decode_transcript(encode_transcript(dec.value))
    assert same(gemini.encode_request(doc, policy="error").value, body)
    assert body == before


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "ollama", "openai-responses"])
def test_what_only_gemini_takes_is_reported_elsewhere(target: str) -> None:
    t = gemini.decode_request(load("pai__test_google__test_google_vertex_tool_combination_omits_include_server_side_tool_invocations.0.request.json")).value
    out = get_mapper(target).encode_request(t, policy="drop")
    text = json.dumps(out.value)
    assert "googleSearch" not in text and "get_user_city" in text
    assert any(e.action == "dropped" and "tools" in e.reason and "systemInstruction" in e.reason for e in out.report), out.report.lines()


def test_validated_mode_is_kept_while_the_tool_choice_is_unchanged() -> None:
    body = load("pai__test_google__test_google_prompted_output_with_tools.1.request.json")
    dec = gemini.decode_request(body)
    assert dec.value.tool_choice == ToolChoice(mode="auto")
    assert [e.action for e in dec.report] == ["changed"] and "VALIDATED" in dec.report.entries[0].reason
    assert gemini.encode_request(dec.value).value["toolConfig"] == body["toolConfig"]
    # a changed tool choice wins over the kept wire (and the kept one is reported)
    t = msgspec.structs.replace(dec.value, tool_choice=ToolChoice(mode="none"))
    out = gemini.encode_request(t)
    assert out.value["toolConfig"] == {"functionCallingConfig": {"mode": "NONE"}}
    assert [e.pointer for e in out.report] == ["/toolConfig/functionCallingConfig"]


def test_several_allowed_names_go_back_and_not_once_a_named_tool_is_gone() -> None:
    body = load("pai__test_google__test_google_instructions_only_with_tool_calls.0.request.json")
    dec = gemini.decode_request(body)
    assert dec.value.tool_choice == ToolChoice(mode="required")
    assert gemini.encode_request(dec.value).value["toolConfig"] == body["toolConfig"]
    t = msgspec.structs.replace(dec.value, tools=[x for x in dec.value.tools if x.name != "final_result"])
    out = gemini.encode_request(t)
    assert out.value["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert any(e.action == "dropped" and e.item_type == "tool_choice" for e in out.report)


def test_tools_layout_follows_the_transcript_tools() -> None:
    body = load("pai__test_google__test_google_vertex_tool_combination_omits_include_server_side_tool_invocations.0.request.json")
    t = gemini.decode_request(body).value
    added = msgspec.structs.replace(t, tools=[*t.tools, ToolDefinition(name="extra", parameters={"type": "object"})])
    tools = gemini.encode_request(added).value["tools"]
    assert tools[0] == {"googleSearch": {}} and [d["name"] for d in tools[1]["functionDeclarations"]] == ["get_user_city", "extra"]
    removed = msgspec.structs.replace(t, tools=[])
    assert gemini.encode_request(removed).value["tools"] == [{"googleSearch": {}}]  # the Gemini tool stays


def test_system_role_is_written_only_with_a_system_instruction() -> None:
    body = load("pai__test_google__test_google_instructions_only_with_tool_calls.0.request.json")
    t = gemini.decode_request(body).value
    assert gemini.encode_request(t).value["systemInstruction"] == body["systemInstruction"]
    no_system = msgspec.structs.replace(t, items=[i for i in t.items if getattr(i, "role", None) != "system"])
    assert "systemInstruction" not in gemini.encode_request(no_system).value


def test_function_response_output_object_comes_back_wrapped() -> None:
    """The issue's case: ``{"output": {...}}`` came back as the bare object (the model saw other JSON).
    The body is the real prompted-output request with its tool result wrapped that way."""
    body = load("pai__test_google__test_google_prompted_output_with_tools.1.request.json")
    fr = next(p["functionResponse"] for c in body["contents"] for p in c["parts"] if "functionResponse" in p)
    fr["response"] = {"output": copy.deepcopy(fr["response"])}
    dec = gemini.decode_request(copy.deepcopy(body))
    result = next(i for i in dec.value.items if isinstance(i, ToolResultItem))
    assert isinstance(result.content[0], StructuredItem) and result.content[0].data == fr["response"]["output"]
    out = gemini.encode_request(dec.value).value
    assert same(out, body)
    # the bare object still comes back bare, and another target sees the same structured output
    bare = gemini.decode_request({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"a": 1}}}]}]})
    assert gemini.encode_request(bare.value).value["contents"][0]["parts"][0]["functionResponse"]["response"] == {"a": 1}
    chat = get_mapper("openai-chat").encode_request(dec.value, policy="drop").value
    tool_msg = next(m for m in chat["messages"] if m["role"] == "tool")
    assert json.loads(tool_msg["content"] if isinstance(tool_msg["content"], str) else tool_msg["content"][0]["text"]) == fr["response"]["output"]


def test_empty_text_from_another_provider_is_left_out_and_reported() -> None:
    """Issue 25: Gemini answers 400 "Unable to submit request because it has an empty text parameter"; an
    empty text from another source is left out with a report (nothing is lost: it is empty). An empty
    text read from Gemini goes back as it came (recorded requests holding one were answered 200)."""
    t = gemini.decode_request({"contents": [{"role": "user", "parts": [{"text": "q"}]}]}).value
    t = msgspec.structs.replace(t, items=[*t.items, TextItem(role="assistant", text="")])
    for policy in ("error", "drop", "degrade"):
        out = gemini.encode_request(t, policy=policy)
        assert out.value["contents"] == [{"role": "user", "parts": [{"text": "q"}]}]
        assert [(e.action, e.index, e.item_type) for e in out.report] == [("dropped", 1, "text")]
    own = {"contents": [{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": [{"text": ""}]}]}
    assert gemini.encode_request(gemini.decode_request(own).value).value == own


needs_corpus = pytest.mark.skipif(not (_engine.corpus_dir() / "corpus.tar.xz").is_file(), reason="the corpus (../shared/corpus) is absent")


@needs_corpus
def test_every_corpus_request_round_trips_losslessly(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = _engine.unpack(tmp_path_factory.mktemp("corpus"))
    entries = [e for e in _engine.manifest() if e.format == "gemini" and e.kind == "request"]
    outcomes = [_engine.run_file(e, root, "request-roundtrip") for e in entries]
    bad = [o.message() for o in outcomes if o.status != _engine.LOSSLESS]
    assert not bad, "\n".join(bad[:5])
