"""One session of a session file read item by item, for ``convert`` (bounded memory, ADR 0036)."""

from __future__ import annotations

from typing import IO, Any

import msgspec

from ..errors import DocumentError

__all__ = ["SessionItems"]


class SessionItems:
    """The items of one session of a session file (the file's only one, or ``session``), read as
    a stream (:func:`~interlingua.session_file.iter_session_parts`, a batch of envelopes at a time)
    with the reader of :class:`~interlingua._docstream.TranscriptStream`: iterate it for the items;
    :attr:`shell` then holds the transcript's other members, as
    :meth:`~interlingua.session_file.SessionBlock.transcript` gives them.

    Raises (while iterating):
        Fallback: a problem in the file, several sessions and no ``session``, or no such session:
            the whole reader (:func:`~interlingua.session_file.read_conversation`) says what.
    """

    def __init__(self, fh: IO[bytes], session: str | None, label: str) -> None:
        from ..codec import SCHEMA_VERSION

        self.fh, self.session, self.label = fh, session, label
        self.version = SCHEMA_VERSION
        self.shell: Any = None

    def __iter__(self) -> Any:
        from .._docstream import Fallback
        from ..items import ResponseRecord, Transcript
        from ..errors import Problem, SessionChoiceError
        from ..session_file import EnvelopeBatch, SessionEnd, SessionStart, iter_session_parts

        chosen: SessionStart | None = None
        found = False
        last: Any = None
        records: list[Any] = []  # Transcript.responses, as response_records gives them
        index = 0
        first: list[str] = []  # the first session ids and how many, for the messages
        count = 0
        try:
            for part in iter_session_parts(self.fh, label=self.label):
                if isinstance(part, SessionStart):
                    count += 1
                    if len(first) < 5:
                        first.append(part.session_id)
                    if self.session is None and found:  # as the whole reader says it, without reading the rest
                        raise SessionChoiceError(Problem("", f"the file holds several sessions ({_listing(first, count)}, ...): pick one with --session ID", self.label))
                    chosen = part if self.session is None or part.session_id == self.session else None
                    found = found or chosen is not None
                    records, index = [], 0
                elif chosen is None:
                    continue
                elif isinstance(part, EnvelopeBatch):
                    for env in part.envelopes:
                        response = getattr(env, "response", msgspec.UNSET)
                        if env.usage is not msgspec.UNSET or env.stop_reason is not msgspec.UNSET or response is not msgspec.UNSET:
                            records.append(ResponseRecord(item=index, usage=env.usage, stop_reason=env.stop_reason, response=response))
                        index += 1
                        yield env.item
                    last = part.envelopes[-1]
                elif isinstance(part, SessionEnd):
                    h = chosen.header
                    self.shell = Transcript(
                        schema_version=self.version, items=[],
                        tools=h.tools if h is not None else msgspec.UNSET, tool_choice=h.tool_choice if h is not None else msgspec.UNSET,
                        settings=h.settings if h is not None else msgspec.UNSET, metadata=h.metadata if h is not None else msgspec.UNSET,
                        usage=last.usage if last is not None else msgspec.UNSET, stop_reason=last.stop_reason if last is not None else msgspec.UNSET,
                        responses=records or msgspec.UNSET,
                    )
                    if self.session is not None:
                        return  # as the whole reader, the sessions after it are not read
                    chosen = None
        except SessionChoiceError:
            raise
        except DocumentError:
            raise Fallback from None
        if not found:  # as the whole reader says it
            raise DocumentError(Problem("", f"no session {self.session!r} in the file (it holds {_listing(first, count)})", self.label))


def _listing(first: list[str], count: int) -> str:
    """:func:`interlingua.session_file._listing` of ``count`` ids whose first five are ``first``."""
    return ", ".join(first) + (f" and {count - 5} more" if count > 5 else "")
