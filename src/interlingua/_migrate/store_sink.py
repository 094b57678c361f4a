"""``migrate --store``'s writer: conversations as sessions of a store, a batch per transaction."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION
from ..compat import Migrated
from . import stores as _stores
from ..errors import InterlinguaError
from .common import Record, _Usage
from .file_sinks import _given

_Outcome = tuple[Record, Migrated, "bool | InterlinguaError"]
"""A conversation a sink is done with: its record, the migrated conversation, and ``True`` (written),
``False`` (already there) or the error that refused it."""




class _StoreSink:
    """Sessions in a :class:`~interlingua.store.SessionStore`, one per conversation.

    Conversations are collected into batches (:data:`_BATCH_SESSIONS` sessions or
    :data:`_BATCH_ITEMS` items) and each batch is written in one transaction
    (:meth:`~interlingua.store.SessionStore.add_sessions`): a handful of statements per batch
    instead of a transaction per conversation, and never part of a session. Ids are
    content-derived, so a conversation migrated by an earlier run is left as it is and counted
    as already present. When a batch is refused (an invalid conversation, a database error),
    its conversations are written one at a time (:meth:`~interlingua.store.SessionStore.add_session`)
    so that only the culprit is rejected.
    """

    label = "stored"

    def __init__(self, url: str, *, fail_fast: bool = False) -> None:
        try:
            store_mod = importlib.import_module("interlingua.store")
        except ModuleNotFoundError as exc:
            raise _Usage("--store needs interlingua.store, which is not available in this build; use -o OUT.jsonl") from exc
        self._store_mod = store_mod
        self.url = url
        self.fail_fast = fail_fast
        self.loop = asyncio.new_event_loop()
        try:
            self.store = self.loop.run_until_complete(store_mod.SessionStore.open(url))
        except InterlinguaError as exc:
            self.loop.close()
            raise _Usage(f"cannot open the store: {exc}") from exc
        self.present = 0
        self.present_forks = 0
        self._early: list[_Outcome] = []
        self.pending: list[tuple[Record, Migrated, Any]] = []
        self.pending_items = 0

    def _new(self, migrated: Migrated, sid: str) -> Any:
        transcript = migrated.transcript
        items: list[Any] = transcript.items
        if transcript.responses:
            # each response's usage, stop reason and metadata on its own last item, as a session file holds them
            from ..items import Envelope
            from ..session_file import envelope_responses

            fields = envelope_responses(transcript)
            items = [Envelope(schema_version=SCHEMA_VERSION, session_id=sid, seq=i, item=item, **fields.get(i, {})) for i, item in enumerate(items)]
        return self._store_mod.NewSession(
            sid,
            items,
            metadata=dict(transcript.metadata) if transcript.metadata is not msgspec.UNSET else None,
            tools=list(transcript.tools) if transcript.tools is not msgspec.UNSET and transcript.tools else None,
            tool_choice=_given(transcript.tool_choice),
            settings=_given(transcript.settings),
            usage=_given(transcript.usage),
            stop_reason=_given(transcript.stop_reason),
            response=_given(transcript.response),
        )

    def submit(self, record: Record, migrated: Migrated, sid: str) -> list[_Outcome]:
        """Queue one conversation; returns the outcomes of a batch when this one completed it."""
        self.pending.append((record, migrated, self._new(migrated, sid)))
        self.pending_items += len(migrated.transcript.items)
        if len(self.pending) >= _BATCH_SESSIONS or self.pending_items >= _BATCH_ITEMS:
            return self.flush()
        return []

    def flush(self) -> list[_Outcome]:
        """Write the queued conversations; their outcomes, in input order."""
        batch, self.pending, self.pending_items = self.pending, [], 0
        early, self._early = self._early, []
        if not batch:
            return early
        try:
            flags = self.loop.run_until_complete(self.store.add_sessions([new for _r, _m, new in batch]))
        except InterlinguaError:
            return early + self._one_by_one(batch)
        return early + [self._count(r, m, created, n.session_id) for (r, m, n), created in zip(batch, flags)]

    def _one_by_one(self, batch: list[tuple[Record, Migrated, Any]]) -> list[_Outcome]:
        out: list[_Outcome] = []
        for record, migrated, new in batch:
            try:
                created = self.loop.run_until_complete(
                    self.store.add_session(
                        new.session_id,
                        new.items,
                        metadata=new.metadata,
                        tools=new.tools,
                        tool_choice=new.tool_choice,
                        settings=new.settings,
                        usage=new.usage,
                        stop_reason=new.stop_reason,
                        response=new.response,
                    )
                )
            except InterlinguaError as exc:
                out.append((record, migrated, exc))
                if self.fail_fast:
                    break  # the run stops here: what follows is not written
                continue
            out.append(self._count(record, migrated, created, new.session_id))
        return out

    # --- issue 26: agent logs and forks (see .logs) ---
    def flush_pending(self) -> None:
        """Write the queued batch now (its outcomes are collected by the next :meth:`flush`)."""
        self._early.extend(self.flush())

    def add_now(self, migrated: Migrated, sid: str) -> bool:
        """Add one session now; ``False`` when it is stored already (counted as present).

        Raises:
            InterlinguaError: the store refused it.
        """
        created = self.loop.run_until_complete(self.store.add_sessions([self._new(migrated, sid)]))[0]
        if not created:
            self.present += 1
        return bool(created)

    def fork_now(self, sid: str, at: int, fork_id: str, items: list[Any]) -> bool:
        """Fork ``sid`` at ``at`` as ``fork_id`` and append ``items``; ``False`` when ``fork_id`` is
        stored already with all its items (an earlier run). A fork an earlier run left without its items
        gets them now.

        Raises:
            InterlinguaError: the store refused the fork or its items (the new fork is removed).
        """
        missing = self._store_mod.SessionNotFoundError
        try:
            head = self.loop.run_until_complete(self.store.head(fork_id))
        except missing:
            head = None
        if head is not None and head >= at + len(items):
            self.present_forks += 1
            return False
        if head is None:
            self.loop.run_until_complete(self.store.fork(sid, at, new_session_id=fork_id))
        try:
            if items:
                self.loop.run_until_complete(self.store.append(fork_id, items, expected_seq=at))
        except InterlinguaError:
            if head is None:
                self.loop.run_until_complete(self.store.delete_session(fork_id))
            raise
        return True
    # --- end issue 26 ---

    def _count(self, record: Record, migrated: Migrated, created: bool, sid: str = "") -> _Outcome:
        if not created:
            self.present += 1  # migrated by an earlier run
        if migrated.forks:  # tree-shaped histories: each abandoned branch as store.fork of the session
            try:
                self.loop.run_until_complete(_stores.store_forks(self.store, sid, migrated))
            except InterlinguaError as exc:
                return (record, migrated, exc)
        return (record, migrated, created)

    def close(self, keep: bool = True) -> None:
        try:
            self.loop.run_until_complete(self.store.close())
        finally:
            self.loop.close()


_BATCH_SESSIONS = 500
_BATCH_ITEMS = 5000
"""A ``--store`` batch (one transaction) closes at this many conversations or items, whichever comes first."""
