"""The one-call conversion (``interlingua.convert_request`` & co.) and ``interlingua convert`` agree,
on every real fixture x target x policy; the real cases of issues 12 and 14 as CLI tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import interlingua as il
from interlingua.cli import app
from interlingua.errors import CapabilityError, FormatMismatchError, InterlinguaError
from interlingua.mapping import get_mapper
from interlingua.mapping.report import POLICIES

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
EXAMPLE = ROOT / "examples" / "payloads" / "anthropic_parallel_tools.request.json"
AUDIO = REAL / "openai_chat_extra" / "pai_openai_audio_as_binary_content_input.0.request.json"
NO_TOOLS = REAL / "openai_chat_extra" / "pai_openai_tool_call_roundtrip_ag_ui.2.request.json"
PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"]
TARGETS = ["canonical", *PROVIDERS]

runner = CliRunner()


def _format_of(path: Path) -> str:
    folder = path.parent.name
    if folder == "openai_compatible_hosts":  # read with the host's dialect: openai-chat:<dialect>
        return "openai-chat:" + path.name.split("__")[0]
    if folder in ("openrouter", "openai_chat_extra", "openai_compatible") or path.name.startswith("pai_ollama_cloud"):
        return "openai-chat"  # OpenAI-compatible endpoints (see the fixtures README)
    return folder.replace("_", "-")


def _real_inputs() -> list[tuple[str, Path, str]]:
    out: list[tuple[str, Path, str]] = [("anthropic", EXAMPLE, "request")]
    for path in sorted(REAL.glob("*/*")):
        name = path.name
        if name.endswith(".request.json"):
            kind = "request"
        elif name.endswith((".sse", ".ndjson")):
            kind = "stream"
        elif name.endswith(".response.json") or (name.endswith(".json") and ".request." not in name and name != "index.json"):
            kind = "response"  # (index.json files list a folder's fixtures: not payloads)
        else:
            continue
        out.append((_format_of(path), path, kind))
    return out


INPUTS = _real_inputs()


def _api(source: str, path: Path, kind: str, target: str, policy: str) -> tuple[str, Any, list[str]]:
    """``("ok", body, report lines)`` or ``("error", exception, report lines so far)``."""
    report = il.mapping.Report()
    data = path.read_bytes()
    try:
        if kind == "stream":
            conv = il.convert_stream(data, source=source, target=target, policy=policy, report=report)  # type: ignore[arg-type]
        else:
            body = json.loads(data)
            snapshot = copy.deepcopy(body)
            call = il.convert_request if kind == "request" else il.convert_response
            try:
                conv = call(body, source=source, target=target, policy=policy, report=report)  # type: ignore[arg-type]
            finally:
                assert body == snapshot, "the conversion mutated its input"
    except InterlinguaError as exc:
        return "error", exc, report.lines()
    assert conv.report is report
    return "ok", conv.value, report.lines()


def _cli(*args: str) -> Any:
    return runner.invoke(app, ["convert", *args], catch_exceptions=False)


def test_the_real_inputs_cover_every_kind_and_format() -> None:
    kinds = {(s, k) for s, _, k in INPUTS}
    for fmt in PROVIDERS:
        assert {(fmt, "request"), (fmt, "response"), (fmt, "stream")} <= kinds, fmt


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("source", "path", "kind"), INPUTS, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_cli_and_python_api_agree(source: str, path: Path, kind: str, target: str, policy: str) -> None:
    outcome, value, lines = _api(source, path, kind, target, policy)
    res = _cli("--from", source, "--to", target, "--policy", policy, str(path))
    err = res.stderr.splitlines()
    if outcome == "ok":
        assert res.exit_code == 0, res.stderr
        assert json.loads(res.stdout) == value
        assert err == lines
        return
    assert res.exit_code == 1, res.stderr
    assert res.stdout == ""
    assert isinstance(value, InterlinguaError)
    # the same refusal: the warnings made before it, then the error (first line of its message)
    assert err[: len(lines)] == lines
    assert err[len(lines)].startswith("error: ")
    assert str(value).splitlines()[0] in err[len(lines)]
    if isinstance(value, CapabilityError):
        rest = err[len(lines) + 1 :]
        shown = [f"  - {v}" for v in value.violations]
        assert rest[: len(shown)] == shown
        assert all(line.startswith("hint: ") for line in rest[len(shown) :])  # --model, --policy


@pytest.mark.parametrize(("source", "path", "kind"), [i for i in INPUTS if i[2] != "stream"], ids=lambda v: v.name if isinstance(v, Path) else v)
def test_no_real_body_is_taken_for_another_format_when_named_right(source: str, path: Path, kind: str) -> None:
    body = json.loads(path.read_bytes())
    assert get_mapper(source).kind_of(body) == kind
    assert il.conversion.detect_kind(body, source=source) == kind


# --------------------------------------------------------------------------- wrong --from


def test_wrong_from_on_the_readme_example_exits_1_with_the_hint_first() -> None:
    """Issue 14: this exited 0, dropping the system prompt and all 8 tool calls and results."""
    res = _cli("--from", "openai-chat", "--to", "anthropic", str(EXAMPLE))
    assert res.exit_code == 1
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0] == (
        f"error: {EXAMPLE}: not an openai-chat request or response body (top-level keys: max_tokens, messages, model, "
        "stream, system, tool_choice, tools); it looks like an anthropic request: try --from anthropic, "
        "or --force to decode it as openai-chat"
    )


def test_wrong_from_in_the_python_api_is_the_same_refusal() -> None:
    body = json.loads(EXAMPLE.read_bytes())
    with pytest.raises(FormatMismatchError) as info:
        il.convert_request(body, source="openai-chat", target="anthropic")
    assert (info.value.source, info.value.likely, info.value.kind) == ("openai-chat", "anthropic", "request")
    forced = il.convert_request(body, source="openai-chat", target="canonical", force=True)
    assert any("looks like an anthropic request" in str(e) for e in forced.report)


def test_force_converts_as_asked() -> None:
    res = _cli("--from", "openai-chat", "--to", "anthropic", "--force", str(EXAMPLE))
    assert res.exit_code == 0, res.stderr
    assert "looks like an anthropic request, decoded as openai-chat as asked" in res.stderr


@pytest.mark.parametrize(
    ("wrong", "path", "right"),
    [
        ("anthropic", REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json", "openai-chat"),
        ("ollama", EXAMPLE, "anthropic"),
        ("openai-responses", REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json", "anthropic"),
        ("anthropic", REAL / "openai_responses" / "pai_openai_responses_stream.1.request.json", "openai-responses"),
        ("gemini", REAL / "ollama" / "ollama_docs.chat_tools_history.request.json", "ollama"),
        ("anthropic", REAL / "openai_chat" / "openai_python.completion_text.response.json", "openai-chat"),
    ],
)
def test_real_bodies_named_with_the_wrong_format_are_refused(wrong: str, path: Path, right: str) -> None:
    res = _cli("--from", wrong, "--to", "canonical", str(path))
    assert res.exit_code == 1
    first = res.stderr.splitlines()[0]
    assert first.startswith(f"error: {path}: not {'an' if wrong[0] in 'aeiou' else 'a'} {wrong} request or response body")
    assert f"try --from {right}," in first
    assert _cli("--from", right, "--to", "canonical", str(path)).exit_code == 0


# --------------------------------------------------------------------------- policy governs preflight


def test_audio_to_anthropic_is_refused_under_error() -> None:
    res = _cli("--from", "openai-chat", "--to", "anthropic", str(AUDIO))
    assert res.exit_code == 1 and res.stdout == ""
    assert "  - item 1 (audio): audio input is not supported (input modalities: document, image, text)" in res.stderr.splitlines()


def test_audio_to_anthropic_under_drop_is_left_out_and_reported() -> None:
    """The README's own example (issue 14: refused under every policy)."""
    res = _cli("--from", "openai-chat", "--to", "anthropic", "--policy", "drop", str(AUDIO))
    assert res.exit_code == 0, res.stderr
    body = json.loads(res.stdout)
    blocks = [b for m in body["messages"] for b in m["content"]]
    assert blocks == [{"type": "text", "text": "Whose name is mentioned in the audio?"}]
    assert "warning: dropped: item 1 audio: audio input is not supported by '<anthropic default>' (input modalities: document, image, text)" in res.stderr.splitlines()


