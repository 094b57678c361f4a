"""Item fields as tables: what each mapper does with every field of every item kind, declared as data (ADR 0044).

Every mapper declares an :class:`ItemFieldTable`. For each kind of the item union
(:data:`interlingua.items.InputItem`, read from the generated models) it declares either that the kind is
not carried as itself (:class:`WholeItem`: the item is degraded to a text marker, dropped or refused, and
the report says so for the item as a whole, so its fields need no rows), or, for each field of the kind
(``image.detail``), one of:

* :class:`Mapped`: written to a wire path and read back from it;
* :class:`Unsupported`: the target has no place for it; the mapper reports it whenever it is set;
* :class:`NotSent`: not part of what a model is sent, by design (the transcript's own ``metadata``, an
  item's canonical ``id``, a field derived from another one such as a tool result's ``name``); setting it
  changes nothing in the body.

A table declares both directions: the request (``encode_request`` / ``decode_request``: ``kinds`` and
``rows``) and the response body (``encode_response`` / ``decode_response``: ``response_kinds`` and
``response``), where what a model produces (text, reasoning, tool calls, refusals, ...) is carried and the
other kinds are reported. Building the table checks each direction covers every field of every kind
(:func:`required_item_fields`): a table that neither maps nor declares a field raises
:class:`ItemFieldTableError` naming the mapper, the direction and the field when the provider module is
imported, so a field added to ``schemas/`` cannot be dropped silently by a mapper that does not know it. :data:`SHARED` fields (``provider_data``, ``message``) are handled the same way by
every mapper and need no row. The project's tests hold every declaration to what the mapper does, on items
generated from the models.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, Union

import msgspec

from .. import items as _items
from .report import Report

__all__ = [
    "CALL_IDS",
    "RESPONSE_ROLE",
    "SHARED",
    "ItemFieldTable",
    "ItemFieldTableError",
    "Direction",
    "ItemRow",
    "Mapped",
    "NotSent",
    "Unsupported",
    "WholeItem",
    "as_in_request",
    "item_kinds",
    "report_not_read_back",
    "bookkeeping",
    "required_item_fields",
    "rows_for",
]

SHARED: Mapping[str, str] = {
    "provider_data": "a provider's own fields: written back to that provider, reported as dropped for any other (every mapper, through the shared own_provider_data)",
    "message": "which items make one wire message: items sharing a key are written as one message where the target's turn rules allow (every mapper, with the shared turn rules)",
}
"""Item fields every mapper handles the same way (the shared rule, not a row per mapper)."""


class ItemFieldTableError(ValueError):
    """A mapper's item-field table misses a field of the item union, or names one that does not exist."""


@dataclass(frozen=True)
class Mapped:
    """The field is written to ``path`` and read back from it.

    Attributes:
        path: The wire field, dotted for nested objects (``content[].source``); a description when the
            field decides where the item goes rather than a value (``role -> system``).
        how: The converter, and the values written only in part (those the mapper reports itself).
        read_back: The mapper reads the value back into the same field; ``False`` when it comes back in
            another place (``how`` says where), so a round trip keeps its meaning, not its spelling.
    """

    path: str
    how: str = ""
    read_back: bool = True


@dataclass(frozen=True)
class Unsupported:
    """The target has no place for the field: the mapper reports it (``dropped``) whenever it is set.

    Attributes:
        why: The reason, as docs/providers.md shows it.
    """

    why: str


@dataclass(frozen=True)
class NotSent:
    """The field is not part of what a model is sent, by design: setting it leaves the body unchanged.

    Attributes:
        why: Why nothing is lost (the transcript keeps it; it is derived from another field that is sent).
    """

    why: str


@dataclass(frozen=True)
class WholeItem:
    """The kind is not carried as itself: the item is degraded, dropped or refused, and reported as a whole.

    Attributes:
        why: What happens to the item (``degraded to a text marker``), as docs/providers.md shows it.
    """

    why: str


ItemRow = Union[Mapped, Unsupported, NotSent]


@functools.cache
def item_kinds() -> tuple[tuple[str, type[msgspec.Struct]], ...]:
    """Every kind of the item union as ``(tag, class)``, read from the generated models (union order)."""
    classes = typing.get_args(typing.get_args(_items.InputItem)[0])
    return tuple((cls.__struct_config__.tag, cls) for cls in classes)


def required_item_fields(kind: str | None = None) -> tuple[str, ...]:
    """The ``kind.field`` names a table must declare (every field of every kind but :data:`SHARED`).

    Args:
        kind: Only this kind's fields (``None``: every kind's).

    Derived from the generated models, so a field added to ``schemas/`` is asked for the day it is added.
    """
    return _required(item_kinds(), kind)


@functools.cache
def _required(kinds: tuple[tuple[str, type[msgspec.Struct]], ...], kind: str | None) -> tuple[str, ...]:
    """:func:`required_item_fields` for one union (keyed by it, so a test's copy of a model gets its own)."""
    return tuple(f"{tag}.{name}" for tag, cls in kinds if kind is None or tag == kind for name in cls.__struct_fields__ if name not in SHARED)


