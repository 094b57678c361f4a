"""Every mapper declares every item field of a RESPONSE body, and does what it declares (ADR 0044).

The response-direction twin of ``test_item_field_tables.py``: ``ItemFieldTable.response_kinds`` and
``ItemFieldTable.response`` say what ``encode_response`` / ``decode_response`` do with each kind and field.
These tests prove (1) the check refuses a table whose response direction neither maps nor declares a field,
naming the mapper and the field, and a field added to a model fails every table's response direction too;
(2) the declarations are true, on items generated from the models
(:mod:`interlingua.testing.model_strategies`): a kind declared :class:`WholeItem` is never written natively
in a response body and the others are; a field declared :class:`Mapped` survives ``encode_response`` ->
``decode_response`` for some value and is never ignored silently; one declared :class:`Unsupported` is
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
from interlingua.items import Origin
from interlingua.mapping import get_mapper
from interlingua.mapping.item_fields import ItemFieldTable, ItemFieldTableError, Mapped, NotSent, Unsupported, WholeItem, as_in_request, item_kinds
from interlingua.testing.model_strategies import strategy_for

from .item_field_probe import with_field
from .response_field_probe import RESPONSE_CANDIDATES, about, base_item, decoded_value, encode
from .test_item_field_tables import IDS, MAPPERS, _re, _TextWithTone
from .test_item_field_tables import _meaningful as _meaningful_in_request



def _meaningful(value: Any, base: Any, name: str) -> bool:
    """As for a request, but a ``role`` of ``assistant`` says nothing in a response: every output item is the assistant's."""
    return _meaningful_in_request(value, base, name) and not (name == "role" and value == "assistant")


def _kept(back: Any, value: Any) -> bool:
    """``back`` (read from the response body) holds ``value``: equal, or a struct holding every field ``value``
    sets, the reader having added what the response says of itself (its ``model``, its ``response_id``)."""
    if back == value:
        return True
    if not isinstance(value, msgspec.Struct) or type(back) is not type(value):
        return False
    return all(getattr(value, f) is msgspec.UNSET or getattr(back, f) == getattr(value, f) for f in value.__struct_fields__)


_FIELD_TYPES = {tag: {f.name: f.type for f in mi.type_info(cls).fields} for tag, cls in item_kinds()}  # type: ignore[union-attr]


# ------------------------------------------------------------------ the check


