"""What ``interlingua migrate`` adds for stored conversations (issue 26): their record shapes, the forks of
tree-shaped histories, and ``--to NAME`` (writing each conversation in another stored format).

* :func:`is_conversation`: a JSONL line or list entry that is one stored conversation (a ChatGPT
  conversation with a node ``mapping``, a Claude.ai one with ``chat_messages``, a ShareGPT record).
* Forks (:attr:`interlingua.compat.Migrated.forks`): with ``--store``, each abandoned branch becomes
  ``store.fork(session, at_seq)`` plus its own items appended (so the store records ``parent_id`` and
  ``fork_seq``); with ``-o``, a session of its own (the shared items, then its own) whose header names
  ``parent_id`` and ``fork_seq``, as ``store export`` writes a fork. A fork's id is ``<session id>@<leaf id>``
  (:func:`fork_id`, shared with the agent-log path in :mod:`.logs`).
* :func:`iter_json_array`: a large ``conversations.json`` (a JSON array of conversations) read an element
  at a time (:data:`STREAM_JSON_ARRAYS_FROM`), as JSONL datasets are read a line at a time.
* :class:`FormatSink`: ``--to NAME`` (a name from :data:`interlingua.compat.WRITERS`) writes one
  conversation per line of ``-o`` as that format's JSON (a record, or a message list), each conversation's
  report entries printed as warnings like the rest.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import IO, Any

import msgspec

from ..compat import Migrated, write
from ..errors import ConversionError
from ..items import Transcript
from ..mapping import Report

__all__ = ["STREAM_JSON_ARRAYS_FROM", "ArrayError", "FormatSink", "fork_id", "fork_transcripts", "is_conversation", "iter_json_array", "store_forks"]

_encoder = msgspec.json.Encoder()


def fork_id(sid: str, key: str) -> str:
    """The session id of the fork of ``sid`` ending at the source node ``key``: ``<sid>@<key>``, or
    ``<sid>@`` and 32 hex digits of the key's SHA-256 when that is over the 128 characters of an id."""
    fid = f"{sid}@{key}"
    return fid if len(fid) <= 128 else f"{sid}@{hashlib.sha256(key.encode()).hexdigest()[:32]}"


def is_conversation(value: Any) -> bool:
    """Whether a JSON object is one stored conversation of a shape the API rules do not know."""
    return isinstance(value, Mapping) and (
        isinstance(value.get("mapping"), Mapping) or isinstance(value.get("chat_messages"), list) or isinstance(value.get("conversations"), list)
    )


def fork_transcripts(migrated: Migrated, sid: str) -> list[tuple[str, Transcript, dict[str, Any]]]:
    """Each fork as a whole transcript (the shared items, then its own), with its session id and the
    header members that make it a fork in a session file (``parent_id``, ``fork_seq``: what
    ``store export`` writes for a fork, and what the agent-log path writes)."""
    out = []
    t = migrated.transcript
    for fork in migrated.forks:
        items = list(t.items[: fork.at + 1]) + list(fork.items)
        out.append((fork_id(sid, fork.key), msgspec.structs.replace(t, items=items, usage=msgspec.UNSET, stop_reason=msgspec.UNSET), {"parent_id": sid, "fork_seq": fork.at}))
    return out


async def store_forks(store: Any, sid: str, migrated: Migrated) -> int:
    """Write ``migrated``'s forks of session ``sid`` with ``store.fork`` and ``store.append``; the number written.

    A fork already in the store (an earlier run) is left as it is.

    Raises:
        StoreError, DocumentError: as :meth:`~interlingua.store.SessionStore.fork` and ``append``.
    """
    from ..errors import SessionNotFoundError

    written = 0
    for fork in migrated.forks:
        fid = fork_id(sid, fork.key)
        try:
            await store.get_session(fid)
            continue
        except SessionNotFoundError:
            pass
        await store.fork(sid, fork.at, new_session_id=fid)
        if fork.items:
            await store.append(fid, list(fork.items))
        written += 1
    return written


