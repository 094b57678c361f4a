"""Every request of the shared real corpus (pydantic-ai cassettes of OpenAI Chat, Responses, Anthropic and
Gemini traffic), converted to Converse under policies drop and degrade: the body passes botocore's
``Converse`` validation, turns alternate, tool calls keep name and arguments (or the report says why) and
no result is left without its call. Skipped when the corpus archive is not on this machine."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from interlingua.errors import InterlinguaError
from interlingua.items import ToolCallItem, ToolResultItem
from interlingua.mapping import get_mapper

from .test_bedrock_converse_property import validate

ARCHIVE = Path("/work/shared/corpus/corpus.tar.xz")
pytestmark = pytest.mark.skipif(not ARCHIVE.exists(), reason="shared corpus not present")


def _requests() -> list[tuple[str, str, bytes]]:
    out = []
    with tarfile.open(ARCHIVE) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".request.json"):
                fmt = Path(member.name).parts[-2]
                data = tar.extractfile(member)
                assert data is not None
                out.append((fmt, member.name, data.read()))
    return out


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, str, bytes]]:
    return _requests()


@pytest.mark.parametrize("policy", ["drop", "degrade"])
def test_corpus_requests_convert_to_valid_converse(corpus: list[tuple[str, str, bytes]], policy: str) -> None:
    bedrock = get_mapper("bedrock-converse")
    converted = 0
    for fmt, name, data in corpus:
        try:
            transcript = get_mapper(fmt).decode_request(json.loads(data)).value
        except InterlinguaError:
            continue  # the source mapper refuses it (covered by that mapper's own tests)
        out = bedrock.encode_request(transcript, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0", policy=policy)  # type: ignore[arg-type]
        validate(out.value)
        roles = [m["role"] for m in out.value["messages"]]
        assert all(a != b for a, b in zip(roles, roles[1:])), name
        assert all(m["content"] for m in out.value["messages"]), name
        back = bedrock.decode_request(out.value).value
        calls = [(c.name, c.arguments) for c in transcript.items if isinstance(c, ToolCallItem)]
        back_calls = [(c.name, c.arguments) for c in back.items if isinstance(c, ToolCallItem)]
        assert calls == back_calls or any(e.item_type == "tool_call" for e in out.report), name
        ids = {c.id for c in back.items if isinstance(c, ToolCallItem)}
        assert all(r.call_id in ids for r in back.items if isinstance(r, ToolResultItem)), name
        converted += 1
    assert converted > 1200