def test_audio_to_anthropic_under_degrade_leaves_a_marker_and_reports_it() -> None:
    res = _cli("--from", "openai-chat", "--to", "anthropic", "--policy", "degrade", "--model", "claude-sonnet-4-5", str(AUDIO))
    assert res.exit_code == 0, res.stderr
    body = json.loads(res.stdout)
    assert body["messages"][0]["content"][1] == {"type": "text", "text": "[audio omitted: the model takes no audio input]"}
    assert any(line.startswith("warning: degraded: item 1 audio: audio input is not supported by 'claude-sonnet-4-5'") for line in res.stderr.splitlines())
    assert [b["type"] for m in body["messages"] for b in m["content"]] == ["text", "text"]


@pytest.mark.parametrize("policy", ["drop", "degrade"])
def test_what_no_policy_can_fix_still_refuses(policy: str) -> None:
    """A model without tools cannot hold the example's 8 tool calls and results, whatever the policy."""
    res = _cli("--from", "anthropic", "--to", "ollama", "--model", "llama3:8b", "--policy", policy, str(EXAMPLE))
    assert res.exit_code == 1 and res.stdout == ""
    lines = res.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("error: "))
    assert lines[start] == "error: model 'llama3:8b' cannot take 10 item(s):"
    assert sum("tools are not supported by this model" in line for line in lines[start + 1 :]) == 8
    assert lines[-2:] == [
        "  - transcript (tools): the transcript defines 1 tool(s) but the model takes no tools",
        "  - transcript (tool_choice): tool_choice 'auto' needs tools, which the model does not take",
    ]


