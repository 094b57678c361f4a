"""Settings as tables: what each mapper does with every canonical setting, declared as data (ADR 0042).

Every mapper declares a :class:`SettingsTable`: for each canonical setting (a :class:`~interlingua.items.Settings`
field, or ``parent.child`` for the fields of a nested settings object such as ``reasoning.effort``) either a
:class:`Wire` row (the wire path it is written to and read from, and how it is converted) or an
:class:`Unsupported` row (the target has no such setting, and why). Building the table checks it covers
every field (:func:`required_settings`): a table that neither maps nor declares a field raises
:class:`SettingsTableError` when the provider module is imported, so a setting added to the schema cannot
be dropped silently by a mapper that does not know it.

One loop, :func:`report_unsupported`, reports the :class:`Unsupported` rows a transcript's settings use, so
every mapper words and places those entries the same way (:func:`~interlingua.mapping.settings.unsupported_setting`).
``provider_data`` is no setting but the carrier of a provider's own fields: every mapper handles it through
:func:`~interlingua.mapping.settings.own_provider_data` (:data:`CARRIERS`), so no row is asked for it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import msgspec
import msgspec.inspect as mi

from ..items import Settings
from .report import Policy, Report
from .settings import unsupported_setting

__all__ = [
    "CARRIERS",
    "Row",
    "SettingsTable",
    "SettingsTableError",
    "Unsupported",
    "Wire",
    "encode_plain",
    "plain_fields",
    "report_unsupported",
    "required_settings",
    "setting_value",
]

CARRIERS: frozenset[str] = frozenset({"provider_data"})
"""Settings fields that carry provider fields rather than a setting (handled the same way by every mapper)."""


class SettingsTableError(ValueError):
    """A mapper's settings table misses a canonical setting, or names one that does not exist."""


@dataclass(frozen=True)
class Wire:
    """The setting is written to ``path`` and read back from it.

    Attributes:
        path: The wire field, dotted for nested objects (``generationConfig.maxOutputTokens``), or a
            description when it is not a body field (``URL path``).
        how: The converter both ways when the value is not carried as it is (``effort level <-> think``),
            and the cases written only in part (reported by the mapper itself).
        plain: The value is written as it is (a copy) to the top-level body field ``path`` and read back
            from it by the shared loop (:func:`encode_plain`, :func:`plain_fields`), not by the mapper.
    """

    path: str
    how: str = ""
    plain: bool = False


@dataclass(frozen=True)
class Unsupported:
    """The target has no such setting: :func:`report_unsupported` reports it whenever it is set.

    Attributes:
        why: The reason, shown in the report entry (in parentheses) and in docs/providers.md.
        meaning_changes: Leaving it out changes what the output means: refused under policy ``error``.
        target: The target's name in the report text when it differs from the table's.
    """

    why: str = ""
    meaning_changes: bool = False
    target: str | None = None


Row = Union[Wire, Unsupported]


def _nested_struct(tp: Any) -> type[msgspec.Struct] | None:
    """The Struct class of a settings field typed ``SomeStruct | Unset`` (``None`` for a plain field)."""
    if isinstance(tp, mi.StructType):
        return tp.cls
    if isinstance(tp, mi.UnionType):
        structs = [t.cls for t in tp.types if isinstance(t, mi.StructType)]
        return structs[0] if len(structs) == 1 else None
    return None


def required_settings() -> tuple[str, ...]:
    """Every canonical setting a table must declare, in :class:`~interlingua.items.Settings` order.

    A plain field by its name (``temperature``); a field holding a settings object by each of that
    object's fields (``reasoning.effort``, ``response_format.schema``), so a new nested field needs a row
    too. :data:`CARRIERS` are left out. Derived from the generated models, so it follows the schema.
    """
    info = mi.type_info(Settings)
    assert isinstance(info, mi.StructType)
    out: list[str] = []
    for f in info.fields:
        if f.name in CARRIERS:
            continue
        nested = _nested_struct(f.type)
        if nested is None:
            out.append(f.name)
        else:
            out.extend(f"{f.name}.{sub}" for sub in nested.__struct_fields__)
    return tuple(out)


