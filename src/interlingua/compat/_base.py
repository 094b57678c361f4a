"""What every compatibility reader returns, and the content-derived session id.

A reader turns one stored conversation (a JSON value already parsed) into a
canonical :class:`~interlingua.items.Transcript` plus a
:class:`~interlingua.mapping.Report` of every change it made on the way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..codec import encode_transcript
from ..errors import MappingError
from ..items import Transcript
from ..mapping import Report, get_mapper
from ..history._integrity import read_history  # a reused call id renamed (reported) before keep_company would drop the call
from ..mapping.company import keep_company
from ..mapping.spelling import without_spelling
from ..mapping.wire import a_json_type

__all__ = ["Fork", "Migrated", "Reader", "keep_on_message", "session_id_for", "session_id_from_bytes", "via_mapper", "with_provider_data", "wrap_list"]

SESSION_ID_PREFIX = "mig_"


@dataclass
class Migrated:
    """One stored conversation read into canonical form.

    Attributes:
        transcript: The canonical transcript (schema version of this library).
        report: Every drop, degradation or representation change made while reading.
        format: The format it was read as (a name from :data:`interlingua.compat.FORMATS`).
        source_session_id: The session id the source already had (interlingua envelope streams), if any.
        forks: For tree-shaped sources (Claude Code logs, ChatGPT and Claude.ai exports), each
            abandoned branch; the transcript is the active branch.
    """

    transcript: Transcript
    report: Report = field(default_factory=Report)
    format: str = ""
    source_session_id: str | None = None
    # --- tree-shaped sources (issue 26: Claude Code parentUuid trees) ---
    forks: list[Fork] = field(default_factory=list)
    """Abandoned branches of a tree-shaped source (retries, edits, sidechains), each a
    :class:`Fork` of this conversation; the transcript is the active branch."""

    @property
    def session_id(self) -> str:
        """The session id to write under: the source's own (interlingua envelopes), else the
        content-derived one (see :func:`session_id_for`)."""
        return self.source_session_id or session_id_for(self.transcript)


@dataclass
class Fork:
    """An abandoned branch of a tree-shaped conversation, stored as a fork of the active branch.

    Attributes:
        key: The source's id of the branch's last node (a Claude Code record ``uuid``); the fork's
            session id is ``<session id>@<key>``.
        at: Index of the last item of the active branch the fork shares (``-1``: none, a
            sidechain that starts its own tree); :meth:`SessionStore.fork` is called with it as ``at_seq``.
        items: The fork's own items, after item ``at``.
    """

    key: str
    at: int
    items: list[Any] = field(default_factory=list)

    @property
    def leaf(self) -> str:
        """The source's id of the branch's last node (the same as :attr:`key`)."""
        return self.key


Reader = Callable[[Any], Migrated]
"""A reader: one stored conversation (parsed JSON) -> :class:`Migrated`."""


def session_id_for(transcript: Transcript) -> str:
    """A session id derived from the transcript's content.

    ``"mig_"`` followed by the first 32 hex digits of the SHA-256 of the transcript's
    compact canonical JSON (:func:`~interlingua.codec.encode_transcript` without indent).
    The same conversation read twice gets the same id, so re-running a migration does
    not create a second session.
    """
    return session_id_from_bytes(encode_transcript(transcript))


def session_id_from_bytes(data: bytes) -> str:
    """:func:`session_id_for` given the transcript's compact canonical JSON bytes already encoded."""
    return f"{SESSION_ID_PREFIX}{hashlib.sha256(data).hexdigest()[:32]}"


def via_mapper(name: str, body: Mapping[str, Any], fmt: str) -> Migrated:
    """Read a request body through the provider mapper registered as ``name``.

    Raises:
        MappingError: the mapper refused the body.
    """
    conv = get_mapper(name).decode_request(body)
    report = Report(list(conv.report.entries))
    # a migrated session is canonical data, not a body to send back as its client spelled it (ADR 0027)
    return Migrated(keep_company(read_history(without_spelling(conv.value), report), report), report, fmt)


def wrap_list(obj: Any, key: str, fmt: str) -> Mapping[str, Any]:
    """A bare list becomes ``{key: list}``; a request body (a dict holding ``key``) is used as is.

    Raises:
        MappingError: neither a list nor an object holding a ``key`` list.
    """
    if isinstance(obj, list):
        return {key: obj}
    if isinstance(obj, Mapping) and isinstance(obj.get(key), list | str):
        return obj
    raise MappingError(f"{fmt}: expected a list of messages or an object with a {key!r} list, got {a_json_type(obj)}")


def _has_provider_data(item: Any) -> bool:
    return "provider_data" in getattr(type(item), "__struct_fields__", ())


def with_provider_data(item: Any, fmt: str, **values: Any) -> Any:
    """``item`` (a copy) with ``values`` merged into ``provider_data[fmt]``.

    Only for an item class that has ``provider_data`` (every canonical item but ``raw``, which keeps
    its source value as it is): use :func:`keep_on_message` for the items of one source message.

    Raises:
        TypeError: the item has no ``provider_data`` field (a ``raw`` item).
    """
    if not _has_provider_data(item):
        raise TypeError(f"a {type(item).__name__} has no provider_data")
    pd = dict(item.provider_data) if item.provider_data is not msgspec.UNSET else {}
    mine = dict(pd.get(fmt, {}))
    mine.update(values)
    pd[fmt] = mine
    return msgspec.structs.replace(item, provider_data=pd)


def keep_on_message(out: list[Any], fmt: str, report: Report | None = None, *, pointer: str | None = None, **values: Any) -> None:
    """Keep ``values`` (a source message's own fields) in ``provider_data[fmt]`` of the first item of
    the message ``out`` that has one (in place). A ``raw`` item has no ``provider_data``: one part kept
    raw does not lose the message's fields, nor fail the read. When every item is raw, the values have
    no place: reported as dropped (``report``, at ``pointer``).
    """
    for n, item in enumerate(out):
        if _has_provider_data(item):
            out[n] = with_provider_data(item, fmt, **values)
            return
    if report is not None and values:
        report.add("dropped", f"{fmt}: the message's own fields ({', '.join(sorted(values))}) have no place: each of its parts is kept raw", pointer=pointer)
