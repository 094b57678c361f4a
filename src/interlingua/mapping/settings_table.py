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
The rows that carry a value as it is (``plain``) are written and read by one shared loop too:
:func:`encode_plain` writes them, a :class:`PlainReader` (:meth:`SettingsTable.reader`) reads them back, keeping
a value that does not fit its setting in the provider's data or refusing one of the wrong wire type (a row's
:class:`Check`) with the place it was found.
``provider_data`` is no setting but the carrier of a provider's own fields: every mapper handles it through
:func:`~interlingua.mapping.settings.own_provider_data` (:data:`CARRIERS`), so no row is asked for it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import msgspec
import msgspec.inspect as mi

from ..items import Settings
from .report import Policy, Report
from .settings import claim_provider_field, unsupported_setting, valid_setting

__all__ = [
    "BOOLEAN",
    "CARRIERS",
    "INTEGER",
    "INTEGER_AT_LEAST_0",
    "NONEMPTY_STRING",
    "NONEMPTY_STRINGS",
    "NUMBER",
    "NUMBER_0_TO_1",
    "NUMBER_AT_LEAST_0",
    "POSITIVE_INTEGER",
    "STRINGS",
    "Check",
    "PlainReader",
    "Refuse",
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
class Check:
    """The wire type a reader insists on for a plain setting: a body value that fails ``test`` is refused.

    A value that passes the check but does not fit the canonical setting (an empty stop sequence, a
    fractional ``topK``) is kept in the provider's data instead; ``null`` is always kept, never refused.

    Attributes:
        what: The type, for the error (``"a positive integer"``): "<field> must be <what>".
        test: Whether a (non-null) value is of that type.
    """

    what: str
    test: Callable[[Any], bool]


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


POSITIVE_INTEGER = Check("a positive integer", lambda v: _int(v) and v >= 1)
INTEGER = Check("an integer", _int)
INTEGER_AT_LEAST_0 = Check("an integer >= 0", lambda v: _int(v) and v >= 0)
NUMBER = Check("a number", _number)
NUMBER_AT_LEAST_0 = Check("a number >= 0", lambda v: _number(v) and v >= 0)
NUMBER_0_TO_1 = Check("a number from 0 to 1", lambda v: _number(v) and 0 <= v <= 1)
BOOLEAN = Check("a boolean", lambda v: isinstance(v, bool))
NONEMPTY_STRING = Check("a non-empty string", lambda v: isinstance(v, str) and bool(v))
STRINGS = Check("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v))
NONEMPTY_STRINGS = Check("a list of non-empty strings", lambda v: isinstance(v, list) and all(isinstance(s, str) and s for s in v))


@dataclass(frozen=True)
class Wire:
    """The setting is written to ``path`` and read back from it.

    Attributes:
        path: The wire field, dotted for nested objects (``generationConfig.maxOutputTokens``), or a
            description when it is not a body field (``URL path``).
        how: The converter both ways when the value is not carried as it is (``effort level <-> think``),
            and the cases written only in part (reported by the mapper itself).
        plain: The value is carried as it is in the field ``path`` (a top-level body field, or one of the
            object a reader is built for: :meth:`SettingsTable.reader`): written by :func:`encode_plain`
            (a copy) and read back by :class:`PlainReader`, not by the mapper.
        check: Reading: a value of another wire type is refused (:class:`Check`); without one it is kept
            in the provider's data like any value that does not fit the setting.
        write: ``False``: the mapper writes the field itself (a conditional rule: Anthropic's required
            ``max_tokens``); the shared loop only reads it back.
        spelled: Fields the setting may be spelled in, besides ``path`` (OpenAI Chat's ``max_tokens`` and
            ``max_completion_tokens``): read once the rest of the body is (``path`` first); the ones the
            source used other than ``path`` are kept in the provider's data, and writing claims them there
            (:func:`~interlingua.mapping.settings.claim_provider_field`: same value, written back in the
            same fields) before falling back to ``path``. In the order claims are tried.
    """

    path: str
    how: str = ""
    plain: bool = False
    check: Check | None = None
    write: bool = True
    spelled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unsupported:
    """The target has no such setting: :func:`report_unsupported` reports it whenever it is set.

    Attributes:
        why: The reason, shown in the report entry (in parentheses) and in docs/providers.md.
        meaning_changes: Leaving it out changes what the output means: refused under policy ``error``.
        target: The target's name in the report text when it differs from the table's.
        read: A plain field bodies may hold all the same (older API versions, another dialect's body read
            as this one's): read back into the setting by the shared loop, never written from it; when
            the source's own field is kept (``keep``) it goes back as it came (:func:`encode_plain`).
        keep: Reading ``read`` also keeps the field in the provider's data, so a round trip to this
            mapper writes it back as the source sent it, unreported.
        by_mapper: The mapper reports it by its own rule (in some cases only, or in its own words:
            Anthropic's ``strict`` only when ``false``); :func:`report_unsupported` leaves it alone.
    """

    why: str = ""
    meaning_changes: bool = False
    target: str | None = None
    read: Wire | None = None
    keep: bool = False
    by_mapper: bool = False


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
    _readers: dict[str, PlainReader] = field(default_factory=dict, init=False, repr=False, compare=False)

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

    def reader(self, under: str = "") -> PlainReader:
        """The shared reader of this table's plain rows in the body object ``under`` (``""``: the body itself).

        Built once per table and object (a decoder asks for it on every call, so a table replaced at run
        time, as by a test adding a setting, is the one read).
        """
        found = self._readers.get(under)
        if found is None:
            found = self._readers[under] = PlainReader(self, under)
        return found

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
        group: Which rows: ``""`` the top-level settings; ``"reasoning"`` the ``reasoning.*`` rows (``"response_format"``
            the ``response_format.*`` ones); so a
            mapper reports each group where its encoder handles that group (report order unchanged).
        kept: Rows the encoder wrote all the same because the source carried the field itself with this
            value (the source's own representation kept, e.g. OpenRouter's ``top_k`` read as plain Chat):
            not reported.

    A mapper calls it for every group its settings set (``""`` always, ``"reasoning"`` when reasoning settings
    are, ``"response_format"`` when a format is), so a row added later is reported with no other change; rows
    marked ``by_mapper`` are the mapper's own to report.

    Raises:
        ConversionError: policy ``error`` and a set row with ``meaning_changes``.
    """
    for name, row in table.unsupported():
        head, _, _ = name.rpartition(".")
        if head != group or name in kept or row.by_mapper:
            continue
        if isinstance(settings, Settings):
            value = setting_value(settings, name)
        else:  # the group's own object
            value = getattr(settings, name.rpartition(".")[2], msgspec.UNSET)
        if value is not msgspec.UNSET:
            unsupported_setting(report, policy, row.target or table.target, name, value, meaning_changes=row.meaning_changes, why=row.why)


NOT_FROM_SETTINGS: frozenset[str] = frozenset({"model"})
"""Settings read from a body but never written from the settings (ADR 0007: the model is the caller's ``model=``)."""


def _key(path: str, under: str) -> str | None:
    """The field of ``path`` in the object ``under`` (``""``: the body itself); ``None`` when it lies elsewhere."""
    prefix = under + "." if under else ""
    if not path.startswith(prefix):
        return None
    key = path[len(prefix) :]
    return None if "." in key else key


def encode_plain(
    settings: Settings,
    table: SettingsTable,
    target: dict[str, Any],
    *,
    under: str = "",
    own: dict[str, Any] | None = None,
    rules: Mapping[str, Callable[[], None]] | None = None,
) -> frozenset[str]:
    """Write every set ``plain`` :class:`Wire` setting of ``table`` into ``target`` as it is (the one shared loop).

    Args:
        settings: The transcript's settings (not mutated: values are deep-copied).
        table: The target mapper's table.
        target: The body, or (with ``under``) the body object those rows live in (Ollama's ``options``).
        under: Only the rows whose path is ``under.<key>``, written as ``target[key]``; ``""``: the rows
            whose path is a top-level body field.
        own: The mapper's own provider data for these settings (:func:`~interlingua.mapping.settings.own_provider_data`,
            modified in place), when it keeps the fields the source used: a row's ``spelled`` field holding
            the same value is written (and taken out of ``own``) instead of ``path``; an
            :class:`Unsupported` row's ``read`` field the source sent with the same value (``keep``) is
            written back as it was, and one of another value is taken out. ``None``: neither.
        rules: The mapper's own (conditional) rules, each called when the loop reaches its row, so the
            body's keys follow the table's order (Anthropic's thinking and output format between
            ``stop_sequences`` and ``stream``).

    Returns:
        The :class:`Unsupported` settings written all the same (the source's own field kept): pass them
        to :func:`report_unsupported` as ``kept``.

    Rows are written in the table's order (so a body's key order is the table's); ``model`` is never
    written from the settings (:data:`NOT_FROM_SETTINGS`), nor a row with ``write=False``.
    """
    kept: set[str] = set()
    for name, row in table.rows.items():
        rule = rules.get(name) if rules else None
        if rule is not None:
            rule()
        if isinstance(row, Wire):
            if not row.plain or not row.write or name in NOT_FROM_SETTINGS:
                continue
            key = _key(row.path, under)
            value = getattr(settings, name, msgspec.UNSET)
            if key is None or value is msgspec.UNSET:
                continue
            keys = [k for k in row.spelled if claim_provider_field(own, (k,), value)] if own is not None else []
            for k in keys or [key]:
                target[k] = copy.deepcopy(value)
        elif row.read is not None and row.read.plain and own is not None:
            key = _key(row.read.path, under)
            value = getattr(settings, name, msgspec.UNSET)
            if key is None or value is msgspec.UNSET:
                continue
            if claim_provider_field(own, (key,), value):
                target[key] = copy.deepcopy(value)  # the source's own field, written back as it was: not reported
                kept.add(name)
            else:
                own.pop(key, None)  # a kept field of another value is not written either
    return frozenset(kept)


Refuse = Callable[[str, str], Exception]
"""A decoder's error for a value of the wrong wire type: ``refuse(where, what)`` with ``where`` the field's
dotted place (``generationConfig.maxOutputTokens``) and ``what`` the :class:`Check`'s type; the decoder turns
it into its own error, which names the place as a JSON pointer."""


class PlainReader:
    """Reads the ``plain`` rows of one table back from one body object (the shared loop, reading side).

    Built by :meth:`SettingsTable.reader`. A decoder walks its body object in order and hands every field
    to :meth:`take` first; then calls :meth:`finish` for the settings a body may spell in several fields.
    A value that fits its setting (:func:`~interlingua.mapping.settings.valid_setting`) is read into
    ``fields``; one of the wrong wire type for the row's :class:`Check` is refused; any other (``null``, an
    empty stop sequence) is kept in ``rest``, the provider's data, as given.
    """

    def __init__(self, table: SettingsTable, under: str = "") -> None:
        self.table = table
        self.under = under
        self._rows: dict[str, tuple[str, Wire, bool]] = {}
        self._spelled: list[tuple[str, str, Wire]] = []
        self._deferred: set[str] = set()
        for name, row in table.rows.items():
            wire, keep = (row, False) if isinstance(row, Wire) else (row.read, row.keep)
            if wire is None or not wire.plain:
                continue
            key = _key(wire.path, under)
            if key is None:
                continue
            if wire.spelled:
                self._spelled.append((name, key, wire))
                self._deferred.update((key, *wire.spelled))
            else:
                self._rows[key] = (name, wire, keep)

    def fields(self) -> dict[str, str]:
        """Body field -> canonical setting of every row read here (a ``spelled`` row by its ``path``)."""
        out = {key: name for key, (name, _, _) in self._rows.items()}
        out.update({key: name for name, key, _ in self._spelled})
        return out

    def _where(self, key: str) -> str:
        return f"{self.under}.{key}" if self.under else key

    def _check(self, wire: Wire, key: str, value: Any, refuse: Refuse | None) -> None:
        if value is not None and wire.check is not None and not wire.check.test(value):
            if refuse is None:
                raise SettingsTableError(f"settings table of mapper {self.table.mapper!r}: {key} has a check, and the reader was given no refuse")
            raise refuse(self._where(key), wire.check.what)

    def take(self, key: str, value: Any, fields: dict[str, Any], rest: dict[str, Any], *, as_key: str | None = None, refuse: Refuse | None = None) -> bool:
        """Read one body field if it is a plain row's; whether it was (then the decoder does nothing more with it).

        Args:
            key: The field as the body spells it (kept under that name in ``rest``).
            value: Its value (copied, never aliased).
            fields: The canonical settings read so far (``{"temperature": 0.2}``).
            rest: The provider's data read so far.
            as_key: The field's name as the table spells it, when the body may spell it otherwise
                (Gemini's camelCase for a snake_case key).
            refuse: Builds the error for a value failing the row's :class:`Check` (:data:`Refuse`).

        Raises:
            Whatever ``refuse`` returns, for a value of the wrong wire type.
        """
        wire_key = as_key if as_key is not None else key
        found = self._rows.get(wire_key)
        if found is None:
            return wire_key in self._deferred  # read by finish(), after the rest of the body
        name, wire, keep = found
        self._check(wire, wire_key, value, refuse)
        if value is not None and valid_setting(name, value):
            fields[name] = copy.deepcopy(value)
            if keep:
                rest[key] = copy.deepcopy(value)  # the source's own field: written back to this mapper as sent
        else:
            rest[key] = copy.deepcopy(value)
        return True

    def finish(self, source: Mapping[str, Any], fields: dict[str, Any], rest: dict[str, Any], *, refuse: Refuse | None = None) -> None:
        """Read the settings a body may spell in several fields (a row's ``spelled``), after :meth:`take` saw the rest.

        The row's own field is read first, then the others in ``spelled`` order: the first value that fits
        is the setting. Every field present is kept in ``rest`` too (so it is written back the same), but
        the row's own field when it is the one read.
        """
        for name, key, wire in self._spelled:
            order = (key, *(k for k in wire.spelled if k != key))
            used = None
            for k in order:
                if k in source:
                    self._check(wire, k, source[k], refuse)
                    if used is None and valid_setting(name, source[k]):
                        fields[name] = copy.deepcopy(source[k])
                        used = k
            for k in order:
                if k in source and (k != used or used != key):
                    rest[k] = copy.deepcopy(source[k])


def plain_fields(table: SettingsTable, *, under: str = "") -> dict[str, str]:
    """Body key -> canonical setting of every ``plain`` row read in ``under`` (:meth:`PlainReader.fields`)."""
    return table.reader(under).fields()