class FormatSink:
    """``--to NAME``: one conversation per line of ``-o``, as format ``NAME``'s JSON."""

    label = "written"

    def __init__(self, fh: Any, fmt: str, policy: str = "error") -> None:
        self.fh = fh
        self.fmt = fmt
        self.policy = policy

    def write(self, migrated: Migrated) -> Report:
        """Write one conversation; the report of what the format does not keep.

        Raises:
            ConversionError: under policy ``error``, an item the format has no form for.
        """
        conv = self.convert(migrated.transcript)
        self.fh.write(_encoder.encode(conv.value) + b"\n")
        return conv.report

    def convert(self, transcript: Transcript) -> Any:
        """``transcript`` in this format (a :class:`~interlingua.mapping.Conversion`), under the policy.

        Raises:
            ConversionError: under policy ``error``, an item the format has no form for; the message says
                which ``--policy`` writes the conversation anyway.
        """
        try:
            return write(transcript, self.fmt, policy=self.policy)  # type: ignore[arg-type]
        except ConversionError as exc:
            hint = " (--policy drop leaves it out, --policy degrade writes a marker)"
            raise ConversionError(exc.reason + hint, index=exc.index, item_type=exc.item_type) from exc


# --------------------------------------------------------------------------- a large JSON array, an element at a time

STREAM_JSON_ARRAYS_FROM = 16 << 20
"""A ``.json`` file of at least this many bytes that is an array of conversations (a ChatGPT or Claude.ai
``conversations.json``, a ShareGPT dataset) is read an element at a time: memory holds one conversation,
not the file."""

_SPECIAL = re.compile(rb'["\[\]{},]')
_STRING_REST = re.compile(rb'(?:[^"\\]|\\.)*"', re.S)


class ArrayError(ValueError):
    """The file is not a well-formed JSON array (``offset``: where, in bytes)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def iter_json_array(fh: IO[bytes], chunk_size: int = 1 << 20) -> Iterator[tuple[int, bytes]]:
    """The elements of the JSON array in ``fh``, as ``(byte offset, raw bytes)``, without holding the file.

    Only the array's structure is read here (strings skipped whole, brackets counted); each element is left
    for the caller to decode.

    Raises:
        ArrayError: the file does not start with ``[`` or ends before the array does.
    """
    buf = b""
    base = 0  # file offset of buf[0]
    pos = start = 0
    eof = False

    def more() -> bool:
        """Read the next chunk; the bytes before the current element are let go first."""
        nonlocal buf, base, pos, start, eof
        if eof:
            return False
        data = fh.read(chunk_size)
        if not data:
            eof = True
            return False
        if start:
            buf, base, pos, start = buf[start:], base + start, pos - start, 0
        buf += data
        return True

    while not buf.strip() and more():
        pass
    stripped = buf.lstrip()
    if not stripped.startswith(b"["):
        raise ArrayError("not a JSON array", base)
    pos = start = len(buf) - len(stripped) + 1
    depth = 1
    while True:
        m = _SPECIAL.search(buf, pos)
        if m is None:
            pos = len(buf)
            if not more():
                raise ArrayError("the file ends inside the array", base + len(buf))
            continue
        c = m.group()
        pos = m.end()
        if c == b'"':
            while True:
                s = _STRING_REST.match(buf, pos)
                if s is not None:
                    pos = s.end()
                    break
                if not more():
                    raise ArrayError("the file ends inside a string", base + len(buf))
            continue
        if c in b"[{":
            depth += 1
        elif c in b"]}":
            depth -= 1
        if depth == 1 and c == b"," or depth == 0:
            piece = buf[start : pos - 1]
            element = piece.strip()
            if element:
                yield base + start + len(piece) - len(piece.lstrip()), element
            elif c == b",":
                raise ArrayError("an empty element in the array", base + start)
            if depth == 0:
                return
            start = pos