def test_a_table_whose_response_direction_misses_a_field_is_refused() -> None:
    table = get_mapper("gemini").item_fields
    response = dict(table.response)
    ItemFieldTable("complete", table.kinds, table.rows, response, table.response_kinds)  # complete: accepted
    del response["text.cache_breakpoint"]
    with pytest.raises(ItemFieldTableError, match=r"mapper 'forgetful': no response row for text\.cache_breakpoint"):
        ItemFieldTable("forgetful", table.kinds, table.rows, response, table.response_kinds)
    with pytest.raises(ItemFieldTableError, match=r"response rows for fields that do not exist: text\.tone"):
        ItemFieldTable("inventive", table.kinds, table.rows, {**table.response, "text.tone": Mapped("tone")}, table.response_kinds)
    with pytest.raises(ItemFieldTableError, match="response kinds that do not exist: hologram"):
        ItemFieldTable("inventive", table.kinds, table.rows, table.response, {**table.response_kinds, "hologram": WholeItem("no")})
    with pytest.raises(ItemFieldTableError, match="no request rows of item kind 'hologram'"):
        as_in_request(table.rows, "hologram")


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_a_new_item_field_without_a_response_row_fails_every_table(mapper: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The day a field is added to a model, each table names it for the response direction as well."""
    kinds = tuple((tag, _TextWithTone if tag == "text" else cls) for tag, cls in item_kinds())
    monkeypatch.setattr(item_fields, "item_kinds", lambda: kinds)
    table = mapper.item_fields
    rows = {**table.rows, "text.tone": Mapped("tone")}
    with pytest.raises(ItemFieldTableError, match=rf"item-field table of mapper '{_re(table.mapper)}': no response row for text\.tone"):
        ItemFieldTable(table.mapper, table.kinds, rows, table.response, table.response_kinds)


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_every_mapper_declares_every_item_field_of_a_response(mapper: Any) -> None:
    table = mapper.item_fields
    for name, row in table.declared("response"):
        assert isinstance(row, (Mapped, Unsupported, NotSent, WholeItem)), name
        assert (row.path if isinstance(row, Mapped) else row.why), name


# ------------------------------------------------------------------ the truth


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
def test_a_kind_declared_whole_is_never_written_as_itself_in_a_response(mapper: Any) -> None:
    table = mapper.item_fields
    for tag, _ in item_kinds():
        base = base_item(mapper, tag)
        if tag in table.response_kinds:
            assert base is None, f"{table.mapper}: {tag} is declared {table.response_kinds[tag]} in a response but {base} is written natively"
        else:
            assert base is not None, f"{table.mapper}: {tag} is declared field by field in a response but no {tag} item is written natively"


_BASES: dict[tuple[int, str], tuple[Any, Any]] = {}


def _base(mapper: Any, kind: str) -> tuple[Any, Any]:
    key = (id(mapper), kind)
    if key not in _BASES:
        base = base_item(mapper, kind)
        _BASES[key] = (base, encode(mapper, base))
    return _BASES[key]


def _rows(mapper: Any) -> list[tuple[str, Any]]:
    return [(name, row) for name, row in mapper.item_fields.declared("response") if not isinstance(row, WholeItem)]


_property = settings(max_examples=120, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("mapper", MAPPERS, ids=IDS)
@_property
@given(data=st.data())
def test_no_item_field_is_dropped_silently_from_a_response(mapper: Any, data: st.DataObject) -> None:
    """Any field set to any value the models allow, in a response body: Mapped is written (or reported),
    Unsupported is reported, NotSent changes nothing."""
    name, row = data.draw(st.sampled_from(_rows(mapper)), label="field")
    kind, _, field = name.partition(".")
    base, before = _base(mapper, kind)
    value = data.draw(strategy_for(_FIELD_TYPES[kind][field]), label="value")
    item = with_field(base, field, value)
    if item is None:  # the value breaks a rule of the item (the codec would refuse it)
        return
    after = encode(mapper, item)
    label = mapper.item_fields.mapper
    if after is None:  # refused under every policy: loud, not silent
        assert not isinstance(row, NotSent), f"{label}: {name} is declared not sent in a response, yet setting it makes the response refused"
        return
    new = [e for e in about(after) if e not in about(before)]
    if field == "origin" and isinstance(row, Mapped) and value.provider != mapper.name:
        return  # another provider's item id is provenance only: a mapper writes back its own (the row says so)
    if isinstance(row, NotSent):
        assert after.value == before.value and not new, f"{label}: {name} is declared not sent in a response ({row.why}) but setting it to {value!r} changed the body or the report: {new}"
    elif isinstance(row, Unsupported) and _meaningful(value, base, field):
        assert new, f"{label}: {name} is declared unsupported in a response ({row.why}) but {value!r} was dropped silently"
    elif isinstance(row, Mapped) and _meaningful(value, base, field):
        survives = _kept(decoded_value(mapper, after, item, field), value)
        assert survives or after.value != before.value or new, f"{label}: {name} is declared mapped to {row.path} in a response but {value!r} left no trace"


def _hints(mapper: Any, kind: str, field: str) -> list[Any]:
    values = [getattr(decode_item(text), field) for text in RESPONSE_CANDIDATES[kind]]
    if field == "origin":
        values += [Origin(provider=mapper.name, item_id=f"{prefix}0123456789abcdef") for prefix in ("msg_", "fc_", "rs_")]
    return [v for v in values if v is not msgspec.UNSET]


def _mapped(mapper: Any) -> list[str]:
    return [name for name, row in _rows(mapper) if isinstance(row, Mapped) and row.read_back]


_CASES = [(m, n) for m in MAPPERS for n in _mapped(m)]


@pytest.mark.parametrize(("mapper", "name"), _CASES, ids=[f"{m.item_fields.mapper}-{n}" for m, n in _CASES])
def test_a_mapped_field_survives_the_response_round_trip(mapper: Any, name: str) -> None:
    """Some value of a field declared mapped (and read back) in a response is read back from the body written."""
    kind, _, field = name.partition(".")
    base, before = _base(mapper, kind)
    if getattr(base, field) is not msgspec.UNSET and _kept(decoded_value(mapper, before, base, field), getattr(base, field)):
        return  # the base item's own value survives

    def survives(value: Any) -> bool:
        item = with_field(base, field, value)
        conv = None if item is None else encode(mapper, item)
        return conv is not None and _meaningful(value, base, field) and _kept(decoded_value(mapper, conv, item, field), value)

    if any(survives(v) for v in _hints(mapper, kind, field)):
        return
    try:
        find(strategy_for(_FIELD_TYPES[kind][field]), survives, settings=settings(max_examples=300, database=None, phases=[Phase.generate]))
    except NoSuchExample:
        pytest.fail(f"{mapper.item_fields.mapper}: {name} is declared mapped to {mapper.item_fields.row(name, direction='response').path} in a response but no value survived encode_response -> decode_response")