# --------------------------------------------------------------------------- history without tool definitions


def _responses_items_only() -> dict[str, Any]:
    """An OpenAI Agents SDK-like history: the Responses input items of a real request, nothing else."""
    body = json.loads((REAL / "openai_responses" / "pai_openai_responses_stream.1.request.json").read_bytes())
    assert any(i.get("type") == "function_call" for i in body["input"]) and body["tools"]
    return {"input": body["input"]}


HISTORIES = [
    pytest.param("openai-responses", _responses_items_only(), "get_capital", id="responses-items-only"),
    pytest.param("openai-chat", json.loads(NO_TOOLS.read_bytes()), "get_weather", id="recorded-without-tools"),
]


@pytest.mark.parametrize(("source", "body", "name"), HISTORIES)
def test_history_without_tools_is_refused_for_anthropic_under_error(source: str, body: dict[str, Any], name: str) -> None:
    with pytest.raises(CapabilityError) as info:
        il.convert_request(body, source=source, target="anthropic", model="claude-sonnet-4-5")
    assert [(v.index, v.item_type) for v in info.value.violations] == [(None, "tools")]


@pytest.mark.parametrize("policy", ["drop", "degrade"])
@pytest.mark.parametrize(("source", "body", "name"), HISTORIES)
def test_history_without_tools_gets_synthesized_definitions_under_drop_and_degrade(
    source: str, body: dict[str, Any], name: str, policy: str, tmp_path: Path
) -> None:
    conv = il.convert_request(body, source=source, target="anthropic", model="claude-sonnet-4-5", policy=policy)  # type: ignore[arg-type]
    out = conv.value
    called = [b["name"] for m in out["messages"] if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_use"]
    assert called and set(called) == {name}
    assert out["tools"] == [{"name": name, "input_schema": {"type": "object", "additionalProperties": True}}]
    entries = [e for e in conv.report if e.item_type == "tools"]
    assert [(e.action, e.pointer) for e in entries] == [("changed", "/tools/0")]
    assert f"calls {name!r} but holds no tool definitions" in entries[0].reason
    # the CLI gives the same body and warnings
    src = tmp_path / "history.json"
    src.write_text(json.dumps(body), encoding="utf-8")
    res = _cli("--from", source, "--to", "anthropic", "--model", "claude-sonnet-4-5", "--policy", policy, str(src))
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout) == out
    assert res.stderr.splitlines() == conv.report.lines()


def test_tools_are_not_synthesized_where_definitions_are_not_required() -> None:
    body = json.loads(NO_TOOLS.read_bytes())
    conv = il.convert_request(body, source="openai-chat", target="openai-responses", policy="drop")
    assert "tools" not in conv.value or not conv.value["tools"]
    assert not any(e.item_type == "tools" for e in conv.report)


# --------------------------------------------------------------------------- model rules


def test_across_providers_without_model_the_body_has_none_and_a_warning_says_so() -> None:
    res = _cli("--from", "anthropic", "--to", "openai-chat", str(EXAMPLE))
    assert res.exit_code == 0, res.stderr
    assert "model" not in json.loads(res.stdout)
    assert [line for line in res.stderr.splitlines() if "/model" in line] == [
        "warning: changed: settings /model: the openai-chat body has no 'model': pass model= or --model "
        f"(the transcript's settings name {json.loads(EXAMPLE.read_bytes())['model']!r}, which is not carried over)"
    ]


def test_an_explicit_model_is_written_and_not_warned_about() -> None:
    conv = il.convert_request(json.loads(EXAMPLE.read_bytes()), source="anthropic", target="openai-chat", model="gpt-4.1")
    assert conv.value["model"] == "gpt-4.1"
    assert not any(e.pointer == "/model" for e in conv.report)


