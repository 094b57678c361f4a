"""A scripted HTTP/1.1 server on 127.0.0.1 for transport tests.

Runs its own asyncio loop in a thread (so sync CLI tests can use it too), binds
port 0, answers each request with the next scripted :class:`Reply` and records
what it received (method, path with query, headers, body).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field


@dataclass
class Reply:
    """One scripted response.

    Attributes:
        status: HTTP status.
        headers: Extra headers.
        chunks: Body pieces, each sent as one HTTP chunk (chunked transfer encoding).
        delay: Seconds to wait before each chunk.
        stall_after: Index of the chunk before which the server stops sending (keeps the connection open).
        drop_after: Index of the chunk before which the server closes the connection abruptly.
        header_delay: Seconds to wait before sending the status line.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    delay: float = 0.0
    stall_after: int | None = None
    drop_after: int | None = None
    header_delay: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    raw: bytes


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error", 529: "Overloaded", 503: "Service Unavailable"}


class ScriptedServer:
    """Context manager: ``with ScriptedServer([Reply(...), ...]) as srv: srv.url``."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [])
        self.received: list[Received] = []
        self.connections = 0
        self.closed_by_client = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._stalls: list[asyncio.Event] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop)
        self._server = fut.result(5)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            for ev in self._stalls:
                ev.set()
            assert self._server is not None
            self._server.close()
            for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.received.append(Received(method, path, headers, body, head + body))
                reply = self.replies.pop(0) if self.replies else Reply(500, chunks=[b'{"error":"no scripted reply"}'])
                if not await self._send(reply, reader, writer):
                    return
        finally:
            writer.close()

    async def _send(self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        if reply.header_delay:
            await asyncio.sleep(reply.header_delay)
        reason = _REASONS.get(reply.status, "Status")
        head = [f"HTTP/1.1 {reply.status} {reason}", "transfer-encoding: chunked"]
        head += [f"{k}: {v}" for k, v in reply.headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        for i, chunk in enumerate(reply.chunks):
            if reply.drop_after == i:
                writer.transport.abort()
                return False
            if reply.stall_after == i:
                stall = asyncio.Event()
                self._stalls.append(stall)
                # Wait until the client gives up (EOF on the read side) or the server stops.
                read = asyncio.ensure_future(reader.read(1))
                waiter = asyncio.ensure_future(stall.wait())
                await asyncio.wait([read, waiter], return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if read.done():
                    self.closed_by_client.set()
                else:
                    read.cancel()
                return False
            if reply.delay:
                await asyncio.sleep(reply.delay)
            try:
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                await writer.drain()
            except ConnectionError:
                self.closed_by_client.set()
                return False
        if reply.drop_after is not None and reply.drop_after >= len(reply.chunks):
            writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