@dataclass(frozen=True)
class SettingsTable:
    """One mapper's declaration of every canonical setting (rows in the order the mapper reports them).

    Attributes:
        mapper: The mapper's registry name (``anthropic``, ``openai-chat (deepseek)``), for error messages.
        target: The target's name in report texts (``Anthropic``, ``OpenAI Responses``).
        rows: Setting -> :class:`Wire` or :class:`Unsupported`, one per :func:`required_settings` entry.

    Raises:
        SettingsTableError: a setting has no row, or a row names no setting (checked when built, so at
            import time of the provider module that declares it).
    """

    mapper: str
    target: str
    rows: Mapping[str, Row] = field(default_factory=dict)

    def __post_init__(self) -> None:
        required = required_settings()
        missing = [name for name in required if name not in self.rows]
        unknown = [name for name in self.rows if name not in required]
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"no row for {', '.join(missing)} (declare a Wire path or Unsupported(why=...))")
            if unknown:
                parts.append(f"rows for settings that do not exist: {', '.join(unknown)}")
            raise SettingsTableError(f"settings table of mapper {self.mapper!r}: " + "; ".join(parts))

    def unsupported(self) -> Iterator[tuple[str, Unsupported]]:
        """The :class:`Unsupported` rows, in declaration order."""
        for name, row in self.rows.items():
            if isinstance(row, Unsupported):
                yield name, row

    def replace(self, mapper: str, target: str | None = None, **rows: Row) -> SettingsTable:
        """A copy for another mapper (a dialect), with some rows replaced (``top_k=Wire("top_k")``).

        Keyword names use ``__`` for the dot of a nested setting (``reasoning__summary``).
        """
        new = dict(self.rows)
        for key, row in rows.items():
            name = key.replace("__", ".")
            if name not in new:
                raise SettingsTableError(f"settings table of mapper {mapper!r}: no setting {name!r} to replace")
            new[name] = row
        return SettingsTable(mapper, target if target is not None else self.target, new)


def setting_value(settings: Settings, name: str) -> Any:
    """The value of the canonical setting ``name`` (``reasoning.effort``) in ``settings``; ``UNSET`` when not set."""
    value: Any = settings
    for part in name.split("."):
        value = getattr(value, part, msgspec.UNSET)
        if value is msgspec.UNSET or value is None:
            return msgspec.UNSET
    return value


def report_unsupported(
    settings: Settings | msgspec.Struct, table: SettingsTable, *, policy: Policy, report: Report, group: str = "", kept: frozenset[str] = frozenset()
) -> None:
    """Report every :class:`Unsupported` setting of ``table`` that ``settings`` sets (the one shared loop).

    Args:
        settings: The transcript's settings, or (with ``group``) that group's object (a
            :class:`~interlingua.items.ReasoningSettings` for ``group="reasoning"``).
        table: The target mapper's table.
        policy: The conversion policy (``error`` refuses a row with ``meaning_changes``).
        report: Where the ``dropped`` entries go (pointer ``/settings/<field>``).
        group: Which rows: ``""`` the top-level settings; ``"reasoning"`` the ``reasoning.*`` rows; so a
            mapper reports each group where its encoder handles that group (report order unchanged).
        kept: Rows the encoder wrote all the same because the source carried the field itself with this
            value (the source's own representation kept, e.g. OpenRouter's ``top_k`` read as plain Chat):
            not reported.

    Raises:
        ConversionError: policy ``error`` and a set row with ``meaning_changes``.
    """
    for name, row in table.unsupported():
        head, _, _ = name.rpartition(".")
        if head != group or name in kept:
            continue
        if isinstance(settings, Settings):
            value = setting_value(settings, name)
        else:  # the group's own object
            value = getattr(settings, name.rpartition(".")[2], msgspec.UNSET)
        if value is not msgspec.UNSET:
            unsupported_setting(report, policy, row.target or table.target, name, value, meaning_changes=row.meaning_changes, why=row.why)


NOT_FROM_SETTINGS: frozenset[str] = frozenset({"model"})
"""Settings read from a body but never written from the settings (ADR 0007: the model is the caller's ``model=``)."""


def _plain_rows(table: SettingsTable, under: str) -> Iterator[tuple[str, str]]:
    """``(setting, body key)`` of each plain row whose path lies in the object ``under`` (``""``: the body itself)."""
    prefix = under + "." if under else ""
    for name, row in table.rows.items():
        if isinstance(row, Wire) and row.plain and row.path.startswith(prefix):
            key = row.path[len(prefix) :]
            if "." not in key:
                yield name, key


def encode_plain(settings: Settings, table: SettingsTable, target: dict[str, Any], *, under: str = "") -> None:
    """Write every set ``plain`` :class:`Wire` setting of ``table`` into ``target`` as it is (the one shared loop).

    Args:
        settings: The transcript's settings (not mutated: values are deep-copied).
        table: The target mapper's table.
        target: The body, or (with ``under``) the body object those rows live in (Ollama's ``options``).
        under: Only the rows whose path is ``under.<key>``, written as ``target[key]``; ``""``: the rows
            whose path is a top-level body field.

    Rows are written in the table's order (so a body's key order is the table's); ``model`` is never
    written from the settings (:data:`NOT_FROM_SETTINGS`).
    """
    for name, key in _plain_rows(table, under):
        if name not in NOT_FROM_SETTINGS:
            value = getattr(settings, name, msgspec.UNSET)
            if value is not msgspec.UNSET:
                target[key] = copy.deepcopy(value)


def plain_fields(table: SettingsTable, *, under: str = "") -> dict[str, str]:
    """Body key -> canonical setting of every ``plain`` :class:`Wire` row (in ``under``, as for :func:`encode_plain`),
    for a decoder's loop over the body: a key found there with a valid value is read into that setting."""
    return {key: name for name, key in _plain_rows(table, under)}
