"""The published JSON Schemas (jsonschema, Draft 2020-12): loading them and explaining why an instance fails."""

from __future__ import annotations

from functools import cache
from typing import Any
from typing import TYPE_CHECKING

from ..errors import Problem

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from referencing import Registry

# --------------------------------------------------------------------------- JSON Schemas


def _schema_dir() -> Any:
    from importlib import resources  # here, not at import: it costs start-up of every `interlingua validate`

    return resources.files("interlingua") / "schemas"


@cache
def schema_names() -> tuple[str, ...]:
    """Names of the bundled schemas (file stems: ``text``, ``transcript``, ``envelope``, ...)."""
    return tuple(sorted(p.name[:-5] for p in _schema_dir().iterdir() if p.name.endswith(".json")))


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The bundled JSON Schema ``name`` (e.g. ``"transcript"``) as a dict.

    Raises:
        KeyError: no schema by that name.
    """
    if name not in schema_names():
        raise KeyError(f"no schema {name!r}; known: {', '.join(schema_names())}")
    import json

    return json.loads((_schema_dir() / f"{name}.json").read_text(encoding="utf-8"))


@cache
def _registry() -> Registry:
    # jsonschema is imported lazily: it only explains failures, and costs CLI start-up time.
    from referencing import Registry, Resource

    resources_ = [(load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in schema_names()]
    return Registry().with_resources(resources_)


@cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name), registry=_registry())


def explain(instance: Any, schema: str, *, pointer: str = "") -> list[Problem]:
    """Every JSON Schema error of ``instance`` against the bundled schema ``schema``.

    An item is checked against its own type's schema when its ``type`` is known, which
    gives precise messages instead of "not valid under any of the given schemas".

    Args:
        instance: Decoded JSON.
        schema: Schema name (``"transcript"``, ``"envelope"``, ``"text"``, ...).
        pointer: Prefix for the JSON pointers.
    """
    name = schema
    if isinstance(instance, dict) and schema == "item" and instance.get("type") in schema_names():
        name = str(instance["type"])
    if schema == "item" and name == "item":
        return [Problem(pointer, f"unknown item type {instance.get('type') if isinstance(instance, dict) else instance!r}")]
    problems = []
    for err in sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path)):
        for leaf in _leaves(err):
            ptr = pointer + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in leaf.absolute_path)
            problems.append(Problem(ptr, leaf.message if len(leaf.message) < 300 else leaf.message[:297] + "..."))
    return problems


def _leaves(err: Any) -> list[Any]:
    """For a failed ``oneOf`` of tagged variants, the errors of the variant the ``type`` selects."""
    if err.validator != "oneOf" or not err.context or not isinstance(err.instance, dict):
        return [err]
    by_branch: dict[int, list[Any]] = {}
    for sub in err.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    chosen = [
        subs for subs in by_branch.values()
        if not any(list(s.relative_path) == ["type"] for s in subs)
    ]
    if len(chosen) == 1:
        return [leaf for sub in chosen[0] for leaf in _leaves(sub)]
    return [err]


