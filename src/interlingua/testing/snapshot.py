"""A syrupy extension that stores transcripts as stable, readable JSON.

Use it in a test (``snapshot`` is syrupy's fixture)::

    from interlingua.testing.snapshot import TranscriptSnapshotExtension

    def test_agent_conversation(snapshot):
        transcript = run_my_agent()
        assert transcript == snapshot(extension_class=TranscriptSnapshotExtension)

Each snapshot is one ``.json`` file under ``__snapshots__/<test module>/``: the transcript
in canonical JSON (``to_builtins``), keys sorted, two-space indent, non-ASCII kept.
Accepts a :class:`~interlingua.items.Transcript`, a :class:`~interlingua.mapping.ModelResponse`,
a list of items, or plain JSON data.

Generated values that change every run can be normalized with
:meth:`TranscriptSnapshotExtension.with_options` (or the ``transcript_snapshot`` fixture of
the pytest plugin, which normalizes both):

* ``normalize_ids``: tool-call ids (and the ``call_id`` of results), item ids, and provider
  ids in ``origin`` become ``<call-1>``, ``<id-1>``, ``<response-1>``, ... in order of first
  appearance, so links between calls and results stay visible;
* ``normalize_timestamps``: fields named like timestamps (``created_at``, ``timestamp``,
  ``created``, ``updated_at``, ``started_at``, ``completed_at``, ``time``) become ``<timestamp>``.

Requires ``syrupy`` (4.6 or later).
"""

from __future__ import annotations

from typing import Any

import msgspec
try:
    from syrupy.extensions.json import JSONSnapshotExtension
except ModuleNotFoundError as _exc:
    from ._extra import missing_extra

    raise missing_extra("syrupy", "interlingua.testing.snapshot", _exc) from _exc

from ..codec import to_builtins
from ..mapping.protocol import ModelResponse

__all__ = ["TIMESTAMP_FIELDS", "TranscriptSnapshotExtension", "normalize"]

TIMESTAMP_FIELDS = frozenset({"created_at", "timestamp", "created", "updated_at", "started_at", "completed_at", "time"})
"""Field names whose values ``normalize_timestamps`` replaces."""

_ID_FIELDS = {"id": "id", "call_id": "call", "item_id": "item", "response_id": "response", "session_id": "session"}


def _plain(data: Any) -> Any:
    if isinstance(data, ModelResponse):
        return to_builtins(data.to_transcript()) | ({"model": data.model} if data.model else {}) | ({"response_id": data.response_id} if data.response_id else {})
    if isinstance(data, msgspec.Struct):
        return to_builtins(data)
    if isinstance(data, (list, tuple)):
        return [_plain(x) for x in data]
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    return data


def normalize(data: Any, *, ids: bool = True, timestamps: bool = True) -> Any:
    """Replace generated ids and timestamps in plain JSON ``data`` by stable placeholders.

    Tool-call ids and the ``call_id`` of their results share one numbering (``<call-N>``), so a
    result still visibly answers its call.
    """
    numbering: dict[tuple[str, str], str] = {}
    counters: dict[str, int] = {}

    def placeholder(kind: str, value: str) -> str:
        key = (kind, value)
        if key not in numbering:
            counters[kind] = counters.get(kind, 0) + 1
            numbering[key] = f"<{kind}-{counters[kind]}>"
        return numbering[key]

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        is_call = node.get("type") in ("tool_call", "handoff_call")
        for key, value in node.items():
            if timestamps and key in TIMESTAMP_FIELDS and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                out[key] = "<timestamp>"
            elif ids and isinstance(value, str) and key in _ID_FIELDS:
                kind = "call" if (key == "id" and is_call) or key == "call_id" else _ID_FIELDS[key]
                out[key] = placeholder(kind, value)
            else:
                out[key] = walk(value)
        return out

    return walk(data)


class TranscriptSnapshotExtension(JSONSnapshotExtension):
    """Snapshots of transcripts as sorted, indented JSON files (one per snapshot).

    Class attributes ``normalize_ids`` and ``normalize_timestamps`` (both off) switch the
    normalization on; :meth:`with_options` makes a configured subclass.
    """

    normalize_ids: bool = False
    normalize_timestamps: bool = False

    @classmethod
    def with_options(cls, *, normalize_ids: bool = False, normalize_timestamps: bool = False) -> type[TranscriptSnapshotExtension]:
        """A subclass with the given normalization (pass it as ``extension_class``)."""
        return type(cls.__name__, (cls,), {"normalize_ids": normalize_ids, "normalize_timestamps": normalize_timestamps})

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        plain = _plain(data)
        if self.normalize_ids or self.normalize_timestamps:
            plain = normalize(plain, ids=self.normalize_ids, timestamps=self.normalize_timestamps)
        return super().serialize(plain, **kwargs)