Direction = Literal["request", "response"]
"""Which body a declaration is about: a request (``encode_request`` / ``decode_request``) or a response
(``encode_response`` / ``decode_response``)."""


@dataclass(frozen=True)
class ItemFieldTable:
    """One mapper's declaration of every item field, in both directions (what it writes and reads back).

    Attributes:
        mapper: The mapper's registry name (``anthropic``; ``openai-chat:deepseek`` for a dialect), for error messages.
        kinds: Kind -> :class:`WholeItem` for each kind a request does not carry as itself.
        rows: ``kind.field`` -> :class:`Mapped` / :class:`Unsupported` / :class:`NotSent`, for every field of
            every kind not in ``kinds`` (rows given for a kind in ``kinds`` are left out).
        response: The same for a response body (``encode_response`` / ``decode_response``): a row for every
            field of every kind not in ``response_kinds`` (:func:`as_in_request` copies a kind's request rows
            where the response body writes it the same way).
        response_kinds: Kind -> :class:`WholeItem` for each kind a response body does not carry as itself
            (what no model produces, such as a tool result or a user's image, is reported there).

    Raises:
        ItemFieldTableError: a field has no row in either direction, or a row or kind names none that exists
            (checked when built, so at import time of the provider module).
    """

    mapper: str
    kinds: Mapping[str, WholeItem] = field(default_factory=dict)
    rows: Mapping[str, ItemRow] = field(default_factory=dict)
    response: Mapping[str, ItemRow] = field(default_factory=dict)
    response_kinds: Mapping[str, WholeItem] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # rows a shared helper gave for a kind declared whole say nothing: the item is reported as a whole
        object.__setattr__(self, "rows", {name: row for name, row in self.rows.items() if name.partition(".")[0] not in self.kinds})
        object.__setattr__(self, "response", {name: row for name, row in self.response.items() if name.partition(".")[0] not in self.response_kinds})
        tags = {tag for tag, _ in item_kinds()}
        known = set(required_item_fields())
        problems: list[str] = []
        for label, kinds, rows in (("", self.kinds, self.rows), ("response ", self.response_kinds, self.response)):
            unknown_kinds = [k for k in kinds if k not in tags]
            if unknown_kinds:
                problems.append(f"{label}kinds that do not exist: {', '.join(unknown_kinds)}")
            missing = [name for name in required_item_fields() if name.partition(".")[0] not in kinds and name not in rows]
            if missing:
                problems.append(f"no {label}row for {', '.join(missing)} (declare Mapped(path), Unsupported(why) or NotSent(why), or the kind WholeItem(why))")
            unknown = [name for name in rows if name not in known]
            if unknown:
                problems.append(f"{label}rows for fields that do not exist: {', '.join(unknown)}")
        if problems:
            raise ItemFieldTableError(f"item-field table of mapper {self.mapper!r}: " + "; ".join(problems))

    def row(self, name: str, *, direction: Direction = "request") -> ItemRow | WholeItem:
        """The declaration of ``kind.field`` (the kind's :class:`WholeItem` when the kind is not carried).

        Args:
            name: ``kind.field`` (``image.detail``).
            direction: ``request``, or ``response`` for a response body.

        Raises:
            KeyError: ``name`` is no field of the item union.
        """
        kinds, rows = self._direction(direction)
        kind = name.partition(".")[0]
        if kind in kinds:
            return kinds[kind]
        return rows[name]

    def declared(self, direction: Direction = "request") -> Iterator[tuple[str, ItemRow | WholeItem]]:
        """Every declaration of ``direction`` in union order: a kind's :class:`WholeItem` once, else each of its fields' rows."""
        kinds, rows = self._direction(direction)
        for tag, _ in item_kinds():
            if tag in kinds:
                yield tag, kinds[tag]
            else:
                for name in required_item_fields(tag):
                    yield name, rows[name]

    def whole_kinds(self, direction: Direction = "request") -> Mapping[str, WholeItem]:
        """The kinds ``direction`` does not carry as themselves (``kinds`` or ``response_kinds``)."""
        return self._direction(direction)[0]

    def _direction(self, direction: Direction) -> tuple[Mapping[str, WholeItem], Mapping[str, ItemRow]]:
        if direction == "response":
            return self.response_kinds, self.response
        if direction == "request":
            return self.kinds, self.rows
        raise ValueError(f"direction must be 'request' or 'response', not {direction!r}")

    def replace(
        self,
        mapper: str,
        *,
        kinds: Mapping[str, WholeItem | None] | None = None,
        rows: Mapping[str, ItemRow] | None = None,
        response_kinds: Mapping[str, WholeItem | None] | None = None,
        response: Mapping[str, ItemRow] | None = None,
    ) -> ItemFieldTable:
        """A copy for another mapper (a dialect): ``kinds`` / ``response_kinds`` entries replace (``None``
        removes) whole kinds, ``rows`` / ``response`` replace rows of the request / response direction.

        Raises:
            ItemFieldTableError: the copy is incomplete (a kind no longer whole needs rows for its fields).
        """
        return ItemFieldTable(
            mapper,
            _merge_kinds(self.kinds, kinds),
            {**self.rows, **(rows or {})},
            {**self.response, **(response or {})},
            _merge_kinds(self.response_kinds, response_kinds),
        )


