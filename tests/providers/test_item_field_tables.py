"""Every mapper declares every item field, and does what it declares (ADR 0044).

The declaration (``mapper.item_fields``) is checked when it is built; these tests prove (1) the check refuses
a table that neither maps nor declares a field, and a field added to a model fails every table, naming the
mapper and the field; (2) every registered mapper and every OpenAI Chat dialect has a complete table; (3) the
tables are true, on items generated from the models (:mod:`interlingua.testing.model_strategies`): a kind
declared :class:`WholeItem` is never carried natively and the others are; a field declared :class:`Mapped`
survives encode -> decode for some value and is never ignored silently; one declared :class:`Unsupported` is
reported whenever it is set; one declared :class:`NotSent` leaves the body and the report unchanged.
"""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

import interlingua.mapping.item_fields as item_fields
from interlingua.codec import decode_item
from interlingua.items import Origin, TextItem
from interlingua.mapping import available, get_mapper
from interlingua.mapping.item_fields import (
    SHARED,
    ItemFieldTable,
    ItemFieldTableError,
    Mapped,
    NotSent,
    Unsupported,
    WholeItem,
    item_kinds,
    required_item_fields,
)
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper
from interlingua.testing.model_strategies import strategy_for

from .item_field_probe import CANDIDATES, about, base_item, decoded_value, encode, with_field


def _mappers() -> list[Any]:
    out = [get_mapper(name) for name in available()]
    out += [OpenAIChatMapper(dialect=d) for d in DIALECTS if d not in ("openai", "mistral")]
    return out


MAPPERS = _mappers()
IDS = [m.item_fields.mapper for m in MAPPERS]
_FIELD_TYPES = {tag: {f.name: f.type for f in mi.type_info(cls).fields} for tag, cls in item_kinds()}  # type: ignore[union-attr]


# ------------------------------------------------------------------ the check


def test_required_fields_follow_the_generated_models() -> None:
    required = set(required_item_fields())
    for tag, cls in item_kinds():
        for name in cls.__struct_fields__:
            assert (f"{tag}.{name}" in required) == (name not in SHARED)


def test_a_table_that_neither_maps_nor_declares_a_field_is_refused() -> None:
    table = get_mapper("anthropic").item_fields
    rows = dict(table.rows)
    response = (table.response, table.response_kinds)  # the response direction: test_response_item_field_tables.py
    ItemFieldTable("complete", table.kinds, rows, *response)  # complete: accepted
    del rows["image.detail"]
    with pytest.raises(ItemFieldTableError, match=r"mapper 'forgetful': no row for image\.detail"):
        ItemFieldTable("forgetful", table.kinds, rows, *response)
    with pytest.raises(ItemFieldTableError, match=r"do not exist: image\.blur"):
        ItemFieldTable("inventive", table.kinds, {**table.rows, "image.blur": Mapped("blur")}, *response)
    with pytest.raises(ItemFieldTableError, match="kinds that do not exist: hologram"):
        ItemFieldTable("inventive", {**table.kinds, "hologram": WholeItem("no")}, table.rows, *response)


