"""Python type names in dataset tool schemas, read as the JSON Schema types they mean.

Function-calling datasets built from Python signatures (Glaive, Salesforce xLAM/APIGen as LLaMA-Factory
ships them in ``data/*tool*``) write ``"type": "dict"``, ``"str"``, ``"int"``, ``"float"``, ``"bool"``,
``"list"`` (also ``"str, optional"``) where JSON Schema (json-schema.org, "type" keyword; the OpenAI
function ``parameters`` and Ollama ``tools[].function.parameters`` take JSON Schema) has ``object``,
``string``, ``integer``, ``number``, ``boolean``, ``array``; and some put the ``required`` list beside
``parameters`` instead of in it. The providers' SDKs and APIs refuse those schemas, so the dataset
readers turn them into the JSON Schema they stand for and report each change (the source's schema is
then not written back as it was).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["PYTHON_TYPES", "json_schema_types"]

PYTHON_TYPES = {
    "dict": "object",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "None": "null",
    "NoneType": "null",
}
"""Python type name -> JSON Schema type."""

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains")


def _type_name(value: str) -> str | None:
    """The JSON Schema type a Python type name means (``"str, optional"`` -> ``"string"``), else ``None``."""
    base = value.split(",", 1)[0].strip()
    return PYTHON_TYPES.get(base)


def json_schema_types(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``schema`` with every Python type name turned into its JSON Schema type, and the changes made
    (``"/properties/x/type: 'str' -> 'string'"``, JSON pointers into ``schema``). ``schema`` is not changed."""
    changes: list[str] = []
    out = copy.deepcopy(schema)

    def walk(node: Any, ptr: str) -> None:
        if not isinstance(node, dict):
            return
        t = node.get("type")
        if isinstance(t, str) and (new := _type_name(t)) is not None:
            node["type"] = new
            changes.append(f"{ptr}/type: {t!r} -> {new!r}")
        elif isinstance(t, list):
            for k, v in enumerate(t):
                if isinstance(v, str) and (new := _type_name(v)) is not None:
                    t[k] = new
                    changes.append(f"{ptr}/type/{k}: {v!r} -> {new!r}")
        for key in _SCHEMA_MAPS:
            sub = node.get(key)
            if isinstance(sub, dict):
                for name, child in sub.items():
                    walk(child, f"{ptr}/{key}/{name}")
        for key in _SCHEMA_LISTS:
            sub = node.get(key)
            if isinstance(sub, list):
                for k, child in enumerate(sub):
                    walk(child, f"{ptr}/{key}/{k}")
        for key in _SCHEMA_ONE:
            walk(node.get(key), f"{ptr}/{key}")

    walk(out, "")
    return out, changes
