"""Validation of transcripts and envelope streams: schema, semantics, explanations.

The hot path decodes with the generated msgspec models (:mod:`interlingua.codec`);
this module adds the checks a schema cannot express and, for an item that fails,
a detailed explanation from the published JSON Schemas (jsonschema, Draft 2020-12).

Semantic checks (each a :class:`~interlingua.errors.Problem` with a JSON pointer):

* every ``tool_result`` / ``handoff_result`` refers to an earlier ``tool_call`` / ``handoff_call``;
* item ids are unique (a tool call's ``id`` is its call id, so call ids are unique too);
* roles are legal: content items at the top level carry a ``role``; nested ones do not;
* a ``tool_call`` holds an ``arguments`` object, or the ``arguments_raw`` text it could not parse;
* in a JSON Lines stream, ``seq`` strictly increases within each session.

Beside the problems, the history integrity rules (:mod:`interlingua.history`: dangling calls,
duplicate results, results out of turn, empty texts, reasoning cut from its output) are reported as
:attr:`ValidationResult.warnings` (``interlingua validate --strict`` counts them as errors).

The code lives in one submodule per job: ``_schemas`` (JSON Schemas and explanations), ``_semantic``
(the checks above), ``_integrity`` (the warnings), ``_documents`` (transcript documents), ``_streams``
(JSON Lines streams) and ``_paths`` (bytes, files, directories, stdin); this package re-exports them.
"""

from __future__ import annotations

from ._documents import ValidationResult, detected_format, validate_document_bytes, with_hint
from ._integrity import integrity_warnings
from ._paths import expand_paths, is_interlingua_file, validate_bytes, validate_path
from ._schemas import explain, load_schema, schema_names
from ._semantic import ItemChecker, check_items, check_transcript
from ._streams import validate_jsonl_stream

__all__ = [
    "ItemChecker",
    "ValidationResult",
    "check_items",
    "check_transcript",
    "expand_paths",
    "explain",
    "is_interlingua_file",
    "load_schema",
    "schema_names",
    "validate_bytes",
    "validate_path",
]