def test_canonical_input_and_target_in_the_python_api() -> None:
    body = json.loads(EXAMPLE.read_bytes())
    doc = il.convert_request(body, source="anthropic", target="canonical").value
    transcript = il.decode_transcript(json.dumps(doc))
    for given in (doc, transcript, json.dumps(doc), json.dumps(doc).encode()):
        again = il.convert_request(given, source="canonical", target="anthropic", model="claude-sonnet-4-5")
        assert again.value == il.convert_request(transcript, source="canonical", target="anthropic", model="claude-sonnet-4-5").value


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"source": "klingon", "target": "anthropic"}, il.UnknownFormatError),
        ({"source": "anthropic", "target": "klingon"}, il.UnknownFormatError),
        ({"source": "anthropic", "target": "openai-chat", "policy": "ignore"}, il.MappingError),
    ],
)
def test_bad_arguments_are_interlingua_errors(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        il.convert_request(json.loads(EXAMPLE.read_bytes()), **kwargs)
    if error is il.UnknownFormatError:
        assert "known: canonical, anthropic" in str(info.value)


@pytest.mark.parametrize(
    ("value", "source", "message"),
    [
        ([1, 2], "anthropic", "expected a JSON object, got an array"),
        (None, "anthropic", "expected a JSON object, got null"),
        (b"{not json", "anthropic", "is not JSON"),
        ({"messages": 5}, "toy-a", "malformed toy-a request body: TypeError"),
        ({"schema_version": "1.0", "items": [{"type": "text"}]}, "canonical", "/items/0"),
    ],
)
@pytest.mark.usefixtures("toys")
def test_bad_input_is_a_clear_error(value: Any, source: str, message: str) -> None:
    with pytest.raises(InterlinguaError) as info:
        il.convert_request(value, source=source, target="anthropic")
    assert message in str(info.value)


def test_a_response_body_given_as_a_request_is_refused() -> None:
    body = json.loads((REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.0.response.json").read_bytes())
    with pytest.raises(il.MappingError, match="this is an anthropic response body, not a request"):
        il.convert_request(body, source="anthropic", target="openai-chat")


def test_a_cut_stream_is_a_stream_failed_error() -> None:
    data = (REAL / "anthropic" / "anthropic_sdk.basic_response.sse").read_bytes()
    with pytest.raises(il.StreamFailedError) as info:
        il.convert_stream(data[: len(data) // 2], source="anthropic", target="canonical")
    assert info.value.code == "truncated"


def test_the_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Use it from Python") :]
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 3)]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the documented example, as a user runs it
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("gpt-4.1 ")


# --------------------------------------------------------------------------- the recorded corpus

CORPUS = Path("/work/shared/corpus/corpus.tar.xz")


def _corpus_bodies() -> list[tuple[str, str, str, Any]]:
    """``(file, format, kind, body)`` of every JSON body in the corpus (see its README)."""
    import csv
    import tarfile

    manifest = {r["file"]: r for r in csv.DictReader((CORPUS.parent / "manifest.tsv").open(encoding="utf-8"), delimiter="\t")}
    out = []
    with tarfile.open(CORPUS) as tf:
        for member in tf:
            row = manifest.get(member.name)
            if row is None or row["kind"] == "stream" or not member.isfile():
                continue
            handle = tf.extractfile(member)
            assert handle is not None
            out.append((member.name, row["format"], row["kind"], json.loads(handle.read())))
    return out


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, str, str, Any]]:
    if not CORPUS.exists():
        pytest.skip("the recorded corpus is not on this machine")
    return _corpus_bodies()


def test_no_corpus_body_is_taken_for_another_format_when_named_right(corpus: list[tuple[str, str, str, Any]]) -> None:
    wrong = [(name, get_mapper(fmt).kind_of(body)) for name, fmt, kind, body in corpus if get_mapper(fmt).kind_of(body) != kind]
    assert len(corpus) > 2500 and wrong == []


def test_no_corpus_request_is_refused_by_preflight_under_drop(corpus: list[tuple[str, str, str, Any]]) -> None:
    """Issue 14: real recordings were refused under --policy drop (162 of them to the five defaults here)."""
    refused = []
    converted = tried = 0
    for name, fmt, kind, body in corpus:
        if kind != "request":
            continue
        for target in PROVIDERS:
            tried += 1
            try:
                il.convert_request(body, source=fmt, target=target, policy="drop")
                converted += 1
            except CapabilityError as exc:
                refused.append((name, target, str(exc)))
            except il.ConversionError:
                pass  # a decode refusal of a malformed recording (reported elsewhere), not preflight
    assert refused == []
    assert converted >= 0.99 * tried > 6000


# --------------------------------------------------------------------------- same provider keeps the model


@pytest.fixture
def toy_with_model(toys: Any) -> Any:
    """``toy-m``: the toy format whose decoder records ``model`` in ``settings`` (as every mapper does, ADR 0007)."""
    import msgspec

    from interlingua.items import Settings
    from interlingua.mapping import register

    toy = toys[0]

    class ToyWithModel(type(toy)):  # type: ignore[misc]
        def decode_request(self, body: Any) -> Any:
            conv = super().decode_request(body)
            if "model" in body:
                conv.value = msgspec.structs.replace(conv.value, settings=Settings(model=body["model"]))
            return conv

    undo = register("toy-m", ToyWithModel("toy-m", toy.caps))
    yield
    undo()


TOY_BODY = {"model": "toy-7", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.usefixtures("toy_with_model")
def test_same_provider_keeps_the_source_model_and_other_providers_warn() -> None:
    same = il.convert_request(TOY_BODY, source="toy-m", target="toy-m")
    assert same.value["model"] == "toy-7" and not any(e.pointer == "/model" for e in same.report)
    other = il.convert_request(TOY_BODY, source="toy-m", target="toy-a")
    assert "model" not in other.value
    assert [str(e) for e in other.report if e.pointer == "/model"] == [
        "changed: settings /model: the toy-a body has no 'model': pass model= or --model "
        "(the transcript's settings name 'toy-7', which is not carried over)"
    ]
    explicit = il.convert_request(TOY_BODY, source="toy-m", target="toy-m", model="toy-9")
    assert explicit.value["model"] == "toy-9"
    # the CLI says the same
    res = runner.invoke(app, ["convert", "--from", "toy-m", "--to", "toy-a", "--kind", "request"], input=json.dumps(TOY_BODY))
    assert res.exit_code == 0 and res.stderr.splitlines() == other.report.lines()


def test_a_real_anthropic_request_to_anthropic_keeps_its_model() -> None:
    body = json.loads(EXAMPLE.read_bytes())
    out = il.convert_request(body, source="anthropic", target="anthropic")
    assert out.value["model"] == body["model"]
    assert not any(e.pointer == "/model" for e in out.report)


ROUND_TRIP_REQUESTS = sorted(
    (p, fmt)
    for fmt, folder in (("openai-responses", "openai_responses"), ("anthropic", "anthropic"), ("gemini", "gemini"), ("openai-chat", "openai_chat"))
    for p in (REAL / folder).glob("*.request.json")
)


def _through_canonical(path: Path, fmt: str) -> bool | None:
    """Convert a real request to canonical and back to its provider; ``True``: its model was kept
    (checked against the direct same-provider conversion), ``False``: not kept and reported, ``None``:
    nothing to check (refused, or no model)."""
    from interlingua.capabilities import lookup

    body = json.loads(path.read_bytes())
    try:
        direct = il.convert_request(body, source=fmt, target=fmt, policy="drop")
        doc = il.convert_request(body, source=fmt, target="canonical").value
        back = il.convert_request(doc, source="canonical", target=fmt, policy="drop")
    except InterlinguaError:
        return None  # what the conversions refuse is not this test's business
    model = (doc.get("settings") or {}).get("model")
    if not model:
        return None
    if lookup(fmt, model) is not None:
        assert back.value.get("model", model) == model and direct.value.get("model", model) == model
        assert not any(e.pointer == "/model" for e in back.report)
        return True
    if "model" not in back.value and fmt != "gemini":
        assert any(e.pointer == "/model" for e in back.report)
    return False


@pytest.mark.parametrize(("path", "fmt"), ROUND_TRIP_REQUESTS, ids=lambda v: getattr(v, "name", v))
def test_through_canonical_and_back_keeps_the_model(path: Path, fmt: str) -> None:
    """`--to canonical` and back to the same provider keeps the request's model when the model table
    lists it for that provider (or the items were made by it), as a direct same-provider conversion
    does; a model that is not kept is always reported, never dropped silently."""
    _through_canonical(path, fmt)


def test_the_round_trip_test_keeps_real_models() -> None:
    """The test above is not vacuous: real requests (gpt-5, claude-sonnet-4-5, ...) keep their model."""
    kept = [p.name for p, fmt in ROUND_TRIP_REQUESTS if _through_canonical(p, fmt)]
    assert len(kept) >= 10, kept
