"""Regenerate docs/examples/anthropic_hello.jsonl: record the Anthropic SDK basic_response stream through RecordingTransport.

Run from the repository root: PYTHONPATH=src python tools/record_replay_example.py
"""
import asyncio, httpx
from pathlib import Path
from interlingua.codec import decode_transcript
from interlingua.transport import Client, RecordingTransport
data = Path("tests/fixtures/real/anthropic/anthropic_sdk.basic_response.sse").read_bytes()
async def chunks():
    for i in range(0, len(data), 400):
        yield data[i:i+400]
def handler(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks())
async def main():
    out = Path("docs/examples/anthropic_hello.jsonl"); out.unlink(missing_ok=True)
    t = decode_transcript(Path("docs/examples/hello.json").read_bytes())
    async with Client("anthropic", api_key="sk-ant-api03-EXAMPLE-NOT-A-REAL-KEY", transport=RecordingTransport(out, httpx.MockTransport(handler))) as c:
        print(await c.generate(t, model="claude-sonnet-4-5"))
asyncio.run(main())