def _merge_kinds(base: Mapping[str, WholeItem], changes: Mapping[str, WholeItem | None] | None) -> dict[str, WholeItem]:
    out = dict(base)
    for kind, whole in (changes or {}).items():
        if whole is None:
            out.pop(kind, None)
        else:
            out[kind] = whole
    return out


def as_in_request(rows: Mapping[str, ItemRow], *kinds: str, at: Mapping[str, str] | None = None) -> dict[str, ItemRow]:
    """The request ``rows`` of each of ``kinds``, declared true of the response body as well.

    For a kind the response body writes in the same way as the request does (Anthropic's ``tool_use``
    block, Gemini's ``functionCall`` part), only at another place of the body. The tests hold the copy to
    the response encoder like any other row.

    Args:
        rows: The request rows.
        kinds: The item kinds whose rows are copied (each field of each).
        at: Where the response body holds what the request holds: each key of a :class:`Mapped` path is
            replaced by its value (``{"messages[].": "choices[0].message."}``).

    Raises:
        ItemFieldTableError: a kind named has no row in ``rows`` (a typo, or a kind declared whole).
    """
    out: dict[str, ItemRow] = {}
    for kind in kinds:
        names = required_item_fields(kind)
        if not names or any(name not in rows for name in names):
            raise ItemFieldTableError(f"no request rows of item kind {kind!r} to declare for the response")
        for name in names:
            row = rows[name]
            if isinstance(row, Mapped) and at:
                path = row.path
                for old, new in at.items():
                    path = path.replace(old, new)
                row = dataclasses.replace(row, path=path)
            out[name] = row
    return out


RESPONSE_ROLE = Mapped(
    "the response's own turn",
    "a response body holds the assistant's output: an item of another role is left out or changed, reported",
    read_back=False,
)
"""The ``role`` row of a kind carried in a response body: every output item is the assistant's."""


def rows_for(kinds: Iterable[str], name: str, row: ItemRow) -> dict[str, ItemRow]:
    """The same row for field ``name`` of each kind in ``kinds`` that has it (``rows_for(CONTENT, "role", Mapped(...))``).

    Raises:
        ItemFieldTableError: a kind named has no such field (a typo would otherwise declare nothing).
    """
    out: dict[str, ItemRow] = {}
    for kind in kinds:
        key = f"{kind}.{name}"
        if key not in required_item_fields(kind):
            raise ItemFieldTableError(f"item kind {kind!r} has no field {name!r}")
        out[key] = row
    return out


CALL_IDS: frozenset[str] = frozenset({"tool_call.id", "handoff_call.id"})
"""The ``id`` fields that are a call's id (sent as the call's id), not the item's canonical id."""


def bookkeeping(*, sent: Iterable[str] = ()) -> dict[str, ItemRow]:
    """:class:`NotSent` rows for the transcript's own fields of every kind: ``id``, ``metadata``, ``origin``.

    The canonical ``id`` names the item within its transcript (a call's id, :data:`CALL_IDS`, is not among
    them: each mapper declares it); ``metadata`` is the application's annotations; ``origin`` is where a
    model-produced item came from. None is conversation content, so no request carries them.

    Args:
        sent: ``kind.field`` names the mapper does write (it declares those rows itself).
    """
    skip = set(sent) | CALL_IDS
    out: dict[str, ItemRow] = {}
    for tag, cls in item_kinds():
        for name, why in _BOOKKEEPING.items():
            key = f"{tag}.{name}"
            if name in cls.__struct_fields__ and key not in skip:
                out[key] = NotSent(why)
    return out


_BOOKKEEPING = {
    "id": "the item's canonical id within the transcript, not conversation content",
    "metadata": "the application's own annotations, kept by the transcript, never sent to a model",
    "origin": "provenance (which provider, model and response produced the item), kept by the transcript",
}


def report_not_read_back(item: msgspec.Struct, back: msgspec.Struct, fields: Iterable[str], report: Report, *, index: int | None, where: str) -> None:
    """Report (``changed``) each of ``fields`` set on ``item`` that ``back`` (the item the mapper's own reader
    makes of what it wrote) does not hold: the fields an :class:`Unsupported` row declares for a wire form
    that keeps them only in part (an error body keeps a code only as its HTTP status).

    Args:
        item: The canonical item written.
        back: The same kind, read back from the body written.
        fields: The field names to compare (``code``, ``retryable``, ``status``).
        report: Where the entry goes.
        index: The item's index.
        where: The wire form, for the message (``an Ollama error body``).
    """
    lost = []
    for name in fields:
        value, read = getattr(item, name), getattr(back, name)
        if value is not msgspec.UNSET and value != read:
            lost.append(f"{name} {value!r}" + ("" if read is msgspec.UNSET else f" (read back as {read!r})"))
    if lost:
        tag = item.__struct_config__.tag
        report.add("changed", f"{where} does not keep the item's {', '.join(lost)}", index=index, item_type=str(tag))
