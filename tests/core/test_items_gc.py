"""The generated Structs are untracked by the garbage collector (``gc=False``): safe only because items are trees.

msgspec's ``gc=False`` leaves a Struct instance out of the cyclic collector, so a reference cycle
through one is never collected. These tests hold the proof that no value built to the schema's
declared types can form one: no Struct type can reach its own type (or an ancestor's) through
declared fields; free-form JSON fields (``Any``) hold plain JSON, and a Struct put there by hand to
make a cycle is not JSON and is refused on encode.
"""

from __future__ import annotations

import gc
from pathlib import Path

import msgspec
import msgspec.inspect as mi
import pytest

from interlingua import items
from interlingua.codec import decode_item, encode_envelope, encode_item
from interlingua.errors import DocumentError

ROOT = Path(__file__).resolve().parents[2]

GENERATED = [
    v
    for v in vars(items).values()
    if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == items.__name__ and v is not items.Struct
]


def _struct_types(t: mi.Type) -> set[type]:
    """Struct classes a value of declared type ``t`` can hold directly or inside containers (not through ``Any``)."""
    if isinstance(t, mi.StructType):
        return {t.cls}
    if isinstance(t, mi.UnionType):
        return set().union(*(_struct_types(s) for s in t.types))
    if isinstance(t, mi.Metadata):
        return _struct_types(t.type)
    if isinstance(t, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
        return _struct_types(t.item_type)
    if isinstance(t, mi.TupleType):
        return set().union(*(_struct_types(s) for s in t.item_types))
    if isinstance(t, mi.DictType):
        return _struct_types(t.key_type) | _struct_types(t.value_type)
    assert not isinstance(t, (mi.DataclassType, mi.TypedDictType, mi.NamedTupleType)), t
    return set()


def _children(cls: type) -> set[type]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return set().union(*(_struct_types(f.type) for f in info.fields))


def test_every_generated_struct_is_untracked() -> None:
    assert len(GENERATED) >= 30
    assert [c.__name__ for c in GENERATED if c.__struct_config__.gc] == []


def test_no_struct_type_reaches_itself_through_declared_fields() -> None:
    """The type graph is acyclic, so a value of the declared types is a tree: no cycle can form."""
    graph = {cls: _children(cls) for cls in GENERATED}
    assert set().union(*graph.values()) <= set(graph), "a field names a Struct that is not generated"
    assert graph[items.Envelope] >= {items.TextItem, items.ToolResultItem, items.Usage}  # the walk sees through unions
    for start in graph:
        seen: set[type] = set()
        todo = list(graph[start])
        while todo:
            cls = todo.pop()
            assert cls is not start, f"{start.__name__} can hold itself through declared fields"
            if cls not in seen:
                seen.add(cls)
                todo.extend(graph[cls])


def test_decoded_items_are_not_tracked_but_their_containers_are() -> None:
    lines = (ROOT / "tests" / "fixtures" / "canonical" / "valid_items.jsonl").read_bytes().splitlines()
    decoded = [decode_item(line) for line in lines if line.strip()]
    assert len(decoded) >= 10
    containers = 0
    for item in decoded:
        assert not gc.is_tracked(item)
        for name in item.__struct_fields__:
            value = getattr(item, name)
            if type(value) is list and value:
                containers += 1
                assert gc.is_tracked(value)  # a list stays tracked: cycles among plain JSON values are still collected
    assert containers


@pytest.mark.parametrize("where", ["metadata", "arguments"])
def test_a_cycle_built_by_hand_is_refused_on_encode(where: str) -> None:
    """The only way to a cycle is to put a Struct where the schema wants JSON: encode refuses it."""
    item = items.ToolCallItem(id="c1", name="f", arguments={})
    box: dict[str, object] = {}
    setattr(item, where, box)
    box["self"] = item
    env = items.Envelope(schema_version="1.0", session_id="s", seq=0, item=item)
    with pytest.raises(DocumentError):
        encode_item(item)
    with pytest.raises(DocumentError):
        encode_envelope(env)
    box.clear()  # break the cycle: the collector cannot (the item is untracked)