class _TextWithTone(TextItem, tag="text"):
    """A copy of the text model with one field more: what the generator writes the day ``tone`` is added."""

    tone: str | msgspec.UnsetType = msgspec.UNSET


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_a_new_item_field_without_a_row_fails_every_table(mapper: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The day a field is added to a model, each mapper's table (rebuilt, as an import does) names it."""
    kinds = tuple((tag, _TextWithTone if tag == "text" else cls) for tag, cls in item_kinds())
    monkeypatch.setattr(item_fields, "item_kinds", lambda: kinds)
    table = mapper.item_fields
    with pytest.raises(ItemFieldTableError, match=rf"item-field table of mapper '{_re(table.mapper)}': no row for text\.tone"):
        ItemFieldTable(table.mapper, table.kinds, table.rows, table.response, table.response_kinds)


def _re(text: str) -> str:
    return text.replace("(", r"\(").replace(")", r"\)")


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_every_mapper_declares_every_item_field(mapper: Any) -> None:
    table = mapper.item_fields
    assert isinstance(table, ItemFieldTable)
    for name in required_item_fields():
        row = table.row(name)
        assert isinstance(row, (Mapped, Unsupported, NotSent, WholeItem)), name
        text = row.path if isinstance(row, Mapped) else row.why
        assert text, name


# ------------------------------------------------------------------ the truth


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_a_kind_declared_whole_is_never_carried_as_itself(mapper: Any) -> None:
    table = mapper.item_fields
    for tag, _ in item_kinds():
        base = base_item(mapper, tag)
        if tag in table.kinds:
            assert base is None, f"{table.mapper}: {tag} is declared {table.kinds[tag]} but {base} is carried natively"
        else:
            assert base is not None, f"{table.mapper}: {tag} is declared field by field but no {tag} item is carried natively"


def _meaningful(value: Any, base: Any, name: str) -> bool:
    """A value that says something (not an empty or false default) and differs from the base item's."""
    return value not in (None, False, "", [], {}) and value != getattr(base, name)


_BASES: dict[tuple[int, str], tuple[Any, Any]] = {}


def _base(mapper: Any, kind: str) -> tuple[Any, Any]:
    """The mapper's base item of ``kind`` and its encoding (found once per mapper and kind)."""
    key = (id(mapper), kind)
    if key not in _BASES:
        base = base_item(mapper, kind)
        _BASES[key] = (base, encode(mapper, base))
    return _BASES[key]


def _rows(mapper: Any) -> list[tuple[str, Any]]:
    return [(name, row) for name, row in mapper.item_fields.declared() if not isinstance(row, WholeItem)]


_property = settings(max_examples=120, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
@_property
@given(data=st.data())
def test_no_item_field_is_dropped_silently(mapper: Any, data: st.DataObject) -> None:
    """Any field set to any value the models allow: Mapped is written (or reported), Unsupported is reported,
    NotSent changes nothing."""
    name, row = data.draw(st.sampled_from(_rows(mapper)), label="field")
    kind, _, field = name.partition(".")
    base, before = _base(mapper, kind)
    value = data.draw(strategy_for(_FIELD_TYPES[kind][field]), label="value")
    item = with_field(base, field, value)
    if item is None:  # the value breaks a rule of the item (the codec would refuse it)
        return
    after = encode(mapper, item)
    if after is None:  # refused under every policy: loud, not silent
        assert not isinstance(row, NotSent), f"{name} is declared not sent, yet setting it makes the request refused"
        return
    new = [e for e in about(after, item) if e not in about(before, base)]
    label = mapper.item_fields.mapper
    if field == "origin" and isinstance(row, Mapped) and value.provider != mapper.name:
        return  # another provider's item id is provenance only: a mapper writes back its own (the row says so)
    if isinstance(row, NotSent):
        assert after.value == before.value and not new, f"{label}: {name} is declared not sent ({row.why}) but setting it to {value!r} changed the body or the report: {new}"
    elif isinstance(row, Unsupported) and _meaningful(value, base, field):
        assert new, f"{label}: {name} is declared unsupported ({row.why}) but {value!r} was dropped silently"
    elif isinstance(row, Mapped) and _meaningful(value, base, field):
        survives = decoded_value(mapper, after, item, field) == value
        assert survives or after.value != before.value or new, f"{label}: {name} is declared mapped to {row.path} but {value!r} left no trace"


def _hints(mapper: Any, kind: str, field: str) -> list[Any]:
    """Values a narrow mapping takes, tried before hypothesis draws others: the field's values in the
    probe's candidate items (each issuer's opaque state, each source kind) and the mapper's own origin."""
    values = [getattr(decode_item(text), field) for text in CANDIDATES[kind]]
    if field == "origin":
        values += [Origin(provider=mapper.name, item_id=f"{prefix}0123456789abcdef") for prefix in ("msg_", "fc_", "rs_")]
    return [v for v in values if v is not msgspec.UNSET]


def _mapped(mapper: Any) -> list[str]:
    return [name for name, row in _rows(mapper) if isinstance(row, Mapped) and row.read_back]


@pytest.mark.parametrize(("mapper", "name"), [(m, n) for m in MAPPERS for n in _mapped(m)], ids=[f"{m.item_fields.mapper}-{n}" for m in MAPPERS for n in _mapped(m)])
def test_a_mapped_field_survives_the_round_trip(mapper: Any, name: str) -> None:
    """Some value of a field declared mapped (and read back) is read back from the body the mapper wrote."""
    kind, _, field = name.partition(".")
    base, before = _base(mapper, kind)
    if getattr(base, field) is not msgspec.UNSET and decoded_value(mapper, before, base, field) == getattr(base, field):
        return  # the base item's own value survives

    def survives(value: Any) -> bool:
        item = with_field(base, field, value)
        conv = None if item is None else encode(mapper, item)
        return conv is not None and _meaningful(value, base, field) and decoded_value(mapper, conv, item, field) == value

    if any(survives(v) for v in _hints(mapper, kind, field)):
        return
    try:
        find(strategy_for(_FIELD_TYPES[kind][field]), survives, settings=settings(max_examples=300, database=None, phases=[Phase.generate]))
    except NoSuchExample:
        pytest.fail(f"{mapper.item_fields.mapper}: {name} is declared mapped to {mapper.item_fields.row(name).path} but no value survived encode -> decode")
