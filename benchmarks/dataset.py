"""Seeded benchmark dataset: the same conversations in interlingua's form and in each peer's.

One conversation is 20 messages: 5 turns of

1. user: text 50-400 chars; 5% of user turns also carry a ~2 KB base64 PNG-sized image;
2. assistant: reasoning (text 600-2700 chars with a 200-char Anthropic-style signature),
   text 100-1500 chars and one tool call with 3-6 argument keys;
3. tool: the tool result, text 50-800 chars;
4. assistant: text 100-1500 chars.

That is 6 interlingua items per turn (7 with an image), so 2,000 conversations give
~60k items and ~57 MB of JSON Lines (the reasoning text length is what sets the total;
the issue fixes the other lengths).

Forms produced from one :class:`Spec` (plain data, generated once):

* interlingua: :class:`~interlingua.items.Envelope` structs (one per item), their JSONL
  bytes, and the same envelopes as plain dicts (for the ``orjson`` floor);
* pydantic-ai: one ``list[ModelMessage]`` per conversation and one JSON line per conversation
  (``ModelMessagesTypeAdapter.dump_json``), built only when ``pydantic_ai`` is importable.

Peers for the provider mappers (OpenAI / Anthropic / Gemini SDK types) belong here too once
those mappers land: add a ``to_<peer>(spec)`` builder next to :func:`to_pydantic_ai`.

Everything is a pure function of ``(conversations, seed)``; timestamps are fixed offsets from
a constant base, so two runs with the same arguments produce identical bytes.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec

from interlingua.codec import SCHEMA_VERSION, encode_envelope
from interlingua.items import (
    Base64Source,
    Envelope,
    ImageItem,
    OpaqueReasoning,
    ReasoningItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
)

__all__ = ["Dataset", "Spec", "build", "from_pydantic_ai", "make_spec", "to_interlingua", "to_pydantic_ai", "transcripts"]

MESSAGES_PER_CONVERSATION = 20
TURNS = MESSAGES_PER_CONVERSATION // 4
IMAGE_SHARE = 0.05
BASE_TIME = datetime(2026, 1, 1, tzinfo=timezone.utc)
MODEL = "claude-sonnet-4-5"

_WORDS = (
    "the of and to in is that for it as with was on be by this are or at from an which "
    "function result value error request response model token stream session tool call "
    "argument schema item content provider message reasoning signature image document file "
    "query search weather city temperature forecast report summary list table index cache "
    "latency throughput memory budget limit offset cursor page filter order total count "
    "user assistant system developer question answer because however therefore example"
).split()


def _corpus(rng: random.Random, size: int = 1 << 16) -> str:
    words: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(_WORDS)
        if rng.random() < 0.08:
            w = w.capitalize() + rng.choice((",", ".", ":", "?"))
        words.append(w)
        n += len(w) + 1
    # a few characters JSON must escape, so the encoders do real work
    return " ".join(words).replace(" Because", ' "because"').replace(" Table", "\ttable").replace(" Page", "\npage")


@dataclass
class _Text:
    corpus: str
    rng: random.Random

    def __call__(self, lo: int, hi: int) -> str:
        n = self.rng.randint(lo, hi)
        start = self.rng.randrange(0, len(self.corpus) - n)
        return self.corpus[start : start + n]


@dataclass
class Turn:
    """One user -> assistant(tool call) -> tool -> assistant round, as plain data."""

    user: str
    image: bytes | None
    thinking: str
    signature: str
    assistant: str
    tool_name: str
    call_id: str
    arguments: dict[str, Any]
    tool_result: str
    final: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0


@dataclass
class Spec:
    """The dataset as plain data (one list of turns per conversation)."""

    seed: int
    conversations: list[list[Turn]] = field(default_factory=list)


_TOOLS = ("get_weather", "search_docs", "run_query", "read_file", "send_email", "create_ticket")
_ARG_KEYS = ("city", "units", "query", "limit", "offset", "path", "recursive", "to", "subject", "priority", "tags", "days")


def make_spec(conversations: int, seed: int = 20260101) -> Spec:
    """Generate ``conversations`` conversations of 20 messages from ``seed``."""
    rng = random.Random(seed)
    text = _Text(_corpus(rng), rng)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    spec = Spec(seed=seed)
    for c in range(conversations):
        turns = []
        for t in range(TURNS):
            args: dict[str, Any] = {}
            for key in rng.sample(_ARG_KEYS, rng.randint(3, 6)):
                kind = rng.random()
                if kind < 0.5:
                    args[key] = text(5, 40)
                elif kind < 0.7:
                    args[key] = rng.randint(0, 10_000)
                elif kind < 0.8:
                    args[key] = rng.random() < 0.5
                else:
                    args[key] = [text(3, 12) for _ in range(rng.randint(1, 4))]
            turns.append(
                Turn(
                    user=text(50, 400),
                    image=rng.randbytes(1536) if rng.random() < IMAGE_SHARE else None,  # 2,048 base64 chars
                    thinking=text(600, 2700),
                    signature="".join(rng.choices(alphabet, k=200)),
                    assistant=text(100, 1500),
                    tool_name=rng.choice(_TOOLS),
                    call_id=f"toolu_{c:05d}_{t}_{rng.getrandbits(48):012x}",
                    arguments=args,
                    tool_result=text(50, 800),
                    final=text(100, 1500),
                    input_tokens=rng.randint(200, 20_000),
                    output_tokens=rng.randint(50, 2_000),
                    cache_read_tokens=rng.randint(0, 10_000),
                )
            )
        spec.conversations.append(turns)
    return spec


def _stamp(c: int, i: int) -> datetime:
    return BASE_TIME + timedelta(minutes=c, seconds=i)


def to_interlingua(spec: Spec) -> list[Envelope]:
    """Every conversation as envelopes (session ``conv-<n>``, dense ``seq``), in order."""
    out: list[Envelope] = []
    for c, turns in enumerate(spec.conversations):
        session = f"conv-{c:06d}"
        items: list[Any] = []
        for t, turn in enumerate(turns):
            m = 4 * t
            items.append(TextItem(text=turn.user, role="user", message=f"m{m}"))
            if turn.image is not None:
                src = Base64Source(media_type="image/png", data=base64.b64encode(turn.image).decode())
                items.append(ImageItem(source=src, role="user", message=f"m{m}"))
            opaque = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value=turn.signature)
            items.append(ReasoningItem(text=turn.thinking, opaque=opaque, message=f"m{m + 1}"))
            items.append(TextItem(text=turn.assistant, role="assistant", message=f"m{m + 1}"))
            items.append(ToolCallItem(id=turn.call_id, name=turn.tool_name, arguments=turn.arguments, message=f"m{m + 1}"))
            items.append(
                ToolResultItem(call_id=turn.call_id, name=turn.tool_name, content=[TextItem(text=turn.tool_result)], message=f"m{m + 2}")
            )
            items.append(TextItem(text=turn.final, role="assistant", message=f"m{m + 3}"))
        for seq, item in enumerate(items):
            out.append(
                Envelope(
                    schema_version=SCHEMA_VERSION,
                    session_id=session,
                    seq=seq,
                    item=item,
                    created_at=_stamp(c, seq).isoformat().replace("+00:00", "Z"),
                )
            )
    return out


def to_pydantic_ai(spec: Spec) -> list[list[Any]]:
    """Every conversation as a pydantic-ai ``list[ModelMessage]``.

    Mapping: user turn -> ``ModelRequest([UserPromptPart(text | [text, BinaryContent])])``;
    assistant turn -> ``ModelResponse([ThinkingPart(text, signature), TextPart, ToolCallPart(args dict)])``;
    tool turn -> ``ModelRequest([ToolReturnPart(content=str)])``; last -> ``ModelResponse([TextPart])``.

    Raises:
        ImportError: pydantic-ai-slim is not installed.
    """
    from pydantic_ai.messages import (
        BinaryContent,
        RequestUsage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out: list[list[Any]] = []
    for c, turns in enumerate(spec.conversations):
        msgs: list[Any] = []
        for t, turn in enumerate(turns):
            m = 4 * t
            content: Any = turn.user if turn.image is None else [turn.user, BinaryContent(data=turn.image, media_type="image/png")]
            msgs.append(ModelRequest(parts=[UserPromptPart(content=content, timestamp=_stamp(c, m))], timestamp=_stamp(c, m)))
            msgs.append(
                ModelResponse(
                    parts=[
                        ThinkingPart(content=turn.thinking, signature=turn.signature, provider_name="anthropic"),
                        TextPart(content=turn.assistant),
                        ToolCallPart(tool_name=turn.tool_name, args=turn.arguments, tool_call_id=turn.call_id),
                    ],
                    usage=RequestUsage(input_tokens=turn.input_tokens, output_tokens=turn.output_tokens, cache_read_tokens=turn.cache_read_tokens),
                    model_name=MODEL,
                    timestamp=_stamp(c, m + 1),
                    provider_name="anthropic",
                    provider_response_id=f"msg_{c:05d}_{m + 1}",
                    finish_reason="tool_call",
                )
            )
            msgs.append(
                ModelRequest(
                    parts=[ToolReturnPart(tool_name=turn.tool_name, content=turn.tool_result, tool_call_id=turn.call_id, timestamp=_stamp(c, m + 2))],
                    timestamp=_stamp(c, m + 2),
                )
            )
            msgs.append(
                ModelResponse(
                    parts=[TextPart(content=turn.final)],
                    usage=RequestUsage(input_tokens=turn.input_tokens + 400, output_tokens=turn.output_tokens // 2),
                    model_name=MODEL,
                    timestamp=_stamp(c, m + 3),
                    provider_name="anthropic",
                    provider_response_id=f"msg_{c:05d}_{m + 3}",
                    finish_reason="stop",
                )
            )
        out.append(msgs)
    return out


def from_pydantic_ai(lines: list[bytes]) -> list[Envelope]:
    """The pydantic-ai JSON lines read by interlingua's own compat reader (``interlingua migrate``).

    Both sides then hold the same content: model and provider names and response ids in each
    item's ``origin``, usage, finish reason and response timestamps in ``metadata["pydantic_ai"]``
    (the reader's documented home for them), and every message's timestamp as the envelope's
    ``created_at``. Sessions are ``conv-<n>``, ``seq`` is dense.
    """
    import json

    from interlingua.compat import read

    out: list[Envelope] = []
    for c, line in enumerate(lines):
        obj = json.loads(line)
        stamps = [msg.get("timestamp") for msg in obj]
        migrated = read(obj, "pydantic-ai")
        assert not migrated.report.entries, migrated.report  # nothing dropped: both sides hold the same content
        session = f"conv-{c:06d}"
        for seq, item in enumerate(migrated.transcript.items):
            key = item.message
            m = int(key[1:]) if isinstance(key, str) and key[:1] == "m" and key[1:].isdigit() else None
            created = stamps[m] if m is not None and isinstance(stamps[m], str) else _stamp(c, seq).isoformat().replace("+00:00", "Z")
            out.append(Envelope(schema_version=SCHEMA_VERSION, session_id=session, seq=seq, item=item, created_at=created))
    return out


@dataclass
class Dataset:
    """Every form of one spec, built once before timing starts.

    Attributes:
        spec: The plain-data conversations.
        envelopes: interlingua envelopes, all conversations in order.
        jsonl: Those envelopes as JSON Lines bytes.
        dicts: The same envelopes as plain dicts (what ``orjson`` reads and writes).
        pydantic_ai: pydantic-ai messages per conversation (``None`` when not installed).
        pydantic_ai_lines: One ``ModelMessagesTypeAdapter.dump_json`` line per conversation.
    """

    spec: Spec
    envelopes: list[Envelope]
    jsonl: bytes
    dicts: list[dict[str, Any]]
    pydantic_ai: list[list[Any]] | None
    pydantic_ai_lines: list[bytes] | None
    converted: bool = False
    """True when ``envelopes`` were read from ``pydantic_ai_lines`` by interlingua's compat reader."""

    @property
    def items(self) -> int:
        """Number of interlingua items (= JSONL lines)."""
        return len(self.envelopes)


def transcripts(ds: Dataset) -> list[Any]:
    """Each conversation as a canonical :class:`~interlingua.items.Transcript` (its items in seq order)."""
    from interlingua.items import ToolCallItem, ToolDefinition, Transcript

    by: dict[str, list[Any]] = {}
    for e in ds.envelopes:
        by.setdefault(e.session_id, []).append(e.item)

    def tools(items: list[Any]) -> Any:
        # the tools the conversation was held with (Anthropic and others refuse a history of calls
        # without their definitions): one per tool name called
        names = sorted({i.name for i in items if isinstance(i, ToolCallItem)})
        return [ToolDefinition(name=n, parameters={"type": "object"}) for n in names] or msgspec.UNSET

    return [Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools(items)) for items in by.values()]


