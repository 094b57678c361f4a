"""Cross-provider matrix: every real request fixture, converted to every other wire format.

For each pair the conversion either succeeds with a report that accounts for every
loss, or refuses with a clear error. Checked on the result, decoded back to canonical:
tool calls keep name and arguments and stay linked to their results, visible text
survives or is reported, and foreign opaque reasoning never reaches the target nor
turns into visible text.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import msgspec
import pytest

from interlingua.errors import ConversionError
from interlingua.items import AudioItem, Base64Source, ReasoningItem, TextItem, ToolCallItem, ToolResultItem, Transcript
from interlingua.mapping import get_mapper

REAL = Path(__file__).parent / "fixtures" / "real"
SOURCES: list[tuple[str, Path]] = (
    [("openai-chat", p) for p in sorted((REAL / "openai_chat").glob("*.request.json"))]
    + [("openai-chat", p) for p in sorted((REAL / "openrouter").glob("*.request.json"))]
    + [("openai-chat", p) for p in sorted((REAL / "ollama").glob("pai_ollama_cloud_*.request.json"))]
    + [("openai-responses", p) for p in sorted((REAL / "openai_responses").glob("*.request.json"))]
    + [("anthropic", p) for p in sorted((REAL / "anthropic").glob("*.request.json"))]
    + [("gemini", p) for p in sorted((REAL / "gemini").glob("*.request.json"))]
    + [("ollama", p) for p in sorted((REAL / "ollama").glob("ollama_docs.*.request.json"))]
    + [("bedrock-converse", p) for p in sorted((REAL / "bedrock_converse").glob("*.request.json"))]
    + [("cohere", p) for p in sorted((REAL / "cohere").glob("*.request.json"))]
)
TARGETS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "bedrock-converse", "cohere"]
CASES = [(src, path, tgt) for src, path in SOURCES for tgt in TARGETS if tgt != src]


def _visible_text(t: Transcript) -> str:
    out = []
    for item in t.items:
        if isinstance(item, TextItem):
            out.append(item.text)
        if isinstance(item, ToolResultItem):
            out.extend(c.text for c in item.content if isinstance(c, TextItem))
    return "\n".join(out)


@pytest.mark.parametrize(("source", "path", "target"), CASES, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_real_request_converts_to_every_other_format(source: str, path: Path, target: str) -> None:
    body = json.loads(path.read_text())
    snapshot = copy.deepcopy(body)
    canonical = get_mapper(source).decode_request(body).value
    assert body == snapshot, "decode_request mutated its input"
    before = msgspec.json.encode(canonical)

    conv = get_mapper(target).encode_request(canonical, model="target-model", policy="drop")
    assert msgspec.json.encode(canonical) == before, "encode_request mutated its input"
    back = get_mapper(target).decode_request(conv.value).value
    reported = " ".join(str(e) for e in conv.report)

    # Tool calls: same names and arguments, in order; every result links to a call.
    calls = [i for i in canonical.items if isinstance(i, ToolCallItem)]
    back_calls = [i for i in back.items if isinstance(i, ToolCallItem)]
    assert [(c.name, c.arguments) for c in back_calls] == [(c.name, c.arguments) for c in calls]
    call_ids = {c.id for c in back_calls}
    for r in back.items:
        if isinstance(r, ToolResultItem):
            assert r.call_id in call_ids, f"orphan result {r.call_id}"
    assert len([i for i in back.items if isinstance(i, ToolResultItem)]) == len([i for i in canonical.items if isinstance(i, ToolResultItem)])

    # Visible text survives (non-empty texts), unless reported.
    text_back = _visible_text(back)
    for item in canonical.items:
        if isinstance(item, TextItem) and item.text.strip():
            assert item.text in text_back or "text" in reported, f"text lost without report: {item.text[:60]!r}"

    # Foreign opaque state never reaches the target and never becomes visible text.
    for item in canonical.items:
        if isinstance(item, ReasoningItem) and item.opaque is not msgspec.UNSET and item.opaque.issuer != get_mapper(target).issuer:
            value = item.opaque.value if isinstance(item.opaque.value, str) else json.dumps(item.opaque.value)
            assert value not in json.dumps(conv.value), "foreign opaque state was sent"
            assert value not in text_back
            assert "opaque" in reported or "reasoning" in reported


@pytest.mark.parametrize("target", ["anthropic"])
def test_audio_to_a_target_without_audio_refuses_or_reports(target: str) -> None:
    t = Transcript(
        schema_version="1.0",
        items=[AudioItem(role="user", source=Base64Source(media_type="audio/wav", data="UklGRg=="), format="wav"), TextItem(role="user", text="transcribe")],
    )
    with pytest.raises(ConversionError):
        get_mapper(target).encode_request(t, policy="error")
    dropped = get_mapper(target).encode_request(t, policy="drop")
    assert "UklGRg" not in json.dumps(dropped.value) and any(e.action == "dropped" for e in dropped.report)
    degraded = get_mapper(target).encode_request(t, policy="degrade")
    assert "UklGRg" not in json.dumps(degraded.value) and any(e.action == "degraded" for e in degraded.report)


def test_provider_matrix_doc_is_current() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "tools/gen_provider_matrix.py", "--check"], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
