"""Regenerate ``docs/examples/anthropic_hello.jsonl`` (the fixture of the docs/replay.md example).

The Anthropic SDK's recorded stream ``basic_response`` (tests/fixtures/real) answers the
request of ``docs/examples/hello.json`` through :class:`RecordingTransport`, so the fixture
holds a real stream and a request built by this library. Run from the repository root::

    PYTHONPATH=src python tools/record_replay_example.py
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from interlingua.codec import decode_transcript
from interlingua.transport import Client, RecordingTransport

STREAM = Path("tests/fixtures/real/anthropic/anthropic_sdk.basic_response.sse")
TRANSCRIPT = Path("docs/examples/hello.json")
OUT = Path("docs/examples/anthropic_hello.jsonl")


async def _chunks(data: bytes, size: int = 400) -> AsyncIterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def _answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_chunks(STREAM.read_bytes()))


async def main() -> None:
    OUT.unlink(missing_ok=True)
    transcript = decode_transcript(TRANSCRIPT.read_bytes())
    recorder = RecordingTransport(OUT, httpx.MockTransport(_answer))
    async with Client("anthropic", api_key="sk-ant-example-not-a-real-key", transport=recorder) as client:
        response = await client.generate(transcript, model="claude-sonnet-4-5")
    print(f"wrote {OUT}: {len(response.items)} output item(s)")


if __name__ == "__main__":
    asyncio.run(main())