def build(conversations: int, seed: int = 20260101, *, peers: bool = True) -> Dataset:
    """Generate the spec and every form of it.

    Args:
        conversations: How many 20-message conversations.
        seed: Random seed.
        peers: Also build the peers' forms (skipped per peer when it is not installed).
    """
    spec = make_spec(conversations, seed)
    pa = pa_lines = None
    envelopes: list[Envelope] | None = None
    if peers:
        try:
            from pydantic_ai.messages import ModelMessagesTypeAdapter
        except ImportError:
            pass
        else:
            pa = to_pydantic_ai(spec)
            pa_lines = [ModelMessagesTypeAdapter.dump_json(conv) for conv in pa]
            envelopes = from_pydantic_ai(pa_lines)
    if envelopes is None:  # no pydantic-ai: interlingua's own form of the same spec (no origin/usage metadata)
        envelopes = to_interlingua(spec)
    lines = [encode_envelope(e) for e in envelopes]
    jsonl = b"\n".join(lines) + b"\n"
    dicts = [msgspec.json.decode(line) for line in lines]
    return Dataset(spec, envelopes, jsonl, dicts, pa, pa_lines, converted=pa_lines is not None)


if __name__ == "__main__":  # pragma: no cover - manual inspection
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    ds = build(n)
    print(f"{n} conversations, {ds.items} items, {len(ds.jsonl) / 1e6:.1f} MB JSONL", file=sys.stderr)
    if ds.pydantic_ai_lines is not None:
        print(f"pydantic-ai: {sum(map(len, ds.pydantic_ai_lines)) / 1e6:.1f} MB", file=sys.stderr)
