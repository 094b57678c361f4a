"""Encode and decode transcript documents and JSON Lines envelope streams.

Two read modes:

* ``"preserving"`` (default): an item whose ``type`` this reader does not know
  (for example one added by a newer minor schema version) is kept as an
  :class:`UnknownItem` and written back byte-for-byte. In a document of a newer
  minor version, a known item carrying fields this reader does not know is
  preserved the same way.
* ``"strict"``: every item must be one this reader knows exactly.

Versions: the same major with an equal or newer minor is read; a newer major
raises :class:`~interlingua.errors.VersionError` naming both versions; an older
major is for :mod:`interlingua.compat`.

JSON safety (enforced on write, and on read where JSON allows it): no NaN or
Infinity, string keys only, no bytes, only JSON types; nesting depth, item size
and inline base64 size are bounded by :class:`Limits`. Every violation is a
:class:`~interlingua.errors.DocumentError` (or a subclass) carrying a JSON
pointer, never a traceback.

The code lives in one submodule per job: ``_model`` (version constants, modes, limits, unknown items),
``_versions``, ``_json_safety`` (JSON safety and limits), ``_items``, ``_transcripts`` (documents) and
``_jsonl`` (envelopes and JSON Lines streams); this package re-exports the public names.
"""

from __future__ import annotations

from ._items import check_item_limits, decode_item, encode_item, to_builtins
from ._json_safety import check_json_safe, decode_json, syntax_problem
from ._jsonl import JsonlRecord, decode_envelope, decode_session_header, encode_envelope, iter_jsonl, write_jsonl
from ._model import DEFAULT_LIMITS, KNOWN_ITEM_TYPES, SCHEMA_VERSION, Item, Limits, Mode, UnknownItem
from ._transcripts import decode_transcript, encode_transcript, read_transcript
from ._versions import check_version

__all__ = [
    "DEFAULT_LIMITS",
    "KNOWN_ITEM_TYPES",
    "SCHEMA_VERSION",
    "Item",
    "JsonlRecord",
    "Limits",
    "Mode",
    "UnknownItem",
    "check_json_safe",
    "check_version",
    "decode_envelope",
    "decode_json",
    "decode_item",
    "decode_session_header",
    "decode_transcript",
    "encode_envelope",
    "encode_item",
    "encode_transcript",
    "iter_jsonl",
    "read_transcript",
    "to_builtins",
    "write_jsonl",
]
