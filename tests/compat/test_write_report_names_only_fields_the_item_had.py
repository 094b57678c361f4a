"""A writer's report names only fields the item had.

Each writer (``interlingua.compat.write``) reads every written piece back and names the fields that do
not come back unchanged. A new user's round trip to pydantic-ai, ShareGPT and vercel-model was told of
``name``, ``provider_data`` and ``origin`` its items never had: the reader fills them in (a result's
``name`` from its call, a format's record of how it was written, a message's model on every part). Those
are not losses. Cases: the new user's transcript, and real conversations (provider request histories,
stored conversations) written to every writer's format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
import msgspec
import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.compat import WRITERS, read, write
from interlingua.items import Transcript

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL = FIXTURES / "real"
STORES = FIXTURES / "stores"
runner = CliRunner()

USER_CASE = {
    "schema_version": "1.0",
    "items": [
        {"type": "text", "role": "user", "text": "weather in Paris?"},
        {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_result", "call_id": "c1", "content": [{"type": "text", "text": "sunny"}]},
        {"type": "text", "role": "assistant", "text": "It is sunny."},
    ],
}
_NAMED = re.compile(r"(?:unchanged: |\(fields )([a-z_, ]+)\)?$")


def _transcripts() -> list[tuple[str, Transcript]]:
    out = [("new-user", decode_transcript(json.dumps(USER_CASE).encode()))]
    for folder, fmt in (("anthropic", "anthropic"), ("openai_chat", "openai-chat"), ("openai_responses", "openai-responses"), ("gemini", "gemini")):
        for path in sorted((REAL / folder).glob("pai_*.request.json"))[:6]:
            doc = convert_request(json.loads(path.read_text()), source=fmt, target="canonical", policy="drop").value
            out.append((f"{folder}/{path.name}", decode_transcript(json.dumps(doc).encode())))
    for fmt in ("sharegpt", "vercel-model"):
        for path in sorted((STORES / fmt).glob("*.json")):
            value = json.loads(path.read_text())
            for n, one in enumerate(value if isinstance(value, list) and fmt == "sharegpt" else [value]):
                out.append((f"{fmt}/{path.name}#{n}", read(one, fmt).transcript))
    return out


TRANSCRIPTS = _transcripts()


@pytest.mark.parametrize("fmt", WRITERS)
def test_every_field_a_write_names_is_one_the_item_had(fmt: str) -> None:
    named_any = False
    for label, transcript in TRANSCRIPTS:
        conv = write(transcript, fmt, policy="drop")
        for e in conv.report:
            m = _NAMED.search(e.reason)
            if m is None or e.index is None:
                continue
            named_any = True
            had = set(msgspec.to_builtins(transcript.items[e.index]))
            named = {f.strip() for f in m.group(1).split(",")}
            assert named <= had, (label, fmt, str(e), sorted(had))
    assert named_any or fmt in ("langchain",), "no write named a field: the check looked at nothing"


@pytest.mark.parametrize("fmt", ["pydantic-ai", "sharegpt", "vercel-model"])
def test_the_new_users_round_trip(fmt: str, tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps(USER_CASE))
    res = runner.invoke(app, ["convert", str(src), "--from", "canonical", "--to", fmt])
    assert res.exit_code == 0, res.output
    for field in ("name", "provider_data", "origin"):
        assert not re.search(rf"unchanged: [a-z_, ]*\b{field}\b", res.stderr), res.stderr
